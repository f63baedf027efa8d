/*
 * args.c: sweep a parameter with BL_BENCH_ARGS.
 *
 *   cc -O2 -Iinclude examples/args.c -o args && ./args
 *
 * BL_BENCH_ARGS(name, n, arg, v1, v2, ...) defines one benchmark per value;
 * inside the body `arg` (here `bytes`) holds the value as an int64_t, and the
 * results are named sum/bytes=4096 and so on (the "param" of every format).
 *
 * sum/bytes adds up the first `bytes` bytes of an array, as 64-bit words. The
 * time per call grows with the size; divide by it to see the bandwidth drop
 * each time the data outgrows a cache level (32 KiB to a few MiB on most
 * machines).
 */
#include "benchlab.h"

#define MAX_BYTES (16 * 1024 * 1024)

static uint64_t data[MAX_BYTES / sizeof(uint64_t)];
static int data_ready;

BL_BENCH_ARGS(sum, n, bytes, 4096, 32768, 262144, 2097152, 16777216)
{
    size_t words = (size_t)bytes / sizeof(uint64_t);
    BL_SUSPEND {
        /* Written once, before the first timed loop of any size: the first
         * touch of fresh memory (page faults) is set-up, not summing. */
        if (!data_ready) {
            for (size_t j = 0; j < MAX_BYTES / sizeof(uint64_t); j++)
                data[j] = j;
            data_ready = 1;
        }
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t s = 0;
        for (size_t j = 0; j < words; j++)
            s += data[j];
        BL_KEEP(s);
        BL_CLOBBER(); /* the data may have changed: sum it again, really */
    }
}

BL_MAIN()
