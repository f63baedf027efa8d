/*
 * sys_close.c: the cost of close(2). benchlab sys suite (after Lind's sys_close).
 *
 *   cc -O2 -Iinclude suites/sys/sys_close.c -o sys_close && ./sys_close
 *   clang --target=wasm32-wasi -O2 -Iinclude suites/sys/sys_close.c -o sys_close.wasm
 *
 * What exactly is timed, per iteration:
 *   sys_close        close() of a descriptor opened with open() just before
 *                    (untimed). It is the last reference to its open file, so
 *                    the time includes releasing the file (on Linux that work
 *                    runs on the way back to user space, inside the timed call).
 *   sys_close_dup    close() of a descriptor made by dup() just before
 *                    (untimed). The open file stays referenced by the original
 *                    descriptor, so this is only the descriptor-table update.
 *                    Not on WASI: WASI has no dup().
 *   sys_close_ebadf  close(-1), which fails with EBADF: the bare round trip
 *                    into the kernel (natively) or into the WASI host (under a
 *                    wasm runtime). This is what Lind's sys_close times.
 *
 * The descriptors are opened in batches of BATCH inside BL_SUSPEND, then closed
 * one after another in the timed part. A batch, not one descriptor per
 * suspension, because each suspension costs two timer reads, and a little of
 * that leaks into the measurement; spread over a batch it is negligible. BATCH
 * stays far below any descriptor limit.
 *
 * The file the descriptors refer to is created in the current directory and
 * removed before the body returns.
 */
#define _POSIX_C_SOURCE 200809L

#include "benchlab.h"
#include "sysbench.h"

#define BATCH 64

BL_BENCH(sys_close, n)
{
    int fds[BATCH];
    int keep = -1;
    uint64_t done = 0;
    BL_SUSPEND { keep = sys_scratch_create("benchlab_sys_close"); }
    while (done < n) {
        int k = n - done < BATCH ? (int)(n - done) : BATCH;
        int j;
        BL_SUSPEND {
            for (j = 0; j < k; j++)
                if ((fds[j] = open(sys_scratch_path, O_RDONLY)) < 0)
                    sys_die("sys_close: open");
        }
        for (j = 0; j < k; j++)
            if (close(fds[j]) != 0)
                sys_die("sys_close: close");
        done += (uint64_t)k;
    }
    BL_SUSPEND { sys_scratch_remove(keep); }
}

/* WASI has no dup() (its fd_renumber moves a descriptor, it does not copy it). */
#if !defined(__wasi__)
BL_BENCH(sys_close_dup, n)
{
    int fds[BATCH];
    int keep = -1;
    uint64_t done = 0;
    BL_SUSPEND { keep = sys_scratch_create("benchlab_sys_close"); }
    while (done < n) {
        int k = n - done < BATCH ? (int)(n - done) : BATCH;
        int j;
        BL_SUSPEND {
            for (j = 0; j < k; j++)
                if ((fds[j] = dup(keep)) < 0)
                    sys_die("sys_close_dup: dup");
        }
        for (j = 0; j < k; j++)
            if (close(fds[j]) != 0)
                sys_die("sys_close_dup: close");
        done += (uint64_t)k;
    }
    BL_SUSPEND { sys_scratch_remove(keep); }
}
#endif

BL_BENCH(sys_close_ebadf, n)
{
    for (uint64_t i = 0; i < n; i++) {
        int r = close(-1);
        BL_KEEP(r);
    }
}

BL_MAIN()
