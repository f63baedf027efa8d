/* benchlab's own comparison, for the A/A and 1% figures: the baseline is the K=100
   chain; chain100_copy is an identical copy of it (A/A: should not come out
   significant) and chain101 is 1% slower (K=101: should). Each is sampled in
   alternating rounds with the baseline and reported with `ratio`, `ratio_ci` and
   `significant`. (An empty baseline would give no ratio: its cost is ~0.) */
#include "benchlab.h"
#include "kernels.h"

BL_BASELINE(chain100, n) {
    KERN_CHAIN_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_CHAIN(100);
}
BL_BENCH(chain100_copy, n) {
    KERN_CHAIN_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_CHAIN(100);
}
BL_BENCH(chain101, n) {
    KERN_CHAIN_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_CHAIN(101);
}

BL_MAIN()
