/* A small chained hash map with one mutex per bucket, under a lookup/insert/delete mix.
   -s=S inserts S keys first; keys are drawn from [0, 2S) (from [0, 1024) when S is 0),
   so with equal inserts and deletes the map stays about half full, and each operation
   succeeds about half the time: lookup finds the key, insert finds it absent, delete
   finds it present. Buckets: the next power of two >= 2S (at least 64), so chains
   stay short. destroy() checks the map holds S + inserts - deletes keys.
   cc -O2 -pthread -Iinclude suites/concurrency/hash_map.c -o hash_map && ./hash_map -t=2 -s=1000 -op0=820 -op1=102 -op2=102 */
#include "benchlab.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct node {
    uint64_t key;
    struct node *next;
} node;

typedef struct bucket {
    pthread_mutex_t lock;
    node *head;
} bucket;

static bucket *buckets;
static uint64_t mask, key_range;
static int64_t expected_size; /* S, then plus every thread's inserts minus deletes */

typedef struct {
    uint64_t rng;
    int64_t delta;
} thread_state;

static uint64_t hash(uint64_t k) { /* a multiplicative hash: spreads consecutive keys */
    k *= 0x9E3779B97F4A7C15ull;
    return k ^ (k >> 29);
}

static int lookup(uint64_t key) {
    bucket *b = &buckets[hash(key) & mask];
    node *n;
    int found = 0;
    pthread_mutex_lock(&b->lock);
    for (n = b->head; n; n = n->next)
        if (n->key == key) { found = 1; break; }
    pthread_mutex_unlock(&b->lock);
    return found;
}

static int insert(uint64_t key) {
    bucket *b = &buckets[hash(key) & mask];
    node *n, *fresh = (node *)malloc(sizeof(node)); /* outside the lock: shorter hold time */
    if (!fresh) return BL_OP_SKIPPED;
    fresh->key = key;
    pthread_mutex_lock(&b->lock);
    for (n = b->head; n; n = n->next)
        if (n->key == key) break;
    if (!n) {
        fresh->next = b->head;
        b->head = fresh;
    }
    pthread_mutex_unlock(&b->lock);
    if (n) free(fresh);
    return n == NULL;
}

static int erase(uint64_t key) {
    bucket *b = &buckets[hash(key) & mask];
    node **link, *gone = NULL;
    pthread_mutex_lock(&b->lock);
    for (link = &b->head; *link; link = &(*link)->next)
        if ((*link)->key == key) {
            gone = *link;
            *link = gone->next;
            break;
        }
    pthread_mutex_unlock(&b->lock);
    free(gone);
    return gone != NULL;
}

static void init(uint64_t size) {
    uint64_t n = 64, i;
    while (n < 2 * size) n *= 2;
    buckets = (bucket *)calloc(n, sizeof(bucket));
    if (!buckets) { fprintf(stderr, "hash_map: out of memory\n"); exit(1); }
    for (i = 0; i < n; i++) pthread_mutex_init(&buckets[i].lock, NULL);
    mask = n - 1;
    key_range = size ? 2 * size : 1024;
    expected_size = 0;
    for (i = 0; i < size; i++) expected_size += insert(2 * i); /* every even key */
}

static void *register_thread(size_t index) {
    thread_state *t = (thread_state *)calloc(1, sizeof(thread_state));
    if (t) t->rng = bl_seed() ^ (index * 0x632BE59BD9B4E019ull);
    return t;
}

static int dispatch(size_t op, void *thread) {
    thread_state *t = (thread_state *)thread;
    uint64_t key = bl_random(&t->rng) % key_range;
    int ok;
    switch (op) {
    case 0: return lookup(key);
    case 1: ok = insert(key); t->delta += ok == 1; return ok;
    default: ok = erase(key); t->delta -= ok; return ok;
    }
}

static void deregister_thread(void *thread) {
    __atomic_fetch_add(&expected_size, ((thread_state *)thread)->delta, __ATOMIC_RELAXED);
    free(thread);
}

static void destroy(void) {
    uint64_t i;
    int64_t size = 0;
    for (i = 0; i <= mask; i++) {
        node *n = buckets[i].head;
        while (n) {
            node *next = n->next;
            free(n);
            n = next;
            size++;
        }
        pthread_mutex_destroy(&buckets[i].lock);
    }
    free(buckets);
    if (size != expected_size) {
        fprintf(stderr, "hash_map: %lld keys left, the threads' inserts and deletes say %lld\n",
                (long long)size, (long long)expected_size);
        abort();
    }
}

BL_TARGET(hash_map, init, register_thread, dispatch, deregister_thread, destroy, "lookup", "insert", "delete")
BL_MAIN()
