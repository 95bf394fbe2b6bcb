#!/usr/bin/env bash
# Builds the self-contained GPU bundle into gpu-bundle/ (git-ignored): binaries that need only the
# NVIDIA driver (and, for the benchmark, cuBLAS from the GPU machine's CUDA install), plus the script
# that runs the GPU suite there. Copy the folder to a GPU machine and run gpu-bundle/gpu-run.sh OUT_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh gpu-bundle
rm -rf gpu-bundle
mkdir -p gpu-bundle
for bin in tools/ordo tests/ordo_gpu_tests tests/ordo_host_tests bench/ordo_bench_forward bench/ordo_bench_backward; do
  cp "build-gpu-bundle/$bin" gpu-bundle/
done
strip --strip-debug gpu-bundle/*
cp scripts/gpu-run.sh gpu-bundle/
git rev-parse HEAD > gpu-bundle/COMMIT 2>/dev/null || echo unknown > gpu-bundle/COMMIT
# Only the driver, cuBLAS and the C runtime may remain dynamic.
for bin in gpu-bundle/ordo gpu-bundle/ordo_gpu_tests gpu-bundle/ordo_host_tests gpu-bundle/ordo_bench_forward \
  gpu-bundle/ordo_bench_backward; do
  if ldd "$bin" | grep -E 'mpfr|gmp|rapidcheck|gtest|stdc\+\+|cudart' >/dev/null; then
    echo "gpu-bundle: $bin still links a library the GPU machine lacks:" >&2
    ldd "$bin" >&2
    exit 1
  fi
done
du -sh gpu-bundle
