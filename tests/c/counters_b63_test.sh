#!/bin/sh
# B63's counter names are aliases of the header's: lpe:cycles (perf's cpu-cycles),
# lpe:<perf event or raw code>, jemalloc_thread_allocated (jemalloc-allocated), in
# --counters and in code (BL_MAIN_COUNTERS, where B63 has B63_RUN_WITH). A program is
# built here with B63's names in its source; its records name the header's counters,
# exactly as the header's own names give them ("supported" or not: this VM has no
# hardware PMU and the program is not linked with jemalloc, which the records say).
# usage: counters_b63_test.sh CC INCLUDE_DIR
set -u
cc=$1
inc=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

cat >"$work/b63.c" <<'PROG'
#include <stdlib.h>
#include "benchlab.h"

BL_BENCH(malloc_free, n) {
    for (uint64_t i = 0; i < n; i++) {
        void *p = malloc(64);
        BL_KEEP(p);
        free(p);
    }
}
BL_MAIN_COUNTERS("time,lpe:cycles,jemalloc_thread_allocated,lpe:r04a1,lpe:page-faults")
PROG
$cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic -I"$inc" "$work/b63.c" -o "$work/b63" 2>"$work/err" ||
    { echo "FAIL: the program does not build:"; cat "$work/err"; exit 1; }

# The counters of a run, one line each: name, and supported or the reason.
counters() {
    BL_NO_WARN=1 "$work/b63" --samples=3 --time-limit=0.01 --format=jsonl "$@" >"$work/out" 2>"$work/err" ||
        { fail "$* exited $?: $(head -3 "$work/err")"; return; }
    grep -v '"type":"context"' "$work/out" | sed -n 's/.*"counter":"\([^"]*\)".*"supported":\([a-z]*\).*/\1 \2/p;
        s/.*"counter":"\([^"]*\)".*"unit".*/\1 measured/p' | sort -u
}

# In code: the BL_MAIN_COUNTERS list of B63's names gives the header's counters.
got=$(counters)
want=$(counters --counters=time,cpu-cycles,jemalloc-allocated,r04a1,page-faults)
[ -n "$want" ] || fail "the header's own names give no records"
[ "$got" = "$want" ] || fail "BL_MAIN_COUNTERS with B63's names gives
$got
want (the header's names)
$want"
for name in time cpu-cycles jemalloc-allocated r04a1 page-faults; do
    echo "$got" | grep -q "^$name " || fail "no record of $name from B63's names: $got"
done
echo "$got" | grep -q 'lpe\|jemalloc_thread' && fail "a record is named as B63 names it: $got"

# On the command line; an alias and its counter given both are one counter.
got=$(counters --counters=lpe:cycles,cpu-cycles,jemalloc_thread_allocated)
[ "$(echo "$got" | grep -c '^cpu-cycles ')" -eq 1 ] || fail "lpe:cycles,cpu-cycles is not one counter: $got"
echo "$got" | grep -q '^jemalloc-allocated ' || fail "--counters=jemalloc_thread_allocated: $got"
[ "$(grep -c '"counter":"cpu-cycles"' "$work/out")" -eq 1 ] || fail "cpu-cycles has $(grep -c '"counter":"cpu-cycles"' "$work/out") records, want 1"

# lpe: takes perf's events only: B63 has no lpe:time, nor modifiers.
for bad in lpe:time lpe:allocs lpe: lpe:cycles:u jemalloc_thread_allocated:u; do
    "$work/b63" --counters=$bad --list >"$work/out" 2>"$work/err"
    status=$?
    [ $status -eq 2 ] || fail "--counters=$bad exited $status, want 2"
    grep -q "has no counter \"$bad\"" "$work/err" || fail "--counters=$bad: $(cat "$work/err")"
done

echo "counters_b63_test: $failures failures"
[ $failures -eq 0 ]
