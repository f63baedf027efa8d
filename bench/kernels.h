/* kernels.h - the kernels of bench/, one copy for both tools.

   bl_kernels.c (benchlab, C) and gb_kernels.cc (Google Benchmark, C++) include this
   file and write each benchmark as "set up, then loop, running one KERN_* step per
   iteration", so the two tools time the same instructions; only the loop around them
   is the tool's own. Both are compiled with the same flags (-O2, see bench/run).

   The barriers are our own rather than BL_KEEP or benchmark::DoNotOptimize, so that
   the code inside the loop does not depend on the tool. They are the same inline
   assembly as BL_KEEP/BL_CLOBBER and emit no instruction. */
#ifndef BENCH_KERNELS_H
#define BENCH_KERNELS_H

#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

/* The value must be computed and is assumed used; "r,m" lets it stay in a register.
   The "memory" clobber keeps loads and stores from moving across it. */
#define KERN_KEEP(x) __asm__ __volatile__("" : : "r,m"(x) : "memory")
/* All memory is assumed read and written here. */
#define KERN_CLOBBER() __asm__ __volatile__("" : : : "memory")

/* The empty body: a statement the compiler must keep. Without it both tools' loops
   would be deleted (an empty loop with a known trip count has no effect), and the
   figure would say nothing about the harness. It is also benchlab's own empty loop,
   the one whose cost it subtracts. */
#define KERN_EMPTY() KERN_CLOBBER()

/* The chain: K dependent multiply-adds, x = x*a + b. Each step needs the previous x,
   so a step costs the latency of one imul plus one add (4 cycles on current x86-64),
   and K steps cost K times that: the ratio between two values of K is known. The
   factors come from volatiles, read once before the loop, so nothing folds at compile
   time; x carries over from one iteration to the next, so the whole loop is one chain
   and iterations cannot overlap. */
static volatile uint64_t kern_mul = 6364136223846793005ull;
static volatile uint64_t kern_add = 1442695040888963407ull;

static inline uint64_t kern_chain(uint64_t x, uint64_t a, uint64_t b, int k) {
    int i;
    for (i = 0; i < k; i++) x = x * a + b;
    return x;
}

#define KERN_CHAIN_SETUP uint64_t kern_x = 1, kern_a = kern_mul, kern_b = kern_add
#define KERN_CHAIN(K)                                           \
    do {                                                        \
        kern_x = kern_chain(kern_x, kern_a, kern_b, (K));       \
        KERN_KEEP(kern_x);                                      \
    } while (0)

/* An empty call through a function pointer the compiler cannot see through (it is
   volatile, so it is loaded again each time and cannot be inlined): the cost of a
   call and return, as a sandbox's or an interpreter's dispatch pays it. */
static int kern_nothing(int x) { return x; }
static int (*volatile kern_call_fn)(int) __attribute__((unused)) = kern_nothing;
#define KERN_CALL() KERN_KEEP(kern_call_fn(1))

/* getpid through syscall(): glibc's getpid() is a real system call again since 2.25,
   but syscall() makes sure of it on any libc. */
#define KERN_GETPID() KERN_KEEP(syscall(SYS_getpid))

/* clock_gettime(CLOCK_MONOTONIC): the vDSO path on Linux, no kernel entry. */
#define KERN_CLOCK_GETTIME()                                    \
    do {                                                        \
        struct timespec kern_ts;                                \
        clock_gettime(CLOCK_MONOTONIC, &kern_ts);               \
        KERN_KEEP(kern_ts.tv_nsec);                             \
    } while (0)

/* A 64-byte memcpy between two cache-resident buffers. The size is a constant, so
   -O2 inlines it as four 16-byte loads and stores, as it would in real code. The
   pointers pass through an empty asm first: the compiler can no longer tell which
   buffers they point to, so it cannot prove the copies dead (it did, for static
   buffers nobody reads: the loop compiled to nothing). The clobber after each copy
   then makes every copy happen and reload its source. */
static char kern_src[64] __attribute__((aligned(64), unused));
static char kern_dst[64] __attribute__((aligned(64), unused));
#define KERN_MEMCPY64_SETUP                                     \
    char *kern_d = kern_dst, *kern_s = kern_src;                \
    __asm__ __volatile__("" : "+r"(kern_d), "+r"(kern_s))
#define KERN_MEMCPY64()                                         \
    do {                                                        \
        memcpy(kern_d, kern_s, 64);                             \
        KERN_CLOBBER();                                         \
    } while (0)

#endif
