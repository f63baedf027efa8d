#!/bin/sh
# Runs a threaded target briefly and checks its jsonl: exit status 0, the context record
# first, one "throughput" record per target that --list names, each with operations
# counted and a positive throughput; or, with --unsupported, records that say
# "supported": false with a reason (wasm32-wasi, which has no threads).
# usage: threads_smoke.sh [--unsupported] COMMAND... -- FLAGS...
#   e.g. threads_smoke.sh ./hash_map -- -t=2 -d=1
set -u
unsupported=0
if [ "$1" = "--unsupported" ]; then unsupported=1; shift; fi
cmd=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmd="$cmd '$1'"; shift; done
[ $# -gt 0 ] && shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
expected=$(eval "$cmd --list" | grep -c ' (threaded)$') || { echo "FAIL: --list names no threaded target" >&2; exit 1; }
eval "$cmd --format=jsonl \"\$@\"" >"$out" || { echo "FAIL: $cmd exited $?" >&2; exit 1; }
head -1 "$out" | grep -q '^{"type":"context","schema":2,' || { echo "FAIL: no context record" >&2; exit 1; }
records=$(grep -c '"type":"throughput"' "$out")
[ "$records" -eq "$expected" ] || { echo "FAIL: $records throughput records for $expected targets" >&2; exit 1; }
if [ "$unsupported" -eq 1 ]; then
    n=$(grep '"type":"throughput"' "$out" | grep -c '"supported":false,"reason":"threads are not available')
    [ "$n" -eq "$records" ] || { echo "FAIL: want every record unsupported with a reason" >&2; cat "$out" >&2; exit 1; }
    echo "threads_smoke: $records targets left out, as expected:"
    grep -o '"reason":"[^"]*"' "$out" | sort -u
    exit 0
fi
if grep '"type":"throughput"' "$out" | grep -q '"supported":false'; then echo "FAIL: a target did not run" >&2; cat "$out" >&2; exit 1; fi
if grep '"type":"throughput"' "$out" | grep -q '"all":{"count":0,'; then echo "FAIL: a target ran no operation" >&2; exit 1; fi
echo "threads_smoke: $records targets"
grep '"type":"throughput"' "$out" | sed 's/.*"target":"\([^"]*\)","threads":\([0-9]*\),.*"throughput":\([^,]*\),"throughput_min".*/\1 \2 \3/' |
    awk '{ printf "  %s threads=%s throughput %.0f ops/s (%.2f ns per operation per thread)\n", $1, $2, $3, ($3 > 0 ? 1e9 * $2 / $3 : 0) }'
