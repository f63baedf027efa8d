/* Contention and calibration under load (issue 27, items 3 and 4), on made-up samples so
   that no verdict depends on how busy the machine is:
     - bl__preempted: an involuntary switch, or a run delay over BL__PREEMPTED_DELAY_PCT
       of the sample, marks a sample preempted; a delay under it or unknown does not; the
       wait a sample adds to its benchmark's total is at most its wall time;
     - the rule (bl__leaves_out_preempted) and its application (bl__leave_out_preempted):
       preempted rounds leave every paired array alike, and only while at least half the
       rounds (and BL__MIN_SAMPLES) remain;
     - the jsonl record carries the counts, and null where the platform cannot tell;
     - bl__calibrate fed the samples of a busy machine (every sample preempted for 20 ms,
       twice --time-limit; or a first sample slowed 20 ms by a partner process, which this
       thread's run delay does not show) still reaches the timer floor, and says "short
       samples" when not even BL__CALIBRATION_FLOOR_LIMIT times the limit suffices;
     - a BL_SUSPEND body whose suspended part waits for a CPU: only the timed part's share
       of the wait comes off it, so calibration aims at the timer floor (issue 38);
     - a sample still short after calibration lengthens the ones after it, and a series
       of mostly short samples is marked;
     - a body that costs nothing (deleted or hoisted by the compiler) stops n at
       BL__MAX_ITERATIONS and is said to, where n grew past a uint64_t.
   It also prints what one reading of both contention sources costs here (the figure
   section I19 quotes); that is printed, never asserted. */
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "testutil.h"

/* A sample's wait, as added to its benchmark's total, is at most its wall time: a 30 ns
   sample whose readings around it waited 15 ms for a CPU waited 30 ns of its own. */
static void check_noted_wait(void) {
    bl__result r;
    bl__lost before = {0, 1000, 1}, after = {0, 1000 + 15000000, 1};
    memset(&r, 0, sizeof r);
    TU_CHECK(bl__note_lost(&r, 1, &before, &after, 30), "a 15 ms wait around a 30 ns sample is not preempted");
    TU_CHECK(r.run_delay_ns == 30, "the wait noted for a 30 ns sample is %g ns, not at most 30", r.run_delay_ns);
    after.delay_ns = before.delay_ns + 400;
    bl__note_lost(&r, 1, &before, &after, 50000);
    TU_CHECK(r.run_delay_ns == 430, "a 400 ns wait within a 50 us sample added %g ns, not 400", r.run_delay_ns - 30);
}

static void check_preempted(void) {
    bl__lost before = {10, 1000, 1}, after = {10, 1000, 1};
    TU_CHECK(!bl__preempted(&before, &after, 50000), "nothing lost is preempted");
    after.switches = 11;
    TU_CHECK(bl__preempted(&before, &after, 50000), "an involuntary switch is not preempted");
    after.switches = 10;
    after.delay_ns = before.delay_ns + 400; /* 0.8% of 50 us */
    TU_CHECK(!bl__preempted(&before, &after, 50000), "a wait of 0.8%% of the sample is preempted");
    after.delay_ns = before.delay_ns + 600; /* 1.2% */
    TU_CHECK(bl__preempted(&before, &after, 50000), "a wait of 1.2%% of the sample is not preempted");
    after.delay_known = 0;
    TU_CHECK(!bl__preempted(&before, &after, 50000), "an unknown run delay marks the sample preempted");
    check_noted_wait();
}

static void check_rule(void) {
    TU_CHECK(!bl__leaves_out_preempted(10, 0), "nothing to leave out");
    TU_CHECK(bl__leaves_out_preempted(10, 2), "2 of 10 preempted are kept");
    TU_CHECK(bl__leaves_out_preempted(10, 5), "5 of 10 (half left) are kept");
    TU_CHECK(!bl__leaves_out_preempted(10, 6), "6 of 10 preempted are left out: the run is busy throughout");
    TU_CHECK(!bl__leaves_out_preempted(4, 2), "2 left of 4 is under BL__MIN_SAMPLES, yet they are left out");
    TU_CHECK(bl__leaves_out_preempted(6, 3), "3 left of 6 is enough, yet none are left out");
}

/* A benchmark of 10 rounds whose sample i is 100 + i, the empty loop's 1 + i, the
   baseline's 50 + i, with rounds flagged as `flags` says. */
typedef struct {
    bl__result r;
    double samples[10], overhead[10], baseline[10];
    uint64_t iterations[10];
    unsigned char preempted[10];
} rounds10;

static void make_rounds(rounds10 *g, const char *flags) {
    size_t i;
    memset(g, 0, sizeof *g);
    for (i = 0; i < 10; i++) {
        g->samples[i] = 100 + (double)i;
        g->overhead[i] = 1 + (double)i;
        g->baseline[i] = 50 + (double)i;
        g->iterations[i] = 1000 + i;
        g->preempted[i] = flags[i] == 'x';
    }
    g->r.samples = g->samples;
    g->r.overhead_samples = g->overhead;
    g->r.baseline_samples = g->baseline;
    g->r.sample_iterations = g->iterations;
    g->r.sample_preempted = g->preempted;
    g->r.count = 10;
}

static void check_leave_out(void) {
    static const size_t kept_rounds[] = {0, 1, 3, 4, 5, 6, 7, 9};
    rounds10 g;
    size_t i;
    make_rounds(&g, "..x.....x.");
    bl__leave_out_preempted(&g.r);
    TU_CHECK(g.r.preempted == 2 && g.r.left_out == 2 && g.r.count == 8, "2 preempted of 10: preempted %lu, left out %lu, count %lu",
             (unsigned long)g.r.preempted, (unsigned long)g.r.left_out, (unsigned long)g.r.count);
    for (i = 0; i < 8 && g.r.count == 8; i++) {
        double round = (double)kept_rounds[i];
        TU_CHECK(g.samples[i] == 100 + round && g.overhead[i] == 1 + round && g.baseline[i] == 50 + round &&
                     g.iterations[i] == 1000 + kept_rounds[i],
                 "kept sample %lu is not round %lu in every array: %g %g %g %llu", (unsigned long)i,
                 (unsigned long)kept_rounds[i], g.samples[i], g.overhead[i], g.baseline[i], (unsigned long long)g.iterations[i]);
    }

    make_rounds(&g, "xx.xx.xx.x");
    bl__leave_out_preempted(&g.r);
    TU_CHECK(g.r.preempted == 7 && g.r.left_out == 0 && g.r.count == 10 && g.samples[9] == 109,
             "7 of 10 preempted: all kept and counted, got preempted %lu, left out %lu, count %lu",
             (unsigned long)g.r.preempted, (unsigned long)g.r.left_out, (unsigned long)g.r.count);
}

/* Most rounds preempted and kept: 40 rounds, every fourth (i % 4 == 1: 10 rounds, samples
   100 + i, median 119) not preempted, the others 300 + i. The figure is the busy machine's,
   and the interval reaches down to the unpreempted rounds' median; with none unpreempted,
   down to 0 (issue 38). */
#define WIDEN_ROUNDS 40
static void widen_rounds(bl__result *r, double *samples, unsigned char *preempted, int every_fourth_clean) {
    static double overhead[WIDEN_ROUNDS];
    static uint64_t iterations[WIDEN_ROUNDS];
    size_t i;
    memset(r, 0, sizeof *r);
    for (i = 0; i < WIDEN_ROUNDS; i++) {
        preempted[i] = !(every_fourth_clean && i % 4 == 1);
        samples[i] = (preempted[i] ? 300 : 100) + (double)i;
        overhead[i] = 1;
        iterations[i] = 1000;
    }
    r->samples = samples;
    r->overhead_samples = overhead;
    r->sample_iterations = iterations;
    r->sample_preempted = preempted;
    r->count = WIDEN_ROUNDS;
}

static void check_widen(void) {
    static const bl__bench bench = {"b", NULL, 0, NULL, NULL, 0, __FILE__, __LINE__, 0, NULL};
    double samples[WIDEN_ROUNDS];
    unsigned char preempted[WIDEN_ROUNDS];
    bl__instance in;
    bl__options o;
    bl__result r;
    char row[200];
    memset(&in, 0, sizeof in);
    in.bench = &bench;
    memset(&o, 0, sizeof o); /* subtract off: the figures are the samples as measured */

    widen_rounds(&r, samples, preempted, 1);
    r.instance = &in;
    r.involuntary_switches = 30; /* a busy machine: switched out in the preempted rounds */
    bl__leave_out_preempted(&r);
    TU_CHECK(r.preempted == 30 && r.left_out == 0, "30 of 40 preempted are kept: %lu, %lu left out",
             (unsigned long)r.preempted, (unsigned long)r.left_out);
    bl__time_figures(&r, NULL, &o);
    TU_CHECK(r.stats.median > 300, "the figure of the kept rounds: %g", r.stats.median);
    TU_CHECK(r.stats.median_ci_low == 119 && r.stats.median_ci_high > 300 && r.widened,
             "the interval reaches the unpreempted rounds' median 119: [%g, %g]", r.stats.median_ci_low,
             r.stats.median_ci_high);
    bl__table_contention(row, sizeof row, &r);
    TU_CHECK(strstr(row, "kept: most were; the interval reaches the unpreempted rounds' figure") != NULL,
             "the table's note: \"%s\"", row);

    widen_rounds(&r, samples, preempted, 1);
    r.instance = &in;
    r.involuntary_switches = 3; /* a pipe round trip: waited after every wake-up, seldom switched out */
    bl__leave_out_preempted(&r);
    bl__time_figures(&r, NULL, &o);
    TU_CHECK(!r.widened && r.stats.median_ci_low > 300, "a partner's wake-ups are not a busy machine: [%g, ...]",
             r.stats.median_ci_low);

    widen_rounds(&r, samples, preempted, 0);
    samples[7] = 120;
    r.instance = &in;
    r.involuntary_switches = 40;
    bl__leave_out_preempted(&r);
    bl__time_figures(&r, NULL, &o);
    TU_CHECK(r.stats.median_ci_low == 0, "every round preempted: down to 0 (nothing says what the code costs), got %g",
             r.stats.median_ci_low);

    widen_rounds(&r, samples, preempted, 0);
    memset(preempted, 0, sizeof preempted);
    r.instance = &in;
    bl__leave_out_preempted(&r);
    bl__time_figures(&r, NULL, &o);
    TU_CHECK(!r.widened && r.stats.median_ci_low > 300, "a quiet run's interval is its own: [%g, ...]",
             r.stats.median_ci_low);
}

/* The record's fields, written by the jsonl writer from a made-up result. */
static void check_record(void) {
    static const bl__bench bench = {"b", NULL, 0, NULL, NULL, 0, __FILE__, __LINE__, 0, NULL};
    bl__instance in;
    bl__options o;
    rounds10 g;
    FILE *f = tmpfile();
    char text[8192];
    size_t got;
    memset(&in, 0, sizeof in);
    in.bench = &bench;
    memset(&o, 0, sizeof o);
    make_rounds(&g, "..x.....x.");
    g.r.baseline_samples = NULL;
    g.r.instance = &in;
    bl__leave_out_preempted(&g.r);
    g.r.contention_known = 1;
    g.r.involuntary_switches = 5;
    g.r.run_delay_ns = 250000;
    g.r.spent_ns = 1000000;
    g.r.short_samples = 1;
    if (!f) { fprintf(stderr, "no tmpfile\n"); exit(2); }
    bl__jsonl_result(f, &o, &g.r);
    g.r.contention_known = 0;
    g.r.short_samples = 0;
    bl__jsonl_result(f, &o, &g.r);
    rewind(f);
    got = fread(text, 1, sizeof text - 1, f);
    text[got] = 0;
    fclose(f);
    {
        char row[160];
        g.r.contention_known = 1;
        g.r.short_samples = 1;
        g.r.iterations = 7;
        bl__table_contention(row, sizeof row, &g.r);
        TU_CHECK(strcmp(row, "  preempted 2 of 10 rounds (left out), waited for a CPU 25% of its time  short samples: 7 "
                             "iterations") == 0, "the table's note: \"%s\"", row);
        g.r.preempted = g.r.left_out = 0;
        g.r.short_samples = 0;
        bl__table_contention(row, sizeof row, &g.r);
        TU_CHECK(row[0] == 0, "a quiet row has a note: \"%s\"", row);
    }
    TU_CHECK(strstr(text, "\"short_samples\":true,\"sampled_ns\":1000000,\"preempted\":2,\"left_out\":2,"
                          "\"involuntary_switches\":5,\"run_delay_ns\":250000") != NULL,
             "the record's contention fields: %s", text);
    TU_CHECK(strstr(text, "\"short_samples\":false,\"sampled_ns\":1000000,\"preempted\":null,\"left_out\":null,"
                          "\"involuntary_switches\":null,\"run_delay_ns\":null") != NULL,
             "a platform that cannot tell writes null: %s", text);
}

/* A busy machine's calibration samples: the body costs 1 us an iteration, and every
   sample also waits `waited_ns` for a CPU (in its timed part and its wall time alike; the
   time it ran is the body's). */
static double waited_ns;
static double busy_sample(bl_body_fn body, uint64_t n, int64_t arg, double *wall_ns, double *ran_ns) {
    (void)body;
    (void)arg;
    *ran_ns = 1000.0 * (double)n;
    *wall_ns = *ran_ns + waited_ns;
    return *ran_ns; /* bl__calibration_sample's timed part, its wait taken out */
}

/* The first sample waits 20 ms on a partner process (a pipe's other end) that waited for a
   CPU: in its timed part and wall time, but not in this thread's run delay. */
static double partner_wait_ns;
static double partner_sample(bl_body_fn body, uint64_t n, int64_t arg, double *wall_ns, double *ran_ns) {
    double t = 1000.0 * (double)n + partner_wait_ns;
    (void)body;
    (void)arg;
    partner_wait_ns = 0;
    *ran_ns = *wall_ns = t;
    return t;
}

/* A BL_SUSPEND body on a busy machine: each sample's suspended setup takes 3 ms and its
   timed body 1 us an iteration, and the sample waits for a CPU as long again as it runs,
   spread over all of it, so its timed part as measured is twice the body's. The kernel
   tells the whole sample's wait; bl__timed_less_wait takes the timed part's share off. */
static double suspend_sample(bl_body_fn body, uint64_t n, int64_t arg, double *wall_ns, double *ran_ns) {
    double timed = 1000.0 * (double)n, ran = timed + 3e6, waited = ran;
    (void)body;
    (void)arg;
    *ran_ns = ran;
    *wall_ns = ran + waited;
    return bl__timed_less_wait(2 * timed, *wall_ns, waited);
}

/* A body the compiler deleted or hoisted out of the loop: every sample takes 30 ns,
   whatever n (the timer reads and the call). `nothing_calls` counts the samples. */
static int nothing_calls;
static double nothing_sample(bl_body_fn body, uint64_t n, int64_t arg, double *wall_ns, double *ran_ns) {
    (void)body;
    (void)n;
    (void)arg;
    nothing_calls++;
    *ran_ns = *wall_ns = 30;
    return 30;
}

static void check_calibration(void) {
    double spent = 0, floor_ns;
    int short_samples = -1;
    uint64_t n;
    bl__clock.resolution_ns = 20;
    floor_ns = BL__RESOLUTION_FACTOR * bl__clock.resolution_ns;

    waited_ns = 0; /* quiet: the share of the time (50 us) decides */
    n = bl__calibrate(busy_sample, NULL, 0, 50000, 10e6, &spent, &short_samples);
    TU_CHECK(n >= 50 && n < 200 && !short_samples, "quiet: n = %llu (want 50 to 200), short %d", (unsigned long long)n, short_samples);

    waited_ns = 20e6; /* every sample preempted for twice the 10 ms limit */
    spent = 0;
    n = bl__calibrate(busy_sample, NULL, 0, 50000, 10e6, &spent, &short_samples);
    TU_CHECK(1000.0 * (double)n >= floor_ns && !short_samples,
             "busy: n = %llu gives %g ns timed, under the floor of %g ns (short %d)", (unsigned long long)n,
             1000.0 * (double)n, floor_ns, short_samples);
    TU_CHECK(1000.0 * (double)n < 2 * floor_ns, "busy: n = %llu aims past the floor, at the share of the time too",
             (unsigned long long)n);

    waited_ns = 0; /* a partner process's wait (invisible in this thread's run delay) slows the first sample */
    partner_wait_ns = 20e6;
    spent = 0;
    n = bl__calibrate(partner_sample, NULL, 0, 50000, 10e6, &spent, &short_samples);
    TU_CHECK(1000.0 * (double)n >= floor_ns && !short_samples,
             "a partner's wait: n = %llu gives %g ns timed, under the floor of %g ns (short %d)", (unsigned long long)n,
             1000.0 * (double)n, floor_ns, short_samples);

    /* BL_SUSPEND on a busy machine: the body's own time is found (1 us an iteration, not 0),
       and n aims at the timer floor, where taking the whole wait off the timed part gave 0
       until n was past 3 ms of body (issue 38: ~111 million iterations of a real one). */
    TU_CHECK(bl__timed_less_wait(2e4, 12e6, 6e6) == 1e4, "the timed part's share of the wait: %g, want 1e4",
             bl__timed_less_wait(2e4, 12e6, 6e6));
    TU_CHECK(bl__timed_less_wait(5e6, 4e6, 1e6) == 4e6, "a timed part over the wall time loses all the wait: %g",
             bl__timed_less_wait(5e6, 4e6, 1e6));
    spent = 0;
    n = bl__calibrate(suspend_sample, NULL, 0, 50000, 10e6, &spent, &short_samples);
    TU_CHECK(1000.0 * (double)n >= floor_ns && 1000.0 * (double)n < 3 * floor_ns && !short_samples,
             "BL_SUSPEND, busy: n = %llu (%g ns of body), want the floor %g ns to 3x it (short %d)",
             (unsigned long long)n, 1000.0 * (double)n, floor_ns, short_samples);

    waited_ns = 200e6; /* each sample over BL__CALIBRATION_FLOOR_LIMIT times the limit */
    spent = 0;
    n = bl__calibrate(busy_sample, NULL, 0, 50000, 10e6, &spent, &short_samples);
    TU_CHECK(short_samples == BL__SHORT_BUSY, "hopeless: %llu iterations (%g ns timed) not marked short",
             (unsigned long long)n, 1000.0 * (double)n);

    /* A body that costs nothing: n stops at BL__MAX_ITERATIONS, said as such, after the dozen
       tenfold steps to it, not after 10x the limit of samples wrapping past a uint64_t. */
    spent = 0;
    n = bl__calibrate(nothing_sample, NULL, 0, 50000, 10e6, &spent, &short_samples);
    TU_CHECK((double)n == BL__MAX_ITERATIONS && short_samples == BL__SHORT_NOTHING,
             "a body that costs nothing: n = %llu (want 2^40), short %d (want %d)", (unsigned long long)n,
             short_samples, BL__SHORT_NOTHING);
    TU_CHECK(nothing_calls <= 14, "a body that costs nothing took %d calibration samples (want at most 14)",
             nothing_calls);
}

/* Samples short against the timer after calibration: the next ones are lengthened past
   the floor, and a series whose samples are mostly short is marked. */
static void check_short_samples(void) {
    rounds10 g;
    size_t i;
    bl__clock.resolution_ns = 10; /* floor 10 us; short below 9.5 us */
    TU_CHECK(bl__lengthened(1, 6000) == 3, "1 iteration of 6 us lengthens to %llu, want 3 (1.2 x 10/6, +1)",
             (unsigned long long)bl__lengthened(1, 6000));
    TU_CHECK(bl__lengthened(1, 100) == 11, "a 100 ns sample grows at most 10x: %llu", (unsigned long long)bl__lengthened(1, 100));
    TU_CHECK((double)bl__lengthened((uint64_t)BL__MAX_ITERATIONS / 2, 100) == BL__MAX_ITERATIONS,
             "a short sample at half of BL__MAX_ITERATIONS lengthens to %llu, past the cap",
             (unsigned long long)bl__lengthened((uint64_t)BL__MAX_ITERATIONS / 2, 100));
    make_rounds(&g, "..........");
    for (i = 0; i < 10; i++) g.iterations[i] = i < 5 ? 1000 : 50; /* 100 us, or 5 us */
    TU_CHECK(!bl__mostly_short(&g.r), "5 short samples of 10 make the series short");
    g.iterations[4] = 50;
    TU_CHECK(bl__mostly_short(&g.r), "6 short samples of 10 do not make the series short");
}

/* What one reading of both sources costs: printed for section I19's comment. */
static void print_read_cost(void) {
    enum { READS = 20000 };
    bl__lost lost;
    uint64_t start, end;
    int i, known = 1;
    bl__setup_timer();
    start = bl__clock_ns();
    for (i = 0; i < READS; i++) known &= bl__lost_read(&lost);
    end = bl__clock_ns();
    if (!known) {
        printf("contention: not measured on this platform\n");
        return;
    }
    printf("contention: one reading of getrusage(RUSAGE_THREAD) and schedstat (%s) costs %.2f us (mean of %d)\n",
           lost.delay_known ? "readable" : "not readable", (double)(end - start) / READS / 1000, READS);
#if defined(__linux__)
    TU_CHECK(known, "getrusage(RUSAGE_THREAD) failed on Linux");
#endif
}

int main(void) {
    check_preempted();
    check_rule();
    check_leave_out();
    check_record();
    check_widen();
    check_calibration();
    check_short_samples();
    print_read_cost();
    if (tu_failures) fprintf(stderr, "%d check(s) failed\n", tu_failures);
    return tu_failures != 0;
}
