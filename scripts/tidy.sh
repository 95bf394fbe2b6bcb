#!/usr/bin/env bash
# clang-tidy (.clang-tidy) on the host C++ files changed since a base commit: by default the one named in
# .clang-tidy-baseline, the last commit at which the whole tree was not yet held to it. Files changed after it
# must be clean; every finding is an error. CI runs this as the ctest test clang_tidy_changed.
# Usage: scripts/tidy.sh [--base COMMIT] [--build DIR]   (DIR holds compile_commands.json; default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
base="$(sed -n 's/^\([0-9a-f]\{7,40\}\).*/\1/p' .clang-tidy-baseline | head -n 1)"
build=build
while (($#)); do
  case "$1" in
    --base) base="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "tidy: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
tidy="$(command -v clang-tidy-14 || command -v clang-tidy || true)"
if [ -z "$tidy" ]; then echo "tidy: not run: clang-tidy is missing (scripts/setup.sh installs it)"; exit 77; fi
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null 2>&1; then
  echo "tidy: not run: the base commit '$base' is not in this clone's history (a shallow clone?)"
  exit 77
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "tidy: $build/compile_commands.json is missing: configure first (scripts/build.sh)" >&2
  exit 2
fi
# Host translation units only: CUDA files go through nvcc, and a file clang-tidy has no command for is skipped.
mapfile -t changed < <(git diff --name-only --diff-filter=d "$base" -- '*.cpp' | grep -v '^evidence/' || true)
files=()
for f in "${changed[@]}"; do
  grep -q "\"file\": \"[^\"]*/$f\"" "$build/compile_commands.json" && files+=("$f")
done
if ((${#files[@]} == 0)); then echo "tidy: no host file changed since $base"; exit 0; fi
echo "tidy: ${#files[@]} host files changed since ${base:0:10}"
failed=0
for f in "${files[@]}"; do
  # GCC-only warning flags in the compile commands (-Wno-error=restrict) are unknown to clang: not a finding.
  if ! out="$("$tidy" -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option "$f" 2>&1)"; then
    failed=$((failed + 1))
    echo "tidy: $f:"
    grep -E -A3 'error:' <<<"$out" | sed 's/^/  /'
  fi
done
if ((failed)); then echo "tidy: FAIL: findings in $failed of ${#files[@]} files"; exit 1; fi
echo "tidy: ok: ${#files[@]} files clean"
