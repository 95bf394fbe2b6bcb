#!/usr/bin/env bash
# The same cases and verdicts before and after a change: runs two builds of ordo with the same fixed seeds and
# compares what they decided (scripts/normalize-report.py: rows, cases, elements, value families, shape classes,
# errors, verdicts; no timings or paths). Each build folder needs tools/ordo, the correct test plugin and
# ordo_test_write_outputs (scripts/build.sh default ordo ordo_test_plugin_correct ordo_test_write_outputs).
# Usage: scripts/compare-behaviour.sh BEFORE_BUILD AFTER_BUILD OUT_DIR
# Writes OUT_DIR/{before,after}/<run>.json and OUT_DIR/summary.txt; exit 0 when every run decided the same, 1 if not.
set -euo pipefail
if (($# != 3)); then sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 2; fi
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$3"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
normalize="$root/scripts/normalize-report.py"
seed=7

run_side() {  # run_side NAME BUILD
  local name="$1" build
  build="$(cd "$2" && pwd)"
  local ordo="$build/tools/ordo" plugin writer dir="$out/$name" tmp="$work/$name"
  plugin="$(ls "$build"/tests/plugins/libordo_test_plugin_correct.so)"
  writer="$build/tests/file_subjects/ordo_test_write_outputs"
  mkdir -p "$dir" "$tmp"
  echo "compare-behaviour: $name: $ordo"
  (cd "$tmp" && "$ordo" verify --seed "$seed" --no-gpu --out "$tmp/verify" --quiet >/dev/null) || true
  (cd "$tmp" && "$ordo" verify --plugin "$plugin" --seed "$seed" --in-process --out "$tmp/verify-plugin" --quiet >/dev/null) || true
  (cd "$tmp" && "$ordo" fuzz --plugin "$plugin" --cases 2000 --seed "$seed" --in-process --out "$tmp/fuzz" >/dev/null 2>&1) || true
  (cd "$tmp" && "$ordo" selftest --host --seed "$seed" --out "$tmp/selftest" >/dev/null 2>&1) || true
  "$ordo" cases --contract fwd.f32.fma-chain/1 --level 1 --seed "$seed" --out "$tmp/cases" >/dev/null
  "$writer" "$tmp/cases" >/dev/null
  "$ordo" check "$tmp/cases" --out "$tmp/check" >/dev/null 2>&1 || true
  for run in verify verify-plugin fuzz selftest check; do
    if [ -f "$tmp/$run/report.json" ]; then
      # Reports name the folder they judged; the two sides ran in different temporary folders.
      python3 "$normalize" "$tmp/$run/report.json" | sed "s|$tmp|<run>|g" > "$dir/$run.json"
    else
      echo "no report.json" > "$dir/$run.json"
    fi
  done
  # The cases folder: the manifest's cases and relations and the digest of every input file.
  (cd "$tmp/cases" && find . -name '*.npy' ! -name 'y.npy' -type f | sort | xargs sha256sum) > "$dir/cases-inputs.sha256"
  (cd "$root" && "$ordo" replay corpus 2>&1 | sed -E 's/[0-9]+(\.[0-9]+)? s\b/<t> s/g') > "$dir/replay.txt" || true
}

run_side before "$1"
run_side after "$2"
same=0 differ=0
: > "$out/summary.txt"
for f in "$out/before"/*; do
  base="$(basename "$f")"
  if cmp -s "$f" "$out/after/$base"; then
    echo "same     $base" >> "$out/summary.txt"; same=$((same + 1))
  else
    echo "DIFFERS  $base" >> "$out/summary.txt"; differ=$((differ + 1))
    { diff -u "$f" "$out/after/$base" || true; } | head -n 60 | sed 's/^/    /' >> "$out/summary.txt"
  fi
done
echo "compare-behaviour: $same runs decided the same, $differ differ" >> "$out/summary.txt"
cat "$out/summary.txt"
((differ == 0))
