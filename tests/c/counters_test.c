/* Counters, checked on exact values rather than speed (other jobs share this machine):
   - allocs / alloc-bytes: a body that makes exactly 3 allocations of 100 bytes per
     iteration reports 3 and 300 per iteration; allocations inside BL_SUSPEND and by
     the harness are not counted; with a sanitizer or BL_NO_ALLOC_HOOK the records say
     "supported": false with a reason instead.
   - a user counter that a body bumps 7 times per iteration reports 7; 1000 more bumps
     per sample inside BL_SUSPEND do not show.
   - task-clock (a software perf event, available even in VMs without a PMU) is positive
     where perf events exist; hardware events are either measured or marked unsupported
     with a reason, never a zero; rusage-max-rss is a level in KiB.
   - the time record keeps exactly its old fields: no "supported" in it.
   - counters chosen in code (bl_set_counters) are overridden by --counters.
   - perf names map to perf's (type, config, modifiers); unknown names are refused.
   - allocation tracking is on only during the alloc pass: a body sees it on exactly
     in that pass's samples, never in the time pass.
   usage: counters_test [OUTPUT.jsonl] */
#define BENCHLAB_IMPLEMENTATION
#include "benchlab.h"
#include "testutil.h"

static uint64_t bumps;
static uint64_t read_bumps(void) { return bumps; }
BL_COUNTER(bumps, "bumps", read_bumps)

static void *(*volatile alloc_fn)(size_t) = malloc; /* volatile: the calls stay */

BL_BENCH(three_allocs, n) {
    uint64_t i;
    void *p[3];
    BL_SUSPEND {
        free(alloc_fn(5000)); /* suspended: not counted */
        bumps += 1000;
    }
    for (i = 0; i < n; i++) {
        int k;
        for (k = 0; k < 3; k++) p[k] = alloc_fn(100);
        for (k = 0; k < 3; k++) free(p[k]);
        bumps += 7;
    }
}

/* Which pass a body ran in, seen from inside: allocation tracking must be on in the
   alloc pass only, never while time is sampled. */
static uint64_t runs_tracked, runs_untracked;
BL_BENCH(observe_passes, n) {
    uint64_t i;
    if (__atomic_load_n(&bl__alloc_tracking, __ATOMIC_RELAXED)) runs_tracked++;
    else runs_untracked++;
    for (i = 0; i < n; i++) BL_CLOBBER();
}

/* Names map to the perf attributes perf itself uses (checked without a PMU). */
static void check_names(void) {
    struct { const char *name; int kind; uint32_t type; uint64_t config; int excl_user, excl_kernel; } want[] = {
        {"instructions", BL__C_PERF_HW, 0, 1, 0, 1},
        {"cpu-cycles", BL__C_PERF_HW, 0, 0, 0, 1},
        {"cycles:u", BL__C_PERF_HW, 0, 0, 0, 1},
        {"branch-misses", BL__C_PERF_HW, 0, 5, 0, 1},
        {"cache-misses:uk", BL__C_PERF_HW, 0, 3, 0, 0},
        {"L1-dcache-load-misses", BL__C_PERF_HW, 3, 0x10000, 0, 1},
        {"LLC-loads", BL__C_PERF_HW, 3, 0x2, 0, 1},
        {"dTLB-store-misses", BL__C_PERF_HW, 3, 0x10103, 0, 1},
        {"r01c2", BL__C_PERF_HW, 4, 0x1c2, 0, 1},
        {"r4a1:k", BL__C_PERF_HW, 4, 0x4a1, 1, 0},
        {"task-clock", BL__C_PERF_SW, 1, 1, 0, 1},
        {"cs", BL__C_PERF_SW, 1, 3, 0, 1},
        {"major-faults", BL__C_PERF_SW, 1, 6, 0, 1},
    };
    const char *bad[] = {"r", "rxyz", "instructions:q", "allocs:u", "L1-dcache-misses", "nonsense"};
    size_t i;
    bl__counter c;
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        int ok = bl__parse_counter(want[i].name, &c);
        TU_CHECK(ok && (int)c.kind == want[i].kind && c.perf_type == want[i].type && c.perf_config == want[i].config &&
                     c.exclude_user == want[i].excl_user && c.exclude_kernel == want[i].excl_kernel,
                 "%s: parsed %d kind %d type %u config %#llx excl user %d kernel %d", want[i].name, ok, (int)c.kind,
                 (unsigned)c.perf_type, (unsigned long long)c.perf_config, c.exclude_user, c.exclude_kernel);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) TU_CHECK(!bl__parse_counter(bad[i], &c), "%s parsed", bad[i]);
    TU_CHECK(bl__parse_counter("bumps", &c) && c.kind == BL__C_USER, "user counter bumps not found");
}

/* The line of the record of `counter` (a copy, so searches stop at its end), or NULL. */
static char *lines[16];
static size_t line_count;
static const char *record_of(const char *text, const char *counter) {
    char pattern[128];
    const char *p, *start, *end;
    char *copy;
    snprintf(pattern, sizeof pattern, "\"counter\":\"%s\"", counter);
    p = strstr(text, pattern);
    if (!p) return NULL;
    for (start = p; start > text && start[-1] != '\n'; start--) continue;
    end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    copy = (char *)malloc((size_t)(end - start) + 1);
    if (!copy) exit(2);
    memcpy(copy, start, (size_t)(end - start));
    copy[end - start] = 0;
    if (line_count < 16) lines[line_count++] = copy;
    return copy;
}

static int run(const char *out, const char *counters) {
    char flag_out[512], flag_counters[512];
    char *argv[8];
    snprintf(flag_out, sizeof flag_out, "--out=%s", out);
    snprintf(flag_counters, sizeof flag_counters, "--counters=%s", counters);
    argv[0] = (char *)"counters_test";
    argv[1] = (char *)"--samples=5";
    argv[2] = (char *)"--time-limit=0.1";
    argv[3] = (char *)"--format=jsonl";
    argv[4] = flag_out;
    argv[5] = flag_counters;
    argv[6] = NULL;
    return bl_main(6, argv);
}

int main(int argc, char **argv) {
    const char *out = argc > 1 ? argv[1] : "counters_test.jsonl";
    const char *rec, *time_rec;
    char *text;
    check_names();
    bl_set_counters("time"); /* overridden by --counters below */
    TU_CHECK(run(out, "time,allocs,alloc-bytes,bumps,task-clock,instructions,rusage-max-rss") == 0, "bl_main failed");
    text = tu_read_file(out);

    time_rec = record_of(text, "time");
    TU_CHECK(time_rec != NULL, "no time record");
    TU_CHECK(!time_rec || !strstr(time_rec, "\"supported\""), "the time record gained a \"supported\" field");

    rec = record_of(text, "allocs");
    TU_CHECK(rec != NULL, "no allocs record");
    if (rec && strncmp(strstr(rec, "\"unit\""), "\"unit\":\"calls\"", 14) == 0 && strstr(rec, "\"supported\":true")) {
        TU_CHECK(tu_number(rec, "median") == 3 && tu_number(rec, "min") == 3 && tu_number(rec, "max") == 3,
                 "allocs: median %g min %g max %g, want exactly 3", tu_number(rec, "median"), tu_number(rec, "min"),
                 tu_number(rec, "max"));
        rec = record_of(text, "alloc-bytes");
        TU_CHECK(rec && tu_number(rec, "median") == 300 && tu_number(rec, "max") == 300,
                 "alloc-bytes: median %g, want exactly 300", rec ? tu_number(rec, "median") : -1);
    } else {
#if BL__ALLOC_HOOK
        TU_CHECK(0, "allocs not supported although the allocation hook is compiled in");
#endif
        TU_CHECK(rec && strstr(rec, "\"supported\":false,\"reason\":\""), "allocs unsupported without a reason");
        printf("allocs not supported in this build (expected under sanitizers)\n");
    }

    /* observe_passes: tracked exactly in the alloc pass's samples and its warm-up. */
    {
        const char *obs = strstr(text, "\"bench\":\"observe_passes\",\"param\":null,\"param_name\":null,\"counter\":\"allocs\"");
        double samples[64];
        TU_CHECK(obs != NULL, "no allocs record for observe_passes");
        TU_CHECK(runs_untracked > 0, "the time pass never ran untracked");
        const char *sup = obs ? strstr(obs, "\"supported\":true") : NULL;
        if (sup && sup < strchr(obs, '\n')) {
            size_t n = tu_array(obs, "samples", samples, 64);
            TU_CHECK(runs_tracked == n + 1, "allocation tracking was on in %llu runs of the body, want the alloc pass's %lu samples + 1 warm-up",
                     (unsigned long long)runs_tracked, (unsigned long)n);
        } else {
            TU_CHECK(runs_tracked == 0, "tracking on without an alloc pass");
        }
    }

    rec = record_of(text, "bumps");
    TU_CHECK(rec && tu_number(rec, "median") == 7 && tu_number(rec, "max") == 7 && tu_number(rec, "min") == 7,
             "user counter: median %g, want exactly 7 (suspended bumps must not count)", rec ? tu_number(rec, "median") : -1);
    TU_CHECK(rec && strstr(rec, "\"unit\":\"bumps\""), "user counter unit");

    rec = record_of(text, "task-clock");
    TU_CHECK(rec != NULL, "no task-clock record");
#if defined(__linux__)
    if (rec && strstr(rec, "\"supported\":true")) {
        TU_CHECK(tu_number(rec, "median") > 0, "task-clock median %g, want > 0", tu_number(rec, "median"));
        TU_CHECK(strstr(rec, "\"running_fraction\":") != NULL, "task-clock has no running_fraction");
    } else {
        printf("task-clock not supported here: %.160s\n", rec ? rec : "");
    }
#endif
    rec = record_of(text, "instructions");
    TU_CHECK(rec != NULL, "no instructions record");
    if (rec && strstr(rec, "\"supported\":false")) {
        TU_CHECK(strstr(rec, "\"reason\":\"perf_event_open") || strstr(rec, "\"reason\":\"perf events"),
                 "unsupported instructions without a perf reason: %.200s", rec);
    } else if (rec) {
        TU_CHECK(tu_number(rec, "median") > 0, "instructions median %g, want > 0", tu_number(rec, "median"));
    }
    rec = record_of(text, "rusage-max-rss");
    TU_CHECK(rec && tu_number(rec, "median") > 100 && strstr(rec, "\"per_iteration\":false"),
             "rusage-max-rss should be a level in KiB");
    free(text);

    /* Without "time" in the list, no time record. */
    TU_CHECK(run(out, "bumps") == 0, "bl_main failed");
    text = tu_read_file(out);
    TU_CHECK(record_of(text, "time") == NULL, "--counters=bumps still printed time");
    TU_CHECK(record_of(text, "bumps") != NULL, "--counters=bumps printed no bumps");
    free(text);

    while (line_count) free(lines[--line_count]);
    printf("counters_test: %d failures\n", tu_failures);
    return tu_failures != 0;
}
