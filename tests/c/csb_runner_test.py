"""A threaded target read the way CSB's runner reads a CSB binary.

CSB's runner (CSB's documentation of its builtin benchmarks, "Builtin benchmark
output") starts a binary with CSB's flags (-t= -n= -d= -s= -opK=), reads its stdout
through a pipe, splits each line into `key=val;` pairs and takes the metrics by name.
It passes no --format: the csb line must be what such a binary prints by default. The
parser below is written to that description alone; it does not use benchlab's.

Latencies are in timer ticks, `ticks_to_ms` per ms, and each histogram counts every
operation in CSB's 60 buckets (bucket 0 up to 99 ticks, each next 1.1 times wider, the
bounds computed here from that rule): so the minimum and maximum latency lie in the
first and last non-empty buckets, and the buckets add up to the count.

usage: python csb_runner_test.py HASH_MAP_PROGRAM PLAIN_PROGRAM BM_EMPTY_PROGRAM
  HASH_MAP_PROGRAM: suites/concurrency/hash_map (3 operations: lookup, insert, delete)
  PLAIN_PROGRAM:    a program without threaded targets (tests/c/cli_prog.c)
  BM_EMPTY_PROGRAM: suites/concurrency/bm_empty (CSB's bm_empty)
"""
import resource
import subprocess
import sys

# The keys of the seed's sample line, in its units: parameters, per operation (and
# `univ`) latency statistics in ticks, throughput per ms (and per second: _ts), the
# thread windows in microseconds ("_ms") and in ticks, CPU times in microseconds, KiB.
PARAMETERS = ("num_threads", "init_sz", "max_noise", "duration", "algo_name")
OP_STATS = ("max", "min", "sum", "count", "succ_count", "skipped_count", "avg", "succ_percent")
RUN_KEYS = ("throughput_max", "throughput_min", "throughput_max_ts", "throughput_min_ts", "ticks_to_ms",
            "duration_max_ms", "duration_max_clk", "duration_min_ms", "duration_min_clk",
            "sys_time", "usr_time", "max_rss_kb")
HISTOGRAM_BUCKETS = 60
# The keys of the seed's bm_empty line, in its order.
BM_EMPTY_KEYS = ("num_threads", "init_sz", "max_noise", "duration", "op0_dist", "algo_name", "op0_nop_max",
                 "op0_nop_min", "op0_nop_sum", "op0_nop_count", "op0_nop_succ_count", "op0_nop_skipped_count",
                 "op0_nop_avg", "op0_nop_succ_percent", "op0_nop_histogram", "univ_max", "univ_min", "univ_sum",
                 "univ_count", "univ_succ_count", "univ_skipped_count", "univ_avg", "univ_succ_percent",
                 "throughput_max", "throughput_min", "throughput_max_ts", "throughput_min_ts", "ticks_to_ms",
                 "duration_max_ms", "duration_max_clk", "duration_min_ms", "duration_min_clk", "sys_time",
                 "usr_time", "max_rss_kb")


def bucket_bounds():
    """CSB's bucket bounds (inclusive): 99, then each bucket 1.1 times wider (as an int)."""
    bounds, low, high = [], 0, 99
    for _ in range(HISTOGRAM_BUCKETS):
        bounds.append(high)
        low, high = high + 1, high + int((high - low + 1) * 1.1)
    return bounds


def bucket_of(latency):
    return next((i for i, bound in enumerate(bucket_bounds()) if latency <= bound), HISTOGRAM_BUCKETS - 1)

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def csb_records(stdout):
    """Every line of `key=val;` pairs as a dict of strings, as CSB's runner splits it
    (on ';', then on the first '='); a line that is not such pairs is an error."""
    records = []
    for line in stdout.splitlines():
        if not line.strip():
            continue
        record = {}
        for pair in line.strip().rstrip(";").split(";"):
            key, eq, value = pair.partition("=")
            if not eq or not key:
                raise ValueError(f"not a key=val; line: {line[:120]!r}")
            record[key] = value
        records.append(record)
    return records


#: The CPU time (user + system, in microseconds) of the last program run, as the kernel counted it.
last_cpu_us = 0.0


def run(program, *args):
    global last_cpu_us
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([program, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env={"BL_NO_WARN": "1", "PATH": "/usr/bin:/bin"}, timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    last_cpu_us = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e6
    check(proc.returncode == 0, f"{' '.join(args)}: exit status {proc.returncode}: {proc.stderr[:300]}")
    return proc.stdout


def near(value, expected, tolerance):
    return abs(value - expected) <= tolerance * abs(expected)


def check_hash_map(record, threads, duration, size, nops, freqs, all_timed=True):
    for key in PARAMETERS + RUN_KEYS:
        check(key in record, f"no key {key}")
    ops = ("lookup", "insert", "delete")
    for k, name in enumerate(ops):
        check(record.get(f"op{k}_dist") == str(freqs[k]), f"op{k}_dist={record.get(f'op{k}_dist')}, want {freqs[k]}")
        for stat in OP_STATS + ("histogram",):
            check(f"op{k}_{name}_{stat}" in record, f"no key op{k}_{name}_{stat}")
    for stat in OP_STATS:
        check(f"univ_{stat}" in record, f"no key univ_{stat}")
    if failures:
        return
    check(record["algo_name"] == "hash_map", f"algo_name={record['algo_name']}")
    check(int(record["num_threads"]) == threads, f"num_threads={record['num_threads']}, want {threads}")
    check(int(record["init_sz"]) == size, f"init_sz={record['init_sz']}, want {size}")
    check(int(record["max_noise"]) == nops, f"max_noise={record['max_noise']}, want {nops}")
    check(float(record["duration"]) == duration, f"duration={record['duration']}, want {duration} (seconds)")
    counts = [int(record[f"op{k}_{name}_count"]) for k, name in enumerate(ops)]
    univ = int(record["univ_count"])
    check(univ > 0 and sum(counts) == univ, f"operation counts {counts} do not add up to univ_count={univ}")
    for k, name in enumerate(ops):
        buckets = record[f"op{k}_{name}_histogram"].split(",")
        check(len(buckets) == HISTOGRAM_BUCKETS, f"op{k} histogram has {len(buckets)} buckets, want {HISTOGRAM_BUCKETS}")
        # A CSB reader's arithmetic holds: the histogram adds up to count and sum / count
        # is the mean. By default every operation is timed, as CSB times them; with
        # --latency-every=batch a sample, scaled to count (op*_timed says how many).
        histogram = [int(b) for b in buckets]
        check(sum(histogram) == counts[k], f"op{k} histogram sums to {sum(histogram)}, want count {counts[k]}")
        timed = int(record[f"op{k}_{name}_timed"])
        lo, avg, hi = (float(record[f"op{k}_{name}_{s}"]) for s in ("min", "avg", "max"))
        if all_timed:
            check(timed == counts[k], f"op{k}_{name}_timed={timed}, want {counts[k]} (every operation timed)")
            filled = [i for i, n in enumerate(histogram) if n]
            check(filled[0] == bucket_of(lo) and filled[-1] == bucket_of(hi),
                  f"op{k}: min {lo} and max {hi} ticks in CSB buckets {bucket_of(lo)} and {bucket_of(hi)}, "
                  f"want the first and last non-empty, {filled[0]} and {filled[-1]}")
        else:
            check(0 < timed <= counts[k], f"op{k}_{name}_timed={timed}, want 1 to {counts[k]}")
        # The minimum may be 0: an operation shorter than one tick of the timer (this VM's
        # TSC counts in 10 ns steps on an AMD host) reads two equal clock values.
        check(0 <= lo <= avg <= hi and hi > 0, f"op{k} latency min {lo} avg {avg} max {hi} (ticks)")
        mean = float(record[f"op{k}_{name}_sum"]) / counts[k]
        check(near(mean, avg, 0.01), f"op{k} sum / count = {mean}, _avg = {avg}")
    # Windows: "_ms" keys in microseconds, "_clk" in ticks, ticks_to_ms ticks per ms.
    longest_us, shortest_us = float(record["duration_max_ms"]), float(record["duration_min_ms"])
    ticks_per_ms = float(record["ticks_to_ms"])
    # No check of the windows against -d: how long a thread ran depends on how busy the
    # machine is (0.42 s for -d=0.2 at load 25). `duration` above is the flag as read.
    check(0 < shortest_us <= longest_us, f"duration_min_ms {shortest_us}, duration_max_ms {longest_us}")
    check(near(float(record["duration_max_clk"]) / ticks_per_ms * 1e3, longest_us, 0.01),
          f"duration_max_clk / ticks_to_ms = {float(record['duration_max_clk']) / ticks_per_ms} ms, want {longest_us / 1e3} ms")
    # Throughput: every operation over the longest window (min) and the shortest (max),
    # per ms; the _ts pair per second.
    tmin, tmax = float(record["throughput_min"]), float(record["throughput_max"])
    check(near(tmin, univ / (longest_us / 1e3), 0.01), f"throughput_min={tmin} ops/ms, want {univ / (longest_us / 1e3):.1f}")
    check(near(tmax, univ / (shortest_us / 1e3), 0.01), f"throughput_max={tmax} ops/ms, want {univ / (shortest_us / 1e3):.1f}")
    check(near(float(record["throughput_min_ts"]), tmin * 1e3, 1e-6), "throughput_min_ts is not throughput_min per second")
    check(near(float(record["throughput_max_ts"]), tmax * 1e3, 1e-6), "throughput_max_ts is not throughput_max per second")
    # The threads' CPU time in microseconds: at most what the kernel counted for the whole
    # process (in nanoseconds it would be a thousand times more).
    cpu_us = float(record["usr_time"]) + float(record["sys_time"])
    check(0 < cpu_us <= last_cpu_us + 1, f"usr_time + sys_time = {cpu_us} us, more than the process's {last_cpu_us:.0f} us")
    check(100 < float(record["max_rss_kb"]) < 1e6, f"max_rss_kb={record['max_rss_kb']}")
    # What the line holds, said under keys CSB does not use.
    check(record.get("latency_unit") == "ticks", f"latency_unit={record.get('latency_unit')}, want ticks")
    check(record.get("latency_every") == ("1" if all_timed else "batch"), f"latency_every={record.get('latency_every')}")


def main():
    hash_map, plain, bm_empty = sys.argv[1], sys.argv[2], sys.argv[3]
    # 1. CSB's flags, stdout a pipe, no --format: one csb line per target, nothing else.
    stdout = run(hash_map, "-t=2", "-n=5", "-d=0.2", "-s=100", "-op0=500", "-op1=262", "-op2=262")
    try:
        records = csb_records(stdout)
    except ValueError as error:
        records = []
        check(False, f"CSB flags, piped: {error}")
    check(len(records) == 1, f"CSB flags, piped: {len(records)} key=val; lines, want 1: {stdout[:200]!r}")
    if len(records) == 1:
        check_hash_map(records[0], threads=2, duration=0.2, size=100, nops=5, freqs=(500, 262, 262))
    # A sample of the operations timed, as the line then says: scaled to the counts.
    stdout = run(hash_map, "-t=2", "-d=0.2", "-op0=500", "-op1=262", "-op2=262", "--latency-every=batch")
    records = csb_records(stdout)
    check(len(records) == 1, f"--latency-every=batch: {len(records)} key=val; lines, want 1")
    if len(records) == 1:
        check_hash_map(records[0], threads=2, duration=0.2, size=0, nops=0, freqs=(500, 262, 262), all_timed=False)
    # In ns, declared: ticks_to_ms=1000000, and the buckets CSB's bounds in ns.
    stdout = run(hash_map, "-t=1", "-d=0.1", "--csb-unit=ns")
    record = (csb_records(stdout) or [{}])[0]
    check(record.get("latency_unit") == "ns" and record.get("ticks_to_ms") == "1000000",
          f"--csb-unit=ns: latency_unit={record.get('latency_unit')} ticks_to_ms={record.get('ticks_to_ms')}")
    if "op0_lookup_histogram" in record:
        filled = [i for i, n in enumerate(record["op0_lookup_histogram"].split(",")) if int(n)]
        lo, hi = int(record["op0_lookup_min"]), int(record["op0_lookup_max"])
        check((filled[0], filled[-1]) == (bucket_of(lo), bucket_of(hi)),
              f"--csb-unit=ns: min {lo} ns, max {hi} ns in buckets {filled[0]}..{filled[-1]}")
    # CSB's bm_empty as CSB's ctest runs it (shorter): the seed's keys, in its order.
    stdout = run(bm_empty, "-t=2", "-n=0", "-d=0.2", "-s=0", "-op0=1024")
    record = (csb_records(stdout) or [{}])[0]
    keys = [key for key in record if key in BM_EMPTY_KEYS]
    check(keys == list(BM_EMPTY_KEYS), f"bm_empty: keys {keys}, want the seed's {list(BM_EMPTY_KEYS)}")
    check(list(record)[:len(BM_EMPTY_KEYS)] == list(BM_EMPTY_KEYS), "bm_empty: our keys come before or among CSB's")
    check(record.get("algo_name") == "bm_empty", f"bm_empty: algo_name={record.get('algo_name')}")
    # A single CSB flag is enough, as the runner's sweep passes them one by one.
    stdout = run(hash_map, "-d=0.1")
    check(stdout.startswith("num_threads=1;"), f"-d=0.1 alone: {stdout[:120]!r}")
    # 2. --format given explicitly wins over the CSB default.
    stdout = run(hash_map, "-t=1", "-d=0.1", "--format=jsonl")
    check(stdout.startswith('{"type":"context"'), f"-t=1 --format=jsonl: {stdout[:120]!r}")
    # 3. The long spellings are benchlab's, not CSB's: the usual default (jsonl when piped).
    stdout = run(hash_map, "--threads=1", "--duration=0.1")
    check(stdout.startswith('{"type":"context"'), f"--threads=1, piped: {stdout[:120]!r}")
    # 4. A program without threaded targets has no csb form: a CSB flag there would change
    #    nothing, so it is an error (issue 37: -s=500 was taken as --size); benchlab run
    #    --sweep threads=... gives such a binary --threads=N, which every program takes.
    refused = subprocess.run([plain, "-t=2", "--samples=3", "--time-limit=0.01"], capture_output=True, text=True,
                             env={"BL_NO_WARN": "1", "PATH": "/usr/bin:/bin"}, timeout=60)
    check(refused.returncode == 2 and "-t means threads (--threads) for a threaded target" in refused.stderr,
          f"plain program -t=2: exit {refused.returncode}, {refused.stderr[:200]!r}")
    stdout = run(plain, "--threads=2", "--samples=3", "--time-limit=0.01")
    check(stdout.startswith('{"type":"context"') and '"type":"result"' in stdout,
          f"plain program --threads=2: {stdout[:120]!r}")
    for failure in failures:
        print("FAIL:", failure)
    print(f"csb_runner_test: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
