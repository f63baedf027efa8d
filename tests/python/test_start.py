"""Ctrl-C while the command is still importing (its first 0.4 s) ends as Ctrl-C anywhere
else does: one line and exit 130, no traceback (issue 31)."""
import subprocess
import sys
import textwrap

#: The command started as its installed script starts it, with Ctrl-C arriving in the
#: middle of an import (a finder raising KeyboardInterrupt for click, as SIGINT would).
INTERRUPTED_IMPORT = textwrap.dedent("""\
    import sys
    class CtrlC:
        def find_spec(self, name, path=None, target=None):
            if name == "click":
                raise KeyboardInterrupt
    sys.meta_path.insert(0, CtrlC())
    from benchlab.start import entry_point
    entry_point()
    """)


def test_ctrl_c_during_the_imports_is_one_line_and_exit_130():
    result = subprocess.run([sys.executable, "-c", INTERRUPTED_IMPORT, "runs"], capture_output=True, text=True)
    assert (result.returncode, result.stdout, result.stderr) == (
        130, "", "interrupted: nothing changed (benchlab was starting)\n")


def test_the_installed_command_and_python_m_start_at_the_guarded_entry_point():
    from importlib.metadata import entry_points
    [script] = [e for e in entry_points(group="console_scripts") if e.name == "benchlab"]
    assert script.value == "benchlab.start:entry_point"
    version = subprocess.run([sys.executable, "-m", "benchlab", "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("benchlab, version ")
