#!/bin/sh
# Runs a benchmark program briefly and checks what it printed: exit status 0, the
# context record first, one result per benchmark that --list names, and finite
# medians. The program may be behind a launcher (a wasm runtime, qemu).
# usage: smoke.sh COMMAND...     e.g. smoke.sh python -m benchlab.wasi --dir D prog.wasm
set -u
out=$(mktemp)
trap 'rm -f "$out"' EXIT
expected=$("$@" --list | wc -l) || { echo "FAIL: $* --list failed" >&2; exit 1; }
"$@" --time-limit=0.05 --samples=5 --format=jsonl >"$out" || { echo "FAIL: $* exited $?" >&2; exit 1; }
head -1 "$out" | grep -q '^{"type":"context","schema":2,' || { echo "FAIL: no context record" >&2; exit 1; }
results=$(grep -c '"type":"result"' "$out")
[ "$results" -eq "$expected" ] || { echo "FAIL: $results results for $expected listed benchmarks" >&2; exit 1; }
if grep '"type":"result"' "$out" | grep -q '"median":null'; then echo "FAIL: a median is not finite" >&2; exit 1; fi
echo "smoke: $results results"
grep '"type":"result"' "$out" | sed 's/.*"bench":"\([^"]*\)","param":\([^,]*\),.*"median":\([^,]*\),.*/  \1 \2 median \3 ns/'
