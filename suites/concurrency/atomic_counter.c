/* A counter incremented with one atomic read-modify-write (lock xadd on x86-64): the
   floor for any shared counter. With 2 threads the cache line moves between the cores
   on every increment, which is what the throughput shows.
   cc -O2 -pthread -Iinclude suites/concurrency/atomic_counter.c -o atomic_counter && ./atomic_counter -t=2 */
#include "benchlab.h"

#include <stdio.h>
#include <stdlib.h>

static uint64_t counter, expected;

typedef struct { uint64_t increments; } thread_state;

static void init(uint64_t size) { counter = expected = size; }

static void *register_thread(size_t index) {
    (void)index;
    return calloc(1, sizeof(thread_state));
}

static int increment(size_t op, void *thread) {
    (void)op;
    __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
    ((thread_state *)thread)->increments++;
    return BL_OP_OK;
}

static void deregister_thread(void *thread) {
    __atomic_fetch_add(&expected, ((thread_state *)thread)->increments, __ATOMIC_RELAXED);
    free(thread);
}

static void destroy(void) {
    if (__atomic_load_n(&counter, __ATOMIC_RELAXED) != expected) {
        fprintf(stderr, "atomic_counter: counter is %llu, the threads made it %llu\n",
                (unsigned long long)counter, (unsigned long long)expected);
        abort();
    }
}

BL_TARGET(atomic_counter, init, register_thread, increment, deregister_thread, destroy, "inc")
BL_MAIN()
