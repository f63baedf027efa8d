"""The wheel's one build step beyond pyproject.toml: the header goes into the package.

include/benchlab.h stays the one source (CMake, the examples and a checkout's users read
it there); a wheel has no checkout beside it, so build_py copies the header into the
built package as benchlab/include/benchlab.h, where benchlab/bundled.py finds it. A
copy made at build time rather than a second file in git: the two can never differ.
An editable install reads the checkout's header itself and copies nothing.
"""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HEADER = Path(__file__).resolve().parent / "include" / "benchlab.h"


class BuildWithHeader(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        if not HEADER.is_file():
            raise SystemExit(f"error: {HEADER} is missing: build benchlab from a checkout, or from an sdist "
                             "made by this setup (MANIFEST.in puts include/benchlab.h in it)")
        include = Path(self.build_lib) / "benchlab" / "include"
        self.mkpath(str(include))
        self.copy_file(str(HEADER), str(include / HEADER.name))


setup(cmdclass={"build_py": BuildWithHeader})
