#!/usr/bin/env python3
"""Run torch.nn.functional.linear (cuBLAS, TF32 off) on the cases `ordo cases` wrote, for `ordo check` and
`ordo identify` to judge a library kernel whose order nobody states:

    ordo cases --contract none --operands f32 --shape 256x5376x32 --y-dtype f32 --out cases-cublas-f32
    python3 examples/torch/run_torch_linear.py cases-cublas-f32
    ordo check cases-cublas-f32 --contract none       # batch-size, permutation and shard invariance
    ordo identify cases-cublas-f32 --json identify.json

FP32 operands: torch.backends.cuda.matmul.allow_tf32 = False (IEEE FP32 products). BF16 operands: the output
is what F.linear returns for bf16 inputs (bf16), so write the cases with --y-dtype bf16; for --y-dtype f32 the
script computes F.linear on bf16 inputs and upcasts nothing: it refuses (a bf16 GEMM with an FP32 output is not
what F.linear does). Exit 0 when every case was written, 1 on a case error, 2 on a bad manifest, 3 without a
CUDA device.
"""
import json
import os
import sys
import time


def fail(code, what):
    print(f"error: {what}", file=sys.stderr)
    sys.exit(code)


def main(argv):
    if len(argv) != 2:
        fail(2, "usage: run_torch_linear.py CASES_DIR")
    folder = argv[1]
    try:
        with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(2, f"{folder}/manifest.json: {e}")
    if manifest.get("schema") != "ordo.cases/2":
        fail(2, f"{folder}/manifest.json: not an ordo.cases/2 manifest")
    operands = manifest.get("operands")
    try:
        import numpy as np
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        print(f"no CUDA device: {e}", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("no CUDA device: torch.cuda.is_available() is False", file=sys.stderr)
        return 3
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    root = os.path.realpath(folder)
    cache = {}

    def path(rel):
        p = os.path.realpath(os.path.join(folder, rel))
        if not p.startswith(root + os.sep):
            fail(2, f"{rel} leaves {folder}")
        return p

    def load(rel, shape):
        p = path(rel)
        if p in cache:
            return cache[p]
        a = np.load(p, allow_pickle=False)
        if tuple(a.shape) != tuple(shape) and not (len(shape) == 2 and shape[0] == 1 and a.shape == (shape[1],)):
            fail(1, f"{p}: shape {a.shape}, expected {shape}")
        if operands == "bf16" and a.dtype != np.dtype("<f4"):
            t = torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16).cuda()
        else:
            t = torch.from_numpy(a.astype("<f4", copy=False)).cuda()
        if len(cache) > 16:
            cache.clear()
        cache[p] = t
        return t

    start = time.monotonic()
    name = torch.cuda.get_device_name(0)
    print(f"{len(manifest['cases'])} case(s), {operands} operands, F.linear on {name}, torch {torch.__version__}, "
          f"cuBLAS {torch.backends.cuda.preferred_blas_library()}", flush=True)
    for i, c in enumerate(manifest["cases"], 1):
        M, N, K = c["M"], c["N"], c["K"]
        x = load(c["x"], (M, K))
        w = load(c["w"], (N, K))
        b = None
        if c["bias"]:
            b = torch.from_numpy(np.load(path(c["b"]), allow_pickle=False).astype("<f4")).cuda()
            if operands == "bf16":
                fail(1, f"case {c['id']}: F.linear on bf16 needs a bf16 bias, the cases hold an FP32 one; "
                        "write BF16 cases with --no-bias")
        y = F.linear(x, w, b)
        torch.cuda.synchronize()
        if operands == "bf16":
            if c["y_dtype"] != "bf16":
                fail(1, f"case {c['id']}: F.linear on bf16 returns bf16; write the cases with --y-dtype bf16")
            out = y.view(torch.int16).cpu().numpy().view("<u2")
        else:
            out = y.cpu().numpy().astype("<f4", copy=False)
        target = path(c["y"])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        np.save(target + ".tmp.npy", np.ascontiguousarray(out))
        os.replace(target + ".tmp.npy", target)
        if i % 20 == 0:
            print(f"  {i}/{len(manifest['cases'])} cases, {time.monotonic() - start:.1f} s", flush=True)
    print(f"done: {len(manifest['cases'])} y.npy written in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
