/* The kernels of bench/kernels.h as benchlab benchmarks, measured alone (no
   baseline): the program bench/run runs at benchlab's defaults. gb_kernels.cc is the
   same list for Google Benchmark, with the same names. */
#include "benchlab.h"
#include "kernels.h"

BL_BENCH(empty, n) {
    for (uint64_t i = 0; i < n; i++) KERN_EMPTY();
}
BL_BENCH(call, n) {
    for (uint64_t i = 0; i < n; i++) KERN_CALL();
}
BL_BENCH(chain10, n) {
    KERN_CHAIN_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_CHAIN(10);
}
BL_BENCH(chain100, n) {
    KERN_CHAIN_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_CHAIN(100);
}
BL_BENCH(chain1000, n) {
    KERN_CHAIN_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_CHAIN(1000);
}
BL_BENCH(getpid, n) {
    for (uint64_t i = 0; i < n; i++) KERN_GETPID();
}
BL_BENCH(clock_gettime, n) {
    for (uint64_t i = 0; i < n; i++) KERN_CLOCK_GETTIME();
}
BL_BENCH(memcpy64, n) {
    KERN_MEMCPY64_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_MEMCPY64();
}

BL_MAIN()
