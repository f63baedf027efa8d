/* A threaded target: throughput of a shared counter under concurrency, in the model of
   the CSB scalability skeleton (docs/threads.md). Two operations: "add" increments the
   counter, "read" loads it; their mix is set with -op0=F -op1=F (per 1024).

       cc -O2 -pthread -Iinclude examples/threads.c -o threads
       ./threads -t=2 -d=1 --format=table
       ./threads -t=2 -d=1 -op0=102 -op1=922 --format=csb    (90% reads, CSB's output)

   Each thread gets its own context from register_thread (here: the count of its adds),
   and destroy() checks that the counter holds every add: the harness gives each
   operation's count, successes and latency percentiles, the target checks itself. */
#include "benchlab.h"

#include <stdio.h>
#include <stdlib.h>

static uint64_t counter, adds;

typedef struct { uint64_t adds; } thread_state;

static void init(uint64_t size) { counter = adds = size; }

static void *register_thread(size_t index) {
    (void)index;
    return calloc(1, sizeof(thread_state));
}

static int dispatch(size_t op, void *thread) {
    if (op == 0) {
        __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        ((thread_state *)thread)->adds++;
        return BL_OP_OK;
    }
    /* A read "succeeds" when it sees an odd value: a success rate, for the example. */
    return (int)(__atomic_load_n(&counter, __ATOMIC_RELAXED) & 1);
}

static void deregister_thread(void *thread) {
    __atomic_fetch_add(&adds, ((thread_state *)thread)->adds, __ATOMIC_RELAXED);
    free(thread);
}

static void destroy(void) {
    if (counter != adds) {
        fprintf(stderr, "threads: counter %llu, adds %llu\n", (unsigned long long)counter, (unsigned long long)adds);
        abort();
    }
}

BL_TARGET(shared_counter, init, register_thread, dispatch, deregister_thread, destroy, "add", "read")
BL_MAIN()
