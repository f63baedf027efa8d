/* The header's statistics against tests/vectors/, which numpy and scipy computed
   (tests/vectors/make_vectors.py). The Python package checks the same files. */
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "testutil.h"

#define MAX_SAMPLES 4096
#define REL 1e-9

static void check_stats(const char *object, const char *name) {
    static double x[MAX_SAMPLES], ci[2];
    const char *expected = tu_after_key(object, "expected");
    size_t n = tu_array(object, "samples", x, MAX_SAMPLES);
    bl_stats s;
    bl_compute_stats(x, n, &s);
    /* Every figure of bl_stats, by the header's own list of them. */
#define FIELD(field) TU_CHECK(tu_close(s.field, tu_number(expected, #field), REL), "%s: %s = %.17g, want %.17g", name, #field, s.field, tu_number(expected, #field));
    BL__STATISTICS(FIELD)
#undef FIELD
    tu_array(expected, "median_ci", ci, 2);
    TU_CHECK(tu_close(s.median_ci_low, ci[0], REL) && tu_close(s.median_ci_high, ci[1], REL),
             "%s: median_ci = [%.17g, %.17g], want [%.17g, %.17g]", name, s.median_ci_low, s.median_ci_high, ci[0], ci[1]);
    TU_CHECK((double)s.outliers_low == tu_number(expected, "outliers_low"), "%s: outliers_low = %lu", name, (unsigned long)s.outliers_low);
    TU_CHECK((double)s.outliers_high == tu_number(expected, "outliers_high"), "%s: outliers_high = %lu", name, (unsigned long)s.outliers_high);
}

static void check_ratio(const char *object, const char *name) {
    static double a[MAX_SAMPLES], b[MAX_SAMPLES], ci[2];
    const char *expected = tu_after_key(object, "expected");
    size_t m = tu_array(object, "a", a, MAX_SAMPLES);
    double ratio, low, high;
    TU_CHECK(tu_array(object, "b", b, MAX_SAMPLES) == m, "%s: a and b differ in length", name);
    bl_ratio_ci(a, b, m, &ratio, &low, &high);
    tu_array(expected, "ratio_ci", ci, 2);
    TU_CHECK(tu_close(ratio, tu_number(expected, "ratio"), REL), "%s: ratio = %.17g, want %.17g", name, ratio, tu_number(expected, "ratio"));
    TU_CHECK(tu_close(low, ci[0], REL) && tu_close(high, ci[1], REL), "%s: ratio_ci = [%.17g, %.17g], want [%.17g, %.17g]",
             name, low, high, ci[0], ci[1]);
}

/* The figures after subtracting the body's share of the empty loop round by round, as the
   time pass computes them (bl__time_figures, static in this file's copy of the
   implementation). */
static void check_subtract(const char *object, const char *name) {
    static double x[MAX_SAMPLES], overhead[MAX_SAMPLES], ci[2];
    const char *expected = tu_after_key(object, "expected");
    size_t n = tu_array(object, "samples", x, MAX_SAMPLES);
    bl__result r;
    bl__options o;
    bl_stats s;
    int zero;
    TU_CHECK(tu_array(object, "overhead_samples", overhead, MAX_SAMPLES) == n, "%s: samples and overhead_samples differ in length", name);
    memset(&r, 0, sizeof r);
    memset(&o, 0, sizeof o);
    r.samples = x;
    r.overhead_samples = overhead;
    r.count = n;
    o.subtract = 1;
    bl__time_figures(&r, NULL, &o);
    s = r.stats;
    zero = r.zero;
    TU_CHECK(tu_close(r.loop_share, tu_number(expected, "loop_share"), REL), "%s: loop_share = %.17g, want %.17g", name,
             r.loop_share, tu_number(expected, "loop_share"));
#define FIELD(field, key) TU_CHECK(tu_close(s.field, tu_number(expected, key), REL), "%s: %s = %.17g, want %.17g", name, key, s.field, tu_number(expected, key))
    FIELD(median, "median");
    FIELD(min, "min");
    FIELD(max, "max");
    FIELD(mean, "mean");
    FIELD(p75, "p75");
    FIELD(p90, "p90");
    FIELD(p99, "p99");
#undef FIELD
    tu_array(expected, "median_ci", ci, 2);
    TU_CHECK(tu_close(s.median_ci_low, ci[0], REL) && tu_close(s.median_ci_high, ci[1], REL),
             "%s: median_ci = [%.17g, %.17g], want [%.17g, %.17g]", name, s.median_ci_low, s.median_ci_high, ci[0], ci[1]);
    TU_CHECK(zero == (strncmp(tu_after_key(expected, "zero"), "true", 4) == 0), "%s: zero = %d", name, zero);
}

/* Calls check on each object of a JSON list whose objects start with "name". */
static size_t for_each_case(const char *path, void (*check)(const char *, const char *)) {
    char *text = tu_read_file(path);
    const char *p = text;
    size_t cases = 0;
    while ((p = strstr(p, "\"name\":")) != NULL) {
        char name[64] = "";
        const char *q = strchr(p + 7, '"');
        size_t len = q ? strcspn(q + 1, "\"") : 0;
        memcpy(name, q + 1, len < sizeof name ? len : sizeof name - 1);
        check(p, name);
        cases++;
        p += 7;
    }
    free(text);
    return cases;
}

int main(int argc, char **argv) {
    size_t stats_cases, ratio_cases, subtract_cases;
    if (argc != 2) { fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]); return 2; }
    {
        char path[1024];
        snprintf(path, sizeof path, "%s/stats.json", argv[1]);
        stats_cases = for_each_case(path, check_stats);
        snprintf(path, sizeof path, "%s/ratio.json", argv[1]);
        ratio_cases = for_each_case(path, check_ratio);
        snprintf(path, sizeof path, "%s/subtract.json", argv[1]);
        subtract_cases = for_each_case(path, check_subtract);
    }
    TU_CHECK(stats_cases >= 12 && ratio_cases >= 4 && subtract_cases >= 4, "too few vectors: %lu stats, %lu ratio, %lu subtract",
             (unsigned long)stats_cases, (unsigned long)ratio_cases, (unsigned long)subtract_cases);
    printf("vectors: %lu stats cases, %lu ratio cases, %lu subtract cases, %d failures\n", (unsigned long)stats_cases,
           (unsigned long)ratio_cases, (unsigned long)subtract_cases, tu_failures);
    return tu_failures ? 1 : 0;
}
