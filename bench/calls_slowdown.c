/*
 * calls_slowdown.c: suites/calls/calls.c with a slowdown knob, for bench/regressions.py.
 *
 *   cc -O2 -Iinclude -DBL_SLOWDOWN_PPM=16000 bench/calls_slowdown.c -o calls_slow
 *
 * The same benchmarks as suites/calls/calls.c (regressions.py checks the names), except
 * that args/0 makes n + n * BL_SLOWDOWN_PPM / 1e6 calls where it is asked for n: a
 * regression of that body alone, of known size, which `benchlab ab` should find. Every
 * other row is unchanged (the A/A rows of a sensitivity pair).
 *
 * Why the knob is a volatile object and not a constant in the code: every build, the
 * unslowed one (0) included, then has the same instructions and data at the same
 * addresses, and only the value of one word differs (regressions.py checks that). A code change would move code, and moving code alone
 * shifts figures like these by a percent or more (Mytkowicz et al., ASPLOS 2009): the
 * slowdown would no longer be the one asked for.
 *
 * Why the size is not simply the percent: each extra iteration costs a call and the
 * loop around it, while the reported figure has the empty loop subtracted (a call
 * only). regressions.py measures how many ppm make 1% on a probe build, builds each
 * variant from that, then measures the slowdown each got.
 */
#ifndef BL_SLOWDOWN_PPM
#define BL_SLOWDOWN_PPM 0
#endif

#include "benchlab.h"

#include <stdint.h>

/* Calls made per million asked for. Never 0, so that every build keeps it in .data (a zero
 * would go to .bss and move the data of the unslowed build). */
static volatile uint64_t calls_per_million = 1000000 + BL_SLOWDOWN_PPM;

typedef uint64_t u64;

/* The callees. Their addresses escape into volatile pointers below, so the
 * compiler must keep them as real functions with the standard calling
 * convention (it may not drop or reorder their parameters). */
static void call0(void) {}
static void call1(u64 a) { (void)a; }
static void call2(u64 a, u64 b) { (void)a; (void)b; }
static void call3(u64 a, u64 b, u64 c) { (void)a; (void)b; (void)c; }
static void call4(u64 a, u64 b, u64 c, u64 d) { (void)a; (void)b; (void)c; (void)d; }
static void call5(u64 a, u64 b, u64 c, u64 d, u64 e)
{
    (void)a; (void)b; (void)c; (void)d; (void)e;
}
static void call6(u64 a, u64 b, u64 c, u64 d, u64 e, u64 f)
{
    (void)a; (void)b; (void)c; (void)d; (void)e; (void)f;
}
static void call7(u64 a, u64 b, u64 c, u64 d, u64 e, u64 f, u64 g)
{
    (void)a; (void)b; (void)c; (void)d; (void)e; (void)f; (void)g;
}
static void call8(u64 a, u64 b, u64 c, u64 d, u64 e, u64 f, u64 g, u64 h)
{
    (void)a; (void)b; (void)c; (void)d; (void)e; (void)f; (void)g; (void)h;
}

typedef void (*fn0)(void);
typedef void (*fn1)(u64);
typedef void (*fn2)(u64, u64);
typedef void (*fn3)(u64, u64, u64);
typedef void (*fn4)(u64, u64, u64, u64);
typedef void (*fn5)(u64, u64, u64, u64, u64);
typedef void (*fn6)(u64, u64, u64, u64, u64, u64);
typedef void (*fn7)(u64, u64, u64, u64, u64, u64, u64);
typedef void (*fn8)(u64, u64, u64, u64, u64, u64, u64, u64);

/* volatile: the optimizer may not assume these still hold their initial
 * values, so it cannot tell which function a call through them reaches. */
static fn0 volatile ptr0 = call0;
static fn1 volatile ptr1 = call1;
static fn2 volatile ptr2 = call2;
static fn3 volatile ptr3 = call3;
static fn4 volatile ptr4 = call4;
static fn5 volatile ptr5 = call5;
static fn6 volatile ptr6 = call6;
static fn7 volatile ptr7 = call7;
static fn8 volatile ptr8 = call8;

BL_BASELINE(empty_call, n)
{
    fn0 f = ptr0; /* one volatile load, outside the timed loop */
    for (uint64_t i = 0; i < n; i++)
        f();
}

/* Every argument is the loop counter: a value known only at run time, which
 * the caller must copy into each argument register or stack slot before every
 * call (the call clobbers the argument registers, so nothing set up once can
 * survive to the next iteration). The switch runs once per sample, not per
 * call. */
BL_BENCH_ARGS(args, n, nargs, 0, 1, 2, 3, 4, 5, 6, 7, 8)
{
    uint64_t i;
    switch (nargs) {
    case 0: { fn0 f = ptr0; uint64_t m = n * calls_per_million / 1000000; for (i = 0; i < m; i++) f(); break; }
    case 1: { fn1 f = ptr1; for (i = 0; i < n; i++) f(i); break; }
    case 2: { fn2 f = ptr2; for (i = 0; i < n; i++) f(i, i); break; }
    case 3: { fn3 f = ptr3; for (i = 0; i < n; i++) f(i, i, i); break; }
    case 4: { fn4 f = ptr4; for (i = 0; i < n; i++) f(i, i, i, i); break; }
    case 5: { fn5 f = ptr5; for (i = 0; i < n; i++) f(i, i, i, i, i); break; }
    case 6: { fn6 f = ptr6; for (i = 0; i < n; i++) f(i, i, i, i, i, i); break; }
    case 7: { fn7 f = ptr7; for (i = 0; i < n; i++) f(i, i, i, i, i, i, i); break; }
    case 8: { fn8 f = ptr8; for (i = 0; i < n; i++) f(i, i, i, i, i, i, i, i); break; }
    default: break;
    }
}

BL_MAIN()
