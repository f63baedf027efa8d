"""Measuring: what runs, where, in what order, and what it printed.

Targets are resolved and built, launched on platforms one process at a time (a
session's rounds), their output parsed and kept as the run goes.
"""
