"""The run's context: enough to know, a year later, what produced a number."""
from __future__ import annotations

import datetime
import os
import platform as host_platform
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy

from benchlab import __version__
from benchlab.measuring import buildtargets
from benchlab.measuring.build import compiler_version
from benchlab.config import Config
from benchlab.measuring.platforms import Platform


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return host_platform.processor() or "unknown"


def git_commit(root: Path) -> dict[str, Any] | None:
    """The commit of the working directory, and whether it has uncommitted changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip())}


def machine() -> dict[str, Any]:
    """The part of a context that names the machine (noise.Machine reads it)."""
    return {"host": socket.gethostname(), "cpu": cpu_model(), "kernel": host_platform.release(),
            "arch": host_platform.machine()}


def load() -> dict[str, Any] | None:
    """How busy the machine is: its 1-minute load average and the CPUs this process may use
    (noise.busy reads it); None where the platform has no load average."""
    try:
        return {"average": round(os.getloadavg()[0], 2), "cpus": len(os.sched_getaffinity(0))}
    except (AttributeError, OSError):
        return None


def collect(config: Config, platforms: list[Platform], seed: int, argv: list[str]) -> dict[str, Any]:
    # the host's compiler always; another target's when a platform of the run builds for it
    compilers = {target.name: compiler_version(target.compiler_of(config.build)) for target in buildtargets.TARGETS
                 if target.name == buildtargets.HOST or any(p.build == target.name for p in platforms)}
    return {
        "benchlab": __version__,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
        **machine(),
        "os": host_platform.system(),
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,  # the statistics imported it; importlib.metadata would read dist-info files
        "compilers": compilers,
        "cflags": {target.name: target.flags_of(config.build) for target in buildtargets.TARGETS},
        "git": git_commit(config.root),
        "seed": seed,
        "argv": argv,
        # At the start; the end's is added when the rounds are done (recording.Recorder.run).
        "load": {"start": load()},
        "platforms": {p.name: {"command": p.spec.command, "launchers": p.spec.launchers, "build": p.build,
                               "version": p.version()} for p in platforms},
        # Filled in as binaries report their own context records (timer, overhead, ...).
        "binaries": {},
    }
