/*
 * ipc_uds.c: round-trip time through a Unix-domain stream socket to another
 * process. benchlab sys suite (after Lind's ipc_uds).
 *
 *   cc -O2 -Iinclude suites/sys/ipc_uds.c -o ipc_uds && ./ipc_uds
 *
 * ipc_uds/bytes times one round trip per iteration, for bytes = 1, 1024, 4096
 * and 10240: write `bytes` bytes into one end of a socketpair(AF_UNIX,
 * SOCK_STREAM), a forked child reads them from the other end and writes them
 * back, and the parent reads the whole echo. Two writes, two reads (at least;
 * a stream may deliver a message in pieces) and two wake-ups of a sleeping
 * process per iteration; compare with ipc_pipe for the same sizes.
 *
 * The child is forked once, the first time a body runs, and serves every size
 * of every sample; it exits when it reads end-of-file, that is when the parent
 * closes its end (at exit, where the parent also waits for it) or dies.
 *
 * WASI has no fork() and no socketpair(), so on wasm32-wasi this program
 * defines no benchmark: it builds, runs and prints only its context.
 */
#define _POSIX_C_SOURCE 200809L

#include "benchlab.h"
#include "sysbench.h"

#if !defined(__wasi__)

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#define MAX_MSG 10240

static int sock = -1; /* the parent's end */
static pid_t child = -1;
static char msg[MAX_MSG];

/* The child: echo whatever arrives until end-of-file. _exit, not exit: the
 * child must not flush stdio buffers it inherited from the parent. */
static void echo(int fd)
{
    static char buf[MAX_MSG];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            _exit(r == 0 ? 0 : 1);
        if (sys_write_all(fd, buf, (size_t)r) != 0)
            _exit(1);
    }
}

static void stop_child(void)
{
    close(sock); /* the child reads end-of-file and exits */
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
    }
}

static void start_child(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        sys_die("ipc_uds: socketpair");
    child = fork();
    if (child < 0)
        sys_die("ipc_uds: fork");
    if (child == 0) {
        close(sv[0]);
        echo(sv[1]);
    }
    close(sv[1]);
    sock = sv[0];
    atexit(stop_child);
}

BL_BENCH_ARGS(ipc_uds, n, bytes, 1, 1024, 4096, 10240)
{
    BL_SUSPEND {
        if (child < 0)
            start_child();
    }
    for (uint64_t i = 0; i < n; i++) {
        if (sys_write_all(sock, msg, (size_t)bytes) != 0)
            sys_die("ipc_uds: write");
        if (sys_read_all(sock, msg, (size_t)bytes) != 0)
            sys_die("ipc_uds: read");
    }
}

#endif /* !__wasi__ */

BL_MAIN()
