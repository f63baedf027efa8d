/* Counters besides time: what each benchmark costs in allocations, page faults, CPU
   time and (where the machine has a PMU) instructions and cache misses, each from a
   pass of its own so the time figures stay uninstrumented (docs/counters.md).
   BL_MAIN_COUNTERS sets the default list; --counters=... on the command line wins.

       cc -O2 -Iinclude examples/counters.c -o counters && ./counters --format=table
       ./counters --counters=time,cycles,instructions,branch-misses,L1-dcache-load-misses

   Linked with jemalloc, alloc-bytes also works through jemalloc's own statistics and
   jemalloc-allocated reports its thread.allocated (bytes as jemalloc's size classes
   round them). Keep the library with --no-as-needed: the header's malloc wrapper
   satisfies malloc, so an as-needed link would drop a jemalloc nothing else calls:

       cc -O2 -Iinclude examples/counters.c -o counters -Wl,--no-as-needed -ljemalloc */
#include "benchlab.h"

#include <stdlib.h>
#include <string.h>

/* One allocation of 64 bytes and its free per iteration: allocs reads 1, alloc-bytes 64. */
BL_BENCH(malloc_free_64, n) {
    void *(*volatile alloc)(size_t) = malloc; /* volatile: the compiler may not elide the pair */
    uint64_t i;
    for (i = 0; i < n; i++) {
        void *p = alloc(64);
        BL_KEEP(p);
        free(p);
    }
}

/* 64 MiB per iteration, above the largest mmap threshold glibc's malloc adapts to
   (32 MiB), so every malloc maps fresh memory from the kernel and free unmaps it. Only
   the first 256 KiB are written: 1 allocation of 67108864 bytes and, with 4 KiB pages,
   a page fault for each of the 64 pages written, per iteration. */
BL_BENCH(map_touch_unmap, n) {
    uint64_t i;
    for (i = 0; i < n; i++) {
        char *p = (char *)malloc((size_t)64 << 20);
        size_t off;
        if (!p) continue;
        for (off = 0; off < 256 * 1024; off += 4096) p[off] = 1;
        BL_CLOBBER();
        free(p);
    }
}

/* Pure arithmetic: no allocation and no faults; cycles and instructions only. */
BL_BENCH(multiply_add, n) {
    uint64_t i, x = 1;
    for (i = 0; i < n; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    BL_KEEP(x);
}

BL_MAIN_COUNTERS("time,cycles,instructions,task-clock,page-faults,allocs,alloc-bytes,rusage-minor-faults")
