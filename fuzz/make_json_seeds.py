#!/usr/bin/env python3
"""Writes the seed corpora of fuzz_corpus_entry, fuzz_cases_manifest and fuzz_report (fuzz/README.md) from
real files, cut small so that mutations stay a few KB. Usage, from the repository root, with the main build
in build/:

    python3 fuzz/make_json_seeds.py [BUILD_DIR]

- fuzz_corpus_entry: every corpus/golden/*.json cut to its 3 smallest cases, plus the smallest case with a
  bias, keys or a bias gradient when those 3 have none; corpus/regressions/*.json whole and cut to 1 case;
  and the entries the host tests write with ordo's own writer (ordo_host_tests, FailureEntries.* and
  CorpusEntry.*): forward/dX/dW round trips, a forward and a backward failure entry, and an entry whose
  tensors are .npy references (refused here: no .npy beside it); and two golden entries cut to one case
  with a contract file embedded as the contract.
- fuzz_cases_manifest: manifests written by `ordo cases` (three --shape runs, and a level-1 run cut to the
  cases its first relations name).
- fuzz_report: reports from evidence/ (verify, a campaign with its timeline and kinds, a check
  without a GPU) cut to a few rows, with the report verdict recomputed from the rows kept; and one with a
  bench row.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def out_dir(target):
    d = os.path.join(CORPUS, target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def write(d, name, obj):
    with open(os.path.join(d, name), "w") as f:
        f.write(json.dumps(obj, indent=1) + "\n")


def size(obj):
    return len(json.dumps(obj))


# ---- fuzz_corpus_entry ------------------------------------------------------------------------------------

def cut_cases(entry, n):
    cases = sorted(entry["cases"], key=size)
    keep = cases[:n]
    for want in ("bias", "keys"):
        if not any(want in c for c in keep):
            more = [c for c in cases if want in c]
            if more:
                keep.append(more[0])
    if not any(c.get("with_bias_grad") for c in keep):
        more = [c for c in cases if c.get("with_bias_grad")]
        if more:
            keep.append(more[0])
    out = dict(entry)
    out["cases"] = [c for c in entry["cases"] if any(c is k for k in keep)]
    return out


def corpus_entry_seeds():
    d = out_dir("fuzz_corpus_entry")
    for f in sorted(glob.glob(os.path.join(ROOT, "corpus", "golden", "*.json"))):
        write(d, "golden-" + os.path.basename(f), cut_cases(json.load(open(f)), 3))
    for f in sorted(glob.glob(os.path.join(ROOT, "corpus", "regressions", "*.json"))):
        e = json.load(open(f))
        write(d, "regression-" + os.path.basename(f), e)
        one = dict(e)
        one["cases"] = e["cases"][:1]
        write(d, "regression-one-" + os.path.basename(f), one)
    tests = os.path.join(BUILD, "tests", "ordo_host_tests")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([tests, "--gtest_filter=FailureEntries.*:CorpusEntry.*"], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, TEST_TMPDIR=tmp + "/"))
        picks = {
            "corpus_entry_roundtrip/fwd.json": "writer-fwd.json",
            "corpus_entry_roundtrip/dx.json": "writer-dx.json",
            "corpus_entry_roundtrip/dw.json": "writer-dw-keys.json",
            "corpus_entry_npy/big.json": "writer-npy-references.json",
        }
        for src, name in picks.items():
            write(d, name, json.load(open(os.path.join(tmp, src))))
        for sub, name in (("corpus_entry_forward_failure", "writer-failure-forward.json"),
                          ("corpus_entry_backward_failure", "writer-failure-backward.json")):
            (f,) = glob.glob(os.path.join(tmp, sub, "failures", "*.json"))
            write(d, name, json.load(open(f)))
    # Embedded ordo.contract/1 documents (the writer's form for a contract that is not built in): a golden
    # entry cut to its smallest case, its contract id replaced by a contract file's document. The values
    # stay those of the original contract: the reader does not replay.
    embeds = {
        "sm80.fwd.f32.fma.simt.naive16x16.json": os.path.join(ROOT, "contracts", "fwd.f32.seg256-ascending.json"),
        "sm90.fwd.bf16.mma-sync.32x32x16.json": os.path.join(ROOT, "contracts", "fwd.bf16.sm90-seg64-pairwise.json"),
    }
    for golden, contract in embeds.items():
        e = json.load(open(os.path.join(ROOT, "corpus", "golden", golden)))
        e["cases"] = sorted(e["cases"], key=size)[:1]
        e["contract"] = json.load(open(contract))
        write(d, "embedded-" + os.path.basename(contract), e)


# ---- fuzz_cases_manifest ----------------------------------------------------------------------------------

def cases_manifest_seeds():
    d = out_dir("fuzz_cases_manifest")
    ordo = os.path.join(BUILD, "tools", "ordo")
    runs = {
        "fwd.f32-8x4x6.json": ["--contract", "fwd.f32.fma-chain/1", "--shape", "8x4x6"],
        "none-bf16-nobias-5x3x2.json": ["--contract", "none", "--operands", "bf16", "--no-bias", "--shape", "5x3x2",
                                        "--seed", "7"],
        "fwd.bf16-two-groups.json": ["--contract", "fwd.bf16.tc-fdpa-sm90/1", "--shape", "4x3x5", "--shape", "2x2x2",
                                     "--seed", "3"],
        "fwd.f32-level1-cut.json": ["--contract", "fwd.f32.fma-chain/1"],
    }
    for name, args in runs.items():
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([ordo, "cases", *args, "--out", tmp + "/c"], check=True, stdout=subprocess.DEVNULL)
            m = json.load(open(tmp + "/c/manifest.json"))
        if "cut" in name:  # 66 cases: keep those the first 3 relations name
            m["relations"] = m["relations"][:3]
            named = {b["case"] for r in m["relations"] for b in (r["reference"], r["subject"])}
            m["cases"] = [c for c in m["cases"] if c["id"] in named]
        write(d, name, m)


# ---- fuzz_report ------------------------------------------------------------------------------------------

def report_verdict(rep):
    if rep.get("interrupted", rep["verdict"] == "interrupted"):
        return "interrupted"
    rows = rep["results"]
    ok = rows and all(r["verdict"] == "pass" or (r["verdict"] == "inconclusive" and r.get("skip_reason")) for r in rows)
    if not ok:
        return "fail"
    return "pass_with_inconclusive" if any(r["verdict"] == "inconclusive" for r in rows) else "pass"


def cut_rows(rep, n):
    """n rows: one of each verdict first (with failures when there are), then the smallest."""
    rows = rep["results"]
    keep = []
    for v in sorted({r["verdict"] for r in rows}):
        keep.append(min((r for r in rows if r["verdict"] == v), key=size))
    for r in sorted(rows, key=size):
        if len(keep) >= n:
            break
        if not any(r is k for k in keep):
            keep.append(r)
    out = dict(rep)
    out["results"] = [r for r in rows if any(r is k for k in keep)]
    for r in out["results"]:
        r["failures"] = r["failures"][:1]
    if "timeline" in out:
        out["timeline"] = out["timeline"][:3]
    out["verdict"] = report_verdict(out)
    return out


def report_seeds():
    d = out_dir("fuzz_report")
    ev = os.path.join(ROOT, "evidence")
    picks = {
        "h200-01de6c1-fp32-foundation/verify-level2.json": "verify-level2-pass.json",
        "h200-1f823e2-bf16-mma-sync/verify-bf16-at-2199055-model-mismatch.json": "verify-bf16-mismatch.json",
        "h200-852d7ab-subjects/verify-level1.json": "verify-level1-requested-skips.json",
        "h200-17ddb3e-backward/verify-backward.json": "verify-backward.json",
        "h200-3f0502a-campaign/campaign.json": "campaign-timeline-kinds.json",
        "h200-852d7ab-subjects/cublas-f32-256x32x5376-check.json": "check-no-gpu.json",
    }
    for src, name in picks.items():
        write(d, name, cut_rows(json.load(open(os.path.join(ev, src))), 3))
    b = cut_rows(json.load(open(os.path.join(ev, "h200-01de6c1-fp32-foundation/verify-level2.json"))), 1)
    b["bench"] = [{"kernel": "sm80.fwd.f32.fma.simt.128x128x16", "M": 4096, "N": 4096, "K": 4096, "ratio": 0.61,
                   "ms": 12.5, "cublas_ms": 7.6}, {"kernel": "sm80.fwd.f32.fma.simt.naive16x16", "M": 1, "N": 1,
                                                   "K": 1, "ratio": None}]
    write(d, "bench-rows.json", b)


if __name__ == "__main__":
    corpus_entry_seeds()
    cases_manifest_seeds()
    report_seeds()
    for t in ("fuzz_corpus_entry", "fuzz_cases_manifest", "fuzz_report"):
        files = glob.glob(os.path.join(CORPUS, t, "*"))
        print(f"{t}: {len(files)} files, {sum(os.path.getsize(f) for f in files)} bytes")
