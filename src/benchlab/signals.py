"""How a command ends on a signal, whichever command it is.

SIGINT (Ctrl-C) and SIGTERM (a CI job cancelled, `kill`) both raise KeyboardInterrupt
where the command is, so that its cleanup runs (a run closed as interrupted, a gate's
workspace removed) and the entry point says what was kept (cli/__init__.py), with
128 + the signal as the exit status, as shells report it: 130 for SIGINT, 143 for SIGTERM.
Installed first thing by the entry point (start.py), before the command is imported; this
module imports nothing but the standard library's signal, os and sys, so that the time
before it is installed is as short as it can be.

`pause_at` is for the tests that send real signals: with BENCHLAB_PAUSE_AT=POINT a command
says `benchlab: paused at POINT` on stderr at that point and waits there for a signal, so a
test signals it at a known point, never after a guessed delay.
"""
import os
import signal
import sys

#: The signals that end a command as Ctrl-C does.
ENDING = (signal.SIGINT, signal.SIGTERM)
#: Names a point (pause_at) where the command waits for a signal: for tests only.
PAUSE_VARIABLE = "BENCHLAB_PAUSE_AT"

_received = None


def raise_interrupt(signum, frame):
    """A signal handler: remember the signal (for the exit status) and raise as Ctrl-C does."""
    global _received
    _received = signum
    raise KeyboardInterrupt


def install():
    """Every ENDING signal raises KeyboardInterrupt from now on (in the main thread)."""
    for number in ENDING:
        signal.signal(number, raise_interrupt)


def forget():
    """A new command begins (cli.main, also called in-process): no signal has ended it yet."""
    global _received
    _received = None


def exit_status():
    """128 + the signal that ended the command (SIGINT when none was seen: Ctrl-C as Python raised it)."""
    return 128 + int(_received or signal.SIGINT)


def pause_at(point):
    """Wait here for a signal when BENCHLAB_PAUSE_AT names this point (tests), saying so first."""
    if os.environ.get(PAUSE_VARIABLE) != point:
        return
    sys.stderr.write(f"benchlab: paused at {point}\n")
    sys.stderr.flush()
    while True:
        signal.pause()  # a handler that raises ends the wait; any other signal waits on
