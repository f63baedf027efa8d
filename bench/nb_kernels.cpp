// The kernels of bench/kernels.h as nanobench benchmarks (martinus/nanobench, a single
// header that bench/run does not ship: give its directory as NANOBENCH_INCLUDE). One
// process at nanobench's defaults; prints "name<TAB>median ns per op" per kernel, for
// bench/budget.py. nanobench's own table goes to stderr.
#define ANKERL_NANOBENCH_IMPLEMENT
#include <nanobench.h>

#include <cstdio>
#include <iostream>

#include "kernels.h"

int main() {
    ankerl::nanobench::Bench bench;
    bench.output(&std::cerr);
    bench.run("call", [] { KERN_CALL(); });
    {
        KERN_CHAIN_SETUP;
        bench.run("chain10", [&] { KERN_CHAIN(10); });
        bench.run("chain100", [&] { KERN_CHAIN(100); });
        bench.run("chain1000", [&] { KERN_CHAIN(1000); });
    }
    bench.run("getpid", [] { KERN_GETPID(); });
    bench.run("clock_gettime", [] { KERN_CLOCK_GETTIME(); });
    {
        KERN_MEMCPY64_SETUP;
        bench.run("memcpy64", [&] { KERN_MEMCPY64(); });
    }
    for (auto const& result : bench.results()) {
        double seconds = result.median(ankerl::nanobench::Result::Measure::elapsed);
        std::printf("%s\t%.6g\n", result.config().mBenchmarkName.c_str(), seconds * 1e9);
    }
    return 0;
}
