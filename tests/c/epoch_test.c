/* B63's epochs and the dialects' exact sample counts (issue 38, "The seeds' meanings"), on
   a made-up clock (BL__TEST_CLOCK) that only the bodies below move, so that no count
   depends on how busy the machine is:
     - an epoch (bl__epoch) doubles its batches from 1 until its wall time, BL_SUSPEND
       included, passes its budget: 2^k - 1 iterations, as B63 counts them; counting the
       timed part alone would run 16383 iterations, not 4095, and take 1.6 ms of a 1 ms
       budget's suspended work four times over;
     - a body the compiler emptied stops at B63's bound, 2^31 iterations (2^32 - 1 in all);
     - B63's dialect without benchlab's sampling flags takes B63's defaults (30 epochs,
       1 s), and --samples, --time-limit or --precision give benchlab's sampling back;
       libloong's -s N is exact;
     - the time pass's rounds take exactly -e N epochs though their wall time passes
       -t (without the exact count: 17 of 30), each of 2^k - 1 iterations, and a counter
       pass takes the same N at the same iterations. */
#define BL__TEST_CLOCK test_clock_ns
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "testutil.h"

static uint64_t now_ns;
static uint64_t test_clock_ns(void) { return now_ns; }

/* The benchmark: 100 ns an iteration, and a BL_SUSPEND block of `setup_ns` per call (B63's
   README's with_suspend: setup on every call, outside the figure, inside the time). */
static uint64_t setup_ns;
static uint64_t calls;
static uint64_t read_calls(void) { return calls; }
BL_COUNTER(calls, "calls", read_calls)

static void own_body(bl_state *bl__state, uint64_t n, int64_t arg) {
    (void)arg;
    BL_SUSPEND { now_ns += setup_ns; }
    now_ns += 100 * n;
    calls += n;
}

static void empty_body(bl_state *state, uint64_t n, int64_t arg) {
    (void)state;
    (void)arg;
    now_ns += n;
}

/* A batch of a body that does nothing: no time at all. */
static double instant_batch(bl_body_fn body, uint64_t n, int64_t arg, double *wall_ns) {
    (void)body;
    (void)n;
    (void)arg;
    *wall_ns = 0;
    return 0;
}

static void check_epoch(void) {
    double timed, wall;
    uint64_t n;
    setup_ns = 50000;
    /* batch k (n = 2^(k-1)) ends at k x 50 us + 100 ns x (2^k - 1): past 1 ms at k = 12 */
    n = bl__epoch(bl__sample_ns, own_body, 0, 1e6, &timed, &wall);
    TU_CHECK(n == 4095, "an epoch of 1 ms ran %llu iterations, want 4095 (2^12 - 1)", (unsigned long long)n);
    TU_CHECK(timed == 409500, "its timed part is %g ns, want 409500 (BL_SUSPEND left out)", timed);
    TU_CHECK(wall == 1009500, "its wall time is %g ns, want 1009500 (BL_SUSPEND counted)", wall);
    n = bl__epoch(instant_batch, own_body, 0, 1e6, &timed, &wall);
    TU_CHECK(n == 4294967295u, "an empty body's epoch ran %llu iterations, want 2^32 - 1 (past 2^31)",
             (unsigned long long)n);
}

static bl__options options_of(int dialect, const char *const *flags, size_t count) {
    bl__options o;
    char *argv[8];
    size_t i;
    argv[0] = (char *)"program";
    for (i = 0; i < count; i++) argv[i + 1] = (char *)flags[i];
    TU_CHECK(bl__parse_options((int)count + 1, argv, bl__dialect_names[dialect], &o) == 0, "flags refused");
    free((void *)o.filters);
    return o;
}

static void check_dialect_sampling(void) {
    static const char *const none[] = {"--format=jsonl"};
    static const char *const b63[] = {"-e", "7", "-t", "2"};
    static const char *const b63_long[] = {"-e", "7", "--time-limit=2"};
    static const char *const loong[] = {"-s", "200"};
    bl__options o = options_of(BL__B63, none, 1);
    TU_CHECK(o.epochs && o.exact_samples && o.samples == 30 && o.time_limit_s == 1 && o.precision_pct == 0,
             "B63's defaults: epochs %d exact %d, %lu samples in %g s, precision %g", o.epochs, o.exact_samples,
             (unsigned long)o.samples, o.time_limit_s, o.precision_pct);
    o = options_of(BL__B63, b63, 4);
    TU_CHECK(o.epochs && o.samples == 7 && o.time_limit_s == 2, "-e 7 -t 2: %lu epochs in %g s",
             (unsigned long)o.samples, o.time_limit_s);
    o = options_of(BL__B63, b63_long, 3);
    TU_CHECK(!o.epochs && !o.exact_samples && o.samples == 7, "--time-limit still samples as B63");
    o = options_of(BL__CSB, none, 1);
    TU_CHECK(!o.epochs && !o.exact_samples, "CSB's dialect samples as B63");
    o = options_of(BL__LIBLOONG, loong, 2);
    TU_CHECK(!o.epochs && o.exact_samples && o.samples == 200, "libloong's -s 200 is not exact");
    o = options_of(BL__LIBLOONG, none, 1);
    TU_CHECK(!o.exact_samples, "libloong without -s has an exact count");
}

/* 30 epochs of 10 ms / 30 = 333 us: each runs batches of 1 and 2 (300 us of setup each),
   3 iterations in 600 us, so the rounds pass 10 ms at the 17th. */
static void check_rounds(void) {
    bl__bench bench;
    bl__instance in;
    bl__result empty, own, *series[2];
    bl__rounds g;
    bl__options o;
    bl__counter_set set;
    bl__pass p;
    bl__rerun q;
    bl__result res[BL__MAX_COUNTERS];
    uint64_t rng = 1;
    size_t i, odd = 0;
    setup_ns = 300000;
    memset(&o, 0, sizeof o);
    o.samples = 30;
    o.samples_given = 1;
    o.time_limit_s = 0.01;
    o.epochs = o.exact_samples = 1;
    memset(&bench, 0, sizeof bench);
    memset(&in, 0, sizeof in);
    bench.name = "own";
    bench.body = own_body;
    in.bench = &bench;
    bl__init_series(&empty, NULL);
    empty.body = empty_body;
    bl__init_series(&own, &in);
    series[0] = &empty;
    series[1] = &own;
    g.series = series;
    g.count = 2;
    g.baseline = NULL;
    g.max_samples = o.samples;
    TU_CHECK(bl__sample_rounds(&g, &o, &rng), "out of memory");
    TU_CHECK(own.count == 30 && own.stopped && !strcmp(own.stopped, "samples"),
             "%lu epochs, stopped \"%s\": want exactly 30, \"samples\"", (unsigned long)own.count,
             own.stopped ? own.stopped : "(null)");
    TU_CHECK(own.spent_ns == 30 * 600300.0, "the epochs took %g ns of wall time, want 30 x 600300", own.spent_ns);
    for (i = 0; i < own.count; i++) odd += own.sample_iterations[i] != 3 || own.samples[i] != 100;
    TU_CHECK(odd == 0, "%lu epochs are not 3 iterations of 100 ns", (unsigned long)odd);
    /* the empty loop's epochs: a tenth of the budget, 33.3 us at 1 ns an iteration */
    TU_CHECK(empty.sample_iterations[0] == 65535, "the empty loop's epoch ran %llu iterations, want 65535",
             (unsigned long long)empty.sample_iterations[0]);

    /* A counter pass, as bl__count_instance sets one up in B63's dialect. */
    memset(&set, 0, sizeof set);
    memset(&p, 0, sizeof p);
    memset(&q, 0, sizeof q);
    memset(res, 0, sizeof res);
    TU_CHECK(bl__parse_counter("calls", &set.items[0]) && set.items[0].kind == BL__C_USER, "the user counter");
    set.count = 1;
    p.set = &set;
    p.kind = BL__C_USER;
    p.count = 1;
    q.body = own_body;
    q.iterations = own.iterations;
    q.samples = o.samples;
    q.time_limit_s = o.time_limit_s;
    q.exact = 1;
    q.epoch_iterations = own.sample_iterations;
    q.epoch_count = own.count;
    TU_CHECK(bl__measure_pass(&p, &q, &rng, res), "out of memory");
    TU_CHECK(res[0].count == 30, "the counter pass took %lu samples, want 30", (unsigned long)res[0].count);
    for (i = 0, odd = 0; i < res[0].count; i++) odd += res[0].sample_iterations[i] != 3;
    TU_CHECK(odd == 0, "%lu of the pass's samples are not the epochs' 3 iterations", (unsigned long)odd);
    bl__free_result(&res[0]);
    bl__free_result(&empty);
    bl__free_result(&own);
}

int main(void) {
    bl__clock.use_tsc = 0; /* every read goes to test_clock_ns */
    bl__clock.ns_per_tick = 1;
    bl__clock.resolution_ns = 1;
    bl__clock.name = "test clock";
    check_epoch();
    check_dialect_sampling();
    check_rounds();
    if (tu_failures) fprintf(stderr, "%d check(s) failed\n", tu_failures);
    else printf("epochs: B63's doubling within wall time, exact counts in the time pass and a counter pass\n");
    return tu_failures != 0;
}
