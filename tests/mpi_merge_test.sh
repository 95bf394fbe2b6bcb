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
python3 - "$work/mpi/report.json" "$work/one/report.json" <<'PY'
import json, sys
def comparable(path):
    j = json.load(open(path))
    for k in ("seconds", "started_at", "timeline", "command", "tool"):
        j.pop(k, None)
    for row in j["results"]:
        row.pop("seconds", None)
    return j
a, b = comparable(sys.argv[1]), comparable(sys.argv[2])
if a != b:
    for ra, rb in zip(a["results"], b["results"]):
        if ra != rb:
            print("differs:", ra["property"], {k: (ra[k], rb.get(k)) for k in ra if ra[k] != rb.get(k)})
    sys.exit("mpirun -np 2 and one process give different reports")
cases = sum(r["cases"] for r in a["results"])
print(f"mpirun -np 2 == one process: {len(a['results'])} properties, {cases} cases")
PY
