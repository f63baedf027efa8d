"""Platforms: the ssh launcher quotes for the remote shell and runs in a remote scratch
directory (issue 11, item 14); a missing launcher names its key (item 17)."""
import json
import os
import shlex
import subprocess

import pytest

from benchlab.config import PlatformSpec, load_config
from benchlab.errors import UserError
from benchlab.measuring.platforms import Platform, resolve_platforms
from conftest import write

#: A stand-in for ssh that behaves as the real one does with its command: options parsed
#: as ssh(1) parses them, then every remaining argument joined with spaces and handed to
#: a shell in the remote user's home directory (what sshd does with it).
FAKE_SSH = """\
    #!/bin/sh
    if [ "$1" = "-V" ]; then echo "OpenSSH_9.9p9 fake, OpenSSL 3" >&2; exit 0; fi
    while [ $# -gt 0 ]; do
      case "$1" in
        -[BbcDEeFIiJLlmOopQRSWw]) shift 2 ;;
        --) shift; break ;;
        -*) shift ;;
        *) break ;;
      esac
    done
    shift  # the destination
    cd "$HOME" || exit 255
    exec sh -c "$*"
"""

#: The benchmark on the "remote" side: its test name is its arguments, and it says where it ran.
PROBE = """\
    #!/bin/sh
    printf '%s\\t1\\t10\\t5\\n' "$*"
    pwd > "$HOME/where"
    touch here-it-ran
"""

BOX = '[platforms.box]\ncommand = ["ssh", "-o", "BatchMode=yes", "box.example.org", "{exe}", "{args}"]\n'


@pytest.fixture
def remote(project, tmp_path, monkeypatch):
    """A fake ssh on PATH, a remote home and a remote TMPDIR."""
    write(tmp_path / "bin" / "ssh", FAKE_SSH, executable=True)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    home, tmp = tmp_path / "home", tmp_path / "remote-tmp"
    home.mkdir()
    tmp.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TMPDIR", str(tmp))
    write(project / "benchlab.toml", BOX)
    write(project / "probe.sh", PROBE, executable=True)
    return home, tmp


def test_ssh_arguments_reach_the_program_intact_and_run_nothing_else(project, benchlab, remote):
    home, tmp = remote
    result = benchlab("run", "probe.sh", "--processes", "1", "--platform", "box", "--arg", "fnv hash", "--arg", "x;touch pwned",
                      "--arg", "$(touch pwned2)", "--format", "json", "--no-store")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    [record] = document["records"]
    assert record["bench"] == "fnv hash x;touch pwned $(touch pwned2)"
    assert not any(p.name.startswith("pwned") for p in [*home.iterdir(), *tmp.iterdir(), *project.iterdir()])
    # it ran in a scratch directory the remote side made under its TMPDIR, and removed
    where = (home / "where").read_text().strip()
    assert os.path.dirname(where) == str(tmp) and os.path.basename(where).startswith("benchlab.")
    assert not os.path.exists(where) and list(tmp.iterdir()) == []
    assert not (home / "here-it-ran").exists()
    # the version is ssh's own and the remote system's, not a usage message
    uname = subprocess.run(["uname", "-srm"], capture_output=True, text=True).stdout.strip()
    assert document["run"]["context"]["platforms"]["box"]["version"] == f"OpenSSH_9.9p9 fake, OpenSSL 3; remote: {uname}"


def test_ssh_exit_status_and_stderr_come_back(project, benchlab, remote):
    write(project / "fail.sh", "#!/bin/sh\necho 'remote trouble' >&2\nexit 3\n", executable=True)
    result = benchlab("run", "fail.sh", "--platform", "box", "--no-store", "--processes", "1")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-2:] == ["fail.sh on box: exit status 3", "    remote trouble"]


def test_ssh_argv_quotes_everything_after_the_destination():
    platform = Platform(PlatformSpec("box", ["ssh", "-p", "22", "-oBatchMode=yes", "-q", "user@box", "{exe}", "{args}"]))
    argv = platform.argv("/b/fs read", ["--filter=fnv hash", "a;b"], "/local/scratch", "/root")
    assert argv[:6] == ["ssh", "-p", "22", "-oBatchMode=yes", "-q", "user@box"]
    [remote] = argv[6:]
    # the remote shell runs `sh -c SCRIPT`; the script runs the quoted command in a scratch directory
    words = shlex.split(remote)
    assert words[:2] == ["sh", "-c"] and len(words) == 3
    assert "'/b/fs read' '--filter=fnv hash' 'a;b'" in words[2]
    assert 'd=$(mktemp -d "${TMPDIR:-/tmp}/benchlab.XXXXXX")' in words[2] and 'rm -rf "$d"' in words[2]
    assert platform.is_remote and not Platform(PlatformSpec("n", ["{exe}", "{args}"])).is_remote


def test_a_version_query_that_fails_records_no_version(tmp_path, monkeypatch):
    write(tmp_path / "launch", "#!/bin/sh\necho 'unknown option -- -' >&2\nexit 1\n", executable=True)
    platform = Platform(PlatformSpec("l", [str(tmp_path / "launch"), "{exe}"]))
    assert platform.version() is None


def test_a_missing_launcher_names_the_launchers_key(project):
    write(project / "benchlab.toml", '[platforms.grate]\nlaunchers = [["lind-boot-missing", "--perf"]]\n'
                                     'command = ["{exe}", "{args}"]\n')
    config = load_config()
    [platform] = resolve_platforms(["grate"], config)
    with pytest.raises(UserError) as error:
        platform.check_available()
    assert str(error.value) == ("platform 'grate' needs 'lind-boot-missing', which is not on PATH "
                                "(install lind-boot-missing or fix platforms.grate.launchers[0] in benchlab.toml)")
