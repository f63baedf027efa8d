/*
 * ipc_pipe.c: round-trip time through a pair of pipes to another process.
 * benchlab sys suite (after Lind's ipc_pipe).
 *
 *   cc -O2 -Iinclude suites/sys/ipc_pipe.c -o ipc_pipe && ./ipc_pipe
 *
 * ipc_pipe/bytes times one round trip per iteration, for bytes = 1, 1024, 4096
 * and 10240: write `bytes` bytes into the pipe to a forked child, which reads
 * them and writes them back into a second pipe, and read the whole echo back.
 * That is two writes, two reads (at least; a large message may arrive in
 * pieces) and two wake-ups of a sleeping process per iteration.
 *
 * The child is forked once, the first time a body runs, and serves every size
 * of every sample; it exits when it reads end-of-file, that is when the parent
 * closes its end (at exit, where the parent also waits for it) or dies.
 *
 * WASI has no fork() and no pipe(), so on wasm32-wasi this program defines no
 * benchmark: it builds, runs and prints only its context.
 */
#define _POSIX_C_SOURCE 200809L

#include "benchlab.h"
#include "sysbench.h"

#if !defined(__wasi__)

#include <sys/types.h>
#include <sys/wait.h>

#define MAX_MSG 10240

static int to_child = -1, from_child = -1;
static pid_t child = -1;
static char msg[MAX_MSG];

/* The child: echo whatever arrives until end-of-file. _exit, not exit: the
 * child must not flush stdio buffers it inherited from the parent. */
static void echo(int in, int out)
{
    static char buf[MAX_MSG];
    for (;;) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            _exit(r == 0 ? 0 : 1);
        if (sys_write_all(out, buf, (size_t)r) != 0)
            _exit(1);
    }
}

static void stop_child(void)
{
    close(to_child); /* the child reads end-of-file and exits */
    close(from_child);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
    }
}

static void start_child(void)
{
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0)
        sys_die("ipc_pipe: pipe");
    child = fork();
    if (child < 0)
        sys_die("ipc_pipe: fork");
    if (child == 0) {
        close(down[1]);
        close(up[0]);
        echo(down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    to_child = down[1];
    from_child = up[0];
    atexit(stop_child);
}

BL_BENCH_ARGS(ipc_pipe, n, bytes, 1, 1024, 4096, 10240)
{
    BL_SUSPEND {
        if (child < 0)
            start_child();
    }
    for (uint64_t i = 0; i < n; i++) {
        if (sys_write_all(to_child, msg, (size_t)bytes) != 0)
            sys_die("ipc_pipe: write");
        if (sys_read_all(from_child, msg, (size_t)bytes) != 0)
            sys_die("ipc_pipe: read");
    }
}

#endif /* !__wasi__ */

BL_MAIN()
