/* The stop rule (bl__stop_reason) as both sampling loops apply it, on a made-up clock, so
   that no count depends on how busy the machine is. BL__TEST_CLOCK makes the clock a
   variable that only the bodies below move: a sample of the benchmark costs exactly
   what its case says, whatever n calibration chose. Each case runs the time pass's
   rounds (bl__sample_rounds) and a counter pass (bl__measure_pass) on the same body,
   limit and --samples, and both must stop at the same count for the same reason. The
   cases are chosen so that every other way of counting gives another count:
     - only the timed part counted, not BL_SUSPEND blocks: 84 samples, not 34;
     - calibration or a pass's warm-up counted: fewer than 34;
     - the baseline's samples counted beside the benchmark's: 13, not 34;
     - no BL__MIN_SAMPLES_AT_LIMIT: 4 slow samples, not 10;
     - the time limit before --samples when both hold: "time limit", not "samples".
   And the rule itself on its inputs, "precision" included (the time pass's alone). */
#define BL__TEST_CLOCK test_clock_ns
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "testutil.h"

static uint64_t now_ns;
static uint64_t test_clock_ns(void) { return now_ns; }

#define LIMIT_S 0.01      /* --time-limit: 10 ms of the made-up clock */
#define EMPTY_NS 100000    /* the empty loop's sample */
#define BASELINE_NS 500000 /* the baseline's sample */

/* What one sample of the benchmark costs: its timed part and its BL_SUSPEND block. Every
   body's sample costs the same whatever n, and at least the 50 us a sample is calibrated
   to, so that calibration takes its two samples and stops (a body that never reached it
   would have its n grown until the time limit). */
static uint64_t timed_ns, suspended_ns;

/* A user counter, so that a counter pass has something to count: 1 per iteration. */
static uint64_t calls;
static uint64_t read_calls(void) { return calls; }
BL_COUNTER(calls, "calls", read_calls)

static void own_body(bl_state *bl__state, uint64_t n, int64_t arg) {
    (void)arg;
    BL_SUSPEND { now_ns += suspended_ns; }
    now_ns += timed_ns;
    calls += n;
}

static void baseline_body(bl_state *state, uint64_t n, int64_t arg) {
    (void)state;
    (void)n;
    (void)arg;
    now_ns += BASELINE_NS;
}

static void empty_body(bl_state *state, uint64_t n, int64_t arg) {
    (void)state;
    (void)n;
    (void)arg;
    now_ns += EMPTY_NS;
}

typedef struct stop_case {
    const char *what;
    uint64_t timed_ns, suspended_ns;
    size_t samples; /* --samples */
    int compared;   /* with a baseline beside it */
    size_t want_count;
    const char *want_stopped;
} stop_case;

static const stop_case cases[] = {
    {"0.3 ms samples (0.18 of it suspended) reach 10 ms at the 34th", 120000, 180000, 1000, 0, 34, "time limit"},
    {"the same beside a baseline of 0.5 ms samples", 120000, 180000, 1000, 1, 34, "time limit"},
    {"3 ms samples: the limit waits for 10 samples", 1000000, 2000000, 1000, 0, 10, "time limit"},
    {"3 ms samples beside a baseline", 1000000, 2000000, 1000, 1, 10, "time limit"},
    {"--samples=20 comes before the limit", 120000, 180000, 20, 0, 20, "samples"},
    {"--samples=34 and the limit at once: samples", 120000, 180000, 34, 1, 34, "samples"},
};

static bl__options case_options(const stop_case *c) {
    bl__options o;
    memset(&o, 0, sizeof o);
    o.samples = c->samples;
    o.samples_given = 0; /* samples of 50 us to calibrate to, whatever --samples (bl__sample_target_ns) */
    o.time_limit_s = LIMIT_S;
    o.precision_pct = 0;
    return o;
}

/* The time pass: the empty loop, the baseline when compared, the benchmark. */
static void run_time_pass(const stop_case *c, size_t *count, const char **stopped) {
    bl__bench own_bench, base_bench;
    bl__instance own_in, base_in;
    bl__result empty, base, own, *series[3];
    bl__rounds g;
    bl__options o = case_options(c);
    uint64_t rng = 1;
    memset(&own_bench, 0, sizeof own_bench);
    memset(&base_bench, 0, sizeof base_bench);
    memset(&own_in, 0, sizeof own_in);
    memset(&base_in, 0, sizeof base_in);
    own_bench.name = "own";
    own_bench.body = own_body;
    base_bench.name = "baseline";
    base_bench.body = baseline_body;
    base_bench.is_baseline = 1;
    own_in.bench = &own_bench;
    base_in.bench = &base_bench;
    bl__init_series(&empty, NULL);
    empty.body = empty_body;
    bl__init_series(&base, &base_in);
    bl__init_series(&own, &own_in);
    g.count = 0;
    series[g.count++] = &empty;
    if (c->compared) series[g.count++] = &base;
    series[g.count++] = &own;
    g.series = series;
    g.baseline = c->compared ? &base : NULL;
    g.max_samples = c->samples;
    TU_CHECK(bl__sample_rounds(&g, &o, &rng), "%s: out of memory", c->what);
    *count = own.count;
    *stopped = own.stopped;
    bl__free_result(&empty);
    bl__free_result(&base);
    bl__free_result(&own);
}

/* A counter pass of the user counter, as bl__count_instance sets one up. */
static void run_counter_pass(const stop_case *c, size_t *count, const char **stopped) {
    bl__counter_set set;
    bl__pass p;
    bl__rerun q;
    bl__result res[BL__MAX_COUNTERS];
    uint64_t rng = 1;
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
    q.base_body = c->compared ? baseline_body : NULL;
    q.iterations = q.base_iterations = 1000;
    q.samples = c->samples;
    q.time_limit_s = LIMIT_S;
    TU_CHECK(bl__measure_pass(&p, &q, &rng, res), "%s: out of memory", c->what);
    *count = res[0].count;
    *stopped = res[0].stopped;
    TU_CHECK(res[0].stats.median == 1, "%s: the pass counted %g per iteration, want 1", c->what, res[0].stats.median);
    bl__free_result(&res[0]);
}

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

static void check_case(const stop_case *c) {
    size_t count;
    const char *stopped;
    timed_ns = c->timed_ns;
    suspended_ns = c->suspended_ns;
    run_time_pass(c, &count, &stopped);
    TU_CHECK(count == c->want_count && same(stopped, c->want_stopped), "time pass, %s: %lu samples, stopped \"%s\" (want %lu, \"%s\")",
             c->what, (unsigned long)count, stopped ? stopped : "(null)", (unsigned long)c->want_count, c->want_stopped);
    run_counter_pass(c, &count, &stopped);
    TU_CHECK(count == c->want_count && same(stopped, c->want_stopped), "counter pass, %s: %lu samples, stopped \"%s\" (want %lu, \"%s\")",
             c->what, (unsigned long)count, stopped ? stopped : "(null)", (unsigned long)c->want_count, c->want_stopped);
}

/* The rule on its inputs: the first of samples, time limit, precision that holds. */
static void check_rule(void) {
    const double limit_ns = LIMIT_S * 1e9;
    TU_CHECK(bl__stop_reason(9, 1000, limit_ns, LIMIT_S, 0) == NULL, "9 samples stopped at the limit");
    TU_CHECK(same(bl__stop_reason(10, 1000, limit_ns, LIMIT_S, 0), "time limit"), "10 samples at the limit go on");
    TU_CHECK(bl__stop_reason(10, 1000, limit_ns - 1, LIMIT_S, 0) == NULL, "stopped 1 ns before the limit");
    TU_CHECK(same(bl__stop_reason(5, 5, 0, LIMIT_S, 0), "samples"), "--samples=5 goes on after 5");
    TU_CHECK(same(bl__stop_reason(5, 5, limit_ns, LIMIT_S, 1), "samples"), "samples is not the first reason");
    TU_CHECK(same(bl__stop_reason(20, 1000, limit_ns, LIMIT_S, 1), "time limit"), "time limit is not before precision");
    TU_CHECK(same(bl__stop_reason(20, 1000, 0, LIMIT_S, 1), "precision"), "a precise benchmark goes on");
    TU_CHECK(same(bl__stop_reason(0, 0, 0, LIMIT_S, 0), "samples"), "a pass asked for 0 samples would take one");
}

int main(void) {
    size_t i;
    bl__clock.use_tsc = 0; /* every read goes to test_clock_ns */
    bl__clock.ns_per_tick = 1;
    bl__clock.resolution_ns = 1; /* a timer floor of 1 us, under every sample here */
    bl__clock.name = "test clock";
    check_rule();
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) check_case(&cases[i]);
    if (tu_failures) fprintf(stderr, "%d check(s) failed\n", tu_failures);
    else printf("stop rule: %lu cases, the time pass and a counter pass stop alike\n",
                (unsigned long)(sizeof cases / sizeof cases[0]));
    return tu_failures != 0;
}
