"""Statistics: figures and their intervals, between processes and runs of the same code.

The error term of every comparison is the variation between processes and runs of
the same code (noise.py owns the history model), never within one process.
"""
