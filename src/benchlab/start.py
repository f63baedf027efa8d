"""The `benchlab` command's entry point, before anything else is imported.

A command spends its first 0.4 s importing (click, rich, numpy, SQLAlchemy). Ctrl-C in
that time raised KeyboardInterrupt from inside an import, outside the entry point's own
handler (cli.main), and printed a traceback (issue 31); SIGTERM then killed the command
without a word (issue 37). Here the signals' handlers are installed first (signals.py),
and the import of the command itself is inside the handler; the package's own import
(benchlab/__init__.py) and this module's import nothing but sys, os and signal.
"""
import sys

from benchlab import signals


def entry_point() -> None:
    signals.install()
    try:
        signals.pause_at("start")
        from benchlab.cli import main
        code = main()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted: nothing changed (benchlab was starting)\n")
        code = signals.exit_status()
    sys.exit(code)
