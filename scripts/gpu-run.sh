#!/usr/bin/env bash
# Runs on a GPU machine, from the bundle folder, writing under OUT_DIR (at most 8 files, which is what a
# lent machine returns): the benchmark, the GPU tests, the tensor-core probe and the verify suite.
# Usage: gpu-run.sh OUT_DIR [level] [steps], steps a comma list of bench,bench-bf16,bench-backward,tests,probe,verify
# (default all). ORDO_VERIFY_ARGS adds options to `ordo verify` (e.g. --kernel ID).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: gpu-run.sh OUT_DIR [level] [steps]}"
level="${2:-2}"
steps=",${3:-bench,bench-bf16,bench-backward,tests,probe,verify},"
mkdir -p "$out"
# cuBLAS comes from the machine's CUDA install (or PyTorch's wheels); nothing else is loaded.
for d in /usr/local/cuda/lib64 $(python3 -c 'import nvidia.cublas, os; print(os.path.dirname(nvidia.cublas.__file__) + "/lib")' 2>/dev/null); do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
done
status=0
echo "== commit $(cat "$here/COMMIT")"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv 2>&1
if [[ $steps == *,bench,* ]]; then
  echo "== bench"
  "$here/ordo_bench_forward" --json "$out/bench.json" > "$out/bench.log" 2>&1 || status=1
  cat "$out/bench.log"
fi
if [[ $steps == *,bench-bf16,* ]]; then
  echo "== bench (BF16 variants, f32 and bf16 output)"
  "$here/ordo_bench_forward" --variant all-bf16 --out-dtype both --json "$out/bench-bf16.json" > "$out/bench-bf16.log" 2>&1 || status=1
  cat "$out/bench-bf16.log"
fi
if [[ $steps == *,bench-backward,* ]]; then
  echo "== bench (FP32 backward: dX, dW in place and gathered)"
  "$here/ordo_bench_backward" --json "$out/bench-backward.json" > "$out/bench-backward.log" 2>&1 || status=1
  cat "$out/bench-backward.log"
  "$here/ordo_bench_backward" --dx-variant sm80.bwd.dx.f32.fma.simt.narrow.16x32x32 \
    --dw-variant sm80.bwd.dw.f32.fma.simt.narrow.16x32x32 --json "$out/bench-backward-narrow.json" \
    > "$out/bench-backward-narrow.log" 2>&1 || status=1
  cat "$out/bench-backward-narrow.log"
fi
if [[ $steps == *,tests,* ]]; then
  echo "== GPU tests"
  RC_PARAMS="max_success=300 seed=20261130" "$here/ordo_gpu_tests" > "$out/gpu-tests.log" 2>&1 || status=1
  tail -n 25 "$out/gpu-tests.log"
fi
if [[ $steps == *,probe,* ]]; then
  echo "== ordo probe"
  "$here/ordo" probe --out "$out/probe" || status=1
fi
if [[ $steps == *,verify,* ]]; then
  echo "== ordo verify --level $level"
  timeout "${ORDO_VERIFY_TIMEOUT:-3600}" "$here/ordo" verify --level "$level" --require-gpu ${ORDO_VERIFY_ARGS:-} --out "$out/verify" > "$out/verify.log" 2>&1 || status=1
  grep -vE '^  \.\.\.' "$out/verify.log" | tail -n 30
fi
exit $status
