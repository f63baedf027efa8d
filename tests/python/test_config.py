import pytest

from benchlab.config import load_config
from benchlab.errors import UserError
from benchlab.measuring.platforms import resolve_platforms
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


def test_a_platform_name_longer_than_the_store_holds(project):
    name = "p" * 256
    assert error_of(project, f'[platforms.{name}]\ncommand = ["{{exe}}"]\n') == (
        f"benchlab.toml: platforms.{'p' * 40}...: the name is 256 characters long "
        "(name the platform in at most 255 characters)")
    write(project / "benchlab.toml", f'[platforms.{"p" * 255}]\ncommand = ["{{exe}}"]\n')
    assert "p" * 255 in load_config().user_platforms


def test_unknown_platform_in_run_platforms(project):
    assert error_of(project, '[run]\nplatforms = ["native", "wasmer"]\n') == (
        "unknown platform 'wasmer' (from --platform or run.platforms in benchlab.toml) "
        "(use one of: native, wasm, qemu, valgrind, callgrind, or define [platforms.wasmer] in benchlab.toml)")


def test_wrong_type_and_bad_toml(project):
    assert error_of(project, '[run]\nsamples = "ten"\n') == (
        "benchlab.toml: run.samples: must be a whole number >= 3 and <= 1e+06, got 'ten' (write samples = 3)")
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


@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "1e10"])
def test_timeout_must_be_finite(project, value):
    assert error_of(project, f"[run]\ntimeout = {value}\n") == (
        f"benchlab.toml: run.timeout: must be a number >= 0.001 and <= 1e+09, got {float(value)!r} (write timeout = 1)")


def test_time_limit_is_within_the_headers_bounds_and_seed_is_64_bit(project):
    assert error_of(project, "[run]\ntime_limit = nan\n") == (
        "benchlab.toml: run.time_limit: must be a number > 0 and <= 1e+06, got nan (write time_limit = 1)")
    assert error_of(project, "[run]\ntime_limit = 0\n") == (
        "benchlab.toml: run.time_limit: must be a number > 0 and <= 1e+06, got 0 (write time_limit = 1)")
    assert error_of(project, f"[run]\nseed = {2**64}\n") == (
        "benchlab.toml: run.seed: must be a whole number >= 0 and <= 1.84467e+19, got 18446744073709551616 "
        "(write seed = 1)")


NUL_FIX = "(remove it: arguments and environment variables of a program cannot hold one)"


@pytest.mark.parametrize("text, key", [
    ('[platforms.x]\ncommand = ["{exe}", "a\\u0000b"]\n', "platforms.x.command[1]"),
    ('[platforms.x]\ncommand = ["{exe}"]\nenv = { A = "\\u0000" }\n', "platforms.x.env.A"),
    ('[platforms.x]\ncommand = ["{exe}"]\nlaunchers = [["sudo"], ["a\\u0000"]]\n', "platforms.x.launchers[1][0]"),
    ('[workloads]\nw = ["echo", "\\u0000"]\n', "workloads.w.command[1]"),
])
def test_a_nul_character_is_an_error_naming_the_key(project, text, key):
    assert error_of(project, text) == f"benchlab.toml: {key}: contains a NUL character (\\u0000) {NUL_FIX}"


def test_bad_environment_names_and_table_names(project):
    assert error_of(project, '[platforms.x]\ncommand = ["{exe}"]\nenv = { "A=B" = "1" }\n') == (
        "benchlab.toml: platforms.x.env: 'A=B' is not an environment variable name (empty, or with '=' or NUL) "
        '(write env = { NAME = "value" })')
    assert error_of(project, '[workloads."a/b"]\ncommand = ["true"]\n') == (
        "benchlab.toml: workloads.'a/b': is not a usable name (empty, or with '/' or control characters) "
        "(name it with letters, digits, '-' or '_', e.g. [workloads.mine])")


def test_unreadable_or_odd_config_files_are_user_errors(project):
    (project / "benchlab.toml").write_bytes(b"[run]\ntimeout = 5\n\xff\xfe")
    with pytest.raises(UserError, match=r"^benchlab.toml: not UTF-8 text \(byte 18\) \(save it as UTF-8"):
        load_config()
    write(project / "benchlab.toml", "a = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(UserError, match="nested too deeply"):
        load_config()
    write(project / "benchlab.toml", "a = " + "9" * 5000 + "\n")
    with pytest.raises(UserError, match=r"^benchlab.toml: invalid TOML: Exceeds the limit \(4300 digits\)"):
        load_config()
    write(project / "benchlab.toml", "[workloads.w]\ncommand = [\"true\"]\nruns = 100000000000\n")
    with pytest.raises(UserError, match=r"workloads.w.runs: must be a whole number >= 1 and <= 1e\+06"):
        load_config()


def test_thresholds_are_percents_with_or_without_the_sign_and_a_bare_fraction_is_refused(tmp_path):
    from benchlab import percent
    assert percent.parse("2%", "--max-regression") == 2.0
    assert percent.parse("2", "--max-regression") == 2.0 == percent.parse(2, "x")
    assert percent.parse("0.5%", "--noise-floor") == 0.5 and percent.parse("0", "x") == 0.0
    with pytest.raises(percent.PercentError, match="ambiguous"):
        percent.parse("0.02", "--max-regression")
    path = tmp_path / "benchlab.toml"
    path.write_text('[compare]\nnoise_floor = "0.5%"\n[compare.noise_floors]\ngetpid = 5\n[gate.max_regression]\nread = "3%"\n')
    config = load_config(path)
    assert (config.noise_floor, config.noise_floors, config.max_regressions) == (0.005, {"getpid": 0.05}, {"read": 0.03})
    path.write_text("[gate.max_regression]\nread = 0.03\n")
    with pytest.raises(UserError, match=r"gate\.max_regression\.read: '?0\.03'? is ambiguous"):
        load_config(path)
