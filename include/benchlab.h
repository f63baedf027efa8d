/* benchlab.h - small costs you can trust. One header, C99 and C++11, no dependencies beyond libc.

   USAGE
   -----
   One file, one program:

       #include "benchlab.h"

       BL_BASELINE(empty_call, n) {
           for (uint64_t i = 0; i < n; i++) fn_ptr();
       }
       BL_BENCH(getpid_call, n) {
           for (uint64_t i = 0; i < n; i++) BL_KEEP(getpid());
       }
       BL_BENCH_ARGS(copy, n, size, 1, 1024, 4096) {
           char *buf;
           BL_SUSPEND { buf = make_buffer(size); }     (not timed)
           for (uint64_t i = 0; i < n; i++) { memcpy(dst, buf, (size_t)size); BL_CLOBBER(); }
           BL_SUSPEND { free(buf); }
       }
       BL_MAIN()

       cc -O2 -Iinclude bench.c -o bench && ./bench

   The body of a benchmark loops `n` times itself, so the harness adds no call per
   iteration. benchlab picks `n` so that one sample lasts far longer than the timer's
   resolution, takes --samples samples within --time-limit seconds, subtracts the
   measured cost of an empty loop, and reports statistics per iteration. Every
   benchmark is also compared with the baseline, sampled in alternating rounds so that
   drift of the machine hits both alike; the ratio comes with a 99% interval.

   A program of several files: exactly one file writes
       #define BENCHLAB_IMPLEMENTATION
       #include "benchlab.h"
   and either uses BL_MAIN() or calls bl_main(argc, argv) from its own main; the other
   files include the header plainly. (A plain include also compiles the implementation,
   as weak symbols, so that the one-file case needs no define; the file that defines
   BENCHLAB_IMPLEMENTATION holds the copy the linker keeps.)

   CONTENTS
   --------
   1. Version                     BENCHLAB_VERSION*
   2. Compile-time options        BL_NO_TSC, BL_CFLAGS
   3. Defining benchmarks         BL_BENCH, BL_BASELINE, BL_BENCH_ARGS, BL_SUSPEND, BL_MAIN
   4. Optimizer barriers          BL_KEEP, BL_CLOBBER
   5. Randomness                  bl_seed, bl_random
   6. Statistics (also public for tests and tools)   bl_stats, bl_compute_stats, bl_ratio_ci
   7. Command line                bl_main
   8. Implementation              below the line "IMPLEMENTATION"

   COMPILE-TIME OPTIONS
   --------------------
   BL_NO_TSC     never use the x86-64 time-stamp counter; always clock_gettime.
   BL_CFLAGS     a string with the flags the program was built with, reported in the
                 context record (e.g. -DBL_CFLAGS='"-O2 -march=native"').

   ENVIRONMENT
   -----------
   BL_TIMER=clock|tsc   force the timer (tsc only where it is invariant).
   BL_NO_WARN=1         silence warnings about an unstable machine or an unoptimized build.

   COMMAND LINE (every program)
   ----------------------------
   --list  --filter=SUBSTRING (repeatable)  --samples=N  --time-limit=SECONDS  --seed=N
   --format=table|csv|jsonl|lind  --out=FILE  --help.   Formats: docs/formats.md.

   PORTABILITY
   -----------
   Linux (and other POSIX systems), x86-64 and others; wasm32-wasi (time only).
   gcc and clang, as C99 or C++11 and later. Link needs only libc (no -lm).
*/
#ifndef BENCHLAB_H
#define BENCHLAB_H

/* ---- 1. Version ------------------------------------------------------------------
   MAJOR changes when a program written for the header stops compiling or the jsonl
   schema changes incompatibly; MINOR adds features; PATCH fixes. */
#define BENCHLAB_VERSION_MAJOR 0
#define BENCHLAB_VERSION_MINOR 1
#define BENCHLAB_VERSION_PATCH 0
#define BENCHLAB_VERSION "0.1.0"
/* The jsonl schema version written in the context record (docs/formats.md). */
#define BENCHLAB_SCHEMA 1

/* Strict ISO modes (-std=c99) hide POSIX: ask for it, so clock_gettime and fileno are
   declared. Only in strict modes: defining it under gnu99 would hide the BSD and GNU
   names a user's code may rely on. It takes effect only if this header comes before
   any system header; the check further down says so if it did not. */
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
   BL_CLOBBER(): the compiler must assume all memory was read and written here, so
   stores before it happen and loads after it are redone. Neither emits an instruction. */
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
   tests/vectors/ checks both. */
typedef struct bl_stats {
    double median, min, max, mean, stddev, p75, p90, p99, mad;
    double median_ci_low, median_ci_high; /* 99%, distribution-free */
    size_t outliers_low, outliers_high;   /* outside Tukey's fences; counted, never dropped */
} bl_stats;

/* Statistics of x[0..n-1] (n >= 1). */
void bl_compute_stats(const double *x, size_t n, bl_stats *out);
/* Quantile p of an ascending array (linear interpolation, numpy's default). */
double bl_quantile_sorted(const double *sorted, size_t n, double p);
/* The median of the per-round ratios a[i]/b[i] over m paired rounds, and its 99%
   distribution-free interval. */
void bl_ratio_ci(const double *a, const double *b, size_t m, double *ratio, double *low,
                 double *high);

/* ---- 7. Command line -------------------------------------------------------------------
   Runs the registered benchmarks as the flags say; returns the exit status
   (0 ok, 2 bad flags or a program that defines two baselines). */
int bl_main(int argc, char **argv);

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

/* Without BENCHLAB_IMPLEMENTATION every translation unit gets a weak copy, so a
   one-file program needs no define and a many-file program still links; the file
   that defines it gets the strong copy the linker prefers. */
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
#endif
#if !defined(CLOCK_MONOTONIC)
#error "benchlab.h: clock_gettime is not declared: include benchlab.h before other headers, or build with -std=gnu99 or -D_POSIX_C_SOURCE=200809L"
#endif
#if defined(__x86_64__) && !defined(BL_NO_TSC)
#include <cpuid.h>
#define BL__HAVE_TSC 1
#else
#define BL__HAVE_TSC 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* C++ does not convert void* implicitly; C does not need the cast. */
#define BL__CAST(type, expr) ((type)(expr))

/* ---- Tunables, each with its reason ------------------------------------------------- */

/* A sample must last this many times the timer's resolution, so that one tick of
   rounding is at most 0.1% of it (nanobench's rule). */
#define BL__RESOLUTION_FACTOR 1000.0
/* Share of the time limit given to the samples; the rest covers warm-up and calibration. */
#define BL__SAMPLE_BUDGET 0.8
/* Each sample's iteration count is jittered by up to this fraction, so that periodic
   disturbances (timer interrupts, frequency steps) do not alias with the sample length. */
#define BL__JITTER 0.05
/* Confidence level of every interval we report. */
#define BL__CI_LEVEL 0.99
/* Time given to measuring the empty loop: its median is subtracted from every sample. */
#define BL__OVERHEAD_TIME_S 0.2
/* Defaults of the command line. */
#define BL__DEFAULT_SAMPLES 50
#define BL__DEFAULT_TIME_LIMIT_S 1.0
#define BL__MIN_SAMPLES 3

/* ---- Registry ---------------------------------------------------------------------- */

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
} bl__bench;

typedef struct bl__registry {
    bl__bench *items;
    size_t count, capacity;
    int out_of_memory;
} bl__registry;

BL__DEF bl__registry bl__benchmarks;

BL__DEF void bl__register(const char *name, bl_body_fn body, int is_baseline,
                          const char *param_name, const int64_t *params, size_t param_count,
                          const char *file, int line) {
    bl__registry *r = &bl__benchmarks;
    if (r->count == r->capacity) {
        size_t capacity = r->capacity ? 2 * r->capacity : 16;
        bl__bench *items = BL__CAST(bl__bench *, realloc(r->items, capacity * sizeof *items));
        if (!items) { r->out_of_memory = 1; return; }
        r->items = items;
        r->capacity = capacity;
    }
    r->items[r->count].name = name;
    r->items[r->count].body = body;
    r->items[r->count].is_baseline = is_baseline;
    r->items[r->count].param_name = param_name;
    r->items[r->count].params = params;
    r->items[r->count].param_count = param_count;
    r->items[r->count].file = file;
    r->items[r->count].line = line;
    r->items[r->count].order = r->count;
    r->count++;
}

/* ---- Timer --------------------------------------------------------------------------
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
} bl__timer;

BL__DEF bl__timer bl__clock;

static uint64_t bl__clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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
#endif

static inline uint64_t bl__now(void) {
#if BL__HAVE_TSC
    if (bl__clock.use_tsc) return bl__rdtsc();
#endif
    return bl__clock_ns();
}

/* Smallest non-zero difference between consecutive reads, in ticks, and the mean
   cost of one read in ticks. */
static void bl__probe_timer(double *resolution_ticks, double *cost_ticks) {
    uint64_t best = UINT64_MAX;
    int i;
    for (i = 0; i < 2000; i++) {
        uint64_t t0 = bl__now(), t1;
        do { t1 = bl__now(); } while (t1 == t0);
        if (t1 - t0 < best) best = t1 - t0;
    }
    {
        const int reads = 20000;
        uint64_t start = bl__now(), sink = 0;
        for (i = 0; i < reads; i++) sink += bl__now();
        BL_KEEP(sink);
        *cost_ticks = (double)(bl__now() - start) / reads;
    }
    *resolution_ticks = (double)best;
}

static void bl__setup_timer(void) {
    const char *forced = getenv("BL_TIMER");
    double res, cost;
    bl__clock.use_tsc = 0;
    bl__clock.ns_per_tick = 1.0;
    bl__clock.name = "clock_gettime(CLOCK_MONOTONIC)";
    bl__probe_timer(&res, &cost);
    bl__clock.resolution_ns = res;
    bl__clock.cost_ns = cost;
#if BL__HAVE_TSC
    if (bl__tsc_invariant() && !(forced && strcmp(forced, "clock") == 0)) {
        /* Calibrate TSC ticks against the clock over 20 ms: the clock's read jitter
           (tens of ns) is then a few parts per million of the interval. */
        uint64_t c0 = bl__clock_ns(), t0 = bl__rdtsc(), c1, t1;
        double ns_per_tick, tsc_res, tsc_cost;
        do { c1 = bl__clock_ns(); } while (c1 - c0 < 20000000u);
        t1 = bl__rdtsc();
        ns_per_tick = (double)(c1 - c0) / (double)(t1 - t0);
        bl__clock.use_tsc = 1;
        bl__probe_timer(&tsc_res, &tsc_cost);
        tsc_res *= ns_per_tick;
        tsc_cost *= ns_per_tick;
        if (tsc_res <= res || (forced && strcmp(forced, "tsc") == 0)) {
            bl__clock.ns_per_tick = ns_per_tick;
            bl__clock.resolution_ns = tsc_res;
            bl__clock.cost_ns = tsc_cost;
            bl__clock.name = "tsc";
        } else {
            bl__clock.use_tsc = 0;
        }
    }
#else
    (void)forced;
#endif
}

/* ---- Randomness ----------------------------------------------------------------------- */

BL__DEF uint64_t bl__run_seed;

BL__DEF uint64_t bl_seed(void) { return bl__run_seed; }

BL__DEF uint64_t bl_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- Statistics ------------------------------------------------------------------------
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

/* The 99% interval of the median from order statistics: the number of samples below
   the true median is Binomial(n, 1/2) whatever the distribution, so [s[k-1], s[n-k]]
   covers it with probability >= 99% when P(B <= k-1) <= 0.005. Returns k (0 if n is too
   small for any k). Probabilities are built outward from the middle term, which never
   underflows, and normalised at the end. */
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

BL__DEF void bl_compute_stats(const double *x, size_t n, bl_stats *out) {
    double *s = BL__CAST(double *, malloc(n * sizeof(double)));
    double sum = 0, sq = 0, q1, q3, iqr;
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
        if (s[i] < q1 - 1.5 * iqr) out->outliers_low++;
        if (s[i] > q3 + 1.5 * iqr) out->outliers_high++;
    }

    /* MAD reuses the sorted buffer: absolute deviations from the median. */
    for (i = 0; i < n; i++) s[i] = x[i] > out->median ? x[i] - out->median : out->median - x[i];
    qsort(s, n, sizeof(double), bl__compare_doubles);
    out->mad = bl_quantile_sorted(s, n, 0.5);
    free(s);
}

/* The comparison uses the ratio of each round, a[i]/b[i]: the two samples of a round
   were taken next to each other, so drift of the machine cancels inside the ratio.
   On this project's noisy 2-core VM the per-round ratios varied half as much as either
   benchmark alone, and a ratio of separate medians once read 0.76 for a kernel 1%
   slower where the median of per-round ratios read 1.011 (see docs/formats.md). The
   interval is the same order-statistic interval as the median's: no assumption about
   the shape of the ratios, and no random resampling to reproduce. */
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

/* ---- Suspend ------------------------------------------------------------------------------ */

struct bl_state {
    uint64_t suspend_start;
    uint64_t suspended_ticks; /* time inside BL_SUSPEND blocks during this sample */
};

BL__DEF int bl__suspend_begin(bl_state *state) {
    state->suspend_start = bl__now();
    return 1;
}

BL__DEF int bl__suspend_end(bl_state *state) {
    state->suspended_ticks += bl__now() - state->suspend_start;
    return 0;
}

/* ---- Options ------------------------------------------------------------------------------- */

enum bl__format { BL__TABLE, BL__CSV, BL__JSONL, BL__LIND };

typedef struct bl__options {
    int list;
    const char **filters;
    size_t filter_count;
    size_t samples;
    double time_limit_s;
    uint64_t seed;
    int seed_given;
    enum bl__format format;
    const char *out_path;
} bl__options;

static const char *const bl__usage =
    "usage: %s [flags]\n"
    "  --list                 list the benchmarks and exit\n"
    "  --filter=SUBSTRING     run benchmarks whose name contains SUBSTRING (repeatable: any matches);\n"
    "                         the baseline always runs, as the reference of the others\n"
    "  --samples=N            samples per benchmark, N >= 3 (default 50)\n"
    "  --time-limit=SECONDS   time limit per benchmark (default 1); at most one sample goes past it\n"
    "  --seed=N               seed of bl_seed() and of the iteration jitter, to reproduce a run\n"
    "  --format=FORMAT        table (default on a terminal), csv, jsonl (default otherwise), lind\n"
    "  --out=FILE             write the results to FILE instead of standard output\n"
    "  --help                 show this help\n"
    "formats: docs/formats.md; environment: BL_TIMER=clock|tsc, BL_NO_WARN=1\n";

static int bl__flag_error(const char *program, const char *flag, const char *rule,
                          const char *value) {
    (void)program;
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

static int bl__parse_seconds(const char *text, double *out) {
    char *end;
    double v;
    if (!text || !*text) return 0;
    errno = 0;
    v = strtod(text, &end);
    if (errno || *end || !(v > 0) || v > 1e6) return 0;
    *out = v;
    return 1;
}

/* Returns 0 to go on, or the exit status to stop with (--help gives 0 through -1). */
static int bl__parse_options(int argc, char **argv, bl__options *o) {
    const char *program = argc > 0 ? argv[0] : "benchmark";
    int i;
    memset(o, 0, sizeof *o);
    o->samples = BL__DEFAULT_SAMPLES;
    o->time_limit_s = BL__DEFAULT_TIME_LIMIT_S;
    o->format = isatty(fileno(stdout)) ? BL__TABLE : BL__JSONL;
    o->filters = BL__CAST(const char **, calloc((size_t)argc + 1, sizeof(char *)));
    if (!o->filters) return bl__flag_error(program, "benchlab:", "out of memory", NULL);
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL, *eq;
        char flag[64];
        size_t len;
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "benchlab: unexpected argument \"%s\" (flags start with --; see --help)\n", arg);
            return 2;
        }
        eq = strchr(arg, '=');
        len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof flag) len = sizeof flag - 1;
        memcpy(flag, arg, len);
        flag[len] = 0;
        if (strcmp(flag, "--help") == 0) {
            printf(bl__usage, program);
            return -1;
        }
        if (strcmp(flag, "--list") == 0) {
            if (eq) return bl__flag_error(program, "--list", "takes no value", eq + 1);
            o->list = 1;
            continue;
        }
        if (strcmp(flag, "--filter") && strcmp(flag, "--samples") && strcmp(flag, "--time-limit") &&
            strcmp(flag, "--seed") && strcmp(flag, "--format") && strcmp(flag, "--out")) {
            fprintf(stderr, "benchlab: unknown flag \"%s\" (see --help)\n", flag);
            return 2;
        }
        /* Both --flag=value and --flag value. */
        if (eq) value = eq + 1;
        else if (i + 1 < argc) value = argv[++i];
        else return bl__flag_error(program, flag, "needs a value", NULL);

        if (strcmp(flag, "--filter") == 0) {
            if (!*value) return bl__flag_error(program, "--filter", "needs a non-empty substring", value);
            o->filters[o->filter_count++] = value;
        } else if (strcmp(flag, "--samples") == 0) {
            uint64_t v;
            if (!bl__parse_u64(value, &v) || v < BL__MIN_SAMPLES || v > 1000000)
                return bl__flag_error(program, "--samples", "must be a whole number from 3 to 1000000", value);
            o->samples = (size_t)v;
        } else if (strcmp(flag, "--time-limit") == 0) {
            if (!bl__parse_seconds(value, &o->time_limit_s))
                return bl__flag_error(program, "--time-limit", "must be a number of seconds > 0 and <= 1000000", value);
        } else if (strcmp(flag, "--seed") == 0) {
            if (!bl__parse_u64(value, &o->seed))
                return bl__flag_error(program, "--seed", "must be a whole number from 0 to 18446744073709551615", value);
            o->seed_given = 1;
        } else if (strcmp(flag, "--format") == 0) {
            if (strcmp(value, "table") == 0) o->format = BL__TABLE;
            else if (strcmp(value, "csv") == 0) o->format = BL__CSV;
            else if (strcmp(value, "jsonl") == 0) o->format = BL__JSONL;
            else if (strcmp(value, "lind") == 0) o->format = BL__LIND;
            else return bl__flag_error(program, "--format", "must be one of table, csv, jsonl, lind", value);
        } else {
            if (!*value) return bl__flag_error(program, "--out", "needs a file name", value);
            o->out_path = value;
        }
    }
    return 0;
}

/* ---- The run: instances, measurement ------------------------------------------------------ */

/* One benchmark at one parameter value. */
typedef struct bl__instance {
    const bl__bench *bench;
    size_t param_index;
    char display[256]; /* name, or name/param_name=value */
} bl__instance;

typedef struct bl__result {
    const bl__instance *instance;
    uint64_t iterations;          /* calibrated */
    uint64_t *sample_iterations;
    double *samples;              /* per iteration, overhead subtracted */
    size_t count;
    bl_stats stats;
    double overhead_ns;           /* subtracted from every sample */
    const char *compared_to;      /* the baseline's name, or NULL */
    double ratio, ratio_low, ratio_high; /* median of per-round ratios and its interval */
    double ratio_of_medians;             /* median(this) / median(baseline), for reference */
    double *baseline_samples;            /* the baseline's sample of each round, when compared */
} bl__result;

static int64_t bl__param(const bl__instance *in) {
    return in->bench->params ? in->bench->params[in->param_index] : 0;
}

/* One sample: run the body n times between two timer reads; return ticks spent
   outside BL_SUSPEND blocks. The body is called through a pointer, so it cannot be
   inlined here and gets the same code in calibration and in the samples. */
static double bl__sample_ns(bl_body_fn body, uint64_t n, int64_t arg) {
    bl_state state;
    uint64_t start, end;
    state.suspend_start = 0;
    state.suspended_ticks = 0;
    start = bl__now();
    body(&state, n, arg);
    end = bl__now();
    return (double)(end - start - state.suspended_ticks) * bl__clock.ns_per_tick;
}

/* Grow n until one sample lasts at least target_ns; the first runs also warm caches,
   branch predictors and the frequency governor. Returns n, and the time spent. */
static uint64_t bl__calibrate(bl_body_fn body, int64_t arg, double target_ns, double deadline_ns) {
    uint64_t n = 1;
    int warm_rounds = 0;
    for (;;) {
        double t = bl__sample_ns(body, n, arg);
        if ((double)bl__clock_ns() > deadline_ns) return n;
        if (t >= target_ns) {
            /* One more sample at the final size: the first long sample is often slower
               (page faults, cold caches) and would make n too small. */
            if (warm_rounds++ >= 1) return n;
            continue;
        }
        if (t <= 0) { n *= 10; continue; }
        {
            /* Aim 20% past the target; at most x10 per step so that a first, cold
               sample cannot make n overshoot wildly. */
            double factor = 1.2 * target_ns / t;
            if (factor > 10) factor = 10;
            if (factor < 1.5) factor = 1.5;
            n = (uint64_t)((double)n * factor) + 1;
        }
    }
}

static double bl__nan(void) {
    volatile double zero = 0; /* volatile: computed at run time, no constant-folding warning */
    return zero / zero;
}

static uint64_t bl__jitter(uint64_t n, uint64_t *rng) {
    /* uniform in [n*(1-J), n*(1+J)] */
    double u = (double)(bl_random(rng) >> 11) / 9007199254740992.0;
    double v = (double)n * (1 + BL__JITTER * (2 * u - 1));
    return v < 1 ? 1 : (uint64_t)v;
}

static double bl__sample_target_ns(const bl__options *o, size_t samples_per_round) {
    double target = o->time_limit_s * 1e9 * BL__SAMPLE_BUDGET / (double)(o->samples * samples_per_round);
    double floor_ns = BL__RESOLUTION_FACTOR * bl__clock.resolution_ns;
    return target > floor_ns ? target : floor_ns;
}

static int bl__alloc_result(bl__result *r, size_t capacity) {
    r->samples = BL__CAST(double *, calloc(capacity, sizeof(double)));
    r->sample_iterations = BL__CAST(uint64_t *, calloc(capacity, sizeof(uint64_t)));
    return r->samples && r->sample_iterations;
}

/* Measure one instance alone. */
static int bl__measure(bl_body_fn body, int64_t arg, const bl__options *o, double overhead_ns,
                       uint64_t *rng, bl__result *r) {
    double start = (double)bl__clock_ns(), deadline = start + o->time_limit_s * 1e9, last = 0;
    if (!bl__alloc_result(r, o->samples)) return 0;
    r->iterations = bl__calibrate(body, arg, bl__sample_target_ns(o, 1), deadline);
    while (r->count < o->samples) {
        double now = (double)bl__clock_ns();
        uint64_t n;
        /* Stop before a sample that would end past the limit, but always take one. */
        if (r->count > 0 && now + last > deadline) break;
        n = bl__jitter(r->iterations, rng);
        r->samples[r->count] = bl__sample_ns(body, n, arg) / (double)n - overhead_ns;
        r->sample_iterations[r->count] = n;
        r->count++;
        last = (double)bl__clock_ns() - now;
    }
    bl_compute_stats(r->samples, r->count, &r->stats);
    return 1;
}

/* Measure an instance against the baseline in alternating rounds (AB, BA, AB, ...), so
   slow drift and periodic noise hit both alike and the order within a round cancels. */
static int bl__measure_paired(bl_body_fn body, int64_t arg, bl_body_fn base_body,
                              const bl__options *o, double overhead_ns, uint64_t *rng,
                              bl__result *r) {
    double start = (double)bl__clock_ns(), deadline = start + o->time_limit_s * 1e9, last = 0;
    double target = bl__sample_target_ns(o, 2);
    double *base = BL__CAST(double *, calloc(o->samples, sizeof(double)));
    bl_stats base_stats;
    uint64_t base_n;
    if (!base || !bl__alloc_result(r, o->samples)) { free(base); return 0; }
    r->iterations = bl__calibrate(body, arg, target, deadline);
    base_n = bl__calibrate(base_body, 0, target, deadline);
    while (r->count < o->samples) {
        double now = (double)bl__clock_ns();
        uint64_t n = bl__jitter(r->iterations, rng), nb = bl__jitter(base_n, rng);
        double a, b;
        if (r->count > 0 && now + last > deadline) break;
        if (r->count % 2 == 0) {
            a = bl__sample_ns(body, n, arg);
            b = bl__sample_ns(base_body, nb, 0);
        } else {
            b = bl__sample_ns(base_body, nb, 0);
            a = bl__sample_ns(body, n, arg);
        }
        r->samples[r->count] = a / (double)n - overhead_ns;
        r->sample_iterations[r->count] = n;
        base[r->count] = b / (double)nb - overhead_ns;
        r->count++;
        last = (double)bl__clock_ns() - now;
    }
    bl_compute_stats(r->samples, r->count, &r->stats);
    bl_compute_stats(base, r->count, &base_stats);
    r->baseline_samples = base; /* printed with the result, so a reader can redo the comparison */
    if (base_stats.median_ci_low > 0) {
        bl_ratio_ci(r->samples, base, r->count, &r->ratio, &r->ratio_low, &r->ratio_high);
        r->ratio_of_medians = r->stats.median / base_stats.median;
    } else {
        /* A baseline indistinguishable from zero (an empty body) has no meaningful ratio. */
        r->ratio = r->ratio_low = r->ratio_high = r->ratio_of_medians = bl__nan();
    }
    return 1;
}

/* The empty measurement loop: the same shape as a user's loop with a barrier in it.
   Its per-iteration cost (loop counter, branch, and the timer reads spread over n) is
   subtracted from every sample, so an empty benchmark reports about 0. */
static void bl__empty_body(bl_state *state, uint64_t n, int64_t arg) {
    uint64_t i;
    (void)state;
    (void)arg;
    for (i = 0; i < n; i++) BL_CLOBBER();
}

static double bl__measure_overhead(const bl__options *o, uint64_t *rng) {
    bl__options short_run = *o;
    bl__result r;
    double overhead;
    memset(&r, 0, sizeof r);
    if (short_run.time_limit_s > BL__OVERHEAD_TIME_S) short_run.time_limit_s = BL__OVERHEAD_TIME_S;
    if (!bl__measure(bl__empty_body, 0, &short_run, 0, rng, &r)) return 0;
    overhead = r.stats.median;
    free(r.samples);
    free(r.sample_iterations);
    return overhead;
}

/* ---- Context of the run ------------------------------------------------------------------ */

typedef struct bl__context {
    char date[32], host[128], cpu[160], os[128], kernel[128];
    const char *arch, *compiler_flags;
    char compiler[128];
    double overhead_ns;
} bl__context;

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
#if BL__HAVE_TSC
    if (strcmp(out, "unknown") == 0) {
        unsigned regs[12], eax, ebx, ecx, edx, i;
        if (__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) && eax >= 0x80000004u) {
            for (i = 0; i < 3; i++) __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
            memcpy(out, regs, size < sizeof regs ? size : sizeof regs);
            out[size < sizeof regs ? size - 1 : sizeof regs] = 0;
            bl__trim(out);
        }
    }
#endif
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
#ifdef BL_CFLAGS
    c->compiler_flags = BL_CFLAGS;
#else
    c->compiler_flags = NULL;
#endif
}

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
#endif
}

/* ---- Output ------------------------------------------------------------------------------- */

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

/* Scale to ns, us, ms or s so the figure has 3 to 4 significant digits. */
static const char *bl__human_time(char *out, size_t size, double ns) {
    double a = ns < 0 ? -ns : ns;
    if (a < 1e3) snprintf(out, size, "%.2fns", ns);
    else if (a < 1e6) snprintf(out, size, "%.2fus", ns / 1e3);
    else if (a < 1e9) snprintf(out, size, "%.2fms", ns / 1e6);
    else snprintf(out, size, "%.2fs", ns / 1e9);
    return out;
}

static void bl__print_context(FILE *f, const bl__options *o, const bl__context *c) {
    if (o->format == BL__JSONL) {
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
        fputs(",\"timer_resolution_ns\":", f); bl__json_number(f, bl__clock.resolution_ns);
        fputs(",\"timer_cost_ns\":", f); bl__json_number(f, bl__clock.cost_ns);
        fputs(",\"overhead_ns\":", f); bl__json_number(f, c->overhead_ns);
        fprintf(f, ",\"seed\":%llu,\"samples\":%lu,\"time_limit_s\":", (unsigned long long)bl__run_seed, (unsigned long)o->samples);
        bl__json_number(f, o->time_limit_s);
        fputs("}\n", f);
    } else if (o->format == BL__TABLE) {
        char res[32], ovh[32];
        fprintf(f, "benchlab %s | %s | %s %s | timer %s (resolution %s) | overhead %s/iter subtracted | seed %llu\n",
                BENCHLAB_VERSION, c->cpu, c->os, c->arch, bl__clock.name,
                bl__human_time(res, sizeof res, bl__clock.resolution_ns),
                bl__human_time(ovh, sizeof ovh, c->overhead_ns), (unsigned long long)bl__run_seed);
    } else if (o->format == BL__CSV) {
        fputs("name,param,counter,iterations,value\n", f);
    }
}

static void bl__print_result(FILE *f, const bl__options *o, const bl__result *r) {
    const bl__instance *in = r->instance;
    const bl__bench *b = in->bench;
    const bl_stats *s = &r->stats;
    size_t i;
    if (o->format == BL__JSONL) {
        fputs("{\"type\":\"result\",\"bench\":", f);
        bl__json_string(f, b->name);
        if (b->params) {
            fprintf(f, ",\"param\":%lld,\"param_name\":", (long long)bl__param(in));
            bl__json_string(f, b->param_name);
        } else {
            fputs(",\"param\":null,\"param_name\":null", f);
        }
        fprintf(f, ",\"counter\":\"time\",\"unit\":\"ns\",\"iterations\":%llu,\"sample_iterations\":[",
                (unsigned long long)r->iterations);
        for (i = 0; i < r->count; i++) fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)r->sample_iterations[i]);
        fputs("],\"samples\":[", f);
        for (i = 0; i < r->count; i++) { if (i) fputc(',', f); bl__json_number(f, r->samples[i]); }
        fputs("]", f);
        if (r->baseline_samples) {
            fputs(",\"baseline_samples\":[", f);
            for (i = 0; i < r->count; i++) { if (i) fputc(',', f); bl__json_number(f, r->baseline_samples[i]); }
            fputs("]", f);
        }
        fputs(",\"median\":", f); bl__json_number(f, s->median);
        fputs(",\"min\":", f); bl__json_number(f, s->min);
        fputs(",\"max\":", f); bl__json_number(f, s->max);
        fputs(",\"mean\":", f); bl__json_number(f, s->mean);
        fputs(",\"stddev\":", f); bl__json_number(f, s->stddev);
        fputs(",\"p75\":", f); bl__json_number(f, s->p75);
        fputs(",\"p90\":", f); bl__json_number(f, s->p90);
        fputs(",\"p99\":", f); bl__json_number(f, s->p99);
        fputs(",\"mad\":", f); bl__json_number(f, s->mad);
        fputs(",\"median_ci\":[", f); bl__json_number(f, s->median_ci_low);
        fputc(',', f); bl__json_number(f, s->median_ci_high);
        fputs("],\"ci_level\":", f); bl__json_number(f, BL__CI_LEVEL);
        fprintf(f, ",\"outliers_low\":%lu,\"outliers_high\":%lu,\"overhead\":",
                (unsigned long)s->outliers_low, (unsigned long)s->outliers_high);
        bl__json_number(f, r->overhead_ns);
        fprintf(f, ",\"baseline\":%s,\"compared_to\":", b->is_baseline ? "true" : "false");
        if (r->compared_to && r->ratio == r->ratio) {
            bl__json_string(f, r->compared_to);
            fputs(",\"ratio\":", f); bl__json_number(f, r->ratio);
            fputs(",\"ratio_ci\":[", f); bl__json_number(f, r->ratio_low);
            fputc(',', f); bl__json_number(f, r->ratio_high);
            fputs("],\"ratio_of_medians\":", f); bl__json_number(f, r->ratio_of_medians);
            fprintf(f, ",\"significant\":%s}\n", (r->ratio_low > 1 || r->ratio_high < 1) ? "true" : "false");
        } else {
            if (r->compared_to) bl__json_string(f, r->compared_to);
            else fputs("null", f);
            fputs(",\"ratio\":null,\"ratio_ci\":null,\"ratio_of_medians\":null,\"significant\":null}\n", f);
        }
    } else if (o->format == BL__CSV) {
        for (i = 0; i < r->count; i++) {
            fprintf(f, "%s,", b->name);
            if (b->params) fprintf(f, "%lld", (long long)bl__param(in));
            fprintf(f, ",time,%llu,%.1f\n", (unsigned long long)r->sample_iterations[i],
                    r->samples[i] * (double)r->sample_iterations[i]);
        }
    } else if (o->format == BL__LIND) {
        double m = s->median;
        long long avg = m >= 0 ? (long long)(m + 0.5) : -(long long)(-m + 0.5);
        fprintf(f, "%s\t%lld\t%llu\t%lld\n", b->name, (long long)bl__param(in),
                (unsigned long long)r->iterations, avg);
    } else {
        char med[32], low[32], p75[32], p90[32], p99[32], cmp[96] = "";
        char name[300];
        snprintf(name, sizeof name, "%s%s", in->display, b->is_baseline ? " (baseline)" : "");
        if (r->compared_to && r->ratio != r->ratio)
            snprintf(cmp, sizeof cmp, "no ratio: baseline is ~0");
        else if (r->compared_to)
            snprintf(cmp, sizeof cmp, "%.3fx [%.3f, %.3f]%s", r->ratio, r->ratio_low, r->ratio_high,
                     (r->ratio_low > 1 || r->ratio_high < 1) ? " *" : "");
        fprintf(f, "%-32s median: %-9s lowest: %-9s [p75: %-9s p90: %-9s p99: %-9s]  %s\n", name,
                bl__human_time(med, sizeof med, s->median), bl__human_time(low, sizeof low, s->min),
                bl__human_time(p75, sizeof p75, s->p75), bl__human_time(p90, sizeof p90, s->p90),
                bl__human_time(p99, sizeof p99, s->p99), cmp);
    }
    fflush(f);
}

/* ---- bl_main ----------------------------------------------------------------------------- */

/* Definition order: by file, then line, so the order does not depend on the order in
   which the toolchain runs constructors. */
static int bl__compare_benches(const void *pa, const void *pb) {
    const bl__bench *a = BL__CAST(const bl__bench *, pa), *b = BL__CAST(const bl__bench *, pb);
    int by_file = strcmp(a->file, b->file);
    if (by_file) return by_file;
    if (a->line != b->line) return a->line < b->line ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int bl__matches(const bl__options *o, const char *display) {
    size_t i;
    if (o->filter_count == 0) return 1;
    for (i = 0; i < o->filter_count; i++)
        if (strstr(display, o->filters[i])) return 1;
    return 0;
}

static void bl__free_result(bl__result *r) {
    free(r->samples);
    free(r->sample_iterations);
    free(r->baseline_samples);
    r->samples = NULL;
    r->sample_iterations = NULL;
    r->baseline_samples = NULL;
}

BL__DEF int bl_main(int argc, char **argv) {
    bl__registry *reg = &bl__benchmarks;
    bl__options o;
    bl__context context;
    bl__instance *instances = NULL;
    const bl__bench *baseline = NULL;
    size_t instance_count = 0, total = 0, i, j;
    uint64_t rng;
    FILE *out = stdout;
    int status = bl__parse_options(argc, argv, &o), baseline_selected = 0;

    if (status) {
        free(BL__CAST(void *, o.filters));
        return status < 0 ? 0 : status;
    }
    if (reg->out_of_memory) {
        fprintf(stderr, "benchlab: out of memory while registering benchmarks\n");
        return 2;
    }
    if (reg->count) qsort(reg->items, reg->count, sizeof(bl__bench), bl__compare_benches);
    for (i = 0; i < reg->count; i++) {
        const bl__bench *b = &reg->items[i];
        if (b->is_baseline) {
            if (baseline) {
                fprintf(stderr, "benchlab: two baselines defined (%s at %s:%d and %s at %s:%d); keep one BL_BASELINE and make the other BL_BENCH\n",
                        baseline->name, baseline->file, baseline->line, b->name, b->file, b->line);
                return 2;
            }
            baseline = b;
        }
        for (j = i + 1; j < reg->count; j++)
            if (strcmp(b->name, reg->items[j].name) == 0) {
                fprintf(stderr, "benchlab: two benchmarks named \"%s\" (%s:%d and %s:%d); rename one\n",
                        b->name, b->file, b->line, reg->items[j].file, reg->items[j].line);
                return 2;
            }
        total += b->params ? b->param_count : 1;
    }

    instances = BL__CAST(bl__instance *, calloc(total ? total : 1, sizeof(bl__instance)));
    if (!instances) {
        fprintf(stderr, "benchlab: out of memory\n");
        return 2;
    }
    for (i = 0; i < reg->count; i++) {
        const bl__bench *b = &reg->items[i];
        size_t count = b->params ? b->param_count : 1;
        for (j = 0; j < count; j++) {
            bl__instance *in = &instances[instance_count];
            in->bench = b;
            in->param_index = j;
            if (b->params) snprintf(in->display, sizeof in->display, "%s/%s=%lld", b->name, b->param_name, (long long)b->params[j]);
            else snprintf(in->display, sizeof in->display, "%s", b->name);
            if (!bl__matches(&o, in->display)) continue;
            if (b->is_baseline) baseline_selected = 1;
            instance_count++;
        }
    }
    if (o.filter_count && instance_count == 0) {
        fprintf(stderr, "benchlab: no benchmark matches --filter=%s (see --list)\n", o.filters[0]);
        free(instances);
        free(BL__CAST(void *, o.filters));
        return 2;
    }
    if (o.list) {
        for (i = 0; i < instance_count; i++)
            printf("%s%s\n", instances[i].display, instances[i].bench->is_baseline ? " (baseline)" : "");
        free(instances);
        free(BL__CAST(void *, o.filters));
        return 0;
    }
    if (o.out_path) {
        out = fopen(o.out_path, "w");
        if (!out) {
            fprintf(stderr, "benchlab: --out cannot open \"%s\" for writing: %s\n", o.out_path, strerror(errno));
            free(instances);
            free(BL__CAST(void *, o.filters));
            return 2;
        }
    }

    /* A seed nobody chose still has to be reported, so the run can be repeated. */
    if (o.seed_given) {
        bl__run_seed = o.seed;
    } else {
        uint64_t mix = bl__clock_ns() ^ ((uint64_t)(uintptr_t)&o << 16);
        bl__run_seed = bl_random(&mix) >> 1; /* fits a signed 64-bit reader too */
    }
    rng = bl__run_seed ^ 0x5DEECE66Dull; /* the harness's own stream, apart from bl_seed() users */

    bl__setup_timer();
    bl__warn_machine();
    bl__collect_context(&context);
    context.overhead_ns = bl__measure_overhead(&o, &rng);
    bl__print_context(out, &o, &context);

    /* The baseline runs first, alone, and always when it exists: it is the reference
       the others are compared with, even when --filter leaves it out. */
    if (baseline && !baseline_selected) {
        for (i = 0; i < instance_count; i++)
            if (!instances[i].bench->is_baseline) break;
        if (i < instance_count) {
            memmove(instances + 1, instances, instance_count * sizeof *instances);
            instances[0].bench = baseline;
            instances[0].param_index = 0;
            snprintf(instances[0].display, sizeof instances[0].display, "%s", baseline->name);
            instance_count++;
        }
    }
    for (i = 0; i < instance_count; i++) {
        if (instances[i].bench->is_baseline && i > 0) {
            bl__instance first = instances[i];
            memmove(instances + 1, instances, i * sizeof *instances);
            instances[0] = first;
        }
    }
    for (i = 0; i < instance_count; i++) {
        bl__result r;
        const bl__bench *b = instances[i].bench;
        int ok;
        memset(&r, 0, sizeof r);
        r.instance = &instances[i];
        r.overhead_ns = context.overhead_ns;
        if (baseline && !b->is_baseline) {
            r.compared_to = baseline->name;
            ok = bl__measure_paired(b->body, bl__param(&instances[i]), baseline->body, &o,
                                    context.overhead_ns, &rng, &r);
        } else {
            ok = bl__measure(b->body, bl__param(&instances[i]), &o, context.overhead_ns, &rng, &r);
        }
        if (!ok) {
            fprintf(stderr, "benchlab: out of memory while measuring %s\n", instances[i].display);
            status = 1;
        } else {
            bl__print_result(out, &o, &r);
        }
        bl__free_result(&r);
    }
    if (out != stdout && fclose(out) != 0) {
        fprintf(stderr, "benchlab: --out could not write \"%s\": %s\n", o.out_path, strerror(errno));
        status = 1;
    }
    free(instances);
    free(BL__CAST(void *, o.filters));
    return status;
}

#ifdef __cplusplus
}
#endif
#endif /* BENCHLAB__IMPLEMENTED */
