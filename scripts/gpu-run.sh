#!/usr/bin/env bash
# Runs on a GPU machine, from the bundle folder, writing under OUT_DIR (at most 8 files, which is what a
# lent machine returns): the benchmark, the GPU tests, the tensor-core probe and the verify suite.
# Usage: gpu-run.sh OUT_DIR [level] [steps], steps a comma list of
#   bench,bench-bf16,bench-backward,tests,probe,verify,plugin,plugin-fuzz,triton,cublas,sanitize,host-bench,campaign-rate,selftest,
#   campaign,bench-narrow,bench-tiles,bench-tiles-dx,bench-tiles-dw,python
# (default: the first six). ORDO_VERIFY_ARGS adds options to `ordo verify` (e.g. --kernel ID);
# ORDO_GPU_TEST_CASES sets the GPU tests' cases per property (default 200).
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
if [[ $steps == *,bench-narrow,* ]]; then
  # The FP32 forward rows with N = 32 (the seed's audio rows), the production tile and the narrow tile.
  echo "== bench (FP32 forward, N = 32: 128x128 and narrow tiles)"
  "$here/ordo_bench_forward" --variant sm80.fwd.f32.fma.simt.128x128x16,sm80.fwd.f32.fma.simt.narrow.16x32x32 \
    --shapes "64,32,5376;1024,32,5376;4096,32,5376;16384,32,5376" --json "$out/bench-narrow.json" \
    > "$out/bench-narrow.log" 2>&1 || status=1
  cat "$out/bench-narrow.log"
fi
if [[ $steps == *,bench-tiles,* ]]; then
  # Every block tile of the by-shape FP32 variant on the seed's FP32 forward shapes, against cuBLAS, with
  # the measured floor of a strict chain; ORDO_TILE_SHAPES overrides the shapes.
  echo "== bench (by-shape tiles)"
  "$here/ordo_bench_tiles" ${ORDO_TILE_SHAPES:+--shapes "$ORDO_TILE_SHAPES"} ${ORDO_TILE_REPS:+--reps "$ORDO_TILE_REPS"} --json "$out/bench-tiles.json" \
    > "$out/bench-tiles.log" 2>&1 || status=1
  cat "$out/bench-tiles.log"
fi
if [[ $steps == *,bench-tiles-dx,* ]]; then
  # The same for the by-shape dX variant, dX [M,K] = G [M,N] W [N,K] of each forward shape.
  echo "== bench (by-shape dX tiles)"
  "$here/ordo_bench_tiles" --op dx ${ORDO_TILE_SHAPES_DX:+--shapes "$ORDO_TILE_SHAPES_DX"} ${ORDO_TILE_REPS:+--reps "$ORDO_TILE_REPS"} \
    --json "$out/bench-tiles-dx.json" > "$out/bench-tiles-dx.log" 2>&1 || status=1
  cat "$out/bench-tiles-dx.log"
fi
if [[ $steps == *,bench-tiles-dw,* ]]; then
  # The same for the by-shape dW variant, dW [N,K] = G^T X over the M tokens of each shape, in place and
  # gathered (db checked).
  echo "== bench (by-shape dW tiles)"
  "$here/ordo_bench_tiles" --op dw ${ORDO_TILE_SHAPES_DW:+--shapes "$ORDO_TILE_SHAPES_DW"} ${ORDO_TILE_REPS:+--reps "$ORDO_TILE_REPS"} \
    --json "$out/bench-tiles-dw.json" > "$out/bench-tiles-dw.log" 2>&1 || status=1
  cat "$out/bench-tiles-dw.log"
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
  echo "== bench (BF16 backward on the Hopper wgmma tile: dX, dW in place and gathered)"
  "$here/ordo_bench_backward" --dtype bf16 --dx-variant sm90.bwd.dx.bf16.wgmma.128x256x64 \
    --dw-variant sm90.bwd.dw.bf16.wgmma.128x256x64 --json "$out/bench-backward-wgmma.json" \
    > "$out/bench-backward-wgmma.log" 2>&1 || status=1
  cat "$out/bench-backward-wgmma.log"
fi
if [[ $steps == *,tests,* ]]; then
  echo "== GPU tests"
  ORDO_GPU_TEST_CASES="${ORDO_GPU_TEST_CASES:-200}" RC_PARAMS="max_success=300 seed=20261130" "$here/ordo_gpu_tests" \
    > "$out/gpu-tests.log" 2>&1 || status=1
  tail -n 25 "$out/gpu-tests.log"
fi
if [[ $steps == *,probe,* ]]; then
  echo "== ordo probe"
  "$here/ordo" probe --out "$out/probe" || status=1
fi
if [[ $steps == *,plugin,* ]]; then
  # A subject from outside ordo: the example CUDA plugin passes; its split-K build must fail (exit 1).
  echo "== ordo verify --plugin (example, and its broken build)"
  "$here/ordo" verify --level "$level" --require-gpu --plugin "$here/plugins/libordo_example_plugin.so" --quiet \
    --out "$out/plugin/good" > "$out/plugin-good.log" 2>&1 || status=1
  tail -n 12 "$out/plugin-good.log"
  "$here/ordo" verify --level "$level" --require-gpu --plugin "$here/plugins/libordo_example_plugin_broken.so" --quiet \
    --out "$out/plugin/broken" > "$out/plugin-broken.log" 2>&1
  rc=$?
  echo "broken build: exit $rc (1 expected)"; [ $rc = 1 ] || status=1
  grep -E "FAIL|reproduce" "$out/plugin-broken.log" | head -n 8
fi
if [[ $steps == *,plugin-fuzz,* ]]; then
  # The example CUDA plugin in a campaign: isolated worker processes (one per fuzz worker), each selecting the
  # GPU itself; and its broken build, which must fail.
  echo "== ordo fuzz --plugin (example, isolated, 2 workers on the GPU)"
  "$here/ordo" fuzz --plugin "$here/plugins/libordo_example_plugin.so" --cases "${ORDO_PLUGIN_FUZZ_CASES:-300}" --seed 11 \
    --workers-per-device 2 --quiet --out "$out/plugin-fuzz/good" > "$out/plugin-fuzz-good.log" 2>&1 || status=1
  tail -n 4 "$out/plugin-fuzz-good.log"
  "$here/ordo" fuzz --plugin "$here/plugins/libordo_example_plugin_broken.so" --cases 50 --seed 11 --quiet \
    --out "$out/plugin-fuzz/broken" > "$out/plugin-fuzz-broken.log" 2>&1
  rc=$?
  echo "broken build: exit $rc (1 expected)"; [ $rc = 1 ] || status=1
fi
if [[ $steps == *,triton,* ]]; then
  # The file protocol with Triton tl.dot GEMMs: BF16 (wgmma) and FP32 input_precision="ieee".
  for spec in "bf16 fwd.bf16.tc-fdpa-sm90/1" "f32 fwd.f32.fma-chain/1"; do
    set -- $spec
    echo "== ordo cases + Triton + ordo check ($1, $2)"
    dir="$out/triton-$1"
    "$here/ordo" cases --contract "$2" --level "$level" --out "$dir" > "$out/triton-$1.log" 2>&1 || status=1
    python3 "$here/examples/triton/run_triton_gemm.py" "$dir" >> "$out/triton-$1.log" 2>&1 || status=1
    "$here/ordo" check "$dir" --quiet --out "$out/triton-$1-check" >> "$out/triton-$1.log" 2>&1
    echo "check exit $?"; tail -n 9 "$out/triton-$1.log"
    "$here/ordo" identify "$dir" --quiet --json "$out/triton-$1-check/identify.json" >> "$out/triton-$1.log" 2>&1
    grep -E "MATCH|closest|no candidate" "$out/triton-$1.log" | head -n 4
  done
fi
if [[ $steps == *,cublas,* ]]; then
  # cuBLAS through torch F.linear at the seed shapes, one folder per shape: the invariances without a
  # contract, and which contract (if any) reproduces the outputs.
  for spec in "f32 256x5376x32 256x32x5376 128x5376x5376" "bf16 256x5376x4096 128x16128x5376 128x5376x5376"; do
    set -- $spec
    kind=$1; shift
    for shape in "$@"; do
      extra=(--y-dtype f32)
      [ "$kind" = bf16 ] && extra=(--y-dtype bf16 --no-bias)
      echo "== cuBLAS (torch F.linear) $kind $shape"
      dir="$out/cublas-$kind-$shape"
      "$here/ordo" cases --contract none --operands "$kind" --shape "$shape" "${extra[@]}" --max-batch 256 --out "$dir" \
        > "$dir.log" 2>&1 || status=1
      python3 "$here/examples/torch/run_torch_linear.py" "$dir" >> "$dir.log" 2>&1 || status=1
      "$here/ordo" check "$dir" --contract none --quiet --out "$dir-check" >> "$dir.log" 2>&1
      echo "check --contract none exit $?"
      "$here/ordo" identify "$dir" --quiet --json "$dir-check/identify.json" >> "$dir.log" 2>&1
      grep -E "^  (PASS|FAIL)|MATCH|closest|no candidate|error" "$dir.log" | head -n 8
    done
  done
fi
if [[ $steps == *,sanitize,* ]]; then
  # compute-sanitizer over the GPU tests of every production kernel: memcheck and racecheck on all of
  # them, synccheck on the tests of the wgmma pipeline (barriers between its producer and consumers).
  # Small budgets: the tools slow kernels down by one to two orders of magnitude.
  san="$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)"
  if [ -z "$san" ]; then
    echo "sanitize: not run: no compute-sanitizer on this machine"; status=1
  else
    for spec in "memcheck:*:${ORDO_SANITIZE_MEMCHECK_S:-200}" "racecheck:*:${ORDO_SANITIZE_RACECHECK_S:-200}" \
                "synccheck:*wgmma*:${ORDO_SANITIZE_SYNCCHECK_S:-90}"; do
      IFS=: read -r tool filter limit <<< "$spec"
      echo "== compute-sanitizer --tool $tool (gtest filter $filter, at most ${limit} s)"
      ORDO_GPU_TEST_CASES=2 RC_PARAMS="max_success=3 seed=20261130" timeout "$limit" "$san" --tool "$tool" \
        --error-exitcode 99 --print-limit 50 "$here/ordo_gpu_tests" --gtest_filter="$filter" > "$out/sanitize-$tool.log" 2>&1
      rc=$?
      echo "exit $rc"; [ $rc = 0 ] || status=1
      grep -E "ERROR SUMMARY|RACECHECK SUMMARY|tests ran|PASSED|FAILED" "$out/sanitize-$tool.log" | tail -n 6
    done
  fi
fi
if [[ $steps == *,host-bench,* ]]; then
  # The host side of a campaign on this machine's CPU: the emulator's products/s per contract and the
  # exact engines' ns/term.
  echo "== host benches (emulator, exact engines) on $(nproc) cores"
  "$here/ordo_bench_emulator" --json "$out/bench-emulator.json" > "$out/bench-emulator.log" 2>&1 || status=1
  cat "$out/bench-emulator.log"
  "$here/ordo_bench_exact" --json "$out/bench-exact.json" > "$out/bench-exact.log" 2>&1 || status=1
  cat "$out/bench-exact.log"
fi
if [[ $steps == *,campaign-rate,* ]]; then
  # Campaign throughput, one worker: ORDO_RATE_VARIANTS (default a BF16 and an FP32 forward variant), each
  # for ORDO_RATE_TIME (default 60s), seed 20261203.
  for v in ${ORDO_RATE_VARIANTS:-sm90.fwd.bf16.wgmma.128x256x64 sm80.fwd.f32.fma.simt.128x128x16}; do
    echo "== ordo fuzz --kernel $v --time ${ORDO_RATE_TIME:-60s}"
    "$here/ordo" fuzz --kernel "$v" --time "${ORDO_RATE_TIME:-60s}" --seed 20261203 --quiet --out "$out/rate-$v" \
      --corpus "$out/rate-corpus" > "$out/rate-$v.log" 2>&1 || status=1
    tail -n 12 "$out/rate-$v.log"
  done
fi
if [[ $steps == *,campaign,* ]]; then
  # The campaign of every production variant (evidence/h200-1fd3a73-campaign/README.md), resumed
  # from ORDO_CAMPAIGN_CHECKPOINT when it is set, run until ORDO_CAMPAIGN_TIME in all (resumed campaigns
  # count the time already spent; default 1475s, the length of the committed one).
  mkdir -p "$out/campaign/out" "$out/campaign/corpus"
  [ -n "${ORDO_CAMPAIGN_CHECKPOINT:-}" ] && cp "$ORDO_CAMPAIGN_CHECKPOINT" "$out/campaign/out/checkpoint.json"
  # ORDO_CAMPAIGN_KERNELS (space-separated ids) and ORDO_CAMPAIGN_SEED run another campaign the same way
  # (evidence/h200-a567221-by-shape-campaign/: the two by-shape variants, seed 20261206).
  kernels=""
  for v in ${ORDO_CAMPAIGN_KERNELS:-sm80.fwd.f32.fma.simt.128x128x16 sm80.fwd.f32.fma.simt.naive16x16 sm90.fwd.bf16.mma-sync.32x32x16 \
    sm80.fwd.bf16.mma-sync.32x32x16 sm90.fwd.bf16.wgmma.128x256x64 sm80.bwd.dx.f32.fma.simt.128x128x16 \
    sm80.bwd.dx.f32.fma.simt.narrow.16x32x32 sm90.bwd.dx.bf16.mma-sync.32x32x16 sm80.bwd.dx.bf16.mma-sync.32x32x16 \
    sm80.bwd.dw.f32.fma.simt.128x128x16 sm80.bwd.dw.f32.fma.simt.narrow.16x32x32 sm90.bwd.dw.bf16.mma-sync.32x32x16 \
    sm80.bwd.dw.bf16.mma-sync.32x32x16}; do kernels="$kernels --kernel $v"; done
  echo "== ordo fuzz (every production variant) until ${ORDO_CAMPAIGN_TIME:-1475s}"
  (cd "$here" && ./ordo fuzz $kernels --time "${ORDO_CAMPAIGN_TIME:-1475s}" --seed "${ORDO_CAMPAIGN_SEED:-20261205}" --workers-per-device 8 \
    --quiet --out "$out/campaign/out" --corpus "$out/campaign/corpus") > "$out/campaign/fuzz.log" 2>&1 || status=1
  head -n 2 "$out/campaign/fuzz.log"; tail -n 3 "$out/campaign/fuzz.log"
fi
if [[ $steps == *,selftest,* ]]; then
  # The self-test's GPU mutants (README: Self-test): every one must be killed (exit 0).
  echo "== ordo selftest --gpu"
  "$here/ordo" selftest --gpu --quiet --out "$out/selftest" > "$out/selftest.log" 2>&1 || status=1
  tail -n 6 "$out/selftest.log"
fi
if [[ $steps == *,python,* ]]; then
  # The Python package on this machine's python3 (ctypes over the bundled libordo_harness.so): its pytest suite,
  # the pytest plugin registered from the bundled dist-info. pytest comes from the bundle's site.zip when this
  # Python lacks it (Hypothesis does not travel: its strategies' tests skip without it). From a scratch folder: Hypothesis writes its database there.
  echo "== Python package ($(python3 -V 2>&1), pytest)"
  pypath="$here/python"
  python3 -c 'import pytest' 2>/dev/null || pypath="$pypath:$here/python/site.zip"
  scratch="$(mktemp -d)"
  (cd "$scratch" && PYTHONPATH="$pypath${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest -q -p no:cacheprovider -rs \
     "$here/python/tests" > "$out/python.log" 2>&1) || status=1
  rm -rf "$scratch"
  tail -n 15 "$out/python.log"
fi
if [[ $steps == *,verify,* ]]; then
  echo "== ordo verify --level $level"
  timeout "${ORDO_VERIFY_TIMEOUT:-3600}" "$here/ordo" verify --level "$level" --require-gpu ${ORDO_VERIFY_ARGS:-} --out "$out/verify" > "$out/verify.log" 2>&1 || status=1
  grep -vE '^  \.\.\.' "$out/verify.log" | tail -n 30
fi
exit $status
