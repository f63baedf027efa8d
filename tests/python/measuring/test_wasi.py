"""The WASI runner: file benchmarks need a writable preopened directory."""
import os
import subprocess
import sys

from benchlab.measuring.wasi import run_wasi
from conftest import compile_c, write

PROGRAM = """\
    #include <stdio.h>
    int main(int argc, char **argv) {
        FILE *f = fopen("scratch.txt", "w");
        if (!f) { perror("fopen"); return 4; }
        fputs(argc > 1 ? argv[1] : "none", f);
        fclose(f);
        printf("wrote\\n");
        return 3;
    }
"""


def test_module_runs_with_arguments_in_the_preopened_directory(tmp_path):
    module = compile_c(write(tmp_path / "w.c", PROGRAM), tmp_path / "w.wasm", wasm=True)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    assert run_wasi(str(module), ["hello"], str(scratch)) == 3
    assert (scratch / "scratch.txt").read_text() == "hello"


def test_command_line_passes_the_exit_status_and_output(tmp_path):
    module = compile_c(write(tmp_path / "w.c", PROGRAM), tmp_path / "w.wasm", wasm=True)
    done = subprocess.run([sys.executable, "-m", "benchlab.wasi", "--dir", str(tmp_path), str(module), "x"],
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (3, "wrote\n")
    no_dir = subprocess.run([sys.executable, "-m", "benchlab.wasi", str(module)], capture_output=True, text=True)
    assert no_dir.returncode == 4  # without a preopened directory there is nowhere to write


ENV_PROGRAM = """\
    #include <stdio.h>
    #include <stdlib.h>
    int main(void) {
        const char *format = getenv("BL_FORMAT");
        printf("BL_FORMAT=%s\\n", format ? format : "(unset)");
        return 0;
    }
"""


def test_the_guest_sees_the_environment_as_a_native_process_does(tmp_path):
    # Lind's runner starts a test with BL_FORMAT=lind in its environment and reads its stdout:
    # the wasm build must see it as the native one does.
    module = compile_c(write(tmp_path / "env.c", ENV_PROGRAM), tmp_path / "env.wasm", wasm=True)
    done = subprocess.run([sys.executable, "-m", "benchlab.wasi", str(module)], capture_output=True, text=True,
                          env={**os.environ, "BL_FORMAT": "lind"})
    assert (done.returncode, done.stdout) == (0, "BL_FORMAT=lind\n")
