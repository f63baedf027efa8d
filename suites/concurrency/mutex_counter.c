/* A counter behind a pthread mutex: the cost of a lock that sleeps when contended.
   Each thread also counts its own increments, and destroy() checks that the shared
   counter equals their sum: a lost update would mean the lock does not exclude.
   cc -O2 -pthread -Iinclude suites/concurrency/mutex_counter.c -o mutex_counter && ./mutex_counter -t=2 */
#include "benchlab.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t counter, expected;

typedef struct { uint64_t increments; } thread_state;

static void init(uint64_t size) { counter = expected = size; }

static void *register_thread(size_t index) {
    (void)index;
    return calloc(1, sizeof(thread_state));
}

static int increment(size_t op, void *thread) {
    thread_state *t = (thread_state *)thread;
    (void)op;
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
    t->increments++;
    return BL_OP_OK;
}

static void deregister_thread(void *thread) {
    __atomic_fetch_add(&expected, ((thread_state *)thread)->increments, __ATOMIC_RELAXED);
    free(thread);
}

static void destroy(void) {
    if (counter != expected) {
        fprintf(stderr, "mutex_counter: counter is %llu, the threads made it %llu: lost updates\n",
                (unsigned long long)counter, (unsigned long long)expected);
        abort();
    }
}

BL_TARGET(mutex_counter, init, register_thread, increment, deregister_thread, destroy, "inc")
BL_MAIN()
