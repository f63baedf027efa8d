#!/bin/sh
# Flag dialects (header section 9): a program built with BL_FLAGS b63, BL_FLAGS libloong or
# BL_MAIN_AS(...) reads that harness's short flags as its users write them, prints what
# that harness prints by default, and refuses any other dialect's flag with one message
# naming the dialect it belongs to. Built as users build: -std=c99 -pedantic, the header
# included after system headers.
# usage: dialects_test.sh CC INCLUDE_DIR
set -u
cc=$1
inc=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checks=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# program NAME PREAMBLE MAIN: a baseline and a benchmark twice its cost.
program() {
    cat >"$work/$1.c" <<SRC
#include <stdio.h>
#include <string.h>
$2
#include "benchlab.h"
static volatile uint64_t sink;
BL_BASELINE(base, n) { for (uint64_t i = 0; i < 20 * n; i++) sink += i; }
BL_BENCH(twice, n) { for (uint64_t i = 0; i < 40 * n; i++) sink += i; }
static const char *seen = "unread";
BL_BENCH(binary, n) { BL_SUSPEND { seen = bl_binary("none"); } for (uint64_t i = 0; i < n; i++) sink += i; }
/* a slow setup: its samples' wall time passes any short --time-limit */
BL_BENCH(setup, n) { BL_SUSPEND { for (uint64_t i = 0; i < 100000; i++) sink += i; } for (uint64_t i = 0; i < n; i++) sink += i; }
static uint64_t seven(void) { return 7; }
BL_COUNTER(sevens, "sevens", seven)
$3
SRC
    "$cc" -std=c99 -pedantic -Wall -Wextra -Werror -O2 -I"$inc" "$work/$1.c" -o "$work/$1" 2>"$work/$1.cc" ||
        fail "$1 does not build: $(cat "$work/$1.cc")"
}
program csb "" "BL_MAIN()"
program b63 "#define BL_FLAGS b63" "BL_MAIN()"
program b63_as "" "BL_MAIN_AS(b63)"
program libloong "#define BL_FLAGS libloong" \
    "int main(int argc, char **argv) { int s = bl_main(argc, argv); if (!s) fprintf(stderr, \"binary=%s\\n\", seen); return s; }"

# expect_error PROGRAM "expected stderr line" ARGS...: status 2, one line, nothing run.
expect_error() {
    prog=$1; want=$2; shift 2
    checks=$((checks + 1))
    "$work/$prog" "$@" >"$work/out" 2>"$work/err"
    status=$?
    [ "$status" -eq 2 ] || fail "$prog $* exited $status, want 2"
    [ ! -s "$work/out" ] || fail "$prog $* printed on stdout: $(head -c 200 "$work/out")"
    [ "$(cat "$work/err")" = "$want" ] || fail "$prog $*: stderr is '$(cat "$work/err")', want '$want'"
}
how="Build it with #define BL_FLAGS <dialect> before including benchlab.h (or BL_MAIN_AS(<dialect>)) to take another dialect's; see --help"

# B63's lines: name,counter,iterations,events,per-iteration, one per epoch (-e), the
# default format in B63's dialect; -d changes the delimiter, as B63's getopt reads it.
# An epoch doubles its batches from 1, so its iterations are 2^k - 1 as B63's are.
# all_epochs FILE: every third field is 2^k - 1.
all_epochs() {
    awk -F"${2:-,}" '{ n = $3 + 1; while (n > 1 && n % 2 == 0) n /= 2; if (n != 1) bad++ } END { exit bad > 0 }' "$1"
}
for prog in b63 b63_as; do
    checks=$((checks + 1))
    # B63's -t is whole seconds: B63's own `-t 1` runs once, shorter limits keep the test short
    if [ "$prog" = b63 ]; then limit=1; else limit=0.05; fi
    "$work/$prog" -t $limit -e 5 --filter=twice >"$work/plain" || fail "$prog -t $limit -e 5 failed"
    # -e 5: exactly 5 lines each, as B63 prints them, preempted epochs too (the jsonl says how many)
    [ "$(grep -c '^twice,time,' "$work/plain")" -eq 5 ] || fail "$prog -e 5: not 5 twice lines: $(cat "$work/plain")"
    [ "$(grep -c '^base,time,' "$work/plain")" -eq 5 ] || fail "$prog -e 5: not 5 baseline lines"
    bad=$(grep -Ev '^[a-z]+,time,[0-9]+,[0-9]+,[0-9]+\.[0-9]{6}$' "$work/plain")
    [ -z "$bad" ] || fail "$prog: lines not B63's: $bad"
    all_epochs "$work/plain" || fail "$prog: iterations are not B63's 2^k - 1: $(cut -d, -f3 "$work/plain" | tr '\n' ' ')"
    # the fifth field is the fourth over the third, as B63 prints it
    awk -F, '{ q = $4 / $3; if (q - $5 > 1e-6 || $5 - q > 1e-6) bad++ } END { exit bad > 0 }' "$work/plain" ||
        fail "$prog: per-iteration is not events / iterations"
done
# Without -e, B63's 30 epochs; a counter's lines are as many, at the epochs' iterations.
checks=$((checks + 1))
"$work/b63" -t 0.03 -c time,sevens --filter=twice >"$work/thirty" || fail "b63 -t 0.03 -c time,sevens failed"
[ "$(grep -c '^twice,time,' "$work/thirty")" -eq 30 ] || fail "b63 without -e: not 30 lines: $(grep -c . "$work/thirty")"
[ "$(grep -c '^twice,sevens,' "$work/thirty")" -eq 30 ] || fail "b63 -c sevens: not 30 lines"
all_epochs "$work/thirty" || fail "b63 -c time,sevens: iterations are not 2^k - 1"
checks=$((checks + 1))
"$work/b63" -e7 -t 0.05 -d ';' -s -42 --filter=twice >"$work/semi" || fail "b63 -e7 -d ';' -s -42 failed"
[ "$(grep -c '^twice;time;' "$work/semi")" -eq 7 ] || fail "-e7 -d ';': $(cat "$work/semi")"
all_epochs "$work/semi" ';' || fail "-e7 -d ';': iterations are not 2^k - 1"
# exactly 7 rounds: the samples and the preempted rounds left out of them, as jsonl says
"$work/b63" -e7 -t 0.05 --format=jsonl --filter=twice | awk '/"bench":"twice"/ {
    s = $0; sub(/.*"sample_iterations":\[/, "", s); sub(/\].*/, "", s); n = split(s, parts, ",")
    left = match($0, /"left_out":[0-9]+/) ? substr($0, RSTART + 11, RLENGTH - 11) : 0
    if (n + left != 7) bad++; seen++
} END { exit !(seen == 1 && bad == 0) }' || fail "b63 -e7: not 7 rounds (samples and left_out) for twice"
checks=$((checks + 1))
"$work/b63" -e 5 -t 0.05 -s 42 --format=jsonl --filter=twice | head -1 | grep -q '"seed":42,' || fail "b63 -s 42 is not the seed"
"$work/b63" -e 5 -t 0.05 -s -1 --format=jsonl --filter=twice | head -1 | grep -q '"seed":18446744073709551615,' ||
    fail "b63 -s -1 is not the seed 2^64-1"
# -i alone and grouped with a flag that takes a value (getopt's -ie 5)
checks=$((checks + 1))
"$work/b63" -ie 5 -t0.05 --filter=twice >"$work/inter" || fail "b63 -ie 5 failed"
grep -Eq '^twice +time +: +[0-9]+\.[0-9]{3} \([+-] *[0-9]+\.[0-9]{3}% [* ]\)$' "$work/inter" ||
    fail "b63 -i: no comparison line: $(cat "$work/inter")"
grep -Eq '^base +time +: +[0-9]+\.[0-9]{3}$' "$work/inter" || fail "b63 -i: no baseline line: $(cat "$work/inter")"
# -c names counters (B63's names among them), --format still wins over the default
checks=$((checks + 1))
"$work/b63" -e 5 -t 0.05 -c time,sevens --filter=twice --format=jsonl | grep -c '"counter":"sevens"' | grep -q '^2$' ||
    fail "b63 -c time,sevens: not a record of the counter for twice and the baseline"

# Other dialects' flags, and other dialects' forms, are refused by name.
expect_error b63 "benchlab: -n means nops between operations (--nops) in CSB's dialect, not in this program's: it reads B63's short flags (BL_FLAGS b63). $how" -n=3
expect_error b63 "benchlab: \"-s=500\": this program reads B63's short flags, whose values are written as getopt reads it: -t 5, -t5, or after flags without a value (-it 5) (-s means the target's initial size (--size) in CSB's dialect; samples per benchmark (--samples) in libloong's: BL_FLAGS chooses the dialect)" -s=500
expect_error b63 "benchlab: -b means the guest program's path (--binary) in libloong's dialect, not in this program's: it reads B63's short flags (BL_FLAGS b63). $how" -b guest.elf
expect_error b63 "benchlab: --binary means the guest program's path (bl_binary()) in libloong's dialect, not in this program's: it reads B63's short flags (BL_FLAGS b63). $how" --binary guest.elf
expect_error b63 'benchlab: -e must be a whole number from 3 to 1000000 (got "0")' -e 0
expect_error b63 'benchlab: -e needs a value' -e
expect_error csb "benchlab: -e means epochs: samples per benchmark (--samples) in B63's dialect, not in this program's: it reads CSB's short flags (BL_FLAGS csb). $how" -e 10
expect_error csb "benchlab: -i means B63's interactive lines (--format=b63-interactive) in B63's dialect, not in this program's: it reads CSB's short flags (BL_FLAGS csb). $how" -i
expect_error csb "benchlab: \"-s\": this program reads CSB's short flags, whose values are written flag=value, e.g. -t=4 (-s means the seed (--seed) in B63's dialect; samples per benchmark (--samples) in libloong's: BL_FLAGS chooses the dialect)" -s 500
expect_error libloong "benchlab: \"-s=500\": this program reads libloong's short flags, whose values are written flag, space, value: -s 500 (-s means the target's initial size (--size) in CSB's dialect; the seed (--seed) in B63's: BL_FLAGS chooses the dialect)" -s=500
expect_error libloong "benchlab: -t means threads (--threads) in CSB's dialect; seconds per benchmark (--time-limit) in B63's, not in this program's: it reads libloong's short flags (BL_FLAGS libloong). $how" -t=4
expect_error libloong 'benchlab: -s must be a whole number from 3 to 1000000 (got "x")' -s x

# libloong's: -s N samples, -b PATH / --binary PATH for the program (bl_binary), -h.
checks=$((checks + 1))
echo guest >"$work/guest.elf"
echo other >"$work/other.elf"
"$work/libloong" -s 9 -b "$work/guest.elf" --time-limit=0.05 --format=jsonl >"$work/ll" 2>"$work/ll.err" || fail "libloong -s 9 -b failed"
grep -q '"samples":9,' "$work/ll" || fail "libloong -s 9: context does not say 9 samples"
grep -q "^binary=$work/guest.elf\$" "$work/ll.err" || fail "libloong -b: bl_binary() gave $(cat "$work/ll.err")"
"$work/libloong" --samples 9 --binary "$work/other.elf" --time-limit=0.05 --format=jsonl >/dev/null 2>"$work/ll.err" || fail "libloong --binary failed"
grep -q "^binary=$work/other.elf\$" "$work/ll.err" || fail "libloong --binary: bl_binary() gave $(cat "$work/ll.err")"
# a -b that cannot be read is one error before anything runs (the program would abort loading it)
expect_error libloong "benchlab: -b cannot read \"$work/none.elf\": No such file or directory (give the path of the guest program's file)" -b "$work/none.elf"
expect_error libloong "benchlab: --binary cannot read \"$work\": Is a directory (give the path of the guest program's file)" --binary "$work"
# -s N is exact, as in libloong's harness: 200 rounds (samples and any preempted left out),
# though 200 samples of a slow setup pass a 1 ms --time-limit at the 10th
checks=$((checks + 1))
"$work/libloong" -s 200 --time-limit=0.001 --filter=setup --format=jsonl 2>/dev/null | awk '/"bench":"setup"/ {
    s = $0; sub(/.*"sample_iterations":\[/, "", s); sub(/\].*/, "", s); n = split(s, parts, ",")
    left = match($0, /"left_out":[0-9]+/) ? substr($0, RSTART + 11, RLENGTH - 11) : 0
    if (n + left != 200) bad++; seen++
} END { exit !(seen == 1 && bad == 0) }' || fail "libloong -s 200: not 200 rounds for setup"
"$work/libloong" -s 9 --time-limit=0.05 --format=jsonl >/dev/null 2>"$work/ll.err" || fail "libloong without -b failed"
grep -q '^binary=none$' "$work/ll.err" || fail "libloong without -b: bl_binary() gave $(cat "$work/ll.err")"
checks=$((checks + 1))
"$work/libloong" -h >"$work/help" 2>/dev/null || fail "libloong -h failed"
grep -q "^short flags (libloong's, BL_FLAGS libloong" "$work/help" || fail "libloong -h does not list its dialect"
grep -Eq '^  -b +the guest program' "$work/help" || fail "libloong -h does not list -b"

# A dialect that does not exist does not compile, naming the choices.
checks=$((checks + 1))
printf '#define BL_FLAGS google\n#include "benchlab.h"\nBL_MAIN()\n' >"$work/bad.c"
"$cc" -std=c99 -I"$inc" -c "$work/bad.c" -o "$work/bad.o" 2>"$work/bad.err" && fail "BL_FLAGS google compiled"
grep -q 'BL__DIALECT_google' "$work/bad.err" || fail "BL_FLAGS google: the error does not name it: $(head -3 "$work/bad.err")"
printf '#include "benchlab.h"\nBL_MAIN_AS(google)\n' >"$work/bad2.c"
"$cc" -std=c99 -I"$inc" -c "$work/bad2.c" -o "$work/bad2.o" 2>"$work/bad2.err" && fail "BL_MAIN_AS(google) compiled"
grep -q 'BL__DIALECT_google' "$work/bad2.err" || fail "BL_MAIN_AS(google): the error does not name it"

echo "dialects_test: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
