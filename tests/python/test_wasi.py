"""The WASI runner (src/benchlab/wasi.py): file benchmarks need a writable preopened directory;
without the wasm extra, one message names it."""
import os
import subprocess
import sys

import pytest

from benchlab import wasi
from benchlab.config import load_config
from benchlab.errors import UserError
from benchlab.measuring.platforms import resolve_platforms
from benchlab.wasi import run_wasi
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


# -- without the wasm extra (issue 39): wasmtime is benchlab[wasm], not a dependency ---------------

NO_WASM = ("error: running wasm needs benchlab's wasm extra, which is not installed "
           "(pip install 'benchlab[wasm]')")


@pytest.fixture
def without_wasmtime(monkeypatch):
    """As if wasmtime were not installed: `import wasmtime` fails, find_spec finds nothing."""
    monkeypatch.setitem(sys.modules, "wasmtime", None)


def test_without_the_wasm_extra_running_a_module_names_it(tmp_path, without_wasmtime, capsys):
    with pytest.raises(UserError) as raised:
        run_wasi(str(tmp_path / "w.wasm"), [])
    assert f"error: {raised.value}" == NO_WASM
    assert wasi.main([str(tmp_path / "w.wasm")]) == 2
    assert capsys.readouterr().err == NO_WASM + "\n"


def test_without_the_wasm_extra_python_m_benchlab_wasi_is_one_line(tmp_path):
    hide = ("import runpy, sys; sys.modules['wasmtime'] = None; sys.argv[1:] = ['x.wasm']; "
            "runpy.run_module('benchlab.wasi', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", NO_WASM + "\n")


def test_without_the_wasm_extra_the_wasm_platform_says_so_before_anything_runs(without_wasmtime, tmp_path):
    [wasm] = resolve_platforms(["wasm"], load_config(None))
    with pytest.raises(UserError) as raised:
        wasm.check_available()
    assert f"error: {raised.value}" == NO_WASM
    with pytest.raises(UserError):
        wasm.version()  # the run's context asks it: the same message, not importlib's
    [native] = resolve_platforms(["native"], load_config(None))
    native.check_available()  # a native run needs no extra


def test_without_the_wasm_extra_benchlab_run_on_wasm_is_one_error(project, benchlab, without_wasmtime):
    write(project / "suite" / "a.c", '#include "benchlab.h"\nBL_BENCH(a, n) { for (uint64_t i = 0; i < n; i++) bl_do_not_optimize(i); }\nBL_MAIN()\n')
    result = benchlab("run", "suite", "--platform", "wasm", "--no-store")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == NO_WASM + "\n"
