#!/usr/bin/env bash
# Builds the self-contained GPU bundle into gpu-bundle/ (git-ignored): binaries that need only the
# NVIDIA driver (and, for the benchmark, cuBLAS from the GPU machine's CUDA install), plus the script
# that runs the GPU suite there. Copy the folder to a GPU machine and run gpu-bundle/gpu-run.sh OUT_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh gpu-bundle
rm -rf gpu-bundle
mkdir -p gpu-bundle
for bin in tools/ordo tests/ordo_gpu_tests tests/ordo_host_tests bench/ordo_bench_forward bench/ordo_bench_backward \
  bench/ordo_bench_emulator bench/ordo_bench_exact bench/ordo_bench_tiles; do
  cp "build-gpu-bundle/$bin" gpu-bundle/
done
# --strip-unneeded, not only the debug sections: the symbol tables of the static binaries take the bundle past
# the 64 MiB a device call carries (70.9 MB with --strip-debug, 57.5 MB without symbols).
strip --strip-unneeded gpu-bundle/*
# Subjects from outside ordo: the example CUDA plugin and its broken build, the Triton and torch scripts of
# the file protocol, the example contract files.
mkdir -p gpu-bundle/plugins gpu-bundle/examples gpu-bundle/contracts
cp build-gpu-bundle/examples/plugin/libordo_example_plugin.so build-gpu-bundle/examples/plugin/libordo_example_plugin_broken.so \
  gpu-bundle/plugins/
strip --strip-unneeded gpu-bundle/plugins/*.so
cp -r examples/triton examples/torch gpu-bundle/examples/
rm -rf gpu-bundle/examples/*/__pycache__
cp contracts/*.json gpu-bundle/contracts/
cp scripts/gpu-run.sh gpu-bundle/
# The Python package, its library and its tests (scripts/gpu-bundle-python.sh).
scripts/gpu-bundle-python.sh build-gpu-bundle gpu-bundle/python
git rev-parse HEAD > gpu-bundle/COMMIT 2>/dev/null || echo unknown > gpu-bundle/COMMIT
# Only the driver, cuBLAS and the C runtime may remain dynamic.
for bin in gpu-bundle/ordo gpu-bundle/ordo_gpu_tests gpu-bundle/ordo_host_tests gpu-bundle/ordo_bench_forward \
  gpu-bundle/ordo_bench_backward gpu-bundle/ordo_bench_emulator gpu-bundle/ordo_bench_exact gpu-bundle/ordo_bench_tiles; do
  if ldd "$bin" | grep -E 'mpfr|gmp|rapidcheck|gtest|stdc\+\+|cudart' >/dev/null; then
    echo "gpu-bundle: $bin still links a library the GPU machine lacks:" >&2
    ldd "$bin" >&2
    exit 1
  fi
done
bytes=$(du -sb gpu-bundle | cut -f1)
echo "gpu-bundle: $((bytes / 1048576)) MiB ($bytes bytes)"
if ((bytes > 64 * 1048576)); then
  echo "gpu-bundle: larger than the 64 MiB a device call carries" >&2
  exit 1
fi
