/* The threaded (CSB) mode's own cost per operation, beside a bare loop of the same
   dispatch (issue 20, part 3). One program, two modes:

     csb_harness -t=T -d=D [header flags]   the harness: bl_main on the targets below,
                                            exactly as suites/concurrency/empty.c runs
     csb_harness --bare -t=T -d=D [-mix]    the bare loop: T threads, no harness

   Both call the same functions through the same kind of pointer (a target's dispatch),
   so what separates the two figures is the harness alone: its choice of the operation,
   its counting, its clock reads and latency histogram, its stop check.

   The bare loop is the least any harness must do: choose the operation by the mix (for
   `empty`, one operation: always op 0; for `two_nops` with --mix, an inline splitmix64
   number and the 1024-slot table, as the harness does), call it, count the calls and
   successes.
   It checks a stop flag once per 1024 calls and reads the clock only at its start and
   end. It prints one line, bare_threads=T;bare_ops=N;bare_longest_s=S;bare_ns_per_op=X;
   where X is per thread, the longest window over the operations of one thread on
   average (the same definition as the harness's throughput_min_ts: T * 1e9 / that).

   bench/csb_harness.py builds this, runs both modes alternately and prints the table.
   cc -O2 -pthread -Iinclude bench/csb_harness.c -o csb_harness */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "benchlab.h"

static int nop(size_t op, void *thread) {
    (void)op;
    (void)thread;
    return BL_OP_OK;
}

/* empty: suites/concurrency/empty.c's target (one operation). two_nops: the same
   nothing twice, so that a 512/512 mix makes the harness draw an operation each time. */
BL_TARGET(empty, NULL, NULL, nop, NULL, NULL, "nop")
BL_TARGET(two_nops, NULL, NULL, nop, NULL, NULL, "nop_a", "nop_b")

/* The dispatch pointer as the harness holds it: read from memory the compiler cannot
   see through, so the call stays an indirect call to an opaque function. */
static int (*volatile bare_dispatch)(size_t, void *) = nop;

typedef struct bare_thread {
    pthread_t id;
    int mix;                   /* draw the operation from a 512/512 table */
    uint64_t seed, ops, succ;
    double seconds;
} __attribute__((aligned(64))) bare_thread;

static int bare_go, bare_stop;

/* splitmix64, as bl_random, but inline: the bare loop draws as cheaply as it can. */
static inline uint64_t bare_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *bare_main(void *arg) {
    bare_thread *b = (bare_thread *)arg;
    int (*dispatch)(size_t, void *) = bare_dispatch;
    unsigned char table[1024];
    uint64_t rng = b->seed, ops = 0, succ = 0;
    double start;
    int i;
    for (i = 0; i < 1024; i++) table[i] = (unsigned char)(b->mix && i >= 512);
    while (!__atomic_load_n(&bare_go, __ATOMIC_ACQUIRE)) continue;
    start = now_s();
    do {
        if (b->mix) {
            for (i = 0; i < 1024; i++) succ += dispatch(table[bare_random(&rng) & 1023], NULL) > 0;
        } else {
            for (i = 0; i < 1024; i++) succ += dispatch(0, NULL) > 0;
        }
        ops += 1024;
    } while (!__atomic_load_n(&bare_stop, __ATOMIC_RELAXED));
    b->seconds = now_s() - start;
    b->ops = ops;
    b->succ = succ;
    return NULL;
}

static int bare(int argc, char **argv) {
    uint64_t threads = 1, t, ops = 0;
    double duration = 1, longest = 0;
    int i, mix = 0;
    bare_thread *bs;
    void *mem;
    struct timespec sleep_for;
    for (i = 2; i < argc; i++) {
        char *end = NULL;
        if (!strncmp(argv[i], "-t=", 3)) threads = strtoull(argv[i] + 3, &end, 10);
        else if (!strncmp(argv[i], "-d=", 3)) duration = strtod(argv[i] + 3, &end);
        else if (!strcmp(argv[i], "--mix")) { mix = 1; continue; }
        if (!end || *end || threads < 1 || threads > 64 || !(duration > 0 && duration <= 60)) {
            fprintf(stderr, "csb_harness --bare: flags are -t=T (1 to 64), -d=D (seconds, up to 60) and --mix (got \"%s\")\n",
                    argv[i]);
            return 2;
        }
    }
    if (posix_memalign(&mem, 64, threads * sizeof *bs) != 0) return 2;
    bs = (bare_thread *)mem;
    memset(bs, 0, threads * sizeof *bs);
    for (t = 0; t < threads; t++) {
        bs[t].mix = mix;
        bs[t].seed = 0x9E3779B97F4A7C15ull * (t + 1);
        if (pthread_create(&bs[t].id, NULL, bare_main, &bs[t]) != 0) {
            fprintf(stderr, "csb_harness --bare: pthread_create failed\n");
            return 2;
        }
    }
    __atomic_store_n(&bare_go, 1, __ATOMIC_RELEASE);
    sleep_for.tv_sec = (time_t)duration;
    sleep_for.tv_nsec = (long)((duration - (double)sleep_for.tv_sec) * 1e9);
    nanosleep(&sleep_for, NULL);
    __atomic_store_n(&bare_stop, 1, __ATOMIC_RELAXED);
    for (t = 0; t < threads; t++) {
        pthread_join(bs[t].id, NULL);
        ops += bs[t].ops;
        if (bs[t].seconds > longest) longest = bs[t].seconds;
        if (bs[t].succ != bs[t].ops) {
            fprintf(stderr, "csb_harness --bare: %llu successes in %llu calls of nop\n", (unsigned long long)bs[t].succ,
                    (unsigned long long)bs[t].ops);
            return 1;
        }
    }
    printf("bare_threads=%llu;bare_ops=%llu;bare_longest_s=%.6f;bare_ns_per_op=%.4f;\n", (unsigned long long)threads,
           (unsigned long long)ops, longest, (double)threads * longest * 1e9 / (double)ops);
    free(bs);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--bare")) return bare(argc, argv);
    return bl_main(argc, argv);
}
