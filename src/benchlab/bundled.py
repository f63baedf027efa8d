"""Where benchlab's header is: the one file of the C library that the Python side needs.

include/benchlab.h is its one source: the C tests (CMake), the examples and a checkout's
users include it from there. The package reads it too (the version, the flags' limits)
and compiles against it (benchlab's own sources, and a project's that has no copy).

- In a checkout (an editable install), it is read where it is, two levels above this file.
- A wheel carries a copy inside the package, benchlab/include/benchlab.h, put there when
  the wheel is built (setup.py copies include/benchlab.h in its build_py step): there is no
  checkout beside an installed package, and package data is found from the package itself
  wherever pip, pipx or `pip install --user` put it.

The copy comes first: a wheel's checkout path (site-packages/../include) means nothing.
`benchlab --include-dir` prints the directory, for a user's own build (-I).

The version is the header's too (`version`): the command, the package's metadata
(pyproject.toml reads benchlab.__version__, which is this), a run's context and the report
say what the C library says, so a run names one version for both halves.

This module imports nothing of benchlab: the package's __init__ reads the version here.
"""
from __future__ import annotations

import functools
from pathlib import Path

#: The package's own directory (its C sources, measuring/*.c, are in it).
PACKAGE_DIR = Path(__file__).resolve().parent
HEADER_NAME = "benchlab.h"


def include_dir(package_dir: Path) -> Path:
    """Where the package in `package_dir` finds benchlab.h: a wheel's copy in the package,
    else the checkout's include/ (named in the error when neither has the header)."""
    wheel = package_dir / "include"
    if (wheel / HEADER_NAME).is_file():
        return wheel
    return package_dir.parents[1] / "include"


#: The directory of benchlab.h: `-I` it.
INCLUDE_DIR = include_dir(PACKAGE_DIR)
#: The header itself.
HEADER = INCLUDE_DIR / HEADER_NAME
#: The line that says the version, near the header's top.
_VERSION_LINE = rb'^#define BENCHLAB_VERSION "([^"]+)"'


@functools.cache
def version(path: Path | None = None) -> str:
    """BENCHLAB_VERSION of the header this package was installed with (a few KB are read)."""
    import re
    path = HEADER if path is None else path
    try:
        with path.open("rb") as header:
            found = re.search(_VERSION_LINE, header.read(16384), re.MULTILINE)
    except OSError as exc:
        raise ImportError(f"benchlab needs the benchlab.h it was installed with ({path}: {exc.strerror}); "
                          f"reinstall benchlab (a wheel carries benchlab/include/benchlab.h), or in a "
                          f"checkout restore include/benchlab.h") from None
    if found is None:
        raise ImportError(f"{path} defines no BENCHLAB_VERSION in its first 16 KB")
    return found.group(1).decode()
