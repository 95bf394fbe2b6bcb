#!/usr/bin/env python3
"""Run a plain Triton GEMM on the cases `ordo cases` wrote, so that `ordo check` can judge its bits.

    ordo cases --contract fwd.bf16.tc-fdpa-sm90/1 --out cases-bf16
    python3 examples/triton/run_triton_gemm.py cases-bf16
    ordo check cases-bf16

For every case in CASES_DIR/manifest.json this computes Y = X W^T (+ b) with one fixed Triton kernel
and writes each case's y.npy (the path the manifest names). The kernel is the standard Triton matmul: one BLOCK_M x BLOCK_N
tile of Y per program, the K loop `acc = tl.dot(a, b, acc)` (the accumulator goes through every
tl.dot, a chain over k ascending), an FP32 accumulator from zero, masked loads with other=0.0 for
the K tail and the M/N edges, the bias added in FP32 after the loop, and Y stored as FP32 or rounded
once to bfloat16 (round to nearest even). FP32 operands use input_precision="ieee" (never TF32). No
split-K, no autotuning: one fixed configuration per operand type.

Exit status: 0 when every case was written; 1 on an error in a case (its id is printed); 2 on a bad
command line or manifest; 3 when no CUDA device can be used ("no CUDA device").

ORDO_TRITON_FAKE_CPU=1 replaces the kernel with a numpy product (float64, rounded to float32). It
exists only to test this script's manifest reading and .npy writing on a machine without a GPU; its
results are not any contract's and `ordo check` will rightly reject many of them.
"""

import argparse
import json
import os
import sys
import time

SCHEMA = "ordo.cases/2"
EXIT_CASE_ERROR = 1
EXIT_USAGE = 2
EXIT_NO_CUDA = 3

# The fixed configurations (no autotune): the tile of Y per program, the K step, warps, stages.
CONFIGS = {
    "fp32": dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=3),
    "bf16": dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, num_warps=4, num_stages=3),
}
OPERANDS_OF_KERNEL = {"fp32": "f32", "bf16": "bf16"}


class CaseError(Exception):
    """An error in one case: the case id is printed with it."""


class ManifestError(Exception):
    """An unreadable or malformed manifest."""


class NoCuda(Exception):
    """No CUDA device can be used: exit 3."""


# --- manifest -----------------------------------------------------------------------------------------


def _require(cond, what):
    if not cond:
        raise ManifestError(what)


def read_manifest(cases_dir):
    path = os.path.join(cases_dir, "manifest.json")
    try:
        with open(path, "r", encoding="utf-8") as f:
            manifest = json.load(f)
    except OSError as e:
        raise ManifestError(f"cannot read {path}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path}: not JSON: {e}") from e
    _require(isinstance(manifest, dict), f"{path}: the manifest must be a JSON object")
    _require(manifest.get("schema") == SCHEMA,
             f"{path}: schema is {manifest.get('schema')!r}; this script reads {SCHEMA!r}")
    operands = manifest.get("operands")
    _require(operands in ("f32", "bf16"), f"{path}: operands is {operands!r}; expected \"f32\" or \"bf16\"")
    cases = manifest.get("cases")
    _require(isinstance(cases, list), f"{path}: cases must be a list")

    root = os.path.realpath(cases_dir)
    out, seen = [], set()
    for i, c in enumerate(cases):
        where = f"{path}: cases[{i}]"
        _require(isinstance(c, dict), f"{where}: must be an object")
        cid = c.get("id")
        _require(isinstance(cid, str) and cid, f"{where}: id must be a non-empty string")
        where = f"{path}: case {cid}"
        _require(cid not in seen, f"{where}: id listed twice")
        seen.add(cid)
        files = {}
        for key in ("x", "w", "b", "y"):
            d = c.get(key)
            if key == "b" and not c.get("bias"):
                continue
            _require(isinstance(d, str) and d and not os.path.isabs(d), f"{where}: {key} must be a relative path")
            full = os.path.realpath(os.path.join(cases_dir, d))
            _require(full.startswith(root + os.sep), f"{where}: {key} {d!r} leaves {cases_dir}")
            files[key] = full
        dims = {}
        for key in ("M", "N", "K"):
            v = c.get(key)
            _require(isinstance(v, int) and not isinstance(v, bool) and v >= 1, f"{where}: {key} must be an integer >= 1")
            dims[key] = v
        bias = c.get("bias")
        _require(isinstance(bias, bool), f"{where}: bias must be true or false")
        y_dtype = c.get("y_dtype")
        _require(y_dtype in ("f32", "bf16"), f"{where}: y_dtype is {y_dtype!r}; expected \"f32\" or \"bf16\"")
        out.append(dict(id=cid, files=files, M=dims["M"], N=dims["N"], K=dims["K"], bias=bias, y_dtype=y_dtype))
    return operands, out


# --- .npy input and output ------------------------------------------------------------------------------


def load_operand(np, path, shape, dtype, what):
    """An .npy file of exactly this shape and little-endian dtype ('<f4' or '<u2'), C order."""
    try:
        arr = np.load(path, allow_pickle=False)
    except OSError as e:
        raise CaseError(f"cannot read {path}: {e}") from e
    except ValueError as e:
        raise CaseError(f"{path}: not a readable .npy file: {e}") from e
    if arr.dtype != np.dtype(dtype):
        raise CaseError(f"{what} ({path}) has dtype {arr.dtype.str}; expected {dtype}")
    if tuple(arr.shape) != tuple(shape):
        raise CaseError(f"{what} ({path}) has shape {list(arr.shape)}; expected {list(shape)}")
    return np.ascontiguousarray(arr)


def load_case(np, case, operands):
    M, N, K = case["M"], case["N"], case["K"]
    op_dtype = "<f4" if operands == "f32" else "<u2"
    x = load_operand(np, case["files"]["x"], (M, K), op_dtype, "x")
    w = load_operand(np, case["files"]["w"], (N, K), op_dtype, "w")
    b = load_operand(np, case["files"]["b"], (N,), "<f4", "b") if case["bias"] else None
    return x, w, b


def write_npy_atomic(np, path, arr):
    """Write to PATH.tmp, then rename over PATH: a reader never sees a half-written y.npy."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as f:  # a file object: np.save would append ".npy" to a name
            np.save(f, arr, allow_pickle=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise CaseError(f"cannot write {path}: {e}") from e


# --- the fake CPU kernel (I/O tests only) -----------------------------------------------------------------


def bf16_bits_to_f32(np, bits):
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16_bits(np, v):
    """Round to nearest even; NaN stays a quiet NaN."""
    u = np.ascontiguousarray(v, dtype=np.float32).view(np.uint32)
    rounded = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    nan = np.isnan(v)
    out = rounded.astype(np.uint16)
    out[nan] = ((u[nan] >> np.uint32(16)) | np.uint32(0x0040)).astype(np.uint16)
    return out


def fake_cpu_gemm(np, case, operands, x, w, b):
    if operands == "bf16":
        x, w = bf16_bits_to_f32(np, x), bf16_bits_to_f32(np, w)
    with np.errstate(all="ignore"):
        y = x.astype(np.float64) @ w.astype(np.float64).T
        if b is not None:
            y = y + b.astype(np.float64)[None, :]
        y = y.astype(np.float32)
    if case["y_dtype"] == "bf16":
        return f32_to_bf16_bits(np, y).astype("<u2")
    return y.astype("<f4")


# --- the Triton kernel -------------------------------------------------------------------------------------


def build_triton_runner(kernel_kind):
    """Imports torch and triton and checks the GPU; returns run(case, x, w, b) -> numpy y."""
    try:
        import torch
    except ImportError as e:
        raise NoCuda(f"torch is not importable ({e})") from e
    if not torch.cuda.is_available():
        raise NoCuda("torch.cuda.is_available() is False")
    try:
        import triton
        import triton.language as tl
    except ImportError as e:
        raise NoCuda(f"triton is not importable ({e})") from e

    @triton.jit
    def gemm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                    stride_xm, stride_xk, stride_wn, stride_wk, stride_ym, stride_yn,
                    HAS_BIAS: tl.constexpr, OUT_BF16: tl.constexpr, FP32_OPERANDS: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
        offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            kk = k0 + offs_k
            a = tl.load(x_ptr + offs_m[:, None] * stride_xm + kk[None, :] * stride_xk,
                        mask=(offs_m[:, None] < M) & (kk[None, :] < K), other=0.0)        # [BLOCK_M, BLOCK_K]
            bt = tl.load(w_ptr + offs_n[None, :] * stride_wn + kk[:, None] * stride_wk,
                         mask=(offs_n[None, :] < N) & (kk[:, None] < K), other=0.0)       # [BLOCK_K, BLOCK_N] = W^T
            if FP32_OPERANDS:
                acc = tl.dot(a, bt, acc, input_precision="ieee")
            else:
                acc = tl.dot(a, bt, acc)
        if HAS_BIAS:
            bias = tl.load(b_ptr + offs_n, mask=offs_n < N, other=0.0)
            acc = acc + bias[None, :]
        y_ptrs = y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn
        y_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        if OUT_BF16:
            tl.store(y_ptrs, acc.to(tl.bfloat16), mask=y_mask)  # one round-to-nearest-even cast
        else:
            tl.store(y_ptrs, acc, mask=y_mask)

    cfg = CONFIGS[kernel_kind]
    device = torch.device("cuda")

    def to_device(arr):
        if arr.dtype.str == "<u2":  # bfloat16 bit patterns
            return torch.from_numpy(arr.view("<i2")).view(torch.bfloat16).to(device)
        return torch.from_numpy(arr).to(device)

    def run(case, x, w, b):
        M, N, K = case["M"], case["N"], case["K"]
        xd, wd = to_device(x), to_device(w)
        bd = to_device(b) if b is not None else None
        out_bf16 = case["y_dtype"] == "bf16"
        y = torch.empty((M, N), dtype=torch.bfloat16 if out_bf16 else torch.float32, device=device)
        grid = (triton.cdiv(M, cfg["BLOCK_M"]), triton.cdiv(N, cfg["BLOCK_N"]))
        gemm_kernel[grid](
            xd, wd, bd if bd is not None else xd, y, M, N, K,
            xd.stride(0), xd.stride(1), wd.stride(0), wd.stride(1), y.stride(0), y.stride(1),
            HAS_BIAS=bd is not None, OUT_BF16=out_bf16, FP32_OPERANDS=kernel_kind == "fp32",
            BLOCK_M=cfg["BLOCK_M"], BLOCK_N=cfg["BLOCK_N"], BLOCK_K=cfg["BLOCK_K"],
            num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
        torch.cuda.synchronize()
        if out_bf16:
            return y.view(torch.int16).cpu().numpy().view("<u2")
        return y.cpu().numpy().astype("<f4", copy=False)

    name = torch.cuda.get_device_name(0)
    cap = torch.cuda.get_device_capability(0)
    info = f"{name} (sm_{cap[0]}{cap[1]}), torch {torch.__version__}, triton {triton.__version__}"
    return run, info


# --- main --------------------------------------------------------------------------------------------------


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Run a fixed Triton GEMM on every case of an `ordo cases` folder and write y.npy.")
    p.add_argument("cases_dir", metavar="CASES_DIR", help="the folder `ordo cases --out` wrote (manifest.json)")
    p.add_argument("--kernel", choices=("bf16", "fp32", "auto"), default="auto",
                   help="operand type of the kernel; auto: the manifest's operands (default)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="run only the first N cases")
    args = p.parse_args(argv)
    if args.limit is not None and args.limit < 0:
        p.error("--limit must be >= 0")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        operands, cases = read_manifest(args.cases_dir)
    except ManifestError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    kernel = {"f32": "fp32", "bf16": "bf16"}[operands] if args.kernel == "auto" else args.kernel
    if OPERANDS_OF_KERNEL[kernel] != operands:
        print(f"error: --kernel {kernel} takes {OPERANDS_OF_KERNEL[kernel]} operands; the manifest's are {operands}",
              file=sys.stderr)
        return EXIT_USAGE
    if args.limit is not None:
        cases = cases[:args.limit]

    fake = os.environ.get("ORDO_TRITON_FAKE_CPU") == "1"
    if fake:
        print("ORDO_TRITON_FAKE_CPU=1: numpy float64 product rounded to float32, NOT Triton; "
              "for testing this script's I/O only", file=sys.stderr)

        def run(case, x, w, b):
            return fake_cpu_gemm(np, case, operands, x, w, b)
        info = "fake CPU kernel (numpy)"
    else:
        try:
            run, info = build_triton_runner(kernel)
        except NoCuda as e:
            print(f"no CUDA device: {e}; this script needs a GPU with torch and triton "
                  f"({len(cases)} case(s) read from {args.cases_dir}, none run)", file=sys.stderr)
            return EXIT_NO_CUDA
    try:
        import numpy as np
    except ImportError as e:
        print(f"error: numpy is not importable ({e}); it reads and writes the .npy files", file=sys.stderr)
        return EXIT_USAGE

    cfg = CONFIGS[kernel]
    print(f"{len(cases)} case(s), {operands} operands, kernel {kernel} "
          f"(BLOCK_M={cfg['BLOCK_M']} BLOCK_N={cfg['BLOCK_N']} BLOCK_K={cfg['BLOCK_K']}) on {info}")
    start = time.monotonic()
    counts = {"f32": 0, "bf16": 0}
    for i, case in enumerate(cases, 1):
        try:
            x, w, b = load_case(np, case, operands)
            y = run(case, x, w, b)
            want = "<f4" if case["y_dtype"] == "f32" else "<u2"
            if y.dtype != np.dtype(want) or tuple(y.shape) != (case["M"], case["N"]):
                raise CaseError(f"the kernel returned {y.dtype.str} {list(y.shape)}; expected {want} "
                                f"{[case['M'], case['N']]}")
            os.makedirs(os.path.dirname(case["files"]["y"]), exist_ok=True)
            write_npy_atomic(np, case["files"]["y"], np.ascontiguousarray(y))
        except CaseError as e:
            print(f"error: case {case['id']}: {e}", file=sys.stderr)
            return EXIT_CASE_ERROR
        except Exception as e:  # a Triton compile or launch failure, out of memory, ...
            print(f"error: case {case['id']}: {type(e).__name__}: {e}", file=sys.stderr)
            return EXIT_CASE_ERROR
        counts[case["y_dtype"]] += 1
        if i % 50 == 0:
            print(f"  {i}/{len(cases)} cases written (last {case['id']}, "
                  f"M={case['M']} N={case['N']} K={case['K']}), {time.monotonic() - start:.1f} s", flush=True)
    print(f"done: {len(cases)} y.npy written ({counts['f32']} f32, {counts['bf16']} bf16 outputs) in "
          f"{time.monotonic() - start:.1f} s; next: ordo check {args.cases_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
