/*
 * fs_write.c: the cost of writing to a file, without flushing it to disk.
 * benchlab sys suite (after Lind's fs_write).
 *
 *   cc -O2 -Iinclude suites/sys/fs_write.c -o fs_write && ./fs_write
 *   clang --target=wasm32-wasi -O2 -Iinclude suites/sys/fs_write.c -o fs_write.wasm
 *
 * fs_write/bytes times one pwrite(fd, buf, bytes, 0) per iteration, for bytes =
 * 1, 1024, 4096 and 10240: the system call (or WASI host call) plus copying
 * `bytes` bytes into the page cache and marking the pages dirty. There is no
 * fsync: the disk is not part of the measurement (the kernel writes the pages
 * back later, in the background).
 *
 * pwrite at offset 0 rather than write: every call overwrites the same bytes,
 * so the file keeps its size (at most 10240 bytes) however many iterations
 * run. With write() the file would grow by bytes * n, and the cost would
 * drift as it grew (new blocks to allocate, more pages to write back).
 *
 * The file is created in the current directory and removed before the body
 * returns; under a wasm runtime the current directory is the preopened one
 * (e.g. `python -m benchlab.wasi --dir DIR fs_write.wasm`).
 */
#define _POSIX_C_SOURCE 200809L

#include "benchlab.h"
#include "sysbench.h"

#include <string.h>

#define MAX_WRITE 10240

static char buf[MAX_WRITE];

BL_BENCH_ARGS(fs_write, n, bytes, 1, 1024, 4096, 10240)
{
    int fd = -1;
    BL_SUSPEND {
        fd = sys_scratch_create("benchlab_fs_write");
        memset(buf, 'A', sizeof buf);
        /* A first write allocates the file's blocks, so the timed writes only
         * overwrite cached pages: the same work on every iteration. */
        if (pwrite(fd, buf, (size_t)bytes, 0) != (ssize_t)bytes)
            sys_die("fs_write: first pwrite");
    }
    for (uint64_t i = 0; i < n; i++)
        if (pwrite(fd, buf, (size_t)bytes, 0) != (ssize_t)bytes)
            sys_die("fs_write: pwrite");
    BL_SUSPEND { sys_scratch_remove(fd); }
}

BL_MAIN()
