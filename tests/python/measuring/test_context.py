"""BENCHLAB_MACHINE: a stable machine name where the host name changes every job (hosted CI
runners), so that their runs form one machine's history (docs/cli.md, "Same machine in CI")."""
from __future__ import annotations

import socket

import pytest

from benchlab.errors import UserError
from benchlab.measuring import context
from benchlab.statistics import noise
from conftest import write


def _machine_of_a_job(monkeypatch, host: str) -> noise.Machine:
    monkeypatch.setattr(socket, "gethostname", lambda: host)
    return noise.Machine.of(context.machine())


def test_jobs_with_new_host_names_are_one_machine_under_one_machine_name(monkeypatch):
    monkeypatch.delenv("BENCHLAB_MACHINE", raising=False)
    assert _machine_of_a_job(monkeypatch, "fv-az123-456") != _machine_of_a_job(monkeypatch, "fv-az789-012")
    monkeypatch.setenv("BENCHLAB_MACHINE", "github-ubuntu-24.04")
    first, second = _machine_of_a_job(monkeypatch, "fv-az123-456"), _machine_of_a_job(monkeypatch, "fv-az789-012")
    assert first == second and first.host == "github-ubuntu-24.04"
    assert first.cpu == context.cpu_model()  # a runner of another CPU model is still another machine


@pytest.mark.parametrize("name", ["", "-leading-dash", "with space", "\x1b[31mred", "x" * 101])
def test_a_machine_name_that_is_not_one_is_an_error_naming_the_rule(monkeypatch, name):
    monkeypatch.setenv("BENCHLAB_MACHINE", name)
    with pytest.raises(UserError) as error:
        context.machine()
    assert str(error.value).startswith("BENCHLAB_MACHINE=")
    assert "is not a machine name: 1 to 100 letters, digits and . _ - : / @ +, starting with a letter or digit" in str(
        error.value)
    assert "\x1b" not in str(error.value)


def test_run_refuses_a_bad_machine_name_before_it_builds_runs_or_stores(project, benchlab, monkeypatch):
    write(project / "small.c", "#include \"benchlab.h\"\nBL_BENCH(b, n) { (void)n; }\nBL_MAIN()\n")
    monkeypatch.setenv("BENCHLAB_MACHINE", "ci runner")
    result = benchlab("run", "small.c", "--processes", "1")
    assert result.exit_code == 2
    assert result.stderr == ("error: BENCHLAB_MACHINE='ci runner' is not a machine name: 1 to 100 letters, digits and "
                             ". _ - : / @ +, starting with a letter or digit (give one such as "
                             "BENCHLAB_MACHINE=ci-ubuntu-24.04-x64, or unset it to use the host name)\n")
    assert not (project / ".benchlab" / "results.db").exists()
    assert not (project / ".benchlab" / "build").exists()
