/* Probe: does subtracting the empty loop's cost under-report kernels that overlap
   with the loop? memcpy64_x8 does 8 copies per iteration: its figure / 8 is the cost
   of one copy with the loop's cost spread over 8 (an eighth of the subtraction's error).
   chain1000 / 100 is the cost of 10 chain steps with the loop's cost spread over 1000
   steps. Compare with memcpy64 and chain10, one per iteration. See bench/README.md. */
#include "benchlab.h"
#include "../kernels.h"

BL_BENCH(memcpy64, n) {
    KERN_MEMCPY64_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_MEMCPY64();
}
BL_BENCH(memcpy64_x8, n) {
    KERN_MEMCPY64_SETUP;
    for (uint64_t i = 0; i < n; i++) {
        KERN_MEMCPY64(); KERN_MEMCPY64(); KERN_MEMCPY64(); KERN_MEMCPY64();
        KERN_MEMCPY64(); KERN_MEMCPY64(); KERN_MEMCPY64(); KERN_MEMCPY64();
    }
}
BL_BENCH(chain10, n) {
    KERN_CHAIN_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_CHAIN(10);
}
BL_BENCH(chain1000, n) {
    KERN_CHAIN_SETUP;
    for (uint64_t i = 0; i < n; i++) KERN_CHAIN(1000);
}
BL_MAIN()
