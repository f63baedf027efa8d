/* The program tests/c/cli_test.sh drives: a baseline, a plain benchmark, and a sweep. */
#include "benchlab.h"
#include "kernels.h"

BL_BASELINE(chain10, n) { KERNEL_CHAIN(n, 10); }
BL_BENCH(chain20, n) { KERNEL_CHAIN(n, 20); }
BL_BENCH_ARGS(chain_k, n, k, 5, 40) { KERNEL_CHAIN(n, k); }

BL_MAIN()
