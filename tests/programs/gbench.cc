// A small Google Benchmark program (Debian's libbenchmark-dev): its JSON output for the
// tests of the gbench parser and for the fuzzers' seeds.
#include <benchmark/benchmark.h>
#include <cstring>
static void BM_memset(benchmark::State& state) {
  char buf[4096];
  for (auto _ : state) { memset(buf, 1, state.range(0)); benchmark::DoNotOptimize(buf); }
}
BENCHMARK(BM_memset)->Arg(64)->Arg(1024);
static void BM_empty(benchmark::State& state) { for (auto _ : state) benchmark::ClobberMemory(); }
BENCHMARK(BM_empty);
BENCHMARK_MAIN();
