/*
 * sys_geteuid.c: the cost of a trivial system call. benchlab sys suite (after
 * Lind's sys_geteuid).
 *
 *   cc -O2 -Iinclude suites/sys/sys_geteuid.c -o sys_geteuid && ./sys_geteuid
 *
 * sys_geteuid times one geteuid() per iteration: entering the kernel, reading
 * one field of the process credentials, returning. glibc does not cache the
 * result, so each call is a real system call; BL_KEEP makes sure the result
 * (and so the call) is not optimized away.
 *
 * WASI has no user ids and wasi-libc no geteuid(), so on wasm32-wasi this
 * program defines no benchmark: it builds, runs and prints only its context.
 */
#define _POSIX_C_SOURCE 200809L

#include "benchlab.h"

#include <unistd.h>

#if !defined(__wasi__)
BL_BENCH(sys_geteuid, n)
{
    for (uint64_t i = 0; i < n; i++) {
        uid_t uid = geteuid();
        BL_KEEP(uid);
    }
}
#endif

BL_MAIN()
