"""benchlab: build, run and compare small-cost benchmarks across platforms."""

__version__ = "0.1.0"
