/* The threaded mode, checked on what must hold whatever the machine's load:
   - histogram: on synthetic values of every magnitude, each value falls inside its
     bucket, buckets tile uint64 without gaps, and a bucket's midpoint is within 1/64
     (1.6%, under the 3% the issue allows) of any value in it; quantiles of a known
     uniform set are within that bound too.
   - a run of a two-operation target at -t=2 with -op0=256 -op1=768: the per-op counts,
     successes and skips the harness reports equal what the target's own dispatch
     counted (exactly); op0's share is within 6 standard deviations of 1/4 (binomial);
     the per-thread counts add up to the total; init saw -s and ran once, destroy once.
   - --format=csb: one key=val; line with CSB's keys.
   usage: threads_test [SCRATCH_PREFIX] */
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

static int run(const char *out, const char *format) {
    char flag_out[600], flag_format[64];
    char *argv[12];
    int argc = 0;
    snprintf(flag_out, sizeof flag_out, "--out=%s", out);
    snprintf(flag_format, sizeof flag_format, "--format=%s", format);
    argv[argc++] = (char *)"threads_test";
    argv[argc++] = (char *)"-t=2";
    argv[argc++] = (char *)"-d=0.3";
    argv[argc++] = (char *)"-s=77";
    argv[argc++] = (char *)"-op0=256";
    argv[argc++] = (char *)"--op1=768";
    argv[argc++] = (char *)"--seed=5";
    argv[argc++] = flag_format;
    argv[argc++] = flag_out;
    argv[argc] = NULL;
    return bl_main(argc, argv);
}

static double field_after(const char *text, const char *anchor, const char *key) {
    const char *p = strstr(text, anchor);
    if (!p) { TU_CHECK(0, "no %s in the output", anchor); return -1; }
    return tu_number(p, key);
}

int main(int argc, char **argv) {
    char path[512];
    char *text;
    const char *p;
    double n0, n1, total, per_thread_sum = 0, sd;
    int k;
    snprintf(path, sizeof path, "%s.jsonl", argc > 1 ? argv[1] : "threads_test");
    check_histogram();

    TU_CHECK(run(path, "jsonl") == 0, "bl_main failed");
    text = tu_read_file(path);
    TU_CHECK(strstr(text, "{\"type\":\"throughput\",\"target\":\"two_ops\",\"threads\":2,") != NULL, "no throughput record");
    TU_CHECK(inits == 1 && destroys == 1 && registered == 2, "init %d, destroy %d, registered %d times", inits,
             destroys, registered);
    TU_CHECK(seen_size == 77, "init got size %llu, want 77", (unsigned long long)seen_size);
    for (k = 0; k < 2; k++) {
        char anchor[32];
        snprintf(anchor, sizeof anchor, "{\"op\":%d,", k);
        TU_CHECK(field_after(text, anchor, "count") == (double)calls[k], "op%d count %g, dispatch saw %llu", k,
                 field_after(text, anchor, "count"), (unsigned long long)calls[k]);
        TU_CHECK(field_after(text, anchor, "successes") == (double)oks[k], "op%d successes %g, want %llu", k,
                 field_after(text, anchor, "successes"), (unsigned long long)oks[k]);
        TU_CHECK(field_after(text, anchor, "skipped") == (double)skips[k], "op%d skipped %g, want %llu", k,
                 field_after(text, anchor, "skipped"), (unsigned long long)skips[k]);
        TU_CHECK(field_after(text, anchor, "timed") == (double)calls[k], "op%d: every operation is timed by default", k);
        TU_CHECK(field_after(text, anchor, "p50_ns") <= field_after(text, anchor, "p999_ns") &&
                 field_after(text, anchor, "min_ns") <= field_after(text, anchor, "p50_ns"), "op%d quantiles out of order", k);
    }
    n0 = (double)calls[0];
    n1 = (double)calls[1];
    total = n0 + n1;
    TU_CHECK(total > 1000, "only %g operations in 0.3 s", total);
    sd = bl__sqrt(total * 0.25 * 0.75);
    TU_CHECK(n0 > total / 4 - 6 * sd && n0 < total / 4 + 6 * sd, "op0 ran %g of %g times, want 1/4 within 6 sd (%g)", n0,
             total, sd);
    TU_CHECK(field_after(text, "\"all\":{", "count") == total, "all.count %g, want %g", field_after(text, "\"all\":{", "count"), total);
    for (p = strstr(text, "\"per_thread\":["); p && (p = strstr(p, "{\"ops\":")) != NULL && p < strstr(text, "\"ops\":[{"); p++)
        per_thread_sum += tu_number(p, "ops");
    TU_CHECK(per_thread_sum == total, "per-thread ops add up to %g, want %g", per_thread_sum, total);
    TU_CHECK(field_after(text, "\"unit\":\"ops/s\"", "throughput_min") <= field_after(text, "\"unit\":\"ops/s\"", "throughput_max"),
             "throughput_min > throughput_max");
    TU_CHECK(field_after(text, "\"unit\":\"ops/s\"", "throughput") > 0, "no throughput");
    free(text);

    TU_CHECK(run(path, "csb") == 0, "bl_main --format=csb failed");
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
    printf("threads_test: %d failures\n", tu_failures);
    return tu_failures != 0;
}
