#!/bin/sh
# The threaded mode's flags and --counters: one stderr line naming the flag and the
# rule, status 2, nothing on stdout; and the accepted spellings.
# usage: threads_cli_test.sh HASH_MAP_PROGRAM PLAIN_PROGRAM
#   HASH_MAP_PROGRAM: suites/concurrency/hash_map (a target with 3 operations)
#   PLAIN_PROGRAM:    a program without threaded targets
set -u
prog=$1
plain=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checks=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

expect_error_of() {
    p=$1; want=$2; shift 2
    checks=$((checks + 1))
    "$p" "$@" >"$work/out" 2>"$work/err"
    status=$?
    [ "$status" -eq 2 ] || fail "$* exited $status, want 2"
    [ ! -s "$work/out" ] || fail "$* printed on stdout: $(head -c 200 "$work/out")"
    [ "$(wc -l <"$work/err")" -eq 1 ] || fail "$* printed $(wc -l <"$work/err") lines on stderr, want 1"
    [ "$(cat "$work/err")" = "$want" ] || fail "$*: stderr is '$(cat "$work/err")', want '$want'"
}
expect_error() { expect_error_of "$prog" "$@"; }

expect_error 'benchlab: -t must be a whole number of threads from 1 to 1024 (got "0")' -t=0
expect_error 'benchlab: --threads must be a whole number of threads from 1 to 1024 (got "two")' --threads=two
expect_error 'benchlab: "-t": this program reads CSB'"'"'s short flags, whose values are written flag=value, e.g. -t=4 (-t means seconds per benchmark (--time-limit) in B63'"'"'s dialect: BL_FLAGS chooses the dialect)' -t
expect_error 'benchlab: -n must be a whole number of nops from 0 to 1000000 (got "-1")' -n=-1
expect_error 'benchlab: -d must be a number of seconds > 0 and <= 1000000 (got "0")' -d=0
expect_error 'benchlab: --duration must be a number of seconds > 0 and <= 1000000 (got "1s")' --duration=1s
expect_error 'benchlab: -s must be a whole number from 0 to 18446744073709551615 (got "x")' -s=x
expect_error 'benchlab: -op0 must be a whole number of operations per 1024, from 0 to 1024 (got "2000")' -op0=2000
expect_error 'benchlab: -opx names no operation: K in -opK goes from 0 to 63' -opx=1
expect_error 'benchlab: -opK frequencies must sum to 1024 (got 1000 for target "hash_map": -op0=500 -op1=500 -op2=0)' -op0=500 -op1=500
expect_error 'benchlab: -op5 names no operation: target "hash_map" has 3 (op0 to op2)' -op5=1024
expect_error 'benchlab: --latency-every must be a whole number from 0 (time no operation) to 1000000, or batch (got "x")' --latency-every=x
expect_error 'benchlab: --csb-unit must be ticks or ns (got "us")' --csb-unit=us
expect_error 'benchlab: --random-nops takes no value (got "1")' --random-nops=1
expect_error 'benchlab: unknown flag "-x" (see --help)' -x=1
expect_error 'benchlab: --counters has no counter "bogus" (perf event names, r<hex>, time, cycles, allocs, alloc-bytes, jemalloc-allocated, rusage[-...] or a BL_COUNTER; see docs/counters.md)' --counters=time,bogus
expect_error 'benchlab: --counters needs at least one counter name (got "")' --counters=
expect_error 'benchlab: --counters has no counter "instructions:x" (perf event names, r<hex>, time, cycles, allocs, alloc-bytes, jemalloc-allocated, rusage[-...] or a BL_COUNTER; see docs/counters.md)' --counters=instructions:x
expect_error_of "$plain" 'benchlab: --format=csb is the threaded mode'"'"'s format and no threaded target is selected (use table, csv, jsonl, lind, b63 or b63-interactive)' --format=csb

# Accepted: CSB's spellings, the long forms, frequencies that sum to 1024.
checks=$((checks + 1))
"$prog" -t=1 -n=10 -d=0.1 -s=100 -op0=1000 -op1=12 -op2=12 --format=csb >"$work/csb" || fail "CSB flags rejected"
grep -q '^num_threads=1;init_sz=100;max_noise=10;duration=0.1;op0_dist=1000;op1_dist=12;op2_dist=12;algo_name=hash_map;' "$work/csb" ||
    fail "csb line: $(head -c 300 "$work/csb")"
checks=$((checks + 1))
"$prog" --threads=2 --nops=0 --duration=0.1 --size=10 --op0=1024 --latency-every=4 --format=jsonl >"$work/jsonl" || fail "long flags rejected"
grep -q '"threads":2,"duration_s":0.1,"init_size":10,"max_nops":0' "$work/jsonl" || fail "jsonl: $(tail -1 "$work/jsonl" | head -c 300)"
checks=$((checks + 1))
"$prog" -d=0.1 -n=3 --random-nops --latency-every=batch --csb-unit=ns >"$work/csb" || fail "--random-nops --latency-every=batch --csb-unit=ns rejected"
grep -q ';max_noise=3;.*;latency_unit=ns;timer=[a-z_]*;latency_every=batch;random_nops=1;' "$work/csb" ||
    fail "csb line does not declare ns, batch and random nops: $(head -c 300 "$work/csb")"
checks=$((checks + 1))
"$prog" --list | grep -qx 'hash_map (threaded)' || fail "--list does not name hash_map (threaded)"
# A format without a threaded form skips the targets and names the formats that have one
# (the header's table of formats: table, jsonl, csb).
checks=$((checks + 1))
"$prog" -d=0.05 --format=csv >"$work/out" 2>"$work/err" || fail "--format=csv with a threaded target failed"
[ "$(cat "$work/err")" = 'benchlab: threaded targets have no csv form and are skipped (use table, jsonl or csb)' ] ||
    fail "--format=csv: stderr is '$(cat "$work/err")'"
[ "$(cat "$work/out")" = 'name,param,counter,iterations,value' ] || fail "--format=csv printed more than its header: $(head -c 200 "$work/out")"
# CSB's short flags in a program without targets would change nothing: one error naming the
# flag (./calls -s=500 was read as --size); the long forms are accepted by every program, as
# `benchlab run --sweep threads=...` gives each benchlab program --threads=T.
expect_error_of "$plain" 'benchlab: -s means the target'"'"'s initial size (--size) for a threaded target (BL_TARGET), and this program has none: it would change nothing here; leave it out (see --help)' -s=500
expect_error_of "$plain" 'benchlab: -t means threads (--threads) for a threaded target (BL_TARGET), and this program has none: it would change nothing here; leave it out (see --help)' -t=2 --list
checks=$((checks + 1))
"$plain" --threads=2 --list >/dev/null || fail "--threads=2 rejected by a program without threaded targets"

echo "threads_cli_test: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
