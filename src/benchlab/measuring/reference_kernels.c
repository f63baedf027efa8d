/* reference_kernels.c - benchlab's own reference kernels, one per kind of cost, which
   `benchlab calibrate` runs as an A/A (the same binary in separate runs) to measure how
   much whole runs and single processes differ on this machine (src/benchlab/statistics/noise.py,
   "The prior"). Their names are noise.KINDS' values. Each kind moves differently with
   the host's state: a loop that issues an instruction every cycle slows when a busy
   hyperthread sibling takes issue slots; a dependent chain is bound by latency and
   barely moves; a system call moves with the kernel's entry path and its mitigations. */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "benchlab.h"

/* Loop-bound: a 64-byte copy between cache-resident buffers, inlined at -O2 as a few
   wide loads and stores; the pointers pass through an empty asm so the copies cannot
   be proven dead. */
static char ref_src[64], ref_dst[64];

BL_BENCH(memcpy64, n) {
    char *d = ref_dst, *s = ref_src;
    uint64_t i;
    __asm__ __volatile__("" : "+r"(d), "+r"(s));
    for (i = 0; i < n; i++) {
        memcpy(d, s, 64);
        BL_CLOBBER();
    }
}

/* Latency-bound: 100 dependent multiply-adds per iteration; the factors come from
   volatiles so nothing folds at compile time. */
static volatile uint64_t ref_mul = 6364136223846793005ull, ref_add = 1442695040888963407ull;

BL_BENCH(chain100, n) {
    uint64_t x = 1, a = ref_mul, b = ref_add, i;
    int k;
    for (i = 0; i < n; i++) {
        for (k = 0; k < 100; k++) x = x * a + b;
        BL_KEEP(x);
    }
}

/* Syscall-bound: getpid through syscall(), a real kernel entry on any libc. */
BL_BENCH(getpid, n) {
    uint64_t i;
    for (i = 0; i < n; i++) BL_KEEP(syscall(SYS_getpid));
}

BL_MAIN()
