#!/usr/bin/env bash
# Configures and builds one CMake preset (default: "default", into build/), or only the named targets of it.
# Usage: scripts/build.sh [preset [target ...]]
# Prints progress and the result; the compiler's own output goes to build-logs/PRESET.log, and its last
# lines are shown only when the build fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
preset="${1:-default}"
shift || true
targets=()
for t in "$@"; do targets+=(--target "$t"); done
scripts/setup.sh
mkdir -p build-logs
log="build-logs/$preset.log"
: > "$log"
if ! cmake --preset "$preset" >> "$log" 2>&1; then
  echo "build: configuring preset $preset failed; the end of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
start=$(date +%s)
# One progress line per 10% of the build (make prints "[ 42%]" on its lines).
set +e
cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}" 2>&1 | tee -a "$log" |
  awk -v preset="$preset" -v logfile="$log" '
    BEGIN { next_step = 0 }
    /Building|Linking/ && match($0, /^\[ *[0-9]+%\]/) {
      p = substr($0, RSTART + 1, RLENGTH - 3) + 0
      if (p >= next_step) {
        if (!started) { printf "build: %s (the first build takes a few minutes; log: %s)\n", preset, logfile; started = 1 }
        printf "build: %3d%%\n", p; fflush(); next_step = int(p / 10) * 10 + 10
      }
    }'
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" != 0 ]; then
  echo "build: preset $preset failed; the errors in $log:" >&2
  grep -nE 'error|Error [0-9]' "$log" | tail -n 20 >&2
  exit 1
fi
echo "build: $preset up to date ($(( $(date +%s) - start )) s)"
