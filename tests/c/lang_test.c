/* Every public macro of the header in one program, built as C99 (gcc and clang) and,
   through lang_test.cpp, as C++11: a compile test for each language standard and a
   check that the features work.
   - BL_SUSPEND: the block runs once per sample of the body, and the body's timed part
     after it (that its time is left out is checked on a made-up clock, by
     tests/c/stop_rule_test.c: no check here depends on how busy the machine is).
   - BL_BENCH_ARGS: one result per value, with the value passed to the body.
   - bl_seed: --seed=42 is what the body sees. */
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "kernels.h"
#include "testutil.h"

static uint64_t seen_seed = 0;
static int64_t seen_args_sum = 0;
static unsigned long suspended_blocks = 0, suspended_bodies = 0;

BL_BASELINE(chain, n) { KERNEL_CHAIN(n, 20); }

BL_BENCH(suspended_setup, n) {
    BL_SUSPEND { suspended_blocks++; }
    KERNEL_CHAIN(n, 20);
    suspended_bodies++;
}

BL_BENCH(seeded, n) {
    uint64_t state = bl_seed(), i, x = 0;
    seen_seed = bl_seed();
    for (i = 0; i < n; i++) x ^= bl_random(&state);
    BL_KEEP(x);
}

BL_BENCH_ARGS(args, n, value, 3, 5) {
    uint64_t i;
    seen_args_sum |= value; /* 3 | 5 == 7 once both ran */
    for (i = 0; i < n; i++) BL_CLOBBER();
}

/* How many numbers the array `key` of a result line holds. */
static unsigned long array_length(const char *line, const char *key) {
    const char *p = strstr(line, key);
    unsigned long n = 1;
    if (!p) return 0;
    p = strchr(p, '[') + 1;
    if (*p == ']') return 0;
    for (; *p && *p != ']'; p++) n += *p == ',';
    return n;
}

static const char *result_line(const char *text, const char *bench, const char *param) {
    char key[96];
    const char *p;
    snprintf(key, sizeof key, "\"bench\":\"%s\",\"param\":%s", bench, param);
    p = strstr(text, key);
    if (!p) { fprintf(stderr, "no result for %s %s\n", bench, param); exit(1); }
    return p;
}

int main(int argc, char **argv) {
    char *args[6];
    char *text;
    unsigned long samples;
    const char *line;
    (void)argc;
    args[0] = argv[0];
    args[1] = (char *)"--format=jsonl";
    args[2] = (char *)"--out=lang_test.jsonl";
    args[3] = (char *)"--time-limit=0.3";
    args[4] = (char *)"--seed=42";
    args[5] = NULL;
    if (bl_main(5, args) != 0) return 1;
    text = tu_read_file("lang_test.jsonl");

    line = result_line(text, "suspended_setup", "null");
    /* each sample ran the body once, its block once (and calibration some more of each) */
    samples = array_length(line, "\"samples\":[");
    TU_CHECK(samples > 0 && suspended_blocks >= samples && suspended_blocks == suspended_bodies,
             "suspended_setup: %lu blocks and %lu bodies ran for %lu samples", suspended_blocks, suspended_bodies,
             samples);
    TU_CHECK(seen_seed == 42, "bl_seed() returned %llu under --seed=42", (unsigned long long)seen_seed);
    TU_CHECK(seen_args_sum == 7, "BL_BENCH_ARGS bodies saw values or-ing to %lld, want 7", (long long)seen_args_sum);
    result_line(text, "args", "3");
    result_line(text, "args", "5");
    TU_CHECK(strstr(text, "\"seed\":42") != NULL, "context does not report seed 42");
    TU_CHECK(strstr(result_line(text, "chain", "null"), "\"baseline\":true") != NULL, "chain is not marked baseline");
    TU_CHECK(strstr(result_line(text, "seeded", "null"), "\"compared_to\":\"chain\"") != NULL, "seeded not compared to chain");
    printf("lang_test (%s): suspended_setup ran its BL_SUSPEND block %lu times for %lu samples, %d failures\n",
#ifdef __cplusplus
           "C++",
#else
           "C",
#endif
           suspended_blocks, samples, tu_failures);
    free(text);
    return tu_failures ? 1 : 0;
}
