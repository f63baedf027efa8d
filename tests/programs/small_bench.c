/* A small benchlab program for the tests and the fuzzers' seeds: a baseline, a plain
   benchmark and a parameterised one, so that it prints every kind of result record. */
#include "benchlab.h"
#include <string.h>
static char src[4096], dst[4096];
BL_BASELINE(empty, n) { for (uint64_t i = 0; i < n; i++) BL_CLOBBER(); }
BL_BENCH(spin, n) { uint64_t x = 0; for (uint64_t i = 0; i < n; i++) { x += i * i; BL_KEEP(x); } }
BL_BENCH_ARGS(copy, n, size, 16, 1024) {
    for (uint64_t i = 0; i < n; i++) { memcpy(dst, src, (size_t)size); BL_CLOBBER(); }
}
BL_MAIN()
