"""`python -m benchlab` is the `benchlab` command."""
from benchlab.cli import entry_point

entry_point()
