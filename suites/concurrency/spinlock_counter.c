/* A counter behind a test-and-test-and-set spinlock: waiting threads spin on a plain
   load (the line stays shared in their caches) and only try the exchange when the lock
   looks free, so a contended lock does not turn into a storm of exclusive requests.
   destroy() checks the counter against the threads' own counts, as mutex_counter does.
   cc -O2 -pthread -Iinclude suites/concurrency/spinlock_counter.c -o spinlock_counter && ./spinlock_counter -t=2 */
#include "benchlab.h"

#include <stdio.h>
#include <stdlib.h>

static int lock;
static uint64_t counter, expected;

static void spin_lock(int *l) {
    for (;;) {
        if (!__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) return;
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) {
#if defined(__x86_64__) || defined(__i386__)
            __asm__ __volatile__("pause"); /* frees the core's resources for its sibling */
#elif defined(__aarch64__)
            __asm__ __volatile__("yield");
#endif
        }
    }
}

static void spin_unlock(int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

typedef struct { uint64_t increments; } thread_state;

static void init(uint64_t size) { counter = expected = size; }

static void *register_thread(size_t index) {
    (void)index;
    return calloc(1, sizeof(thread_state));
}

static int increment(size_t op, void *thread) {
    (void)op;
    spin_lock(&lock);
    counter++;
    spin_unlock(&lock);
    ((thread_state *)thread)->increments++;
    return BL_OP_OK;
}

static void deregister_thread(void *thread) {
    __atomic_fetch_add(&expected, ((thread_state *)thread)->increments, __ATOMIC_RELAXED);
    free(thread);
}

static void destroy(void) {
    if (counter != expected) {
        fprintf(stderr, "spinlock_counter: counter is %llu, the threads made it %llu: lost updates\n",
                (unsigned long long)counter, (unsigned long long)expected);
        abort();
    }
}

BL_TARGET(spinlock_counter, init, register_thread, increment, deregister_thread, destroy, "inc")
BL_MAIN()
