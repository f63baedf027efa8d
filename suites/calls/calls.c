/*
 * calls.c: the cost of a function call, and of each integer argument passed.
 * benchlab's call-overhead suite.
 *
 *   cc -O2 -Iinclude suites/calls/calls.c -o calls && ./calls
 *
 * empty_call (the baseline)
 *     A call through a function pointer to a function that does nothing:
 *     argument-free call, return, and the loop around them.
 * args (nargs = 0..8)
 *     The same call to functions that take nargs integer arguments (they ignore
 *     them). The caller still has to put every argument where the ABI says; on
 *     x86-64 System V the first six go in registers and the rest on the stack.
 *     Whether that shows depends on the machine: an out-of-order core often
 *     hides the moves behind the call, a JIT-compiled sandbox (wasm) less so
 *     (docs/suites.md has both). args/0 is the same code as the baseline: its
 *     ratio should come out close to 1 and not significant, a built-in check of
 *     the comparison.
 *
 * What args/0 shows at --samples=500. Its ratio reads about 1.001 in every run
 * (1.0011 to 1.0013, above 1 in 30 of 30 runs), and before the header allowed
 * for it, the ratio's interval (+-0.1%) called it significant in 6 of 15 runs.
 * Not the code: an exact copy of the baseline's body read 1.0008, 1.0010 when
 * the copy was made the baseline and the original compared to it, and aligning
 * every function and loop to 64 bytes (-falign-functions=64 -falign-loops=64)
 * left 1.0016. Not the round order either (1.0004 to 1.0011 whichever of the
 * two came first in a round). It is a fixed cost per sample, about 15 ns that
 * differs between bodies (most likely the branch predictors' state left by the
 * body sampled before: the indirect call into the body, the loop's first and
 * last branches; a sample's residual moved by up to 0.3% with its predecessor),
 * spread over the sample's iterations: --samples=500 fits 500 samples into the
 * 0.01 s time limit, so a sample is 16 us (11000 calls), and 15 ns is 0.12% of
 * it. With longer samples the shift shrinks as 1/n: 1.0005 at n = 31000
 * (--time-limit=0.03), 1.0003 at the default 50 us samples (n = 33000), 1.0000
 * at n = 107000 (--time-limit=0.1). So the header widens a ratio's interval by
 * the comparison's per-sample resolution, one timer read's cost over the
 * sample's iterations (bl__ratio_resolution; +-0.19% here: 24.5 ns over 11000
 * calls of 1.2 ns), which more samples cannot shrink: args/0 and args/1 then
 * read not significant (0 of 15 runs), args/4 to args/6 (1.34x) still are.
 * To resolve differences finer than that, give samples more iterations
 * (--time-limit) rather than more samples.
 *
 * Why the pointers are opaque: a call the compiler can see through is inlined
 * (and then deleted, since the callees do nothing), and the benchmark would
 * time an empty loop. Each pointer is kept in a volatile object, so its value
 * must be loaded at run time and is unknown to the optimizer: no inlining, no
 * devirtualization, no dropping of the argument set-up. The load happens once,
 * before the timed loop, so the loop itself holds only the indirect call (the
 * call-overhead seed caches its function addresses for the same reason).
 */
#include "benchlab.h"

#include <stdint.h>

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
    case 0: { fn0 f = ptr0; for (i = 0; i < n; i++) f(); break; }
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
