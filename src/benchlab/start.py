"""The `benchlab` command's entry point, before anything else is imported.

A command spends its first 0.4 s importing (click, rich, numpy, SQLAlchemy). Ctrl-C in
that time raised KeyboardInterrupt from inside an import, outside the entry point's own
handler (cli.main), and printed a traceback (issue 31). Here the import of the command
itself is inside the handler; this module imports nothing but sys.
"""
import sys

#: 128 + SIGINT, as shells report Ctrl-C (benchlab.errors.ExitCode.INTERRUPTED, not imported:
#: Ctrl-C could come during that import too).
INTERRUPTED = 130


def entry_point() -> None:
    try:
        from benchlab.cli import main
        code = main()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        code = INTERRUPTED
    sys.exit(code)
