/* The harness measures what it should: an empty body reports about 0 (and never below
   it) once the loop overhead measured in the same rounds is subtracted, and a kernel of K dependent multiply-adds scales
   linearly with K (K=1000 costs 10 times K=100, within 5%). */
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "kernels.h"
#include "testutil.h"

BL_BENCH(empty, n) {
    uint64_t i;
    for (i = 0; i < n; i++) BL_CLOBBER();
}
BL_BENCH(chain100, n) { KERNEL_CHAIN(n, 100); }
BL_BENCH(chain1000, n) { KERNEL_CHAIN(n, 1000); }

static const char *record_of(const char *text, const char *bench) {
    char key[64];
    const char *p;
    snprintf(key, sizeof key, "\"bench\":\"%s\"", bench);
    p = strstr(text, key);
    if (!p) { fprintf(stderr, "no result for %s\n", bench); exit(1); }
    return p;
}

static double median_of(const char *text, const char *bench) {
    return tu_number(record_of(text, bench), "median");
}

int main(int argc, char **argv) {
    const char *out = "accuracy_test.jsonl";
    char out_flag[300];
    char *args[5];
    char *text;
    double overhead, empty, k100, k1000, ratio;
    (void)argc;
    snprintf(out_flag, sizeof out_flag, "--out=%s", out);
    args[0] = argv[0];
    args[1] = (char *)"--format=jsonl";
    args[2] = out_flag;
    args[3] = (char *)"--time-limit=0.5";
    args[4] = NULL;
    if (bl_main(4, args) != 0) return 1;
    text = tu_read_file(out);
    overhead = tu_number(record_of(text, "empty"), "overhead");
    empty = median_of(text, "empty");
    k100 = median_of(text, "chain100");
    k1000 = median_of(text, "chain1000");
    ratio = k1000 / k100;
    printf("overhead %.4f ns/iter, empty %.4f ns, K=100 %.3f ns, K=1000 %.3f ns, ratio %.4f (ideal 10)\n",
           overhead, empty, k100, k1000, ratio);
    /* The overhead is a real cost (a loop has at least a compare and a branch), so
       without the subtraction `empty` would be about `overhead`. */
    TU_CHECK(overhead > 0.05, "overhead %.4f ns/iter is implausibly small", overhead);
    TU_CHECK(empty >= 0 && empty < 0.5 * overhead,
             "empty body reports %.4f ns, want from 0 (never below) to %.4f", empty, 0.5 * overhead);
    TU_CHECK(ratio > 9.5 && ratio < 10.5, "cost(K=1000)/cost(K=100) = %.4f, want 10 +-5%%", ratio);
    free(text);
    return tu_failures ? 1 : 0;
}
