"""What every test of tests/python and tests/fuzz shares: nothing they run touches the
user's own files outside the test's directories."""
import os
import shutil
import tempfile
from pathlib import Path

_trust_directory = None


def pytest_configure(config):
    # `benchlab run` records the binaries it ran for the gate (measuring/trust.py) in the
    # user's cache: the tests' runs record theirs in a file of the session's instead.
    global _trust_directory
    _trust_directory = tempfile.mkdtemp(prefix="benchlab-trust-")
    os.environ["BENCHLAB_TRUST_FILE"] = str(Path(_trust_directory) / "trusted-binaries")


def pytest_unconfigure(config):
    if _trust_directory:
        shutil.rmtree(_trust_directory, ignore_errors=True)
