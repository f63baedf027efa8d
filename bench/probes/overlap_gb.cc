// The probe of overlap_bl.c for Google Benchmark (same kernels, same names).
#include <benchmark/benchmark.h>
#include "../kernels.h"

static void memcpy64(benchmark::State &state) {
    KERN_MEMCPY64_SETUP;
    for (auto _ : state) KERN_MEMCPY64();
}
static void memcpy64_x8(benchmark::State &state) {
    KERN_MEMCPY64_SETUP;
    for (auto _ : state) {
        KERN_MEMCPY64(); KERN_MEMCPY64(); KERN_MEMCPY64(); KERN_MEMCPY64();
        KERN_MEMCPY64(); KERN_MEMCPY64(); KERN_MEMCPY64(); KERN_MEMCPY64();
    }
}
static void chain10(benchmark::State &state) {
    KERN_CHAIN_SETUP;
    for (auto _ : state) KERN_CHAIN(10);
}
static void chain1000(benchmark::State &state) {
    KERN_CHAIN_SETUP;
    for (auto _ : state) KERN_CHAIN(1000);
}
BENCHMARK(memcpy64);
BENCHMARK(memcpy64_x8);
BENCHMARK(chain10);
BENCHMARK(chain1000);
BENCHMARK_MAIN();
