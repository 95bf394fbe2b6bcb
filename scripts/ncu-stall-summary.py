#!/usr/bin/env python3
"""Summarises the per-instruction page of an Nsight Compute report.

Input: the CSV of `ncu -i REPORT --page source --csv --print-source sass` (optionally gzipped), collected
with `--section SourceCounters`. Prints, for the whole kernel, the share of warp-stall samples per stall
reason, then per opcode, then the hottest instructions. Stall reasons follow ncu's names without the
"stall_" prefix: "wait" is a fixed-latency dependency (e.g. the FMA chain), "short_sb" a wait on a
shared-memory (MIO) result, "long_sb" on global memory, "selected" the cycles a warp issued.

usage: ncu-stall-summary.py FILE.csv[.gz] [--top N]
"""
import argparse
import collections
import csv
import gzip
import io
import sys


def read_rows(path):
    raw = gzip.open(path, "rt") if path.endswith(".gz") else open(path, newline="")
    with raw as f:
        return list(csv.reader(io.StringIO(f.read())))


def number(text):
    try:
        return float(text.replace(",", "") or 0)
    except ValueError:
        return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="ncu --page source --csv --print-source sass output (.csv or .csv.gz)")
    ap.add_argument("--top", type=int, default=10, help="hottest instructions to list (default 10)")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    header_at = next((i for i, r in enumerate(rows) if "Source" in [c.strip() for c in r]), None)
    if header_at is None:
        sys.exit(f"{args.csv}: no per-instruction table (was it written with --page source --csv?)")
    header, data = rows[header_at], rows[header_at + 1:]
    src = header.index("Source")
    samples = header.index("Warp Stall Sampling (All Samples)")
    # Each reason appears twice (all samples, and "(Not Issued)"); the first is the one to count.
    reasons = [(i, c[len("stall_"):]) for i, c in enumerate(header) if c.startswith("stall_") and "Not Issued" not in c]
    by_reason, by_op, op_count, hottest = collections.Counter(), collections.Counter(), collections.Counter(), []
    total = 0.0
    for r in data:
        if len(r) < len(header):
            continue
        text = r[src].strip()
        words = text.split()
        if not words:
            continue
        op = (words[1] if words[0].startswith("@") and len(words) > 1 else words[0]).split(".")[0]
        v = number(r[samples])
        total += v
        by_op[op] += v
        op_count[op] += 1
        hottest.append((v, text))
        for i, name in reasons:
            by_reason[name] += number(r[i])
    if total == 0:
        sys.exit(f"{args.csv}: no stall samples (collect with --section SourceCounters)")
    reason_total = sum(by_reason.values()) or 1.0
    print(f"{args.csv}: {total:.0f} samples over {len(hottest)} instructions")
    print("stall reasons: " + ", ".join(f"{n} {100 * v / reason_total:.0f}%" for n, v in by_reason.most_common(8)))
    print("by opcode:     " + ", ".join(f"{op} {100 * v / total:.0f}% ({op_count[op]})" for op, v in by_op.most_common(8)))
    hottest.sort(reverse=True)
    for v, text in hottest[: args.top]:
        print(f"  {100 * v / total:5.1f}%  {text}")


if __name__ == "__main__":
    main()
