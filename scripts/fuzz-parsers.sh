#!/usr/bin/env bash
# Builds the libFuzzer targets of ordo's parsers (fuzz/, compiled on its own with clang++: see
# fuzz/CMakeLists.txt) and runs each for SECONDS (default 30). Usage: scripts/fuzz-parsers.sh [SECONDS]
#
# For each target: first every fixed crash in fuzz/regressions/<target>/ is replayed once (a fix that
# regressed fails here at once), then libFuzzer runs from the seeds in fuzz/corpus/<target>/ with the
# format's dictionary. New inputs go to a scratch corpus under build-fuzz/runs/, never into fuzz/corpus/
# (which stays small). One summary line per target: runs, exec/s, coverage, corpus size, crash files.
# Exits non-zero if any target crashed, reported a sanitizer error, or failed to build.
#
# Environment: FUZZ_TARGETS (default: all eight), FUZZ_JOBS (targets run at once, default 1: on two cores
# use 2), FUZZ_OUT (default build-fuzz/runs/<date-time>).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-30}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }
targets=(${FUZZ_TARGETS:-fuzz_contract_file fuzz_npy fuzz_golden fuzz_golden_backward fuzz_regression fuzz_corpus_entry
  fuzz_cases_manifest fuzz_report})
jobs="${FUZZ_JOBS:-1}"
out="${FUZZ_OUT:-build-fuzz/runs/$(date +%Y%m%d-%H%M%S)}"

if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz-parsers: clang++ is needed (Debian: apt-get install clang libclang-rt-dev lld)" >&2
  exit 1
fi
echo "fuzz-parsers: building fuzz/ with $(clang++ --version | head -1)"
mkdir -p build-fuzz
cmake -S fuzz -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DORDO_FUZZ=ON >build-fuzz/configure.log 2>&1 ||
  { cat build-fuzz/configure.log >&2; exit 1; }
cmake --build build-fuzz -j "$(nproc)" >build-fuzz/build.log 2>&1 || { cat build-fuzz/build.log >&2; exit 1; }

# One target: replay the fixed crashes, then fuzz. Writes $out/<target>/{log,replay.log,artifacts/}.
run_target() {
  local t="$1" dir="$out/$1"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  local regressions=()
  if [ -d "fuzz/regressions/$t" ]; then
    while IFS= read -r -d '' f; do regressions+=("$f"); done < <(find "fuzz/regressions/$t" -type f -print0)
  fi
  if ((${#regressions[@]})); then
    if ! "build-fuzz/$t" -artifact_prefix="$dir/artifacts/" "${regressions[@]}" >"$dir/replay.log" 2>&1; then
      echo "replay of fuzz/regressions/$t failed" >"$dir/status"
      return
    fi
  fi
  local corpora=("$dir/corpus" "fuzz/corpus/$t")
  [ -d "fuzz/regressions/$t" ] && corpora+=("fuzz/regressions/$t")
  local rc=0
  "build-fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="fuzz/dicts/$t.dict" -artifact_prefix="$dir/artifacts/" "${corpora[@]}" >"$dir/log" 2>&1 || rc=$?
  echo "rc=$rc" >"$dir/status"
}

# One line from a target's log: the final stats and the last status line (cov, ft, corp).
summarise() {
  local t="$1" dir="$out/$1" log="$out/$1/log"
  local runs execs cov ft corp crashes status
  status="$(cat "$dir/status" 2>/dev/null || echo "did not run")"
  runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" 2>/dev/null | awk '{print $2}' | tail -1)"
  execs="$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" 2>/dev/null | awk '{print $2}' | tail -1)"
  cov="$(grep -o 'cov: [0-9]*' "$log" 2>/dev/null | tail -1 | awk '{print $2}')"
  ft="$(grep -o 'ft: [0-9]*' "$log" 2>/dev/null | tail -1 | awk '{print $2}')"
  corp="$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" 2>/dev/null | tail -1 | awk '{print $2}')"
  crashes="$(find "$dir/artifacts" -type f 2>/dev/null | sort | tr '\n' ' ')"
  printf '%-22s %s runs, %s exec/s, cov %s, ft %s, corpus %s (units/bytes), %s: %s\n' "$t" "${runs:-?}" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$status" "${crashes:-no crash file}"
  [ "$status" = "rc=0" ] && [ -z "$crashes" ]
}

mkdir -p "$out"
echo "fuzz-parsers: ${#targets[@]} targets, ${seconds}s each, $jobs at a time; logs in $out"
running=0
for t in "${targets[@]}"; do
  [ -x "build-fuzz/$t" ] || { echo "fuzz-parsers: no target $t" >&2; exit 2; }
  run_target "$t" &
  running=$((running + 1))
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

failed=0
for t in "${targets[@]}"; do summarise "$t" || failed=$((failed + 1)); done
if ((failed)); then
  echo "fuzz-parsers: $failed of ${#targets[@]} targets failed (logs and crash inputs under $out)" >&2
  exit 1
fi
echo "fuzz-parsers: every target ran clean"
