/* benchlab's workload launcher: runs one command and reports the kernel's accounting
 * of that command alone.
 *
 *     measure REPORT_FILE PROGRAM [ARG]...
 *
 * Why a separate program: the kernel's peak RSS of a process (ru_maxrss) keeps the
 * largest resident set of every image the process ever had, and a child forked from
 * benchlab's Python (60 MB and more) starts with the interpreter's pages. Even
 * posix_spawn does not help: its child shares the parent's memory until exec, and exec
 * records the old image's peak. A child forked from this small program starts with
 * about a megabyte, so the peak of the command is its own, as `/usr/bin/time` reports.
 *
 * The report is one line: `status=S signal=G user_us=U sys_us=Y maxrss_kib=M wall_ns=W start_ns=T`
 * (S is the exit status or -1, G the terminating signal or 0, T when the command was
 * started, on CLOCK_MONOTONIC). Our own exit status is 0
 * when the report was written, 125 when it could not be, 124 on a bad command line;
 * a program that cannot be started exits 127 with the reason on stderr, as a shell's.
 *
 * A start gate, for N copies started at once (`--sweep instances=N`, instances.py): with
 * BENCHLAB_START_FD=K in the environment, we first read descriptor K (a pipe) until its
 * end, which comes when benchlab closes the writing side after every copy has started,
 * so all the copies' commands are forked at the same moment. */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Blocks until benchlab releases the copies (see the top); nothing to do without a gate. */
static void wait_at_gate(void) {
    const char *text = getenv("BENCHLAB_START_FD");
    char *end, buf[64];
    long fd;
    if (text == NULL) return;
    fd = strtol(text, &end, 10);
    unsetenv("BENCHLAB_START_FD"); /* the command is not part of the gate */
    if (end == text || *end || fd < 0 || fd > 1 << 20) return;
    for (;;) {
        ssize_t got = read((int)fd, buf, sizeof buf);
        if (got == 0 || (got < 0 && errno != EINTR)) break;
    }
    close((int)fd); /* not inherited by the command */
}

static long long usec(struct timeval tv) {
    return (long long)tv.tv_sec * 1000000LL + (long long)tv.tv_usec;
}

int main(int argc, char **argv) {
    struct timespec start, end;
    struct rusage usage;
    int status = 0;
    pid_t child, waited;
    FILE *report;

    if (argc < 3) {
        fprintf(stderr, "usage: measure REPORT_FILE PROGRAM [ARG]...\n");
        return 124;
    }
    wait_at_gate();
    clock_gettime(CLOCK_MONOTONIC, &start);
    child = fork();
    if (child < 0) {
        fprintf(stderr, "measure: fork: %s\n", strerror(errno));
        return 125;
    }
    if (child == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "cannot start %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    do {
        waited = wait4(child, &status, 0, &usage);
    } while (waited < 0 && errno == EINTR);
    clock_gettime(CLOCK_MONOTONIC, &end);
    if (waited < 0) {
        fprintf(stderr, "measure: wait4: %s\n", strerror(errno));
        return 125;
    }
    report = fopen(argv[1], "w");
    if (report == NULL) {
        fprintf(stderr, "measure: cannot write %s: %s\n", argv[1], strerror(errno));
        return 125;
    }
    fprintf(report, "status=%d signal=%d user_us=%lld sys_us=%lld maxrss_kib=%ld wall_ns=%lld start_ns=%lld\n",
            WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
            usec(usage.ru_utime), usec(usage.ru_stime), usage.ru_maxrss,
            (long long)(end.tv_sec - start.tv_sec) * 1000000000LL + (long long)(end.tv_nsec - start.tv_nsec),
            (long long)start.tv_sec * 1000000000LL + (long long)start.tv_nsec);
    return fclose(report) == 0 ? 0 : 125;
}
