#!/usr/bin/env python3
"""What installing benchlab costs (issue 39): the size of a fresh virtual environment's
site-packages and the time of `pip install`, per configuration, this checkout against another.

    .venv/bin/python bench/install_weight.py --before DIR     # DIR: a checkout to compare with
    flock /work/bench.lock .venv/bin/python bench/install_weight.py --before DIR --repeat 2

DIR is e.g. `git worktree add /tmp/main main`, or `git archive COMMIT | tar -x -C DIR`.
Configurations: the base install (`pip install DIR`), the extras (`DIR[all]`, this
checkout only: the one before had none), and what the tests' CI job installs (`DIR[test]`
before, `DIR[all,test]` now).

Every dependency is first put in a wheelhouse (`pip wheel`, from pip's cache), and each
timed install reads only it (`--no-index --find-links`): the time is pip's resolving,
benchlab's own wheel built from source and the unpacking, not a network's. A fresh
virtual environment per install, made before the clock starts. The size is `du -sk` of its
site-packages in MB (2^20 bytes), and that less an empty environment's (pip, setuptools);
the largest packages are named. The time is wall-clock (the fastest of --repeat, the others
in brackets): quote it with `uptime`, under `flock /work/bench.lock`.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parents[1]


def run(*argv: str, **options) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True, **options)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr}")
    return done


def site_packages(venv: pathlib.Path) -> pathlib.Path:
    return next(venv.glob("lib/python3*/site-packages"))


def size_mb(path: pathlib.Path) -> float:
    return int(run("du", "-sk", str(path)).stdout.split()[0]) / 1024


def largest(site: pathlib.Path, count: int = 4) -> str:
    """The biggest top-level entries of site-packages (a package's directory, its .libs)."""
    sizes = {}
    for entry in site.iterdir():
        if entry.suffix in (".dist-info", ".pth") or entry.name in ("__pycache__", "_distutils_hack", "pip",
                                                                     "setuptools", "pkg_resources"):
            continue  # pip and setuptools are an empty environment's
        name = entry.name.removesuffix(".libs").split("-")[0].lower()
        sizes[name] = sizes.get(name, 0) + (size_mb(entry) if entry.is_dir() else entry.stat().st_size / 2 ** 20)
    top = sorted(sizes.items(), key=lambda item: -item[1])[:count]
    return ", ".join(f"{name} {mb:.0f}" for name, mb in top)


def install(spec: str, wheelhouse: pathlib.Path, scratch: pathlib.Path) -> tuple[float, float, str]:
    """(seconds, MB of site-packages, largest) of one install of `spec` into a fresh environment."""
    venv = scratch / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    run(sys.executable, "-m", "venv", str(venv))
    started = time.perf_counter()
    run(str(venv / "bin/python"), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(wheelhouse), spec,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    seconds = time.perf_counter() - started
    site = site_packages(venv)
    return seconds, size_mb(site), largest(site)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=pathlib.Path, required=True, help="the checkout to compare with")
    parser.add_argument("--repeat", type=int, default=1, help="installs per configuration (the table: the fastest)")
    args = parser.parse_args()
    before, after = args.before.resolve(), HERE
    configurations = [("before", "base", str(before)), ("after", "base", str(after)),
                      ("after", "[all] (wasm, postgres)", f"{after}[all]"),
                      ("before", "CI: [test]", f"{before}[test]"), ("after", "CI: [all,test]", f"{after}[all,test]")]
    print(f"$ {' '.join([os.path.relpath(sys.executable), *sys.argv])}")
    print(f"uptime: {run('uptime').stdout.strip()}")
    with tempfile.TemporaryDirectory(prefix="install-weight-") as temporary:
        scratch = pathlib.Path(temporary)
        wheelhouse = scratch / "wheelhouse"
        started = time.perf_counter()
        # Every wheel the installs need, benchlab's build requirements included (from pip's cache);
        # a checkout at a time: both are benchlab of one version, which one resolution cannot hold.
        for checkout in (f"{before}[test]", f"{after}[all,test]"):
            run(sys.executable, "-m", "pip", "wheel", "-q", "-w", str(wheelhouse), "setuptools>=70.1", "wheel", checkout)
        print(f"wheelhouse: {len(list(wheelhouse.iterdir()))} wheels in {time.perf_counter() - started:.0f} s")
        run(sys.executable, "-m", "venv", str(scratch / "empty"))
        empty_mb = size_mb(site_packages(scratch / "empty"))
        print(f"an empty environment's site-packages (pip, setuptools): {empty_mb:.0f} MB\n")
        print("| checkout | install | site-packages (MB) | beyond an empty one (MB) | pip install (s) | largest (MB) |")
        print("|---|---|---|---|---|---|")
        for label, what, spec in configurations:
            results = [install(spec, wheelhouse, scratch) for _ in range(args.repeat)]
            seconds = sorted(r[0] for r in results)
            shown = f"{seconds[0]:.1f}" + (f" ({', '.join(f'{s:.1f}' for s in seconds[1:])})" if len(seconds) > 1 else "")
            print(f"| {label} | {what} | {results[0][1]:.0f} | {results[0][1] - empty_mb:.0f} | {shown} | {results[0][2]} |",
                  flush=True)
    print(f"\nuptime: {run('uptime').stdout.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
