#!/bin/sh
# Rebuilds the counter and threaded-mode tests, the concurrency suites and the new
# examples with a sanitizer and runs them briefly; any report fails the test.
# usage: sanitize.sh thread|address CC SOURCE_DIR WORK_DIR
#   thread:  ThreadSanitizer: threads_test, every suites/concurrency target at -t=2,
#            examples/threads.c (data races between the harness and the workers, or
#            inside a target, abort with a report).
#   address: AddressSanitizer + UndefinedBehaviorSanitizer (no recovery): counters_test,
#            threads_test, hash_map, examples/counters.c, examples/custom_counter.c.
set -eu
mode=$1; cc=$2; src=$3; work=$4
mkdir -p "$work"
cd "$work"
flags="-std=c99 -O1 -g -pthread -I$src/include -I$src/tests/c"
case "$mode" in
thread)
    flags="$flags -fsanitize=thread"
    export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
    ;;
address)
    flags="$flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    export ASAN_OPTIONS="halt_on_error=1 detect_leaks=1"
    export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1"
    ;;
*) echo "usage: sanitize.sh thread|address CC SOURCE_DIR WORK_DIR" >&2; exit 2 ;;
esac

build() { # build NAME SOURCE
    echo "build $1 ($mode)"
    # shellcheck disable=SC2086
    "$cc" $flags "$2" -o "$mode-$1"
}
run() { # run NAME ARGS...
    name=$1; shift
    echo "run $name $*"
    "./$mode-$name" "$@" >"$mode-$name.out" || { echo "FAIL: $name exited $?" >&2; tail -40 "$mode-$name.out" >&2; exit 1; }
}

build threads_test "$src/tests/c/threads_test.c"
run threads_test "$mode-threads_test"
if [ "$mode" = thread ]; then
    for f in "$src"/suites/concurrency/*.c "$src/examples/threads.c"; do
        name=$(basename "$f" .c)
        build "$name" "$f"
        run "$name" -t=2 -d=0.3 -n=5 --format=jsonl
    done
else
    build counters_test "$src/tests/c/counters_test.c"
    run counters_test "$mode-counters_test.jsonl"
    build hash_map "$src/suites/concurrency/hash_map.c"
    run hash_map -t=2 -d=0.3 -s=100 --format=jsonl
    for name in counters custom_counter; do
        build "$name" "$src/examples/$name.c"
        run "$name" --samples=5 --time-limit=0.05 --format=jsonl
    done
fi
echo "sanitize $mode: passed"
