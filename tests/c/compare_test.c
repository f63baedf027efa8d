/* The baseline comparison: an identical copy of the baseline must come out not
   significant (A/A), and a variant 1% slower (K=101 vs K=100 dependent multiply-adds,
   a 400-cycle kernel) must come out significant, at the default time limit.
   The machine is shared and noisy, so a run that misses is repeated, up to 3 times;
   every attempt's figures are printed. */
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "kernels.h"
#include "testutil.h"

BL_BASELINE(chain100, n) { KERNEL_CHAIN(n, 100); }
BL_BENCH(chain100_copy, n) { KERNEL_CHAIN(n, 100); }
BL_BENCH(chain101, n) { KERNEL_CHAIN(n, 101); }

typedef struct { double ratio, low, high; int significant; } verdict;

static verdict verdict_of(const char *text, const char *bench) {
    char key[64];
    const char *p;
    verdict v;
    double ci[2];
    snprintf(key, sizeof key, "\"bench\":\"%s\"", bench);
    p = strstr(text, key);
    if (!p) { fprintf(stderr, "no result for %s\n", bench); exit(1); }
    v.ratio = tu_number(p, "ratio");
    tu_array(p, "ratio_ci", ci, 2);
    v.low = ci[0];
    v.high = ci[1];
    v.significant = strncmp(tu_after_key(p, "significant"), "true", 4) == 0;
    return v;
}

int main(int argc, char **argv) {
    const char *out = "compare_test.jsonl";
    char out_flag[300];
    char *args[4];
    int attempt;
    (void)argc;
    snprintf(out_flag, sizeof out_flag, "--out=%s", out);
    args[0] = argv[0];
    args[1] = (char *)"--format=jsonl";
    args[2] = out_flag;
    args[3] = NULL;
    for (attempt = 1; attempt <= 3; attempt++) {
        char *text;
        verdict same, slower;
        int ok;
        if (bl_main(3, args) != 0) return 1;
        text = tu_read_file(out);
        same = verdict_of(text, "chain100_copy");
        slower = verdict_of(text, "chain101");
        free(text);
        printf("attempt %d: A/A ratio %.4f [%.4f, %.4f] %s; 1%% slower ratio %.4f [%.4f, %.4f] %s\n", attempt,
               same.ratio, same.low, same.high, same.significant ? "significant" : "not significant",
               slower.ratio, slower.low, slower.high, slower.significant ? "significant" : "not significant");
        /* The interval is what decides; the ratio must also be where physics puts it. */
        ok = !same.significant && same.low <= 1 && same.high >= 1 && slower.significant &&
             slower.ratio > 1.002 && slower.ratio < 1.03;
        if (ok) return 0;
    }
    TU_CHECK(0, "A/A not significant and 1%% slower significant: missed in 3 attempts");
    return 1;
}
