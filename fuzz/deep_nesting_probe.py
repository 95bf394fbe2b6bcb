#!/usr/bin/env python3
"""Writes the hand-made deep-nesting probes of fuzz_cases_manifest and fuzz_report (fuzz/README.md): valid
JSON of a few tens of KB that nests DEPTH arrays where a reader copies or dump()s the value recursively.
libFuzzer does not reach them (its inputs stay far below the depth needed). Usage:

    python3 fuzz/deep_nesting_probe.py OUT_DIR [DEPTH]     # DEPTH default 20000 (40 KB of brackets)
    build-fuzz/fuzz_cases_manifest OUT_DIR/manifest-*.json
    build-fuzz/fuzz_report OUT_DIR/report-*.json

Each must run clean ("Executed ..."). Before core/bounded_json.h each overflowed the stack; the three outputs are
kept in fuzz/regressions/ (see the README).
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = sys.argv[1]
depth = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
os.makedirs(out, exist_ok=True)
deep = "[" * depth + "]" * depth


def write(name, obj, path):
    """obj with the value at `path` (a list of keys and indices) replaced by the nested arrays."""
    o = obj
    for k in path[:-1]:
        o = o[k]
    o[path[-1]] = "@@DEEP@@"
    with open(os.path.join(out, name), "w") as f:
        f.write(json.dumps(obj).replace('"@@DEEP@@"', deep))


def seed(target, name):
    return json.load(open(os.path.join(ROOT, "fuzz", "corpus", target, name)))


# protocol::manifest_from_json copies contract_definition (a recursive copy) ...
write("manifest-contract_definition-deep.json", seed("fuzz_cases_manifest", "fwd.f32-8x4x6.json"),
      ["contract_definition"])
# ... and dump()s a wrong-typed value into its message ("must be an integer, got " + v.dump()).
write("manifest-level-deep.json", seed("fuzz_cases_manifest", "fwd.f32-8x4x6.json"), ["level"])
# reports::report_from_json copies the bench array (r.bench = ...), unknown fields of its rows included.
write("report-bench-row-field-deep.json", seed("fuzz_report", "bench-rows.json"), ["bench", 0, "extra"])
