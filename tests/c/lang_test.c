/* Every public macro of the header in one program, built as C99 (gcc and clang) and,
   through lang_test.cpp, as C++11: a compile test for each language standard and a
   check that the features work.
   - BL_SUSPEND: a body that sleeps 2 ms per sample in a suspend block must report the
     same cost as the baseline, whose loop is the same without the block.
   - BL_BENCH_ARGS: one result per value, with the value passed to the body.
   - bl_seed: --seed=42 is what the body sees. */
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "kernels.h"
#include "testutil.h"

static uint64_t seen_seed = 0;
static int64_t seen_args_sum = 0;

/* Sleeps rather than spins: a spin uses up the process's time slice, so on a busy machine
   the scheduler preempts it just after the block, inside the timed part, in every sample
   (20-27 ms per sample at load 7 on 2 CPUs), which reads as a leak. A sleeper wakes with
   its slice, and its wake-up delay falls inside the block, where it does not count. */
static void sleep_ms(long ms) {
    struct timespec pause;
    pause.tv_sec = 0;
    pause.tv_nsec = ms * 1000000L;
    while (nanosleep(&pause, &pause) != 0) {}
}

BL_BASELINE(chain, n) { KERNEL_CHAIN(n, 20); }

BL_BENCH(suspended_setup, n) {
    BL_SUSPEND { sleep_ms(2); }
    KERNEL_CHAIN(n, 20);
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
    double leaked_ns;
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
    /* The fastest samples are the ones a busy machine disturbed least: compare those.
       A leak would put 2 ms into every sample, the fastest too. */
    leaked_ns = (tu_number(line, "min") - tu_number(result_line(text, "chain", "null"), "min")) *
                tu_number(line, "iterations");
    TU_CHECK(leaked_ns < 0.5e6, "suspended_setup: %.0f ns per sample more than the baseline: the 2 ms in BL_SUSPEND leaked in", leaked_ns);
    TU_CHECK(seen_seed == 42, "bl_seed() returned %llu under --seed=42", (unsigned long long)seen_seed);
    TU_CHECK(seen_args_sum == 7, "BL_BENCH_ARGS bodies saw values or-ing to %lld, want 7", (long long)seen_args_sum);
    result_line(text, "args", "3");
    result_line(text, "args", "5");
    TU_CHECK(strstr(text, "\"seed\":42") != NULL, "context does not report seed 42");
    TU_CHECK(strstr(result_line(text, "chain", "null"), "\"baseline\":true") != NULL, "chain is not marked baseline");
    TU_CHECK(strstr(result_line(text, "seeded", "null"), "\"compared_to\":\"chain\"") != NULL, "seeded not compared to chain");
    printf("lang_test (%s): suspended_setup counted %.0f ns per sample more than the baseline (2e6 if BL_SUSPEND leaked), %d failures\n",
#ifdef __cplusplus
           "C++",
#else
           "C",
#endif
           leaked_ns, tu_failures);
    free(text);
    return tu_failures ? 1 : 0;
}
