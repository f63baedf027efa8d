"""Platforms: how a built binary is launched (natively, under wasmtime, qemu-user, ...).

A platform is an argv template plus the build target its binaries need. Templates
are lists, never shell strings, so paths with spaces and quotes pass through
untouched. Placeholders:
  {exe}      the binary (one element)
  {args}     the benchmark's arguments, spliced in as separate elements
  {scratch}  a fresh empty directory, the binary's working directory
  {root}     the project root (where benchlab.toml is)

An ssh launcher is the one place where a shell comes in: ssh joins its remote
arguments with spaces and hands them to the remote user's shell. So everything after
ssh's destination is quoted for that shell (shlex.quote), and run by `sh -c` in a
scratch directory that the remote side creates and removes.
"""
from __future__ import annotations

import dataclasses
import importlib
import os
import platform as host_platform
import shlex
import shutil
import subprocess
import sys

from benchlab import buildtargets
from benchlab.config import Config, PlatformSpec
from benchlab.errors import UserError

#: Packages to install when a launcher is missing, by program name.
_INSTALL_HINTS = {
    "qemu": "apt-get install qemu-user",
    "valgrind": "apt-get install valgrind",
    "ssh": "apt-get install openssh-client",
}


#: ssh's options that take an argument (ssh(1): -B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w).
_SSH_OPTIONS_WITH_ARGUMENT = set("BbcDEeFIiJLlmOopQRSWw")
#: What runs on the remote side of ssh: a scratch directory made and removed around the
#: command, also when the connection drops (HUP) or the command is killed (TERM).
_REMOTE_SCRATCH = (
    'd=$(mktemp -d "${{TMPDIR:-/tmp}}/benchlab.XXXXXX") || exit 125\n'
    'trap \'cd / && rm -rf "$d"\' EXIT\n'
    "trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM\n"
    'cd "$d" || exit 125\n'
    "{command}\n"
    "exit $?\n"
)
#: Seconds to wait for a launcher to say its version.
VERSION_TIMEOUT_S = 10


def builtin_platforms() -> dict[str, PlatformSpec]:
    """Each build target's own platform (buildtargets.py), then launchers of host binaries."""
    machine = host_platform.machine() or "x86_64"
    return {
        **{target.platform: PlatformSpec(target.platform, list(target.runner), build=target.name,
                                         description=target.description)
           for target in buildtargets.TARGETS if target.platform},
        "qemu": PlatformSpec("qemu", [f"qemu-{machine}", "{exe}", "{args}"],
                             description=f"qemu-user emulation of {machine}"),
        "valgrind": PlatformSpec("valgrind", ["valgrind", "--quiet", "{exe}", "{args}"],
                                 description="valgrind's memcheck"),
        # Instructions and estimated cycles per iteration, not time: benchlab.profiling.callgrind runs
        # the binary under callgrind in the header's instruction mode and turns its dumps into records.
        "callgrind": PlatformSpec(
            "callgrind", [sys.executable, "-m", "benchlab.callgrind", "{exe}", "{args}"],
            description="instructions and estimated cycles per iteration under valgrind's callgrind (deterministic)",
        ),
    }


@dataclasses.dataclass
class Platform:
    spec: PlatformSpec

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def build(self) -> str:
        return self.spec.build

    @property
    def chain(self) -> list[str]:
        """Launchers (outermost first), then the command: the template of the full argv."""
        return [*[e for launcher in self.spec.launchers for e in launcher], *self.spec.command]

    def argv(self, exe: str, args: list[str], scratch: str, root: str) -> list[str]:
        """The full command line: launchers (outermost first), then the command."""
        values = {"{exe}": exe, "{scratch}": scratch, "{root}": root}
        result: list[str] = []
        for element in self.chain:
            if element == "{args}":
                result.extend(args)
                continue
            for placeholder, value in values.items():
                element = element.replace(placeholder, value)
            result.append(element)
        remote = self._ssh_command_index(result)
        if remote is not None and remote < len(result):
            command = " ".join(shlex.quote(element) for element in result[remote:])
            result[remote:] = ["sh -c " + shlex.quote(_REMOTE_SCRATCH.format(command=command))]
        return result

    @property
    def is_remote(self) -> bool:
        """True when the benchmark runs on the far side of ssh."""
        return self._ssh_command_index(self.chain) is not None

    @staticmethod
    def _ssh_command_index(argv: list[str]) -> int | None:
        """Where the remote command starts in an argv with ssh in it (after its destination), or None."""
        start = next((i for i, element in enumerate(argv) if os.path.basename(element) == "ssh"), None)
        if start is None:
            return None
        index = start + 1
        while index < len(argv):
            element = argv[index]
            if element == "--":
                index += 1
                break
            if not element.startswith("-") or element == "-":
                break
            for position, letter in enumerate(element[1:], start=1):
                if letter in _SSH_OPTIONS_WITH_ARGUMENT:
                    if position == len(element) - 1:
                        index += 1  # the argument is the next element: -o BatchMode=yes
                    break
            index += 1
        return index + 1 if index < len(argv) else None

    def environment(self) -> dict[str, str]:
        return {**os.environ, **self.spec.env}

    def program(self) -> str:
        """The first program launched, which must exist before we start."""
        return self.chain[0]

    def program_key(self) -> str:
        """The benchlab.toml key where the first program comes from."""
        for index, launcher in enumerate(self.spec.launchers):
            if launcher:
                return f"platforms.{self.name}.launchers[{index}]"
        return f"platforms.{self.name}.command"

    @property
    def runs_scripts(self) -> bool:
        """False for qemu-user, which runs ELF programs only (a `#!` script fails silently)."""
        return not os.path.basename(self.program()).startswith("qemu-")

    @property
    def counts_instructions(self) -> bool:
        """True for a platform that runs binaries through benchlab.profiling.callgrind."""
        return self.spec.command[1:3] == ["-m", "benchlab.callgrind"]

    def check_available(self) -> None:
        runner = self._runner_module()
        if runner is not None:  # wasm's: the wasm extra (wasi.py), named before anything runs
            importlib.import_module(runner).check()
        if self.counts_instructions and not shutil.which("valgrind"):
            raise UserError(f"platform '{self.name}' needs 'valgrind', which is not on PATH "
                            "(it counts instructions with valgrind's callgrind)", _INSTALL_HINTS["valgrind"])
        program = self.program()
        if program == "{exe}" or shutil.which(program):
            return
        stem = os.path.basename(program).split("-")[0]
        hint = _INSTALL_HINTS.get(stem, f"install {program} or fix {self.program_key()} in benchlab.toml")
        raise UserError(f"platform '{self.name}' needs '{program}', which is not on PATH", hint)

    def version(self) -> str | None:
        """A one-line description of the launcher's version, for the run's context."""
        runner = self._runner_module()
        if runner is not None:
            return importlib.import_module(runner).version()
        if self.counts_instructions and not self.spec.launchers:
            return _first_line(["valgrind", "--version"])
        program = self.program()
        if program == "{exe}":
            return None
        if self.is_remote:
            return self._ssh_version()
        return _first_line([program, "--version"])

    def _runner_module(self) -> str | None:
        """The Python module that runs a build target's binaries when this is that target's
        built-in platform, run as it is built in (`python -m benchlab.wasi`)."""
        target = buildtargets.BY_NAME.get(self.build)
        if target is None or target.runner_module is None or self.name != target.platform:
            return None
        return target.runner_module if self.spec.command[:3] == [sys.executable, "-m", target.runner_module] else None

    def _ssh_version(self) -> str | None:
        """ssh's own version (`ssh -V`; it has no --version) and the remote system's."""
        chain = self.chain
        start = next(i for i, element in enumerate(chain) if os.path.basename(element) == "ssh")
        local = _first_line([chain[start], "-V"])
        remote_at = self._ssh_command_index(chain)
        remote = _first_line([*chain[:remote_at], "uname -srm"]) if remote_at else None
        if remote is None:
            return local
        return f"{local or 'ssh'}; remote: {remote}"


def _first_line(argv: list[str]) -> str | None:
    """The first line a version query prints, or None when it fails: never a usage message."""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=VERSION_TIMEOUT_S,
                             stdin=subprocess.DEVNULL)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    lines = (out.stdout or out.stderr).strip().splitlines()
    return lines[0] if lines else None


def all_platforms(config: Config) -> dict[str, PlatformSpec]:
    """Built-ins, overridden or extended by benchlab.toml's [platforms]."""
    return {**builtin_platforms(), **config.user_platforms}


def resolve_platforms(names: list[str], config: Config) -> list[Platform]:
    known = all_platforms(config)
    chosen = []
    for name in names:
        if name not in known:
            source = f"--platform or run.platforms in {config.path.name}" if config.path else "--platform"
            raise UserError(
                f"unknown platform '{name}' (from {source})",
                f"use one of: {', '.join(known)}, or define [platforms.{name}] in benchlab.toml",
            )
        if name not in [p.name for p in chosen]:
            chosen.append(Platform(known[name]))
    return chosen
