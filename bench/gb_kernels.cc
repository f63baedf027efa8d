// The kernels of bench/kernels.h as Google Benchmark benchmarks, with the names of
// bl_kernels.c and bl_compare.c: bench/run selects them with --benchmark_filter.
// chain100_copy and chain101 are for the A/A and 1% comparisons.
//
// Every function starts on a cache line, as benchlab's bodies do, so two identical
// functions see the same code alignment and an A/A comparison is about the statistics,
// not about where the linker put them.
#include <benchmark/benchmark.h>

#include "kernels.h"

#define GB_FN(name) __attribute__((aligned(64))) static void name(benchmark::State &state)

GB_FN(empty) {
    for (auto _ : state) KERN_EMPTY();
}
GB_FN(call) {
    for (auto _ : state) KERN_CALL();
}
GB_FN(chain10) {
    KERN_CHAIN_SETUP;
    for (auto _ : state) KERN_CHAIN(10);
}
GB_FN(chain100) {
    KERN_CHAIN_SETUP;
    for (auto _ : state) KERN_CHAIN(100);
}
GB_FN(chain1000) {
    KERN_CHAIN_SETUP;
    for (auto _ : state) KERN_CHAIN(1000);
}
GB_FN(getpid) {
    for (auto _ : state) KERN_GETPID();
}
GB_FN(clock_gettime) {
    for (auto _ : state) KERN_CLOCK_GETTIME();
}
GB_FN(memcpy64) {
    KERN_MEMCPY64_SETUP;
    for (auto _ : state) KERN_MEMCPY64();
}
GB_FN(chain100_copy) {
    KERN_CHAIN_SETUP;
    for (auto _ : state) KERN_CHAIN(100);
}
GB_FN(chain101) {
    KERN_CHAIN_SETUP;
    for (auto _ : state) KERN_CHAIN(101);
}

BENCHMARK(empty);
BENCHMARK(call);
BENCHMARK(chain10);
BENCHMARK(chain100);
BENCHMARK(chain1000);
BENCHMARK(getpid);
BENCHMARK(clock_gettime);
BENCHMARK(memcpy64);
BENCHMARK(chain100_copy);
BENCHMARK(chain101);

BENCHMARK_MAIN();
