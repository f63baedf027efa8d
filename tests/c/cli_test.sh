#!/bin/sh
# The command line of every benchmark binary: exact messages and exit status for bad
# flags (one stderr line, status 2, nothing on stdout), and the shape of each format.
# usage: cli_test.sh PROGRAM   (a program with a baseline and a BL_BENCH_ARGS sweep)
set -u
prog=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checks=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect_error "expected stderr line" ARGS...
expect_error() {
    want=$1; shift
    checks=$((checks + 1))
    "$prog" "$@" >"$work/out" 2>"$work/err"
    status=$?
    [ "$status" -eq 2 ] || fail "$* exited $status, want 2"
    [ ! -s "$work/out" ] || fail "$* printed on stdout: $(head -c 200 "$work/out")"
    [ "$(wc -l <"$work/err")" -eq 1 ] || fail "$* printed $(wc -l <"$work/err") lines on stderr, want 1"
    [ "$(cat "$work/err")" = "$want" ] || fail "$*: stderr is '$(cat "$work/err")', want '$want'"
}

expect_error 'benchlab: --samples must be a whole number from 3 to 1000000 (got "abc")' --samples=abc
expect_error 'benchlab: --samples must be a whole number from 3 to 1000000 (got "2")' --samples=2
expect_error 'benchlab: --samples must be a whole number from 3 to 1000000 (got "-5")' --samples=-5
expect_error 'benchlab: --time-limit must be a number of seconds > 0 and <= 1000000 (got "0")' --time-limit=0
expect_error 'benchlab: --time-limit must be a number of seconds > 0 and <= 1000000 (got "1s")' --time-limit=1s
expect_error 'benchlab: --seed must be a whole number from 0 to 18446744073709551615 (got "18446744073709551616")' --seed=18446744073709551616
expect_error 'benchlab: --format must be one of table, csv, jsonl, lind, b63, b63-interactive, csb (got "xml")' --format=xml
expect_error 'benchlab: unknown flag "--sample" (see --help)' --sample=3
expect_error 'benchlab: unexpected argument "fast" (flags start with - or --; see --help)' fast
expect_error 'benchlab: --filter needs a non-empty substring (got "")' --filter=
expect_error 'benchlab: --samples needs a value' --samples
expect_error 'benchlab: no benchmark matches --filter=nothing_like_this (see --list)' --filter=nothing_like_this
expect_error "benchlab: --out cannot open \"$work/no/such/dir/x\" for writing: No such file or directory" --out="$work/no/such/dir/x"
expect_error 'benchlab: --precision must be a percentage from 0 (off) to 100 (got "-1")' --precision=-1
expect_error 'benchlab: --precision must be a percentage from 0 (off) to 100 (got "abc")' --precision=abc
expect_error 'benchlab: --precision must be a percentage from 0 (off) to 100 (got "nan")' --precision=nan
expect_error 'benchlab: --schedule must be rounds or sequential (got "other")' --schedule=other
expect_error 'benchlab: --no-subtract takes no value (got "1")' --no-subtract=1
# A bad flag after good ones still stops before anything runs.
expect_error 'benchlab: --format must be one of table, csv, jsonl, lind, b63, b63-interactive, csb (got "")' --samples=5 --format=

run() { "$prog" --time-limit=0.05 --samples=5 "$@"; }

# --list: one name per line, the baseline marked, params spelled name/arg=value.
checks=$((checks + 1))
list=$("$prog" --list) || fail "--list failed"
echo "$list" | grep -q ' (baseline)$' || fail "--list marks no baseline: $list"
echo "$list" | grep -Eq '^[a-z0-9_]+/[a-z_]+=[0-9]+$' || fail "--list shows no parameter instance: $list"

# --filter keeps matching instances (and the baseline, the reference of the others).
checks=$((checks + 1))
n_all=$(run --format=lind | wc -l)
n_one=$(run --format=lind --filter="$(echo "$list" | grep '/' | head -1)" | wc -l)
[ "$n_one" -eq 2 ] || fail "--filter on one instance gave $n_one lind lines, want 2 (it and the baseline)"
[ "$n_all" -eq "$(echo "$list" | wc -l)" ] || fail "lind gave $n_all lines for $(echo "$list" | wc -l) benchmarks"

# lind: exactly test<TAB>param<TAB>loops<TAB>avg_ns, integers; a test without a parameter
# has '-' for it, as Lind's own tests print.
checks=$((checks + 1))
run --format=lind >"$work/lind" || fail "--format=lind failed"
bad=$(grep -Ev "^[A-Za-z0-9_]+	(-?[0-9]+|-)	[0-9]+	-?[0-9]+$" "$work/lind")
[ -z "$bad" ] || fail "lind lines not test<TAB>param<TAB>loops<TAB>avg_ns: $bad"
[ "$(grep -c "	-	" "$work/lind")" -eq "$(echo "$list" | grep -vc '/')" ] ||
    fail "lind: not every benchmark without a parameter has '-': $(cat "$work/lind")"

# csv: header, then name,param,counter,iterations,value per sample (5 samples each).
checks=$((checks + 1))
run --format=csv >"$work/csv" || fail "--format=csv failed"
[ "$(head -1 "$work/csv")" = "name,param,counter,iterations,value" ] || fail "csv header is $(head -1 "$work/csv")"
bad=$(tail -n +2 "$work/csv" | grep -Ev '^[A-Za-z0-9_]+,-?[0-9]*,time,[0-9]+,-?[0-9]+\.[0-9]$')
[ -z "$bad" ] || fail "csv lines malformed: $bad"
[ "$(tail -n +2 "$work/csv" | wc -l)" -le $((5 * n_all)) ] || fail "csv has more than 5 samples per benchmark"

# jsonl: context first, then one result per instance, with samples and statistics.
checks=$((checks + 1))
run --format=jsonl --seed=7 --out="$work/jsonl" >"$work/stdout" || fail "--format=jsonl --out failed"
[ ! -s "$work/stdout" ] || fail "--out still printed on stdout"
head -1 "$work/jsonl" | grep -q '^{"type":"context","schema":2,' || fail "first jsonl line is not the context"
head -1 "$work/jsonl" | grep -q '"seed":7,' || fail "context does not carry --seed=7"
[ "$(grep -c '"type":"result"' "$work/jsonl")" -eq "$n_all" ] || fail "jsonl result count differs from lind"
for key in bench param counter unit iterations sample_iterations samples median min max mean stddev p75 p90 p99 mad median_ci overhead baseline ratio ratio_ci significant; do
    [ "$(grep -c "\"$key\":" "$work/jsonl")" -ge "$n_all" ] || fail "jsonl results lack \"$key\""
done

# table: the context line, then one line per instance with median and lowest.
checks=$((checks + 1))
run --format=table >"$work/table" || fail "--format=table failed"
head -1 "$work/table" | grep -q '^benchlab ' || fail "table has no context line"
[ "$(grep -c 'median: .*lowest: .*p99: ' "$work/table")" -eq "$n_all" ] || fail "table rows differ from lind"

# Rounds: with --samples=N and no --precision, every benchmark takes exactly N samples,
# the baseline's and the empty loop's of the same round beside each.
checks=$((checks + 1))
"$prog" --format=jsonl --samples=7 >"$work/rounds" || fail "--samples=7 failed"
grep -q '"schedule":"rounds","samples":7,' "$work/rounds" || fail "context does not say rounds and samples 7"
grep -q '"precision_pct":0,' "$work/rounds" || fail "--samples without --precision should turn precision off"
# 7 rounds per benchmark: its samples and the preempted rounds left out of them (formats.md, *Contention*)
awk '/"type":"result"/ {
    s = $0; sub(/.*"sample_iterations":\[/, "", s); sub(/\].*/, "", s); n = s == "" ? 0 : split(s, parts, ",")
    left = match($0, /"left_out":[0-9]+/) ? substr($0, RSTART + 11, RLENGTH - 11) : 0
    if (n + left != 7) bad++
} END { exit bad > 0 }' "$work/rounds" || fail "not 7 rounds (samples and left_out) per benchmark"
[ "$(grep -c '"overhead_samples":\[' "$work/rounds")" -eq "$n_all" ] || fail "time records lack overhead_samples"
[ "$(grep -c '"baseline_samples":\[' "$work/rounds")" -eq $((n_all - 1)) ] || fail "compared records lack baseline_samples"
[ "$(grep -c '"stopped":"samples"' "$work/rounds")" -eq "$n_all" ] || fail "stopped is not samples"

# Precision: a steady kernel stops on it, with at least 20 samples; --precision=0 and a
# time limit stop on the time.
checks=$((checks + 1))
# A generous time limit: under load the default 0.01 s can end a benchmark at 10 samples,
# before the 20 that precision is judged from.
"$prog" --format=jsonl --precision=50 --time-limit=5 >"$work/precise" || fail "--precision=50 failed"
[ "$(grep -c '"stopped":"precision"' "$work/precise")" -eq "$n_all" ] || fail "--precision=50 did not stop on precision"
"$prog" --format=jsonl --precision=0 --time-limit=0.002 >"$work/timed" || fail "--precision=0 failed"
[ "$(grep -c '"stopped":"time limit"' "$work/timed")" -ge 1 ] || fail "--precision=0 did not stop on the time limit"

# Sequential: the same records, one benchmark after another.
checks=$((checks + 1))
"$prog" --format=jsonl --schedule=sequential --samples=5 >"$work/seq" || fail "--schedule=sequential failed"
grep -q '"schedule":"sequential"' "$work/seq" || fail "context does not say sequential"
[ "$(grep -c '"type":"result"' "$work/seq")" -eq "$n_all" ] || fail "sequential result count differs"

# --no-subtract: figures as measured; the table says which.
checks=$((checks + 1))
"$prog" --format=jsonl --no-subtract --samples=5 >"$work/raw" || fail "--no-subtract failed"
[ "$(grep -c '"subtracted":false' "$work/raw")" -eq "$n_all" ] || fail "records do not say subtracted:false"
"$prog" --format=table --no-subtract --samples=5 | grep -q 'raw figures (--no-subtract)' || fail "table does not say raw"

# --help and -h: usage on stdout, status 0, nothing on stderr, nothing run; the same text.
checks=$((checks + 1))
"$prog" --help | grep -q -- '--time-limit=SECONDS' || fail "--help lacks --time-limit"
for flag in -h --help; do
    checks=$((checks + 1))
    "$prog" $flag >"$work/help$flag" 2>"$work/err"
    status=$?
    [ "$status" -eq 0 ] || fail "$flag exited $status, want 0: $(head -c 200 "$work/err")"
    [ ! -s "$work/err" ] || fail "$flag printed on stderr: $(head -c 200 "$work/err")"
    head -1 "$work/help$flag" | grep -q '^usage: ' || fail "$flag: stdout does not start with usage: $(head -c 200 "$work/help$flag")"
    grep -q '"type"' "$work/help$flag" && fail "$flag ran the benchmarks"
    grep -q -- '-h, --help' "$work/help$flag" || fail "$flag: the usage does not name -h"
done
cmp -s "$work/help-h" "$work/help--help" || fail "-h and --help print different text"
# The --format lines, made from the header's table of formats: the benchmark formats on the
# flag's line, the threaded mode's own below, as they read when typed by hand.
checks=$((checks + 1))
printf '%s\n' '  --format=FORMAT        table (default on a terminal), csv, jsonl (default otherwise), lind, b63, b63-interactive;' \
    '                         csb for threaded targets (the default when a CSB flag -t= -n= -d=' \
    '                         -s= -opK= is given, as CSB'"'"'s runner reads it)' \
    '  --out=FILE             write the results to FILE instead of standard output' >"$work/formats_help"
grep -A3 -- '^  --format=FORMAT' "$work/help--help" | cmp -s - "$work/formats_help" ||
    fail "--help's --format lines: $(grep -A3 -- '^  --format=FORMAT' "$work/help--help")"
# after other flags too, and -h=1 is not help
checks=$((checks + 1))
"$prog" --samples=5 -h | head -1 | grep -q '^usage: ' || fail "--samples=5 -h does not print the usage"
expect_error 'benchlab: unknown flag "-h" (see --help)' -h=1

echo "cli_test: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
