"""`python -m benchlab` is the `benchlab` command."""
from benchlab.start import entry_point

entry_point()
