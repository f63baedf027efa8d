#!/bin/sh
# The header compiles wherever a user includes it, and the examples of its top-of-file
# manual compile as written:
#   1. tests/c/include_order.c (system headers before benchlab.h) in strict C99, C11,
#      C17 (-pedantic -Wall -Wextra -Werror; C99 also without the allocation hook) and
#      C++11, 14, 17, 20, with gcc and clang, and with musl-gcc (Debian's musl-tools) in
#      the C modes; each build is run once;
#   2. every "example: NAME ... end" block of include/benchlab.h, as C99 with gcc and
#      clang, run once (the threaded one with -t=2).
# usage: modes_test.sh INCLUDE_DIR TESTS_DIR
set -u
inc=$1
tests=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
builds=0
strict="-O2 -Wall -Wextra -Werror -pedantic"

build_and_run() { # compiler, flags, source, program args...
    cc=$1; flags=$2; src=$3; shift 3
    exe="$work/prog"
    if ! $cc $flags -I"$inc" "$src" -o "$exe" -pthread 2>"$work/err"; then
        echo "FAIL: $cc $flags $src does not build:"; head -5 "$work/err"; failures=$((failures + 1)); return
    fi
    if ! BL_NO_WARN=1 "$exe" "$@" --format=jsonl >"$work/out" 2>"$work/err"; then
        echo "FAIL: $cc $flags $src: the program failed:"; head -5 "$work/err"; failures=$((failures + 1)); return
    fi
    grep -q '"type":"\(result\|throughput\)"' "$work/out" || { echo "FAIL: $cc $flags $src printed no result"; failures=$((failures + 1)); return; }
    builds=$((builds + 1))
}

quick="--time-limit=0.01 --samples=5"
for cc in gcc clang musl-gcc; do
    command -v $cc >/dev/null 2>&1 || { echo "skip: $cc not installed"; continue; }
    for std in c99 c11 c17; do build_and_run $cc "-std=$std $strict" "$tests/include_order.c" $quick; done
    # without the allocation hook (as under a sanitizer) nothing in the header declares
    # posix_memalign & co. for it: only what <stdlib.h> showed before benchlab.h
    build_and_run $cc "-std=c99 -DBL_NO_ALLOC_HOOK $strict" "$tests/include_order.c" $quick
done
cp "$tests/include_order.c" "$work/include_order.cpp"
for cxx in g++ clang++; do
    command -v $cxx >/dev/null 2>&1 || { echo "skip: $cxx not installed"; continue; }
    for std in c++11 c++14 c++17 c++20; do build_and_run $cxx "-std=$std $strict" "$work/include_order.cpp" $quick; done
done

# The manual's examples: the lines between "   example: NAME" and "   end", less their indent.
names=$(sed -n 's/^   example: \([a-z_]*\)$/\1/p' "$inc/benchlab.h")
[ -n "$names" ] || { echo "FAIL: no example in the header's manual"; failures=$((failures + 1)); }
for name in $names; do
    sed -n "/^   example: $name\$/,/^   end\$/p" "$inc/benchlab.h" | sed '1d;$d' | sed 's/^       //' >"$work/$name.c"
    args=$quick
    [ "$name" = threaded ] && args="-t=2 -d=0.05"
    for cc in gcc clang; do
        command -v $cc >/dev/null 2>&1 && build_and_run $cc "-std=c99 $strict" "$work/$name.c" $args
    done
done
echo "modes: $builds builds ran, $failures failures (examples: $(echo $names | tr '\n' ' '))"
[ $failures -eq 0 ]
