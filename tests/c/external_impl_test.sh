#!/bin/sh
# BENCHLAB_EXTERNAL_IMPLEMENTATION (the implementation's guard in include/benchlab.h): the
# implementation compiled once from the header alone, archived, and linked by programs
# compiled with the define, which then carry none of it; in strict C99 (-pedantic -Wall
# -Wextra -Werror), with the compiler given:
#   1. the header alone compiles to the implementation's object;
#   2. a file compiled with the define leaves bl__register undefined (nm), a plain one
#      defines it (weak);
#   3. a one-file program and the two-file example (one file with BENCHLAB_IMPLEMENTATION)
#      link against the archive and run;
#   4. a file that defines an option the implementation reads (BL_NO_TSC) keeps its own
#      copy (BL_NO_TSC's: the clock timer) and links; one that defines BL_NO_ALLOC_HOOK
#      does not link against an archive with the malloc wrappers (the error names it),
#      and against one compiled with BL_NO_ALLOC_HOOK its program has no malloc.
# usage: external_impl_test.sh CC INCLUDE_DIR TESTS_DIR EXAMPLES_DIR
set -u
cc=$1
inc=$2
tests=$3
examples=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checks=0
strict="-std=c99 -O2 -Wall -Wextra -Werror -pedantic"
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { checks=$((checks + 1)); }

runs() { # program: prints a result record
    if BL_NO_WARN=1 "$1" --time-limit=0.01 --samples=5 --format=jsonl 2>"$work/err" | grep -q '"type":"result"'; then
        ok
    else
        fail "$1 printed no result: $(head -3 "$work/err")"
    fi
}

# 1. The implementation alone.
if $cc $strict -I"$inc" -c -include "$inc/benchlab.h" -x c /dev/null -o "$work/impl.o" 2>"$work/err" &&
    ar rcs "$work/libbenchlab.a" "$work/impl.o"; then
    ok
else
    fail "the header alone does not compile: $(head -5 "$work/err")"
    exit 1
fi

# 2. Declarations only with the define; the weak copy without.
external="-DBENCHLAB_EXTERNAL_IMPLEMENTATION"
$cc $strict -I"$inc" $external -c "$tests/include_order.c" -o "$work/external.o" || fail "include_order.c does not compile with $external"
$cc $strict -I"$inc" -c "$tests/include_order.c" -o "$work/plain.o" || fail "include_order.c does not compile"
nm "$work/external.o" | grep -q ' U bl__register$' && ok || fail "with $external the file still defines bl__register"
nm "$work/plain.o" | grep -q ' W bl__register$' && ok || fail "a plain include no longer defines bl__register weakly"

# 3. Programs linked against the archive.
$cc $strict -I"$inc" $external "$tests/include_order.c" "$work/libbenchlab.a" -o "$work/one" && runs "$work/one" ||
    fail "a one-file program does not link against the archive"
$cc $strict -I"$inc" $external "$examples/two_files_a.c" "$examples/two_files_b.c" "$work/libbenchlab.a" -o "$work/two" &&
    runs "$work/two" || fail "the two-file example does not build with $external"
nm "$work/two" | grep -q ' T bl__register$' && ok || fail "two_files_a.c's strong copy is not the one linked"

# 4. Options defined in the file.
{ echo "#define BL_NO_TSC"; cat "$tests/include_order.c"; } >"$work/no_tsc.c"
$cc $strict -I"$inc" $external "$work/no_tsc.c" "$work/libbenchlab.a" -o "$work/no_tsc" && runs "$work/no_tsc" ||
    fail "a file with BL_NO_TSC does not build with $external"
BL_NO_WARN=1 "$work/no_tsc" --samples=3 --format=jsonl 2>/dev/null | grep -q '"timer":"clock_gettime' && ok ||
    fail "a file with BL_NO_TSC did not get its own copy (its timer is not clock_gettime)"
{ echo "#define BL_NO_ALLOC_HOOK"; cat "$tests/include_order.c"; } >"$work/no_hook.c"
if $cc $strict -I"$inc" $external "$work/no_hook.c" "$work/libbenchlab.a" -o "$work/no_hook" 2>"$work/err"; then
    fail "a file with BL_NO_ALLOC_HOOK linked against an archive with the malloc wrappers"
else
    grep -q 'bl__implementation_compiled_with_BL_NO_ALLOC_HOOK' "$work/err" && ok ||
        fail "the failed link does not name BL_NO_ALLOC_HOOK: $(head -3 "$work/err")"
fi
$cc $strict -I"$inc" -DBL_NO_ALLOC_HOOK -c -include "$inc/benchlab.h" -x c /dev/null -o "$work/impl_no_hook.o" &&
    ar rcs "$work/libbenchlab_no_hook.a" "$work/impl_no_hook.o" || fail "the header alone does not compile with BL_NO_ALLOC_HOOK"
$cc $strict -I"$inc" $external "$work/no_hook.c" "$work/libbenchlab_no_hook.a" -o "$work/no_hook" && runs "$work/no_hook" ||
    fail "a file with BL_NO_ALLOC_HOOK does not link against an archive compiled with it"
if nm "$work/no_hook" | grep -q ' [TW] malloc$'; then
    fail "a file with BL_NO_ALLOC_HOOK got the archive's malloc wrapper"
else
    ok
fi

echo "external implementation ($cc): $checks checks passed, $failures failures"
[ $failures -eq 0 ]
