"""benchlab installed as a wheel (not editable) in a fresh virtual environment: the header
travels inside the package, `benchlab --include-dir` names it, and a one-file benchmark
builds against it and runs, with no checkout in sight.

Offline and quick: the wheel is built from a copy of the sources with the running
environment's setuptools (--no-build-isolation, the test extra's setuptools >= 70.1 needs no
`wheel` package) and installed with --no-deps --no-index; the fresh environment finds the
dependencies (click, numpy, ...) through a .pth line naming this environment's
site-packages, which adds that directory to sys.path without running its .pth files, so
the editable install of the checkout stays invisible there.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from benchlab import __version__
from benchlab.bundled import HEADER_NAME, INCLUDE_DIR, include_dir
from conftest import FAST, REPO, SMALL_BENCH, write

#: What a wheel is built from: the rest of the checkout (tests, suites, docs) is not in it.
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "src", "include")
#: Files the package compiles or serves besides its modules, which the wheel must carry.
PACKAGE_DATA = ("benchlab/include/benchlab.h", "benchlab/measuring/measure.c", "benchlab/measuring/reference_kernels.c",
                "benchlab/output/htmlreport/templates/index.html.j2", "benchlab/output/htmlreport/static/report.js",
                "benchlab/output/htmlreport/static/plotly-cartesian.min.js",
                "benchlab/storage/migrations/env.py", "benchlab/storage/migrations/versions/0001_runs_records_faults.py")


def _copy_of_the_sources(destination: Path) -> Path:
    """The sources a clone has (no build/, egg-info or caches): a build must not write into
    the checkout, where another test or an engineer's build may be running."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "include", "*.pyc")
    destination.mkdir(exist_ok=True)
    for name in SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=None if name == "include" else ignore)
        else:
            shutil.copy(source, destination / name)
    return destination


def _run(*argv, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(arg) for arg in argv], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    sources = _copy_of_the_sources(tmp_path_factory.mktemp("sources"))
    out = tmp_path_factory.mktemp("wheels")
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                 "-w", out, sources)
    assert built.returncode == 0, built.stderr
    [path] = out.glob("benchlab-*.whl")
    return path


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A new virtual environment with the wheel installed: its bin/ directory."""
    root = tmp_path_factory.mktemp("venv")
    assert _run(sys.executable, "-m", "venv", "--without-pip", root).returncode == 0
    python = root / "bin" / "python"
    site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    (site / "zz-benchlab-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel)
    assert installed.returncode == 0, installed.stderr
    return root / "bin"


def test_the_wheel_carries_the_header_and_every_file_the_package_compiles_or_serves(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert set(PACKAGE_DATA) <= names, set(PACKAGE_DATA) - names
        # One source: the copy is the checkout's header, byte for byte.
        assert archive.read("benchlab/include/benchlab.h") == (REPO / "include" / HEADER_NAME).read_bytes()
        metadata = archive.read(f"benchlab-{__version__}.dist-info/METADATA").decode()
    requires = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    # The report ships its own plotly.js: the Python package is for the tests only.
    assert "plotly>=5.20; extra == \"test\"" in requires
    assert not any(r.startswith("plotly") and "extra" not in r for r in requires)


def test_an_sdist_carries_the_header_so_a_wheel_built_from_it_has_it_too(tmp_path):
    sources = _copy_of_the_sources(tmp_path / "sources")
    made = _run(sys.executable, "-c", f"from setuptools import build_meta; print(build_meta.build_sdist({str(tmp_path)!r}))",
                cwd=sources)
    assert made.returncode == 0, made.stderr
    with tarfile.open(tmp_path / made.stdout.strip().splitlines()[-1]) as sdist:
        assert f"benchlab-{__version__}/include/benchlab.h" in sdist.getnames()


def test_the_installed_command_says_its_version_and_where_its_header_is(venv):
    version = _run(venv / "benchlab", "--version")
    assert (version.returncode, version.stdout) == (0, f"benchlab, version {__version__}\n")
    found = _run(venv / "benchlab", "--include-dir")
    assert found.returncode == 0, found.stderr
    directory = Path(found.stdout.strip())
    assert directory.parts[-2:] == ("benchlab", "include") and directory.is_relative_to(venv.parent)
    assert (directory / HEADER_NAME).read_bytes() == (REPO / "include" / HEADER_NAME).read_bytes()
    imported = _run(venv / "python", "-c", "import benchlab, benchlab.measuring.build as b; "
                                           "print(benchlab.__file__); print(b.BUNDLED_INCLUDE)", cwd=venv)
    assert imported.returncode == 0, imported.stderr
    module, builds_against = imported.stdout.splitlines()
    assert Path(module).is_relative_to(venv.parent) and Path(builds_against) == directory


def test_a_one_file_benchmark_builds_against_the_installed_header_and_runs(venv, tmp_path):
    project = tmp_path / "project"  # no include/ and no benchlab.toml: only the installed header
    source = write(project / "bench.c", SMALL_BENCH)
    include = _run(venv / "benchlab", "--include-dir").stdout.strip()
    compiled = _run("cc", "-O2", f"-I{include}", source, "-o", project / "bench", "-lm")
    assert compiled.returncode == 0, compiled.stderr
    by_hand = _run(project / "bench", *FAST, "--format=lind")
    assert by_hand.returncode == 0 and "copy\t1024\t" in by_hand.stdout, by_hand.stderr

    run = _run(venv / "benchlab", "run", "bench.c", "--platform", "native", "--processes", "1", *FAST, cwd=project)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line.split()[:2] for line in run.stdout.splitlines()]
    assert ["copy", "1024"] in rows and "saved as run 1" in run.stderr
    assert (project / ".benchlab" / "results.db").is_file()


def test_a_checkout_reads_its_own_include_and_a_wheel_its_copy(tmp_path):
    checkout_package = tmp_path / "checkout" / "src" / "benchlab"
    checkout_package.mkdir(parents=True)
    assert include_dir(checkout_package) == tmp_path / "checkout" / "include"
    installed_package = tmp_path / "site-packages" / "benchlab"
    write(installed_package / "include" / HEADER_NAME, "/* the wheel's copy */\n")
    assert include_dir(installed_package) == installed_package / "include"


def test_include_dir_prints_the_directory_this_benchlab_builds_against(benchlab):
    result = benchlab("--include-dir")
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"{INCLUDE_DIR}\n", "")
    assert (INCLUDE_DIR / HEADER_NAME).is_file()
