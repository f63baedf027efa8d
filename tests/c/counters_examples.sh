#!/bin/sh
# The counters examples with the counters they set in code: exact figures where the
# program fixes them, and every listed counter either measured or marked unsupported
# with a reason (never absent, never a bare zero for an unsupported one).
# usage: counters_examples.sh COUNTERS_PROGRAM CUSTOM_COUNTER_PROGRAM
set -u
counters=$1
custom=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

"$counters" --samples=5 --time-limit=0.05 --format=jsonl >"$out" 2>/dev/null || fail "counters example exited $?"
for c in time cycles instructions task-clock page-faults allocs alloc-bytes rusage-minor-faults; do
    n=$(grep -c "\"counter\":\"$c\"" "$out")
    [ "$n" -eq 3 ] || fail "counter $c: $n records, want one per benchmark (3)"
done
bad=$(grep '"supported":false' "$out" | grep -v '"reason":"[^"]')
[ -z "$bad" ] || fail "unsupported without a reason: $bad"
if grep '"bench":"malloc_free_64".*"counter":"allocs"' "$out" | grep -q '"supported":true'; then
    grep '"bench":"malloc_free_64".*"counter":"allocs"' "$out" | grep -q '"median":1,' || fail "malloc_free_64 allocs is not 1 per iteration"
    grep '"bench":"malloc_free_64".*"counter":"alloc-bytes"' "$out" | grep -q '"median":64,' || fail "malloc_free_64 alloc-bytes is not 64"
    grep '"bench":"map_touch_unmap".*"counter":"alloc-bytes"' "$out" | grep -q '"median":67108864,' || fail "map_touch_unmap alloc-bytes is not 64 MiB"
fi

"$custom" --samples=5 --time-limit=0.05 --format=jsonl >"$out" || fail "custom_counter example exited $?"
grep '"param":2654435761,.*"counter":"probes"' "$out" | grep -q '"median":1,' || fail "a lookup without collisions takes 1 probe"
grep '"param":64,.*"counter":"probes"' "$out" | grep -q '"unit":"probes"' || fail "probes record lacks its unit"

echo "counters_examples: $failures failures"
[ "$failures" -eq 0 ]
