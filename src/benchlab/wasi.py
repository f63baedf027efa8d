"""Run a WASI (wasm32-wasi) command module under wasmtime, from Python.

The runner of the wasm32-wasi build target (buildtargets.py names it): its `wasm` platform,
and the tests of the C header's wasm32-wasi build, run
    python -m benchlab.wasi [--dir HOST_DIR] MODULE.wasm [ARG ...]
The module's exit status becomes ours. `--dir` preopens a host directory as the
guest's working directory ("."), so file benchmarks can create and remove files. The
guest sees our environment, as a native process would: a runner that starts it with
BL_FORMAT=lind (Lind's, reading its stdout) gets the lines it reads from either build.

In the base layer, beside the table that names it: it imports nothing of benchlab but
errors.py, so measuring/platforms.py asks its version (by the name in buildtargets.py) and
the package's `run_wasi` re-exports it without reaching up a layer (issue 39; it was
measuring/wasi.py behind a shim here, and platforms.py loaded the shim). wasmtime is the
`wasm` extra (pip install 'benchlab[wasm]'): without it, one message says so.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import sys

from benchlab.errors import ExitCode, UserError, missing_extra

#: The Python package that runs the modules, named with its version in a run's context.
PACKAGE = "wasmtime"
#: What running wasm needs, and the extra of benchlab's that installs it (pyproject.toml).
NEED, EXTRA = "running wasm", "wasm"


def check() -> None:
    """A UserError naming the extra when wasmtime is not installed (before anything runs)."""
    if importlib.util.find_spec(PACKAGE) is None:
        raise missing_extra(NEED, EXTRA)


def version() -> str:
    """The runner as a run's context names it, without importing wasmtime."""
    check()
    return f"{PACKAGE} (Python package) {importlib.metadata.version(PACKAGE)}"


def run_wasi(module_path: str, args: list[str], preopen_dir: str | None = None) -> int:
    """Instantiate and run the module's `_start`, inheriting stdio and the environment; return its exit code."""
    try:
        import wasmtime  # here, not above: a run with a wasm platform imports this module for version() alone
    except ImportError:
        raise missing_extra(NEED, EXTRA) from None
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, module_path)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    store = wasmtime.Store(engine)
    config = wasmtime.WasiConfig()
    config.argv = [module_path, *args]
    config.inherit_stdout()
    config.inherit_stderr()
    config.inherit_stdin()
    config.inherit_env()  # BL_FORMAT and the rest reach the guest, as a native binary's environment does
    if preopen_dir is not None:
        config.preopen_dir(preopen_dir, ".")
    store.set_wasi(config)
    instance = linker.instantiate(store, module)
    start = instance.exports(store)["_start"]
    try:
        start(store)
    except wasmtime.ExitTrap as exit_trap:
        return exit_trap.code
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchlab.wasi", description=__doc__.splitlines()[0])
    parser.add_argument("--dir", help="host directory preopened as the guest's '.'")
    parser.add_argument("module")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    sys.stdout.flush()
    try:
        return run_wasi(options.module, options.args, options.dir)
    except UserError as error:
        sys.stderr.write(f"error: {error}\n")
        return ExitCode.USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())
