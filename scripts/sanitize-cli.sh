#!/usr/bin/env bash
# The commands that read files, run under AddressSanitizer + UndefinedBehaviorSanitizer on inputs of the
# size users give them (not only the unit tests): `ordo cases` at level 2, a correct host subject's outputs
# judged by `ordo check` and recognised by `ordo identify`, a broken output, the corpus replayed, a report
# rendered, and a 20-second campaign on a host plugin, resumed. Any sanitizer report stops the run with
# exit 86 (distinct from ordo's own codes); any command exiting other than expected fails the script.
# Usage: sanitize-cli.sh BUILD_DIR WORK_DIR   (BUILD_DIR: the `sanitize` preset's build-sanitize/)
set -uo pipefail
build="${1:?usage: sanitize-cli.sh BUILD_DIR WORK_DIR}"
work="${2:?usage: sanitize-cli.sh BUILD_DIR WORK_DIR}"
src="$(cd "$(dirname "$0")/.." && pwd)"
ordo="$build/tools/ordo"
writer="$build/tests/file_subjects/ordo_test_write_outputs"
plugin="$build/tests/plugins/libordo_test_plugin_correct.so"
for f in "$ordo" "$writer" "$plugin"; do
  [ -f "$f" ] || { echo "sanitize-cli: not run: $f is missing (scripts/build.sh sanitize ordo ordo_test_plugin_correct ordo_test_write_outputs)"; exit 77; }
done
export ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:halt_on_error=1:exitcode=86"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=86"
rm -rf "$work" && mkdir -p "$work"
status=0
# run EXPECTED NAME COMMAND...: the command's exit status must be EXPECTED; its output goes to NAME.log.
run() {
  local expected="$1" name="$2"
  shift 2
  local start=$SECONDS
  "$@" > "$work/$name.log" 2>&1
  local rc=$?
  if [ "$rc" = "$expected" ]; then
    printf 'sanitize-cli: %-22s ok   (exit %s, %3d s)\n' "$name" "$rc" $((SECONDS - start))
  else
    printf 'sanitize-cli: %-22s FAIL (exit %s, expected %s; %s)\n' "$name" "$rc" "$expected" "$work/$name.log"
    [ "$rc" = 86 ] && grep -m 3 -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$work/$name.log"
    tail -n 5 "$work/$name.log"
    status=1
  fi
}

run 0 cases-level2 "$ordo" cases --contract fwd.f32.fma-chain/1 --level 2 --out "$work/l2"
run 0 write-level2 "$writer" "$work/l2"
run 0 check-level2 "$ordo" check "$work/l2" --quiet
run 0 identify-one "$ordo" identify --x "$work/l2/c0001/x.npy" --w "$work/l2/c0001/w.npy" --y "$work/l2/c0001/y.npy" \
  --quiet --json "$work/identify-one.json"
run 0 cases-bf16 "$ordo" cases --contract fwd.bf16.tc-fdpa-sm90/1 --out "$work/bf16"
run 0 write-bf16 "$writer" "$work/bf16"
run 0 check-bf16 "$ordo" check "$work/bf16" --quiet
run 0 identify-bf16 "$ordo" identify "$work/bf16" --quiet --json "$work/identify-bf16.json"
# A kernel that switches its order at a batch size, and a missing output: failed cases, judged.
run 0 write-switching "$writer" "$work/bf16" --switch-batch-at 64
rm -f "$work/bf16/c0002/y.npy"
run 1 check-broken "$ordo" check "$work/bf16" --quiet
run 0 replay-corpus "$ordo" replay "$src/corpus" --quiet
run 0 report-html "$ordo" report "$work/l2/check-report/report.json" --html "$work/report.html"
run 0 fuzz-20s "$ordo" fuzz --plugin "$plugin" --time 20s --seed 7 --quiet --out "$work/fuzz" --corpus "$work/corpus"
run 0 fuzz-resumed "$ordo" fuzz --plugin "$plugin" --time 25s --seed 7 --quiet --out "$work/fuzz" --corpus "$work/corpus"
if [ $status = 0 ]; then echo "sanitize-cli: PASS: every command clean under ASan + UBSan"; else echo "sanitize-cli: FAIL"; fi
exit $status
