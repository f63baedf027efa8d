/* The threaded mode, checked on what must hold whatever the machine's load:
   - histogram: on synthetic values of every magnitude, each value falls inside its
     bucket, buckets tile uint64 without gaps, and a bucket's midpoint is within 1/64
     (1.6%, under the 3% the issue allows) of any value in it; quantiles of a known
     uniform set are within that bound too.
   - a run of a two-operation target at -t=2 with -op0=256 -op1=768: the per-op counts,
     successes and skips the harness reports equal what the target's own dispatch
     counted (exactly); op0's share is within 6 standard deviations of 1/4 (binomial);
     the per-thread counts add up to the total; init saw -s and ran once, destroy once;
     throughput is operations over seconds (per thread, their sum, CSB's min and max).
   - a one-operation target (the loop's path without a draw, counts kept in registers)
     and the same with nops (the path with a draw): counts, successes and skips exact.
   - which operations are timed: by default some and at most all (the first of each
     batch); --latency-every=1 all; --latency-every=3 exactly floor(ops / 3) of each
     thread's operations; --latency-every=0 none.
   - --format=csb: one key=val; line with CSB's keys; CSB's 60 bucket bounds (99, 209,
     330, ... 293990, from its formula) and its comparison, in ticks and converted to ns;
     by default every operation timed, each histogram adding up to its count exactly and
     holding the minimum in its first non-empty bucket and the maximum in its last;
     latency_unit, ticks_to_ms and latency_every say what the line holds.
   - -n=N runs exactly N nops per operation (counted through BL__NOP), with one operation
     and with a mix; --random-nops 0..N, their mean N/2 within 6 standard deviations;
     bl_nops(100) in an operation (CSB's bm_empty) adds exactly 100 per operation.
   usage: threads_test [SCRATCH_PREFIX] */
#include <stdint.h>
/* Every nop the harness (and bl_nops) runs, counted instead of executed. */
static uint64_t nops_run;
#define BL__NOP() __atomic_fetch_add(&nops_run, 1, __ATOMIC_RELAXED)
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "testutil.h"

typedef struct { uint64_t calls[2], ok[2], skipped[2]; } thread_state;
static uint64_t calls[2], oks[2], skips[2];
static int inits, destroys, registered;
static uint64_t seen_size;

static void init(uint64_t size) { inits++; seen_size = size; }
static void destroy(void) { destroys++; }
static void *register_thread(size_t index) {
    (void)index;
    __atomic_fetch_add(&registered, 1, __ATOMIC_RELAXED);
    return calloc(1, sizeof(thread_state));
}
static int dispatch(size_t op, void *ctx) {
    thread_state *t = (thread_state *)ctx;
    uint64_t c = t->calls[op]++;
    if (op == 1 && c % 5 == 4) { t->skipped[op]++; return BL_OP_SKIPPED; }
    if (op == 1 && c % 3 == 2) return BL_OP_FAILED;
    t->ok[op]++;
    return BL_OP_OK;
}
static void deregister_thread(void *ctx) {
    thread_state *t = (thread_state *)ctx;
    int k;
    for (k = 0; k < 2; k++) {
        __atomic_fetch_add(&calls[k], t->calls[k], __ATOMIC_RELAXED);
        __atomic_fetch_add(&oks[k], t->ok[k], __ATOMIC_RELAXED);
        __atomic_fetch_add(&skips[k], t->skipped[k], __ATOMIC_RELAXED);
    }
    free(t);
}
BL_TARGET(two_ops, init, register_thread, dispatch, deregister_thread, destroy, "a", "b")

/* One operation that fails one call in 3 and skips one in 7 (of each thread's calls),
   so that wrong success or skip counts show. */
static int one_dispatch(size_t op, void *ctx) {
    thread_state *t = (thread_state *)ctx;
    uint64_t c = t->calls[op]++;
    if (c % 7 == 6) { t->skipped[op]++; return BL_OP_SKIPPED; }
    if (c % 3 == 2) return BL_OP_FAILED;
    t->ok[op]++;
    return BL_OP_OK;
}
BL_TARGET(one_op, NULL, register_thread, one_dispatch, deregister_thread, NULL, "only")

/* CSB's bm_empty: 100 nops in the operation. */
static int hundred_nops(size_t op, void *ctx) {
    (void)op, (void)ctx;
    bl_nops(100);
    return BL_OP_OK;
}
BL_TARGET(bm_empty_like, NULL, NULL, hundred_nops, NULL, NULL, "nop")

/* CSB's bucket bounds, computed apart from the header (Python, CSB's formula: the next
   bound is the last plus int(1.1 x the last bucket's width)): the first eight, the last. */
static const uint64_t csb_first_bounds[8] = {99, 209, 330, 463, 609, 769, 945, 1138};
#define CSB_LAST_BOUND 293990u

static void check_csb_buckets(void) {
    uint64_t bound[BL__CSB_BUCKETS], ns_bound[BL__CSB_BUCKETS];
    static const double ns_per_tick[] = {1.0, 0.385, 0.4, 3.3};
    unsigned i, j;
    bl__csb_bounds(bound);
    for (i = 0; i < 8; i++)
        TU_CHECK(bound[i] == csb_first_bounds[i], "CSB bound %u is %llu, want %llu", i, (unsigned long long)bound[i],
                 (unsigned long long)csb_first_bounds[i]);
    TU_CHECK(bound[BL__CSB_BUCKETS - 1] == CSB_LAST_BOUND, "CSB's last bound is %llu, want %u",
             (unsigned long long)bound[BL__CSB_BUCKETS - 1], CSB_LAST_BOUND);
    /* CSB's comparison, latency <= bound: the bound itself in, one more out */
    TU_CHECK(bl__csb_bucket(0, bound) == 0 && bl__csb_bucket(99, bound) == 0 && bl__csb_bucket(100, bound) == 1 &&
             bl__csb_bucket(209, bound) == 1 && bl__csb_bucket(210, bound) == 2, "CSB buckets at 0, 99, 100, 209, 210");
    TU_CHECK(bl__csb_bucket(CSB_LAST_BOUND, bound) == 59 && bl__csb_bucket(UINT64_MAX, bound) == 59,
             "the last bucket holds everything beyond");
    /* In ns: a latency of t ticks is in the bucket of the ns value the line prints. */
    for (j = 0; j < sizeof ns_per_tick / sizeof ns_per_tick[0]; j++) {
        uint64_t t;
        bl__csb_tick_bounds(ns_bound, 1, ns_per_tick[j]);
        for (t = 0; t < 900000; t += 1 + t / 1000) {
            unsigned b = bl__csb_bucket(t, ns_bound), want = bl__csb_bucket(bl__csb_ns_of(t, ns_per_tick[j]), bound);
            if (b != want) {
                TU_CHECK(0, "%g ns/tick: %llu ticks (%llu ns) in bucket %u, want %u", ns_per_tick[j],
                         (unsigned long long)t, (unsigned long long)bl__csb_ns_of(t, ns_per_tick[j]), b, want);
                break;
            }
        }
    }
}

static void check_histogram(void) {
    uint64_t rng = 12345, *h;
    unsigned i;
    long k;
    for (i = 0; i + 1 < BL__HIST_BUCKETS; i++)
        TU_CHECK(bl__hist_high(i) + 1 == bl__hist_low(i + 1), "bucket %u ends at %llu, next starts at %llu", i,
                 (unsigned long long)bl__hist_high(i), (unsigned long long)bl__hist_low(i + 1));
    TU_CHECK(bl__hist_high(BL__HIST_BUCKETS - 1) == UINT64_MAX, "the last bucket does not reach UINT64_MAX");
    for (k = 0; k < 2000000; k++) {
        uint64_t v = k < 100000 ? (uint64_t)k : bl_random(&rng) >> (bl_random(&rng) % 64);
        unsigned b = bl__hist_index(v);
        double mid = bl__hist_mid(b), err = v ? (mid > (double)v ? mid - (double)v : (double)v - mid) / (double)v : mid;
        if (b >= BL__HIST_BUCKETS || v < bl__hist_low(b) || v > bl__hist_high(b) || err > BL__HIST_MAX_ERROR) {
            TU_CHECK(0, "value %llu: bucket %u [%llu, %llu], midpoint error %g", (unsigned long long)v, b,
                     (unsigned long long)bl__hist_low(b), (unsigned long long)bl__hist_high(b), err);
            break;
        }
    }
    TU_CHECK(BL__HIST_MAX_ERROR < 0.03, "bucket error bound %g is not under 3%%", BL__HIST_MAX_ERROR);
    /* 1..1000000 once each: the true p-quantile (nearest rank) is p * 1e6. */
    h = (uint64_t *)calloc(BL__HIST_BUCKETS, sizeof(uint64_t));
    if (!h) exit(2);
    for (k = 1; k <= 1000000; k++) h[bl__hist_index((uint64_t)k)]++;
    {
        const double ps[] = {0.5, 0.9, 0.99, 0.999};
        for (i = 0; i < 4; i++) {
            double q = bl__hist_quantile(h, 1000000, ps[i], 1, 1000000), want = ps[i] * 1e6;
            TU_CHECK((q > want ? q - want : want - q) / want <= BL__HIST_MAX_ERROR, "p%g: %g, want %g within 1.6%%",
                     ps[i] * 100, q, want);
        }
    }
    free(h);
}

/* bl_main on `target` at -t=2 for 0.3 s with the extra flags (up to 4, NULL-ended);
   the target's own counts start from zero. */
static int run(const char *out, const char *format, const char *target, const char *const *extra) {
    char flag_out[600], flag_format[64], flag_filter[64];
    char *argv[16];
    int argc = 0;
    calls[0] = calls[1] = oks[0] = oks[1] = skips[0] = skips[1] = 0;
    snprintf(flag_out, sizeof flag_out, "--out=%s", out);
    snprintf(flag_format, sizeof flag_format, "--format=%s", format);
    snprintf(flag_filter, sizeof flag_filter, "--filter=%s", target);
    argv[argc++] = (char *)"threads_test";
    argv[argc++] = (char *)"-t=2";
    argv[argc++] = (char *)"-d=0.3";
    argv[argc++] = (char *)"--seed=5";
    argv[argc++] = flag_filter;
    argv[argc++] = flag_format;
    argv[argc++] = flag_out;
    while (extra && *extra && argc < 15) argv[argc++] = (char *)*extra++;
    argv[argc] = NULL;
    return bl_main(argc, argv);
}

static double field_after(const char *text, const char *anchor, const char *key) {
    const char *p = strstr(text, anchor);
    if (!p) { TU_CHECK(0, "no %s in the output", anchor); return -1; }
    return tu_number(p, key);
}

/* The per-operation counts of the record equal what dispatch itself counted: exactly. */
static void check_counts(const char *text, int ops, const char *run_name) {
    int k;
    double total = 0;
    for (k = 0; k < ops; k++) {
        char anchor[32];
        snprintf(anchor, sizeof anchor, "{\"op\":%d,", k);
        TU_CHECK(field_after(text, anchor, "count") == (double)calls[k], "%s: op%d count %g, dispatch saw %llu", run_name,
                 k, field_after(text, anchor, "count"), (unsigned long long)calls[k]);
        TU_CHECK(field_after(text, anchor, "successes") == (double)oks[k], "%s: op%d successes %g, want %llu", run_name, k,
                 field_after(text, anchor, "successes"), (unsigned long long)oks[k]);
        TU_CHECK(field_after(text, anchor, "skipped") == (double)skips[k], "%s: op%d skipped %g, want %llu", run_name, k,
                 field_after(text, anchor, "skipped"), (unsigned long long)skips[k]);
        total += (double)calls[k];
    }
    TU_CHECK(total > 1000, "%s: only %g operations in 0.3 s", run_name, total);
    TU_CHECK(field_after(text, "\"all\":{", "count") == total, "%s: all.count %g, want %g", run_name,
             field_after(text, "\"all\":{", "count"), total);
}

static int near(double a, double b) { return (a > b ? a - b : b - a) <= 1e-6 * (a > b ? a : b); }

/* Each thread's operations and window (per_thread in the record); returns how many. */
static int per_thread(const char *text, double *ops, double *seconds, double *rate) {
    const char *p, *end = strstr(text, "\"ops\":[{");
    int n = 0;
    for (p = strstr(text, "\"per_thread\":["); p && (p = strstr(p, "{\"ops\":")) != NULL && p < end && n < 2; p++, n++) {
        ops[n] = tu_number(p, "ops");
        seconds[n] = tu_number(p, "duration_s");
        rate[n] = tu_number(p, "throughput");
    }
    return n;
}

/* Throughput is operations over seconds: each thread's own rate, their sum (the
   headline), and CSB's pair, all operations over the longest window and the shortest. */
static void check_throughput(const char *text, const char *run_name) {
    double ops[2], seconds[2], rate[2], total_ops = 0, sum = 0, longest = 0, shortest = 1e300;
    const char *record = strstr(text, "\"unit\":\"ops/s\"");
    int i, n = per_thread(text, ops, seconds, rate);
    TU_CHECK(n == 2 && record, "%s: want 2 threads in per_thread, got %d", run_name, n);
    if (n != 2 || !record) return;
    for (i = 0; i < n; i++) {
        TU_CHECK(seconds[i] > 0 && near(rate[i], ops[i] / seconds[i]), "%s: thread %d: %g ops/s, want %g / %g s", run_name,
                 i, rate[i], ops[i], seconds[i]);
        total_ops += ops[i];
        sum += ops[i] / seconds[i];
        if (seconds[i] > longest) longest = seconds[i];
        if (seconds[i] < shortest) shortest = seconds[i];
    }
    TU_CHECK(total_ops == field_after(text, "\"all\":{", "count"), "%s: per-thread ops add up to %g, want all.count %g",
             run_name, total_ops, field_after(text, "\"all\":{", "count"));
    TU_CHECK(near(tu_number(record, "throughput"), sum), "%s: throughput %g, want the threads' rates' sum %g", run_name,
             tu_number(record, "throughput"), sum);
    TU_CHECK(near(tu_number(record, "throughput_min"), total_ops / longest), "%s: throughput_min %g, want %g / %g s",
             run_name, tu_number(record, "throughput_min"), total_ops, longest);
    TU_CHECK(near(tu_number(record, "throughput_max"), total_ops / shortest), "%s: throughput_max %g, want %g / %g s",
             run_name, tu_number(record, "throughput_max"), total_ops, shortest);
}

/* How many operations were timed (all.timed), against what `every` (--latency-every, or
   -1 for the default) says: all (1), none (0), exactly floor(ops / K) of each thread's
   operations (K), or by default one per batch: at least one per BL__MAX_OP_BATCH
   operations of each thread, at most all. The histogram holds exactly the timed ones. */
static void check_timed(const char *text, long every, const char *run_name) {
    double ops[2], seconds[2], rate[2], want_low = 0, want_high = 0, timed = field_after(text, "\"all\":{", "timed");
    double in_histogram = 0, h[3];
    const char *p = strstr(text, "\"ops\":[{");
    int i, n = per_thread(text, ops, seconds, rate);
    for (i = 0; i < n; i++) {
        double whole_batches = (double)(uint64_t)(ops[i] / BL__MAX_OP_BATCH);
        double at_least = whole_batches + (ops[i] > whole_batches * BL__MAX_OP_BATCH ? 1 : 0);
        want_low += every < 0 ? at_least : every == 0 ? 0 : (double)((uint64_t)ops[i] / (uint64_t)every);
        want_high += every < 0 ? ops[i] : every == 0 ? 0 : (double)((uint64_t)ops[i] / (uint64_t)every);
    }
    TU_CHECK(timed >= want_low && timed <= want_high, "%s: %g operations timed, want %g to %g", run_name, timed, want_low,
             want_high);
    /* the per-operation histograms: [low, high, count] triples after each "histogram": */
    while (p && (p = strstr(p, "\"histogram\":[")) != NULL && p < strstr(text, "\"all\":{")) {
        p += strlen("\"histogram\":[");
        while (*p == '[' && sscanf(p, "[%lf,%lf,%lf]", &h[0], &h[1], &h[2]) == 3) {
            in_histogram += h[2];
            p = strchr(p, ']') + 1;
            if (*p == ',') p++;
        }
    }
    TU_CHECK(in_histogram == timed, "%s: the histograms hold %g operations, want the %g timed", run_name, in_histogram,
             timed);
}

/* The value of `key` in a key=val; line, as a number. */
static double csb_number(const char *line, const char *key) {
    char pattern[128];
    const char *p;
    snprintf(pattern, sizeof pattern, ";%s=", key);
    p = strncmp(line, pattern + 1, strlen(pattern + 1)) == 0 ? line - 1 : strstr(line, pattern);
    if (!p) { TU_CHECK(0, "csb line lacks %s", key); return -1; }
    return strtod(p + strlen(pattern), NULL);
}

/* The csb line's histogram of `op` (e.g. "op0_a") holds exactly its count; with every
   operation timed, its minimum and maximum lie in its first and last non-empty buckets
   by CSB's bounds (the line's unit being theirs). */
static void check_csb_histogram(const char *line, const char *op, int all_timed) {
    char key[64];
    uint64_t bound[BL__CSB_BUCKETS], h[BL__CSB_BUCKETS], total = 0;
    unsigned i = 0, first = BL__CSB_BUCKETS, last = 0;
    const char *p;
    double count, min, max;
    snprintf(key, sizeof key, ";%s_histogram=", op);
    p = strstr(line, key);
    TU_CHECK(p != NULL, "csb line lacks %s", key);
    if (!p) return;
    p += strlen(key);
    for (i = 0; i < BL__CSB_BUCKETS; i++) {
        h[i] = strtoull(p, (char **)&p, 10);
        total += h[i];
        if (h[i] && first == BL__CSB_BUCKETS) first = i;
        if (h[i]) last = i;
        if (*p == ',') p++;
    }
    TU_CHECK(*p == ';', "%s: not 60 buckets", op);
    snprintf(key, sizeof key, "%s_count", op);
    count = csb_number(line, key);
    TU_CHECK((double)total == count && count > 0, "%s: histogram sums to %llu, want count %g", op,
             (unsigned long long)total, count);
    if (!all_timed) return;
    snprintf(key, sizeof key, "%s_timed", op);
    TU_CHECK(csb_number(line, key) == count, "%s: %g timed of %g, want all", op, csb_number(line, key), count);
    snprintf(key, sizeof key, "%s_min", op);
    min = csb_number(line, key);
    snprintf(key, sizeof key, "%s_max", op);
    max = csb_number(line, key);
    snprintf(key, sizeof key, "%s_sum", op);
    {
        double sum = csb_number(line, key), avg;
        snprintf(key, sizeof key, "%s_avg", op);
        avg = csb_number(line, key);
        TU_CHECK(sum == (double)(uint64_t)sum && sum / count - avg <= 0.005 && avg - sum / count <= 0.005,
                 "%s: sum %g over count %g is not _avg %g to its two decimals", op, sum, count, avg);
    }
    bl__csb_bounds(bound);
    TU_CHECK(bl__csb_bucket((uint64_t)min, bound) == first && bl__csb_bucket((uint64_t)max, bound) == last,
             "%s: min %g and max %g in buckets %u and %u, want the first and last non-empty, %u and %u", op, min, max,
             bl__csb_bucket((uint64_t)min, bound), bl__csb_bucket((uint64_t)max, bound), first, last);
}

/* The csb line of two_ops with `extra` flags, checked for its declared unit and sampling. */
static void check_csb_line(const char *path, const char *const *extra, int ns, const char *every) {
    char *text, want[64];
    double ticks_per_ms;
    TU_CHECK(run(path, "csb", "two_ops", extra) == 0, "bl_main --format=csb failed");
    text = tu_read_file(path);
    TU_CHECK(strstr(text, ns ? ";latency_unit=ns;" : ";latency_unit=ticks;") != NULL, "csb line: want latency_unit=%s",
             ns ? "ns" : "ticks");
    snprintf(want, sizeof want, ";latency_every=%s;", every);
    TU_CHECK(strstr(text, want) != NULL, "csb line lacks %s", want);
    /* ticks_to_ms: the timer's ticks per ms; 1000000 in ns (and for clock_gettime's ns) */
    ticks_per_ms = csb_number(text, "ticks_to_ms");
    TU_CHECK(ticks_per_ms == (ns ? 1e6 : (double)(uint64_t)(1e6 / bl__op_ns_per_tick() + 0.5)),
             "ticks_to_ms=%g with %g ns per tick", ticks_per_ms, bl__op_ns_per_tick());
    check_csb_histogram(text, "op0_a", !strcmp(every, "1") && !ns);
    check_csb_histogram(text, "op1_b", !strcmp(every, "1") && !ns);
    TU_CHECK(csb_number(text, "univ_count") == csb_number(text, "op0_a_count") + csb_number(text, "op1_b_count"),
             "univ_count is not the sum of the operations' counts");
    free(text);
}

/* -n=N: exactly N nops before each operation (plus `in_op` in the operation itself). */
static void check_nops(const char *path, const char *target, const char *const *flags, uint64_t n, uint64_t in_op,
                       int random) {
    char *text;
    double count;
    nops_run = 0;
    TU_CHECK(run(path, "jsonl", target, flags) == 0, "bl_main %s -n=%llu failed", target, (unsigned long long)n);
    text = tu_read_file(path);
    count = field_after(text, "\"all\":{", "count");
    TU_CHECK(strstr(text, random ? "\"random_nops\":true" : "\"random_nops\":false") != NULL, "%s: random_nops", target);
    if (!random) {
        TU_CHECK((double)nops_run == (double)(n + in_op) * count, "%s -n=%llu: %llu nops for %g operations, want %g", target,
                 (unsigned long long)n, (unsigned long long)nops_run, count, (double)(n + in_op) * count);
    } else {
        /* uniform over 0..n: mean n/2, variance ((n+1)^2 - 1) / 12 */
        double mean = (double)nops_run / count, sd = bl__sqrt((((double)n + 1) * ((double)n + 1) - 1) / 12 / count);
        TU_CHECK(mean > (double)n / 2 - 6 * sd && mean < (double)n / 2 + 6 * sd,
                 "%s --random-nops -n=%llu: %g nops per operation, want %g within 6 sd (%g)", target,
                 (unsigned long long)n, mean, (double)n / 2, sd);
    }
    free(text);
}

int main(int argc, char **argv) {
    static const char *const two_ops_mix[] = {"-s=77", "-op0=256", "--op1=768", NULL};
    static const char *const every_3[] = {"-op0=256", "--op1=768", "--latency-every=3", NULL};
    static const char *const nops[] = {"-n=3", NULL};
    static const char *const every_1[] = {"--latency-every=1", NULL};
    static const char *const every_0[] = {"--latency-every=0", NULL};
    static const char *const n7[] = {"-n=7", NULL}, *const no_nops[] = {"-n=0", NULL};
    static const char *const n7_mix[] = {"-n=7", "-op0=512", "-op1=512", NULL};
    static const char *const n7_random[] = {"-n=7", "--random-nops", NULL};
    static const char *const csb_batch[] = {"--latency-every=batch", NULL}, *const csb_ns[] = {"--csb-unit=ns", NULL};
    char path[512];
    char *text;
    double n0, total, sd;
    snprintf(path, sizeof path, "%s.jsonl", argc > 1 ? argv[1] : "threads_test");
    check_histogram();
    check_csb_buckets();

    /* two operations, a 256/768 mix: the loop draws each operation */
    TU_CHECK(run(path, "jsonl", "two_ops", two_ops_mix) == 0, "bl_main failed");
    text = tu_read_file(path);
    TU_CHECK(strstr(text, "{\"type\":\"throughput\",\"target\":\"two_ops\",\"threads\":2,") != NULL, "no throughput record");
    TU_CHECK(inits == 1 && destroys == 1 && registered == 2, "init %d, destroy %d, registered %d times", inits,
             destroys, registered);
    TU_CHECK(seen_size == 77, "init got size %llu, want 77", (unsigned long long)seen_size);
    check_counts(text, 2, "two_ops");
    check_throughput(text, "two_ops");
    check_timed(text, -1, "two_ops");
    TU_CHECK(field_after(text, "{\"op\":0,", "p50_ns") <= field_after(text, "{\"op\":0,", "p999_ns") &&
             field_after(text, "{\"op\":0,", "min_ns") <= field_after(text, "{\"op\":0,", "p50_ns"), "op0 quantiles out of order");
    n0 = (double)calls[0];
    total = n0 + (double)calls[1];
    sd = bl__sqrt(total * 0.25 * 0.75);
    TU_CHECK(n0 > total / 4 - 6 * sd && n0 < total / 4 + 6 * sd, "op0 ran %g of %g times, want 1/4 within 6 sd (%g)", n0,
             total, sd);
    free(text);

    /* one operation: the loop calls it without a draw, and counts in registers */
    TU_CHECK(run(path, "jsonl", "one_op", NULL) == 0, "bl_main one_op failed");
    text = tu_read_file(path);
    check_counts(text, 1, "one_op");
    check_throughput(text, "one_op");
    check_timed(text, -1, "one_op");
    free(text);
    /* one operation with nops: a draw per operation again */
    TU_CHECK(run(path, "jsonl", "one_op", nops) == 0, "bl_main one_op -n=3 failed");
    text = tu_read_file(path);
    check_counts(text, 1, "one_op -n=3");
    check_timed(text, -1, "one_op -n=3");
    free(text);
    /* --latency-every: all, one in 3 (counted across batches), none */
    TU_CHECK(run(path, "jsonl", "one_op", every_1) == 0, "bl_main --latency-every=1 failed");
    text = tu_read_file(path);
    check_counts(text, 1, "one_op --latency-every=1");
    check_timed(text, 1, "one_op --latency-every=1");
    free(text);
    TU_CHECK(run(path, "jsonl", "two_ops", every_3) == 0, "bl_main --latency-every=3 failed");
    text = tu_read_file(path);
    check_counts(text, 2, "two_ops --latency-every=3");
    check_timed(text, 3, "two_ops --latency-every=3");
    free(text);
    TU_CHECK(run(path, "jsonl", "one_op", every_0) == 0, "bl_main --latency-every=0 failed");
    text = tu_read_file(path);
    check_counts(text, 1, "one_op --latency-every=0");
    check_timed(text, 0, "one_op --latency-every=0");
    free(text);

    TU_CHECK(run(path, "csb", "two_ops", two_ops_mix) == 0, "bl_main --format=csb failed");
    text = tu_read_file(path);
    {
        const char *keys[] = {"num_threads=2;", "init_sz=77;", "max_noise=0;", "duration=0.3;", "op0_dist=256;",
                              "op1_dist=768;", "algo_name=two_ops;", "op0_a_max=", "op0_a_min=", "op0_a_sum=",
                              "op0_a_count=", "op1_b_succ_count=", "op1_b_skipped_count=", "op1_b_avg=",
                              "op1_b_succ_percent=", "op1_b_histogram=", "univ_count=", "univ_succ_count=",
                              "throughput_max=", "throughput_min=", "sys_time=", "usr_time=", "max_rss_kb="};
        size_t i;
        for (i = 0; i < sizeof keys / sizeof keys[0]; i++) TU_CHECK(strstr(text, keys[i]) != NULL, "csb lacks %s", keys[i]);
        TU_CHECK(strchr(text, '\n') == text + strlen(text) - 1 && text[strlen(text) - 2] == ';', "csb is not one key=val; line");
        TU_CHECK(strncmp(text, "num_threads=", 12) == 0, "csb line does not start with num_threads");
    }
    free(text);
    check_csb_line(path, NULL, 0, "1");
    check_csb_line(path, csb_batch, 0, "batch");
    check_csb_line(path, csb_ns, 1, "1");

    check_nops(path, "one_op", n7, 7, 0, 0);
    check_nops(path, "two_ops", n7_mix, 7, 0, 0);
    check_nops(path, "one_op", n7_random, 7, 0, 1);
    check_nops(path, "bm_empty_like", no_nops, 0, 100, 0);
    check_nops(path, "bm_empty_like", n7, 7, 100, 0);
    printf("threads_test: %d failures\n", tu_failures);
    return tu_failures != 0;
}
