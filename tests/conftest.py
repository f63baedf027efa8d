"""What every test of tests/python and tests/fuzz shares: nothing they run touches the
user's own files outside the test's directories."""
import os
import tempfile
from pathlib import Path


def pytest_configure(config):
    # `benchlab run` records the binaries it ran for the gate (measuring/trust.py) in the
    # user's cache: the tests' runs record theirs in a file of the session's instead.
    os.environ["BENCHLAB_TRUST_FILE"] = str(Path(tempfile.mkdtemp(prefix="benchlab-trust-")) / "trusted-binaries")
