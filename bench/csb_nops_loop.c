/* -n=N's loop alone: bl_nops(N) against the loop CSB's noise runs (bench/include/CSB/
   bm_helper.h's bm_generate_noise: a compiler barrier, `for (i = 0; i < nop_count; i++)
   nop`, a barrier), in one process, in alternating rounds, so that a slow phase of the
   machine hits both. Each round times CALLS calls of each at N nops (N read at run time,
   so neither loop is specialised for a constant) and prints the ratio ours / CSB's; the
   median of the rounds' ratios and each loop's median ns per nop close the output.
   Built and run by bench/csb_nops.py --loops; by hand:
   cc -O2 -Iinclude bench/csb_nops_loop.c -o csb_nops_loop && ./csb_nops_loop 1000 200 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "benchlab.h"

#define CALLS 2000

__attribute__((noinline)) static void csb_noise(size_t nop_count) {
    size_t i;
    if (nop_count == 0) return;
    __asm__ __volatile__("" ::: "memory");
    for (i = 0; i < nop_count; i++) __asm__ __volatile__("nop");
    __asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline)) static void our_nops(size_t n) { bl_nops(n); }

static double ns_per_nop(void (*f)(size_t), size_t n) {
    struct timespec a, b;
    int i;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (i = 0; i < CALLS; i++) f(n);
    clock_gettime(CLOCK_MONOTONIC, &b);
    return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / ((double)CALLS * (double)n);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000, rounds = argc > 2 ? strtoul(argv[2], NULL, 10) : 200, r;
    double *ratio = malloc(rounds * sizeof *ratio), *ours = malloc(rounds * sizeof *ours),
           *theirs = malloc(rounds * sizeof *theirs);
    if (!n || !rounds || !ratio || !ours || !theirs) return 2;
    for (r = 0; r < rounds; r++) {
        if (r % 2) { /* alternate which runs first */
            ours[r] = ns_per_nop(our_nops, n);
            theirs[r] = ns_per_nop(csb_noise, n);
        } else {
            theirs[r] = ns_per_nop(csb_noise, n);
            ours[r] = ns_per_nop(our_nops, n);
        }
        ratio[r] = ours[r] / theirs[r];
    }
    qsort(ratio, rounds, sizeof *ratio, by_value);
    qsort(ours, rounds, sizeof *ours, by_value);
    qsort(theirs, rounds, sizeof *theirs, by_value);
    printf("n=%lu rounds=%lu ours/CSB median %.4f [quartiles %.4f, %.4f]; ns per nop: ours %.4f, CSB's %.4f\n",
           (unsigned long)n, (unsigned long)rounds, ratio[rounds / 2], ratio[rounds / 4], ratio[3 * rounds / 4],
           ours[rounds / 2], theirs[rounds / 2]);
    return 0;
}
