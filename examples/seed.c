/*
 * seed.c: random input that a run can reproduce, with bl_seed and bl_random.
 *
 *   cc -O2 -Iinclude examples/seed.c -o seed && ./seed --seed=12345
 *
 * bl_seed() returns the run's seed: the same for every benchmark of the run,
 * printed in the context (table header, jsonl "seed"), and settable with
 * --seed=N. (`benchlab run` gives each of its processes a seed of its own,
 * drawn from its run's, so its interval covers other seeds.) Seed a bl_random() state with it and the "random" input is the
 * same in every sample, in every benchmark, and in a later run given the same
 * --seed, so a surprising result can be reproduced exactly.
 *
 *   lookup_random     binary search for keys drawn at random: the branches of
 *                     the search cannot be predicted and the probes miss the
 *                     cache.
 *   lookup_ascending  the same number of searches for keys in ascending order:
 *                     consecutive searches take the same path, which the CPU
 *                     predicts and caches. Same work, less time.
 * Both draw their keys with bl_random(), a few instructions per call, so the
 * generator's cost is in both and the difference is the search's alone.
 */
#include "benchlab.h"

#define SIZE (1u << 22) /* 4 Mi sorted keys, 16 MiB: larger than most caches */

static uint32_t table[SIZE];
static int table_ready;

static void make_table(void)
{
    /* Even numbers 0, 2, 4, ...: sorted, and half of all keys are absent. */
    if (!table_ready) {
        for (uint32_t i = 0; i < SIZE; i++)
            table[i] = 2 * i;
        table_ready = 1;
    }
}

/* Index of the first element >= key (branchy on purpose). */
static uint32_t lower_bound(uint32_t key)
{
    uint32_t lo = 0, hi = SIZE;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (table[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

BL_BENCH(lookup_random, n)
{
    uint64_t state = 0;
    BL_SUSPEND {
        make_table();
        state = bl_seed(); /* the same key sequence in every sample */
    }
    for (uint64_t i = 0; i < n; i++) {
        uint32_t key = (uint32_t)(bl_random(&state) % (2u * SIZE));
        BL_KEEP(lower_bound(key));
    }
}

BL_BENCH(lookup_ascending, n)
{
    uint64_t state = 0;
    BL_SUSPEND {
        make_table();
        state = bl_seed();
    }
    for (uint64_t i = 0; i < n; i++) {
        /* Drawn and discarded, so that both benchmarks pay for the generator. */
        uint64_t r = bl_random(&state);
        uint32_t key = (uint32_t)(i % (2u * SIZE));
        BL_KEEP(r);
        BL_KEEP(lower_bound(key));
    }
}

BL_MAIN()
