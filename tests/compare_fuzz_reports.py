#!/usr/bin/env python3
"""Two `ordo fuzz` reports of the same seed and case count are equal apart from timings and the command.
Usage: compare_fuzz_reports.py A.json B.json LABEL (LABEL names the split, e.g. "mpirun -np 2")."""
import json
import sys


def comparable(path):
    j = json.load(open(path))
    for k in ("seconds", "started_at", "timeline", "command", "tool"):
        j.pop(k, None)
    for row in j["results"]:
        row.pop("seconds", None)
    return j


a, b = comparable(sys.argv[1]), comparable(sys.argv[2])
label = sys.argv[3]
if a != b:
    for ra, rb in zip(a["results"], b["results"]):
        if ra != rb:
            print("differs:", ra["property"], {k: (ra[k], rb.get(k)) for k in ra if ra[k] != rb.get(k)})
    sys.exit(f"{label} and one process give different reports")
cases = sum(r["cases"] for r in a["results"])
if cases == 0:
    sys.exit("no case ran: nothing was compared")
print(f"{label} == one process: {len(a['results'])} properties, {cases} cases")
