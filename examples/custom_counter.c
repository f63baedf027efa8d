/* A counter of your own: how many probes a lookup in an open-addressing table takes,
   per lookup, next to its time. Any additive, monotonic count works (calls, bytes,
   collisions): give it a name, a unit and a function returning the running total.
   The harness reads it around each sample, like any other counter, in a pass of its
   own, and subtracts what happens inside BL_SUSPEND.

       cc -O2 -Iinclude examples/custom_counter.c -o custom_counter
       ./custom_counter --format=table          (time and probes, as set in code)
       ./custom_counter --counters=probes       (only the probes)                      */
#include "benchlab.h"

#define SLOTS 4096u /* a power of two: the probe sequence wraps with a mask */

static uint64_t probes; /* the counter: increases by one per slot examined */
static uint64_t read_probes(void) { return probes; }
BL_COUNTER(probes, "probes", read_probes)

static uint64_t table[SLOTS];

static void fill(double load, uint64_t step) {
    uint64_t i, n = (uint64_t)(load * SLOTS);
    for (i = 0; i < SLOTS; i++) table[i] = 0;
    for (i = 1; i <= n; i++) {
        uint64_t s = (i * step) & (SLOTS - 1);
        while (table[s]) s = (s + 1) & (SLOTS - 1);
        table[s] = i;
    }
}

static int lookup(uint64_t key, uint64_t step) {
    uint64_t s = (key * step) & (SLOTS - 1);
    for (;;) {
        probes++;
        if (table[s] == key) return 1;
        if (table[s] == 0) return 0;
        s = (s + 1) & (SLOTS - 1);
    }
}

/* An odd step permutes the slots, so every key has a home slot of its own and a lookup
   takes one probe; a step of 64 sends all keys to 64 home slots, so lookups walk long
   clusters (linear probing's worst case). Load factor 0.7 either way. */
BL_BENCH_ARGS(lookups, n, step, 64, 2654435761) {
    uint64_t i, found = 0;
    BL_SUSPEND { fill(0.7, (uint64_t)step); }
    for (i = 0; i < n; i++) found += lookup(1 + i % (uint64_t)(0.7 * SLOTS), (uint64_t)step);
    BL_KEEP(found);
}

BL_MAIN_COUNTERS("time,probes")
