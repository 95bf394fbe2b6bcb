#!/usr/bin/env bash
# `ordo fuzz --workers-per-device 3` (three lanes in one process, the subject called from three threads at
# once) gives the report of one worker with the same seed and case count, apart from timings.
# Usage: fuzz_workers_test.sh ORDO PLUGIN WORKDIR
set -euo pipefail
ordo="$1" plugin="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
for w in 1 3; do
  "$ordo" fuzz --plugin "$plugin" --cases 120 --seed 5 --workers-per-device $w --quiet --out "$work/w$w" > "$work/w$w.log" 2>&1 ||
    [ $? = 1 ] || { cat "$work/w$w.log"; exit 1; }
done
grep -q "3 worker(s)" "$work/w3.log" || { echo "three workers did not run"; cat "$work/w3.log"; exit 1; }
python3 "$(dirname "$0")/compare_fuzz_reports.py" "$work/w3/report.json" "$work/w1/report.json" "--workers-per-device 3"
