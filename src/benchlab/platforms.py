"""Platforms: how a built binary is launched (natively, under wasmtime, qemu-user, ...).

A platform is an argv template plus the build target its binaries need. Templates
are lists, never shell strings, so paths with spaces and quotes pass through
untouched. Placeholders:
  {exe}      the binary (one element)
  {args}     the benchmark's arguments, spliced in as separate elements
  {scratch}  a fresh empty directory, the binary's working directory
  {root}     the project root (where benchlab.toml is)
"""
from __future__ import annotations

import dataclasses
import importlib.metadata
import os
import platform as host_platform
import shutil
import subprocess
import sys

from benchlab.config import Config, PlatformSpec
from benchlab.errors import UserError

#: Packages to install when a launcher is missing, by program name.
_INSTALL_HINTS = {
    "qemu": "apt-get install qemu-user",
    "valgrind": "apt-get install valgrind",
    "ssh": "apt-get install openssh-client",
}


def builtin_platforms() -> dict[str, PlatformSpec]:
    machine = host_platform.machine() or "x86_64"
    return {
        "native": PlatformSpec("native", ["{exe}", "{args}"], description="the host, directly"),
        # A subprocess rather than wasmtime in-process: the same timeout, crash and
        # output capture as every other platform, and a trap cannot take us down.
        "wasm": PlatformSpec(
            "wasm", [sys.executable, "-m", "benchlab.wasi", "--dir", "{scratch}", "{exe}", "{args}"],
            build="wasm32-wasi", description="WASI module under the wasmtime Python package",
        ),
        "qemu": PlatformSpec("qemu", [f"qemu-{machine}", "{exe}", "{args}"],
                             description=f"qemu-user emulation of {machine}"),
        "valgrind": PlatformSpec("valgrind", ["valgrind", "--quiet", "{exe}", "{args}"],
                                 description="valgrind's memcheck"),
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

    def argv(self, exe: str, args: list[str], scratch: str, root: str) -> list[str]:
        """The full command line: launchers (outermost first), then the command."""
        values = {"{exe}": exe, "{scratch}": scratch, "{root}": root}
        result: list[str] = []
        for element in [*[e for launcher in self.spec.launchers for e in launcher], *self.spec.command]:
            if element == "{args}":
                result.extend(args)
                continue
            for placeholder, value in values.items():
                element = element.replace(placeholder, value)
            result.append(element)
        return result

    def environment(self) -> dict[str, str]:
        return {**os.environ, **self.spec.env}

    def program(self) -> str:
        """The first program launched, which must exist before we start."""
        launch = [*[e for launcher in self.spec.launchers for e in launcher], *self.spec.command]
        return launch[0]

    def check_available(self) -> None:
        program = self.program()
        if program == "{exe}" or shutil.which(program):
            return
        stem = os.path.basename(program).split("-")[0]
        hint = _INSTALL_HINTS.get(stem, f"install {program} or fix platforms.{self.name}.command in benchlab.toml")
        raise UserError(f"platform '{self.name}' needs '{program}', which is not on PATH", hint)

    def version(self) -> str | None:
        """A one-line description of the launcher's version, for the run's context."""
        if self.name == "wasm" and self.spec.command[:3] == [sys.executable, "-m", "benchlab.wasi"]:
            return f"wasmtime (Python package) {importlib.metadata.version('wasmtime')}"
        program = self.program()
        if program == "{exe}":
            return None
        try:
            out = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
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
