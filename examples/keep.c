/*
 * keep.c: the optimizer barriers BL_KEEP and BL_CLOBBER, and what goes wrong
 * without them.
 *
 *   cc -O2 -Iinclude examples/keep.c -o keep && ./keep
 *
 * A compiler may delete work whose result nobody uses, and may move work out
 * of a loop when it can prove every iteration does the same thing. Either way
 * the benchmark times less than it claims, often nothing at all. Each pair
 * below is one mistake and its fix; the broken one reports about 0 ns.
 *
 *   hash_dropped      hashes every i and throws the results away: the loop is
 *                     dead code.
 *   hash_kept         BL_KEEP(h) on each result: each hash is computed.
 *
 *   strlen_hoisted    sums strlen(text) over the loop and keeps only the sum:
 *                     strlen() has no side effects and nothing in the loop
 *                     writes memory, so the compiler calls it once and
 *                     multiplies.
 *   strlen_clobbered  BL_CLOBBER() in each iteration: memory may have changed,
 *                     so strlen() must run again every time.
 *
 *   copy_unseen       copies into an array whose address never leaves this
 *                     file, with BL_CLOBBER() after each copy, and still gets
 *                     deleted: the barrier only covers memory the compiler
 *                     thinks other code can reach, and nothing can reach an
 *                     array that is never read and whose address is never
 *                     taken.
 *   copy_seen         BL_KEEP on the arrays' addresses first: now they have
 *                     escaped, the clobber covers them, and every copy happens.
 *                     (The source needs it too: an array nothing writes is
 *                     known to hold zeros, and the copy would become a
 *                     memset.)
 *
 * BL_KEEP(x) makes the value x escape (and also acts as BL_CLOBBER);
 * BL_CLOBBER() says any reachable memory may have been read or written. Neither
 * emits an instruction. Put the barrier in each iteration, not once after the
 * loop (see strlen_hoisted).
 */
#include "benchlab.h"

#include <string.h>

/* A cheap, well-mixed 64-bit hash (the splitmix64 finalizer). */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

BL_BENCH(hash_dropped, n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t h = mix(i);
        (void)h; /* unused: the optimizer deletes mix() and then the loop */
    }
}

BL_BENCH(hash_kept, n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t h = mix(i);
        BL_KEEP(h);
    }
}

/* Reached through a volatile pointer, so the compiler cannot know the string's
 * contents (it would fold strlen of a known string to a constant). */
static char text_storage[] = "the quick brown fox jumps over the lazy dog, twice";
static char *volatile text = text_storage;

BL_BENCH(strlen_hoisted, n)
{
    const char *s = text;
    size_t sum = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += strlen(s);
    BL_KEEP(sum); /* once, after the loop: too late to stop the hoisting */
}

BL_BENCH(strlen_clobbered, n)
{
    const char *s = text;
    size_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        sum += strlen(s);
        BL_CLOBBER();
    }
    BL_KEEP(sum);
}

/* One array per benchmark: once an array's address escapes anywhere, the
 * compiler keeps every store to it, in every function. */
static unsigned char source[1024], unseen[1024], seen[1024];

BL_BENCH(copy_unseen, n)
{
    for (uint64_t i = 0; i < n; i++) {
        memcpy(unseen, source, sizeof unseen);
        BL_CLOBBER(); /* not enough: `unseen` is never read, nor its address taken */
    }
}

BL_BENCH(copy_seen, n)
{
    unsigned char *out = seen;
    const unsigned char *in = source;
    BL_KEEP(out); /* the addresses escape: from here on, BL_CLOBBER covers them */
    BL_KEEP(in);
    for (uint64_t i = 0; i < n; i++) {
        memcpy(out, in, sizeof seen);
        BL_CLOBBER();
    }
}

BL_MAIN()
