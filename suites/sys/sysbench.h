/*
 * sysbench.h: helpers shared by the programs of suites/sys (not a benchmark).
 * Included with quotes, so `cc -O2 -Iinclude suites/sys/FILE.c` finds it next
 * to the file. Everything here is static inline: a program that does not use a
 * helper gets no unused-function warning.
 *
 * Needs _POSIX_C_SOURCE defined before any system header (each program does).
 */
#ifndef BENCHLAB_SYSBENCH_H
#define BENCHLAB_SYSBENCH_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The path of the scratch file a body has created and not yet removed, so
 * that sys_die() can remove it; empty when there is none. */
static char sys_scratch_path[64];

/* Report a failed call and stop the program (exit, so atexit handlers run),
 * leaving no scratch file behind. */
static inline void sys_die(const char *what)
{
    perror(what);
    if (sys_scratch_path[0])
        unlink(sys_scratch_path);
    exit(1);
}

/* Create a new empty file "PREFIX.XXXXXXXX.tmp" in the current directory and
 * return a read-write descriptor on it. mkstemp() would do, but wasi-libc does
 * not offer it; so: open(O_CREAT | O_EXCL) with a name from the clock, and
 * another name if that one is taken (two runs in one directory, e.g. a native
 * and a wasm one, never share a file). */
static inline int sys_scratch_create(const char *prefix)
{
    struct timespec ts;
    uint64_t x;
    int attempt;
    clock_gettime(CLOCK_REALTIME, &ts);
    x = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    for (attempt = 0; attempt < 100; attempt++) {
        int fd;
        x = x * 6364136223846793005u + 1442695040888963407u; /* LCG step */
        snprintf(sys_scratch_path, sizeof sys_scratch_path, "%s.%08lx.tmp", prefix,
                 (unsigned long)(x >> 32));
        fd = open(sys_scratch_path, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            break;
    }
    sys_scratch_path[0] = '\0';
#if defined(__wasi__)
    sys_die("creating a scratch file in the current directory (a WASI program sees only "
            "preopened directories: run it with e.g. --dir DIR)");
#else
    sys_die("creating a scratch file in the current directory");
#endif
    return -1;
}

/* Close the descriptor and remove the scratch file. */
static inline void sys_scratch_remove(int fd)
{
    close(fd);
    unlink(sys_scratch_path);
    sys_scratch_path[0] = '\0';
}

/* write() and read() may move fewer bytes than asked (pipes and sockets
 * deliver large messages in pieces): loop until all bytes moved. 0 on
 * success; -1 on an error or an early end-of-file. */
static inline int sys_write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t r = write(fd, p, len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

static inline int sys_read_all(int fd, char *p, size_t len)
{
    while (len > 0) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

#endif
