#include "benchlab.h"
static volatile uint64_t sink;
char big[1 << 22];   /* not static: the compiler must read it */
#define ADD8 sink += 1; sink += 1; sink += 1; sink += 1; sink += 1; sink += 1; sink += 1; sink += 1;
BL_BASELINE(loop, n) { for (uint64_t i = 0; i < n; i++) BL_CLOBBER(); }
BL_BENCH(add8, n) { for (uint64_t i = 0; i < n; i++) { ADD8 } }
BL_BENCH(add8_setup, n) {
    BL_SUSPEND { for (int k = 0; k < 1000; k++) sink += 1; }
    for (uint64_t i = 0; i < n; i++) { ADD8 }
}
BL_BENCH(walk, n) {   /* a new cache line each iteration */
    static size_t pos;
    for (uint64_t i = 0; i < n; i++) { sink += (uint64_t)big[pos]; pos = (pos + 4096 + 64) % sizeof big; }
}
BL_MAIN()
