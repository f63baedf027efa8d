/* The comparison's per-sample resolution (bl__ratio_resolution): a ratio to the
   baseline is not resolved closer than one timer read's cost per sample over the
   sample's iterations. suites/calls at --samples=500 (samples of 11000 calls of 1.2 ns)
   read args/nargs=0, the baseline's own code, as 1.0011 with an interval of +-0.1%,
   "significant" in 6 of 15 runs: a fixed cost of about 15 ns per sample that differs
   between bodies, not a difference of the code. Here the time pass's figures are
   computed from synthetic rounds with exactly such a shift, so the verdicts are
   deterministic:
     - +0.12% at n = 11000 (1.2 ns calls, a 24.5 ns timer read) is within the
       resolution: not significant, and the interval says why (at least +-0.19%);
     - the same +0.12% at n = 110000 is ten times above the resolution: significant;
     - +3% at n = 11000 (args/nargs=2 on this machine) stays significant, and so
       does -3%;
     - without a baseline sample long enough to matter (a 1 us call), nothing changes. */
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "testutil.h"

#define ROUNDS 500

typedef struct { double ratio, low, high; } figures;

/* Rounds of an empty loop (0.58 ns), a baseline (base_ns above it) and a benchmark
   `shift` times the baseline, each round's noise mostly shared (a slow phase hits all
   three), a little of it the benchmark's own. */
static figures compare(double base_ns, double shift, uint64_t iterations) {
    static double empty[ROUNDS], base[ROUNDS], bench[ROUNDS];
    static const bl__bench baseline_bench = {"baseline", NULL, 1, NULL, NULL, 0, __FILE__, __LINE__, 0, NULL};
    bl__instance baseline_instance;
    bl__result baseline, r;
    bl__options o;
    figures f;
    uint64_t rng = 42;
    size_t i;
    for (i = 0; i < ROUNDS; i++) {
        double phase = 1 + 0.02 * (double)(bl_random(&rng) >> 11) / 9007199254740992.0;
        double own = 1 + 0.002 * ((double)(bl_random(&rng) >> 11) / 9007199254740992.0 - 0.5);
        empty[i] = 0.58 * phase;
        base[i] = empty[i] + base_ns * phase;
        bench[i] = empty[i] + base_ns * shift * phase * own;
    }
    memset(&baseline_instance, 0, sizeof baseline_instance);
    baseline_instance.bench = &baseline_bench;
    memset(&baseline, 0, sizeof baseline);
    baseline.instance = &baseline_instance;
    baseline.iterations = iterations;
    memset(&r, 0, sizeof r);
    r.instance = &baseline_instance; /* only the baseline's name is read */
    r.iterations = iterations;
    r.samples = bench;
    r.baseline_samples = base;
    r.overhead_samples = empty;
    r.count = ROUNDS;
    memset(&o, 0, sizeof o);
    o.subtract = 1;
    bl__time_figures(&r, &baseline, &o);
    f.ratio = r.ratio;
    f.low = r.ratio_low;
    f.high = r.ratio_high;
    return f;
}

static int significant(figures f) { return f.low > 1 || f.high < 1; }

int main(void) {
    figures f;
    bl__clock.cost_ns = 24.5; /* a TSC read on this project's VM */

    f = compare(1.2, 1.0012, 11000);
    printf("+0.12%% at n=11000:  %.4f [%.4f, %.4f]\n", f.ratio, f.low, f.high);
    TU_CHECK(f.ratio > 1.0008 && f.ratio < 1.0016, "the ratio itself is %.4f, want 1.0012", f.ratio);
    TU_CHECK(!significant(f), "a +0.12%% shift at n=11000 is significant: [%.4f, %.4f]", f.low, f.high);
    TU_CHECK(f.high - f.ratio >= 24.5 / (11000 * 1.2) && f.ratio - f.low >= 24.5 / (11000 * 1.2),
             "the interval [%.4f, %.4f] is narrower than the resolution +-%.4f", f.low, f.high, 24.5 / (11000 * 1.2));

    f = compare(1.2, 1.0012, 110000);
    printf("+0.12%% at n=110000: %.4f [%.4f, %.4f]\n", f.ratio, f.low, f.high);
    TU_CHECK(significant(f), "a +0.12%% shift at n=110000 is not significant: [%.4f, %.4f]", f.low, f.high);

    f = compare(1.2, 1.03, 11000);
    printf("+3%% at n=11000:     %.4f [%.4f, %.4f]\n", f.ratio, f.low, f.high);
    TU_CHECK(significant(f) && f.low > 1.02, "a +3%% shift at n=11000: [%.4f, %.4f]", f.low, f.high);

    f = compare(1.2, 0.97, 11000);
    printf("-3%% at n=11000:     %.4f [%.4f, %.4f]\n", f.ratio, f.low, f.high);
    TU_CHECK(significant(f) && f.high < 0.98, "a -3%% shift at n=11000: [%.4f, %.4f]", f.low, f.high);

    f = compare(1000, 1.0012, 50);
    printf("+0.12%% of 1 us at n=50: %.4f [%.4f, %.4f]\n", f.ratio, f.low, f.high);
    TU_CHECK(significant(f), "a +0.12%% shift of a 1 us call (50 us samples) is not significant: [%.4f, %.4f]", f.low, f.high);

    printf("compare_resolution: %d failures\n", tu_failures);
    return tu_failures != 0;
}
