import pytest

from benchlab.config import load_config
from benchlab.errors import UserError
from benchlab.platforms import resolve_platforms
from conftest import write


def error_of(project, text: str) -> str:
    write(project / "benchlab.toml", text)
    with pytest.raises(UserError) as error:
        config = load_config()
        resolve_platforms(config.platforms, config)
    return str(error.value)


def test_unknown_key_suggests_the_right_one(project):
    assert error_of(project, "[run]\ntimout = 5\n") == (
        "benchlab.toml: run.timout: unknown key (did you mean 'run.timeout'? valid keys in [run]: "
        "suites, platforms, timeout, samples, time_limit, seed, db, processes)")


def test_platform_without_exe_placeholder(project):
    assert error_of(project, '[platforms.box]\ncommand = ["ssh", "box", "{args}"]\n') == (
        'benchlab.toml: platforms.box.command: has no "{exe}" element (add "{exe}" where the benchmark '
        'binary goes, e.g. ["qemu-aarch64", "{exe}", "{args}"])')


def test_unknown_platform_in_run_platforms(project):
    assert error_of(project, '[run]\nplatforms = ["native", "wasmer"]\n') == (
        "unknown platform 'wasmer' (from --platform or run.platforms in benchlab.toml) "
        "(use one of: native, wasm, qemu, valgrind, or define [platforms.wasmer] in benchlab.toml)")


def test_wrong_type_and_bad_toml(project):
    assert error_of(project, '[run]\nsamples = "ten"\n') == (
        "benchlab.toml: run.samples: must be a whole number >= 3, got 'ten' (write samples = 3)")
    assert error_of(project, "[run\n").startswith("benchlab.toml: invalid TOML: ")


def test_user_platform_chain_and_workloads(project):
    write(project / "benchlab.toml", """\
        [run]
        platforms = ["native", "grate"]
        [platforms.grate]
        build = "wasm32-wasi"
        command = ["{exe}", "{args}"]
        launchers = [["lind-boot"], ["{root}/grates/imfs_grate.cwasm"]]
        env = { RUST_LOG = "warn" }
        [workloads]
        hello = ["echo", "hi"]
        [workloads.slow]
        command = ["sleep", "0.1"]
        runs = 5
        warmups = 0
        """)
    config = load_config()
    native, grate = resolve_platforms(config.platforms, config)
    assert grate.build == "wasm32-wasi"
    assert grate.argv("/b/fs_read.wasm", ["--samples=3"], "/s", "/p") == [
        "lind-boot", "/p/grates/imfs_grate.cwasm", "/b/fs_read.wasm", "--samples=3"]
    assert grate.environment()["RUST_LOG"] == "warn"
    assert config.workloads["hello"].command == ["echo", "hi"] and config.workloads["hello"].runs == 3
    assert (config.workloads["slow"].runs, config.workloads["slow"].warmups) == (5, 0)
