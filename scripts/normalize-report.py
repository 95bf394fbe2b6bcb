#!/usr/bin/env python3
"""Prints the parts of an ordo report (report.json of verify, fuzz, selftest, check) that say which cases ran and
what was decided, without timings, paths, dates or the environment: two builds that generate the same cases and
reach the same verdicts print the same text. Used by scripts/compare-behaviour.sh.
Usage: normalize-report.py REPORT.json"""
import json
import sys

# Per row: what identifies the check, how many cases and elements it judged (the generated cases' fingerprint),
# the value families and shape classes they covered, the errors measured, and the verdict.
ROW_KEYS = ("property", "kernel", "backend", "contract", "kind", "unit", "requested", "cases", "elements", "failed",
            "skipped", "subject_faults", "tool_errors", "verdict", "families", "shape_classes",
            "max_error_over_bound", "max_relative_error", "max_normwise_relative_error",
            "nonfinite_input_elements", "overflowed_elements", "expect_failure")
# Per mutant of a self-test report.
MUTANT_KEYS = ("mutant", "kind", "killed", "verdict", "property", "family", "cases", "cases_to_kill")


def pick(obj, keys):
    return {k: obj[k] for k in keys if k in obj}


def normalize(report):
    out = {"schema": report.get("schema"), "verdict": report.get("verdict"), "seed": report.get("seed"),
           "level": report.get("level")}
    rows = report.get("results", [])
    out["results"] = sorted((pick(r, ROW_KEYS) for r in rows),
                            key=lambda r: (r.get("property", ""), r.get("kernel", ""), r.get("contract", "")))
    if "mutants" in report:
        out["mutants"] = sorted((pick(m, MUTANT_KEYS) for m in report["mutants"]), key=lambda m: m.get("mutant", ""))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        report = json.load(f)
    json.dump(normalize(report), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
