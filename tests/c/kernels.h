/* Kernels with a known cost, shared by the accuracy and comparison tests.
   chain(x, K): K dependent multiply-adds. Each step needs the previous result, so the
   cost is K times the latency of one imul+add (4 cycles on current x86-64) and scales
   exactly with K; the factors come from volatiles so nothing is folded at compile time. */
#ifndef BENCHLAB_TEST_KERNELS_H
#define BENCHLAB_TEST_KERNELS_H
#include <stdint.h>

static volatile uint64_t kernel_mul = 6364136223846793005ull, kernel_add = 1442695040888963407ull;

#define KERNEL_CHAIN(n, K)                                      \
    do {                                                        \
        uint64_t x_ = 1, a_ = kernel_mul, b_ = kernel_add, i_;  \
        int k_;                                                 \
        for (i_ = 0; i_ < (n); i_++)                            \
            for (k_ = 0; k_ < (K); k_++) x_ = x_ * a_ + b_;     \
        BL_KEEP(x_);                                            \
    } while (0)

#endif
