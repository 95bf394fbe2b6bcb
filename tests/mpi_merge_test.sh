#!/usr/bin/env bash
# `mpirun -np 2 ordo fuzz` on a host subject merges to the report of one process with the same seed and
# case count, apart from timings. Usage: mpi_merge_test.sh ORDO PLUGIN WORKDIR
set -euo pipefail
ordo="$1" plugin="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # CI runs as root
mpirun -np 2 --oversubscribe "$ordo" fuzz --plugin "$plugin" --cases 120 --seed 3 --quiet --out "$work/mpi" > "$work/mpi.log" 2>&1 ||
  [ $? = 1 ] || { cat "$work/mpi.log"; exit 1; }
"$ordo" fuzz --plugin "$plugin" --cases 120 --seed 3 --quiet --out "$work/one" > "$work/one.log" 2>&1 ||
  [ $? = 1 ] || { cat "$work/one.log"; exit 1; }
# Two ranks really ran, each its shard (a rank-less run would leave one checkpoint.json).
for r in 0 1; do [ -f "$work/mpi/checkpoint-rank$r.json" ] || { echo "no checkpoint of rank $r"; cat "$work/mpi.log"; exit 1; }; done
python3 "$(dirname "$0")/compare_fuzz_reports.py" "$work/mpi/report.json" "$work/one/report.json" "mpirun -np 2"
