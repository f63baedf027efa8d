"""What `benchlab run` costs in CPU beyond the processes it runs.

Issue 40 asks for at most 0.2 s of CPU beyond the processes for a default run of an
already built file. Each round runs `benchlab run tiny.c -N 1` (one benchmark, build
cached, Python's module cache kept, the store holding the earlier rounds' runs) twice,
its output to /dev/null and to a pseudo-terminal (where the progress bar is drawn), and
the binary it built alone, with the arguments benchlab gives its one process (`BINARY
--format=jsonl --seed=N`, runner.py: one process is started on no chosen CPU); each of
the three first in turn. A command's CPU is user + sys of it and its children, from
`resource.getrusage(RUSAGE_CHILDREN)` before and after it: the run's CPU less the
program's is benchlab's own cost. With `--against SRC`, the same rounds also run the
benchlab of another checkout's src/ (e.g. an export of main) in its own scratch project,
first or second in turn. Prints medians over the rounds; a benchmark, not a test: it
exits 0 whatever they are.

    .venv/bin/python bench/run_overhead.py                            # 30 rounds (about 30 s)
    .venv/bin/python bench/run_overhead.py --against /tmp/main/src    # beside another checkout
    .venv/bin/python bench/run_overhead.py --quick                    # 3 rounds: it runs
"""
from __future__ import annotations

import argparse
import fcntl
import os
import random
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
from compare_gbench import user_environment  # noqa: E402  (bench/ is not a package)

ROOT = Path(__file__).resolve().parents[1]
#: Issue 40's figure: benchlab's own CPU seconds in a default run of a built file.
TARGET_S = 0.2
TINY = """#include "benchlab.h"
BL_BENCH(nothing, n) { for (uint64_t i = 0; i < n; i++) BL_KEEP(i); }
BL_MAIN()
"""


def cpu_of(argv: list[str], terminal: bool = False, **kwargs) -> float:
    """User + sys CPU seconds of argv and every child it waited for; its output goes nowhere,
    or with `terminal` to a pseudo-terminal of 120 x 40 (read and dropped as it comes)."""
    if not terminal:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    reader, writer = os.openpty()
    fcntl.ioctl(writer, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    drain = threading.Thread(target=_drain, args=(reader,), daemon=True)
    drain.start()
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, stdout=writer, stderr=writer, **kwargs)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        os.close(writer)  # the reader gets EOF (EIO) once no process holds the terminal
        drain.join()
        os.close(reader)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 65536):
            pass
    except OSError:  # EIO: the terminal's last writer closed it
        pass


class Side:
    """One benchlab (a checkout's src/) with its scratch project, built and stored once unmeasured."""

    def __init__(self, name: str, src: Path, scratch: Path):
        self.name, self.project = name, scratch / f"project-{name}"
        (self.project / "include").mkdir(parents=True)
        shutil.copy(ROOT / "include" / "benchlab.h", self.project / "include")
        (self.project / "tiny.c").write_text(TINY)
        self.env = user_environment(str(scratch / f"pycache-{name}"))
        self.env["PYTHONPATH"] = str(src)
        for variable in ("BENCHLAB_DB", "BENCHLAB_CONFIG"):  # the scratch project's own store and no config
            self.env.pop(variable, None)
        self.command = [sys.executable, "-m", "benchlab", "run", "tiny.c", "-N", "1"]
        for _ in range(2):  # builds, creates the store, fills Python's module cache: not counted
            self.run()
        [binary] = (self.project / ".benchlab" / "build").glob("*/tiny-*")
        self.alone = [str(binary), "--format=jsonl"]
        self.rng = random.Random(40)
        self.programs: list[float] = []
        self.piped: list[float] = []
        self.terminal: list[float] = []

    def run(self, terminal: bool = False) -> float:
        return cpu_of(self.command, terminal, cwd=self.project, env=self.env)

    def program(self) -> float:
        seed = self.rng.randrange(2**63)
        return cpu_of([*self.alone, f"--seed={seed}"], cwd=self.project, env=self.env)

    def round(self, index: int) -> None:
        """The program, the run piped and the run at a terminal, each first in turn."""
        steps = [lambda: self.programs.append(self.program()), lambda: self.piped.append(self.run()),
                 lambda: self.terminal.append(self.run(terminal=True))]
        for step in steps[index % 3:] + steps[:index % 3]:
            step()

    def rows(self) -> list[str]:
        return [self._row("piped", self.piped), self._row("terminal", self.terminal)]

    def _row(self, output: str, runs: list[float]) -> str:
        own = [run - program for run, program in zip(runs, self.programs)]
        ratio = statistics.median(run / program for run, program in zip(runs, self.programs) if program > 0)
        verdict = "under" if statistics.median(own) <= TARGET_S else "OVER"
        return (f"{self.name:<9} {output:<9} {statistics.median(self.programs):>12.3f} {statistics.median(runs):>9.3f} "
                f"{statistics.median(own):>15.3f} {min(own):>7.3f} {max(own):>7.3f} {ratio:>7.1f}   {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--against", metavar="SRC", help="another checkout's src/ to measure in the same rounds")
    parser.add_argument("--quick", action="store_true", help="3 rounds: checks that it runs")
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    if args.against and not (Path(args.against) / "benchlab" / "__init__.py").is_file():
        print(f"error: --against {args.against}: no benchlab package there (give a checkout's src/)", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="bench-run-overhead-"))
    try:
        sides = [Side("this", ROOT / "src", scratch)]
        if args.against:
            sides.append(Side("against", Path(args.against).resolve(), scratch))
        for index in range(rounds):
            for side in sides if index % 2 == 0 else reversed(sides):
                side.round(index)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"`benchlab run tiny.c -N 1` (one benchmark, build cached, store of the earlier rounds) against its "
          f"program alone, {rounds} rounds{', sides alternating first' if args.against else ''}; "
          f"CPU seconds (user + sys, with children), medians")
    print(f"{'benchlab':<9} {'output':<9} {'program (s)':>12} {'run (s)':>9} {'run - program':>15} {'min':>7} {'max':>7} "
          f"{'ratio':>7}   target {TARGET_S:g} s")
    for side in sides:
        print("\n".join(side.rows()))
    print("output: the run's stdout and stderr to /dev/null (piped) or to a pseudo-terminal (terminal: the progress bar)")
    print("run - program: benchlab's own CPU, per round (median, min, max); ratio: the run's CPU over the program's")
    if args.quick:
        print("(--quick: a few rounds check that it runs; the full mode measures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
