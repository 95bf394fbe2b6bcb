#!/usr/bin/env bash
# The repository's one formatter: clang-format (14) with .clang-format, over every tracked C++ and CUDA file
# outside evidence/. Usage: scripts/format.sh          formats in place
#                           scripts/format.sh --check  lists the files that differ and exits 1 (CI: format_check)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-}"
formatter="$(command -v clang-format-14 || command -v clang-format || true)"
if [ -z "$formatter" ]; then
  echo "format: not run: clang-format is missing (scripts/setup.sh installs it)"
  exit 77
fi
mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.cu' '*.cuh' '*.hpp' '*.c' | grep -v '^evidence/')
case "$mode" in
  --check)
    bad=()
    for f in "${files[@]}"; do
      "$formatter" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
    done
    if ((${#bad[@]})); then
      echo "format: ${#bad[@]} of ${#files[@]} files differ from .clang-format (run scripts/format.sh):"
      printf '  %s\n' "${bad[@]}"
      exit 1
    fi
    echo "format: ${#files[@]} files formatted"
    ;;
  "")
    "$formatter" -i "${files[@]}"
    echo "format: ${#files[@]} files formatted in place"
    ;;
  *)
    echo "usage: scripts/format.sh [--check]" >&2
    exit 2
    ;;
esac
