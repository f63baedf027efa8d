/*
 * bench/replay/kernels.c: the kernels whose A/A rounds bench/stopping_replay.py replays
 * (issue 36): `benchlab ab` of this file against a copy of it built in another directory
 * records what one paired round of identical code reads on this machine.
 *
 *   memcpy_64k   64 KiB copied per iteration, walking 24 MiB buffers (past the LLC):
 *                memory-bound, its rounds carry the host's memory-bandwidth phases
 *   getppid      one system call: the kernel's entry and exit
 *   pipe_rt      a 1-byte round trip through two pipes to a forked child: two
 *                wake-ups of a sleeping process, heavy-tailed under any load
 *   chain100     100 dependent multiply-adds: CPU-bound; on some hosts a process lands
 *                in a mode about 10% slower (bimodal between processes)
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchlab.h"

#define BUFFER_BYTES (24u << 20)
#define BLOCK_BYTES (64u << 10)

static char *source, *target;
static size_t offset;

BL_BENCH(memcpy_64k, n)
{
    BL_SUSPEND {
        if (!source) {
            source = malloc(BUFFER_BYTES);
            target = malloc(BUFFER_BYTES);
            if (!source || !target)
                abort();
            memset(source, 1, BUFFER_BYTES);
            memset(target, 2, BUFFER_BYTES);
        }
    }
    for (uint64_t i = 0; i < n; i++) {
        memcpy(target + offset, source + offset, BLOCK_BYTES);
        BL_KEEP(target[offset]);
        offset = (offset + BLOCK_BYTES) % BUFFER_BYTES;
    }
}

BL_BENCH(getppid, n)
{
    for (uint64_t i = 0; i < n; i++)
        BL_KEEP(syscall(SYS_getppid));
}

static int to_child = -1, from_child = -1;

static void start_echo(void)
{
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0)
        abort();
    pid_t child = fork();
    if (child < 0)
        abort();
    if (child == 0) {
        char byte;
        close(down[1]);
        close(up[0]);
        while (read(down[0], &byte, 1) == 1 && write(up[1], &byte, 1) == 1) {
        }
        _exit(0);
    }
    close(down[0]);
    close(up[1]);
    to_child = down[1];
    from_child = up[0];
}

BL_BENCH(pipe_rt, n)
{
    char byte = 'x';
    BL_SUSPEND {
        if (to_child < 0)
            start_echo();
    }
    for (uint64_t i = 0; i < n; i++) {
        if (write(to_child, &byte, 1) != 1 || read(from_child, &byte, 1) != 1)
            abort();
    }
}

BL_BENCH(chain100, n)
{
    uint64_t x = n | 1;
    for (uint64_t i = 0; i < n; i++) {
        for (int k = 0; k < 100; k++)
            x = x * 6364136223846793005u + 1442695040888963407u;
        BL_KEEP(x);
    }
}

BL_MAIN()
