/*
 * fs_read.c: the cost of reading a file that is in the page cache. benchlab sys
 * suite (after Lind's fs_read).
 *
 *   cc -O2 -Iinclude suites/sys/fs_read.c -o fs_read && ./fs_read
 *   clang --target=wasm32-wasi -O2 -Iinclude suites/sys/fs_read.c -o fs_read.wasm
 *
 * fs_read/bytes times one pread(fd, buf, bytes, 0) per iteration, for bytes =
 * 1, 1024, 4096 and 10240: the system call (or WASI host call) plus copying
 * `bytes` bytes from the page cache into the buffer.
 *
 * pread at offset 0 rather than read: every call reads the same bytes, so no
 * lseek is needed between calls and the file never runs out. The file holds
 * FILE_SIZE bytes, written (untimed) when the body starts, so it is in the
 * page cache: this measures the read path, not the disk.
 *
 * The file is created in the current directory and removed before the body
 * returns; under a wasm runtime the current directory is the preopened one
 * (e.g. `python -m benchlab.wasi --dir DIR fs_read.wasm`).
 */
#define _POSIX_C_SOURCE 200809L

#include "benchlab.h"
#include "sysbench.h"

#include <string.h>

#define FILE_SIZE 10240 /* the largest read */

static char buf[FILE_SIZE];

BL_BENCH_ARGS(fs_read, n, bytes, 1, 1024, 4096, 10240)
{
    int fd = -1;
    BL_SUSPEND {
        fd = sys_scratch_create("benchlab_fs_read");
        memset(buf, 'A', sizeof buf);
        if (pwrite(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf)
            sys_die("fs_read: filling the file");
    }
    for (uint64_t i = 0; i < n; i++)
        if (pread(fd, buf, (size_t)bytes, 0) != (ssize_t)bytes)
            sys_die("fs_read: pread");
    BL_SUSPEND { sys_scratch_remove(fd); }
}

BL_MAIN()
