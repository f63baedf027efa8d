/*
 * baseline.c: compare variants against a baseline.
 *
 *   cc -O2 -Iinclude examples/baseline.c -o baseline && ./baseline
 *
 * BL_BASELINE marks the reference; every other benchmark of the program is
 * sampled in alternating rounds with it and reported as a ratio of medians,
 * with a 99% interval, marked significant only when the interval excludes 1.
 *
 * The kernel: a chain of 64-bit divisions, each needing the previous result,
 * so the time is the latency of one division.
 *   div_runtime (baseline)  divisor known only at run time: a div instruction.
 *   div_runtime_copy        the very same code: an A/A check. Its ratio should
 *                           be close to 1 and NOT significant; if it is, the
 *                           machine is too noisy for the differences you want.
 *   div_constant            divisor known at compile time: the compiler replaces
 *                           the division by a multiplication and shifts, several
 *                           times faster on most CPUs. A ratio well below 1,
 *                           significant.
 */
#include "benchlab.h"

/* volatile: the compiler must read the divisor at run time, so it cannot
 * specialise the division for the value 7. */
static volatile uint64_t runtime_divisor = 7;

BL_BASELINE(div_runtime, n)
{
    uint64_t d = runtime_divisor;
    uint64_t x = ~(uint64_t)0;
    for (uint64_t i = 0; i < n; i++)
        x = x / d + 0x9E3779B97F4A7C15u; /* the add keeps x large */
    BL_KEEP(x); /* without it the whole loop is dead code (see keep.c) */
}

BL_BENCH(div_runtime_copy, n)
{
    uint64_t d = runtime_divisor;
    uint64_t x = ~(uint64_t)0;
    for (uint64_t i = 0; i < n; i++)
        x = x / d + 0x9E3779B97F4A7C15u;
    BL_KEEP(x);
}

BL_BENCH(div_constant, n)
{
    uint64_t x = ~(uint64_t)0;
    for (uint64_t i = 0; i < n; i++)
        x = x / 7 + 0x9E3779B97F4A7C15u;
    BL_KEEP(x);
}

BL_MAIN()
