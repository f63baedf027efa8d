/* benchlab.h - small costs you can trust. One header, C99 and C++11, no dependencies beyond libc.

   USAGE
   -----
   One file, one program (tests/c/modes_test.sh compiles and runs every example of
   this manual, between its "example" and "end" lines):

   example: usage
       #include <stdlib.h>
       #include <string.h>
       #include <unistd.h>
       #include "benchlab.h"

       static int nothing(int x) { return x; }
       static int (*volatile call)(int) = nothing;   // through a pointer: never inlined
       static char dst[4096];

       BL_BASELINE(empty_call, n) {
           for (uint64_t i = 0; i < n; i++) BL_KEEP(call(1));
       }
       BL_BENCH(getppid_call, n) {
           for (uint64_t i = 0; i < n; i++) BL_KEEP(getppid());
       }
       BL_BENCH_ARGS(copy, n, size, 1, 1024, 4096) {
           char *buf = NULL;
           BL_SUSPEND { buf = calloc(1, (size_t)size); }   // not timed
           BL_KEEP(dst);
           for (uint64_t i = 0; i < n; i++) { memcpy(dst, buf, (size_t)size); BL_CLOBBER(); }
           BL_SUSPEND { free(buf); }
       }
       BL_MAIN()
   end

       cc -O2 -Iinclude bench.c -o bench && ./bench

   The body of a benchmark loops `n` times itself, so the harness adds no call per
   iteration. benchlab picks `n` so that one sample lasts far longer than the timer's
   resolution, then samples every selected benchmark in rounds: one sample of each per
   round, in a shuffled order, with the empty loop, so a slow phase of the machine hits
   all of them alike. The empty loop's cost is subtracted round by round from a body of
   up to 4 times its cost, not at all from one of over 8 times (whose work hides or
   dwarfs the loop's counter and branch), a share falling linearly between; the raw
   figure is printed beside it (docs/formats.md, "Which figure to quote"). A benchmark stops once
   the 99% interval of its median is within --precision (default 0.5%), or at
   --samples or --time-limit. Each benchmark is compared with the baseline sampled in
   the same rounds; the ratio comes with a 99% interval. Intervals cover this run only
   (they allow for slow phases within it); what another process would show needs
   several processes: `benchlab run --processes N` (docs/cli.md).

   A program of several files: exactly one file writes
       #define BENCHLAB_IMPLEMENTATION
       #include "benchlab.h"
   and either uses BL_MAIN() or calls bl_main(argc, argv) from its own main; the other
   files include the header plainly. (A plain include also compiles the implementation,
   as weak symbols, so that the one-file case needs no define; the file that defines
   BENCHLAB_IMPLEMENTATION holds the copy the linker keeps.)

   Many programs, one implementation: compile it once, from the header alone, with the
   compiler and flags of the programs, and link it from an archive after their files:
       cc -O2 -Iinclude -c -include include/benchlab.h -x c /dev/null -o benchlab.o
       ar rcs libbenchlab.a benchlab.o
       cc -O2 -Iinclude -DBENCHLAB_EXTERNAL_IMPLEMENTATION bench.c libbenchlab.a -o bench
   With the define a file only declares (about 2 s of CPU less per file at -O2). A file
   that defines BENCHLAB_IMPLEMENTATION, BL_NO_TSC or BL_DEFAULT_FORMAT keeps its own copy
   and takes nothing from the archive; one that defines BL_NO_ALLOC_HOOK needs an archive
   compiled with -DBL_NO_ALLOC_HOOK (else the link fails, naming it). `benchlab run` does
   all this by itself, in its build cache (docs/cli.md, "Builds").

   COUNTERS (docs/counters.md)
   --------
   Besides time: --counters=time,cycles,instructions,cache-misses,r01c2,task-clock,
   page-faults,rusage,allocs,alloc-bytes,jemalloc-allocated,<BL_COUNTER name>, or
   BL_MAIN_COUNTERS("...") in code. B63's names work too: lpe:cycles (perf's
   cpu-cycles), lpe:<perf event or r<hex>>, jemalloc_thread_allocated. Each kind of counter is measured in a pass of its
   own, after the time pass, so instrumentation never inflates the time figures. A
   counter the machine cannot count (no hardware PMU in a VM, perf_event_paranoid) says
   so in its record ("supported": false, "reason") and its table row; the rest run.

   THREADED MODE (docs/threads.md)
   -------------
   example: threaded
       #include "benchlab.h"

       static uint64_t hits;
       static int inc(size_t op, void *ctx) {
           (void)op;
           (void)ctx;
           __atomic_fetch_add(&hits, 1, __ATOMIC_RELAXED);
           return BL_OP_OK;
       }
       BL_TARGET(atomic_counter, NULL, NULL, inc, NULL, NULL, "inc")
       BL_MAIN()
   end

       cc -O2 -pthread -Iinclude t.c -o t && ./t -t=2 -d=1 --format=table   (or csb, jsonl)

   Throughput of a shared structure under -t threads, CSB's model and flags: a random
   mix of operations (-opK=F per 1024), exactly -n nops between them (--random-nops:
   0..-n), for -d seconds; per operation count, successes, skips, and latency
   percentiles from a log-linear histogram (error under 1.6%) of the timed operations
   (the first of each ~1 us batch; every one for csb, whose line is CSB's: ticks,
   ticks_to_ms, its 60 buckets exact; --latency-every=K|batch); ops/s per thread and in
   total. The harness costs about as much as a bare loop of the same calls
   (bench/csb_harness.py); timing every operation adds its two clock reads (~20 ns).

   CONTENTS
   --------
   1. Version                     BENCHLAB_VERSION*
   2. Compile-time options        BL_NO_TSC, BL_NO_ALLOC_HOOK, BL_CFLAGS, BL_FLAGS, BL_DEFAULT_FORMAT
   3. Defining benchmarks         BL_BENCH, BL_BASELINE, BL_BENCH_ARGS, BL_DIFFERENCE, BL_SUSPEND,
                                  BL_MAIN, BL_MAIN_AS
   4. Optimizer barriers          BL_KEEP, BL_CLOBBER
   5. Randomness                  bl_seed, bl_random
   6. Statistics (also public for tests and tools)   bl_stats, bl_compute_stats, bl_ratio_ci
   7. Counters                    BL_COUNTER, bl_counter_define, bl_set_counters, BL_MAIN_COUNTERS
   8. Threaded targets            BL_TARGET, bl_target, bl_register_target, BL_OP_*
   9. Command line                bl_main, bl_main_as, bl_binary, the flag dialects (BL__FLAG_DIALECTS)
   10. Implementation             below the line "IMPLEMENTATION": first the core, in the
       order of a run, then the optional parts that its steps call:
       I1 Platform, and what it has   I2 Limits and tunables   I3 Registries   I4 Timer
       I5 Randomness   I6 Statistics (batch-median intervals)   I7 What a run measures
       I8 Suspend and one sample   I9 Calibration   I10 Rounds: the time pass
       I11 Context of the run   I12 Output: one writer per format   I13 Command line
       I14 bl_main: the outline
       Optional parts, each backend one block whose #else side is one-line stubs (no call
       site has an #if): I15 Allocation tracking   I16 Counters and their passes
       I17 Threaded mode   I18 Instruction regions (callgrind)   I19 Contention: what
       the kernel says a sample lost
       (search for "---- I10." to jump to a section)

   COMPILE-TIME OPTIONS
   --------------------
   BL_NO_TSC     never use the x86-64 time-stamp counter; always clock_gettime.
   BL_NO_ALLOC_HOOK  do not define the malloc/free wrappers that count allocations (the
                 allocs and alloc-bytes counters then say "not supported"). They are
                 weak and only on glibc >= 2.34; sanitizer builds leave them out by
                 themselves. With jemalloc linked as a shared library, link it with
                 -Wl,--no-as-needed: the wrapper satisfies malloc, so an as-needed link
                 would drop a jemalloc that nothing else calls.
   BL_CFLAGS     a string with the flags the program was built with, reported in the
                 context record (e.g. -DBL_CFLAGS='"-O2 -march=native"').
   BL_FLAGS      the short flags' dialect: csb (default), b63 or libloong (section 9).
   BL_DEFAULT_FORMAT  the format without --format and without a terminal (else jsonl),
                 e.g. "lind" for the Lind runner, which starts a test with no arguments
                 and reads its stdout through a pipe. BL_FORMAT overrides it.
   BENCHLAB_IMPLEMENTATION  this file holds the implementation of a program of several
                 files (USAGE); the others include the header plainly.
   BENCHLAB_EXTERNAL_IMPLEMENTATION  declarations only: the implementation comes from an
                 object built from the header alone and linked after the program's files
                 (USAGE; `benchlab run` builds one per target, compiler and flags).

   ENVIRONMENT
   -----------
   BL_TIMER=clock|tsc   force the timer (tsc only where it is invariant).
   BL_FORMAT=NAME       the format when --format is not given (terminal or not).
   BL_NO_WARN=1         silence warnings about an unstable machine (a frequency governor
                        other than performance, turbo or boost on) or an unoptimized build.
   BL_STACK_OFFSET=B    start the run's stack B bytes lower (layout randomization: what
                        `benchlab run --processes` sets, different for each process).
   BL_RELEASE_CPUS=L    widen the CPU affinity to the list L (0,1,...) at start: `benchlab
                        run` starts each process pinned to one CPU, then lets it go.
   BL_CALLGRIND=N       instruction regions instead of measuring: each benchmark at N and
                        2N iterations inside bl__callgrind_region, for valgrind's callgrind
                        (`benchlab run --platform callgrind`; docs/counters.md).

   COMMAND LINE (every program)
   ----------------------------
   --list  --filter=SUBSTRING (repeatable)  --precision=PCT  --samples=N
   --time-limit=SECONDS  --schedule=rounds|sequential  --no-subtract  --seed=N
   --format=table|csv|jsonl|lind|b63|b63-interactive|csb  --out=FILE  --counters=LIST
   -h/--help. Threaded targets: --threads= --nops= --duration= --size= --opK=,
   --random-nops, --latency-every=K|batch, --csb-unit=ticks|ns. Short flags come in
   dialects chosen at compile time (BL_FLAGS, section 9): CSB's by default (-t=T -n=N
   -d=D -s=S -opK=F, which make csb the default format, as CSB's runner expects), B63's
   (-i -c -e -t -s -d) or libloong's (-s N, -b PATH). Formats: docs/formats.md.

   PORTABILITY
   -----------
   Linux (and other POSIX systems), x86-64 and others; wasm32-wasi (time and user
   counters; no threads, perf events, rusage or allocation counting: the records say so).
   gcc and clang, as C99 or C++11 and later. Link needs only libc (no -lm; -pthread for
   programs with threaded targets on older glibc).
*/
#ifndef BENCHLAB_H
#define BENCHLAB_H

/* ---- 1. Version ------------------------------------------------------------------
   MAJOR changes when a program written for the header stops compiling or the jsonl
   schema changes incompatibly; MINOR adds features; PATCH fixes. */
#define BENCHLAB_VERSION_MAJOR 0
#define BENCHLAB_VERSION_MINOR 2
#define BENCHLAB_VERSION_PATCH 0
#define BENCHLAB_VERSION "0.2.0"
/* The jsonl schema version written in the context record (docs/formats.md). */
#define BENCHLAB_SCHEMA 2

/* Strict ISO modes (-std=c99) hide POSIX: ask for it, so clock_gettime and fileno are
   declared. Only in strict modes: defining it under gnu99 would hide the BSD and GNU
   names a user's code may rely on. It takes effect only if this header comes before
   any system header; when one came first, the implementation declares the few POSIX
   functions it needs itself (see "Platform" below). */
#if defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE) && \
    !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define BL__UNUSED __attribute__((unused))
#else
#error "benchlab.h needs gcc or clang (GNU C attributes and inline assembly)"
#endif

/* ---- 3. Defining benchmarks ------------------------------------------------------ */

/* State the harness passes to every body; only BL_SUSPEND uses it. */
typedef struct bl_state bl_state;

/* Every benchmark body has this shape: run the work n times; `arg` is the parameter
   value for BL_BENCH_ARGS and 0 otherwise. */
typedef void (*bl_body_fn)(bl_state *state, uint64_t n, int64_t arg);

/* Called by the constructors the macros below generate. Not for direct use. */
void bl__register(const char *name, bl_body_fn body, int is_baseline, const char *param_name,
                  const int64_t *params, size_t param_count, const char *file, int line);
int bl__suspend_begin(bl_state *state);
int bl__suspend_end(bl_state *state);

/* Registration runs before main through a constructor: it works in C, in C++ and with
   wasm-ld, where linker-section lists (__start_/__stop_) are fragile. */
#define BL__CONSTRUCTOR(fn) \
    static void fn(void) __attribute__((constructor)); \
    static void fn(void)

/* Bodies start on a cache line, so two identical bodies see the same code alignment
   and an A/A comparison is not skewed by where the linker happened to put them. */
#define BL__DEFINE(name, n, arg, is_baseline, param_name, params, count)                   \
    static void bl__body_##name(bl_state *bl__state BL__UNUSED, uint64_t n,                 \
                                int64_t arg BL__UNUSED) __attribute__((aligned(64)));      \
    BL__CONSTRUCTOR(bl__register_##name) {                                                  \
        bl__register(#name, bl__body_##name, is_baseline, param_name, params, count,        \
                     __FILE__, __LINE__);                                                   \
    }                                                                                       \
    static void bl__body_##name(bl_state *bl__state BL__UNUSED, uint64_t n,                 \
                                int64_t arg BL__UNUSED)

/* A benchmark: `BL_BENCH(name, n) { for (uint64_t i = 0; i < n; i++) work(); }` */
#define BL_BENCH(name, n) BL__DEFINE(name, n, bl__no_arg, 0, NULL, NULL, 0)

/* The program's baseline (at most one): every other benchmark is compared with it. */
#define BL_BASELINE(name, n) BL__DEFINE(name, n, bl__no_arg, 1, NULL, NULL, 0)

/* One benchmark per value: `BL_BENCH_ARGS(copy, n, size, 1, 1024) { ... size ... }`.
   Inside the body `arg` is an int64_t holding the current value. */
#define BL_BENCH_ARGS(name, n, arg, ...)                                                   \
    static const int64_t bl__params_##name[] = {__VA_ARGS__};                              \
    BL__DEFINE(name, n, arg, 0, #arg, bl__params_##name,                                   \
               sizeof(bl__params_##name) / sizeof(bl__params_##name[0]))

/* A benchmark also reported as its difference to another, its base, round by round:
   `BL_DIFFERENCE(syscall_0, args_0)` reports syscall_0's cost less args_0's, with a 99%
   interval from the per-round differences (paired: one sample of each in every round),
   beside its figure and its ratio to the baseline. For a cost measured inside a harness
   whose own cost another benchmark measures (a syscall through a VM call: libloong
   subtracts its empty call). The base runs whenever its benchmark does (--filter), as
   the baseline does. A base with parameters is paired by the same parameter value. */
void bl__register_difference(const char *bench, const char *base, const char *file, int line);
#define BL_DIFFERENCE(bench, base) \
    BL__CONSTRUCTOR(bl__register_difference_##bench) { bl__register_difference(#bench, #base, __FILE__, __LINE__); }

/* A block inside a body whose time does not count: `BL_SUSPEND { setup(); }`.
   The for-loop runs the block once, between two timer reads. Leaving the block
   with break, goto or return would skip the second read: don't. */
#define BL_SUSPEND                                                                        \
    for (int bl__suspended = bl__suspend_begin(bl__state); bl__suspended;                   \
         bl__suspended = bl__suspend_end(bl__state))

/* Defines main() with the standard command line. */
#define BL_MAIN() \
    int main(int argc, char **argv) { return bl_main(argc, argv); }

/* ---- 4. Optimizer barriers ----------------------------------------------------------
   BL_KEEP(x): the compiler must compute x and assume it is used; "r,m" lets it keep
   the value in a register when it can, so the barrier adds no store. The "memory"
   clobber also stops it from moving loads and stores of the loop across the barrier.
   BL_CLOBBER(): the compiler must assume memory was read and written here, so stores
   before it happen and loads after it are redone. Neither emits an instruction.
   Both reach only memory whose address has escaped: gcc 12 and clang 14 still delete
   copies into a static array nobody reads, even with BL_CLOBBER() after each copy.
   Let the buffer escape once, e.g. BL_KEEP(buffer) before the loop (examples/keep.c). */
#define BL_KEEP(x) __asm__ __volatile__("" : : "r,m"(x) : "memory")
#define BL_CLOBBER() __asm__ __volatile__("" : : : "memory")

/* ---- 5. Randomness -------------------------------------------------------------------
   bl_seed(): the run's seed, the same for every benchmark (--seed=N reproduces a run).
   bl_random(&state): one step of splitmix64, a fast PRNG for inputs; seed it with
   bl_seed(). */
uint64_t bl_seed(void);
uint64_t bl_random(uint64_t *state);

/* ---- 6. Statistics --------------------------------------------------------------------
   The definitions are in docs/formats.md and are shared with the Python side;
   tests/vectors/ checks both. BL__STATISTICS is the one list of the figures of a bl_stats,
   in the order a jsonl record writes them: the struct's first fields (each a double, named
   as listed), the jsonl writer and the C tests are made from it, and
   src/benchlab/stats.py's STATISTICS must name the same (a test reads both). */
#define BL__STATISTICS(X) X(median) X(min) X(max) X(mean) X(stddev) X(p75) X(p90) X(p99) X(mad)
#define BL__STATISTIC_FIELD(name) double name;
typedef struct bl_stats {
    BL__STATISTICS(BL__STATISTIC_FIELD)
    double median_ci_low, median_ci_high; /* 99%, within the run: order statistics widened
                                             by batch medians (docs/formats.md) */
    size_t outliers_low, outliers_high;   /* outside Tukey's fences; counted, never dropped */
} bl_stats;

/* Statistics of x[0..n-1] (n >= 1), in the order the samples were taken: the median's
   interval allows for neighbours that are alike (slow phases of the machine). */
void bl_compute_stats(const double *x, size_t n, bl_stats *out);
/* Quantile p of an ascending array (linear interpolation, numpy's default). */
double bl_quantile_sorted(const double *sorted, size_t n, double p);
/* The median of the per-round ratios a[i]/b[i] over m paired rounds, and its 99%
   interval (the median's, over the ratios in round order). */
void bl_ratio_ci(const double *a, const double *b, size_t m, double *ratio, double *low,
                 double *high);

/* ---- 7. Counters -----------------------------------------------------------------------
   Every benchmark can be measured with a list of counters besides time, chosen with
   --counters=time,instructions,allocs,... or in code with bl_set_counters() before
   bl_main() (the flag wins). Names are spelled as `perf list` spells them; see
   docs/counters.md for the full list, units, and the pass each one is measured in.
   Time is always measured in its own pass without instrumentation; the others come
   from further passes over the same benchmark, so they cannot inflate the time.

   A user counter is any additive, monotonic count (hash collisions, calls, bytes
   written) with a function that reads its current total:

       static uint64_t collisions;
       static uint64_t read_collisions(void) { return collisions; }
       BL_COUNTER(collisions, "collisions", read_collisions)

   and is then asked for by name: --counters=time,collisions. */
typedef uint64_t (*bl_counter_read_fn)(void);
void bl_counter_define(const char *name, const char *unit, bl_counter_read_fn read);
void bl_set_counters(const char *comma_separated_names);
#define BL_COUNTER(name, unit, read) \
    BL__CONSTRUCTOR(bl__define_counter_##name) { bl_counter_define(#name, unit, read); }
/* main() with a default counter list: BL_MAIN_COUNTERS("time,allocs,alloc-bytes") */
#define BL_MAIN_COUNTERS(list) \
    int main(int argc, char **argv) { bl_set_counters(list); return bl_main(argc, argv); }

/* ---- 8. Threaded targets (throughput under concurrency) --------------------------------
   The model of the CSB scalability skeleton. A target is a shared object (a counter,
   a map) and a set of operations on it. The harness calls init(size) once, starts
   --threads threads, each calls register_thread(index) for its private context, waits
   at a start barrier, then loops in batches: pick an operation at random with the
   frequencies of -opK=F (per 1024), spin -n nops (0..-n at random with --random-nops),
   call dispatch(op, context); time the call (every one for the csb line, as CSB does;
   else the first of each batch, or one in --latency-every=K); check the stop signal,
   sent after --duration seconds, between batches. dispatch returns BL_OP_OK (1) when the
   operation succeeded, BL_OP_FAILED (0) when it ran but failed (a lookup that missed),
   BL_OP_SKIPPED (-1) when it did not apply. Then deregister_thread(context) in each
   thread and destroy() once. Any function but dispatch may be NULL.

       static int inc(size_t op, void *ctx) { (void)op; (void)ctx; __atomic_fetch_add(&n, 1, __ATOMIC_RELAXED); return BL_OP_OK; }
       BL_TARGET(atomic_counter, NULL, NULL, inc, NULL, NULL, "inc")

   Flags: -t=T (--threads) -n=N (--nops) -d=D (--duration, default --time-limit)
   -s=S (--size) -opK=F (--opK); docs/threads.md. Threads are not available on
   wasm32-wasi: there a target prints its record with the reason instead. */
enum { BL_OP_SKIPPED = -1, BL_OP_FAILED = 0, BL_OP_OK = 1 };
typedef struct bl_target {
    const char *name;
    const char *const *ops;                      /* operation names */
    size_t op_count;                             /* 1..64 */
    void (*init)(uint64_t size);                 /* once, before the threads */
    void *(*register_thread)(size_t thread_index); /* in each thread: its context */
    int (*dispatch)(size_t op, void *thread_context);
    void (*deregister_thread)(void *thread_context);
    void (*destroy)(void);                       /* once, after the threads */
    const char *file;
    int line;
} bl_target;
void bl_register_target(const bl_target *target);
#define BL_TARGET(name, init, register_thread, dispatch, deregister_thread, destroy, ...)  \
    static const char *const bl__ops_##name[] = {__VA_ARGS__};                             \
    BL__CONSTRUCTOR(bl__register_target_##name) {                                          \
        static bl_target bl__target = {#name, bl__ops_##name,                              \
            sizeof(bl__ops_##name) / sizeof(bl__ops_##name[0]), init, register_thread,     \
            dispatch, deregister_thread, destroy, __FILE__, __LINE__};                     \
        bl_register_target(&bl__target);                                                   \
    }

/* n nop instructions: what -n=N spins between two operations, and the fixed work of CSB's
   bm_empty operation (suites/concurrency/bm_empty.c). BL__NOP is one nop; a test may
   define it before the include to count them. The loop counts up to n, as CSB's
   bm_generate_noise does, so that a compiler gives both the same loop (gcc -O2 on x86-64:
   nop; add; cmp; jne) and -n=N costs what CSB's does: counting down gave nop; sub; jne,
   one instruction fewer per nop (tests/c/nops_shape_test.sh compares the two). */
#ifndef BL__NOP
#define BL__NOP() __asm__ __volatile__("nop")
#else
#define BL__OWN_NOP 1 /* the threaded loop must spin this file's nop: see the implementation's guard */
#endif
static inline void bl_nops(uint64_t n) {
    uint64_t i;
    for (i = 0; i < n; i++) BL__NOP();
}

/* ---- 9. Command line -------------------------------------------------------------------
   Runs the registered benchmarks as the flags say; returns the exit status
   (0 ok, 2 bad flags or a program that defines two baselines).

   Long flags (--samples=N, --format=F, ...) are benchlab's in every program. Short flags
   come in dialects, so that a benchmark ported from another harness keeps its users'
   command lines. A program takes one dialect, chosen at compile time: define BL_FLAGS
   before the include (`#define BL_FLAGS b63`, or -DBL_FLAGS=b63), or write
   BL_MAIN_AS(b63) for main:
     csb       (default) CSB's: -t=T -n=N -d=D -s=S -opK=F, for threaded targets
     b63       B63's, getopt style (-e 10, -e10, -ie 10): -i (B63's interactive lines),
               -c LIST (counters), -e N (epochs: samples), -t S (time limit), -s SEED,
               -d DELIM (the plain lines' delimiter); B63's plain lines are the default format,
               and it samples as B63 does: exactly N epochs (30) of 2^k - 1 iterations in
               S seconds of wall time (1) per benchmark, unless --samples, --time-limit or
               --precision is given (I13, bl__dialect_sampling)
     libloong  libloong's: -s N (--samples, exactly N), -b PATH (--binary: bl_binary() returns
               it; a file that cannot be read is an error before anything runs), -h
   A short flag of another dialect is an error that names the dialect it belongs to, never
   a silent other meaning. docs/suites.md, "Flag dialects". */
int bl_main_as(int argc, char **argv, const char *dialect);

/* -b PATH / --binary PATH of the libloong dialect once bl_main has read the flags (call it
   from a benchmark, e.g. to load a guest program in BL_SUSPEND), else `fallback`. */
const char *bl_binary(const char *fallback);

/* The dialects, a row each: X(name, the implementation's id, whose flags they are, how they
   write a value). Everything that names a dialect is made from it: the names BL_FLAGS and
   BL_MAIN_AS take (BL__DIALECT_name: a misspelt one fails to compile, naming
   BL__DIALECT_<it>), the implementation's ids (BL__id), and its messages and --help (I13).
   A dialect is a row here, its short flags' rows in bl__flags and its parser
   (bl__parse_options). */
#define BL__FLAG_DIALECTS(X)                                                                      \
    X(csb, CSB, "CSB's", "flag=value, e.g. -t=4")                                                 \
    X(b63, B63, "B63's", "as getopt reads it: -t 5, -t5, or after flags without a value (-it 5)") \
    X(libloong, LIBLOONG, "libloong's", "flag, space, value: -s 500")
#define BL__DIALECT_ENUM(name, id, owner, form) BL__##id, BL__DIALECT_##name = BL__##id,
enum bl__dialect { BL__FLAG_DIALECTS(BL__DIALECT_ENUM) BL__DIALECTS };

#ifndef BL_FLAGS
#define BL_FLAGS csb
#endif
#define BL__PASTE2(a, b) a##b
#define BL__PASTE(a, b) BL__PASTE2(a, b)
#define BL__QUOTE2(x) #x
#define BL__QUOTE(x) BL__QUOTE2(x)
typedef char bl__BL_FLAGS_must_name_a_row_of_BL__FLAG_DIALECTS[BL__PASTE(BL__DIALECT_, BL_FLAGS) + 1];

/* bl_main reads the command line in the dialect of BL_FLAGS as defined where it is called
   (static inline: each translation unit has its own, so no other file's choice applies). */
static inline int bl_main(int argc, char **argv) {
    return bl_main_as(argc, argv, BL__QUOTE(BL_FLAGS));
}

/* main() in a named dialect: BL_MAIN_AS(b63). */
#define BL_MAIN_AS(dialect)                                                                      \
    int main(int argc, char **argv) {                                                            \
        typedef char bl__dialect_must_be_a_row_of_BL__FLAG_DIALECTS[BL__DIALECT_##dialect + 1];  \
        (void)sizeof(bl__dialect_must_be_a_row_of_BL__FLAG_DIALECTS);                            \
        return bl_main_as(argc, argv, #dialect);                                                 \
    }

#ifdef __cplusplus
}
#endif
#endif /* BENCHLAB_H */

/* ======================================================================================
   IMPLEMENTATION
   Everything below here is implementation details.
   ====================================================================================== */
#ifndef BENCHLAB__IMPLEMENTED
#define BENCHLAB__IMPLEMENTED

/* ---- I1. Platform: includes, what strict modes hide, and what this platform has --------- */

/* Without BENCHLAB_IMPLEMENTATION every translation unit gets a weak copy, so a
   one-file program needs no define and a many-file program still links; the file
   that defines it gets the strong copy the linker prefers.
   With BENCHLAB_EXTERNAL_IMPLEMENTATION it gets none: the code is in an object compiled
   once from this header alone, with the same compiler and flags, and linked from an
   archive after the program's files (benchlab's build does so; USAGE). The includes below
   stay, so a file sees the same names either way. A file that defines
   BENCHLAB_IMPLEMENTATION, or an option the code reads at compile time, keeps its own
   copy: its definitions leave nothing for the linker to take from the archive. But for
   BL_NO_ALLOC_HOOK: such a file leaves malloc undefined, and the archive's wrappers would
   be linked for it, so the file asks for an archive compiled with BL_NO_ALLOC_HOOK too
   (below, after the includes): with another, the link fails naming it. */
#if defined(BENCHLAB_EXTERNAL_IMPLEMENTATION) && !defined(BENCHLAB_IMPLEMENTATION) && !defined(BL_NO_TSC) && \
    !defined(BL_DEFAULT_FORMAT) && !defined(BL__TEST_CLOCK) && !defined(BL__OWN_NOP)
#define BL__ELSEWHERE 1
#else
#define BL__ELSEWHERE 0
#endif
#ifdef BENCHLAB_IMPLEMENTATION
#define BL__DEF
#else
#define BL__DEF __attribute__((weak))
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if !defined(__wasi__)
#include <sys/utsname.h>
#include <sys/resource.h>
#include <pthread.h>
#include <sched.h>
#define BL__HAVE_THREADS 1
#define BL__HAVE_RUSAGE 1
#else
/* wasi-libc has no pthreads and no getrusage. */
#define BL__HAVE_THREADS 0
#define BL__HAVE_RUSAGE 0
#endif
#if defined(__linux__)
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#define BL__HAVE_PERF 1
/* What the kernel says a sample lost: getrusage(RUSAGE_THREAD) and the schedstat file of
   /proc (section I19). Linux only, glibc and musl alike. */
#define BL__HAVE_CONTENTION 1
#if !defined(__cplusplus)
/* Strict ISO modes hide syscall() (glibc and musl alike); it is in libc all the same,
   and a second declaration with the same type is harmless in C. */
extern long syscall(long number, ...);
#endif
#else
#define BL__HAVE_PERF 0
#define BL__HAVE_CONTENTION 0
#endif
#if defined(__GLIBC__) && !defined(__wasi__)
#include <dlfcn.h>
#ifdef RTLD_NEXT
#define BL__RTLD_NEXT RTLD_NEXT
#else
#define BL__RTLD_NEXT ((void *)-1L) /* glibc's value; <dlfcn.h> shows it only with _GNU_SOURCE */
#endif
#endif
/* Strict ISO modes (-std=c99, c11, c17) hide POSIX declarations when a system header
   came before this one: the first include decides what the C library shows, and the
   _POSIX_C_SOURCE set at the top of this file is then too late. The functions are in
   libc all the same, so the few we need are declared here under names of our own and
   bound to libc's symbols, with our own layouts. Only where those layouts are certain:
   on 64-bit Linux, glibc and musl alike, struct timespec is {time_t; long} and
   CLOCK_MONOTONIC is 1. */
#if defined(CLOCK_MONOTONIC)
#define BL__TIMESPEC struct timespec
#define BL__CLOCK_MONOTONIC CLOCK_MONOTONIC
#define bl__clock_gettime clock_gettime
#define bl__nanosleep nanosleep
#elif defined(__linux__) && defined(__LP64__)
struct bl__timespec { time_t tv_sec; long tv_nsec; };
extern int bl__clock_gettime(int clock, struct bl__timespec *ts) __asm__("clock_gettime");
extern int bl__nanosleep(const struct bl__timespec *want, struct bl__timespec *left) __asm__("nanosleep");
#define BL__TIMESPEC struct bl__timespec
#define BL__CLOCK_MONOTONIC 1
#else
#error "benchlab.h: clock_gettime is not declared: include benchlab.h before other headers, or build with -std=gnu99 or -D_POSIX_C_SOURCE=200809L"
#endif
#if defined(__x86_64__) && !defined(BL_NO_TSC)
#include <cpuid.h>
#define BL__HAVE_TSC 1
#else
#define BL__HAVE_TSC 0
#endif
/* What this platform has, besides what the includes above decided (BL__HAVE_THREADS,
   BL__HAVE_RUSAGE, BL__HAVE_PERF, BL__HAVE_TSC). Each optional backend is one block:
   `#if BL__HAVE_...` around the real thing, and on the #else side one-line stubs and
   the reason a record gives for what is missing, so no call site has an #if of its own.
   The blocks: the TSC in I4, the malloc wrappers (BL__ALLOC_HOOK) in I15, perf events,
   getrusage and jemalloc (BL__HAVE_MALLCTL) in I16, threads in I17, what the kernel
   says a sample lost to other tasks (BL__HAVE_CONTENTION) in I19.

   Threads also decide how the allocation counters are kept: per thread where there are
   threads, so a pass counts the measured thread's own allocations, and plain globals
   where there is only one. */
#if BL__HAVE_THREADS
#define BL__THREAD_LOCAL __thread
#else
#define BL__THREAD_LOCAL
#endif
/* jemalloc's mallctl, as a weak reference (NULL unless the program is linked with it), so
   jemalloc is never a link dependency; on the systems jemalloc supports. */
#if defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__)
#define BL__HAVE_MALLCTL 1
#else
#define BL__HAVE_MALLCTL 0
#endif
/* The malloc wrappers: only on glibc 2.34 and later (dlsym is in libc.so itself since
   2.34, so no -ldl), and not under sanitizers, which replace malloc themselves (section
   I15 says why the header wraps malloc at all). BL__ALLOC_OFF is the reason the alloc
   counters give when the wrapper is not what counts. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define BL__SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BL__SANITIZED 1
#endif
#if defined(__GLIBC__) && defined(__linux__) && !defined(BL_NO_ALLOC_HOOK) && !defined(BL__SANITIZED) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define BL__ALLOC_HOOK 1
#define BL__ALLOC_OFF "malloc is not the header's wrapper: an allocator linked into the program defines it"
#else
#define BL__ALLOC_HOOK 0
#if defined(BL__SANITIZED)
#define BL__ALLOC_OFF "built with a sanitizer, which replaces malloc"
#elif defined(BL_NO_ALLOC_HOOK)
#define BL__ALLOC_OFF "built with BL_NO_ALLOC_HOOK"
#elif defined(__wasi__)
#define BL__ALLOC_OFF "allocation counting is not available on wasm32-wasi (malloc is linked statically into the module)"
#else
#define BL__ALLOC_OFF "allocation counting needs glibc 2.34 or later on Linux"
#endif
#endif

#if BL__ELSEWHERE && defined(BL_NO_ALLOC_HOOK)
#ifdef __cplusplus
extern "C" {
#endif
extern char bl__implementation_compiled_with_BL_NO_ALLOC_HOOK;
__attribute__((used)) static char *const bl__no_alloc_hook_here = &bl__implementation_compiled_with_BL_NO_ALLOC_HOOK;
#ifdef __cplusplus
}
#endif
#endif

/* The rest is the code itself, which BENCHLAB_EXTERNAL_IMPLEMENTATION leaves out (above). */
#if !BL__ELSEWHERE
#ifdef __cplusplus
extern "C" {
#endif

/* C++ does not convert void* implicitly; C does not need the cast. */
#define BL__CAST(type, expr) ((type)(expr))

/* ---- I2. Limits and tunables --------------------------------------------------------------------
   Each limit is named once, here, and used by its check and its message alike; the
   Python side reads the limits from these lines (src/benchlab/limits.py), so keep them
   "#define NAME number" with the number alone. */

/* Fewer than 3 samples give no spread at all. */
#define BL__MIN_SAMPLES 3
#define BL__MAX_SAMPLES 1000000
#define BL__MAX_TIME_LIMIT_S 1000000
#define BL__MAX_PRECISION_PCT 100
#define BL__MAX_THREADS 1024
#define BL__MAX_NOPS 1000000
#define BL__MAX_OPS 64
#define BL__MAX_OPS_LAST 63
/* The threaded mode picks each operation with one random number: its low
   BL__OP_SLOT_BITS bits index a table of BL__OP_SLOTS slots, operation K holding -opK=F
   of them (so frequencies are "per 1024" in flags, messages and output), and the bits
   above them draw the nops. */
#define BL__OP_SLOTS 1024
#define BL__OP_SLOT_BITS 10
typedef char bl__op_slots_is_2_to_its_bits[BL__OP_SLOTS == 1 << BL__OP_SLOT_BITS ? 1 : -1];
#define BL__MAX_LATENCY_EVERY 1000000
/* BL_STACK_OFFSET beyond a page or so adds nothing: alignment repeats every 4 KiB. */
#define BL__MAX_STACK_OFFSET 65536
/* BL_CALLGRIND=N: the region runs 2N iterations under callgrind (~50x slower than native). */
#define BL__MAX_CALLGRIND_ITERATIONS 1000000000

/* Defaults of the command line, measured to give figures that hold across processes
   in little time (bench/README.md, "Defaults"). */
#define BL__DEFAULT_PRECISION_PCT 0.5
#define BL__DEFAULT_TIME_LIMIT_S 0.01
#define BL__DEFAULT_MAX_SAMPLES 1000
/* The time limit stops a benchmark only once it has this many samples (or --samples, if
   fewer): slow bodies, slow BL_SUSPEND setup, or a coarse timer (qemu's 210 ns makes a
   sample last 210 us) would otherwise stop after a handful, whose interval bounds
   nothing (seen: 5 samples of fs_read under qemu at a 10 ms limit). */
#define BL__MIN_SAMPLES_AT_LIMIT 10
/* B63's dialect samples as B63 does (bl__epoch): its defaults, 30 epochs in 1 second per
   benchmark; an epoch's batches double until it passes its share of the time or has
   2^31 iterations (B63's bound for a body the compiler emptied); the empty loop's epoch
   takes this share of a benchmark's, as it only serves the subtraction. */
#define BL__B63_EPOCHS 30
#define BL__B63_TIME_LIMIT_S 1
#define BL__EPOCH_MAX_ITERATIONS 2147483648.0
#define BL__EPOCH_EMPTY_SHARE 0.1
/* A precision stop needs this many samples first: 10 batches of 2. */
#define BL__PRECISION_MIN_SAMPLES 20
/* Length of one sample without --samples: short, so that many rounds fit, and long
   against an interrupt's few microseconds. */
#define BL__SAMPLE_NS 50000.0

/* The TSC's rate is measured against the clock over at least this long (I4. Timer). */
#define BL__TSC_CALIBRATION_NS 2000000
/* A sample must last this many times the timer's resolution, so that one tick of
   rounding is at most 0.1% of it (nanobench's rule). */
#define BL__RESOLUTION_FACTOR 1000.0
/* With --samples: the share of the time limit given to the samples; the rest covers
   warm-up and calibration. */
#define BL__SAMPLE_BUDGET 0.8
/* Each sample's iteration count is jittered by up to this fraction, so that periodic
   disturbances (timer interrupts, frequency steps) do not alias with the sample length. */
#define BL__JITTER 0.05
/* How much of the empty loop's cost is taken from a body (bl__loop_share): all of it from
   a body under BL__LOOP_SHARE_FULL times the empty loop's median, none from one over
   BL__LOOP_SHARE_NONE times, a share falling linearly between. A body of many cycles
   runs the loop's counter and branch under its own work (a dependency chain) or dwarfs
   them, and its time does not follow the empty loop's: on this project's VM the empty
   loop costs 0.29 ns per iteration alone on its core and 0.59 ns when the host's other
   tenant shares it, while chain K=4 (4.6 ns) and chain K=10 (11.5 ns) move by 0.02-0.08
   ns. Taking each round's empty loop from such a body added that jump to its figure:
   chain K=10's spread between processes 2 to 6 times its raw one (issue 20,
   bench/README.md, "Subtraction"). 8, not more: a latency-bound body is spared only if it
   stays over the limit in the slow state too, where the loop costs twice as much. */
#define BL__LOOP_SHARE_FULL 4
#define BL__LOOP_SHARE_NONE 8
/* Confidence level of every interval we report (bl__t99 is its t quantile). */
#define BL__CI_LEVEL 0.99
/* Tukey's fences: a sample more than this many interquartile ranges outside the
   quartiles is an outlier (counted in outliers_low/high, never dropped). */
#define BL__TUKEY_FENCE 1.5
/* Batches of the batch-medians interval (bl__batch_halfwidth): at most 10, so that each
   batch is long and its neighbours nearly independent; at least 4, or no batch interval. */
#define BL__BATCHES 10
#define BL__MIN_BATCHES 4
/* The threaded mode runs each worker's operations in batches: it checks the stop flag
   and reads the clock once per batch, not per operation, and (by default) times the
   batch's first operation. A batch grows or shrinks to last about this long: short, so
   the stop signal is seen within microseconds and slow operations are all timed (a
   batch of one); long against the two clock reads of its timed operation (about 20 ns
   on this project's VM), which then add 1 to 4% to cheap operations (a batch settles
   between half and twice this long). */
#define BL__OP_BATCH_NS 1000
/* A batch of cheap operations (1 ns) stays under this many, so that the stop signal is
   seen within ~10 us even when the clock steps coarsely. */
#define BL__MAX_OP_BATCH 8192
/* --latency-every's default, not a number one can give: time the first operation of each
   batch (BL__OP_BATCH_NS), so that cheap operations are timed once per 0.5 to 2 us and
   operations that take over 0.5 us, a batch each, are all timed. */
#define BL__LATENCY_PER_BATCH UINT64_MAX

/* The timer's resolution is the smallest step seen over this many pairs of reads, its
   cost the mean of this many reads: about a millisecond together, which every process
   pays at its start. */
#define BL__TIMER_PROBES 2000
#define BL__TIMER_COST_READS 5000
/* Resolutions within this factor of each other are a tie (seen: 20.03 ns against 20 ns),
   so the choice of timer does not flip from run to run; a tie goes to the TSC, the
   cheaper to read on bare metal. */
#define BL__TIMER_TIE 1.1
/* Calibration grows n by at least BL__CALIBRATION_MIN_STEP a step, aims
   BL__CALIBRATION_AIM past the target it is short of, and grows at most
   BL__CALIBRATION_MAX_STEP a step, so that a first, cold sample cannot make n
   overshoot wildly. */
#define BL__CALIBRATION_MIN_STEP 1.5
#define BL__CALIBRATION_AIM 1.2
#define BL__CALIBRATION_MAX_STEP 10
/* Calibration stops aiming at a sample's share of the time once it has used --time-limit,
   but not at the timer floor (BL__RESOLUTION_FACTOR): for that it may go on to this many
   times --time-limit. Under load one preempted sample can use the whole limit (seen:
   ITERATIONS 1 for ipc_pipe and a 1 us write at load 10 on 2 cores); past this, the
   record says its samples are short ("short_samples") and stderr warns. */
#define BL__CALIBRATION_FLOOR_LIMIT 10
/* The most iterations a sample may have: 2^40. A body whose time does not grow with n
   (the compiler deleted it, or moved its work out of the loop: examples/keep.c) never
   reaches the timer floor, and n grew tenfold a sample past what a uint64_t holds (seen:
   1.2e19, then a conversion out of range, undefined in C, wrapped it to 1, over and over,
   for 10x --time-limit). At 2^40 iterations 1000 ticks of a 20 ns timer are 1.8e-5 ns an
   iteration: a body that costs anything is long enough well before it, so n stops here and
   the body is said to cost nothing measurable (short_samples BL__SHORT_NOTHING). */
#define BL__MAX_ITERATIONS 1099511627776.0
/* Why a series' samples are short against the timer (bl__result.short_samples): the
   machine too busy to calibrate them, or a body that costs nothing at BL__MAX_ITERATIONS. */
#define BL__SHORT_BUSY 1
#define BL__SHORT_NOTHING 2
/* A sample was preempted when the kernel switched its thread out involuntarily during it,
   or it waited for a CPU (schedstat's run delay) more than this percentage of its wall
   time: a wake-up from a voluntary sleep (a pipe read) waits a few microseconds even on
   an idle machine, a timeslice given to another task waits milliseconds. */
#define BL__PREEMPTED_DELAY_PCT 1
/* Preempted rounds are left out of a benchmark's figure only when the rounds left are at
   least this percentage of all its rounds (and at least BL__MIN_SAMPLES): when most were
   preempted, the machine was busy throughout, the preempted ones are the run, and the
   record and table say so instead. */
#define BL__MIN_UNPREEMPTED_PCT 50
/* Counters of one run besides time, and BL_COUNTERs of one program: fixed arrays, as a
   constructor (BL_COUNTER's) has nobody to report a failed allocation to. */
#define BL__MAX_COUNTERS 32
#define BL__MAX_USER_COUNTERS 32

/* ---- I3. Registries: benchmarks and threaded targets ------------------------------------
   Both are filled before main by the constructors of BL_BENCH... and BL_TARGET, which
   cannot fail: running out of memory is noted and reported by bl_main. */

typedef struct bl__bench {
    const char *name;
    bl_body_fn body;
    int is_baseline;
    const char *param_name;   /* NULL unless BL_BENCH_ARGS */
    const int64_t *params;
    size_t param_count;
    const char *file;
    int line;
    size_t order;             /* registration order, to keep the sort stable */
    const struct bl__bench *base; /* BL_DIFFERENCE's base, resolved by bl__resolve_differences */
} bl__bench;

typedef struct bl__registry {
    bl__bench *items;
    size_t count, capacity;
    int out_of_memory;
} bl__registry;

BL__DEF bl__registry bl__benchmarks;

/* A registry's array with room for one more item: `items` itself, or grown (doubled, from
   `first`); NULL when out of memory, `items` then left as it was. */
static void *bl__room_for_one(void *items, size_t count, size_t *capacity, size_t size, size_t first) {
    size_t grown;
    void *more;
    if (count < *capacity) return items;
    grown = *capacity ? 2 * *capacity : first;
    more = realloc(items, grown * size);
    if (more) *capacity = grown;
    return more;
}

BL__DEF void bl__register(const char *name, bl_body_fn body, int is_baseline,
                          const char *param_name, const int64_t *params, size_t param_count,
                          const char *file, int line) {
    bl__registry *r = &bl__benchmarks;
    bl__bench *items = BL__CAST(bl__bench *, bl__room_for_one(r->items, r->count, &r->capacity, sizeof *items, 16));
    if (!items) { r->out_of_memory = 1; return; }
    r->items = items;
    r->items[r->count].name = name;
    r->items[r->count].body = body;
    r->items[r->count].is_baseline = is_baseline;
    r->items[r->count].param_name = param_name;
    r->items[r->count].params = params;
    r->items[r->count].param_count = param_count;
    r->items[r->count].file = file;
    r->items[r->count].line = line;
    r->items[r->count].order = r->count;
    r->items[r->count].base = NULL;
    r->count++;
}

/* BL_DIFFERENCE's pairs, by name: resolved when the run starts, once every benchmark is
   registered and sorted (bl__resolve_differences). */
typedef struct bl__difference {
    const char *bench, *base, *file;
    int line;
} bl__difference;

typedef struct bl__difference_registry {
    bl__difference *items;
    size_t count, capacity;
    int out_of_memory;
} bl__difference_registry;

BL__DEF bl__difference_registry bl__differences;

BL__DEF void bl__register_difference(const char *bench, const char *base, const char *file, int line) {
    bl__difference_registry *r = &bl__differences;
    bl__difference *items =
        BL__CAST(bl__difference *, bl__room_for_one(r->items, r->count, &r->capacity, sizeof *items, 8));
    if (!items) { r->out_of_memory = 1; return; }
    r->items = items;
    r->items[r->count].bench = bench;
    r->items[r->count].base = base;
    r->items[r->count].file = file;
    r->items[r->count].line = line;
    r->count++;
}

typedef struct bl__target_registry {
    const bl_target **items;
    size_t count, capacity;
    int out_of_memory;
} bl__target_registry;

BL__DEF bl__target_registry bl__targets;

BL__DEF void bl_register_target(const bl_target *t) {
    bl__target_registry *r = &bl__targets;
    const bl_target **items = BL__CAST(const bl_target **, bl__room_for_one(BL__CAST(void *, r->items), r->count,
                                                                             &r->capacity, sizeof *items, 8));
    if (!items) { r->out_of_memory = 1; return; }
    r->items = items;
    r->items[r->count++] = t;
}

/* ---- I4. Timer --------------------------------------------------------------------------
   Two sources. clock_gettime(CLOCK_MONOTONIC) everywhere (on wasm32-wasi it is WASI's
   clock_time_get). On x86-64 the TSC when the CPU says it is invariant (constant rate
   across P-states and C-states): it is cheaper to read and finer, so shorter samples
   are long enough. We measure both and use the TSC unless the clock is finer. */

typedef struct bl__timer {
    int use_tsc;
    double ns_per_tick;       /* 1 for the clock (ticks are ns) */
    double resolution_ns;     /* smallest non-zero step seen between two reads */
    double cost_ns;           /* cost of one read */
    const char *name;
    double tsc_ns_per_tick;   /* the invariant TSC's rate, 0 without one: the threaded
                                 mode times single operations with it whichever timer
                                 the samples use, as it costs a fraction of a clock read */
} bl__timer;

BL__DEF bl__timer bl__clock;

/* BL__TEST_CLOCK, for tests only: defined before the header as the name of a static
   `uint64_t f(void)` the test defines, that then is the clock in ns. With bl__clock.use_tsc
   0 every sample and every time limit reads it, so a test can check when a sampling loop
   stops on made-up time rather than on how busy the machine was (tests/c/stop_rule_test.c).
   bl__setup_timer must not run on it: it waits for the clock to move. */
#ifdef BL__TEST_CLOCK
static uint64_t BL__TEST_CLOCK(void);
#endif
static uint64_t bl__clock_ns(void) {
#ifdef BL__TEST_CLOCK
    return BL__TEST_CLOCK();
#else
    BL__TIMESPEC ts;
    bl__clock_gettime(BL__CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* BL__PHASE_TIMES, for bench/one_process.py only: defined before the header, it makes a
   run print to stderr where its wall time went, phase by phase, with how often each ran
   (bench/README.md, "One process"): "contention" is the readings around every sample,
   inside "rounds"; "output" writes the records and runs any counter passes. Without it
   the marks below compile to nothing (tests/python/header/test_phase_times.py). */
#ifdef BL__PHASE_TIMES
#define BL__PHASE_LIST(X) X(timer) X(context) X(calibration) X(calibration_empty) X(samples) \
    X(samples_empty) X(contention) X(rounds) X(figures) X(output) X(main)
#define BL__PHASE_ENUM(name) BL__PH_##name,
enum { BL__PHASE_LIST(BL__PHASE_ENUM) BL__PHASES };
static double bl__phase_ns[BL__PHASES];
static uint64_t bl__phase_count[BL__PHASES];
#define BL__PHASE_MARK(v) ((v) = bl__clock_ns())
#define BL__PHASE_ADD(phase, v) (bl__phase_ns[BL__PH_##phase] += (double)(bl__clock_ns() - (v)), bl__phase_count[BL__PH_##phase]++)
#define BL__PHASE_PRINT(name) fprintf(stderr, "phase %-18s %10.3f ms %8llu\n", #name, bl__phase_ns[BL__PH_##name] / 1e6, (unsigned long long)bl__phase_count[BL__PH_##name]);
#define BL__PHASE_REPORT() do { BL__PHASE_LIST(BL__PHASE_PRINT) } while (0)
#else
#define BL__PHASE_MARK(v) ((void)0)
#define BL__PHASE_ADD(phase, v) ((void)0)
#define BL__PHASE_REPORT() ((void)0)
#endif

/* The TSC backend (BL__HAVE_TSC: x86-64 without BL_NO_TSC). Elsewhere bl__tsc_invariant()
   says no, so bl__clock.use_tsc and tsc_ns_per_tick stay 0 and the reads below are never
   reached; the stubs only keep the callers free of #if. */
#if BL__HAVE_TSC
/* lfence before rdtsc keeps earlier instructions from finishing after the read;
   lfence after keeps later ones from starting before it. */
static inline uint64_t bl__rdtsc(void) {
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

static int bl__tsc_invariant(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u) return 0;
    __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
    return (edx >> 8) & 1u; /* CPUID.80000007H:EDX[8], "invariant TSC" */
}
/* The threaded mode's clock read: rdtsc without fences (see bl__op_now). */
static inline uint64_t bl__rdtsc_unfenced(void) {
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}
/* The CPU's brand string (CPUID 0x80000002-4), for a kernel that gives no model name;
   0 if the CPU has none. */
static int bl__cpuid_brand(char *out, size_t size) {
    unsigned regs[12], eax, ebx, ecx, edx, i;
    if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000004u) return 0;
    for (i = 0; i < 3; i++) __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
    memcpy(out, regs, size < sizeof regs ? size : sizeof regs);
    out[size < sizeof regs ? size - 1 : sizeof regs] = 0;
    return 1;
}
#else
static inline uint64_t bl__rdtsc(void) { return 0; }
static int bl__tsc_invariant(void) { return 0; }
static inline uint64_t bl__rdtsc_unfenced(void) { return 0; }
static int bl__cpuid_brand(char *out, size_t size) { (void)out; (void)size; return 0; }
#endif

/* The threaded mode's clock, read twice per operation, so the cheapest good one: rdtsc
   without fences. The fences would keep the operation's first and last instructions
   from overlapping the reads, which matters only for operations of a few ns, and they
   double the cost of a read (20 ns against 10 ns for the pair on this project's AMD
   EPYC VM, where rdtsc alone takes about 10 ns). */
static inline uint64_t bl__op_now(void) {
    return bl__clock.tsc_ns_per_tick > 0 ? bl__rdtsc_unfenced() : bl__clock_ns();
}
static double bl__op_ns_per_tick(void) {
    return bl__clock.tsc_ns_per_tick > 0 ? bl__clock.tsc_ns_per_tick : 1.0;
}

static inline uint64_t bl__now(void) {
    return bl__clock.use_tsc ? bl__rdtsc() : bl__clock_ns();
}

/* Smallest non-zero difference between consecutive reads, in ticks, and the mean
   cost of one read in ticks. */
static void bl__probe_timer(double *resolution_ticks, double *cost_ticks) {
    uint64_t best = UINT64_MAX;
    int i;
    for (i = 0; i < BL__TIMER_PROBES; i++) {
        uint64_t t0 = bl__now(), t1;
        do { t1 = bl__now(); } while (t1 == t0);
        if (t1 - t0 < best) best = t1 - t0;
    }
    {
        const int reads = BL__TIMER_COST_READS;
        uint64_t start = bl__now(), sink = 0;
        for (i = 0; i < reads; i++) sink += bl__now();
        BL_KEEP(sink);
        *cost_ticks = (double)(bl__now() - start) / reads;
    }
    *resolution_ticks = (double)best;
}

/* The TSC in place of the clock where it is invariant and at least as fine (or forced
   with BL_TIMER=tsc). Its rate is calibrated against the clock over the whole setup, from
   (c0, t0) taken before the clock's own probe: at least BL__TSC_CALIBRATION_NS, so the
   clock's read jitter (tens of ns) is about 1e-5 of the interval. */
static void bl__choose_tsc(const char *forced, uint64_t c0, uint64_t t0) {
    uint64_t c1, t1;
    double ns_per_tick, tsc_res, tsc_cost;
    if (!bl__tsc_invariant() || (forced && strcmp(forced, "clock") == 0)) return;
    do { c1 = bl__clock_ns(); } while (c1 - c0 < BL__TSC_CALIBRATION_NS);
    t1 = bl__rdtsc();
    ns_per_tick = (double)(c1 - c0) / (double)(t1 - t0);
    bl__clock.tsc_ns_per_tick = ns_per_tick;
    bl__clock.use_tsc = 1;
    bl__probe_timer(&tsc_res, &tsc_cost);
    tsc_res *= ns_per_tick;
    tsc_cost *= ns_per_tick;
    if (tsc_res <= BL__TIMER_TIE * bl__clock.resolution_ns || (forced && strcmp(forced, "tsc") == 0)) {
        bl__clock.ns_per_tick = ns_per_tick;
        bl__clock.resolution_ns = tsc_res;
        bl__clock.cost_ns = tsc_cost;
        bl__clock.name = "tsc";
    } else {
        bl__clock.use_tsc = 0;
    }
}

/* Start-up costs every process: kept to about 3 ms, as a run of several short
   processes pays it each time. */
static void bl__setup_timer(void) {
    uint64_t c0 = bl__clock_ns(), t0 = bl__rdtsc();
    double res, cost;
    bl__clock.use_tsc = 0;
    bl__clock.tsc_ns_per_tick = 0;
    bl__clock.ns_per_tick = 1.0;
    bl__clock.name = "clock_gettime(CLOCK_MONOTONIC)";
    bl__probe_timer(&res, &cost);
    bl__clock.resolution_ns = res;
    bl__clock.cost_ns = cost;
    bl__choose_tsc(getenv("BL_TIMER"), c0, t0);
}

/* ---- I5. Randomness ----------------------------------------------------------------------- */

BL__DEF uint64_t bl__run_seed;

BL__DEF uint64_t bl_seed(void) { return bl__run_seed; }

/* The step itself, inline for the threaded mode's loop (bl_random is weak, so calls to
   it stay calls). */
static inline uint64_t bl__splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
BL__DEF uint64_t bl_random(uint64_t *state) { return bl__splitmix64(state); }

/* ---- I6. Statistics ------------------------------------------------------------------------
   Definitions in docs/formats.md, shared with the Python side; tests/vectors/ checks both.
   No libm: `cc x.c` without -lm must link, so square roots are computed here. */

static double bl__sqrt(double x) {
    double r;
    int i;
    if (!(x > 0)) return 0;
    r = x > 1 ? x / 2 : 1;
    /* Newton's iteration converges quadratically; 64 steps cover any double. */
    for (i = 0; i < 64; i++) {
        double next = 0.5 * (r + x / r);
        if (next == r) break;
        r = next;
    }
    return r;
}

static double bl__nan(void) {
    volatile double zero = 0; /* volatile: computed at run time, no constant-folding warning */
    return zero / zero;
}

static int bl__compare_doubles(const void *pa, const void *pb) {
    double a = *BL__CAST(const double *, pa), b = *BL__CAST(const double *, pb);
    return (a > b) - (a < b);
}

BL__DEF double bl_quantile_sorted(const double *s, size_t n, double p) {
    double h = (double)(n - 1) * p;
    size_t i = (size_t)h; /* h >= 0, so truncation is floor */
    if (i + 1 >= n) return s[n - 1];
    return s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}

/* The order-statistic interval of the median: the number of samples below the true
   median is Binomial(n, 1/2) whatever the distribution, so [s[k-1], s[n-k]] covers it
   with probability >= 99% when P(B <= k-1) <= 0.005. Returns k (0 if n is too small for
   any k). Probabilities are built outward from the middle term, which never
   underflows, and normalised at the end: O(n). */
static size_t bl__median_ci_rank(size_t n) {
    double *w = BL__CAST(double *, malloc((n + 1) * sizeof(double)));
    double total = 0, cumulative = 0;
    size_t mid = n / 2, k, j, rank = 0;
    if (!w) return 0;
    w[mid] = 1;
    for (j = mid; j > 0; j--) w[j - 1] = w[j] * (double)j / (double)(n - j + 1);
    for (j = mid; j < n; j++) w[j + 1] = w[j] * (double)(n - j) / (double)(j + 1);
    for (j = 0; j <= n; j++) total += w[j];
    for (k = 1; k <= n / 2; k++) {
        cumulative += w[k - 1] / total; /* P(B <= k-1) */
        if (cumulative <= (1 - BL__CI_LEVEL) / 2 * (1 + 1e-12)) rank = k;
        else break;
    }
    free(w);
    return rank;
}

/* Student's t quantile t(0.995; df), the two-sided 99% point (BL__CI_LEVEL): a table for
   df 1..30 (scipy.stats.t.ppf, 10 decimals), then the Cornish-Fisher expansion around
   the normal quantile, which is within 4e-7 of it from df 31 on (1e-7 relative). */
static const double bl__t99_table[30] = {
    63.6567411629, 9.9248432009, 5.8409093097, 4.6040948713, 4.0321429836, 3.7074280213,
    3.4994832974, 3.3553873313, 3.2498355416, 3.1692726726, 3.1058065155, 3.0545395894,
    3.0122758387, 2.9768427344, 2.9467128835, 2.9207816224, 2.8982305197, 2.8784404727,
    2.8609346065, 2.8453397098, 2.8313595580, 2.8187560606, 2.8073356838, 2.7969395048,
    2.7874358137, 2.7787145333, 2.7706829571, 2.7632624555, 2.7563859037, 2.7499956536};

static double bl__t99(size_t df) {
    const double z = 2.5758293035489004, z2 = z * z;
    double d = (double)df;
    if (df == 0) return 1e308;
    if (df <= 30) return bl__t99_table[df - 1];
    return z + z * (z2 + 1) / (4 * d) + z * ((5 * z2 + 16) * z2 + 3) / (96 * d * d) +
           z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / (384 * d * d * d) +
           z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / (92160 * d * d * d * d);
}

/* Samples of one benchmark taken one after another are not independent: slow phases
   of a machine last longer than a sample (on this project's VM, 0.3-0.5 s of samples
   15-50% slower), and the order-statistic interval, which assumes independence, is then
   too narrow. Batch medians allow for it (Seila, "A batching approach to quantile
   estimation in regenerative simulations", Management Science 28(5), 1982; batch
   counts as in Schmeiser, "Batch size effects in the analysis of simulation output",
   Operations Research 30(3), 1982): cut the samples, in the order taken, into
   BL__BATCHES consecutive batches; the medians of long batches are nearly independent
   and nearly normal, so their spread gives a t interval. Returns its half-width, or 0
   when there are too few samples for BL__MIN_BATCHES batches of 2. */
static double bl__batch_halfwidth(const double *x, size_t n, double *scratch) {
    size_t batches = n / 2 < BL__BATCHES ? n / 2 : BL__BATCHES, j;
    double medians[BL__BATCHES], sum = 0, sq = 0, mean;
    if (batches < BL__MIN_BATCHES) return 0;
    for (j = 0; j < batches; j++) {
        size_t lo = j * n / batches, hi = (j + 1) * n / batches;
        memcpy(scratch, x + lo, (hi - lo) * sizeof(double));
        qsort(scratch, hi - lo, sizeof(double), bl__compare_doubles);
        medians[j] = bl_quantile_sorted(scratch, hi - lo, 0.5);
        sum += medians[j];
    }
    mean = sum / (double)batches;
    for (j = 0; j < batches; j++) sq += (medians[j] - mean) * (medians[j] - mean);
    return bl__t99(batches - 1) * bl__sqrt(sq / (double)(batches - 1) / (double)batches);
}

BL__DEF void bl_compute_stats(const double *x, size_t n, bl_stats *out) {
    double *s = BL__CAST(double *, malloc((n ? n : 1) * sizeof(double)));
    double sum = 0, sq = 0, q1, q3, iqr, batch;
    size_t i, k;
    memset(out, 0, sizeof *out);
    if (!s || n == 0) { free(s); return; }
    memcpy(s, x, n * sizeof(double));
    qsort(s, n, sizeof(double), bl__compare_doubles);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = bl_quantile_sorted(s, n, 0.5);
    out->p75 = bl_quantile_sorted(s, n, 0.75);
    out->p90 = bl_quantile_sorted(s, n, 0.90);
    out->p99 = bl_quantile_sorted(s, n, 0.99);
    for (i = 0; i < n; i++) sum += x[i];
    out->mean = sum / (double)n;
    for (i = 0; i < n; i++) sq += (x[i] - out->mean) * (x[i] - out->mean);
    out->stddev = n > 1 ? bl__sqrt(sq / (double)(n - 1)) : 0;

    k = bl__median_ci_rank(n);
    out->median_ci_low = k ? s[k - 1] : s[0];
    out->median_ci_high = k ? s[n - k] : s[n - 1];

    q1 = bl_quantile_sorted(s, n, 0.25);
    q3 = bl_quantile_sorted(s, n, 0.75);
    iqr = q3 - q1;
    for (i = 0; i < n; i++) {
        if (s[i] < q1 - BL__TUKEY_FENCE * iqr) out->outliers_low++;
        if (s[i] > q3 + BL__TUKEY_FENCE * iqr) out->outliers_high++;
    }

    /* The interval is the wider of the order-statistic interval (exact for independent
       samples, and the better one for few samples) and the batch-medians interval (right
       for correlated ones); `s` is free again, so it is the batches' scratch. */
    batch = bl__batch_halfwidth(x, n, s);
    if (out->median - batch < out->median_ci_low) out->median_ci_low = out->median - batch;
    if (out->median + batch > out->median_ci_high) out->median_ci_high = out->median + batch;
    /* The t interval of few batches can reach past the samples; the median cannot. */
    if (out->median_ci_low < out->min) out->median_ci_low = out->min;
    if (out->median_ci_high > out->max) out->median_ci_high = out->max;

    /* MAD reuses the buffer: absolute deviations from the median. */
    for (i = 0; i < n; i++) s[i] = x[i] > out->median ? x[i] - out->median : out->median - x[i];
    qsort(s, n, sizeof(double), bl__compare_doubles);
    out->mad = bl_quantile_sorted(s, n, 0.5);
    free(s);
}

/* The comparison uses the ratio of each round, a[i]/b[i]: the two samples of a round
   were taken close together, so drift of the machine cancels inside the ratio. On this
   project's noisy 2-core VM the per-round ratios varied half as much as either
   benchmark alone, and a ratio of separate medians once read 0.76 for a kernel 1%
   slower where the median of per-round ratios read 1.011 (docs/formats.md). The
   interval is the median's: order statistics widened by batch medians, nothing random
   to reproduce. */
BL__DEF void bl_ratio_ci(const double *a, const double *b, size_t m, double *ratio,
                         double *low, double *high) {
    double *r = BL__CAST(double *, malloc((m ? m : 1) * sizeof(double)));
    bl_stats s;
    size_t i;
    *ratio = *low = *high = 0;
    if (!r || m == 0) { free(r); return; }
    for (i = 0; i < m; i++) r[i] = a[i] / b[i];
    bl_compute_stats(r, m, &s);
    *ratio = s.median;
    *low = s.median_ci_low;
    *high = s.median_ci_high;
    free(r);
}

/* Costs after subtracting the empty loop are never reported below zero: a location
   figure below it becomes 0, and so does an interval's end. Returns 1 when the median's
   interval reaches zero: the benchmark is then indistinguishable from the empty loop. */
static int bl__floor_at_zero(bl_stats *s) {
    double *figures[9];
    int i, zero = !(s->median_ci_low > 0);
    figures[0] = &s->median; figures[1] = &s->min; figures[2] = &s->max; figures[3] = &s->mean;
    figures[4] = &s->p75; figures[5] = &s->p90; figures[6] = &s->p99;
    figures[7] = &s->median_ci_low; figures[8] = &s->median_ci_high;
    for (i = 0; i < 9; i++) if (*figures[i] < 0) *figures[i] = 0;
    return zero;
}

/* ---- I7. What a run measures: settings, benchmarks, counters, results -------------------
   What the command line decides (section I13 fills it in), the benchmarks and counters
   it selects, and the record each is measured into, for time and for every counter. */

enum bl__schedule { BL__ROUNDS, BL__SEQUENTIAL };
static const char *const bl__schedule_names[] = {"rounds", "sequential"};

typedef struct bl__options {
    int list;
    const char **filters;
    size_t filter_count;
    size_t samples;                /* --samples: at most this many per benchmark */
    int samples_given;
    double time_limit_s;           /* per benchmark */
    int time_limit_given;
    int long_sampling;             /* --samples, --time-limit or --precision: benchlab's sampling */
    int epochs;                    /* B63's dialect: each sample one of B63's epochs (bl__epoch) */
    int exact_samples;             /* exactly --samples: no time limit stops (B63's -e, libloong's -s) */
    double precision_pct;          /* stop once the median's interval is this tight; 0: off */
    enum bl__schedule schedule;
    int subtract;                  /* subtract the empty loop's cost (--no-subtract: 0) */
    uint64_t seed;
    int seed_given;
    size_t format;                 /* index into bl__writers */
    int format_given;              /* --format was on the command line */
    int csb_flags;                 /* a CSB spelling (-t= -n= -d= -s= -opK=) was */
    const char *csb_flag;          /* the first of them, and what it means (bl__check_selection) */
    const char *csb_flag_meaning;
    int dialect;                   /* the short flags' dialect (enum bl__dialect) */
    char delimiter;                /* B63's plain lines: -d DELIM (default ',') */
    const char *binary;            /* libloong's -b PATH / --binary PATH, or NULL */
    const char *out_path;
    const char *counters;          /* --counters; without it bl_set_counters()'s, else time */
    /* threaded mode */
    uint64_t threads, nops, init_size, latency_every;
    int latency_every_given;       /* else every operation for csb, per batch otherwise */
    int random_nops;               /* --random-nops: 0..nops at random, not exactly nops */
    int csb_ns;                    /* --csb-unit=ns: the csb line in ns, not timer ticks */
    double duration_s;
    int duration_given;
    uint64_t op_freq[BL__MAX_OPS];
    int op_given[BL__MAX_OPS];
    int any_op_given;
} bl__options;

/* One benchmark at one parameter value. */
typedef struct bl__instance {
    const bl__bench *bench;
    size_t param_index;
    size_t base;       /* BL_DIFFERENCE: index of the base's instance in the run, + 1; 0: none */
    char display[256]; /* name, or name/param_name=value */
} bl__instance;

static int64_t bl__param(const bl__instance *in) {
    return in->bench->params ? in->bench->params[in->param_index] : 0;
}

/* The kinds of counter, in the order their passes run. Each kind is one pass: a perf
   group is read with one system call; allocation tracking and perf counting are switched
   on only in their own pass, so they perturb no other figure. The names are the `pass`
   of a counter's record. */
enum bl__ckind { BL__C_TIME, BL__C_TSC, BL__C_PERF_HW, BL__C_PERF_SW, BL__C_RUSAGE, BL__C_ALLOC, BL__C_USER, BL__C_KINDS };
static const char *const bl__pass_names[BL__C_KINDS] = {
    "time", "tsc", "perf-hardware", "perf-software", "rusage", "alloc", "user"};

/* One counter of --counters, as section I16 parsed it (name, kind, perf event, unit) and
   opened it (supported, or the reason it is not). */
typedef struct bl__counter {
    char name[64];
    const char *unit;
    enum bl__ckind kind;
    uint32_t perf_type;
    uint64_t perf_config;
    int exclude_user, exclude_kernel;
    int which;               /* rusage field, alloc field, user counter index */
    int level;               /* a level (max RSS), not a count: reported as is, not per iteration */
    int supported;
    char reason[240];
    const char *source;      /* where the figure comes from, reported in the record */
    int fd;                  /* perf */
    int leader;              /* perf: fd of the group it is read through (its own when alone) */
} bl__counter;

typedef struct bl__counter_set {
    bl__counter items[BL__MAX_COUNTERS];
    size_t count;
    int want_time;
} bl__counter_set;

/* A threaded target's figures (section I17); the writers of section I12 take them. */
typedef struct bl__tp_result bl__tp_result;

/* The samples of one benchmark (or of the empty loop) and what was computed from them;
   the same record for the time pass and for every counter. */
typedef struct bl__result {
    const bl__instance *instance;        /* NULL for the empty loop */
    const bl__counter *counter;          /* NULL for time */
    /* sampling (time pass) */
    bl_body_fn body;
    int64_t arg;
    int support;                         /* sampled only as the reference of others */
    double target_ns;                    /* wall time one sample should take */
    double spent_ns;                     /* wall time of its samples, BL_SUSPEND included */
    size_t capacity, next_check;
    const char *stopped;                 /* why sampling ended: precision, samples, time limit */
    /* samples, in the order taken: samples[i] (and baseline_samples[i]) in round i */
    uint64_t iterations;                 /* calibrated */
    uint64_t *sample_iterations;
    double *samples;                     /* time: ns per iteration as measured, before subtraction */
    double *baseline_samples;            /* compared: the baseline's sample of the same round */
    struct bl__result *base;             /* BL_DIFFERENCE's base, sampled in the same rounds, or NULL */
    double *base_samples;                /* with a base: its sample of the same round, as measured */
    const char *difference_to;           /* the base's name (its instance's display), once measured */
    double difference, difference_low, difference_high; /* median per-round difference to the base, 99% */
    size_t count;
    /* figures */
    bl_stats raw;                        /* time: statistics of the samples as measured */
    bl_stats stats;                      /* reported: for time, after subtracting the empty loop */
    double *overhead_samples;            /* time: the empty loop's sample of the same round */
    double overhead_ns;                  /* the empty loop's median */
    double loop_share;                   /* the share of it subtracted (bl__loop_share; 0 with --no-subtract) */
    int subtracted;                      /* figures are per-round differences from the empty loop */
    int zero;                            /* the interval reaches zero: indistinguishable from it */
    const char *compared_to;             /* the baseline's name, or NULL */
    double ratio, ratio_low, ratio_high; /* median of per-round ratios and its interval */
    double ratio_of_medians;             /* median(this) / median(baseline), for reference */
    uint64_t baseline_iterations;        /* the baseline's calibrated iterations, when compared */
    double running_fraction;             /* perf: mean share of each sample the event was counted */
    const char *problem;                 /* a counter that gave no figure for this benchmark */
    /* what the kernel says its samples lost to other tasks (section I19); time pass only */
    unsigned char *sample_preempted;     /* per sample: preempted, or its round's empty loop or baseline was */
    int contention_known;                /* 0 where the platform cannot tell (the record says null) */
    size_t preempted;                    /* rounds flagged in sample_preempted, left out or not */
    size_t left_out;                     /* of those, left out of the samples (bl__leave_out_preempted) */
    int widened;                         /* kept, and the interval widened for them (bl__widen_for_preempted) */
    double widened_to;                   /* ... to reach this figure */
    uint64_t involuntary_switches;       /* over its own samples */
    double run_delay_ns;                 /* time its own samples waited for a CPU (-1: not known) */
    int short_samples;                   /* 0, or why most samples are short against the timer: BL__SHORT_BUSY, BL__SHORT_NOTHING (I9, I10) */
} bl__result;

/* Grows one of a result's per-sample arrays to `capacity` doubles; 0 when out of memory. */
static int bl__grow(double **items, size_t capacity) {
    double *more = BL__CAST(double *, realloc(*items, capacity * sizeof(double)));
    if (more) *items = more;
    return more != NULL;
}

/* Room for `capacity` samples, with the empty loop's of each round when `with_overhead`
   and the baseline's when `paired`. */
static int bl__reserve(bl__result *r, size_t capacity, int with_overhead, int paired) {
    uint64_t *it;
    unsigned char *flags;
    if (capacity <= r->capacity) return 1;
    it = BL__CAST(uint64_t *, realloc(r->sample_iterations, capacity * sizeof(uint64_t)));
    if (it) r->sample_iterations = it;
    flags = BL__CAST(unsigned char *, realloc(r->sample_preempted, capacity));
    if (flags) r->sample_preempted = flags;
    if (!it || !flags || !bl__grow(&r->samples, capacity)) return 0;
    if (with_overhead && !bl__grow(&r->overhead_samples, capacity)) return 0;
    if (paired && !bl__grow(&r->baseline_samples, capacity)) return 0;
    if (r->base && !bl__grow(&r->base_samples, capacity)) return 0;
    r->capacity = capacity;
    return 1;
}

static void bl__free_result(bl__result *r) {
    free(r->samples);
    free(r->sample_iterations);
    free(r->baseline_samples);
    free(r->base_samples);
    free(r->overhead_samples);
    free(r->sample_preempted);
    r->sample_preempted = NULL;
    r->samples = NULL;
    r->sample_iterations = NULL;
    r->baseline_samples = NULL;
    r->base_samples = NULL;
    r->overhead_samples = NULL;
    r->capacity = r->count = 0;
}

/* ---- I8. Suspend and one sample -------------------------------------------------------------
   A BL_SUSPEND block stops the clock of the time pass; in a counter pass (section I16) it
   stops the counters instead, which that section's bl__pass_pause and bl__pass_resume
   do, so this section needs to know nothing of counters. */

typedef struct bl__pass_state bl__pass_state;
static void bl__pass_pause(bl__pass_state *pass);
static void bl__pass_resume(bl__pass_state *pass);

struct bl_state {
    uint64_t suspend_start;
    uint64_t suspended_ticks; /* time inside BL_SUSPEND blocks during this sample */
    uint64_t suspends;        /* BL_SUSPEND blocks entered (instruction regions report it) */
    bl__pass_state *pass;     /* NULL in the time pass; else the counter pass being sampled */
};

BL__DEF int bl__suspend_begin(bl_state *state) {
    state->suspends++;
    if (state->pass) bl__pass_pause(state->pass);
    else state->suspend_start = bl__now();
    return 1;
}

BL__DEF int bl__suspend_end(bl_state *state) {
    if (state->pass) bl__pass_resume(state->pass);
    else state->suspended_ticks += bl__now() - state->suspend_start;
    return 0;
}

/* One sample: run the body n times between two timer reads; return the ns spent
   outside BL_SUSPEND blocks, and in *wall_ns the ns spent in all (what the time limit
   counts). The body is called through a pointer, so it cannot be inlined here and gets
   the same code in calibration and in the samples. */
static double bl__sample_ns(bl_body_fn body, uint64_t n, int64_t arg, double *wall_ns) {
    bl_state state;
    uint64_t start, end;
    state.suspend_start = 0;
    state.suspended_ticks = 0;
    state.suspends = 0;
    state.pass = NULL;
    start = bl__now();
    body(&state, n, arg);
    end = bl__now();
    if (wall_ns) *wall_ns = (double)(end - start) * bl__clock.ns_per_tick;
    return (double)(end - start - state.suspended_ticks) * bl__clock.ns_per_tick;
}

/* What the kernel says the thread lost to other tasks so far: involuntary context
   switches and the time it waited, runnable, for a CPU. Read before and after a sample,
   outside its timed part, by section I19's backend (stubs where the platform cannot
   tell: bl__lost_read returns 0 there). */
typedef struct bl__lost {
    uint64_t switches;
    uint64_t delay_ns;
    int delay_known; /* schedstat was readable (a kernel without CONFIG_SCHED_INFO has none) */
} bl__lost;
static int bl__lost_read(bl__lost *now);

/* Was a sample of `wall_ns` preempted, from the readings around it? Involuntarily
   switched out, or waited for a CPU over BL__PREEMPTED_DELAY_PCT of its time. */
static int bl__preempted(const bl__lost *before, const bl__lost *after, double wall_ns) {
    double waited = (double)(after->delay_ns - before->delay_ns);
    if (after->switches != before->switches) return 1;
    return after->delay_known && waited > BL__PREEMPTED_DELAY_PCT / 100.0 * wall_ns;
}

/* The empty measurement loop: the same shape as a user's loop with a barrier in it,
   aligned as the user's bodies are. Its per-iteration cost (loop counter, branch, and
   the timer reads spread over n) is what the subtraction removes. */
static void bl__empty_body(bl_state *state, uint64_t n, int64_t arg) __attribute__((aligned(64)));
static void bl__empty_body(bl_state *state, uint64_t n, int64_t arg) {
    uint64_t i;
    (void)state;
    (void)arg;
    for (i = 0; i < n; i++) BL_CLOBBER();
}

/* ---- I9. Calibration -------------------------------------------------------------------------
   Grow n until one sample takes its share of the time (wall_target_ns, counting
   BL_SUSPEND time, as the limit does) and its timed part is long against the timer's
   resolution. Sizing by timed time alone would let a body with slow suspended setup
   take a fraction of the samples it was asked for (seen: 1 of 50 for sys_close under
   wasm). The first runs also warm caches, branch predictors and the frequency governor.

   Both are judged on the time the sample ran: what it waited for a CPU (section I19) is
   taken out, as a preempted sample of 1 iteration lasts milliseconds and would pass
   for long enough. The share of the time may be cut short by the time limit, the floor
   against the timer's resolution may not: calibration goes on for it up to
   BL__CALIBRATION_FLOOR_LIMIT times the limit, then gives up and says so in
   *short_samples. Returns n; adds the wall time spent to *spent_ns. */

/* A sample's timed part `t` less its share of the time the whole sample (wall_ns) waited
   for a CPU: the kernel tells the wait of the sample, suspended part (BL_SUSPEND) included,
   and the timed part carries t / wall_ns of it. Taking all of it off the timed part made a
   body whose suspended setup waited on a busy machine look as if it took no time:
   calibration then grew n to ~111 million iterations and the run took ~10x its time limit
   (issue 38; scaling the wait took that run from 44.7 s to 4.4 s). */
static double bl__timed_less_wait(double t, double wall_ns, double waited) {
    double share = wall_ns > 0 && t < wall_ns ? t / wall_ns : 1;
    return t - waited * share > 0 ? t - waited * share : 0;
}

/* One calibration sample: its timed part and its wall time, each less the time it waited
   for a CPU (where the kernel tells; else as measured). */
static double bl__calibration_sample(bl_body_fn body, uint64_t n, int64_t arg, double *wall_ns, double *ran_ns) {
    bl__lost before, after;
    int known = bl__lost_read(&before);
    double t = bl__sample_ns(body, n, arg, wall_ns), waited = 0;
    if (known && bl__lost_read(&after) && after.delay_known) waited = (double)(after.delay_ns - before.delay_ns);
    *ran_ns = *wall_ns - waited > 0 ? *wall_ns - waited : 0;
    return bl__timed_less_wait(t, *wall_ns, waited);
}

/* How much to grow n after a sample that ran `ran_ns` (timed part `t`): past whichever
   target is further (only the timer floor once the time limit is used up), within the
   steps of section I2. */
static double bl__calibration_step(double t, double ran_ns, double wall_target_ns, double timed_floor_ns,
                                   int floor_only) {
    double factor = BL__CALIBRATION_MIN_STEP;
    if (t <= 0 || ran_ns <= 0) return BL__CALIBRATION_MAX_STEP;
    if (!floor_only && ran_ns < wall_target_ns && BL__CALIBRATION_AIM * wall_target_ns / ran_ns > factor)
        factor = BL__CALIBRATION_AIM * wall_target_ns / ran_ns;
    if (t < timed_floor_ns && BL__CALIBRATION_AIM * timed_floor_ns / t > factor)
        factor = BL__CALIBRATION_AIM * timed_floor_ns / t;
    return factor > BL__CALIBRATION_MAX_STEP ? BL__CALIBRATION_MAX_STEP : factor;
}

/* bl__calibrate takes its sampler as an argument, so a test can feed it the samples of a
   busy machine (tests/c/contention_test.c): the body's timed part, and its wall time and
   the time it ran, as bl__calibration_sample gives them. */
typedef double (*bl__sampler)(bl_body_fn body, uint64_t n, int64_t arg, double *wall_ns, double *ran_ns);

/* n grown by `factor`, plus one, at most BL__MAX_ITERATIONS. */
static uint64_t bl__grown(uint64_t n, double factor) {
    double grown = (double)n * factor + 1;
    return (uint64_t)(grown < BL__MAX_ITERATIONS ? grown : BL__MAX_ITERATIONS);
}

static uint64_t bl__calibrate(bl__sampler sample, bl_body_fn body, int64_t arg, double wall_target_ns,
                              double limit_ns, double *spent_ns, int *short_samples) {
    double timed_floor_ns = BL__RESOLUTION_FACTOR * bl__clock.resolution_ns, fastest = 0;
    uint64_t n = 1;
    int warm_rounds = 0;
    *short_samples = 0;
    for (;;) {
        double wall, ran, t = sample(body, n, arg, &wall, &ran);
        int out_of_time;
        *spent_ns += wall;
        out_of_time = *spent_ns > limit_ns;
        /* The floor is judged at the fastest iteration seen: a sample whose body waits on
           another process (a pipe round trip) is slowed by that process's wait for a CPU,
           which the run delay of this thread does not show (seen: ipc_pipe at 1
           iteration, its one sample 12 us of a 5 us round trip). */
        if (fastest == 0 || t / (double)n < fastest) fastest = t / (double)n;
        if (fastest * (double)n >= timed_floor_ns && (out_of_time || ran >= wall_target_ns)) {
            /* One more sample at the final size: the first long sample is often slower
               (page faults, cold caches, another task) and would make n too small. */
            if (warm_rounds++ >= 1) return n;
            continue;
        }
        if (*spent_ns > BL__CALIBRATION_FLOOR_LIMIT * limit_ns) {
            *short_samples = BL__SHORT_BUSY;
            return n;
        }
        if ((double)n >= BL__MAX_ITERATIONS) {
            *short_samples = BL__SHORT_NOTHING;
            return n;
        }
        n = bl__grown(n, bl__calibration_step(fastest * (double)n, ran, wall_target_ns, timed_floor_ns, out_of_time));
    }
}

static uint64_t bl__jitter(uint64_t n, uint64_t *rng) {
    /* uniform in [n*(1-J), n*(1+J)] */
    double u = (double)(bl_random(rng) >> 11) / 9007199254740992.0;
    double v = (double)n * (1 + BL__JITTER * (2 * u - 1));
    return v < 1 ? 1 : (uint64_t)v;
}

/* How long one sample should take. With --samples, that many fill the time limit (as
   B63's epochs do); otherwise samples are short (BL__SAMPLE_NS, or 1000 ticks of the
   timer if that is longer) and --precision decides how many. */
static double bl__sample_target_ns(const bl__options *o) {
    double floor_ns = BL__RESOLUTION_FACTOR * bl__clock.resolution_ns;
    double target = o->samples_given ? o->time_limit_s * 1e9 * BL__SAMPLE_BUDGET / (double)o->samples : BL__SAMPLE_NS;
    return target > floor_ns ? target : floor_ns;
}

/* One of B63's epochs (B63's dialect, bl__dialect_sampling): batches of 1, 2, 4, ...
   iterations, each timed on its own, until the epoch's wall time, BL_SUSPEND included,
   passes budget_ns, or it has BL__EPOCH_MAX_ITERATIONS. Returns its iterations (2^k - 1:
   B63's count), and in *timed_ns the time outside BL_SUSPEND of all its batches, in
   *wall_ns their wall time. No calibration: the doubling is one. Like bl__calibrate it
   takes its sampler as an argument (bl__sample_ns), so that a test can run it on a
   made-up clock (tests/c/epoch_test.c). */
typedef double (*bl__batch_sampler)(bl_body_fn body, uint64_t n, int64_t arg, double *wall_ns);

static uint64_t bl__epoch(bl__batch_sampler batch, bl_body_fn body, int64_t arg, double budget_ns, double *timed_ns,
                          double *wall_ns) {
    uint64_t n, total = 0;
    *timed_ns = *wall_ns = 0;
    for (n = 1; (double)total < BL__EPOCH_MAX_ITERATIONS; n *= 2) {
        double wall;
        *timed_ns += batch(body, n, arg, &wall);
        *wall_ns += wall;
        total += n;
        if (*wall_ns > budget_ns) break;
    }
    return total;
}

/* An epoch's share of the time: -t S over -e N for a benchmark; the empty loop's epoch,
   a reference only, takes BL__EPOCH_EMPTY_SHARE of that. */
static double bl__epoch_budget_ns(const bl__options *o, int empty_loop) {
    double budget = o->time_limit_s * 1e9 / (double)o->samples;
    return empty_loop ? BL__EPOCH_EMPTY_SHARE * budget : budget;
}

/* ---- I10. Rounds: the time pass ----------------------------------------------------------------
   Every benchmark still sampling takes one sample per round, in a freshly shuffled
   order drawn from the run's seed, together with the empty loop (whose cost is
   subtracted) and the baseline (which the compared ones are divided by). A slow phase
   of the machine then hits every benchmark alike, every benchmark's samples span the
   whole run, and the baseline's sample of round i pairs with the compared sample of
   round i. A benchmark stops when its median's interval is within --precision, or at
   --samples, or when its samples have used --time-limit (bl__stop_reason, the rule the
   counter passes stop by too); the empty loop and the baseline go on while anyone needs
   them. --schedule=sequential runs the same loop on one benchmark at a time (with its
   own empty loop and baseline). */

typedef struct bl__rounds {
    bl__result **series;      /* [0] is the empty loop */
    size_t count;
    bl__result *baseline;     /* one of series, or NULL */
    size_t max_samples;
} bl__rounds;

static int bl__is_compared(const bl__rounds *g, const bl__result *r) {
    return g->baseline && r != g->baseline && r->instance != NULL;
}

/* Whether series i takes a sample in the next round. */
static int bl__wanted(const bl__rounds *g, size_t i) {
    const bl__result *r = g->series[i];
    size_t j;
    if (!r->stopped) return 1;
    for (j = 0; j < g->count; j++) {
        const bl__result *other = g->series[j];
        if (other->stopped || other == r) continue;
        if (i == 0) return 1; /* the empty loop goes on while anything samples */
        if (r == g->baseline && bl__is_compared(g, other)) return 1;
        if (other->base == r) return 1; /* a base goes on while its benchmark samples */
    }
    return 0;
}

/* Is the median's interval within --precision? Checked at growing intervals (every
   ~10% more samples), as a check sorts the samples. Compared benchmarks also need
   their ratio to the baseline that tight. */
static int bl__precise(bl__result *r, const bl__options *o, int compared) {
    bl_stats s;
    double want = o->precision_pct / 100;
    if (r->count < BL__PRECISION_MIN_SAMPLES || r->count < r->next_check) return 0;
    r->next_check = r->count + r->count / 10 + 1;
    bl_compute_stats(r->samples, r->count, &s);
    if (s.median_ci_high - s.median > want * s.median || s.median - s.median_ci_low > want * s.median) return 0;
    if (compared) {
        double ratio, low, high;
        bl_ratio_ci(r->samples, r->baseline_samples, r->count, &ratio, &low, &high);
        if (high - ratio > want * ratio || ratio - low > want * ratio) return 0;
    }
    return 1;
}

/* The stop rule of every sampling loop: the time pass's rounds (bl__update_stop) and each
   counter pass (bl__pass_rounds) ask it after each sample of a benchmark, so its time record
   and its counter records stop on the same counts and say why in the same words (`stopped`
   in docs/formats.md); one function, so that the loops cannot come to count time, or
   name a stop, each its own way. In order, the first that holds:
     "samples"     it has max_samples: --samples, else the time pass's maximum
                   (BL__DEFAULT_MAX_SAMPLES); in a pass, as many as the time pass took;
     "time limit"  spent_ns, the wall time of the benchmark's own samples, has reached
                   --time-limit, and it has BL__MIN_SAMPLES_AT_LIMIT samples. A sample
                   counts from its first reading to its last, BL_SUSPEND blocks included:
                   in the time pass between its two timer reads; in a pass from before its
                   first counter read to after its last, so the two reads count too (two
                   system calls for perf events: in one run on this project's VM, samples
                   of 60.5 us in the time pass took 65 us in the perf-software pass).
                   Calibration, a pass's warm-up sample and the samples of the empty loop
                   and the baseline beside it do not count;
     "precision"   `precise`: the time pass's check of the median's interval (bl__precise);
                   a pass gives 0, as its count follows the time pass's.
   NULL: take another sample. */
static const char *bl__stop_reason(size_t count, size_t max_samples, double spent_ns, double time_limit_s,
                                   int precise) {
    if (count >= max_samples) return "samples";
    if (spent_ns >= time_limit_s * 1e9 && count >= BL__MIN_SAMPLES_AT_LIMIT) return "time limit";
    if (precise) return "precision";
    return NULL;
}

/* A stopped benchmark keeps its first reason, though it may go on sampling as the
   baseline or a base of others (bl__wanted). */
static void bl__update_stop(const bl__rounds *g, bl__result *r, const bl__options *o) {
    int precise;
    if (r->stopped) return;
    precise = o->precision_pct > 0 && bl__precise(r, o, bl__is_compared(g, r));
    /* An exact count (B63's epochs, libloong's -s): no time spent counts against the limit. */
    r->stopped = bl__stop_reason(r->count, g->max_samples, o->exact_samples ? 0 : r->spent_ns, o->time_limit_s, precise);
}

static void bl__shuffle(size_t *items, size_t n, uint64_t *rng) {
    size_t i;
    for (i = n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)(bl_random(rng) % i), t = items[i - 1];
        items[i - 1] = items[j];
        items[j] = t;
    }
}

/* Adds what the kernel says one sample lost to the result's totals; returns whether the
   sample was preempted. Not knowing (a platform without the backend) is not preempted.
   The wait added is at most the sample's wall time: the readings around a sample see
   the wait during the readings too, outside the sample, and the total is a share of the
   samples' time (a 30 ns sample whose reading waited 15 ms made "waited for a CPU 50582%
   of its time"). */
static int bl__note_lost(bl__result *r, int known, const bl__lost *before, const bl__lost *after, double wall_ns) {
    double waited;
    if (!known) return 0;
    r->contention_known = 1;
    r->involuntary_switches += after->switches - before->switches;
    waited = (double)(after->delay_ns - before->delay_ns);
    if (after->delay_known) r->run_delay_ns += waited < wall_ns ? waited : wall_ns;
    else r->run_delay_ns = -1;
    return bl__preempted(before, after, wall_ns);
}

/* The timed part every sample should reach (BL__RESOLUTION_FACTOR), less the jitter's
   allowance, below which a sample counts as short. */
static double bl__short_below_ns(void) { return (1 - BL__JITTER) * BL__RESOLUTION_FACTOR * bl__clock.resolution_ns; }

/* The iterations of the next samples after one of n iterations whose timed part, t_ns,
   was short: aimed past the floor, within calibration's steps. Calibration under load
   can settle on samples slowed by another process's wait (a pipe's other end waiting
   for a CPU), after which the quicker ones are short (seen: ipc_pipe at 1 iteration,
   its samples 6 us against a floor of 10 us). */
static uint64_t bl__lengthened(uint64_t n, double t_ns) {
    double floor_ns = BL__RESOLUTION_FACTOR * bl__clock.resolution_ns;
    double factor = t_ns > 0 ? BL__CALIBRATION_AIM * floor_ns / t_ns : BL__CALIBRATION_MAX_STEP;
    return bl__grown(n, factor < BL__CALIBRATION_MAX_STEP ? factor : BL__CALIBRATION_MAX_STEP);
}

/* Whether most of a series' samples are short against the timer (bl__short_below_ns):
   then its record says "short_samples", whatever calibration decided. */
static int bl__mostly_short(const bl__result *r) {
    size_t i, short_ones = 0;
    for (i = 0; i < r->count; i++) short_ones += r->samples[i] * (double)r->sample_iterations[i] < bl__short_below_ns();
    return 2 * short_ones > r->count;
}

/* One sample of a series, with what it lost to other tasks read around it: outside the
   timed part, which bl__sample_ns brackets with its own two timer reads. A short one
   lengthens the samples after it. */
static int bl__take_sample(bl__result *r, int paired, const bl__options *o, uint64_t *rng) {
    uint64_t n = o->epochs ? 0 : bl__jitter(r->iterations, rng);
    double wall, t;
    bl__lost before, after;
    int known;
    BL__UNUSED uint64_t phase = 0;
    if (r->count == r->capacity && !bl__reserve(r, r->capacity ? 2 * r->capacity : 64, r->instance != NULL, paired))
        return 0;
    BL__PHASE_MARK(phase);
    known = bl__lost_read(&before);
    BL__PHASE_ADD(contention, phase);
    BL__PHASE_MARK(phase);
    if (o->epochs) n = bl__epoch(bl__sample_ns, r->body, r->arg, bl__epoch_budget_ns(o, !r->instance), &t, &wall);
    else t = bl__sample_ns(r->body, n, r->arg, &wall);
    if (r->instance) BL__PHASE_ADD(samples, phase);
    else BL__PHASE_ADD(samples_empty, phase);
    BL__PHASE_MARK(phase);
    known = known && bl__lost_read(&after);
    BL__PHASE_ADD(contention, phase);
    r->sample_preempted[r->count] = (unsigned char)bl__note_lost(r, known, &before, &after, wall);
    r->samples[r->count] = t / (double)n;
    r->sample_iterations[r->count] = n;
    r->count++;
    r->spent_ns += wall;
    if (o->epochs) r->iterations = n; /* the last epoch's: what a counter pass starts from */
    else if (t < bl__short_below_ns()) r->iterations = bl__lengthened(n, t);
    return 1;
}

/* The rule for preempted rounds, as a pure function of the counts: leave them out when
   the rounds left are at least BL__MIN_UNPREEMPTED_PCT of all and at least BL__MIN_SAMPLES;
   otherwise most rounds were preempted, they are the run, and all are kept. */
static int bl__leaves_out_preempted(size_t count, size_t preempted) {
    size_t left = count - preempted;
    return preempted > 0 && left >= BL__MIN_SAMPLES && 100.0 * (double)left >= BL__MIN_UNPREEMPTED_PCT * (double)count;
}

/* Counts a series' preempted rounds, leaving none out. */
static void bl__count_preempted(bl__result *r) {
    size_t i;
    r->preempted = r->left_out = 0;
    for (i = 0; i < r->count; i++) r->preempted += r->sample_preempted[i] != 0;
}

/* Applies the rule to a benchmark's rounds: counts the preempted ones (sample_preempted
   holds, for each round, whether its sample or the empty loop's or baseline's sample
   paired with it was preempted) and, when the rule says so, leaves those rounds out of
   every paired array alike, so that sample i, overhead_samples[i] and
   baseline_samples[i] stay one round. */
static void bl__leave_out_preempted(bl__result *r) {
    size_t i, kept = 0;
    bl__count_preempted(r);
    if (!bl__leaves_out_preempted(r->count, r->preempted)) return;
    for (i = 0; i < r->count; i++) {
        if (r->sample_preempted[i]) continue;
        r->samples[kept] = r->samples[i];
        r->sample_iterations[kept] = r->sample_iterations[i];
        r->sample_preempted[kept] = 0;
        if (r->overhead_samples) r->overhead_samples[kept] = r->overhead_samples[i];
        if (r->baseline_samples) r->baseline_samples[kept] = r->baseline_samples[i];
        if (r->base_samples) r->base_samples[kept] = r->base_samples[i];
        kept++;
    }
    r->left_out = r->count - kept;
    r->count = kept;
}

/* Samples short against the timer (calibration gave up, bl__calibrate, or most samples
   were short, bl__mostly_short) are said on stderr as well as in the record: the figure
   carries up to a tick of rounding in every sample. */
static void bl__warn_short_samples(const bl__result *r, double limit_s) {
    if (!r->short_samples) return;
    if (r->short_samples == BL__SHORT_NOTHING) {
        fprintf(stderr, "benchlab: %s: %llu iterations of its body take less than %.0fx the timer's resolution (%.3g "
                        "ns): the body costs nothing measurable; did the compiler delete its work or move it out of the "
                        "loop? (BL_KEEP a result or BL_CLOBBER() in every iteration: examples/keep.c); its figure is "
                        "marked \"short_samples\"\n",
                r->instance->display, (unsigned long long)r->iterations, BL__RESOLUTION_FACTOR, bl__clock.resolution_ns);
        return;
    }
    fprintf(stderr, "benchlab: %s: most samples are shorter than %.0fx the timer's resolution (%.3g ns), at %llu "
                    "iterations: the machine was too busy to calibrate them within %gx --time-limit=%g; its figure is "
                    "marked \"short_samples\" (a quieter machine or a longer --time-limit fixes it)\n",
            r->instance->display, BL__RESOLUTION_FACTOR, bl__clock.resolution_ns, (unsigned long long)r->iterations,
            (double)BL__CALIBRATION_FLOOR_LIMIT, limit_s);
}

/* Returns 0 when out of memory. */
static int bl__sample_rounds(bl__rounds *g, const bl__options *o, uint64_t *rng) {
    size_t *order = BL__CAST(size_t *, malloc(g->count * sizeof(size_t))), i;
    double target = bl__sample_target_ns(o);
    int ok = order != NULL;
    BL__UNUSED uint64_t phase = 0;
    for (i = 0; ok && i < g->count; i++) {
        bl__result *r = g->series[i];
        BL__PHASE_MARK(phase);
        r->target_ns = target;
        /* B63's epochs find their own iterations, doubling (bl__epoch) */
        if (!o->epochs)
            r->iterations = bl__calibrate(bl__calibration_sample, r->body, r->arg, target, o->time_limit_s * 1e9, &r->spent_ns, &r->short_samples);
        if (r->instance) BL__PHASE_ADD(calibration, phase);
        else BL__PHASE_ADD(calibration_empty, phase);
        r->spent_ns = 0; /* the time limit counts samples; calibration is bounded by it above */
        r->next_check = BL__PRECISION_MIN_SAMPLES;
        if (r->support) r->stopped = "support";
    }
    BL__PHASE_MARK(phase);
    while (ok) {
        size_t active = 0;
        for (i = 0; i < g->count; i++)
            if (bl__wanted(g, i)) order[active++] = i;
        if (!active) break;
        bl__shuffle(order, active, rng);
        for (i = 0; ok && i < active; i++) {
            bl__result *r = g->series[order[i]];
            ok = bl__take_sample(r, bl__is_compared(g, r), o, rng);
        }
        for (i = 0; ok && i < active; i++) {
            bl__result *r = g->series[order[i]];
            const bl__result *empty = g->series[0];
            if (r->instance) {
                r->overhead_samples[r->count - 1] = empty->samples[empty->count - 1];
                r->sample_preempted[r->count - 1] |= empty->sample_preempted[empty->count - 1];
            }
            if (bl__is_compared(g, r)) {
                r->baseline_samples[r->count - 1] = g->baseline->samples[g->baseline->count - 1];
                r->sample_preempted[r->count - 1] |= g->baseline->sample_preempted[g->baseline->count - 1];
            }
            if (r->base) {
                r->base_samples[r->count - 1] = r->base->samples[r->base->count - 1];
                r->sample_preempted[r->count - 1] |= r->base->sample_preempted[r->base->count - 1];
            }
            bl__update_stop(g, r, o);
        }
    }
    BL__PHASE_ADD(rounds, phase);
    free(order);
    return ok;
}

/* The share of the empty loop's cost to take from a body whose median is raw_median when
   the empty loop's, in the same rounds, is loop_median (BL__LOOP_SHARE_FULL says why). */
static double bl__loop_share(double raw_median, double loop_median) {
    double times;
    if (!(loop_median > 0)) return 1; /* a timer too coarse to see the loop: nothing to weigh */
    times = raw_median / loop_median;
    if (times <= BL__LOOP_SHARE_FULL) return 1;
    if (times >= BL__LOOP_SHARE_NONE) return 0;
    return (BL__LOOP_SHARE_NONE - times) / (BL__LOOP_SHARE_NONE - BL__LOOP_SHARE_FULL);
}

/* What is left of each round's sample once `share` of the empty loop's sample of the same
   round is taken away (the sample itself with --no-subtract). Subtracting round by round,
   not one median from another, lets a slow phase of the machine cancel as it does in a
   ratio for a body that slows with the loop, and carries the empty loop's own noise into
   the interval. */
static void bl__net_samples(const bl__result *r, const double *samples, double share, double *out) {
    size_t i;
    for (i = 0; i < r->count; i++) out[i] = samples[i] - (r->subtracted ? share * r->overhead_samples[i] : 0);
}

/* How close a ratio to the baseline can be resolved, whatever the number of samples:
   half the width this adds to its interval. A sample's fixed costs (the two timer
   reads, the indirect call into the body, the loop's first and last branches) are
   spread over its n iterations. The empty loop's subtraction removes them only as far
   as they are the same for every body, and they are not: the branch predictors' state
   left by whichever body ran just before moves them by tens of ns. Measured with
   suites/calls at --samples=500 (16 us samples, n = 11000 calls of 1.2 ns): a body
   identical to the baseline, in another function or in the baseline's own, read
   1.0008 to 1.0013 in 25 to 30 of 30 runs, whichever of the two was the baseline,
   significant in 6 of 30 runs with the interval of the ratio alone; 1.0005 at n =
   31000 and 1.0000 at n = 107000: about 15 ns per sample, a fixed cost, not the code.
   One timer read's cost per sample (cost_ns, 24.5 ns there) over the fewer iterations,
   in units of the baseline's figure, covers it; it does not shrink with more samples,
   so the stop rule (bl__precise) leaves it out. */
static double bl__ratio_resolution(double cost_ns, uint64_t iterations, uint64_t baseline_iterations,
                                   double baseline_ns) {
    uint64_t n = iterations < baseline_iterations ? iterations : baseline_iterations;
    if (!(baseline_ns > 0) || n == 0) return 0;
    return cost_ns / ((double)n * baseline_ns);
}

/* BL_DIFFERENCE: the per-round differences between this benchmark and its base, each
   less its share of the same round's empty loop (the base's share from its own median, as
   the baseline's is in bl__time_figures), and their median with its 99% interval: paired,
   so a slow phase of the machine that slows both cancels, as it does in a ratio.
   `loop_median` is the empty loop's median over the same rounds. */
static void bl__difference_figures(bl__result *r, double loop_median) {
    double *d = BL__CAST(double *, malloc((r->count ? r->count : 1) * sizeof(double)));
    double base_share = 0;
    bl_stats base, diff;
    size_t i;
    r->difference = r->difference_low = r->difference_high = bl__nan();
    if (r->base) r->difference_to = r->base->instance->display;
    if (!d || !r->base_samples || !r->count) {
        free(d);
        return;
    }
    if (r->subtracted) {
        bl_compute_stats(r->base_samples, r->count, &base);
        base_share = bl__loop_share(base.median, loop_median);
    }
    for (i = 0; i < r->count; i++) {
        double loop = r->subtracted ? r->overhead_samples[i] : 0;
        d[i] = (r->samples[i] - r->loop_share * loop) - (r->base_samples[i] - base_share * loop);
    }
    bl_compute_stats(d, r->count, &diff);
    r->difference = diff.median;
    r->difference_low = diff.median_ci_low;
    r->difference_high = diff.median_ci_high;
    free(d);
}

/* Whether a series kept preempted rounds (most were, bl__leaves_out_preempted) because
   the machine was busy: then the kernel also switched it out involuntarily, at least once
   for every BL__BUSY_ROUNDS_PER_SWITCH preempted rounds. A body that wakes a partner (a
   pipe round trip) waits for a CPU after every wake-up, so its rounds read as preempted on
   a quiet machine too, but it is seldom switched out: those rounds are its figure. */
#define BL__BUSY_ROUNDS_PER_SWITCH 2
static int bl__busy_kept(const bl__result *r) {
    return r->preempted && !r->left_out && r->involuntary_switches * BL__BUSY_ROUNDS_PER_SWITCH >= r->preempted;
}

/* Preempted rounds kept on a busy machine (bl__busy_kept): the samples measured the
   busy machine, and their interval says only how busy it was. Widen it down to the median
   of the rounds that were not preempted, or with none to 0 (every sample, the lowest too,
   carries the load: seen 5.3x the quiet figure beside real-time wakers), so that it
   covers what the machine gave when nothing was taken away as well as under the load
   (issue 38: at load 15, 3.16us +-3.3% where the code costs 866 ns). `net` holds the
   samples less their share of the empty loop, one per round, as r->stats was made of. */
static void bl__widen_for_preempted(bl__result *r, const double *net) {
    double *clean = BL__CAST(double *, malloc((r->count ? r->count : 1) * sizeof(double)));
    double reach;
    size_t i, n = 0;
    bl_stats s;
    if (!clean) return;
    for (i = 0; i < r->count; i++)
        if (!r->sample_preempted[i]) clean[n++] = net[i];
    if (n) {
        bl_compute_stats(clean, n, &s);
        reach = s.median;
    } else {
        reach = 0; /* every round taken away: nothing says what the code costs alone */
    }
    free(clean);
    if (reach < r->stats.median_ci_low) r->stats.median_ci_low = reach;
    if (reach > r->stats.median_ci_high) r->stats.median_ci_high = reach;
    r->widened = 1;
    r->widened_to = reach; /* in the record (widened_to), so that Python widens its own figures alike */
}

/* The figures of a benchmark sampled in rounds: statistics as measured, the same after
   subtracting its share of the empty loop round by round, and the ratio to the baseline
   (less the baseline's own share), whose interval also allows for the comparison's
   per-sample resolution. */
static void bl__time_figures(bl__result *r, const bl__result *baseline, const bl__options *o) {
    double *net = BL__CAST(double *, malloc(2 * (r->count ? r->count : 1) * sizeof(double))), *base_net;
    bl_stats overhead, base;
    r->ratio = r->ratio_low = r->ratio_high = r->ratio_of_medians = bl__nan();
    if (!net) return;
    base_net = net + r->count;
    r->subtracted = o->subtract;
    bl_compute_stats(r->samples, r->count, &r->raw);
    bl_compute_stats(r->overhead_samples, r->count, &overhead);
    r->overhead_ns = o->subtract ? overhead.median : 0;
    r->loop_share = o->subtract ? bl__loop_share(r->raw.median, overhead.median) : 0;
    bl__net_samples(r, r->samples, r->loop_share, net);
    bl_compute_stats(net, r->count, &r->stats);
    r->zero = r->subtracted && bl__floor_at_zero(&r->stats);
    /* after `zero`: an interval widened to 0 says nothing is known, not that the cost is nil */
    if (bl__busy_kept(r)) bl__widen_for_preempted(r, net);
    if (r->baseline_samples) {
        r->compared_to = baseline->instance->bench->name;
        r->baseline_iterations = baseline->iterations;
        bl_compute_stats(r->baseline_samples, r->count, &base);
        bl__net_samples(r, r->baseline_samples, bl__loop_share(base.median, overhead.median), base_net);
        bl_compute_stats(base_net, r->count, &base);
        /* A baseline indistinguishable from zero (an empty body) has no meaningful ratio. */
        if (base.median_ci_low > 0) {
            double d = bl__ratio_resolution(bl__clock.cost_ns, r->iterations, baseline->iterations, base.median);
            bl_ratio_ci(net, base_net, r->count, &r->ratio, &r->ratio_low, &r->ratio_high);
            r->ratio_low = r->ratio_low > d ? r->ratio_low - d : 0;
            r->ratio_high += d;
            r->ratio_of_medians = r->stats.median / base.median;
        }
    }
    free(net);
    bl__difference_figures(r, overhead.median);
}

/* ---- I11. Context of the run ----------------------------------------------------------------- */

typedef struct bl__context {
    char date[32], host[128], cpu[160], os[128], kernel[128];
    const char *arch, *compiler_flags;
    char compiler[128];
    size_t stack_offset;      /* BL_STACK_OFFSET as applied */
    int start_cpu;            /* the CPU the run started on, -1 where unknown */
} bl__context;

BL__DEF size_t bl__stack_offset_used;
BL__DEF const char *bl__binary_flag; /* -b / --binary of the libloong dialect (bl_binary) */
BL__DEF int bl__start_cpu = -1;

BL__UNUSED static void bl__trim(char *s) {
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
}

static void bl__cpu_model(char *out, size_t size) {
    snprintf(out, size, "unknown");
#if !defined(__wasi__)
    {
        FILE *f = fopen("/proc/cpuinfo", "r");
        char line[512];
        if (f) {
            while (fgets(line, sizeof line, f)) {
                /* x86 says "model name", many ARM kernels "Model" or "Processor". */
                if (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5) ||
                    !strncmp(line, "Processor", 9) || !strncmp(line, "cpu model", 9)) {
                    char *colon = strchr(line, ':');
                    if (colon) {
                        colon++;
                        while (*colon == ' ' || *colon == '\t') colon++;
                        snprintf(out, size, "%s", colon);
                        bl__trim(out);
                        break;
                    }
                }
            }
            fclose(f);
        }
    }
#endif
    /* No model name from the kernel (some VMs, some ARM kernels): the CPU's own brand
       string where there is one. */
    if (strcmp(out, "unknown") == 0 && bl__cpuid_brand(out, size)) bl__trim(out);
}

static void bl__collect_context(bl__context *c) {
    time_t now = time(NULL);
    struct tm *utc = gmtime(&now);
    memset(c, 0, sizeof *c);
    if (utc) strftime(c->date, sizeof c->date, "%Y-%m-%dT%H:%M:%SZ", utc);
    snprintf(c->host, sizeof c->host, "unknown");
    snprintf(c->kernel, sizeof c->kernel, "unknown");
#if defined(__wasi__)
    snprintf(c->os, sizeof c->os, "wasi");
#else
    {
        struct utsname u;
        if (uname(&u) == 0) {
            snprintf(c->os, sizeof c->os, "%s", u.sysname);
            snprintf(c->kernel, sizeof c->kernel, "%s", u.release);
            snprintf(c->host, sizeof c->host, "%s", u.nodename);
        } else {
            snprintf(c->os, sizeof c->os, "unknown");
        }
    }
#endif
    bl__cpu_model(c->cpu, sizeof c->cpu);
#if defined(__x86_64__)
    c->arch = "x86_64";
#elif defined(__aarch64__)
    c->arch = "aarch64";
#elif defined(__wasm32__)
    c->arch = "wasm32";
#elif defined(__i386__)
    c->arch = "i386";
#elif defined(__arm__)
    c->arch = "arm";
#elif defined(__riscv) && __riscv_xlen == 64
    c->arch = "riscv64";
#elif defined(__powerpc64__)
    c->arch = "ppc64";
#else
    c->arch = "unknown";
#endif
#if defined(__clang__)
    snprintf(c->compiler, sizeof c->compiler, "clang %d.%d.%d", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
    snprintf(c->compiler, sizeof c->compiler, "gcc %d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#endif
    c->stack_offset = bl__stack_offset_used;
    c->start_cpu = bl__start_cpu;
#ifdef BL_CFLAGS
    c->compiler_flags = BL_CFLAGS;
#else
    c->compiler_flags = NULL;
#endif
}

#if !defined(__wasi__)
/* The number at the start of a sysfs file; -1 when it cannot be read (no such driver). */
static long bl__sysfs_number(const char *path) {
    long value = -1;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &value) != 1) value = -1;
        fclose(f);
    }
    return value;
}
#endif

/* Warn about what makes figures unreliable, and say how to fix it. */
static void bl__warn_machine(void) {
    const char *quiet = getenv("BL_NO_WARN");
    if (quiet && *quiet && strcmp(quiet, "0") != 0) return;
#if !defined(__OPTIMIZE__)
    fprintf(stderr, "benchlab: warning: built without optimization; figures will not match an -O2 build (fix: compile with -O2; silence: BL_NO_WARN=1)\n");
#endif
#if !defined(__wasi__)
    {
        FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "r");
        char governor[64] = "";
        if (f) {
            if (fgets(governor, sizeof governor, f)) bl__trim(governor);
            fclose(f);
            if (*governor && strcmp(governor, "performance") != 0)
                fprintf(stderr, "benchlab: warning: CPU frequency governor is \"%s\"; frequency changes add noise (fix: cpupower frequency-set --governor performance; silence: BL_NO_WARN=1)\n", governor);
        }
    }
    /* Turbo (intel_pstate) or boost (acpi-cpufreq, amd-pstate): the clock then follows the
       temperature and how many cores are busy, which a benchmark does not control. */
    if (bl__sysfs_number("/sys/devices/system/cpu/intel_pstate/no_turbo") == 0)
        fprintf(stderr, "benchlab: warning: CPU turbo is on; the clock follows temperature and load (fix: echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo; silence: BL_NO_WARN=1)\n");
    if (bl__sysfs_number("/sys/devices/system/cpu/cpufreq/boost") == 1)
        fprintf(stderr, "benchlab: warning: CPU boost is on; the clock follows temperature and load (fix: echo 0 > /sys/devices/system/cpu/cpufreq/boost; silence: BL_NO_WARN=1)\n");
#endif
}

/* ---- I12. Output: one writer per format ---------------------------------------------------------
   Each format is a row of bl__writers: what it prints before the results (context),
   for each result of a benchmark and counter, for a counter that could not count, and
   for a threaded target. A NULL entry means the format has no such thing (lind has no
   context; csb shows only threaded targets). Adding a format is its functions and a row.
   docs/formats.md describes every format; the threaded target's writers are with the
   threaded mode (section I17), the statistics they print being its own.

   Each record is flushed as soon as it is written, so a run that stops part way (a body
   that crashes in a counter pass, `benchlab run`'s timeout) keeps the records before. */

/* A JSON string. Only the quote, the backslash and control characters need escaping;
   every other byte goes through as it is, so names in UTF-8 stay readable. */
static void bl__json_string(FILE *f, const char *s) {
    fputc('"', f);
    if (s) {
        for (; *s; s++) {
            unsigned char ch = (unsigned char)*s;
            if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
            else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
            else fputc(ch, f);
        }
    }
    fputc('"', f);
}

/* JSON has no NaN or infinity: write null. %.9g keeps every digit a measurement has. */
static void bl__json_number(FILE *f, double v) {
    if (v != v || v > 1.7e308 || v < -1.7e308) fputs("null", f);
    else fprintf(f, "%.9g", v);
}

/* Every field after a record's first is written with its leading comma, so a record is
   its head (bl__json_result_head) and then any fields in any order, with no state to
   carry between the calls. */
static void bl__json_field(FILE *f, const char *name, double v) {
    fprintf(f, ",\"%s\":", name);
    bl__json_number(f, v);
}

static void bl__json_pair(FILE *f, const char *name, double a, double b) {
    fprintf(f, ",\"%s\":[", name);
    bl__json_number(f, a);
    fputc(',', f);
    bl__json_number(f, b);
    fputc(']', f);
}

static void bl__json_array(FILE *f, const char *name, const double *v, size_t n) {
    size_t i;
    fprintf(f, ",\"%s\":[", name);
    for (i = 0; i < n; i++) {
        if (i) fputc(',', f);
        bl__json_number(f, v[i]);
    }
    fputc(']', f);
}

/* Scale to ns, us, ms or s so the figure has 3 to 4 significant digits: the table is read
   by people comparing rows, and a column of 9-digit ns figures hides which is larger. */
static const char *bl__human_time(char *out, size_t size, double ns) {
    double a = ns < 0 ? -ns : ns;
    if (a < 1e3) snprintf(out, size, "%.2fns", ns);
    else if (a < 1e6) snprintf(out, size, "%.2fus", ns / 1e3);
    else if (a < 1e9) snprintf(out, size, "%.2fms", ns / 1e6);
    else snprintf(out, size, "%.2fs", ns / 1e9);
    return out;
}

/* A ratio is significant when its interval leaves out 1: the benchmark and the baseline
   differ by more than this run's noise explains. Both the table's '*' and jsonl's
   "significant" say so, from this one rule. */
static int bl__significant(const bl__result *r) {
    return r->ratio_low > 1 || r->ratio_high < 1;
}

/* -- jsonl: the canonical format, every sample and every figure ------------------------------ */

/* The first line of a run: what a reader needs to judge the figures or repeat the run
   (machine, compiler, timer, seed, and the settings that shape the figures). The
   Python side stores it with the run, and compares machines by it. */
static void bl__jsonl_context(FILE *f, const bl__options *o, const bl__context *c) {
    fprintf(f, "{\"type\":\"context\",\"schema\":%d,\"benchlab\":", BENCHLAB_SCHEMA);
    bl__json_string(f, BENCHLAB_VERSION);
    fputs(",\"date\":", f); bl__json_string(f, c->date);
    fputs(",\"host\":", f); bl__json_string(f, c->host);
    fputs(",\"cpu\":", f); bl__json_string(f, c->cpu);
    fputs(",\"os\":", f); bl__json_string(f, c->os);
    fputs(",\"kernel\":", f); bl__json_string(f, c->kernel);
    fputs(",\"arch\":", f); bl__json_string(f, c->arch);
    fputs(",\"compiler\":", f); bl__json_string(f, c->compiler);
    fputs(",\"compiler_flags\":", f);
    if (c->compiler_flags) bl__json_string(f, c->compiler_flags);
    else fputs("null", f);
    fputs(",\"timer\":", f); bl__json_string(f, bl__clock.name);
    bl__json_field(f, "timer_resolution_ns", bl__clock.resolution_ns);
    bl__json_field(f, "timer_cost_ns", bl__clock.cost_ns);
    fprintf(f, ",\"seed\":%llu,\"schedule\":\"%s\",\"samples\":", (unsigned long long)bl__run_seed,
            bl__schedule_names[o->schedule]);
    if (o->samples_given) fprintf(f, "%lu", (unsigned long)o->samples);
    else fputs("null", f);
    fprintf(f, ",\"max_samples\":%lu", (unsigned long)o->samples);
    bl__json_field(f, "time_limit_s", o->time_limit_s);
    bl__json_field(f, "precision_pct", o->precision_pct);
    fprintf(f, ",\"subtract\":%s,\"stack_offset\":%lu,\"start_cpu\":%d}\n", o->subtract ? "true" : "false",
            (unsigned long)c->stack_offset, c->start_cpu);
}

/* What a time record's samples lost to other tasks (section I19), and whether calibration
   could make them long against the timer (section I9). Null where the platform cannot
   tell; sampled_ns is the wall time of all its samples, left out ones included, the
   share that run_delay_ns is of. */
static void bl__json_contention(FILE *f, const bl__result *r) {
    fprintf(f, ",\"short_samples\":%s", r->short_samples ? "true" : "false");
    bl__json_field(f, "sampled_ns", r->spent_ns);
    if (!r->contention_known) {
        fputs(",\"preempted\":null,\"left_out\":null,\"involuntary_switches\":null,\"run_delay_ns\":null", f);
        return;
    }
    fprintf(f, ",\"preempted\":%lu,\"left_out\":%lu,\"involuntary_switches\":%llu", (unsigned long)r->preempted,
            (unsigned long)r->left_out, (unsigned long long)r->involuntary_switches);
    bl__json_field(f, "run_delay_ns", r->run_delay_ns < 0 ? bl__nan() : r->run_delay_ns);
    if (r->widened) bl__json_field(f, "widened_to", r->widened_to);
}

/* The fields that open every result record: which benchmark, param and counter. */
static void bl__json_result_head(FILE *f, const bl__instance *in, const char *counter, const char *unit) {
    const bl__bench *b = in->bench;
    fputs("{\"type\":\"result\",\"bench\":", f);
    bl__json_string(f, b->name);
    if (b->params) {
        fprintf(f, ",\"param\":%lld,\"param_name\":", (long long)bl__param(in));
        bl__json_string(f, b->param_name);
    } else {
        fputs(",\"param\":null,\"param_name\":null", f);
    }
    fputs(",\"counter\":", f); bl__json_string(f, counter);
    fputs(",\"unit\":", f); bl__json_string(f, unit);
}

/* Every sample is written, in the order taken, with its own iteration count, and so are
   the empty loop's and the baseline's samples of the same rounds: the Python side
   recomputes every statistic from them (and combines processes), so the figures here
   are for readers without it and for checking the two implementations agree. A counter
   record adds where its figure came from and, for perf events, the share of the time
   the PMU counted it (below 1: scaled, as perf stat scales). */
#define BL__JSON_STATISTIC(name) bl__json_field(f, #name, s->name);
static void bl__jsonl_result(FILE *f, const bl__options *o, const bl__result *r) {
    const bl_stats *s = &r->stats;
    const bl__counter *c = r->counter;
    size_t i;
    (void)o;
    bl__json_result_head(f, r->instance, c ? c->name : "time", c ? c->unit : "ns");
    fprintf(f, ",\"iterations\":%llu,\"sample_iterations\":[", (unsigned long long)r->iterations);
    for (i = 0; i < r->count; i++) fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)r->sample_iterations[i]);
    fputc(']', f);
    bl__json_array(f, "samples", r->samples, r->count);
    if (r->baseline_samples) bl__json_array(f, "baseline_samples", r->baseline_samples, r->count);
    if (r->base_samples) bl__json_array(f, "base_samples", r->base_samples, r->count);
    BL__STATISTICS(BL__JSON_STATISTIC)
    bl__json_pair(f, "median_ci", s->median_ci_low, s->median_ci_high);
    bl__json_field(f, "ci_level", BL__CI_LEVEL);
    fputs(",\"ci_scope\":\"within this run\"", f);
    fprintf(f, ",\"zero\":%s", r->zero ? "true" : "false");
    bl__json_field(f, "raw_median", r->raw.median);
    bl__json_pair(f, "raw_median_ci", r->raw.median_ci_low, r->raw.median_ci_high);
    fprintf(f, ",\"outliers_low\":%lu,\"outliers_high\":%lu", (unsigned long)s->outliers_low,
            (unsigned long)s->outliers_high);
    bl__json_field(f, "overhead", r->overhead_ns);
    bl__json_field(f, "loop_share", r->loop_share);
    if (r->overhead_samples) bl__json_array(f, "overhead_samples", r->overhead_samples, r->count);
    fprintf(f, ",\"subtracted\":%s", r->subtracted ? "true" : "false");
    fputs(",\"stopped\":", f);
    if (r->stopped) bl__json_string(f, r->stopped);
    else fputs("null", f);
    if (!c) bl__json_contention(f, r);
    fprintf(f, ",\"baseline\":%s,\"compared_to\":", r->instance->bench->is_baseline ? "true" : "false");
    if (r->compared_to) bl__json_string(f, r->compared_to);
    else fputs("null", f);
    if (r->compared_to && r->ratio == r->ratio) {
        bl__json_field(f, "ratio", r->ratio);
        bl__json_pair(f, "ratio_ci", r->ratio_low, r->ratio_high);
        bl__json_field(f, "ratio_of_medians", r->ratio_of_medians);
        fprintf(f, ",\"significant\":%s", bl__significant(r) ? "true" : "false");
    } else {
        fputs(",\"ratio\":null,\"ratio_ci\":null,\"ratio_of_medians\":null,\"significant\":null", f);
    }
    if (r->difference_to && !c) {
        fputs(",\"difference_to\":", f);
        bl__json_string(f, r->difference_to);
        bl__json_field(f, "difference", r->difference);
        bl__json_pair(f, "difference_ci", r->difference_low, r->difference_high);
    }
    if (c) {
        /* Fields of counter records only. */
        fputs(",\"supported\":true,\"source\":", f); bl__json_string(f, c->source);
        fputs(",\"pass\":", f); bl__json_string(f, bl__pass_names[c->kind]);
        fprintf(f, ",\"per_iteration\":%s", c->level ? "false" : "true");
        if (c->kind == BL__C_PERF_HW || c->kind == BL__C_PERF_SW) {
            fprintf(f, ",\"kernel\":%s,\"user\":%s", c->exclude_kernel ? "false" : "true", c->exclude_user ? "false" : "true");
            bl__json_field(f, "running_fraction", r->running_fraction);
            fprintf(f, ",\"scaled\":%s", r->running_fraction < 1 ? "true" : "false");
        }
    }
    fputs("}\n", f);
}

/* A counter that could not count still gets its record, with the reason, so that the
   table shows the row as "not supported: ..." instead of losing it. */
static void bl__jsonl_unsupported(FILE *f, const bl__instance *in, const bl__counter *c, const char *reason) {
    bl__json_result_head(f, in, c->name, c->unit);
    fputs(",\"supported\":false,\"reason\":", f); bl__json_string(f, reason);
    fputs(",\"pass\":", f); bl__json_string(f, bl__pass_names[c->kind]);
    fputs(",\"samples\":[],\"sample_iterations\":[]}\n", f);
}

/* -- table: for people ----------------------------------------------------------------------- */

/* Two lines before the rows: what ran where (timer and seed included, to repeat it), and
   how to read the figures, whose meaning depends on --no-subtract. */
static void bl__table_context(FILE *f, const bl__options *o, const bl__context *c) {
    char res[32];
    fprintf(f, "benchlab %s | %s | %s %s | timer %s (resolution %s) | %s, seed %llu\n", BENCHLAB_VERSION, c->cpu,
            c->os, c->arch, bl__clock.name, bl__human_time(res, sizeof res, bl__clock.resolution_ns),
            bl__schedule_names[o->schedule], (unsigned long long)bl__run_seed);
    fprintf(f, "%s; +-%% is the half-width of the median's 99%% interval within this run (another run may differ "
               "more: benchlab run --processes)\n",
            o->subtract ? "empty loop's cost subtracted (--no-subtract shows raw figures); lowest: the lowest raw "
                          "sample less the empty loop's median, in the share taken from the body"
                        : "raw figures (--no-subtract)");
}

/* The comparison column: the ratio to the baseline with its interval, '*' when
   significant; a baseline indistinguishable from zero has no ratio (bl__time_figures). */
static void bl__table_ratio(char *out, size_t size, const bl__result *r) {
    if (!r->compared_to) out[0] = 0;
    else if (r->ratio != r->ratio) snprintf(out, size, "no ratio: baseline is ~0");
    else snprintf(out, size, "%.3fx [%.3f, %.3f]%s", r->ratio, r->ratio_low, r->ratio_high, bl__significant(r) ? " *" : "");
}

/* BL_DIFFERENCE's column: "-base: 12.30ns [11.90ns, 12.80ns]", the median per-round
   difference and its 99% interval; empty without a base. */
static void bl__table_difference(char *out, size_t size, const bl__result *r) {
    char d[32], lo[32], hi[32];
    out[0] = 0;
    if (!r->difference_to || r->counter) return;
    if (r->difference != r->difference) {
        snprintf(out, size, "  -%s: no samples", r->difference_to);
        return;
    }
    snprintf(out, size, "  -%s: %s [%s, %s]", r->difference_to, bl__human_time(d, sizeof d, r->difference),
             bl__human_time(lo, sizeof lo, r->difference_low), bl__human_time(hi, sizeof hi, r->difference_high));
}

/* The "lowest" column: the lowest raw sample less the body's share of the empty loop's
   median, not the lowest of the round-by-round differences, which is a round whose empty
   loop ran slow (see bl__table_result). */
static double bl__lowest_less_loop(const bl__result *r) {
    double low = r->raw.min - r->loop_share * r->overhead_ns;
    return low > 0 ? low : 0;
}

/* After a time row, only where it matters: rounds the kernel preempted (and whether they
   were left out), the share of the sampling time spent waiting for a CPU, and samples
   calibration could not make long against the timer. Empty on a quiet machine. */
static const char *bl__table_contention(char *out, size_t size, const bl__result *r) {
    size_t used = 0;
    out[0] = 0;
    if (r->preempted) {
        used += (size_t)snprintf(out, size, "  preempted %lu of %lu rounds (%s)", (unsigned long)r->preempted,
                                 (unsigned long)(r->count + r->left_out),
                                 r->left_out ? "left out"
                                 : r->widened ? "kept: most were; the interval reaches the unpreempted rounds' figure"
                                              : "kept: most were");
        if (r->run_delay_ns > 0 && r->spent_ns > 0 && used < size)
            used += (size_t)snprintf(out + used, size - used, ", waited for a CPU %.0f%% of its time",
                                     100 * r->run_delay_ns / r->spent_ns);
    }
    if (r->short_samples && used < size) snprintf(out + used, size - used, "  short samples: %llu iterations",
                                                  (unsigned long long)r->iterations);
    return out;
}

/* One row per benchmark and counter. Time rows scale to ns/us/ms/s and give the
   interval as +-% of the median, the figure a reader compares; counter rows print the
   counter's own unit with 4 significant digits, as a count has no natural scale. */
static void bl__table_result(FILE *f, const bl__options *o, const bl__result *r) {
    const bl__instance *in = r->instance;
    const bl_stats *s = &r->stats;
    char name[400], cmp[96], med[48], low[32], p75[32], p90[32], p99[32], lost[160], diff[400];
    double hw = s->median_ci_high - s->median > s->median - s->median_ci_low ? s->median_ci_high - s->median
                                                                                : s->median - s->median_ci_low;
    (void)o;
    bl__table_ratio(cmp, sizeof cmp, r);
    bl__table_difference(diff, sizeof diff, r);
    if (r->counter) {
        const char *u = r->counter->unit;
        char scaled[64] = "";
        snprintf(name, sizeof name, "%s%s [%s]", in->display, in->bench->is_baseline ? " (baseline)" : "", r->counter->name);
        if (r->running_fraction > 0 && r->running_fraction < 1)
            snprintf(scaled, sizeof scaled, " (scaled: counted %.0f%% of the time)", 100 * r->running_fraction);
        fprintf(f, "%-32s median: %.4g %s%s lowest: %.4g [p75: %.4g p90: %.4g p99: %.4g]%s  %s\n", name, s->median, u,
                r->counter->level ? "" : "/iter", s->min, s->p75, s->p90, s->p99, scaled, cmp);
        return;
    }
    snprintf(name, sizeof name, "%s%s", in->display, in->bench->is_baseline ? " (baseline)" : "");
    if (r->zero) {
        /* Not distinguishable from the empty loop: no digits to read as a cost. */
        char high[32];
        snprintf(med, sizeof med, "~0 (<%s)", bl__human_time(high, sizeof high, s->median_ci_high));
    } else {
        char m[32];
        double pct = 100 * hw / s->median;
        /* whole percents from 100 up, as the Python table prints them: not "+-9.5e+03%" */
        snprintf(med, sizeof med, pct >= 99.5 ? "%s +-%.0f%%" : "%s +-%.2g%%", bl__human_time(m, sizeof m, s->median), pct);
    }
    /* The lowest raw sample less the body's share of the empty loop's median (the context
       line says so): the lowest after round-by-round subtraction is the sample whose
       round's empty loop happened to run slowest, and read 0.00ns on every row of
       suites/calls. */
    fprintf(f, "%-32s median: %-17s lowest: %-9s [p75: %-9s p90: %-9s p99: %-9s]  %s%s%s\n", name, med,
            bl__human_time(low, sizeof low, bl__lowest_less_loop(r)), bl__human_time(p75, sizeof p75, s->p75),
            bl__human_time(p90, sizeof p90, s->p90), bl__human_time(p99, sizeof p99, s->p99), cmp, diff,
            bl__table_contention(lost, sizeof lost, r));
}

/* As the jsonl record: the counter's row stays, with the reason it has no figure. */
static void bl__table_unsupported(FILE *f, const bl__instance *in, const bl__counter *c, const char *reason) {
    char name[400];
    snprintf(name, sizeof name, "%s%s [%s]", in->display, in->bench->is_baseline ? " (baseline)" : "", c->name);
    fprintf(f, "%-32s not supported: %s\n", name, reason);
}

/* -- csv: one line per sample, as B63's plaintext mode (the raw count over the sample) --------
   The value is what the sample counted in all (its per-iteration figure times its
   iterations, before any subtraction), so B63's readers, which divide by the iterations
   themselves, read it unchanged. A level (max RSS) is not per iteration: written as is. */

static void bl__csv_context(FILE *f, const bl__options *o, const bl__context *c) {
    (void)o;
    (void)c;
    fputs("name,param,counter,iterations,value\n", f);
}

static void bl__csv_result(FILE *f, const bl__options *o, const bl__result *r) {
    const bl__bench *b = r->instance->bench;
    size_t i;
    (void)o;
    for (i = 0; i < r->count; i++) {
        fprintf(f, "%s,", b->name);
        if (b->params) fprintf(f, "%lld", (long long)bl__param(r->instance));
        fprintf(f, ",%s,%llu,%.1f\n", r->counter ? r->counter->name : "time", (unsigned long long)r->sample_iterations[i],
                r->samples[i] * (r->counter && r->counter->level ? 1.0 : (double)r->sample_iterations[i]));
    }
}

/* -- lind: the cross-platform runner's `test<TAB>param<TAB>loops<TAB>avg_ns` ---------------------
   Lind's runner reads whole nanoseconds and one figure per test: the median, rounded. Its
   loops are the iterations behind its figure (an average over all of them), so ours are
   every sample's iterations, added: what the median was chosen from. */

static void bl__lind_result(FILE *f, const bl__options *o, const bl__result *r) {
    double m = r->stats.median;
    unsigned long long loops = 0;
    size_t i;
    (void)o;
    if (r->counter) return; /* lind has one figure per test: the time */
    for (i = 0; i < r->count; i++) loops += (unsigned long long)r->sample_iterations[i];
    fprintf(f, "%s\t", r->instance->bench->name);
    if (r->instance->bench->params) fprintf(f, "%lld", (long long)bl__param(r->instance));
    else fputc('-', f); /* as Lind's tests print a test without a parameter */
    fprintf(f, "\t%llu\t%lld\n", loops, (long long)(m + 0.5)); /* m >= 0: never printed below zero */
}

/* -- b63: B63's plain lines, name,counter,iterations,events,per-iteration ---------------------
   One line per sample, as B63 prints one per epoch: the events the sample counted in all
   (whole ns for time, as measured: B63 subtracts nothing) over its iterations, and their
   quotient with B63's %lf. -d DELIM (B63's dialect) changes the delimiter. A level (max
   RSS) is not a count over iterations, which is all a B63 line can say: it is left out,
   and said so on stderr. */

static void bl__b63_result(FILE *f, const bl__options *o, const bl__result *r) {
    const char *counter = r->counter ? r->counter->name : "time";
    char d = o->delimiter ? o->delimiter : ',';
    size_t i;
    if (r->counter && r->counter->level) {
        fprintf(stderr, "benchlab: %s [%s]: a level, which B63's lines (a count over iterations) cannot hold: left "
                        "out (--format=jsonl keeps it)\n", r->instance->display, counter);
        return;
    }
    for (i = 0; i < r->count; i++) {
        long long events = (long long)(r->samples[i] * (double)r->sample_iterations[i] + 0.5);
        long long iterations = (long long)r->sample_iterations[i];
        fprintf(f, "%s%c%s%c%lld%c%lld%c%lf\n", r->instance->display, d, counter, d, iterations, d, events, d,
                (double)events / (double)iterations);
    }
}

/* -- b63-interactive: B63's -i lines, NAME COUNTER: VALUE [(+PCT% *)] ---------------------------
   One line per benchmark and counter: the figure per iteration (our median, where B63
   prints the mean of its epochs), and beside a benchmark compared with the baseline the
   difference in percent, '*' when its interval excludes 0, as B63 marks it. Colours only
   on a terminal. */

static void bl__b63_interactive_result(FILE *f, const bl__options *o, const bl__result *r) {
    const char *counter = r->counter ? r->counter->name : "time";
    int colour = f == stdout && isatty(STDOUT_FILENO) && r->compared_to && r->ratio == r->ratio && bl__significant(r);
    (void)o;
    fprintf(f, "%-30s%-20s: ", r->instance->display, counter);
    if (!r->compared_to || r->ratio != r->ratio) {
        fprintf(f, "%6.3lf\n", r->stats.median);
        return;
    }
    fprintf(f, "%s%6.3lf (%+6.3lf%% %c)%s\n", colour ? (r->ratio > 1 ? "\033[0;31m" : "\033[0;32m") : "",
            r->stats.median, 100 * (r->ratio - 1), bl__significant(r) ? '*' : ' ', colour ? "\033[0m" : "");
}

/* The threaded mode's writers (section I17). */
static void bl__table_throughput(FILE *f, const bl__options *o, const bl__tp_result *r);
static void bl__jsonl_throughput(FILE *f, const bl__options *o, const bl__tp_result *r);
static void bl__csb_throughput(FILE *f, const bl__options *o, const bl__tp_result *r);

/* -- The table of formats -------------------------------------------------------------------
   One row per format: its name, what --help says of it, and its writers. A NULL writer
   means the format has no such thing, which the steps of section I14 check: no context
   line (lind's and csb's readers take only their own lines), no result (csb: the
   benchmarks are skipped, and said so), no unsupported record (csv and lind: the
   counter's row is left out), no throughput (csv and lind: the threaded targets are
   skipped, and said so). The writers also say what a format needs: one without `result`
   is for threaded targets only. Everything that names formats is made from this table
   (--format's check and message, the help, the messages that suggest another format),
   so adding a format is its functions and a row. */
typedef struct bl__writer {
    const char *name;
    const char *help; /* after the name in --help; a '\n' continues on the next line */
    void (*context)(FILE *f, const bl__options *o, const bl__context *c);
    void (*result)(FILE *f, const bl__options *o, const bl__result *r);
    void (*unsupported)(FILE *f, const bl__instance *in, const bl__counter *c, const char *reason);
    void (*throughput)(FILE *f, const bl__options *o, const bl__tp_result *r);
} bl__writer;

static const bl__writer bl__writers[] = {
    {"table", " (default on a terminal)", bl__table_context, bl__table_result, bl__table_unsupported,
     bl__table_throughput},
    {"csv", "", bl__csv_context, bl__csv_result, NULL, NULL},
    {"jsonl", " (default otherwise)", bl__jsonl_context, bl__jsonl_result, bl__jsonl_unsupported, bl__jsonl_throughput},
    {"lind", "", NULL, bl__lind_result, NULL, NULL},
    {"b63", "", NULL, bl__b63_result, NULL, NULL},
    {"b63-interactive", "", NULL, bl__b63_interactive_result, NULL, NULL},
    {"csb", " for threaded targets (the default when a CSB flag -t= -n= -d=\n-s= -opK= is given, as CSB's runner reads it)",
     NULL, NULL, NULL, bl__csb_throughput},
};
#define BL__FORMATS (sizeof bl__writers / sizeof bl__writers[0])

/* The formats a message lists: all, those that print benchmarks, those that print threaded
   targets. */
enum bl__formats_of { BL__ALL_FORMATS, BL__BENCHMARK_FORMATS, BL__TARGET_FORMATS };

static int bl__format_is(const bl__writer *w, enum bl__formats_of which) {
    return which == BL__ALL_FORMATS || (which == BL__BENCHMARK_FORMATS ? w->result != NULL : w->throughput != NULL);
}

/* The names of `which` formats in the table's order, "a, b, c" with `last` before the
   last name (", " or " or "), into out. */
static const char *bl__format_list(char *out, size_t size, enum bl__formats_of which, const char *last) {
    size_t i, n = 0, at = 0, count = 0;
    for (i = 0; i < BL__FORMATS; i++) count += (size_t)bl__format_is(&bl__writers[i], which);
    out[0] = 0;
    for (i = 0; i < BL__FORMATS && at < size; i++) {
        if (!bl__format_is(&bl__writers[i], which)) continue;
        at += (size_t)snprintf(out + at, size - at, "%s%s", n == 0 ? "" : n + 1 == count ? last : ", ",
                               bl__writers[i].name);
        n++;
    }
    return out;
}

/* The index of the format called `name`, or BL__FORMATS when there is none. */
static size_t bl__format_named(const char *name) {
    size_t i;
    for (i = 0; i < BL__FORMATS; i++)
        if (strcmp(name, bl__writers[i].name) == 0) break;
    return i;
}

/* ---- I13. Command line --------------------------------------------------------------------------
   Every flag is a row of bl__flags: its name, whether it takes a value, and the function
   that checks and stores the value. Messages name the flag, the rule and the value; the
   rule's numbers are the limits of section I2, so the check and its message agree. */

#define BL__STR2(x) #x
#define BL__STR(x) BL__STR2(x)

/* The help, around its --format lines, which bl__print_help makes from the table of formats. */
static const char *const bl__usage =
    "usage: %s [flags]\n"
    "  --list                 list the benchmarks and exit\n"
    "  --filter=SUBSTRING     run benchmarks whose name contains SUBSTRING (repeatable: any matches);\n"
    "                         the baseline always runs, as the reference of the others\n"
    "  --precision=PCT        stop a benchmark once its median's 99%% interval is within +-PCT%% of it\n"
    "                         (default " BL__STR(BL__DEFAULT_PRECISION_PCT) "; 0: off, sample to --samples or --time-limit)\n"
    "  --samples=N            take N samples per benchmark, N from " BL__STR(BL__MIN_SAMPLES) " to " BL__STR(BL__MAX_SAMPLES) "\n"
    "                         (default: as many as --precision needs, at most " BL__STR(BL__DEFAULT_MAX_SAMPLES) ")\n"
    "  --time-limit=SECONDS   sampling time per benchmark (default " BL__STR(BL__DEFAULT_TIME_LIMIT_S) "), once it has " BL__STR(BL__MIN_SAMPLES_AT_LIMIT) " samples;\n"
    "                         one sample may go past it\n"
    "  --schedule=SCHEDULE    rounds (default: one sample of every benchmark per round, shuffled) or\n"
    "                         sequential (one benchmark after another)\n"
    "  --no-subtract          report figures as measured, without subtracting the empty loop's cost\n"
    "  --seed=N               seed of bl_seed(), of the round order and of the iteration jitter\n";
static const char *const bl__usage_after_formats =
    "  --out=FILE             write the results to FILE instead of standard output\n"
    "  --counters=LIST        counters besides time, e.g. time,instructions,allocs (docs/counters.md)\n"
    "threaded targets (docs/threads.md):\n"
    "  --threads=T            threads (default 1)\n"
    "  --nops=N               N nops between operations, as CSB (default 0)\n"
    "  --random-nops          0..N nops at random instead, a different number each time\n"
    "  --duration=D           seconds to run (default: --time-limit)\n"
    "  --size=S               initial size passed to the target's init (default 0)\n"
    "  --opK=F                operation K runs F times in " BL__STR(BL__OP_SLOTS) " (all given must sum to " BL__STR(BL__OP_SLOTS) ";\n"
    "                         default: an equal share each)\n"
    "  --latency-every=K      time one operation in K (1: all; 0: none; batch: the first of each\n"
    "                         batch of about " BL__STR(BL__OP_BATCH_NS) " ns, cheap for cheap operations); default 1 for\n"
    "                         --format=csb (CSB's exact histogram), batch otherwise\n"
    "  --csb-unit=UNIT        the csb line's latencies: ticks (default, CSB's: ticks_to_ms per ms) or ns\n"
    "  -h, --help             show this help\n"
    "formats: docs/formats.md; environment: BL_FORMAT=NAME, BL_TIMER=clock|tsc, BL_NO_WARN=1, BL_STACK_OFFSET=BYTES\n";

#define BL__HELP_INDENT "                         " /* the column where a flag's text starts */

/* --help: the benchmark formats on --format's line, then each format for threaded targets
   only on lines of its own. */
/* --help's last lines: the short flags of the program's dialect (after bl__flags). */
static void bl__print_dialect(int dialect);

static void bl__print_help(const char *program, int dialect) {
    size_t i;
    const char *sep = "", *c;
    printf(bl__usage, program);
    fputs("  --format=FORMAT        ", stdout);
    for (i = 0; i < BL__FORMATS; i++)
        if (bl__writers[i].result) {
            printf("%s%s%s", sep, bl__writers[i].name, bl__writers[i].help);
            sep = ", ";
        }
    fputs(";\n", stdout);
    for (i = 0; i < BL__FORMATS; i++) {
        if (bl__writers[i].result) continue;
        printf(BL__HELP_INDENT "%s", bl__writers[i].name);
        for (c = bl__writers[i].help; *c; c++)
            if (*c == '\n') fputs("\n" BL__HELP_INDENT, stdout);
            else putchar(*c);
        putchar('\n');
    }
    fputs(bl__usage_after_formats, stdout);
    bl__print_dialect(dialect);
}

static int bl__flag_error(const char *flag, const char *rule, const char *value) {
    if (value) fprintf(stderr, "benchlab: %s %s (got \"%s\")\n", flag, rule, value);
    else fprintf(stderr, "benchlab: %s %s\n", flag, rule);
    return 2;
}

/* Whole numbers only: strtoull alone accepts "-1", " 7" and "7x". */
static int bl__parse_u64(const char *text, uint64_t *out) {
    char *end;
    unsigned long long v;
    if (!text || *text < '0' || *text > '9') return 0;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno || *end) return 0;
    *out = (uint64_t)v;
    return 1;
}

/* A finite number in [low, high], written as a number and nothing else. */
static int bl__parse_number(const char *text, double low, double high, double *out) {
    char *end;
    double v;
    if (!text || !*text || *text == ' ') return 0;
    errno = 0;
    v = strtod(text, &end);
    if (errno || *end || !(v >= low) || !(v <= high)) return 0;
    *out = v;
    return 1;
}

static int bl__parse_seconds(const char *text, double *out) {
    return bl__parse_number(text, 0, BL__MAX_TIME_LIMIT_S, out) && *out > 0;
}

static int bl__set_list(bl__options *o, const char *flag, const char *value) {
    (void)flag;
    (void)value;
    o->list = 1;
    return 0;
}

static int bl__set_no_subtract(bl__options *o, const char *flag, const char *value) {
    (void)flag;
    (void)value;
    o->subtract = 0;
    return 0;
}

static int bl__set_filter(bl__options *o, const char *flag, const char *value) {
    if (!*value) return bl__flag_error(flag, "needs a non-empty substring", value);
    o->filters[o->filter_count++] = value;
    return 0;
}

static int bl__set_samples(bl__options *o, const char *flag, const char *value) {
    uint64_t v;
    if (!bl__parse_u64(value, &v) || v < BL__MIN_SAMPLES || v > BL__MAX_SAMPLES)
        return bl__flag_error(flag, "must be a whole number from " BL__STR(BL__MIN_SAMPLES) " to " BL__STR(BL__MAX_SAMPLES), value);
    o->samples = (size_t)v;
    o->samples_given = 1;
    return 0;
}

static int bl__set_time_limit(bl__options *o, const char *flag, const char *value) {
    if (!bl__parse_seconds(value, &o->time_limit_s))
        return bl__flag_error(flag, "must be a number of seconds > 0 and <= " BL__STR(BL__MAX_TIME_LIMIT_S), value);
    o->time_limit_given = 1;
    return 0;
}

static int bl__set_precision(bl__options *o, const char *flag, const char *value) {
    if (!bl__parse_number(value, 0, BL__MAX_PRECISION_PCT, &o->precision_pct))
        return bl__flag_error(flag, "must be a percentage from 0 (off) to " BL__STR(BL__MAX_PRECISION_PCT), value);
    return 0;
}

static int bl__set_schedule(bl__options *o, const char *flag, const char *value) {
    if (strcmp(value, "rounds") == 0) o->schedule = BL__ROUNDS;
    else if (strcmp(value, "sequential") == 0) o->schedule = BL__SEQUENTIAL;
    else return bl__flag_error(flag, "must be rounds or sequential", value);
    return 0;
}

static int bl__set_seed(bl__options *o, const char *flag, const char *value) {
    if (!bl__parse_u64(value, &o->seed)) return bl__flag_error(flag, "must be a whole number from 0 to 18446744073709551615", value);
    o->seed_given = 1;
    return 0;
}

static int bl__set_format(bl__options *o, const char *flag, const char *value) {
    char rule[256] = "must be one of ";
    size_t format = bl__format_named(value);
    if (format < BL__FORMATS) {
        o->format = format;
        o->format_given = 1;
        return 0;
    }
    bl__format_list(rule + strlen(rule), sizeof rule - strlen(rule), BL__ALL_FORMATS, ", ");
    return bl__flag_error(flag, rule, value);
}

/* The format when --format is not given: $BL_FORMAT, else, with no terminal, the program's
   BL_DEFAULT_FORMAT (a string literal defined before the include), else B63's plain lines
   in B63's dialect (as B63 prints them, terminal or not), else table on a terminal and
   jsonl otherwise. For runners that start a program with no arguments and read its stdout
   through a pipe: the Lind runner reads test<TAB>param<TAB>loops<TAB>avg_ns, so
   `#define BL_DEFAULT_FORMAT "lind"` (or BL_FORMAT=lind) makes a benchlab program one of
   its tests. A name that is not a format is an error naming where it came from. */
static int bl__default_format(bl__options *o) {
    const char *name = getenv("BL_FORMAT"), *from = "BL_FORMAT";
    int status;
    if (!name || !*name) {
        name = NULL;
#ifdef BL_DEFAULT_FORMAT
        if (!isatty(STDOUT_FILENO)) {
            name = BL_DEFAULT_FORMAT;
            from = "BL_DEFAULT_FORMAT";
        }
#endif
    }
    if (!name && o->dialect == BL__B63) {
        name = "b63";
        from = "BL_FLAGS b63";
    }
    if (!name) return 0;
    status = bl__set_format(o, from, name);
    o->format_given = 0; /* a default: CSB's flags still choose csb */
    return status;
}

static int bl__set_out(bl__options *o, const char *flag, const char *value) {
    if (!*value) return bl__flag_error(flag, "needs a file name", value);
    o->out_path = value;
    return 0;
}

static int bl__set_counters(bl__options *o, const char *flag, const char *value) {
    (void)flag;
    o->counters = value;
    return 0;
}

/* The threaded mode's values; `flag` is as the user wrote it (-t or --threads). */
static int bl__set_thread_value(bl__options *o, const char *flag, const char *value) {
    const char *name = flag + (flag[1] == '-' ? 2 : 1);
    uint64_t v;
    if (!strcmp(name, "t") || !strcmp(name, "threads")) {
        if (!bl__parse_u64(value, &v) || v < 1 || v > BL__MAX_THREADS)
            return bl__flag_error(flag, "must be a whole number of threads from 1 to " BL__STR(BL__MAX_THREADS), value);
        o->threads = v;
    } else if (!strcmp(name, "n") || !strcmp(name, "nops")) {
        if (!bl__parse_u64(value, &v) || v > BL__MAX_NOPS)
            return bl__flag_error(flag, "must be a whole number of nops from 0 to " BL__STR(BL__MAX_NOPS), value);
        o->nops = v;
    } else if (!strcmp(name, "d") || !strcmp(name, "duration")) {
        if (!bl__parse_seconds(value, &o->duration_s))
            return bl__flag_error(flag, "must be a number of seconds > 0 and <= " BL__STR(BL__MAX_TIME_LIMIT_S), value);
        o->duration_given = 1;
    } else if (!strcmp(name, "s") || !strcmp(name, "size")) {
        if (!bl__parse_u64(value, &o->init_size))
            return bl__flag_error(flag, "must be a whole number from 0 to 18446744073709551615", value);
    } else if (!strcmp(name, "latency-every")) {
        if (!strcmp(value, "batch")) o->latency_every = BL__LATENCY_PER_BATCH;
        else if (!bl__parse_u64(value, &o->latency_every) || o->latency_every > BL__MAX_LATENCY_EVERY)
            return bl__flag_error(flag, "must be a whole number from 0 (time no operation) to " BL__STR(BL__MAX_LATENCY_EVERY) ", or batch", value);
        o->latency_every_given = 1;
    } else if (!strcmp(name, "random-nops")) {
        o->random_nops = 1;
    } else if (!strcmp(name, "csb-unit")) {
        if (strcmp(value, "ticks") && strcmp(value, "ns")) return bl__flag_error(flag, "must be ticks or ns", value);
        o->csb_ns = !strcmp(value, "ns");
    } else { /* opK */
        uint64_t k;
        if (!bl__parse_u64(name + 2, &k) || k >= BL__MAX_OPS)
            return bl__flag_error(flag, "names no operation: K in -opK goes from 0 to " BL__STR(BL__MAX_OPS_LAST), NULL);
        if (!bl__parse_u64(value, &v) || v > BL__OP_SLOTS)
            return bl__flag_error(flag, "must be a whole number of operations per " BL__STR(BL__OP_SLOTS) ", from 0 to " BL__STR(BL__OP_SLOTS), value);
        o->op_freq[k] = v;
        o->op_given[k] = 1;
        o->any_op_given = 1;
    }
    return 0;
}

/* -b PATH / --binary PATH (libloong's dialect): what bl_binary() returns. The file must be
   readable now, before anything runs: a program loading it inside a benchmark has no
   way to say it cannot but to abort (seen: exit 134 where libloong's harness says
   "Error:" and exits 1). An empty file is the program's to judge. */
static int bl__set_binary(bl__options *o, const char *flag, const char *value) {
    FILE *f;
    int readable;
    if (!*value) return bl__flag_error(flag, "needs the path of a file", value);
    errno = 0;
    f = fopen(value, "rb");
    readable = f && (fgetc(f) != EOF || !ferror(f)); /* a directory opens, and fails to read */
    if (!readable) {
        fprintf(stderr, "benchlab: %s cannot read \"%s\": %s (give the path of the guest program's file)\n", flag,
                value, errno ? strerror(errno) : "not a readable file");
        if (f) fclose(f);
        return 2;
    }
    fclose(f);
    o->binary = value;
    return 0;
}

/* -i (B63's dialect): B63's interactive lines; the later of -i and --format wins. */
static int bl__set_interactive(bl__options *o, const char *flag, const char *value) {
    (void)flag;
    (void)value;
    o->format = bl__format_named("b63-interactive");
    o->format_given = 1;
    return 0;
}

/* -d DELIM (B63's dialect): the plain lines' delimiter, the value's first character as
   in B63. Only a character that is in no number and in none of our names (a benchmark's
   name/param=value, a counter's lpe:cycles), so that the lines split one way and
   `benchlab import` reads them back: formats/parsers/b63csv.py reads any character but
   a letter, digit, _ . , + or - (tests/python/header/test_b63_dialect.py tries each). */
#define BL__B63_DELIMITERS " \t!\"#$%&'()*,;<>?@[\\]^`{|}~"
static int bl__set_delimiter(bl__options *o, const char *flag, const char *value) {
    unsigned char c = (unsigned char)value[0];
    if (!c) return bl__flag_error(flag, "needs a delimiter character", value);
    if (!strchr(BL__B63_DELIMITERS, c))
        return bl__flag_error(flag,
                              "must be a space, a tab or one of !\"#$%&'()*,;<>?@[\\]^`{|}~ (a letter, digit or "
                              "one of _ . + - / = : can be part of a name or a number, and the lines would not split "
                              "one way)",
                              value);
    o->delimiter = (char)c;
    return 0;
}

/* -s SEED (B63's dialect): B63 reads a signed 64-bit seed; a negative one is taken
   modulo 2^64, so each of its seeds is one of ours. */
static int bl__set_signed_seed(bl__options *o, const char *flag, const char *value) {
    uint64_t v;
    if (value[0] == '-' && bl__parse_u64(value + 1, &v) && v <= (uint64_t)INT64_MAX + 1) {
        o->seed = (uint64_t)0 - v;
        o->seed_given = 1;
        return 0;
    }
    return bl__set_seed(o, flag, value);
}

/* The dialects' columns (section 9, BL__FLAG_DIALECTS), indexed by enum bl__dialect: the name,
   whose flags they are and how they write a value, for --help and messages. */
#define BL__DIALECT_NAME(name, id, owner, form) #name,
#define BL__DIALECT_OWNER(name, id, owner, form) owner,
#define BL__DIALECT_FORM(name, id, owner, form) form,
static const char *const bl__dialect_names[BL__DIALECTS] = {BL__FLAG_DIALECTS(BL__DIALECT_NAME)};
static const char *const bl__dialect_owners[BL__DIALECTS] = {BL__FLAG_DIALECTS(BL__DIALECT_OWNER)};
static const char *const bl__dialect_forms[BL__DIALECTS] = {BL__FLAG_DIALECTS(BL__DIALECT_FORM)};
#define BL__ALL_DIALECTS (-1)

typedef struct bl__flag {
    const char *name;
    int takes_value;
    int (*set)(bl__options *o, const char *flag, const char *value);
    int dialect;         /* BL__ALL_DIALECTS for benchlab's own long flags */
    const char *meaning; /* short flags: what the flag means in its dialect (--help, messages) */
} bl__flag;

#define BL__LONG(name, takes_value, set) {name, takes_value, set, BL__ALL_DIALECTS, NULL}
static const bl__flag bl__flags[] = {
    BL__LONG("--list", 0, bl__set_list),           BL__LONG("--filter", 1, bl__set_filter),
    BL__LONG("--samples", 1, bl__set_samples),     BL__LONG("--time-limit", 1, bl__set_time_limit),
    BL__LONG("--precision", 1, bl__set_precision), BL__LONG("--schedule", 1, bl__set_schedule),
    BL__LONG("--no-subtract", 0, bl__set_no_subtract), BL__LONG("--seed", 1, bl__set_seed),
    BL__LONG("--format", 1, bl__set_format),       BL__LONG("--out", 1, bl__set_out),
    BL__LONG("--counters", 1, bl__set_counters),   BL__LONG("--threads", 1, bl__set_thread_value),
    BL__LONG("--nops", 1, bl__set_thread_value),   BL__LONG("--duration", 1, bl__set_thread_value),
    BL__LONG("--size", 1, bl__set_thread_value),   BL__LONG("--latency-every", 1, bl__set_thread_value),
    BL__LONG("--random-nops", 0, bl__set_thread_value), BL__LONG("--csb-unit", 1, bl__set_thread_value),
    BL__LONG("--opK", 1, bl__set_thread_value),
    /* The dialects' own flags (section 9). */
    {"--binary", 1, bl__set_binary, BL__LIBLOONG, "the guest program's path (bl_binary())"},
    {"-t", 1, bl__set_thread_value, BL__CSB, "threads (--threads)"},
    {"-n", 1, bl__set_thread_value, BL__CSB, "nops between operations (--nops)"},
    {"-d", 1, bl__set_thread_value, BL__CSB, "seconds to run (--duration)"},
    {"-s", 1, bl__set_thread_value, BL__CSB, "the target's initial size (--size)"},
    {"-opK", 1, bl__set_thread_value, BL__CSB, "operation K's share of " BL__STR(BL__OP_SLOTS) " (--opK)"},
    {"-i", 0, bl__set_interactive, BL__B63, "B63's interactive lines (--format=b63-interactive)"},
    {"-c", 1, bl__set_counters, BL__B63, "counters (--counters)"},
    {"-e", 1, bl__set_samples, BL__B63, "epochs: samples per benchmark (--samples)"},
    {"-t", 1, bl__set_time_limit, BL__B63, "seconds per benchmark (--time-limit)"},
    {"-s", 1, bl__set_signed_seed, BL__B63, "the seed (--seed)"},
    {"-d", 1, bl__set_delimiter, BL__B63, "the plain lines' delimiter"},
    {"-s", 1, bl__set_samples, BL__LIBLOONG, "samples per benchmark (--samples)"},
    {"-b", 1, bl__set_binary, BL__LIBLOONG, "the guest program's path (--binary)"},
};
#define BL__FLAG_ROWS (sizeof bl__flags / sizeof bl__flags[0])

/* The short flags of the program's dialect, made from bl__flags as the parser reads them. */
static void bl__print_dialect(int dialect) {
    size_t i;
    printf("short flags (%s, BL_FLAGS %s; values written %s):\n", bl__dialect_owners[dialect],
           bl__dialect_names[dialect], bl__dialect_forms[dialect]);
    for (i = 0; i < BL__FLAG_ROWS; i++)
        if (bl__flags[i].dialect == dialect) printf("  %-21s%s\n", bl__flags[i].name, bl__flags[i].meaning);
}

/* Does `flag` (no value) spell row `f`? "-opK" stands for -op0 .. -op63, "--opK" too;
   the row checks K. */
static int bl__spells(const bl__flag *f, const char *flag) {
    size_t len = strlen(f->name);
    if (len > 3 && !strcmp(f->name + len - 3, "opK"))
        return !strncmp(flag, f->name, len - 1) && flag[len - 1];
    return !strcmp(flag, f->name);
}

/* The row of `flag` in `dialect` (benchlab's long flags are in every one), or NULL. */
static const bl__flag *bl__find_flag(const char *flag, int dialect) {
    size_t i;
    for (i = 0; i < BL__FLAG_ROWS; i++) {
        const bl__flag *f = &bl__flags[i];
        if ((f->dialect == BL__ALL_DIALECTS || f->dialect == dialect) && bl__spells(f, flag)) return f;
    }
    return NULL;
}

/* Says on stderr what `flag` means in the dialects other than `dialect` ("-s means the
   seed (--seed) in B63's dialect; samples ... in libloong's"), after `lead`; 0 when it is
   in none of them. */
static int bl__other_meanings(const char *lead, const char *flag, int dialect) {
    size_t i;
    int found = 0;
    for (i = 0; i < BL__FLAG_ROWS; i++) {
        const bl__flag *f = &bl__flags[i];
        if (f->dialect == BL__ALL_DIALECTS || f->dialect == dialect || !bl__spells(f, flag)) continue;
        if (found) fprintf(stderr, "; %s in %s", f->meaning, bl__dialect_owners[f->dialect]);
        else fprintf(stderr, "%s%s means %s in %s dialect", lead, flag, f->meaning, bl__dialect_owners[f->dialect]);
        found = 1;
    }
    return found;
}

/* A flag this program's dialect does not have: name the dialects that do, and how to
   choose one, so that `-e 10` in a CSB program is never read as something else. */
static int bl__other_dialects_flag(const char *flag, int dialect) {
    if (!bl__other_meanings("benchlab: ", flag, dialect)) {
        fprintf(stderr, "benchlab: unknown flag \"%s\" (see --help)\n", flag);
        return 2;
    }
    fprintf(stderr, ", not in this program's: it reads %s short flags (BL_FLAGS %s). Build it with #define "
                    "BL_FLAGS <dialect> before including benchlab.h (or BL_MAIN_AS(<dialect>)) to take another "
                    "dialect's; see --help\n",
            bl__dialect_owners[dialect], bl__dialect_names[dialect]);
    return 2;
}

/* A short flag written in another dialect's form (CSB's -s=500 in a B63 program, B63's
   -s 42 in a CSB one): say which form this program reads, and what the flag means in the
   other dialects, whose form the user may have had in mind. */
static int bl__wrong_form(const char *arg, const char *flag, int dialect) {
    fprintf(stderr, "benchlab: \"%s\": this program reads %s short flags, whose values are written %s", arg,
            bl__dialect_owners[dialect], bl__dialect_forms[dialect]);
    if (bl__other_meanings(" (", flag, dialect)) fputs(": BL_FLAGS chooses the dialect)", stderr);
    fputc('\n', stderr);
    return 2;
}

static int bl__apply(bl__options *o, const bl__flag *row, const char *flag, const char *value) {
    int status = row->set(o, flag, value);
    if (row->dialect == BL__ALL_DIALECTS &&
        (row->set == bl__set_samples || row->set == bl__set_time_limit || row->set == bl__set_precision))
        o->long_sampling = 1;
    if (!status && row->dialect == BL__CSB && !o->csb_flags) {
        o->csb_flags = 1;
        o->csb_flag = row->name;
        o->csb_flag_meaning = row->meaning;
    }
    return status;
}

/* --flag=value or --flag value. */
static int bl__parse_long(bl__options *o, int argc, char **argv, int *i) {
    const char *arg = argv[*i], *eq = strchr(arg, '='), *value = eq ? eq + 1 : NULL;
    char flag[64];
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const bl__flag *row;
    if (len >= sizeof flag) len = sizeof flag - 1;
    memcpy(flag, arg, len);
    flag[len] = 0;
    if (!(row = bl__find_flag(flag, o->dialect))) return bl__other_dialects_flag(flag, o->dialect);
    if (!row->takes_value && eq) return bl__flag_error(flag, "takes no value", value);
    if (row->takes_value && !value) {
        if (*i + 1 >= argc) return bl__flag_error(flag, "needs a value", NULL);
        value = argv[++*i];
    }
    return bl__apply(o, row, flag, value);
}

/* CSB's short flags: -t=4, the value always after '='. */
static int bl__parse_csb_short(bl__options *o, const char *arg) {
    const char *eq = strchr(arg, '=');
    char flag[64];
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const bl__flag *row;
    if (len >= sizeof flag) len = sizeof flag - 1;
    memcpy(flag, arg, len);
    flag[len] = 0;
    if (!(row = bl__find_flag(flag, BL__CSB))) return bl__other_dialects_flag(flag, BL__CSB);
    if (row->takes_value && !eq) return bl__wrong_form(arg, flag, BL__CSB);
    return bl__apply(o, row, flag, eq ? eq + 1 : NULL);
}

/* libloong's: -s 500, the value the next argument. */
static int bl__parse_libloong_short(bl__options *o, int argc, char **argv, int *i) {
    const char *arg = argv[*i];
    const bl__flag *row = bl__find_flag(arg, BL__LIBLOONG);
    char flag[3] = {'-', arg[1], 0};
    if (!row) {
        if (strlen(arg) > 2 && bl__find_flag(flag, BL__LIBLOONG)) return bl__wrong_form(arg, flag, BL__LIBLOONG);
        return bl__other_dialects_flag(strchr(arg, '=') ? flag : arg, BL__LIBLOONG);
    }
    if (*i + 1 >= argc) return bl__flag_error(arg, "needs a value", NULL);
    return bl__apply(o, row, arg, argv[++*i]);
}

/* B63's, as getopt("it:e:c:d:s:") reads them: flags without a value may share one
   argument (-i), and a value follows its letter (-e10) or is the next argument (-e 10). */
static int bl__parse_b63_short(bl__options *o, int argc, char **argv, int *i) {
    const char *arg = argv[*i];
    size_t j;
    for (j = 1; arg[j]; j++) {
        char flag[3] = {'-', arg[j], 0};
        const bl__flag *row = bl__find_flag(flag, BL__B63);
        const char *value;
        if (!row) return bl__other_dialects_flag(j == 1 && strncmp(arg, "-op", 3) == 0 ? arg : flag, BL__B63);
        if (!row->takes_value) {
            int status = bl__apply(o, row, flag, NULL);
            if (status) return status;
            continue;
        }
        value = arg[j + 1] ? arg + j + 1 : NULL;
        if (value && value[0] == '=') return bl__wrong_form(arg, flag, BL__B63);
        if (!value) {
            if (*i + 1 >= argc) return bl__flag_error(flag, "needs a value", NULL);
            value = argv[++*i];
        }
        return bl__apply(o, row, flag, value);
    }
    return 0;
}

static void bl__default_options(bl__options *o) {
    memset(o, 0, sizeof *o);
    o->samples = BL__DEFAULT_MAX_SAMPLES;
    o->time_limit_s = BL__DEFAULT_TIME_LIMIT_S;
    o->precision_pct = -1; /* not given: decided after the flags */
    o->schedule = BL__ROUNDS;
    o->subtract = 1;
    o->threads = 1;
    o->latency_every = BL__LATENCY_PER_BATCH;
    o->delimiter = ',';
    o->format = bl__format_named(isatty(STDOUT_FILENO) ? "table" : "jsonl");
}

/* How the dialects count samples. B63's samples as B63 does, unless benchlab's own
   --samples, --time-limit or --precision is given: -e N epochs (30 without it) of
   doubling batches (bl__epoch) in -t S seconds of wall time per benchmark (1 without
   it), BL_SUSPEND included, and exactly N of them, so that a script reading B63's lines
   gets N per benchmark. libloong's -s N (or --samples N) is an exact count, as its
   harness's is: the time limit does not cut it. */
static void bl__dialect_sampling(bl__options *o) {
    if (o->dialect == BL__B63 && !o->long_sampling) {
        o->epochs = 1;
        o->exact_samples = 1;
        if (!o->samples_given) o->samples = BL__B63_EPOCHS;
        if (!o->time_limit_given) o->time_limit_s = BL__B63_TIME_LIMIT_S;
        o->samples_given = 1;
    }
    if (o->dialect == BL__LIBLOONG && o->samples_given) o->exact_samples = 1;
}

/* The dialect called `name`, or -1. */
static int bl__dialect_named(const char *name) {
    int d;
    for (d = 0; name && d < BL__DIALECTS; d++)
        if (!strcmp(name, bl__dialect_names[d])) return d;
    return -1;
}

/* Returns 0 to go on, or the exit status to stop with (--help gives 0 through -1). */
static int bl__parse_options(int argc, char **argv, const char *dialect, bl__options *o) {
    int i, status = 0;
    bl__default_options(o);
    if ((o->dialect = bl__dialect_named(dialect)) < 0) {
        fprintf(stderr, "benchlab: bl_main_as: no flag dialect \"%s\" (dialects:", dialect ? dialect : "");
        for (i = 0; i < BL__DIALECTS; i++) fprintf(stderr, "%s %s", i ? "," : "", bl__dialect_names[i]);
        fputs(")\n", stderr);
        return 2;
    }
    o->filters = BL__CAST(const char **, calloc((size_t)argc + 1, sizeof(char *)));
    if (!o->filters) return bl__flag_error("benchlab:", "out of memory", NULL);
    for (i = 1; i < argc && !status; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            bl__print_help(argc > 0 ? argv[0] : "benchmark", o->dialect);
            return -1;
        }
        if (arg[0] != '-' || !arg[1]) {
            fprintf(stderr, "benchlab: unexpected argument \"%s\" (flags start with - or --; see --help)\n", arg);
            return 2;
        }
        if (arg[1] == '-') status = bl__parse_long(o, argc, argv, &i);
        else if (o->dialect == BL__CSB) status = bl__parse_csb_short(o, arg);
        else if (o->dialect == BL__B63) status = bl__parse_b63_short(o, argc, argv, &i);
        else status = bl__parse_libloong_short(o, argc, argv, &i);
    }
    if (status) return status;
    if (!o->format_given && (status = bl__default_format(o))) return status;
    bl__dialect_sampling(o);
    /* --samples=N asks for N samples: --precision stops earlier only when also given. */
    if (o->precision_pct < 0) o->precision_pct = o->samples_given ? 0 : BL__DEFAULT_PRECISION_PCT;
    bl__binary_flag = o->binary;
    return 0;
}

BL__DEF const char *bl_binary(const char *fallback) {
    return bl__binary_flag ? bl__binary_flag : fallback;
}

/* ---- I14. bl_main: the outline of a run ---------------------------------------------------------
   bl_main is a list of steps, each returning 0 to go on, an exit status to stop with,
   or -1 to stop with 0 (--help, --list); one cleanup path frees what any step made.
   The optional parts define their own steps, after this section; they are declared
   here, so the outline reads in the order of a run. */

typedef struct bl__run {
    bl__options o;
    bl__context context;
    bl__counter_set counters;
    const bl__bench *baseline;  /* the program's BL_BASELINE, or NULL */
    bl__instance *instances;    /* selected benchmarks, the baseline first when there is one */
    size_t instance_count;
    const bl_target **targets;  /* selected threaded targets */
    size_t target_count;
    uint64_t (*op_freqs)[BL__MAX_OPS]; /* each target's operation frequencies, checked before anything runs */
    bl__result *results;        /* the time pass, one per instance */
    FILE *out;
    uint64_t rng;               /* the harness's own stream, apart from bl_seed() users */
    uint64_t callgrind_n;       /* BL_CALLGRIND: instruction regions of n and 2n iterations; 0: off */
} bl__run;

/* Steps and checks of the optional parts (sections I16-I18), defined with them. */
static int bl__choose_counters(bl__run *run);
static void bl__open_counters(bl__run *run);
static int bl__measure_counters(bl__run *run, size_t index);
static void bl__counters_close(bl__counter_set *set);
static int bl__op_freqs(const bl_target *t, const bl__options *o, uint64_t *freq);
static int bl__run_targets(bl__run *run);
static int bl__callgrind_setup(bl__run *run);
static int bl__measure_instructions(bl__run *run);

static int bl__out_of_memory(const char *what) {
    fprintf(stderr, "benchlab: out of memory while %s\n", what);
    return 1;
}

/* Definition order: by file, then line, so the order does not depend on the order in
   which the toolchain runs constructors. */
static int bl__compare_benches(const void *pa, const void *pb) {
    const bl__bench *a = BL__CAST(const bl__bench *, pa), *b = BL__CAST(const bl__bench *, pb);
    int by_file = strcmp(a->file, b->file);
    if (by_file) return by_file;
    if (a->line != b->line) return a->line < b->line ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int bl__compare_targets(const void *pa, const void *pb) {
    const bl_target *a = *BL__CAST(const bl_target *const *, pa), *b = *BL__CAST(const bl_target *const *, pb);
    int by_file = strcmp(a->file ? a->file : "", b->file ? b->file : "");
    if (by_file) return by_file;
    return (a->line > b->line) - (a->line < b->line);
}

/* Step: the program itself is sound (counters known, one baseline, unique names). */
static bl__bench *bl__bench_named(const char *name) {
    bl__registry *reg = &bl__benchmarks;
    size_t i;
    for (i = 0; i < reg->count; i++)
        if (!strcmp(reg->items[i].name, name)) return &reg->items[i];
    return NULL;
}

/* Does `base` have an instance for each of `b`'s (its parameter values, or one instance)? */
static int bl__pairs_with(const bl__bench *b, const bl__bench *base, int64_t *missing) {
    size_t i, j;
    if (!base->params) return 1;
    if (!b->params) return 0;
    for (i = 0; i < b->param_count; i++) {
        for (j = 0; j < base->param_count && base->params[j] != b->params[i]; j++) {}
        if (j == base->param_count) {
            *missing = b->params[i];
            return 0;
        }
    }
    return 1;
}

/* BL_DIFFERENCE's names, made pointers once every benchmark is registered; a pair that
   cannot be measured is an error naming where it is written. */
static int bl__resolve_differences(void) {
    bl__difference_registry *d = &bl__differences;
    size_t i;
    if (d->out_of_memory) return bl__out_of_memory("registering BL_DIFFERENCE") + 1;
    for (i = 0; i < d->count; i++) {
        const bl__difference *x = &d->items[i];
        bl__bench *b = bl__bench_named(x->bench);
        const bl__bench *base = bl__bench_named(x->base);
        int64_t missing = 0;
        const char *problem = NULL;
        char why[320];
        if (!b || !base) snprintf(why, sizeof why, "no benchmark named \"%s\"", b ? x->base : x->bench), problem = why;
        else if (b == base) problem = "a benchmark cannot be its own base";
        else if (b->base) snprintf(why, sizeof why, "%s already has a base (%s): give it one", b->name, b->base->name), problem = why;
        else if (!bl__pairs_with(b, base, &missing)) {
            if (b->params) snprintf(why, sizeof why, "%s has no instance with %s=%lld to pair with %s's", base->name,
                                    base->param_name, (long long)missing, b->name);
            else snprintf(why, sizeof why, "%s has parameters and %s none: a base needs one instance per instance of "
                                           "its benchmark", base->name, b->name);
            problem = why;
        }
        if (problem) {
            fprintf(stderr, "benchlab: BL_DIFFERENCE(%s, %s) at %s:%d: %s\n", x->bench, x->base, x->file, x->line, problem);
            return 2;
        }
        b->base = base;
    }
    return 0;
}

static int bl__check_program(bl__run *run) {
    bl__registry *reg = &bl__benchmarks;
    bl__target_registry *treg = &bl__targets;
    size_t i, j;
    int status = bl__choose_counters(run);
    if (status) return status;
    if (reg->out_of_memory || treg->out_of_memory) return bl__out_of_memory("registering benchmarks") + 1;
    if (reg->count) qsort(reg->items, reg->count, sizeof(bl__bench), bl__compare_benches);
    if (treg->count) qsort(BL__CAST(void *, treg->items), treg->count, sizeof(const bl_target *), bl__compare_targets);
    for (i = 0; i < reg->count; i++) {
        const bl__bench *b = &reg->items[i];
        if (b->is_baseline && run->baseline) {
            fprintf(stderr, "benchlab: two baselines defined (%s at %s:%d and %s at %s:%d); keep one BL_BASELINE and make the other BL_BENCH\n",
                    run->baseline->name, run->baseline->file, run->baseline->line, b->name, b->file, b->line);
            return 2;
        }
        if (b->is_baseline) run->baseline = b;
        for (j = i + 1; j < reg->count; j++)
            if (strcmp(b->name, reg->items[j].name) == 0) {
                fprintf(stderr, "benchlab: two benchmarks named \"%s\" (%s:%d and %s:%d); rename one\n",
                        b->name, b->file, b->line, reg->items[j].file, reg->items[j].line);
                return 2;
            }
    }
    for (i = 0; i < treg->count; i++) {
        const bl_target *t = treg->items[i];
        const char *other = NULL;
        for (j = 0; j < reg->count; j++)
            if (strcmp(t->name, reg->items[j].name) == 0) other = reg->items[j].file;
        for (j = i + 1; j < treg->count; j++)
            if (strcmp(t->name, treg->items[j]->name) == 0) other = treg->items[j]->file;
        if (other) {
            fprintf(stderr, "benchlab: two benchmarks named \"%s\" (%s:%d and %s); rename one\n", t->name, t->file, t->line, other);
            return 2;
        }
    }
    return bl__resolve_differences();
}

static int bl__matches(const bl__options *o, const char *display) {
    size_t i;
    if (o->filter_count == 0) return 1;
    for (i = 0; i < o->filter_count; i++)
        if (strstr(display, o->filters[i])) return 1;
    return 0;
}

static void bl__set_instance(bl__instance *in, const bl__bench *b, size_t param_index) {
    in->bench = b;
    in->param_index = param_index;
    if (b->params) snprintf(in->display, sizeof in->display, "%s/%s=%lld", b->name, b->param_name, (long long)b->params[param_index]);
    else snprintf(in->display, sizeof in->display, "%s", b->name);
}

/* Is instance j of `b` the base of an instance --filter selects? Then it runs too, as the
   reference of that one (as the baseline always runs). */
static int bl__base_of_match(const bl__run *run, const bl__bench *b, size_t j) {
    const bl__registry *reg = &bl__benchmarks;
    size_t i, k;
    for (i = 0; i < reg->count; i++) {
        const bl__bench *d = &reg->items[i];
        if (d->base != b) continue;
        for (k = 0; k < (d->params ? d->param_count : 1); k++) {
            bl__instance in;
            bl__set_instance(&in, d, k);
            if (bl__matches(&run->o, in.display) && (!b->params || d->params[k] == b->params[j])) return 1;
        }
    }
    return 0;
}

/* Each selected instance's base (BL_DIFFERENCE), by its place in the run: the base's
   instance of the same parameter value, or its one instance. */
static void bl__link_bases(bl__run *run) {
    size_t i, j;
    for (i = 0; i < run->instance_count; i++) {
        bl__instance *in = &run->instances[i];
        const bl__bench *base = in->bench->base;
        if (!base) continue;
        for (j = 0; j < run->instance_count; j++)
            if (run->instances[j].bench == base && (!base->params || bl__param(&run->instances[j]) == bl__param(in)))
                in->base = j + 1;
    }
}

/* Step: the instances and targets --filter selects. The baseline comes first, and
   always when a compared benchmark is selected: it is their reference; so
   does the base of a selected BL_DIFFERENCE. */
static int bl__select(bl__run *run) {
    bl__registry *reg = &bl__benchmarks;
    bl__target_registry *treg = &bl__targets;
    size_t total = 1, i, j;
    int baseline_selected = 0;
    for (i = 0; i < reg->count; i++) total += reg->items[i].params ? reg->items[i].param_count : 1;
    run->instances = BL__CAST(bl__instance *, calloc(total, sizeof(bl__instance)));
    run->results = BL__CAST(bl__result *, calloc(total, sizeof(bl__result)));
    run->targets = BL__CAST(const bl_target **, calloc(treg->count + 1, sizeof(const bl_target *)));
    if (!run->instances || !run->results || !run->targets) return bl__out_of_memory("selecting benchmarks") + 1;
    if (run->baseline) run->instance_count = 1; /* slot 0 is kept for it */
    for (i = 0; i < reg->count; i++) {
        const bl__bench *b = &reg->items[i];
        for (j = 0; j < (b->params ? b->param_count : 1); j++) {
            bl__instance *in = b->is_baseline ? &run->instances[0] : &run->instances[run->instance_count];
            bl__set_instance(in, b, j);
            if (!bl__matches(&run->o, in->display) && !bl__base_of_match(run, b, j)) continue;
            if (b->is_baseline) baseline_selected = 1;
            else run->instance_count++;
        }
    }
    if (run->baseline && !baseline_selected && run->instance_count == 1) run->instance_count = 0;
    if (run->baseline) bl__set_instance(&run->instances[0], run->baseline, 0);
    bl__link_bases(run);
    for (i = 0; i < treg->count; i++)
        if (bl__matches(&run->o, treg->items[i]->name)) run->targets[run->target_count++] = treg->items[i];
    if (run->o.filter_count && run->instance_count == 0 && run->target_count == 0) {
        fprintf(stderr, "benchlab: no benchmark matches --filter=%s (see --list)\n", run->o.filters[0]);
        return 2;
    }
    return 0;
}

/* Step: what can be checked before anything runs, so that a typo costs no run. CSB's
   spellings of the threaded flags make the program a CSB binary, whose runner reads
   the key=val; line from its stdout: then csb is the default format (--format wins),
   when a threaded target is selected to print it. */
static int bl__check_selection(bl__run *run) {
    const bl__writer *w;
    size_t i;
    /* CSB's short flags say how to run a threaded target: in a program without one they
       would change nothing, silently (the long forms, --threads=T ..., are benchlab's own
       and taken by every program, so that `benchlab run --sweep threads=...` runs any). */
    if (run->o.csb_flag && bl__targets.count == 0) {
        fprintf(stderr, "benchlab: %s means %s for a threaded target (BL_TARGET), and this program has none: it would "
                        "change nothing here; leave it out (see --help)\n",
                run->o.csb_flag, run->o.csb_flag_meaning);
        return 2;
    }
    if (run->o.csb_flags && !run->o.format_given && run->target_count) run->o.format = bl__format_named("csb");
    w = &bl__writers[run->o.format];
    if (run->target_count &&
        !(run->op_freqs = BL__CAST(uint64_t(*)[BL__MAX_OPS], calloc(run->target_count, sizeof *run->op_freqs))))
        return bl__out_of_memory("selecting targets") + 1;
    for (i = 0; i < run->target_count; i++)
        if (bl__op_freqs(run->targets[i], &run->o, run->op_freqs[i])) return 2;
    if (!w->result && run->target_count == 0) {
        char others[256];
        fprintf(stderr, "benchlab: --format=%s is the threaded mode's format and no threaded target is selected (use %s)\n",
                w->name, bl__format_list(others, sizeof others, BL__BENCHMARK_FORMATS, " or "));
        return 2;
    }
    return 0;
}

static int bl__list(bl__run *run) {
    size_t i;
    if (!run->o.list) return 0;
    for (i = 0; i < run->instance_count; i++)
        printf("%s%s\n", run->instances[i].display, run->instances[i].bench->is_baseline ? " (baseline)" : "");
    for (i = 0; i < run->target_count; i++) printf("%s (threaded)\n", run->targets[i]->name);
    return -1;
}

static int bl__open_output(bl__run *run) {
    run->out = stdout;
    if (!run->o.out_path) return 0;
    run->out = fopen(run->o.out_path, "w");
    if (run->out) return 0;
    fprintf(stderr, "benchlab: --out cannot open \"%s\" for writing: %s\n", run->o.out_path, strerror(errno));
    return 2;
}

/* Step: seed, timer, warnings, context; say what the format leaves out. */
static int bl__prepare(bl__run *run) {
    const bl__writer *w = &bl__writers[run->o.format];
    BL__UNUSED uint64_t phase = 0;
    /* A seed nobody chose still has to be reported, so the run can be repeated. */
    if (run->o.seed_given) {
        bl__run_seed = run->o.seed;
    } else {
        uint64_t mix = bl__clock_ns() ^ ((uint64_t)(uintptr_t)run << 16);
        bl__run_seed = bl_random(&mix) >> 1; /* fits a signed 64-bit reader too */
    }
    run->rng = bl__run_seed ^ 0x5DEECE66Dull;
    BL__PHASE_MARK(phase);
    bl__setup_timer();
    BL__PHASE_ADD(timer, phase);
    BL__PHASE_MARK(phase);
    bl__warn_machine();
    bl__collect_context(&run->context);
    if (!w->result && run->instance_count) {
        fprintf(stderr, "benchlab: --format=%s: the %lu benchmarks that are not threaded targets are skipped\n", w->name,
                (unsigned long)run->instance_count);
        run->instance_count = 0;
    }
    if (!w->throughput && run->target_count) {
        char others[256];
        fprintf(stderr, "benchlab: threaded targets have no %s form and are skipped (use %s)\n", w->name,
                bl__format_list(others, sizeof others, BL__TARGET_FORMATS, " or "));
        run->target_count = 0;
    }
    if (w->context) w->context(run->out, &run->o, &run->context);
    BL__PHASE_ADD(context, phase);
    bl__open_counters(run);
    return 0;
}

static void bl__init_series(bl__result *r, const bl__instance *in) {
    memset(r, 0, sizeof *r);
    r->instance = in;
    r->body = in ? in->bench->body : bl__empty_body;
    r->arg = in ? bl__param(in) : 0;
    r->support = in == NULL; /* the empty loop is only ever a reference */
}

/* Samples `g` and computes the figures of its benchmarks (series 1..). */
static int bl__sample_group(bl__run *run, bl__rounds *g) {
    size_t i;
    BL__UNUSED uint64_t phase = 0;
    if (!bl__sample_rounds(g, &run->o, &run->rng)) return 0;
    BL__PHASE_MARK(phase);
    for (i = 1; i < g->count; i++) {
        if (g->series[i]->support) continue;
        /* B63's epochs are all kept, preempted or not: one line each, as B63 prints them */
        if (!run->o.epochs) bl__leave_out_preempted(g->series[i]);
        else bl__count_preempted(g->series[i]);
        if (!g->series[i]->short_samples && bl__mostly_short(g->series[i])) g->series[i]->short_samples = BL__SHORT_BUSY;
        bl__warn_short_samples(g->series[i], run->o.time_limit_s);
        bl__time_figures(g->series[i], g->baseline, &run->o);
    }
    BL__PHASE_ADD(figures, phase);
    return 1;
}

/* Step: the time pass. Rounds: one group of every instance; sequential: a group per
   instance, with an empty loop and a baseline of its own. */
static int bl__measure_time(bl__run *run) {
    size_t n = run->instance_count, i;
    bl__result empty, base, own_base, *series[4], **all;
    bl__rounds g;
    int ok = 1;
    g.max_samples = run->o.samples;
    if (!n) return 0;
    if (run->o.schedule == BL__ROUNDS) {
        all = BL__CAST(bl__result **, malloc((n + 1) * sizeof(bl__result *)));
        if (!all) return bl__out_of_memory("measuring");
        bl__init_series(&empty, NULL);
        all[0] = &empty;
        for (i = 0; i < n; i++) {
            bl__init_series(&run->results[i], &run->instances[i]);
            all[i + 1] = &run->results[i];
        }
        for (i = 0; i < n; i++)
            if (run->instances[i].base) run->results[i].base = &run->results[run->instances[i].base - 1];
        g.series = all;
        g.count = n + 1;
        g.baseline = run->baseline ? &run->results[0] : NULL;
        ok = bl__sample_group(run, &g);
        bl__free_result(&empty);
        free(all);
        return ok ? 0 : bl__out_of_memory("measuring");
    }
    for (i = 0; ok && i < n; i++) {
        int compared = run->baseline && i > 0;
        bl__init_series(&empty, NULL);
        bl__init_series(&run->results[i], &run->instances[i]);
        bl__init_series(&base, &run->instances[0]);
        base.support = 1;
        series[0] = &empty;
        series[1] = &run->results[i];
        g.count = 2;
        if (compared) series[g.count++] = &base;
        memset(&own_base, 0, sizeof own_base);
        if (run->instances[i].base) { /* BL_DIFFERENCE: its base beside it, as a reference only */
            bl__init_series(&own_base, &run->instances[run->instances[i].base - 1]);
            own_base.support = 1;
            run->results[i].base = &own_base;
            series[g.count++] = &own_base;
        }
        g.series = series;
        g.baseline = compared ? &base : NULL;
        ok = bl__sample_group(run, &g);
        run->results[i].base = NULL; /* own_base is freed here; difference_to names the base */
        bl__free_result(&empty);
        bl__free_result(&base);
        bl__free_result(&own_base);
    }
    return ok ? 0 : bl__out_of_memory("measuring");
}

/* Step: print each benchmark's time record, then run and print its counter passes. */
static int bl__report_benchmarks(bl__run *run) {
    const bl__writer *w = &bl__writers[run->o.format];
    size_t i;
    int status = 0;
    BL__UNUSED uint64_t phase = 0;
    BL__PHASE_MARK(phase);
    for (i = 0; i < run->instance_count; i++) {
        if (run->counters.want_time) w->result(run->out, &run->o, &run->results[i]);
        fflush(run->out);
        if (run->counters.count && !bl__measure_counters(run, i)) status = bl__out_of_memory("counting");
    }
    bl__counters_close(&run->counters);
    BL__PHASE_ADD(output, phase);
    return status;
}

/* The one cleanup path: whatever the steps made, whichever step stopped. */
static int bl__finish(bl__run *run, int status) {
    size_t i;
    if (run->out && run->out != stdout && fclose(run->out) != 0 && status <= 0) {
        fprintf(stderr, "benchlab: --out could not write \"%s\": %s\n", run->o.out_path, strerror(errno));
        status = 1;
    }
    if (run->results)
        for (i = 0; i < run->instance_count; i++) bl__free_result(&run->results[i]);
    free(run->results);
    free(run->instances);
    free(BL__CAST(void *, run->targets));
    free(run->op_freqs);
    free(BL__CAST(void *, run->o.filters));
    return status < 0 ? 0 : status;
}

static int bl__main(int argc, char **argv, const char *dialect) __attribute__((noinline));
static int bl__main(int argc, char **argv, const char *dialect) {
    bl__run run;
    int status;
    BL__UNUSED uint64_t phase = 0;
    BL__PHASE_MARK(phase);
    memset(&run, 0, sizeof run);
    status = bl__parse_options(argc, argv, dialect, &run.o);
    if (!status) status = bl__check_program(&run);
    if (!status) status = bl__select(&run);
    if (!status) status = bl__check_selection(&run);
    if (!status) status = bl__list(&run);
    if (!status) status = bl__callgrind_setup(&run);
    if (!status) status = bl__open_output(&run);
    if (!status) status = bl__prepare(&run);
    if (!status) status = bl__measure_instructions(&run);
    if (!status) status = bl__measure_time(&run);
    if (!status) status = bl__report_benchmarks(&run);
    if (!status) status = bl__run_targets(&run);
    status = bl__finish(&run, status);
    BL__PHASE_ADD(main, phase);
    BL__PHASE_REPORT();
    return status;
}

/* BL_STACK_OFFSET=BYTES moves the stack of the whole run down by that many bytes (at
   most BL__MAX_STACK_OFFSET). Where the stack starts changes the alignment of every
   local variable, and with it figures, by a few percent (Mytkowicz et al., "Producing
   wrong data without doing anything obviously wrong!", ASPLOS 2009): `benchlab run
   --processes N` gives each process a different offset, so the figure it combines is
   not one layout's accident. */
static size_t bl__stack_offset(void) {
    const char *text = getenv("BL_STACK_OFFSET");
    uint64_t v = 0;
    if (!text || !bl__parse_u64(text, &v)) return 0;
    return v > BL__MAX_STACK_OFFSET ? BL__MAX_STACK_OFFSET : (size_t)v;
}

/* BL_RELEASE_CPUS=0,1,...: `benchlab run` starts each process on one CPU (taskset), a
   different one for each process of a run, so that a run meets every CPU's state (on
   this project's VM the two vCPUs' states differed by 35% for getpid and lasted
   seconds, so five processes that happened to start on one CPU all missed the other).
   The run stays where it started, as an idle scheduler leaves it, but the pin is
   released to these CPUs so that a child a body forks (IPC benchmarks) runs anywhere. */
static void bl__release_cpus(void) {
#if defined(__linux__) && defined(SYS_sched_setaffinity) && defined(SYS_getcpu)
    const char *list = getenv("BL_RELEASE_CPUS");
    unsigned long mask[16];
    unsigned cpu = 0;
    memset(mask, 0, sizeof mask);
    if (syscall(SYS_getcpu, &cpu, NULL, NULL) == 0) bl__start_cpu = (int)cpu;
    if (!list || !*list) return;
    while (*list) {
        char *end;
        unsigned long v = strtoul(list, &end, 10);
        if (end == list || v >= 16 * 8 * sizeof(unsigned long)) return; /* not a list of CPUs: leave it */
        mask[v / (8 * sizeof(unsigned long))] |= 1ul << (v % (8 * sizeof(unsigned long)));
        list = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return;
    }
    syscall(SYS_sched_setaffinity, 0, sizeof mask, mask);
#endif
}

BL__DEF int bl_main_as(int argc, char **argv, const char *dialect) {
    size_t offset = bl__stack_offset();
    volatile char *pad = BL__CAST(volatile char *, __builtin_alloca(offset + 1));
    pad[0] = 0; /* the pad is used, so it is kept */
    bl__stack_offset_used = offset;
    bl__release_cpus();
    return bl__main(argc, argv, dialect);
}

/* ======================================================================================
   OPTIONAL PARTS
   Called by the steps of bl_main (section I14). Each backend is one block, switched by
   the BL__HAVE_... of section I1: the real code under #if, one-line stubs under #else.
   ====================================================================================== */

/* ---- I15. Allocation tracking ---------------------------------------------------------------
   glibc has no malloc hooks any more (removed in 2.34), and we want `allocs` to work
   without relinking or LD_PRELOAD. So the header defines malloc, calloc, realloc, free,
   posix_memalign and aligned_alloc itself: a definition in the executable comes first
   in the dynamic linker's search order, so it also receives the calls libc and other
   libraries make. Each wrapper forwards to the next definition (dlsym(RTLD_NEXT): libc's,
   or jemalloc's when the program is linked with it). They are weak, so an allocator
   or sanitizer that defines malloc in the program itself wins and nothing clashes.
   Counting is off unless an allocation pass runs: the cost outside it is one
   predictable branch and one indirect call, as a PLT call already was.
   Compiled only where BL__ALLOC_HOOK (section I1) says so: glibc 2.34 or later, no
   sanitizer, no BL_NO_ALLOC_HOOK. Elsewhere the allocs and alloc-bytes counters say why
   not (BL__ALLOC_OFF), unless jemalloc counts the bytes (section I16). */

BL__DEF int bl__alloc_tracking; /* set only during an allocation pass */
BL__DEF BL__THREAD_LOCAL uint64_t bl__alloc_calls; /* per thread: the measured thread's own */
BL__DEF BL__THREAD_LOCAL uint64_t bl__alloc_bytes;
#ifdef BL_NO_ALLOC_HOOK
/* What a file built with BL_NO_ALLOC_HOOK and BENCHLAB_EXTERNAL_IMPLEMENTATION links to (I1). */
extern char bl__implementation_compiled_with_BL_NO_ALLOC_HOOK;
BL__DEF char bl__implementation_compiled_with_BL_NO_ALLOC_HOOK = 1;
#endif

#if BL__ALLOC_HOOK
#ifdef __cplusplus
#define BL__NOTHROW throw()
#else
#define BL__NOTHROW
#endif
typedef struct bl__allocator {
    void *(*malloc_fn)(size_t);
    void (*free_fn)(void *);
    void *(*calloc_fn)(size_t, size_t);
    void *(*realloc_fn)(void *, size_t);
    int (*posix_memalign_fn)(void **, size_t, size_t);
    void *(*aligned_alloc_fn)(size_t, size_t);
} bl__allocator;
BL__DEF bl__allocator bl__next_alloc;
BL__DEF int bl__alloc_resolving;
/* dlsym itself may allocate; those few early blocks come from here and are never freed. */
#define BL__ALLOC_BOOT_BYTES 16384
BL__DEF unsigned char bl__alloc_boot[BL__ALLOC_BOOT_BYTES] __attribute__((aligned(16)));
BL__DEF size_t bl__alloc_boot_used;

static void *bl__boot_alloc(size_t size) {
    size_t need = (size + 16 + 15) & ~(size_t)15;
    size_t at = __atomic_fetch_add(&bl__alloc_boot_used, need, __ATOMIC_RELAXED);
    if (at + need > sizeof bl__alloc_boot) return NULL;
    memcpy(bl__alloc_boot + at, &size, sizeof size); /* the size, for realloc */
    return bl__alloc_boot + at + 16;
}
static int bl__in_boot(const void *p) {
    return (const unsigned char *)p >= bl__alloc_boot && (const unsigned char *)p < bl__alloc_boot + sizeof bl__alloc_boot;
}
static void bl__alloc_sym(void *slot, const char *name) {
    void *sym = dlsym(BL__RTLD_NEXT, name);
    memcpy(slot, &sym, sizeof sym); /* ISO C has no object-to-function pointer cast */
}
static void bl__alloc_resolve(void) {
    bl__allocator a;
    __atomic_store_n(&bl__alloc_resolving, 1, __ATOMIC_RELAXED);
    bl__alloc_sym(&a.free_fn, "free");
    bl__alloc_sym(&a.calloc_fn, "calloc");
    bl__alloc_sym(&a.realloc_fn, "realloc");
    bl__alloc_sym(&a.posix_memalign_fn, "posix_memalign");
    bl__alloc_sym(&a.aligned_alloc_fn, "aligned_alloc");
    bl__alloc_sym(&a.malloc_fn, "malloc");
    if (!a.malloc_fn || !a.free_fn || !a.calloc_fn || !a.realloc_fn) abort();
    bl__next_alloc = a;
    __atomic_store_n(&bl__alloc_resolving, 0, __ATOMIC_RELAXED);
}
#define BL__COUNT_ALLOC(size)                                              \
    do {                                                                   \
        if (__builtin_expect(bl__alloc_tracking, 0)) {                     \
            bl__alloc_calls++;                                             \
            bl__alloc_bytes += (size);                                     \
        }                                                                  \
    } while (0)
#define BL__NEED_ALLOC(boot)                                               \
    do {                                                                   \
        if (__builtin_expect(!__atomic_load_n(&bl__next_alloc.malloc_fn, __ATOMIC_ACQUIRE), 0)) { \
            if (__atomic_load_n(&bl__alloc_resolving, __ATOMIC_RELAXED)) return boot; \
            bl__alloc_resolve();                                           \
        }                                                                  \
    } while (0)

__attribute__((weak)) void *malloc(size_t size) BL__NOTHROW {
    BL__COUNT_ALLOC(size);
    BL__NEED_ALLOC(bl__boot_alloc(size));
    return bl__next_alloc.malloc_fn(size);
}
__attribute__((weak)) void *calloc(size_t count, size_t size) BL__NOTHROW {
    BL__COUNT_ALLOC(count * size);
    BL__NEED_ALLOC(size && count > (size_t)-1 / size ? NULL : bl__boot_alloc(count * size)); /* static memory: already zero */
    return bl__next_alloc.calloc_fn(count, size);
}
__attribute__((weak)) void *realloc(void *p, size_t size) BL__NOTHROW {
    BL__COUNT_ALLOC(size);
    if (p && bl__in_boot(p)) {
        size_t old;
        void *q = malloc(size);
        memcpy(&old, (unsigned char *)p - 16, sizeof old);
        if (q) memcpy(q, p, old < size ? old : size);
        if (bl__alloc_tracking) { bl__alloc_calls--; bl__alloc_bytes -= size; } /* counted once */
        return q;
    }
    BL__NEED_ALLOC(bl__boot_alloc(size));
    return bl__next_alloc.realloc_fn(p, size);
}
__attribute__((weak)) void free(void *p) BL__NOTHROW {
    if (!p || bl__in_boot(p)) return;
    if (__builtin_expect(!__atomic_load_n(&bl__next_alloc.malloc_fn, __ATOMIC_ACQUIRE), 0)) {
        if (__atomic_load_n(&bl__alloc_resolving, __ATOMIC_RELAXED)) return; /* leak, once */
        bl__alloc_resolve();
    }
    bl__next_alloc.free_fn(p);
}
__attribute__((weak)) int posix_memalign(void **out, size_t align, size_t size) BL__NOTHROW {
    BL__COUNT_ALLOC(size);
    BL__NEED_ALLOC(ENOMEM);
    return bl__next_alloc.posix_memalign_fn(out, align, size);
}
__attribute__((weak)) void *aligned_alloc(size_t align, size_t size) BL__NOTHROW {
    BL__COUNT_ALLOC(size);
    BL__NEED_ALLOC(NULL);
    return bl__next_alloc.aligned_alloc_fn(align, size);
}

/* Is malloc really our wrapper? An allocator linked into the program defines its own,
   and its strong definition beats our weak one: then nothing is counted, and the counter
   must say so rather than report zero. One tracked allocation tells. */
static int bl__alloc_wrapper_active(void) {
    void *(*volatile m)(size_t) = malloc;
    void (*volatile f)(void *) = free;
    uint64_t before = bl__alloc_calls;
    void *p;
    bl__alloc_tracking = 1;
    p = m(24);
    bl__alloc_tracking = 0;
    f(p);
    return bl__alloc_calls == before + 1;
}
#else
static int bl__alloc_wrapper_active(void) { return 0; }
#endif

/* ---- I16. Counters and their passes -----------------------------------------------------------
   A counter is named as `perf list` names it (or as B63 named it) and parsed into a kind;
   the kind decides its backend (perf events, getrusage, the malloc wrappers or jemalloc,
   the TSC, a user's function) and its pass. Time is measured first and alone, in the
   rounds of section I10. Then each benchmark is rerun once per kind of counter, with
   only that kind switched on, at the iterations the time pass calibrated, so a counter's
   instrumentation never inflates the time and one kind never perturbs another (a perf
   group is read with one system call; counting allocations costs every malloc a
   branch). A counter the machine cannot count (no PMU in a VM, perf_event_paranoid,
   wasm32-wasi) is "not supported" with the reason, and the others run.
   docs/counters.md lists the names, their units and their passes. */

/* User counters (BL_COUNTER): a name, a unit and a function that reads the total. */
typedef struct bl__user_counter {
    const char *name, *unit;
    bl_counter_read_fn read;
} bl__user_counter;

BL__DEF bl__user_counter bl__user_counters[BL__MAX_USER_COUNTERS];
BL__DEF size_t bl__user_counter_count;
BL__DEF const char *bl__code_counters; /* from bl_set_counters() */

BL__DEF int bl__user_counter_overflow; /* reported by bl_main: constructors cannot fail */

/* BL_COUNTER's constructor calls this before main, where a failure has nobody to tell:
   a counter past the array's end is noted, and bl__choose_counters stops the run with a
   message, as it would for a bad name. */
BL__DEF void bl_counter_define(const char *name, const char *unit, bl_counter_read_fn read) {
    if (bl__user_counter_count == BL__MAX_USER_COUNTERS) bl__user_counter_overflow = 1;
    else {
        bl__user_counters[bl__user_counter_count].name = name;
        bl__user_counters[bl__user_counter_count].unit = unit;
        bl__user_counters[bl__user_counter_count].read = read;
        bl__user_counter_count++;
    }
}

/* Only remembered: parsed with --counters' rules when the run starts, and --counters wins. */
BL__DEF void bl_set_counters(const char *names) { bl__code_counters = names; }

/* -- Names ---------------------------------------------------------------------------------
   Each table maps a name to the number its backend needs, and a unit. The perf tables
   are perf_event_open(2)'s hardware and software events under perf's names (aliases
   included, as `perf list` shows them), so a name a user copies from `perf list` or
   `perf stat` works here. Software events are the kernel's own accounting and count in
   any VM; hardware events need a PMU, which many VMs do not expose. The unit is what a
   figure is "per iteration" of, in the record and the table. */

/* perf_event_attr's event types. */
#define BL__PERF_TYPE_HARDWARE 0
#define BL__PERF_TYPE_SOFTWARE 1
#define BL__PERF_TYPE_HW_CACHE 3
#define BL__PERF_TYPE_RAW 4

typedef struct bl__name_code { const char *name; uint32_t code; const char *unit; } bl__name_code;
static const bl__name_code bl__perf_hw_names[] = {
    {"cpu-cycles", 0, "cycles"}, {"instructions", 1, "instructions"}, {"cache-references", 2, "events"},
    {"cache-misses", 3, "events"}, {"branches", 4, "branches"}, {"branch-instructions", 4, "branches"},
    {"branch-misses", 5, "branches"}, {"bus-cycles", 6, "cycles"}, {"stalled-cycles-frontend", 7, "cycles"},
    {"idle-cycles-frontend", 7, "cycles"}, {"stalled-cycles-backend", 8, "cycles"},
    {"idle-cycles-backend", 8, "cycles"}, {"ref-cycles", 9, "cycles"}, {NULL, 0, NULL}};
static const bl__name_code bl__perf_sw_names[] = {
    {"cpu-clock", 0, "ns"}, {"task-clock", 1, "ns"}, {"page-faults", 2, "events"}, {"faults", 2, "events"},
    {"context-switches", 3, "events"}, {"cs", 3, "events"}, {"cpu-migrations", 4, "events"},
    {"migrations", 4, "events"}, {"minor-faults", 5, "events"}, {"major-faults", 6, "events"},
    {"alignment-faults", 7, "events"}, {"emulation-faults", 8, "events"}, {NULL, 0, NULL}};
/* Cache events are a cache and an operation with its result: config = cache | op << 8 |
   result << 16, with op read 0, write 1, prefetch 2 and result access 0, miss 1. */
static const bl__name_code bl__cache_names[] = {
    {"L1-dcache", 0, NULL}, {"L1-icache", 1, NULL}, {"LLC", 2, NULL}, {"dTLB", 3, NULL},
    {"iTLB", 4, NULL}, {"branch", 5, NULL}, {"node", 6, NULL}, {NULL, 0, NULL}};
static const bl__name_code bl__cache_ops[] = {
    {"-loads", 0x0, NULL}, {"-load-misses", 0x10000, NULL}, {"-stores", 0x100, NULL},
    {"-store-misses", 0x10100, NULL}, {"-prefetches", 0x200, NULL}, {"-prefetch-misses", 0x10200, NULL},
    {NULL, 0, NULL}};
/* getrusage's fields, and the allocation counters' sources: a counter's `which`, which
   its backend's read switches on. Every rusage field is a count of events except max
   RSS, a level (counter.level), reported as it stands after the sample. */
enum { BL__RUSAGE_MINOR_FAULTS, BL__RUSAGE_MAJOR_FAULTS, BL__RUSAGE_VOLUNTARY_CS, BL__RUSAGE_INVOLUNTARY_CS,
       BL__RUSAGE_MAX_RSS };
enum { BL__ALLOC_CALLS, BL__ALLOC_BYTES, BL__ALLOC_JEMALLOC };
static const bl__name_code bl__rusage_names[] = {
    {"rusage-minor-faults", BL__RUSAGE_MINOR_FAULTS, "faults"}, {"rusage-major-faults", BL__RUSAGE_MAJOR_FAULTS, "faults"},
    {"rusage-voluntary-cs", BL__RUSAGE_VOLUNTARY_CS, "switches"},
    {"rusage-involuntary-cs", BL__RUSAGE_INVOLUNTARY_CS, "switches"},
    {"rusage-max-rss", BL__RUSAGE_MAX_RSS, "KiB"}, {NULL, 0, NULL}};
static const bl__name_code bl__alloc_names[] = {
    {"allocs", BL__ALLOC_CALLS, "calls"}, {"alloc-bytes", BL__ALLOC_BYTES, "bytes"},
    {"jemalloc-allocated", BL__ALLOC_JEMALLOC, "bytes"}, {NULL, 0, NULL}};

/* The tables end with a NULL name; NULL when the name is not in the table. */
static const bl__name_code *bl__find_name(const bl__name_code *table, const char *name) {
    for (; table->name; table++)
        if (strcmp(table->name, name) == 0) return table;
    return NULL;
}

/* B63's counter names, accepted as aliases of ours (a B63 user's -c list or
   B63_RUN_WITH string works as --counters or bl_set_counters): its perf events are
   "lpe:" and perf's name or raw code, its jemalloc counter one name. The record is
   named as ours, so "cpu-cycles,lpe:cycles" is one counter. */
typedef struct bl__alias { const char *theirs, *ours; } bl__alias;
static const bl__alias bl__b63_names[] = {
    {"jemalloc_thread_allocated", "jemalloc-allocated"}, {"lpe:cycles", "cpu-cycles"}, {NULL, NULL}};

static int bl__parse_counter(const char *spec, bl__counter *c);

/* An alias of B63 (bl__b63_names, or "lpe:" and a perf event): 1 with c filled in as
   the counter it names, 0 for any other name. */
static int bl__parse_b63_counter(const char *spec, bl__counter *c) {
    const bl__alias *a;
    for (a = bl__b63_names; a->theirs; a++)
        if (strcmp(a->theirs, spec) == 0) return bl__parse_counter(a->ours, c);
    if (strncmp(spec, "lpe:", 4) != 0 || strchr(spec + 4, ':')) return 0;
    return bl__parse_counter(spec + 4, c) && (c->kind == BL__C_PERF_HW || c->kind == BL__C_PERF_SW);
}

/* The kind, unit and source of a counter we know by its name; 1, for the parsers. */
static int bl__set_kind(bl__counter *c, enum bl__ckind kind, const char *unit, const char *source) {
    c->kind = kind;
    c->unit = unit;
    c->source = source;
    return 1;
}
/* A perf event. Software events go to a pass of their own: in the hardware group they
   would share its fate when the PMU refuses it. */
static int bl__set_perf(bl__counter *c, uint32_t type, uint64_t config, const char *unit) {
    c->perf_type = type;
    c->perf_config = config;
    return bl__set_kind(c, type == BL__PERF_TYPE_SOFTWARE ? BL__C_PERF_SW : BL__C_PERF_HW, unit, "perf_event_open");
}

/* perf's modifiers: u (user only, our default: the kernel's work is not the benchmark's,
   and counting it needs perf_event_paranoid <= 1), k, uk. 0 for any other. */
static int bl__parse_modifier(const char *m, bl__counter *c) {
    if (strcmp(m, "u") == 0) c->exclude_kernel = 1;
    else if (strcmp(m, "k") == 0) { c->exclude_kernel = 0; c->exclude_user = 1; }
    else if (strcmp(m, "uk") == 0 || strcmp(m, "ku") == 0) c->exclude_kernel = 0;
    else return 0;
    return 1;
}

/* A perf event by its name: hardware, software, or cache. "cycles" is perf's only with a
   modifier; alone it is the TSC's (bl__parse_own_counter), which needs no PMU. */
static int bl__parse_perf_named(const char *name, int modified, bl__counter *c) {
    const bl__name_code *nc, *op;
    if ((nc = bl__find_name(bl__perf_hw_names, name)) != NULL)
        return bl__set_perf(c, BL__PERF_TYPE_HARDWARE, nc->code, nc->unit);
    if ((nc = bl__find_name(bl__perf_sw_names, name)) != NULL)
        return bl__set_perf(c, BL__PERF_TYPE_SOFTWARE, nc->code, nc->unit);
    for (nc = bl__cache_names; nc->name; nc++) {
        size_t n = strlen(nc->name);
        if (strncmp(name, nc->name, n) == 0 && (op = bl__find_name(bl__cache_ops, name + n)) != NULL)
            return bl__set_perf(c, BL__PERF_TYPE_HW_CACHE, nc->code | op->code, "events");
    }
    if (modified && strcmp(name, "cycles") == 0) {
        nc = bl__find_name(bl__perf_hw_names, "cpu-cycles");
        return bl__set_perf(c, BL__PERF_TYPE_HARDWARE, nc->code, nc->unit);
    }
    return 0;
}

/* A raw perf event, r<umask><event> in hex as perf writes it: at most 16 digits. */
static int bl__parse_perf_raw(const char *name, bl__counter *c) {
    uint64_t v = 0;
    size_t i;
    if (name[0] != 'r' || !name[1]) return 0;
    for (i = 1; name[i]; i++) {
        char ch = name[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
              : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (d < 0 || i > 16) return 0;
        v = v * 16 + (uint64_t)d;
    }
    return bl__set_perf(c, BL__PERF_TYPE_RAW, v, "events");
}

/* Our own names, which take no modifier: time, the TSC's cycles, getrusage's fields,
   the allocation counters, and the BL_COUNTERs (after the built-in names, so a
   BL_COUNTER cannot hide one). */
static int bl__parse_own_counter(const char *name, bl__counter *c) {
    const bl__name_code *nc;
    size_t i;
    if (strcmp(name, "time") == 0) return bl__set_kind(c, BL__C_TIME, "ns", "timer");
    if (strcmp(name, "cycles") == 0) {
        if (BL__HAVE_TSC) return bl__set_kind(c, BL__C_TSC, "cycles", "rdtsc (reference cycles at the TSC rate)");
        nc = bl__find_name(bl__perf_hw_names, "cpu-cycles");
        return bl__set_perf(c, BL__PERF_TYPE_HARDWARE, nc->code, nc->unit);
    }
    if ((nc = bl__find_name(bl__rusage_names, name)) != NULL) {
        c->which = (int)nc->code;
        c->level = nc->code == BL__RUSAGE_MAX_RSS;
        return bl__set_kind(c, BL__C_RUSAGE, nc->unit, "getrusage(RUSAGE_SELF)");
    }
    if ((nc = bl__find_name(bl__alloc_names, name)) != NULL) {
        c->which = (int)nc->code;
        return bl__set_kind(c, BL__C_ALLOC, nc->unit, "malloc wrapper");
    }
    for (i = 0; i < bl__user_counter_count; i++)
        if (strcmp(bl__user_counters[i].name, name) == 0) {
            c->which = (int)i;
            return bl__set_kind(c, BL__C_USER, bl__user_counters[i].unit, "user");
        }
    return 0;
}

/* Parse one counter name, with perf's modifier if any ("instructions:u"), into c.
   Returns 0 for a name we do not know. Named perf events come first, then our own
   names, then raw events, so a BL_COUNTER named r1 is the user's, not a raw event. */
static int bl__parse_counter(const char *spec, bl__counter *c) {
    char name[sizeof c->name];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (!strncmp(spec, "lpe:", 4) || !strcmp(spec, "jemalloc_thread_allocated")) return bl__parse_b63_counter(spec, c);
    if (len == 0 || len >= sizeof name) return 0;
    memcpy(name, spec, len);
    name[len] = 0;
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", spec);
    c->supported = 1;
    c->fd = -1;
    c->exclude_kernel = 1; /* user only unless a modifier says otherwise */
    if (colon && !bl__parse_modifier(colon + 1, c)) return 0;
    if (bl__parse_perf_named(name, colon != NULL, c)) return 1;
    if (!colon && bl__parse_own_counter(name, c)) return 1;
    return bl__parse_perf_raw(name, c);
}

/* Parse a comma-separated list ("rusage" expands to its five fields). Returns 0, or 2
   after printing the one-line error. `time` is not a counter of the set but a flag: the
   time pass always runs (the passes take their iterations from it), and `time` only
   says whether its record is printed. A name given twice is counted once, so lists
   that are joined from several places ("time,allocs" and "allocs") stay valid. */
static int bl__parse_counter_list(const char *list, const char *flag, bl__counter_set *set) {
    const char *p = list;
    memset(set, 0, sizeof *set);
    if (!*list) {
        fprintf(stderr, "benchlab: %s needs at least one counter name (got \"\")\n", flag);
        return 2;
    }
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char spec[64];
        bl__counter c;
        size_t i;
        if (len == 0 || len >= sizeof spec) {
            fprintf(stderr, "benchlab: %s must be a comma-separated list of counter names (got \"%s\")\n", flag, list);
            return 2;
        }
        memcpy(spec, p, len);
        spec[len] = 0;
        if (strcmp(spec, "rusage") == 0) {
            const bl__name_code *nc;
            for (nc = bl__rusage_names; nc->name; nc++) {
                if (set->count == BL__MAX_COUNTERS) break;
                bl__parse_counter(nc->name, &set->items[set->count++]);
            }
        } else if (!bl__parse_counter(spec, &c)) {
            fprintf(stderr, "benchlab: %s has no counter \"%s\" (perf event names, r<hex>, time, cycles, allocs, alloc-bytes, jemalloc-allocated, rusage[-...] or a BL_COUNTER; see docs/counters.md)\n", flag, spec);
            return 2;
        } else if (c.kind == BL__C_TIME) {
            set->want_time = 1;
        } else {
            for (i = 0; i < set->count; i++)
                if (strcmp(set->items[i].name, c.name) == 0) break;
            if (i == set->count) {
                if (set->count == BL__MAX_COUNTERS) {
                    fprintf(stderr, "benchlab: %s names more than %d counters\n", flag, BL__MAX_COUNTERS);
                    return 2;
                }
                set->items[set->count++] = c;
            }
        }
        p = comma ? comma + 1 : p + len;
    }
    return 0;
}

/* Step (part of bl__check_program): the run's counters: --counters, else the program's
   bl_set_counters(), else time alone. A name we do not know stops the run before anything
   runs, as a bad flag does. */
static int bl__choose_counters(bl__run *run) {
    const char *list = run->o.counters ? run->o.counters : bl__code_counters;
    int status = bl__parse_counter_list(list ? list : "time", run->o.counters ? "--counters" : "bl_set_counters()",
                                        &run->counters);
    if (status) return status;
    if (!list) run->counters.want_time = 1;
    if (bl__user_counter_overflow) {
        fprintf(stderr, "benchlab: more than %d user counters defined (BL_COUNTER); keep at most %d\n",
                BL__MAX_USER_COUNTERS, BL__MAX_USER_COUNTERS);
        return 2;
    }
    return 0;
}

/* -- Backends --------------------------------------------------------------------------------
   Each backend opens its counters (deciding, for each, supported or the reason not),
   reads a pass's values into a snapshot, and switches counting on and off. */

/* Values of every counter of a pass at one instant; for perf also the times the
   event was enabled and running (they differ when the PMU multiplexes). A figure is
   always the difference of two snapshots, so no backend needs to reset anything. */
typedef struct bl__snap {
    uint64_t v[BL__MAX_COUNTERS], enabled[BL__MAX_COUNTERS], running[BL__MAX_COUNTERS];
} bl__snap;

/* One pass: the supported counters of one kind, which are switched on together and
   read together. */
typedef struct bl__pass {
    const bl__counter_set *set;
    enum bl__ckind kind;
    size_t idx[BL__MAX_COUNTERS]; /* indices into set->items */
    size_t count;
} bl__pass;

/* A counter the machine cannot count: its record and table row give the reason. */
static void bl__refuse(bl__counter *c, const char *reason) {
    if (!reason) return;
    c->supported = 0;
    snprintf(c->reason, sizeof c->reason, "%s", reason);
}

/* perf events: perf_event_open, without <linux/perf_event.h>, whose bit-fields of __u64
   are a GCC extension that -std=c99 -pedantic rejects. The first 64 bytes of the
   attribute (PERF_ATTR_SIZE_VER0) are all we set; the kernel accepts that size. */
#if BL__HAVE_PERF
typedef struct bl__perf_attr {
    uint32_t type, size;
    uint64_t config, sample_period, sample_type, read_format;
    uint64_t flags;          /* bit 0 disabled, 4 exclude_user, 5 exclude_kernel, 6 exclude_hv */
    uint32_t wakeup_events, bp_type;
    uint64_t config1;
} bl__perf_attr;
/* read_format: each read brings the times the event was enabled and running, so that a
   multiplexed event can be scaled, and a leader's read brings its whole group. */
#define BL__PERF_FMT_ENABLED 1u
#define BL__PERF_FMT_RUNNING 2u
#define BL__PERF_FMT_GROUP 8u
/* PERF_EVENT_IOC_ENABLE and _DISABLE, applied through a leader to its whole group. */
#define BL__PERF_IOC_ENABLE 0x2400
#define BL__PERF_IOC_DISABLE 0x2401
#define BL__PERF_IOC_FLAG_GROUP 1
/* Bits of bl__perf_attr.flags. */
#define BL__PERF_DISABLED (1u << 0)
#define BL__PERF_EXCLUDE_USER (1u << 4)
#define BL__PERF_EXCLUDE_KERNEL (1u << 5)
#define BL__PERF_EXCLUDE_HV (1u << 6)
/* How long a group is enabled to see whether the PMU can schedule it at all. */
#define BL__PERF_GROUP_TRIAL_NS 1000000u

/* Why perf_event_open failed, in the words that say what to do about it. */
static const char *bl__perf_reason(int err, char *buf, size_t size) {
    int paranoid = -9;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) { if (fscanf(f, "%d", &paranoid) != 1) paranoid = -9; fclose(f); }
    if (err == ENOENT)
        snprintf(buf, size, "perf_event_open: ENOENT, this CPU or kernel has no such event (virtual machines often expose no hardware PMU)");
    else if (err == EACCES || err == EPERM)
        snprintf(buf, size, "perf_event_open: %s, perf_event_paranoid is %d (fix: sysctl kernel.perf_event_paranoid=1, or CAP_PERFMON)", err == EACCES ? "EACCES" : "EPERM", paranoid);
    else if (err == ENOSYS)
        snprintf(buf, size, "perf_event_open: ENOSYS, the kernel has no perf events or a seccomp filter blocks them");
    else if (err == EOPNOTSUPP)
        snprintf(buf, size, "perf_event_open: EOPNOTSUPP, the PMU cannot count this event with these settings");
    else if (err == EINVAL)
        snprintf(buf, size, "perf_event_open: EINVAL, the kernel rejected the event (a raw code this CPU does not know?)");
    else
        snprintf(buf, size, "perf_event_open: %s", strerror(err));
    return buf;
}

/* One event, for this thread on any CPU (pid 0, cpu -1): the benchmark runs on the thread
   that measures it, wherever the scheduler puts it. A hypervisor's work is never the
   benchmark's, so it is always excluded. Returns the fd, or -1 with errno. */
static int bl__perf_open(bl__counter *c, int group_fd) {
    bl__perf_attr a;
    memset(&a, 0, sizeof a);
    a.type = c->perf_type;
    a.size = sizeof a;
    a.config = c->perf_config;
    a.read_format = BL__PERF_FMT_ENABLED | BL__PERF_FMT_RUNNING | BL__PERF_FMT_GROUP;
    /* Opened disabled: counting starts when the pass starts, so the time pass and the
       other passes run without it. */
    a.flags = (group_fd < 0 ? BL__PERF_DISABLED : 0u) | (c->exclude_user ? BL__PERF_EXCLUDE_USER : 0u) |
              (c->exclude_kernel ? BL__PERF_EXCLUDE_KERNEL : 0u) | BL__PERF_EXCLUDE_HV;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group_fd, 0);
}

/* A group of n members read at once (PERF_FORMAT_GROUP): nr, time_enabled, time_running,
   value[nr]. One system call for the whole group, so the members' values are of the same
   instant and the pass pays for one read, not one per event. 0 when the read is short. */
static int bl__perf_read_group(int fd, size_t n, uint64_t *values, uint64_t *enabled, uint64_t *running) {
    uint64_t buf[3 + BL__MAX_COUNTERS];
    ssize_t got = read(fd, buf, sizeof buf);
    size_t i;
    if (got < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] != n) return 0;
    *enabled = buf[1];
    *running = buf[2];
    for (i = 0; i < n; i++) values[i] = buf[3 + i];
    return 1;
}

/* The event cannot count: its reason from the errno of its failed open. */
static void bl__perf_refuse(bl__counter *c, int err) {
    char buf[200];
    bl__refuse(c, bl__perf_reason(err, buf, sizeof buf));
}

/* A group with more events than the PMU has counters can never be scheduled: it would
   count nothing, ever. Try it for a millisecond; if it never ran, open its events
   alone, so the kernel multiplexes them one by one and we scale. */
static void bl__perf_check_group(bl__counter_set *set) {
    size_t i, n = 0;
    int leader = -1;
    uint64_t vals[BL__MAX_COUNTERS], en = 0, run = 0, t0;
    for (i = 0; i < set->count; i++) {
        bl__counter *c = &set->items[i];
        if (c->kind != BL__C_PERF_HW || c->fd < 0) continue;
        if (leader < 0) leader = c->fd;
        n += c->leader == leader;
    }
    if (n < 2) return;
    ioctl(leader, BL__PERF_IOC_ENABLE, BL__PERF_IOC_FLAG_GROUP);
    t0 = bl__clock_ns();
    while (bl__clock_ns() - t0 < BL__PERF_GROUP_TRIAL_NS) BL_CLOBBER();
    ioctl(leader, BL__PERF_IOC_DISABLE, BL__PERF_IOC_FLAG_GROUP);
    if (bl__perf_read_group(leader, n, vals, &en, &run) && run > 0) return;
    for (i = 0; i < set->count; i++) {
        bl__counter *c = &set->items[i];
        if (c->kind != BL__C_PERF_HW || c->fd < 0 || c->fd == leader || c->leader != leader) continue;
        close(c->fd);
        c->fd = c->leader = bl__perf_open(c, -1);
        if (c->fd < 0) bl__perf_refuse(c, errno);
    }
}

/* Opens counter i. Hardware events go into one group (counted together, so ratios
   between them are exact); software events into another: a software event in a
   hardware group would share its fate when the PMU is missing. */
static void bl__perf_open_counter(bl__counter_set *set, size_t i) {
    bl__counter *c = &set->items[i];
    int leader = -1;
    size_t j;
    for (j = 0; j < i; j++)
        if (set->items[j].kind == c->kind && set->items[j].fd >= 0) { leader = set->items[j].fd; break; }
    c->fd = bl__perf_open(c, leader);
    c->leader = c->fd >= 0 && leader >= 0 ? leader : c->fd;
    if (c->fd < 0 && leader >= 0) {
        /* The PMU may refuse the group but take the event alone; it is then
           multiplexed with the group and scaled. */
        int err = errno;
        c->fd = c->leader = bl__perf_open(c, -1);
        if (c->fd < 0) errno = err;
    }
    if (c->fd < 0) bl__perf_refuse(c, errno);
}

/* One read per group: a leader's read returns its members in the order they were
   opened, which is the order of the counter list. A failed read leaves the group's
   values 0 with enabled = running = 0, which bl__pass_sample makes NaN: no figure,
   rather than a false zero. */
static void bl__perf_read(const bl__pass *p, bl__snap *s) {
    const bl__counter_set *set = p->set;
    size_t j, k;
    for (j = 0; j < p->count; j++) {
        const bl__counter *c = &set->items[p->idx[j]];
        uint64_t vals[BL__MAX_COUNTERS], en = 0, run = 0;
        size_t n = 0, at = 0;
        if (c->leader != c->fd) continue; /* read with its leader */
        for (k = 0; k < p->count; k++) n += set->items[p->idx[k]].leader == c->fd;
        if (!bl__perf_read_group(c->fd, n, vals, &en, &run)) en = run = 0;
        for (k = 0; k < p->count; k++)
            if (set->items[p->idx[k]].leader == c->fd) {
                s->v[k] = run ? vals[at] : 0;
                s->enabled[k] = en;
                s->running[k] = run;
                at++;
            }
    }
}

/* A group is switched through its leader, all members at once. */
static void bl__perf_switch(const bl__pass *p, int on) {
    size_t j;
    for (j = 0; j < p->count; j++) {
        const bl__counter *c = &p->set->items[p->idx[j]];
        if (c->fd >= 0 && c->leader == c->fd)
            ioctl(c->fd, on ? BL__PERF_IOC_ENABLE : BL__PERF_IOC_DISABLE, BL__PERF_IOC_FLAG_GROUP);
    }
}

static void bl__perf_close(bl__counter_set *set) {
    size_t i;
    for (i = 0; i < set->count; i++)
        if (set->items[i].fd >= 0) { close(set->items[i].fd); set->items[i].fd = -1; }
}
#else
#if defined(__wasi__)
#define BL__NO_PERF "perf events are not available on wasm32-wasi"
#else
#define BL__NO_PERF "perf events need Linux (perf_event_open)"
#endif
static void bl__perf_open_counter(bl__counter_set *set, size_t i) { bl__refuse(&set->items[i], BL__NO_PERF); }
static void bl__perf_check_group(bl__counter_set *set) { (void)set; }
static void bl__perf_read(const bl__pass *p, bl__snap *s) { (void)p; (void)s; }
static void bl__perf_switch(const bl__pass *p, int on) { (void)p; (void)on; }
static void bl__perf_close(bl__counter_set *set) { (void)set; }
#endif

/* getrusage: the process's page faults, context switches and peak memory. The kernel
   keeps these for every process, so they work where perf events do not (a VM without a
   PMU, perf_event_paranoid at 3); max RSS is a level, reported as is (counter.level). */
#if BL__HAVE_RUSAGE
#define BL__NO_RUSAGE NULL
static uint64_t bl__rusage_field(const struct rusage *ru, int which) {
    switch (which) {
    case BL__RUSAGE_MINOR_FAULTS: return (uint64_t)ru->ru_minflt;
    case BL__RUSAGE_MAJOR_FAULTS: return (uint64_t)ru->ru_majflt;
    case BL__RUSAGE_VOLUNTARY_CS: return (uint64_t)ru->ru_nvcsw;
    case BL__RUSAGE_INVOLUNTARY_CS: return (uint64_t)ru->ru_nivcsw;
    default: return (uint64_t)ru->ru_maxrss;
    }
}
static void bl__rusage_read(const bl__pass *p, bl__snap *s) {
    struct rusage ru;
    size_t j;
    getrusage(RUSAGE_SELF, &ru);
    for (j = 0; j < p->count; j++) s->v[j] = bl__rusage_field(&ru, p->set->items[p->idx[j]].which);
}
#else
#define BL__NO_RUSAGE "getrusage is not available on wasm32-wasi"
static void bl__rusage_read(const bl__pass *p, bl__snap *s) { (void)p; (void)s; }
#endif

/* jemalloc: its count of the bytes this thread allocated ("thread.allocated"), for
   jemalloc-allocated, and for alloc-bytes where the malloc wrapper does not count. */
enum { BL__JEMALLOC_ABSENT, BL__JEMALLOC_NO_STATS, BL__JEMALLOC_OK };
#if BL__HAVE_MALLCTL
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) __attribute__((weak));
static uint64_t bl__jemalloc_allocated(void) {
    uint64_t v = 0;
    size_t len = sizeof v;
    if (mallctl) mallctl("thread.allocated", &v, &len, NULL, 0);
    return v;
}
/* Linked without statistics is told apart from not linked: the fixes differ (rebuild
   jemalloc with --enable-stats; link it). */
static int bl__jemalloc_state(void) {
    uint64_t v;
    size_t len = sizeof v;
    if (!mallctl) return BL__JEMALLOC_ABSENT;
    return mallctl("thread.allocated", &v, &len, NULL, 0) == 0 ? BL__JEMALLOC_OK : BL__JEMALLOC_NO_STATS;
}
#else
static uint64_t bl__jemalloc_allocated(void) { return 0; }
static int bl__jemalloc_state(void) { return BL__JEMALLOC_ABSENT; }
#endif

/* Allocations: calls and bytes from the malloc wrappers (section I15), or bytes from
   jemalloc, which counts them where the wrappers cannot (an allocator linked into the
   program, a sanitizer). `wrapper`: bl__alloc_wrapper_active(). */
static void bl__alloc_open(bl__counter *c, int wrapper) {
    int jemalloc;
    if (c->which == BL__ALLOC_CALLS || (c->which == BL__ALLOC_BYTES && wrapper)) {
        if (!wrapper) bl__refuse(c, BL__ALLOC_OFF);
        return;
    }
    jemalloc = bl__jemalloc_state();
    if (jemalloc == BL__JEMALLOC_OK) {
        c->source = "jemalloc thread.allocated";
        c->which = BL__ALLOC_JEMALLOC;
    } else if (jemalloc == BL__JEMALLOC_NO_STATS) {
        bl__refuse(c, "jemalloc has no thread.allocated (built without --enable-stats?)");
    } else {
        bl__refuse(c, c->which == BL__ALLOC_JEMALLOC ? "the program is not linked with jemalloc (mallctl not found)"
                                                     : BL__ALLOC_OFF);
    }
}
/* The wrappers count per thread (BL__THREAD_LOCAL), so a pass counts the allocations of
   the thread that runs the body, not those of threads it left running; jemalloc's
   thread.allocated is per thread too. */
static void bl__alloc_read(const bl__pass *p, bl__snap *s) {
    size_t j;
    for (j = 0; j < p->count; j++) {
        int w = p->set->items[p->idx[j]].which;
        s->v[j] = w == BL__ALLOC_CALLS ? bl__alloc_calls : w == BL__ALLOC_BYTES ? bl__alloc_bytes : bl__jemalloc_allocated();
    }
}

/* A BL_COUNTER's total, read through the user's function: the pass takes differences,
   so the function need only return a running count. */
static void bl__user_read(const bl__pass *p, bl__snap *s) {
    size_t j;
    for (j = 0; j < p->count; j++) s->v[j] = bl__user_counters[p->set->items[p->idx[j]].which].read();
}

/* -- What the passes call: each dispatches on the kind to its backend ---------------------- */

/* Open what the counters need and decide, for each, whether it is supported and why
   not. Called once before any measurement, so an event the PMU refuses costs one failed
   open, not one per benchmark; the malloc wrapper is probed once for all alloc counters. */
static void bl__counters_open(bl__counter_set *set) {
    int wrapper = bl__alloc_wrapper_active();
    size_t i;
    for (i = 0; i < set->count; i++) {
        bl__counter *c = &set->items[i];
        switch (c->kind) {
        case BL__C_RUSAGE: bl__refuse(c, BL__NO_RUSAGE); break;
        case BL__C_ALLOC: bl__alloc_open(c, wrapper); break;
        case BL__C_PERF_HW:
        case BL__C_PERF_SW: bl__perf_open_counter(set, i); break;
        default: break; /* time, the TSC and user counters: nothing to open */
        }
    }
    bl__perf_check_group(set);
}

/* After the last pass: only perf events hold anything (their file descriptors). */
static void bl__counters_close(bl__counter_set *set) { bl__perf_close(set); }

/* Step (part of bl__prepare): open the counters, and say once on stderr which cannot
   count (their records say it again, for each benchmark). */
static void bl__open_counters(bl__run *run) {
    size_t i;
    if (!run->counters.count || !run->instance_count) return;
    bl__counters_open(&run->counters);
    for (i = 0; i < run->counters.count; i++)
        if (!run->counters.items[i].supported)
            fprintf(stderr, "benchlab: counter %s not supported: %s\n", run->counters.items[i].name, run->counters.items[i].reason);
}

/* A snapshot of the pass's counters: before and after each sample, and around each
   BL_SUSPEND block inside it. The TSC is read with fences, as the time pass reads it. */
static void bl__pass_read(const bl__pass *p, bl__snap *s) {
    switch (p->kind) {
    case BL__C_TSC: s->v[0] = bl__rdtsc(); break;
    case BL__C_PERF_HW:
    case BL__C_PERF_SW: bl__perf_read(p, s); break;
    case BL__C_RUSAGE: bl__rusage_read(p, s); break;
    case BL__C_ALLOC: bl__alloc_read(p, s); break;
    case BL__C_USER: bl__user_read(p, s); break;
    default: break;
    }
}

/* Counting is switched on only for its own pass: the malloc wrappers count nothing, and
   perf events run nowhere, outside it. */
static void bl__pass_switch(const bl__pass *p, int on) {
    if (p->kind == BL__C_ALLOC) __atomic_store_n(&bl__alloc_tracking, on, __ATOMIC_RELAXED);
    if (p->kind == BL__C_PERF_HW || p->kind == BL__C_PERF_SW) bl__perf_switch(p, on);
}

/* -- The passes ------------------------------------------------------------------------------
   Each pass reruns one benchmark with one kind of counter switched on, at the iteration
   count the time pass calibrated, for --samples samples (without it, as many as the time
   pass took) within the time limit, stopped by the time pass's rule (bl__stop_reason);
   with a baseline, in alternating pairs (AB, BA, ...), so every counter gets its ratio
   too. Passes keep this scheme of their own: a counter's figure does not drift with the
   machine as time does. */

/* A pass's state while a sample runs: what its BL_SUSPEND blocks counted, to take out
   of the sample, as the time pass takes out their time (section I8). */
struct bl__pass_state {
    const bl__pass *pass;
    bl__snap paused_at, suspended;
};
static void bl__pass_pause(bl__pass_state *ps) { bl__pass_read(ps->pass, &ps->paused_at); }
static void bl__pass_resume(bl__pass_state *ps) {
    bl__snap now;
    size_t j;
    bl__pass_read(ps->pass, &now);
    for (j = 0; j < ps->pass->count; j++) {
        ps->suspended.v[j] += now.v[j] - ps->paused_at.v[j];
        ps->suspended.enabled[j] += now.enabled[j] - ps->paused_at.enabled[j];
        ps->suspended.running[j] += now.running[j] - ps->paused_at.running[j];
    }
}

/* One sample: per-iteration values of each counter of the pass (NaN when a perf event
   never ran during it: no figure is better than a false zero), and the share of the
   sample each was counted for (below 1 when the PMU multiplexed it). What BL_SUSPEND
   blocks counted is taken out, as their time is in the time pass; a perf event counted
   part of the time is scaled to the whole; a level is its value after the sample. */
static void bl__pass_sample(const bl__pass *p, bl_body_fn body, uint64_t n, int64_t arg,
                            double *value, double *running) {
    bl_state st;
    bl__pass_state ps;
    bl__snap a, b;
    size_t j;
    memset(&st, 0, sizeof st);
    memset(&ps, 0, sizeof ps);
    ps.pass = p;
    st.pass = &ps;
    bl__pass_read(p, &a);
    body(&st, n, arg);
    bl__pass_read(p, &b);
    for (j = 0; j < p->count; j++) {
        const bl__counter *c = &p->set->items[p->idx[j]];
        double d = (double)(b.v[j] - a.v[j]) - (double)ps.suspended.v[j];
        running[j] = 1;
        if (c->level) { value[j] = (double)b.v[j]; continue; }
        if (c->kind == BL__C_PERF_HW || c->kind == BL__C_PERF_SW) {
            double en = (double)(b.enabled[j] - a.enabled[j]) - (double)ps.suspended.enabled[j];
            double run = (double)(b.running[j] - a.running[j]) - (double)ps.suspended.running[j];
            if (!(run > 0) || !(en > 0)) { value[j] = bl__nan(); running[j] = 0; continue; }
            /* Counted only part of the time: scale to the whole, as perf stat does. */
            if (run < en) { d *= en / run; running[j] = run / en; }
        }
        value[j] = d / (double)n;
    }
}

/* What a pass reruns: the benchmark at the iterations the time pass calibrated, as many
   samples as it took, within the time limit; and the baseline, when it is compared. The
   same n as the time pass, so a counter's figure per iteration is of the very loop the
   time figure is (an instruction count and a time of different loop lengths would
   differ by the loop's fixed costs spread differently). */
typedef struct bl__rerun {
    bl_body_fn body, base_body; /* base_body: NULL when not compared */
    int64_t arg;
    uint64_t iterations, base_iterations;
    size_t samples;
    double time_limit_s;
    int exact;                        /* exactly `samples`: the time limit does not stop it */
    const uint64_t *epoch_iterations; /* B63's epochs: sample i at the time pass's epoch i's */
    size_t epoch_count;
} bl__rerun;

/* Room for every sample of each counter of the pass, and the baseline's. 0: out of memory. */
static int bl__pass_reserve(const bl__pass *p, const bl__rerun *q, bl__result *res) {
    size_t j, room = q->samples ? q->samples : 1;
    for (j = 0; j < p->count; j++) {
        if (!bl__reserve(&res[j], room, 0, 0)) return 0;
        if (q->base_body) {
            res[j].baseline_samples = BL__CAST(double *, calloc(room, sizeof(double)));
            if (!res[j].baseline_samples) return 0;
        }
    }
    return 1;
}

/* bl__pass_sample of the benchmark itself, adding its wall time (BL_SUSPEND blocks
   included) to *spent_ns: what the stop rule counts. Read on the time pass's timer, as
   bl__sample_ns reads it, but outside the counter reads: a timer read inside them would be
   counted (its instructions, its cycles) in every sample's figure. */
static void bl__pass_own_sample(const bl__pass *p, const bl__rerun *q, uint64_t n, double *value, double *running,
                                double *spent_ns) {
    uint64_t start = bl__now();
    bl__pass_sample(p, q->body, n, q->arg, value, running);
    *spent_ns += (double)(bl__now() - start) * bl__clock.ns_per_tick;
}

/* The samples, in pairs with the baseline whose order alternates (AB, BA, ...), so that
   neither always runs warm from the other, until the stop rule (bl__stop_reason) says why
   they end: the count asked for, or the time limit. Its time counts the benchmark's samples
   only, as the time pass's does: counting the baseline's and the warm-up too gave a
   compared benchmark about 60% of the samples --samples asked for (examples/baseline.c at
   --samples=50: 20-22 of the time pass's 30). Adds each counter's running share to
   run_sum; returns the number of samples, and the rule's reason in *stopped. */
static size_t bl__pass_rounds(const bl__pass *p, const bl__rerun *q, uint64_t *rng, bl__result *res,
                              double *run_sum, const char **stopped) {
    double va[BL__MAX_COUNTERS], vb[BL__MAX_COUNTERS], ra[BL__MAX_COUNTERS], rb[BL__MAX_COUNTERS], spent = 0;
    size_t j, count = 0;
    while (!(*stopped = bl__stop_reason(count, q->samples, q->exact ? 0 : spent, q->time_limit_s, 0))) {
        uint64_t n, nb = 0;
        n = count < q->epoch_count ? q->epoch_iterations[count] : bl__jitter(q->iterations, rng);
        if (q->base_body) {
            nb = bl__jitter(q->base_iterations, rng);
            if (count % 2 == 0) {
                bl__pass_own_sample(p, q, n, va, ra, &spent);
                bl__pass_sample(p, q->base_body, nb, 0, vb, rb);
            } else {
                bl__pass_sample(p, q->base_body, nb, 0, vb, rb);
                bl__pass_own_sample(p, q, n, va, ra, &spent);
            }
        } else {
            bl__pass_own_sample(p, q, n, va, ra, &spent);
        }
        for (j = 0; j < p->count; j++) {
            res[j].samples[count] = va[j];
            res[j].sample_iterations[count] = n;
            if (q->base_body) res[j].baseline_samples[count] = vb[j];
            run_sum[j] += ra[j];
        }
        count++;
    }
    return count;
}

/* One counter's figures from the `count` samples of its pass. Only rounds whose figures
   are all finite are kept: a perf event that never ran during a sample gives NaN, which
   no statistic may see. Counters are not corrected for the harness, so the figures as
   measured are the reported ones. */
static void bl__pass_figures(bl__result *r, size_t count, double run_sum, const bl__rerun *q, const char *stopped) {
    int paired = q->base_body != NULL;
    size_t i, kept = 0;
    for (i = 0; i < count; i++) {
        int finite = r->samples[i] == r->samples[i] && (!paired || r->baseline_samples[i] == r->baseline_samples[i]);
        if (!finite) continue;
        r->samples[kept] = r->samples[i];
        r->sample_iterations[kept] = r->sample_iterations[i];
        if (paired) r->baseline_samples[kept] = r->baseline_samples[i];
        kept++;
    }
    r->count = kept;
    r->running_fraction = count ? run_sum / (double)count : 0;
    r->iterations = q->iterations;
    r->stopped = stopped;
    if (kept == 0) {
        r->problem = "the event never ran during a sample: the PMU gave its counters to other events (fewer events at once may help)";
        return;
    }
    bl_compute_stats(r->samples, kept, &r->stats);
    r->raw = r->stats;
    if (paired) {
        bl_stats base_stats;
        bl_compute_stats(r->baseline_samples, kept, &base_stats);
        if (base_stats.median_ci_low > 0) {
            bl_ratio_ci(r->samples, r->baseline_samples, kept, &r->ratio, &r->ratio_low, &r->ratio_high);
            r->ratio_of_medians = r->stats.median / base_stats.median;
        } else {
            r->ratio = r->ratio_low = r->ratio_high = r->ratio_of_medians = bl__nan();
        }
    }
}

/* One pass: its kind switched on, a warm-up sample after the switch (not kept, as the
   time pass keeps none of calibration's), the samples, its kind switched off, each
   counter's figures. 0: out of memory. */
static int bl__measure_pass(const bl__pass *p, const bl__rerun *q, uint64_t *rng, bl__result *res) {
    double run_sum[BL__MAX_COUNTERS], warm[BL__MAX_COUNTERS], warm_running[BL__MAX_COUNTERS];
    const char *stopped;
    size_t j, count;
    for (j = 0; j < p->count; j++) run_sum[j] = 0;
    if (!bl__pass_reserve(p, q, res)) return 0;
    bl__pass_switch(p, 1);
    bl__pass_sample(p, q->body, q->iterations, q->arg, warm, warm_running);
    count = bl__pass_rounds(p, q, rng, res, run_sum, &stopped);
    bl__pass_switch(p, 0);
    for (j = 0; j < p->count; j++) bl__pass_figures(&res[j], count, run_sum[j], q, stopped);
    return 1;
}

/* Every pass of one instance, one per kind its supported counters have; the results in
   `results` in the order of the counter list. 0: out of memory. */
static int bl__count_instance(bl__run *run, size_t index, bl__result *results) {
    const bl__counter_set *set = &run->counters;
    const bl__result *time = &run->results[index];
    const bl__instance *in = &run->instances[index];
    int compared = run->baseline && index > 0, kind, ok = 1;
    bl__rerun q;
    size_t i, j;
    q.body = in->bench->body;
    q.arg = bl__param(in);
    q.iterations = time->iterations;
    q.base_body = compared ? run->baseline->body : NULL;
    q.base_iterations = time->baseline_iterations;
    /* --samples asks every pass for that many; else as many as the time pass took (its
       precision stop decided how many the figure needs), left out rounds included. */
    q.samples = run->o.samples_given ? run->o.samples : time->count + time->left_out;
    q.time_limit_s = run->o.time_limit_s;
    q.exact = run->o.exact_samples;
    q.epoch_iterations = run->o.epochs ? time->sample_iterations : NULL;
    q.epoch_count = run->o.epochs ? time->count : 0;
    for (kind = BL__C_TSC; kind < BL__C_KINDS; kind++) {
        bl__pass p;
        bl__result pass_results[BL__MAX_COUNTERS];
        memset(&p, 0, sizeof p);
        p.set = set;
        p.kind = (enum bl__ckind)kind;
        for (i = 0; i < set->count; i++)
            if ((int)set->items[i].kind == kind && set->items[i].supported) p.idx[p.count++] = i;
        if (!p.count) continue;
        memset(pass_results, 0, sizeof pass_results);
        if (!bl__measure_pass(&p, &q, &run->rng, pass_results)) ok = 0;
        for (j = 0; j < p.count; j++) {
            pass_results[j].instance = in;
            pass_results[j].counter = &set->items[p.idx[j]];
            pass_results[j].compared_to = compared ? run->baseline->name : NULL;
            results[p.idx[j]] = pass_results[j];
        }
    }
    return ok;
}

/* Step (after each benchmark's time record): its counter passes, then their records in
   the order of the counter list, a counter that gave no figure with its reason. */
static int bl__measure_counters(bl__run *run, size_t index) {
    const bl__writer *w = &bl__writers[run->o.format];
    const bl__instance *in = &run->instances[index];
    bl__result results[BL__MAX_COUNTERS];
    size_t i;
    int ok;
    memset(results, 0, sizeof results);
    ok = bl__count_instance(run, index, results);
    for (i = 0; i < run->counters.count; i++) {
        const bl__counter *c = &run->counters.items[i];
        const char *problem = !c->supported ? c->reason : results[i].problem;
        if (problem && w->unsupported) w->unsupported(run->out, in, c, problem);
        else if (!problem && results[i].samples) w->result(run->out, &run->o, &results[i]);
        bl__free_result(&results[i]);
    }
    fflush(run->out);
    return ok;
}

/* ---- I17. Threaded mode ----------------------------------------------------------------------
   CSB's model (section 8 of the manual): -t threads call a target's operations in a
   random mix for -d seconds. Each worker counts its own operations and times a sample
   of them into a histogram of its own, so no two threads write to one cache line while
   they run; the statistics are merged after the joins. The threads are one block
   (BL__HAVE_THREADS); without them, on wasm32-wasi, a target's record says why. */

/* -- Latency histogram -----------------------------------------------------------------------
   Log-linear buckets, as HdrHistogram: values below 64 ticks have a bucket each; above,
   every power of two [2^e, 2^(e+1)) is cut into 32 equal buckets. A bucket's width is
   then at most 1/32 of its lower bound, and reporting its midpoint is off by at most
   1/64 (1.6%) of the true value, at any magnitude. 1920 buckets cover all of uint64. */
/* BL__HIST_SUB buckets per power of two, 2^BL__HIST_SUB_BITS (the compiler checks it;
   the number is written out for docs/formats.md's error bound, which a test reads);
   below 2^BL__HIST_LINEAR_BITS, one bucket per value. */
#define BL__HIST_SUB 32
#define BL__HIST_SUB_BITS 5
#define BL__HIST_LINEAR_BITS (BL__HIST_SUB_BITS + 1)
#define BL__HIST_LINEAR (1 << BL__HIST_LINEAR_BITS)
typedef char bl__hist_sub_is_2_to_its_bits[BL__HIST_SUB == 1 << BL__HIST_SUB_BITS ? 1 : -1];
#define BL__HIST_BUCKETS (BL__HIST_LINEAR + (64 - BL__HIST_LINEAR_BITS) * BL__HIST_SUB)
#define BL__HIST_MAX_ERROR (1.0 / (2.0 * BL__HIST_SUB))

static inline unsigned bl__hist_index(uint64_t v) {
    unsigned e;
    if (v < BL__HIST_LINEAR) return (unsigned)v;
    e = 63u - (unsigned)__builtin_clzll(v); /* >= BL__HIST_LINEAR_BITS */
    return BL__HIST_LINEAR + (e - BL__HIST_LINEAR_BITS) * BL__HIST_SUB +
           (unsigned)((v >> (e - BL__HIST_SUB_BITS)) - BL__HIST_SUB);
}
static uint64_t bl__hist_low(unsigned i) {
    unsigned e, sub;
    if (i < BL__HIST_LINEAR) return i;
    e = BL__HIST_LINEAR_BITS + (i - BL__HIST_LINEAR) / BL__HIST_SUB;
    sub = (i - BL__HIST_LINEAR) % BL__HIST_SUB;
    return (uint64_t)(BL__HIST_SUB + sub) << (e - BL__HIST_SUB_BITS);
}
static uint64_t bl__hist_high(unsigned i) { /* inclusive */
    unsigned e;
    if (i < BL__HIST_LINEAR) return i;
    e = BL__HIST_LINEAR_BITS + (i - BL__HIST_LINEAR) / BL__HIST_SUB;
    return bl__hist_low(i) + (((uint64_t)1 << (e - BL__HIST_SUB_BITS)) - 1u);
}
static double bl__hist_mid(unsigned i) {
    return ((double)bl__hist_low(i) + (double)bl__hist_high(i)) / 2;
}
/* Nearest-rank quantile (the value at rank ceil(p*count)), as HdrHistogram reports it;
   the bucket's midpoint, kept inside the exact [min, max]. */
static double bl__hist_quantile(const uint64_t *h, uint64_t count, double p, uint64_t min, uint64_t max) {
    uint64_t rank = (uint64_t)(p * (double)count), seen = 0;
    unsigned i;
    double v;
    if (count == 0) return 0;
    if ((double)rank < p * (double)count) rank++;
    if (rank < 1) rank = 1;
    for (i = 0; i < BL__HIST_BUCKETS; i++) {
        seen += h[i];
        if (seen >= rank) break;
    }
    if (i == BL__HIST_BUCKETS) i--;
    v = bl__hist_mid(i);
    if (v < (double)min) v = (double)min;
    if (v > (double)max) v = (double)max;
    return v;
}

/* -- CSB's histogram ---------------------------------------------------------------------
   The csb line's buckets are CSB's own (its bm_stats.h): 60 of them, bucket 0 holding
   latencies up to 99 ticks, each next one 1.1 times wider than the one before, the last
   one also holding everything beyond. Each timed operation is counted in them when it is
   timed, with CSB's comparison (latency <= bound), so the csb line's buckets are exact,
   not read back from the log-linear histogram, whose buckets straddle CSB's bounds. */
#define BL__CSB_BUCKETS 60
#define BL__CSB_FIRST_BOUND 99
#define BL__CSB_GROWTH 1.1

/* CSB's upper bounds (inclusive), with its arithmetic: the next bound is the last one
   plus 1.1 times the last bucket's width, added in double and truncated. */
static void bl__csb_bounds(uint64_t *bound) {
    uint64_t low = 0, high = BL__CSB_FIRST_BOUND;
    unsigned i;
    for (i = 0; i < BL__CSB_BUCKETS; i++) {
        uint64_t next = (uint64_t)((double)high + (double)(high - low + 1) * BL__CSB_GROWTH);
        bound[i] = high;
        low = high + 1;
        high = next;
    }
}

/* A latency in ns as the csb line prints it under --csb-unit=ns: rounded to a whole ns. */
static uint64_t bl__csb_ns_of(uint64_t ticks, double ns_per_tick) {
    return (uint64_t)((double)ticks * ns_per_tick + 0.5);
}

/* The run's bounds in timer ticks, which the workers compare latencies with. In ticks
   (CSB's unit), CSB's bounds; in ns, the most ticks that print as at most the bound, so
   every latency lands in the bucket of the ns value the line says. */
BL__UNUSED static void bl__csb_tick_bounds(uint64_t *bound, int in_ns, double ns_per_tick) {
    unsigned i;
    bl__csb_bounds(bound);
    for (i = 0; in_ns && i < BL__CSB_BUCKETS; i++) {
        uint64_t b = bound[i], t = (uint64_t)(((double)b + 0.5) / ns_per_tick);
        while (t > 0 && bl__csb_ns_of(t, ns_per_tick) > b) t--;
        while (bl__csb_ns_of(t + 1, ns_per_tick) <= b) t++;
        bound[i] = t;
    }
}

static inline unsigned bl__csb_bucket(uint64_t ticks, const uint64_t *bound) {
    unsigned b = 0;
    while (b < BL__CSB_BUCKETS - 1 && ticks > bound[b]) b++; /* CSB's search: cheap ones exit first */
    return b;
}

typedef struct bl__opstats {
    uint64_t count, succ, skipped, timed, sum, min, max; /* sum, min, max over the timed */
    uint64_t hist[BL__HIST_BUCKETS];
    uint64_t csb[BL__CSB_BUCKETS];                       /* the timed ones in CSB's buckets */
} bl__opstats;

static void bl__opstats_init(bl__opstats *s) {
    memset(s, 0, sizeof *s);
    s->min = UINT64_MAX;
}
static inline void bl__opstats_count(bl__opstats *s, int result) {
    s->count++;
    s->succ += result > 0;
    s->skipped += result < 0;
}
static inline void bl__opstats_add(bl__opstats *s, int result, uint64_t ticks, const uint64_t *csb_bound) {
    bl__opstats_count(s, result);
    s->csb[bl__csb_bucket(ticks, csb_bound)]++;
    s->timed++;
    s->sum += ticks;
    if (ticks < s->min) s->min = ticks;
    if (ticks > s->max) s->max = ticks;
    s->hist[bl__hist_index(ticks)]++;
}
BL__UNUSED static void bl__opstats_merge(bl__opstats *into, const bl__opstats *s) {
    unsigned i;
    into->count += s->count;
    into->succ += s->succ;
    into->skipped += s->skipped;
    into->timed += s->timed;
    into->sum += s->sum;
    if (s->min < into->min) into->min = s->min;
    if (s->max > into->max) into->max = s->max;
    for (i = 0; i < BL__HIST_BUCKETS; i++) into->hist[i] += s->hist[i];
    for (i = 0; i < BL__CSB_BUCKETS; i++) into->csb[i] += s->csb[i];
}

/* -- The operations and the run of one target ------------------------------------------------ */

/* The frequencies of a target's operations: as given (all -opK=F must sum to
   BL__OP_SLOTS), or an equal share each. Returns 0, or 2 after printing the error. */
static int bl__op_freqs(const bl_target *t, const bl__options *o, uint64_t *freq) {
    size_t k;
    uint64_t sum = 0;
    if (t->op_count == 0 || t->op_count > BL__MAX_OPS) {
        fprintf(stderr, "benchlab: target \"%s\" has %lu operations; it needs 1 to %d\n", t->name,
                (unsigned long)t->op_count, BL__MAX_OPS);
        return 2;
    }
    if (!o->any_op_given) {
        for (k = 0; k < t->op_count; k++)
            freq[k] = BL__OP_SLOTS / t->op_count + (k < BL__OP_SLOTS % t->op_count ? 1 : 0);
        return 0;
    }
    for (k = 0; k < BL__MAX_OPS; k++) {
        if (o->op_given[k] && k >= t->op_count) {
            fprintf(stderr, "benchlab: -op%lu names no operation: target \"%s\" has %lu (op0 to op%lu)\n",
                    (unsigned long)k, t->name, (unsigned long)t->op_count, (unsigned long)t->op_count - 1);
            return 2;
        }
        if (k < t->op_count) {
            freq[k] = o->op_given[k] ? o->op_freq[k] : 0;
            sum += freq[k];
        }
    }
    if (sum != BL__OP_SLOTS) {
        char list[512] = "";
        size_t at = 0;
        for (k = 0; k < t->op_count && at < sizeof list - 32; k++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s-op%lu=%llu", k ? " " : "", (unsigned long)k,
                                   (unsigned long long)freq[k]);
        fprintf(stderr, "benchlab: -opK frequencies must sum to %d (got %llu for target \"%s\": %s)\n", BL__OP_SLOTS,
                (unsigned long long)sum, t->name, list);
        return 2;
    }
    return 0;
}

/* --latency-every, or its default: every operation in the csb line, as CSB times them
   (its histogram, sums and counts then exact), the first of each batch otherwise. */
static uint64_t bl__latency_every(const bl__options *o) {
    if (o->latency_every_given) return o->latency_every;
    return o->format == bl__format_named("csb") ? 1 : BL__LATENCY_PER_BATCH;
}

struct bl__tp_result {
    const bl_target *target;
    uint64_t threads;
    uint64_t freq[BL__MAX_OPS];
    bl__opstats *ops;              /* merged over the threads, one per operation */
    bl__opstats univ;              /* all operations together */
    double *thread_ops, *thread_s; /* per thread: operations and measured window */
    double usr_s, sys_s, max_rss_kb;
    double duration_s;
    const char *problem;           /* why it did not run */
};

/* How a target's run ended. The exit status is 1 only when the system refused to start a
   thread; a platform without threads, or memory run out, is a record saying why (and
   the run's other targets still count), as an unsupported counter is. */
enum bl__target_status { BL__TARGET_RAN, BL__TARGET_NOT_RUN, BL__TARGET_FAILED };

#if BL__HAVE_THREADS
/* A worker's state. Aligned to a cache line, and its statistics in blocks of its own,
   so no two threads ever write to one line while they run. */
typedef struct bl__worker {
    const bl_target *target;
    size_t index;
    const unsigned char *table;
    uint64_t nops, rng, start, end, latency_every, batch_ticks;
    int random_nops;
    const uint64_t *csb_bound;
    bl__opstats *stats;
    int *ready, *go, *stop;
} __attribute__((aligned(64))) bl__worker;

/* The flags the workers poll, each on a line of its own: written once each, read in
   every batch. */
typedef struct bl__run_flags {
    int ready __attribute__((aligned(64)));
    int go __attribute__((aligned(64)));
    int stop __attribute__((aligned(64)));
} bl__run_flags;

/* What a worker's loop needs at hand, in one place so its parts can be small functions
   that the compiler inlines back into the loop. */
typedef struct bl__loop {
    int (*dispatch)(size_t, void *);
    void *ctx;
    const unsigned char *table;
    bl__opstats *stats;
    const uint64_t *csb_bound;
    uint64_t rng, nops;
    size_t op_count;
    int random_nops;
    int draw;                      /* a random number per operation: a mix, or random nops */
} bl__loop;

/* The next operation, after CSB's noise: a pause of exactly nops nops that lowers
   contention, as CSB's -n (0..nops at random with --random-nops). One random number picks
   the operation from the BL__OP_SLOTS-slot table, its higher bits the random pause.
   Without a mix or random nops (draw == 0) it is op 0, and no number is drawn. */
static inline size_t bl__pick(const unsigned char *table, uint64_t *rng, uint64_t nops, int random_nops, int draw) {
    uint64_t r = draw ? bl__splitmix64(rng) : 0;
    bl_nops(random_nops ? (r >> BL__OP_SLOT_BITS) % (nops + 1) : nops);
    return table[r & (BL__OP_SLOTS - 1)];
}

/* One timed operation: a clock read each side of dispatch. Returns the second read. */
static inline uint64_t bl__loop_timed(bl__loop *l) {
    size_t op = bl__pick(l->table, &l->rng, l->nops, l->random_nops, l->draw);
    uint64_t t0 = bl__op_now(), t1;
    int result = l->dispatch(op, l->ctx);
    t1 = bl__op_now();
    bl__opstats_add(&l->stats[op], result, t1 - t0, l->csb_bound);
    return t1;
}

/* n untimed operations: the hot loop. What it uses is copied into locals, which stay in
   registers across the opaque dispatch call (through *l, every use after a call would
   be a reload, as dispatch might write any memory it can reach). With one operation
   and no random nops (draw == 0) there is nothing to pick: the nops, then dispatch(0)
   straight, its counts too kept in locals until the batch ends. */
/* n calls of op 0, each after nops nops: the loop of one operation, counts in registers. */
static inline void bl__loop_straight(bl__loop *l, uint64_t n, uint64_t nops) {
    int (*dispatch)(size_t, void *) = l->dispatch;
    void *ctx = l->ctx;
    uint64_t i, succ = 0, skipped = 0;
    for (i = 0; i < n; i++) {
        int result;
        bl_nops(nops);
        result = dispatch(0, ctx);
        succ += result > 0;
        skipped += result < 0;
    }
    l->stats[0].count += n;
    l->stats[0].succ += succ;
    l->stats[0].skipped += skipped;
}

static inline void bl__loop_untimed(bl__loop *l, uint64_t n) {
    int (*dispatch)(size_t, void *) = l->dispatch;
    void *ctx = l->ctx;
    uint64_t i, nops = l->nops;
    if (!l->draw) {
        /* A loop of its own without nops: a constant 0 leaves no test in the hot loop. */
        if (nops) bl__loop_straight(l, n, nops);
        else bl__loop_straight(l, n, 0);
    } else {
        /* One increment per call, in a table on this thread's stack: tally[op][0] failed,
           [1] succeeded (result > 0), [2] skipped (result < 0); into *stats after. */
        const unsigned char *table = l->table;
        uint64_t rng = l->rng, tally[BL__MAX_OPS][3];
        int random_nops = l->random_nops;
        size_t k;
        memset(tally, 0, l->op_count * sizeof tally[0]);
        for (i = 0; i < n; i++) {
            size_t op = bl__pick(table, &rng, nops, random_nops, 1);
            int result = dispatch(op, ctx);
            tally[op][(result > 0) + 2 * (result < 0)]++;
        }
        l->rng = rng;
        for (k = 0; k < l->op_count; k++) {
            l->stats[k].count += tally[k][0] + tally[k][1] + tally[k][2];
            l->stats[k].succ += tally[k][1];
            l->stats[k].skipped += tally[k][2];
        }
    }
}

/* The batch's size for next time, from how long this one took: doubled while it is
   under half of BL__OP_BATCH_NS, halved while it is over twice that. */
static inline uint64_t bl__next_batch(uint64_t batch, uint64_t ticks, uint64_t target) {
    if (ticks < target / 2 && batch < BL__MAX_OP_BATCH) return batch * 2;
    if (ticks > target * 2 && batch > 1) return batch / 2;
    return batch;
}

static void *bl__worker_main(void *arg) {
    bl__worker *w = BL__CAST(bl__worker *, arg);
    const bl_target *t = w->target;
    bl__loop l;
    /* Which operations are timed. By default the first of each batch. With
       --latency-every=K one in K, counted across batches: `countdown` is how many
       operations until the next timed one (K = 0: practically never, 2^64). */
    int per_batch = w->latency_every == BL__LATENCY_PER_BATCH;
    uint64_t every = per_batch || !w->latency_every ? UINT64_MAX : w->latency_every;
    uint64_t countdown = every, batch = 1, mark, last;
    l.dispatch = t->dispatch;
    l.table = w->table;
    l.stats = w->stats;
    l.rng = w->rng;
    l.nops = w->nops;
    l.random_nops = w->random_nops;
    l.csb_bound = w->csb_bound;
    l.op_count = t->op_count;
    /* One operation and no random nops: nothing to draw, no random number per operation. */
    l.draw = (w->nops && w->random_nops) || t->op_count > 1;
    l.ctx = t->register_thread ? t->register_thread(w->index) : NULL;
    /* Start barrier: every thread registered before anyone starts, so the first
       operations do not run alone. Spin with yield: threads may outnumber cores. */
    __atomic_fetch_add(w->ready, 1, __ATOMIC_ACQ_REL);
    while (!__atomic_load_n(w->go, __ATOMIC_ACQUIRE)) sched_yield();
    w->start = last = bl__op_now();
    /* The stop flag and the clock once per batch, not per operation. */
    while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED)) {
        uint64_t left = batch;
        if (per_batch) {
            /* The timed operation's second read is also the batch's clock read. */
            mark = bl__loop_timed(&l);
            bl__loop_untimed(&l, left - 1);
        } else {
            while (left) {
                uint64_t n = countdown - 1 < left ? countdown - 1 : left;
                if (n) bl__loop_untimed(&l, n);
                left -= n;
                countdown -= n;
                if (left) { /* countdown is 1: this one is timed */
                    bl__loop_timed(&l);
                    left--;
                    countdown = every;
                }
            }
            mark = bl__op_now();
        }
        batch = bl__next_batch(batch, mark - last, w->batch_ticks);
        last = mark;
    }
    w->end = bl__op_now();
    if (t->deregister_thread) t->deregister_thread(l.ctx);
    return NULL;
}

static void bl__sleep_s(double seconds) {
    BL__TIMESPEC ts, rem;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (bl__nanosleep(&ts, &rem) != 0 && errno == EINTR) ts = rem;
}

static double bl__tv_s(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

/* One run of a target: the operation table, the flags the workers poll, a worker per
   thread, and the threads' ids. */
typedef struct bl__crew {
    unsigned char table[BL__OP_SLOTS];
    uint64_t csb_bound[BL__CSB_BUCKETS]; /* in ticks, read by every worker, written before */
    bl__run_flags *flags;
    bl__worker *workers;
    pthread_t *tids;
    size_t threads, started;
} bl__crew;

/* BL__OP_SLOTS slots, op k in freq[k] of them: one random number picks an operation
   with exactly the requested frequencies. */
static void bl__op_table(unsigned char *table, const uint64_t *freq, size_t op_count) {
    size_t k, at = 0;
    for (k = 0; k < op_count; k++) {
        uint64_t j;
        for (j = 0; j < freq[k]; j++) table[at++] = (unsigned char)k;
    }
}

/* 64-byte aligned blocks from malloc, freed with bl__aligned_free. Not posix_memalign:
   strict ISO modes hide it when a system header came before this one (glibc), or when
   <stdlib.h> did (musl decides header by header). The block's start is kept in the
   pointer's width just below the aligned address. */
static void *bl__aligned_alloc(size_t size) {
    unsigned char *raw = BL__CAST(unsigned char *, malloc(size + 64 + sizeof(void *)));
    uintptr_t at;
    if (!raw) return NULL;
    at = ((uintptr_t)(raw + sizeof(void *)) + 63) & ~(uintptr_t)63;
    BL__CAST(void **, at)[-1] = raw;
    return BL__CAST(void *, at);
}

static void bl__aligned_free(void *block) {
    if (block) free(BL__CAST(void **, block)[-1]);
}

/* The crew of one run, each worker on cache lines of its own and its statistics in a
   block of its own. 0 when out of memory (bl__crew_free frees what was allocated). */
static int bl__crew_new(bl__crew *crew, const bl_target *t, const bl__options *o, const uint64_t *freq) {
    size_t stats_bytes = ((t->op_count * sizeof(bl__opstats)) + 63) & ~(size_t)63, i, k;
    void *mem;
    memset(crew, 0, sizeof *crew);
    crew->threads = o->threads;
    bl__op_table(crew->table, freq, t->op_count);
    bl__csb_tick_bounds(crew->csb_bound, o->csb_ns, bl__op_ns_per_tick());
    crew->tids = BL__CAST(pthread_t *, calloc(o->threads, sizeof(pthread_t)));
    if (!crew->tids || !(mem = bl__aligned_alloc(sizeof(bl__run_flags)))) return 0;
    crew->flags = BL__CAST(bl__run_flags *, mem);
    memset(crew->flags, 0, sizeof *crew->flags);
    if (!(mem = bl__aligned_alloc(o->threads * sizeof(bl__worker)))) return 0;
    crew->workers = BL__CAST(bl__worker *, mem);
    memset(crew->workers, 0, o->threads * sizeof(bl__worker));
    for (i = 0; i < o->threads; i++) {
        bl__worker *w = &crew->workers[i];
        w->target = t;
        w->index = i;
        w->table = crew->table;
        w->nops = o->nops;
        w->random_nops = o->random_nops;
        w->csb_bound = crew->csb_bound;
        w->latency_every = bl__latency_every(o);
        /* at least one tick, so that a batch can be seen to be too long */
        w->batch_ticks = (uint64_t)(BL__OP_BATCH_NS / bl__op_ns_per_tick()) + 1;
        w->rng = bl__run_seed ^ (0xA24BAED4963EE407ull * (i + 1)); /* a stream per thread */
        w->ready = &crew->flags->ready;
        w->go = &crew->flags->go;
        w->stop = &crew->flags->stop;
        if (!(mem = bl__aligned_alloc(stats_bytes))) return 0;
        w->stats = BL__CAST(bl__opstats *, mem);
        for (k = 0; k < t->op_count; k++) bl__opstats_init(&w->stats[k]);
    }
    return 1;
}

/* init, the threads started and released together after the start barrier, the stop
   signal after the duration, the joins, destroy; the process's CPU time and peak memory
   over all of it. Returns pthread_create's error, 0 when every thread started (the
   threads that did start are stopped and joined either way). */
static int bl__crew_run(bl__crew *crew, const bl_target *t, const bl__options *o, bl__tp_result *r) {
    struct rusage ru0, ru1;
    size_t i;
    int err = 0;
    getrusage(RUSAGE_SELF, &ru0);
    if (t->init) t->init(o->init_size);
    for (i = 0; i < crew->threads; i++) {
        err = pthread_create(&crew->tids[i], NULL, bl__worker_main, &crew->workers[i]);
        if (err) break;
        crew->started++;
    }
    if (err) {
        fprintf(stderr, "benchlab: %s: pthread_create failed for thread %lu of %llu: %s\n", t->name,
                (unsigned long)crew->started + 1, (unsigned long long)o->threads, strerror(err));
        __atomic_store_n(&crew->flags->stop, 1, __ATOMIC_RELAXED);
    } else {
        while (__atomic_load_n(&crew->flags->ready, __ATOMIC_ACQUIRE) < (int)crew->started) sched_yield();
    }
    __atomic_store_n(&crew->flags->go, 1, __ATOMIC_RELEASE);
    if (!err) bl__sleep_s(r->duration_s);
    __atomic_store_n(&crew->flags->stop, 1, __ATOMIC_RELAXED); /* the stop signal */
    for (i = 0; i < crew->started; i++) pthread_join(crew->tids[i], NULL);
    if (t->destroy) t->destroy();
    getrusage(RUSAGE_SELF, &ru1);
    r->usr_s = bl__tv_s(ru1.ru_utime) - bl__tv_s(ru0.ru_utime);
    r->sys_s = bl__tv_s(ru1.ru_stime) - bl__tv_s(ru0.ru_stime);
    r->max_rss_kb = (double)ru1.ru_maxrss; /* KiB on Linux */
    return err;
}

/* Merged after the joins: nothing is shared while the threads run. */
static void bl__crew_merge(const bl__crew *crew, const bl_target *t, bl__tp_result *r) {
    size_t i, k;
    for (i = 0; i < crew->started; i++) {
        const bl__worker *w = &crew->workers[i];
        uint64_t ops = 0;
        for (k = 0; k < t->op_count; k++) {
            bl__opstats_merge(&r->ops[k], &w->stats[k]);
            bl__opstats_merge(&r->univ, &w->stats[k]);
            ops += w->stats[k].count;
        }
        r->thread_ops[i] = (double)ops;
        r->thread_s[i] = (double)(w->end - w->start) * bl__op_ns_per_tick() / 1e9;
    }
}

static void bl__crew_free(bl__crew *crew) {
    size_t i;
    for (i = 0; crew->workers && i < crew->threads; i++) bl__aligned_free(crew->workers[i].stats);
    bl__aligned_free(crew->workers);
    bl__aligned_free(crew->flags);
    free(crew->tids);
}

static enum bl__target_status bl__run_workers(const bl_target *t, const bl__options *o, bl__tp_result *r) {
    bl__crew crew;
    enum bl__target_status status = BL__TARGET_RAN;
    if (!bl__crew_new(&crew, t, o, r->freq)) {
        r->problem = "out of memory";
        status = BL__TARGET_NOT_RUN;
    } else if (bl__crew_run(&crew, t, o, r) != 0) {
        r->problem = "could not start every thread";
        status = BL__TARGET_FAILED;
    }
    if (status != BL__TARGET_NOT_RUN) bl__crew_merge(&crew, t, r);
    bl__crew_free(&crew);
    return status;
}
#else
static enum bl__target_status bl__run_workers(const bl_target *t, const bl__options *o, bl__tp_result *r) {
    (void)t, (void)o, r->problem = "threads are not available on wasm32-wasi (no pthreads in wasi-libc)";
    return BL__TARGET_NOT_RUN;
}
#endif

/* Runs one target into r, its operations at `freq` (bl__op_freqs, computed once when the flags
   were checked); r->problem says why when it did not run. */
static enum bl__target_status bl__run_target(const bl_target *t, const bl__options *o, const uint64_t *freq,
                                             bl__tp_result *r) {
    size_t k;
    memset(r, 0, sizeof *r);
    r->target = t;
    r->threads = o->threads;
    r->duration_s = o->duration_given ? o->duration_s : o->time_limit_s;
    memcpy(r->freq, freq, t->op_count * sizeof *freq);
    r->ops = BL__CAST(bl__opstats *, calloc(t->op_count, sizeof(bl__opstats)));
    r->thread_ops = BL__CAST(double *, calloc(o->threads, sizeof(double)));
    r->thread_s = BL__CAST(double *, calloc(o->threads, sizeof(double)));
    if (!r->ops || !r->thread_ops || !r->thread_s) { r->problem = "out of memory"; return BL__TARGET_NOT_RUN; }
    for (k = 0; k < t->op_count; k++) bl__opstats_init(&r->ops[k]);
    bl__opstats_init(&r->univ);
    return bl__run_workers(t, o, r);
}

static void bl__tp_free(bl__tp_result *r) {
    free(r->ops);
    free(r->thread_ops);
    free(r->thread_s);
}

/* Throughputs in ops/s: the sum of each thread's own rate, and CSB's pair: all
   operations over the longest thread window (min) and over the shortest (max). */
typedef struct bl__tp_summary {
    double total, tmin, tmax;
    double longest_s, shortest_s; /* the threads' measured windows */
} bl__tp_summary;

static void bl__tp_summarize(const bl__tp_result *r, bl__tp_summary *s) {
    size_t i;
    memset(s, 0, sizeof *s);
    for (i = 0; i < r->threads; i++) {
        if (r->thread_s[i] > 0) s->total += r->thread_ops[i] / r->thread_s[i];
        if (i == 0 || r->thread_s[i] > s->longest_s) s->longest_s = r->thread_s[i];
        if (i == 0 || r->thread_s[i] < s->shortest_s) s->shortest_s = r->thread_s[i];
    }
    s->tmin = s->longest_s > 0 ? (double)r->univ.count / s->longest_s : 0;
    s->tmax = s->shortest_s > 0 ? (double)r->univ.count / s->shortest_s : 0;
}

static double bl__ns(double ticks) { return ticks * bl__op_ns_per_tick(); }

/* -- Its writers, one per format that has a threaded form (the table of section I12) ----- */

/* One operation's statistics: counts, then latencies in ns from the timed ones (null
   when none was timed), then the histogram's non-empty buckets as [low, high, count]
   with high exclusive, so a reader can recompute any quantile. */
static void bl__json_opstats(FILE *f, const bl__opstats *s) {
    unsigned i;
    int first = 1, t = s->timed > 0;
    fprintf(f, "\"count\":%llu,\"successes\":%llu,\"skipped\":%llu,\"timed\":%llu", (unsigned long long)s->count,
            (unsigned long long)s->succ, (unsigned long long)s->skipped, (unsigned long long)s->timed);
    bl__json_field(f, "min_ns", t ? bl__ns((double)s->min) : bl__nan());
    bl__json_field(f, "max_ns", t ? bl__ns((double)s->max) : bl__nan());
    bl__json_field(f, "mean_ns", t ? bl__ns((double)s->sum / (double)s->timed) : bl__nan());
    bl__json_field(f, "p50_ns", t ? bl__ns(bl__hist_quantile(s->hist, s->timed, 0.5, s->min, s->max)) : bl__nan());
    bl__json_field(f, "p90_ns", t ? bl__ns(bl__hist_quantile(s->hist, s->timed, 0.9, s->min, s->max)) : bl__nan());
    bl__json_field(f, "p99_ns", t ? bl__ns(bl__hist_quantile(s->hist, s->timed, 0.99, s->min, s->max)) : bl__nan());
    bl__json_field(f, "p999_ns", t ? bl__ns(bl__hist_quantile(s->hist, s->timed, 0.999, s->min, s->max)) : bl__nan());
    fputs(",\"histogram\":[", f);
    for (i = 0; i < BL__HIST_BUCKETS; i++) {
        if (!s->hist[i]) continue;
        fputs(first ? "[" : ",[", f);
        first = 0;
        bl__json_number(f, bl__ns((double)bl__hist_low(i)));
        fputc(',', f);
        bl__json_number(f, bl__ns((double)bl__hist_high(i) + 1));
        fprintf(f, ",%llu]", (unsigned long long)s->hist[i]);
    }
    fputc(']', f);
}

/* The target's record: per thread, per operation and over all of them; the histogram's
   error bound and the timer, so a reader knows how far to trust a latency. */
static void bl__jsonl_throughput(FILE *f, const bl__options *o, const bl__tp_result *r) {
    const bl_target *t = r->target;
    bl__tp_summary sum;
    size_t k, i;
    fputs("{\"type\":\"throughput\",\"target\":", f);
    bl__json_string(f, t->name);
    fprintf(f, ",\"threads\":%llu", (unsigned long long)r->threads);
    bl__json_field(f, "duration_s", r->duration_s);
    fprintf(f, ",\"init_size\":%llu,\"max_nops\":%llu,\"random_nops\":%s,\"seed\":%llu",
            (unsigned long long)o->init_size, (unsigned long long)o->nops, o->random_nops ? "true" : "false",
            (unsigned long long)bl__run_seed);
    if (r->problem) {
        fputs(",\"supported\":false,\"reason\":", f);
        bl__json_string(f, r->problem);
        fputs("}\n", f);
        return;
    }
    bl__tp_summarize(r, &sum);
    fputs(",\"supported\":true,\"unit\":\"ops/s\"", f);
    bl__json_field(f, "throughput", sum.total);
    bl__json_field(f, "throughput_min", sum.tmin);
    bl__json_field(f, "throughput_max", sum.tmax);
    fputs(",\"per_thread\":[", f);
    for (i = 0; i < r->threads; i++) {
        fprintf(f, "%s{\"ops\":%.0f", i ? "," : "", r->thread_ops[i]);
        bl__json_field(f, "duration_s", r->thread_s[i]);
        bl__json_field(f, "throughput", r->thread_s[i] > 0 ? r->thread_ops[i] / r->thread_s[i] : bl__nan());
        fputc('}', f);
    }
    fputs("],\"ops\":[", f);
    for (k = 0; k < t->op_count; k++) {
        fprintf(f, "%s{\"op\":%lu,\"name\":", k ? "," : "", (unsigned long)k);
        bl__json_string(f, t->ops[k]);
        fprintf(f, ",\"freq\":%llu,", (unsigned long long)r->freq[k]);
        bl__json_opstats(f, &r->ops[k]);
        fputc('}', f);
    }
    fputs("],\"all\":{", f);
    bl__json_opstats(f, &r->univ);
    fputc('}', f);
    bl__json_field(f, "histogram_max_error", BL__HIST_MAX_ERROR);
    fputs(",\"timer\":", f); bl__json_string(f, bl__clock.tsc_ns_per_tick > 0 ? "tsc" : "clock_gettime(CLOCK_MONOTONIC)");
    bl__json_field(f, "usr_time_s", r->usr_s);
    bl__json_field(f, "sys_time_s", r->sys_s);
    bl__json_field(f, "max_rss_kb", r->max_rss_kb);
    fputs("}\n", f);
}

/* The table's form: the throughputs first, then one line per operation. */
static void bl__table_throughput(FILE *f, const bl__options *o, const bl__tp_result *r) {
    const bl_target *t = r->target;
    bl__tp_summary sum;
    size_t k, i;
    if (r->problem) {
        fprintf(f, "%-32s not supported: %s\n", t->name, r->problem);
        return;
    }
    bl__tp_summarize(r, &sum);
    fprintf(f, "%s: %llu threads, %g s, size %llu, nops %s%llu: %.0f ops/s (min %.0f, max %.0f); per thread:",
            t->name, (unsigned long long)r->threads, r->duration_s, (unsigned long long)o->init_size,
            o->random_nops ? "0.." : "", (unsigned long long)o->nops, sum.total, sum.tmin, sum.tmax);
    for (i = 0; i < r->threads; i++) fprintf(f, " %.0f", r->thread_s[i] > 0 ? r->thread_ops[i] / r->thread_s[i] : 0.0);
    fputs(" ops/s\n", f);
    for (k = 0; k < t->op_count; k++) {
        const bl__opstats *s = &r->ops[k];
        char mean[32], p50[32], p90[32], p99[32], p999[32], mx[32];
        if (!s->count) {
            fprintf(f, "  op%lu %-12s %5llu/%d  no operations\n", (unsigned long)k, t->ops[k], (unsigned long long)r->freq[k],
                    BL__OP_SLOTS);
            continue;
        }
        fprintf(f, "  op%lu %-12s %5llu/%d %12llu ops %6.2f%% ok %llu skipped", (unsigned long)k, t->ops[k],
                (unsigned long long)r->freq[k], BL__OP_SLOTS, (unsigned long long)s->count,
                100.0 * (double)s->succ / (double)s->count, (unsigned long long)s->skipped);
        if (!s->timed) {
            fputs("  latency not timed\n", f);
            continue;
        }
        fprintf(f, "  mean %-9s p50 %-9s p90 %-9s p99 %-9s p999 %-9s max %s\n",
                bl__human_time(mean, sizeof mean, bl__ns((double)s->sum / (double)s->timed)),
                bl__human_time(p50, sizeof p50, bl__ns(bl__hist_quantile(s->hist, s->timed, 0.5, s->min, s->max))),
                bl__human_time(p90, sizeof p90, bl__ns(bl__hist_quantile(s->hist, s->timed, 0.9, s->min, s->max))),
                bl__human_time(p99, sizeof p99, bl__ns(bl__hist_quantile(s->hist, s->timed, 0.99, s->min, s->max))),
                bl__human_time(p999, sizeof p999, bl__ns(bl__hist_quantile(s->hist, s->timed, 0.999, s->min, s->max))),
                bl__human_time(mx, sizeof mx, bl__ns((double)s->max)));
    }
    fprintf(f, "  usr %.3f s, sys %.3f s, max RSS %.0f KiB\n", r->usr_s, r->sys_s, r->max_rss_kb);
}

/* -- csb: the scalability skeleton's key=val; line, read by its runner --------------------------
   CSB's keys, units and buckets: latencies in timer ticks with ticks_to_ms ticks per ms
   (the TSC's, as CSB's rdtsc; 1 ns a tick when the clock is clock_gettime), or in ns
   with --csb-unit=ns (ticks_to_ms=1000000); throughput_max/min in operations per ms,
   throughput_*_ts per second; duration_*_ms in microseconds, as CSB prints them. Our own
   extras after them, under keys CSB does not use, declare the unit and the sampling. */

/* The latency unit of the line: ticks (CSB's) or ns. */
typedef struct bl__csb_unit {
    int ns;
    double ns_per_tick;
} bl__csb_unit;

static uint64_t bl__csb_value(bl__csb_unit u, uint64_t ticks) {
    return u.ns ? bl__csb_ns_of(ticks, u.ns_per_tick) : ticks;
}
static double bl__csb_amount(bl__csb_unit u, double ticks) { return u.ns ? ticks * u.ns_per_tick : ticks; }
static double bl__csb_ticks_per_ms(bl__csb_unit u) {
    return u.ns ? 1e6 : (double)(uint64_t)(1e6 / u.ns_per_tick + 0.5); /* a whole number, as CSB's */
}

/* CSB times every operation, and its readers take sum / count for the mean and the
   histogram's buckets over count for shares. With --latency-every=K (or batch) ours
   times a sample: its buckets are scaled to `count`, the largest remainders rounded up
   so that they add up to count exactly, as a sampling profiler scales its samples, and
   the line says so (latency_every, opK_NAME_timed). */
static void bl__csb_scale_to_count(uint64_t *h, uint64_t timed, uint64_t count) {
    double scale, part[BL__CSB_BUCKETS];
    uint64_t given = 0;
    unsigned i;
    if (!timed || timed == count) return;
    scale = (double)count / (double)timed;
    for (i = 0; i < BL__CSB_BUCKETS; i++) {
        double scaled = (double)h[i] * scale;
        h[i] = (uint64_t)scaled;
        part[i] = scaled - (double)h[i];
        given += h[i];
    }
    while (given < count) { /* at most BL__CSB_BUCKETS rounds: each remainder is under 1 */
        unsigned best = 0;
        for (i = 1; i < BL__CSB_BUCKETS; i++) if (part[i] > part[best]) best = i;
        if (part[best] <= 0.0) break;
        h[best]++;
        part[best] = 0.0;
        given++;
    }
}

static void bl__csb_histogram(FILE *f, const bl__opstats *s) {
    uint64_t h[BL__CSB_BUCKETS];
    unsigned i;
    memcpy(h, s->csb, sizeof h);
    bl__csb_scale_to_count(h, s->timed, s->count);
    for (i = 0; i < BL__CSB_BUCKETS; i++) fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)h[i]);
}

static void bl__csb_opstats(FILE *f, bl__csb_unit u, const char *prefix, const bl__opstats *s, int with_histogram) {
    double c = (double)s->count;
    /* With every operation timed, the exact sum. Sampled, the sum over every operation
       estimated from the timed ones: sum / count is then their mean, which _avg prints. */
    double sum = s->timed ? bl__csb_amount(u, (double)s->sum) * c / (double)s->timed : 0.0;
    fprintf(f, "%s_max=%llu;%s_min=%llu;", prefix, (unsigned long long)(s->timed ? bl__csb_value(u, s->max) : 0), prefix,
            (unsigned long long)(s->timed ? bl__csb_value(u, s->min) : 0));
    if (!u.ns && s->timed == s->count) fprintf(f, "%s_sum=%llu;", prefix, (unsigned long long)s->sum); /* exact */
    else fprintf(f, "%s_sum=%.0f;", prefix, sum);
    fprintf(f, "%s_count=%llu;%s_succ_count=%llu;%s_skipped_count=%llu;", prefix, (unsigned long long)s->count, prefix,
            (unsigned long long)s->succ, prefix, (unsigned long long)s->skipped);
    fprintf(f, "%s_avg=%.2f;%s_succ_percent=%.2f;", prefix,
            s->timed ? bl__csb_amount(u, (double)s->sum) / (double)s->timed : 0.0, prefix,
            s->count ? 100.0 * (double)s->succ / c : 0.0);
    if (with_histogram) {
        fprintf(f, "%s_histogram=", prefix);
        bl__csb_histogram(f, s);
        fputc(';', f);
    }
}

/* Ours, after CSB's keys: the sum of each thread's own rate, the latencies' unit and
   timer, which operations were timed (1: all, as CSB; K: one in K; batch: the first of
   each batch; 0: none) and how many of each, and whether -n was random. */
static void bl__csb_extras(FILE *f, const bl__options *o, const bl__tp_result *r, double sum_ts) {
    const bl_target *t = r->target;
    uint64_t every = bl__latency_every(o);
    size_t k;
    fprintf(f, "throughput_sum_ts=%.8f;latency_unit=%s;timer=%s;", sum_ts, o->csb_ns ? "ns" : "ticks",
            bl__clock.tsc_ns_per_tick > 0 ? "tsc" : "clock_gettime");
    if (every == BL__LATENCY_PER_BATCH) fputs("latency_every=batch;", f);
    else fprintf(f, "latency_every=%llu;", (unsigned long long)every);
    fprintf(f, "random_nops=%d;", o->random_nops);
    for (k = 0; k < t->op_count; k++)
        fprintf(f, "op%lu_%s_timed=%llu;", (unsigned long)k, t->ops[k], (unsigned long long)r->ops[k].timed);
}

static void bl__csb_throughput(FILE *f, const bl__options *o, const bl__tp_result *r) {
    const bl_target *t = r->target;
    bl__csb_unit u;
    bl__tp_summary sum;
    double clk_per_s;
    size_t k;
    if (r->problem) return;
    u.ns = o->csb_ns;
    u.ns_per_tick = bl__op_ns_per_tick();
    clk_per_s = bl__csb_ticks_per_ms(u) * 1e3;
    bl__tp_summarize(r, &sum);
    fprintf(f, "num_threads=%llu;init_sz=%llu;max_noise=%llu;duration=%g;", (unsigned long long)r->threads,
            (unsigned long long)o->init_size, (unsigned long long)o->nops, r->duration_s);
    for (k = 0; k < t->op_count; k++) fprintf(f, "op%lu_dist=%llu;", (unsigned long)k, (unsigned long long)r->freq[k]);
    fprintf(f, "algo_name=%s;", t->name);
    for (k = 0; k < t->op_count; k++) {
        char prefix[96];
        snprintf(prefix, sizeof prefix, "op%lu_%s", (unsigned long)k, t->ops[k]);
        bl__csb_opstats(f, u, prefix, &r->ops[k], 1);
    }
    bl__csb_opstats(f, u, "univ", &r->univ, 0);
    fprintf(f, "throughput_max=%.8f;throughput_min=%.8f;throughput_max_ts=%.8f;throughput_min_ts=%.8f;",
            sum.tmax / 1e3, sum.tmin / 1e3, sum.tmax, sum.tmin);
    fprintf(f, "ticks_to_ms=%.0f;duration_max_ms=%.0f;duration_max_clk=%.0f;duration_min_ms=%.0f;duration_min_clk=%.0f;",
            bl__csb_ticks_per_ms(u), sum.longest_s * 1e6, sum.longest_s * clk_per_s, sum.shortest_s * 1e6,
            sum.shortest_s * clk_per_s);
    fprintf(f, "sys_time=%.0f;usr_time=%.0f;max_rss_kb=%.0f;", r->sys_s * 1e6, r->usr_s * 1e6, r->max_rss_kb);
    bl__csb_extras(f, o, r, sum.total);
    fputc('\n', f);
}

/* Step: the threaded targets, each printed as soon as it ran. */
static int bl__run_targets(bl__run *run) {
    const bl__writer *w = &bl__writers[run->o.format];
    size_t i;
    int status = 0;
    for (i = 0; i < run->target_count; i++) {
        bl__tp_result tr;
        if (bl__run_target(run->targets[i], &run->o, run->op_freqs[i], &tr) == BL__TARGET_FAILED) status = 1;
        w->throughput(run->out, &run->o, &tr);
        fflush(run->out);
        bl__tp_free(&tr);
    }
    return status;
}

/* ---- I18. Instruction regions (callgrind) -----------------------------------------------------
   With BL_CALLGRIND=N in the environment (src/benchlab/profiling/callgrind.py sets it for `benchlab
   run --platform callgrind`) nothing is timed: each selected benchmark runs once as a
   warm-up (lazy binding of the library functions it calls, first touch of its data and
   code), then at N and at 2N iterations, each time inside bl__callgrind_region. Callgrind,
   started with --collect-atstart=no --toggle-collect=bl__callgrind_region
   --dump-after=bl__callgrind_region, counts only while that function runs and writes
   one dump as it returns, so dump k is region k and nothing else. The names must be
   exact: with a wildcard (bl__callgrind_region*) callgrind 3.19 wrote no dumps. After each region one
   jsonl line says which it was, so the Python side can pair the lines with the dumps
   in order and report (Ir(2N) - Ir(N)) / N instructions per iteration: what one call
   costs once (the call through the pointer, the body's prologue and epilogue, BL_SUSPEND
   blocks outside its loop) is in both and cancels exactly. The interface is the
   function's name, so no valgrind header is needed and the header stays
   self-contained. */

/* Never inlined and never cloned (a clone, "bl__callgrind_region.constprop.0", would
   be another name, and callgrind would never see the region). The barrier after the call
   keeps it a call rather than a jump: callgrind sees a function's entry and exit by
   its call and return. */
#if defined(__clang__)
#define BL__REGION_ATTRS __attribute__((noinline))
#else
#define BL__REGION_ATTRS __attribute__((noinline, noclone))
#endif
BL__DEF void bl__callgrind_region(bl_body_fn body, bl_state *state, uint64_t n, int64_t arg) BL__REGION_ATTRS;
BL__DEF void bl__callgrind_region(bl_body_fn body, bl_state *state, uint64_t n, int64_t arg) {
    body(state, n, arg);
    __asm__ __volatile__("" ::: "memory");
}
/* Called through this pointer: the optimizer cannot know what it calls, so it can
   neither inline nor specialize (clone) the region at the call site, whatever the
   compiler and its version. */
static void (*volatile bl__region_fn)(bl_body_fn, bl_state *, uint64_t, int64_t) = bl__callgrind_region;

/* Step: BL_CALLGRIND=N makes the run instruction regions: jsonl, no counter passes
   (callgrind counts), no threaded targets. A bad value is exit 2. */
static int bl__callgrind_setup(bl__run *run) {
    const char *text = getenv("BL_CALLGRIND");
    if (!text) return 0;
    if (!bl__parse_u64(text, &run->callgrind_n) || run->callgrind_n < 1 ||
        run->callgrind_n > BL__MAX_CALLGRIND_ITERATIONS) {
        fprintf(stderr, "benchlab: BL_CALLGRIND must be a whole number of iterations from 1 to %d (got \"%s\")\n",
                BL__MAX_CALLGRIND_ITERATIONS, text);
        return 2;
    }
    run->o.format = bl__format_named("jsonl");
    run->counters.count = 0;
    if (run->target_count)
        fprintf(stderr, "benchlab: BL_CALLGRIND: threaded targets have no instruction regions; %lu skipped\n",
                (unsigned long)run->target_count);
    run->target_count = 0;
    return 0;
}

/* One region of `in` at n iterations, then its line. A line after the region, not
   before: a region that never returned has no dump, and then no line either. */
static void bl__callgrind_run(FILE *f, const bl__instance *in, uint64_t n, int warm_up) {
    bl_state state;
    memset(&state, 0, sizeof state);
    bl__region_fn(in->bench->body, &state, n, bl__param(in));
    fputs("{\"type\":\"callgrind_region\",\"bench\":", f);
    bl__json_string(f, in->bench->name);
    if (in->bench->params) {
        fprintf(f, ",\"param\":%lld,\"param_name\":", (long long)bl__param(in));
        bl__json_string(f, in->bench->param_name);
    } else {
        fputs(",\"param\":null,\"param_name\":null", f);
    }
    fprintf(f, ",\"iterations\":%llu,\"suspends\":%llu,\"warm_up\":%s}\n", (unsigned long long)n,
            (unsigned long long)state.suspends, warm_up ? "true" : "false");
    fflush(f);
}

/* Step: with BL_CALLGRIND, every selected benchmark (the baseline too) in three regions:
   a warm-up at n iterations (its line says "warm_up": true; the Python side skips its
   dump), then n and 2n. The warm-up goes through the region too, so that
   the region's own code and the library functions the body calls (lazy binding) are
   warm in the simulated caches as well; stops the run (-1). */
static int bl__measure_instructions(bl__run *run) {
    size_t i;
    if (!run->callgrind_n) return 0;
    for (i = 0; i < run->instance_count; i++) {
        const bl__instance *in = &run->instances[i];
        bl__callgrind_run(run->out, in, run->callgrind_n, 1);
        bl__callgrind_run(run->out, in, run->callgrind_n, 0);
        bl__callgrind_run(run->out, in, 2 * run->callgrind_n, 0);
    }
    return -1;
}

/* ---- I19. Contention: what the kernel says a sample lost ---------------------------------------
   Around each sample of the time pass (bl__take_sample, section I10), outside its timed
   part: the thread's involuntary context switches (getrusage(RUSAGE_THREAD), ru_nivcsw)
   and the time it waited, runnable, for a CPU (the second field of
   /proc/thread-self/schedstat, the scheduler's run delay in ns; /proc/self/schedstat
   before Linux 3.17, the main thread's, which is the one sampling). The file is opened
   once and read from its start with pread: one system call a read.

   Cost: one reading of both takes 1.1 us on this project's VM at load 5 on its 2 cores
   (getrusage 0.35-0.4 us, the pread of schedstat 0.7-2.2 us), up to 2.3 us when busier;
   two readings a sample, 2-5 us next to a sample's 50 us, outside its timed part and
   outside what the time limit counts. Measured by `ctest --test-dir build -R contention
   -V` (tests/c/contention_test.c prints the mean of 20000 readings). Where the platform
   cannot tell (wasm32-wasi, other systems) the stub returns 0 and the record's fields
   say null. */
#if BL__HAVE_CONTENTION
#define BL__RUSAGE_THREAD 1 /* Linux's RUSAGE_THREAD; <sys/resource.h> shows it only with _GNU_SOURCE */
#if defined(__LP64__)
/* pread, which strict modes hide when a system header came first (section I1): bound to
   libc's symbol, whose offset is a long on 64-bit Linux, glibc and musl alike. */
extern long bl__pread(int fd, void *buf, size_t size, long offset) __asm__("pread");
static long bl__read_from_start(int fd, char *buf, size_t size) { return bl__pread(fd, buf, size, 0); }
#else
static long bl__read_from_start(int fd, char *buf, size_t size) {
    return lseek(fd, 0, SEEK_SET) == 0 ? (long)read(fd, buf, size) : -1;
}
#endif
static int bl__schedstat_fd = -2; /* -2: not opened yet; -1: none */

/* The run delay in ns, or 0 when schedstat cannot be read (*known then 0). */
static uint64_t bl__run_delay_ns(int *known) {
    char text[128], *end;
    long got;
    if (bl__schedstat_fd == -2) {
        bl__schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY);
        if (bl__schedstat_fd < 0) bl__schedstat_fd = open("/proc/self/schedstat", O_RDONLY);
    }
    *known = 0;
    if (bl__schedstat_fd < 0) return 0;
    got = bl__read_from_start(bl__schedstat_fd, text, sizeof text - 1);
    if (got <= 0) return 0;
    text[got] = 0;
    (void)strtoull(text, &end, 10); /* the time it ran; the run delay follows */
    if (end == text) return 0;
    *known = 1;
    return strtoull(end, NULL, 10);
}

static int bl__lost_read(bl__lost *now) {
    struct rusage ru;
    if (getrusage(BL__RUSAGE_THREAD, &ru) != 0) return 0;
    now->switches = (uint64_t)ru.ru_nivcsw;
    now->delay_ns = bl__run_delay_ns(&now->delay_known);
    return 1;
}
#else
static int bl__lost_read(bl__lost *now) { (void)now; return 0; }
#endif

#ifdef __cplusplus
}
#endif
#endif /* !BL__ELSEWHERE */
#endif /* BENCHLAB__IMPLEMENTED */
