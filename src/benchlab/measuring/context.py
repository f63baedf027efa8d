"""The run's context: enough to know, a year later, what produced a number."""
from __future__ import annotations

import datetime
import importlib.util
import os
import platform as host_platform
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchlab.bundled import version as benchlab_version
from benchlab import buildtargets
from benchlab.measuring.build import compiler_version
from benchlab.config import Config
from benchlab.errors import UserError
from benchlab.measuring.platforms import Platform
from benchlab.records import printable


def numpy_version() -> str:
    """The installed numpy's version, without importing numpy (0.1 s of CPU; a run's
    statistics do without it, stats.py): the line of numpy's version.py that spells it
    out (numpy 2 writes one; importlib.metadata's own import is 0.05 s). Else numpy's."""
    if "numpy" in sys.modules:
        return sys.modules["numpy"].__version__
    spec = importlib.util.find_spec("numpy")
    if spec is not None and spec.origin:
        try:
            found = _VERSION_LINE.search(Path(spec.origin).with_name("version.py").read_text())
        except OSError:
            found = None
        if found:
            return found.group(1)
    import numpy
    return numpy.__version__


#: numpy/version.py's line `version = "2.4.6"` (written when numpy is built).
_VERSION_LINE = re.compile(r'^version\s*=\s*["\']([^"\']+)["\']\s*$', re.MULTILINE)


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


#: A stable name for this machine where its host name is not: hosted CI runners get a new
#: host name every job, so no two jobs would be one machine's history (docs/cli.md, "Same
#: machine in CI"). An environment variable rather than a benchlab.toml key: the name belongs
#: to the machine (the CI job's settings), not to the project every developer checks out.
MACHINE_VARIABLE = "BENCHLAB_MACHINE"
#: What a machine name may be: as a host name or a baseline's name, 1 to 100 characters.
_MACHINE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,99}")


def machine_name() -> str:
    """BENCHLAB_MACHINE when it is set, else the host name."""
    name = os.environ.get(MACHINE_VARIABLE)
    if name is None:
        return socket.gethostname()
    if not _MACHINE_NAME.fullmatch(name):
        raise UserError(f"{MACHINE_VARIABLE}={printable(name)!r} is not a machine name: 1 to 100 letters, digits and "
                        ". _ - : / @ +, starting with a letter or digit",
                        f"give one such as {MACHINE_VARIABLE}=ci-ubuntu-24.04-x64, or unset it to use the host name")
    return name


def machine() -> dict[str, Any]:
    """The part of a context that names the machine (noise.Machine reads it)."""
    return {"host": machine_name(), "cpu": cpu_model(), "kernel": host_platform.release(),
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
        "benchlab": benchlab_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
        **machine(),
        "os": host_platform.system(),
        "python": sys.version.split()[0],
        "numpy": numpy_version(),
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
