#!/usr/bin/env bash
# A campaign folder belongs to one campaign: a checkpoint of another library (even a byte-identical copy
# under another name), another level or another ordo build is refused, never resumed; two campaigns
# cannot share a folder; SIGTERM stops a campaign like SIGINT (report and checkpoint written, 143).
# Usage: fuzz_campaign_identity_test.sh ORDO PLUGIN WORKDIR
set -uo pipefail
ordo="$1" plugin="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expect RC LOG PATTERN: the last command exited RC and its output holds PATTERN
  [ "$1" = "$got" ] || { cat "$2"; fail "exit $got, expected $1"; }
  grep -q -- "$3" "$2" || { cat "$2"; fail "no \"$3\" in the output"; }
}

"$ordo" fuzz --plugin "$plugin" --cases 30 --seed 3 --quiet --out "$work/a" > "$work/first.log" 2>&1; got=$?
expect 0 "$work/first.log" "PASS"
[ -f "$work/a/checkpoint.json" ] || fail "no checkpoint"

# The same command resumes (and has nothing left to do).
"$ordo" fuzz --plugin "$plugin" --cases 30 --seed 3 --quiet --out "$work/a" > "$work/same.log" 2>&1; got=$?
expect 0 "$work/same.log" "resuming from"

# A copy of the library under another name is another subject.
cp "$plugin" "$work/libother.so"
"$ordo" fuzz --plugin "$work/libother.so" --cases 30 --seed 3 --quiet --out "$work/a" > "$work/copy.log" 2>&1; got=$?
expect 2 "$work/copy.log" "checkpoint of another campaign (plugin0: "

# Another level.
"$ordo" fuzz --plugin "$plugin" --cases 30 --seed 3 --level 2 --quiet --out "$work/a" > "$work/level.log" 2>&1; got=$?
expect 2 "$work/level.log" "level: 1 in the checkpoint, 2 now"

# Two campaigns on one folder: the second is refused while the first runs; SIGTERM then stops the first,
# which writes its report (interrupted) and its checkpoint and exits 143.
"$ordo" fuzz --plugin "$plugin" --time 60s --seed 4 --quiet --out "$work/b" > "$work/long.log" 2>&1 &
long=$!
for _ in $(seq 1 100); do [ -s "$work/b/.lock" ] && break; sleep 0.1; done
sleep 1
"$ordo" fuzz --plugin "$plugin" --time 60s --seed 4 --quiet --out "$work/b" > "$work/second.log" 2>&1; got=$?
expect 2 "$work/second.log" "is in use by another campaign (pid $long)"
kill -TERM "$long"
wait "$long"; got=$?
expect 143 "$work/long.log" "INTERRUPTED"
grep -q '"interrupted": true' "$work/b/report.json" || fail "the interrupted report does not say so"
[ -f "$work/b/checkpoint.json" ] || fail "no checkpoint after SIGTERM"
echo "PASS: campaign identity, lock and SIGTERM"
