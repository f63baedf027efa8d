"""examples/ci/github-actions.yml, run here as GitHub Actions would run it: each `run:` step in
bash (`-eo pipefail`, as `shell: bash` does) with the job's environment (GITHUB_REF,
GITHUB_EVENT_NAME, a GITHUB_STEP_SUMMARY file, GITHUB_ENV read back between steps), each
`uses:` step done by its stand-in here (the cache: a directory kept between jobs), in a
fresh copy of a small project per job, at a path of its own, on a runner with a host name
of its own (as hosted runners are), under the workflow's `concurrency:` group.

The project's suite is a script that prints its figure (the lind format), so that every
verdict is the same on any machine, however busy: a pull request makes it ten times slower,
which no noise can hide or fake. The jobs: the first push to main (an empty store: no
baseline yet, exit 5, a pass that says so, and the first baseline saved), a pull request
that is slower (its comment and reports written, then the job fails with 3), a pull request
that changes nothing (passes), a later push to main (passes, saves the baseline again); a
pull request whose cache missed (a warning, or a failure by one setting), two pushes to main
at once, two pushes to one pull request at once, a pull request from a fork, and the runs of
two runners in one history.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, write
from junit_schema import read_junit, verdicts

WORKFLOW = REPO / "examples" / "ci" / "github-actions.yml"
#: The project's settings for a short job: a fixed number of processes instead of a time
#: budget, and what pip installs set (the workflow's placeholder stops the job).
FAST = {"BENCHLAB_RUN_OPTIONS": "--processes 3", "BENCHLAB_GATE_OPTIONS": "--max-regression 2% --time 20",
        "BENCHLAB_INSTALL": "dist/benchlab-0.9.0-py3-none-any.whl"}
READ = "#!/bin/sh\nprintf 'Read\\t1\\t100\\t{figure}\\n'\n"
WRITE = "#!/bin/sh\nprintf 'Write\\t1\\t100\\t500\\n'\n"
#: The repository, and the comment another workflow's bot left on the pull request.
REPOSITORY = "team/project"
OTHER_COMMENT = {"id": 1, "user": {"login": "github-actions[bot]"}, "body": "### coverage: 81%"}

#: `gh` as the job calls it, against a pull request's comments kept in a JSON file: `gh api`
#: GET (with --paginate and --jq, the filter run by jq as gh runs its own), PATCH and POST. A
#: fork's token (GH_STANDIN_READ_ONLY) reads and cannot write, as GitHub answers it.
GH = r'''#!{python}
import json, os, subprocess, sys
from pathlib import Path
state = Path({state!r})
args = sys.argv[1:]
with open(state.with_name("gh.log"), "a") as log:
    log.write(" ".join(args) + "\n")
comments = json.loads(state.read_text()) if state.exists() else []
assert args[0] == "api", args
method = args[args.index("--method") + 1] if "--method" in args else "GET"
path = [arg for arg in args[1:] if arg.startswith("repos/")][0]
if method == "GET":
    out = json.dumps(comments)
    if "--jq" in args:
        out = subprocess.run(["jq", "-r", args[args.index("--jq") + 1]], input=out, capture_output=True, text=True,
                             check=True).stdout
    sys.stdout.write(out)
    sys.exit(0)
if os.environ.get("GH_STANDIN_READ_ONLY"):
    sys.stderr.write("HTTP 403: Resource not accessible by integration\n")
    sys.exit(1)
body = Path(args[args.index("-F") + 1].split("=@", 1)[1]).read_text()
if method == "PATCH":
    [comment] = [c for c in comments if str(c["id"]) == path.rsplit("/", 1)[1]]
    comment["body"] = body
else:
    comments.append({{"id": max([c["id"] for c in comments] + [0]) + 1, "user": {{"login": "github-actions[bot]"}},
                     "body": body}})
state.write_text(json.dumps(comments))
'''
#: `benchlab` on a runner of its own: the host name a hosted runner's VM has (one per job).
BENCHLAB = '''#!{python}
import os, socket, sys
socket.gethostname = lambda: os.environ["STANDIN_HOSTNAME"]
from benchlab.start import entry_point
entry_point()
'''


@dataclasses.dataclass
class Step:
    name: str
    ran: bool
    exit_code: int = 0
    output: str = ""


@dataclasses.dataclass
class Job:
    directory: Path
    steps: list[Step]
    summary: str = ""

    def step(self, name: str) -> Step:
        return next(step for step in self.steps if step.name == name)


@dataclasses.dataclass
class Event:
    """What starts a job: a push to main, or a pull request (its number, from a fork or not),
    and the project's own env settings over the workflow's."""
    name: str
    number: int = 7
    fork: bool = False
    settings: dict = dataclasses.field(default_factory=dict)


class Runner:
    """What GitHub Actions does with the workflow's one job, for a push or a pull request."""

    def __init__(self, tmp_path: Path):
        self.workflow = yaml.safe_load(WORKFLOW.read_text())
        [(self.job_name, self.job)] = self.workflow["jobs"].items()
        self.tmp = tmp_path
        self.cache = tmp_path / "actions-cache"  # what actions/cache keeps between jobs
        self.comments = tmp_path / "comments.json"  # the pull request's comments
        self.comments.write_text(json.dumps([OTHER_COMMENT]))
        self.tools = self._tools()
        self.jobs = 0

    def _tools(self) -> Path:
        """pip, sudo, apt-get and gh as stand-ins that say what they were asked; benchlab is
        this checkout's, on a runner with its own host name."""
        tools = self.tmp / "tools"
        for name in ("pip", "sudo", "apt-get"):
            write(tools / name, f'#!/bin/sh\necho "$@" >> {self.tmp}/{name}.log\n', executable=True)
        tools.joinpath("gh").write_text(GH.format(python=sys.executable, state=str(self.comments)))
        tools.joinpath("benchlab").write_text(BENCHLAB.format(python=sys.executable))
        for name in ("gh", "benchlab"):
            tools.joinpath(name).chmod(0o755)
        return tools

    def run(self, project: Path, event: Event | str) -> Job:
        """The job in a fresh copy of `project`, as a push to main or a pull request."""
        job = self.start(project, event if isinstance(event, Event) else Event(event))
        for _ in job:
            pass
        return job.result

    def start(self, project: Path, event: Event) -> "Started":
        self.jobs += 1
        return Started(self, project, event, self.jobs)

    def race(self, first: "Started", second: "Started", steps_before: int) -> None:
        """`second` starts while `first` has run `steps_before` steps, as the workflow's
        `concurrency:` says: in one group, `second` waits for `first` to end, or cancels it
        (cancel-in-progress); in none, both run at once, `first` the slower (it ends last)."""
        for _ in range(steps_before):
            next(first)
        (group, cancel), (other, _) = first.concurrency(), second.concurrency()
        if group is not None and group == other:
            if cancel:
                first.cancel()
            for _ in first:
                pass
            for _ in second:
                pass
            return
        for _ in second:
            pass
        for _ in first:
            pass


class Started:
    """One job, run step by step (an iterator: each step a `next`), its result once done."""

    def __init__(self, runner: Runner, project: Path, event: Event, number: int):
        self.runner, self.event = runner, event
        self.workspace = runner.tmp / f"job{number}" / "checkout"
        shutil.copytree(project, self.workspace)  # actions/checkout: a fresh clone, at a new path
        pull = event.name == "pull_request"
        self.github = {"ref": f"refs/pull/{event.number}/merge" if pull else "refs/heads/main",
                       "event_name": event.name, "token": "token", "workflow": runner.workflow["name"],
                       "repository": REPOSITORY, "event.pull_request.number": str(event.number) if pull else "",
                       "run_id": str(1000 + number), "run_attempt": "1"}
        self.summary = self.workspace.parent / "step_summary.md"
        self.github_env = self.workspace.parent / "github_env"
        self.summary.touch()
        self.github_env.touch()
        base = {key: value for key, value in os.environ.items() if not key.startswith(("BENCHLAB_", "GITHUB_"))}
        base.update({"PATH": f"{runner.tools}:{Path(sys.executable).parent}:{os.environ['PATH']}", "CI": "true",
                     "GITHUB_ACTIONS": "true", "GITHUB_REF": self.github["ref"], "GITHUB_EVENT_NAME": event.name,
                     "GITHUB_WORKSPACE": str(self.workspace), "GITHUB_ENV": str(self.github_env),
                     "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_WORKFLOW": self.github["workflow"],
                     "RUNNER_OS": "Linux", "GITHUB_STEP_SUMMARY": str(self.summary),
                     "STANDIN_HOSTNAME": f"fv-az{400 + number}-{17 * number}"})  # a new VM each job
        if event.fork:
            base["GH_STANDIN_READ_ONLY"] = "1"
        base.update({key: str(value) for key, value in runner.workflow["env"].items()})
        base.update({**FAST, **event.settings})
        self.base = base
        self.steps: list[Step] = []
        self.failed = self.cancelled = False
        self._steps = iter(runner.job["steps"])

    def concurrency(self) -> tuple[str | None, bool]:
        """The workflow's concurrency group for this job, and whether it cancels the one in progress."""
        spec = self.runner.workflow.get("concurrency")
        if spec is None:
            return None, False
        return self.expand(spec["group"]), self.expand(str(spec["cancel-in-progress"])) == "true"

    def cancel(self) -> None:
        """Cancelled, as a newer job of its group does: only `always()` steps still run."""
        self.cancelled = True

    def __iter__(self):
        return self

    def __next__(self) -> Step:
        spec = next(self._steps)
        name = spec.get("name") or spec["uses"]
        if not self.condition(spec.get("if")):
            self.steps.append(Step(name, ran=False))
            return self.steps[-1]
        env = {**self.base, **_read_env_file(self.github_env),
               **{key: self.expand(str(value)) for key, value in (spec.get("env") or {}).items()}}
        if "uses" in spec:
            self._uses(spec)
            self.steps.append(Step(name, ran=True))
            return self.steps[-1]
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", spec["run"]],
                              cwd=self.workspace, env=env, capture_output=True, text=True, timeout=300)
        self.steps.append(Step(name, ran=True, exit_code=done.returncode, output=done.stdout + done.stderr))
        self.failed = self.failed or done.returncode != 0
        return self.steps[-1]

    @property
    def result(self) -> Job:
        return Job(self.workspace, self.steps, self.summary.read_text())

    def condition(self, condition: str | None) -> bool:
        """An `if:`: always() runs whatever came before; any other runs after success alone."""
        if condition == "always()":
            return True
        return not self.failed and not self.cancelled and (condition is None or self.value(condition) is True)

    def expand(self, text: str) -> str:
        """`${{ ... }}` in a value, each expression as `value` reads it."""
        def text_of(match: re.Match) -> str:
            value = self.value(match.group(1))
            return str(value).lower() if isinstance(value, bool) else str(value)
        return re.sub(r"\$\{\{(.*?)\}\}", text_of, text)

    def value(self, expression: str):
        """The expressions the workflow uses: `a || b`, `a == 'text'`, `github.*`, `env.*`,
        `runner.os`; any other is a test to extend, not a guess."""
        expression = expression.strip()
        if "||" in expression:
            return next((value for part in expression.split("||") if (value := self.value(part))), "")
        if "==" in expression:
            left, right = (self.value(part) for part in expression.split("=="))
            return left == right
        if expression.startswith("'") and expression.endswith("'"):
            return expression[1:-1]
        if expression == "runner.os":
            return "Linux"
        if expression.startswith("env."):
            return self.base[expression[len("env."):]]
        assert expression.startswith("github."), f"the workflow's expression {expression!r} is not one this test knows"
        return self.github[expression[len("github."):]]

    def _uses(self, spec: dict) -> None:
        action = spec["uses"].split("@")[0]
        inputs = {key: self.expand(str(value)) for key, value in (spec.get("with") or {}).items()}
        cache, workspace = self.runner.cache, self.workspace
        if action == "actions/cache/restore":
            prefix = inputs["restore-keys"].strip()
            assert inputs["key"].startswith(prefix)  # a later job's exact key is found by its prefix
            saved = sorted(cache.glob(f"{prefix}*"), key=lambda path: path.stat().st_mtime_ns)
            if saved:
                shutil.copytree(saved[-1], workspace, dirs_exist_ok=True)  # the newest, as restore-keys finds it
        elif action == "actions/cache/save":
            target = cache / inputs["key"]
            for pattern in inputs["path"].split():
                for path in workspace.glob(pattern):
                    if path.is_dir():
                        shutil.copytree(path, target / path.relative_to(workspace), dirs_exist_ok=True)
                        continue
                    (target / path.relative_to(workspace)).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, target / path.relative_to(workspace))
            os.utime(target)  # the newest entry now
        else:
            assert action in ("actions/checkout", "actions/setup-python", "actions/upload-artifact"), action


def _read_env_file(path: Path) -> dict[str, str]:
    """GITHUB_ENV: NAME=value lines a step appended, the environment of the steps after it."""
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def project_at(directory: Path, read_figure: int) -> Path:
    """The team's repository: a suite of two programs, and a benchlab.toml."""
    write(directory / "benchmarks" / "read.sh", READ.format(figure=read_figure), executable=True)
    write(directory / "benchmarks" / "write.sh", WRITE, executable=True)
    # Every gate here re-measures the baseline's kept programs: no stored figure to calibrate for.
    write(directory / "benchlab.toml", "[gate]\ncalibrate = false\n")
    return directory


def succeeded_until_the_last(job: Job) -> None:
    for step in job.steps[:-1]:
        assert step.exit_code == 0, (step.name, step.output[-3000:])


def benchlab_in(directory: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchlab", *args], cwd=directory, capture_output=True, text=True,
                          env={key: value for key, value in os.environ.items() if not key.startswith("BENCHLAB_")})


def newest_store(runner: Runner) -> Path:
    """A directory holding the store of the newest cache entry, as the next job restores it."""
    [*_, newest] = sorted(runner.cache.iterdir(), key=lambda path: path.stat().st_mtime_ns)
    return newest


def run_ids(store: Path) -> list[int]:
    """The ids `benchlab runs` lists in the store of `store`, newest first."""
    listed = benchlab_in(store, "runs")
    assert listed.returncode == 0, listed.stderr
    return [int(line.split()[0]) for line in listed.stdout.splitlines()[1:] if line.split()[0].isdigit()]


def pr_comments(runner: Runner) -> list[dict]:
    return json.loads(runner.comments.read_text())


def test_the_github_workflow_gates_pull_requests_against_mains_baseline_in_fresh_jobs(tmp_path):
    runner = Runner(tmp_path)
    main = project_at(tmp_path / "main", 240)

    first = runner.run(main, "push")  # an empty store: nothing cached yet
    succeeded_until_the_last(first)
    assert first.steps[-1].exit_code == 0
    assert "no baseline 'main' yet: nothing judged; this run is the first baseline" in first.steps[-1].output
    assert "::warning" not in first.steps[-1].output  # main's first job is no pull request passed unjudged
    assert first.summary.startswith("### benchlab gate not judged: no baseline 'main' yet (exit 5)\n")
    assert "saved baseline 'main'" in first.step("Save the baseline").output
    assert not first.step("Comment on the pull request").ran
    assert not first.step("Install valgrind").ran
    assert (tmp_path / "pip.log").read_text() == "install dist/benchlab-0.9.0-py3-none-any.whl\n"

    slower = runner.run(project_at(tmp_path / "slower", 2400), "pull_request")  # ten times slower
    succeeded_until_the_last(slower)
    assert slower.steps[-1].name == "Fail when the gate failed" and slower.steps[-1].exit_code == 3
    assert not slower.step("Save the baseline").ran and not slower.step("Save the store").ran
    comment = (slower.directory / "benchlab-comment.md").read_text()
    assert comment.startswith("### benchlab gate failed: 1 slower beyond the threshold\n\n"
                              "run 2 against baseline 'main' (run 1)\n")
    assert "| `Read/1` | native | 240 | 2400 | 10.0000 | [10.0000, 10.0000] | slower |" in comment
    assert "| `Write/1` | native | 500 | 500 | 1.0000 | [1.0000, 1.0000] | not slower |" in comment
    assert "re-measured: 6 paired rounds of baseline and candidate" in comment  # main's history, restored
    # The comment was posted before the job failed, is the summary's table, and starts with
    # benchlab's marker; the other workflow's comment is left as it was.
    marker = "<!-- benchlab: benchmarks -->\n"
    assert pr_comments(runner) == [OTHER_COMMENT, {"id": 2, "user": {"login": "github-actions[bot]"},
                                                   "body": marker + comment}]
    assert slower.summary == comment + "\n"
    junit = read_junit(slower.directory / "benchlab-junit.xml")
    assert verdicts(junit) == {"Read/1 on native": "failure:slower", "Write/1 on native": "passed"}
    figures = json.loads((slower.directory / "benchlab-figures.json").read_text())
    assert {(entry["name"], entry["value"], entry["unit"]) for entry in figures} == {
        ("Read/1 (native)", 2400.0, "ns"), ("Write/1 (native)", 500.0, "ns")}

    same = runner.run(project_at(tmp_path / "same", 240), "pull_request")
    succeeded_until_the_last(same)
    assert same.steps[-1].exit_code == 0 and same.summary.startswith("### benchlab gate passed: every row not slower")
    # benchlab's own comment edited, though another workflow's bot comment came after it
    runner.comments.write_text(json.dumps(pr_comments(runner) + [{**OTHER_COMMENT, "id": 3}]))
    again_same = runner.run(project_at(tmp_path / "same", 240), "pull_request")
    [ours] = [c for c in pr_comments(runner) if c["body"].startswith(marker)]
    assert ours["id"] == 2 and ours["body"] == marker + (again_same.directory / "benchlab-comment.md").read_text()
    assert [c["id"] for c in pr_comments(runner)] == [1, 2, 3]

    again = runner.run(main, "push")
    succeeded_until_the_last(again)
    assert again.steps[-1].exit_code == 0 and "gate passed" in again.steps[-1].output
    assert again.summary.startswith("### benchlab gate passed")
    assert "it was run 1" in again.step("Save the baseline").output  # main's baseline moves on


def test_the_workflow_as_pasted_stops_at_the_install_and_says_what_to_set(tmp_path):
    runner = Runner(tmp_path)
    placeholder = runner.workflow["env"]["BENCHLAB_INSTALL"]
    job = runner.run(project_at(tmp_path / "main", 240), Event("push", settings={"BENCHLAB_INSTALL": placeholder}))
    install = job.step("Install benchlab")
    assert install.exit_code == 1 and not (tmp_path / "pip.log").exists()
    assert install.output.startswith(f"::error title=benchlab::BENCHLAB_INSTALL is still the placeholder {placeholder}: "
                                     "set it to benchlab's repository at a pinned commit")
    assert not any(step.ran for step in job.steps[job.steps.index(install) + 1:] if step.name != "Keep the reports")
    # a value pip could not install from a name anyone may claim on an index
    assert not re.fullmatch(r"[A-Za-z0-9._-]+", placeholder)


def test_a_pull_request_whose_cache_missed_warns_and_fails_by_one_setting(tmp_path):
    runner = Runner(tmp_path)  # nothing cached: evicted, or never saved where this pull request can read
    job = runner.run(project_at(tmp_path / "pr", 240), "pull_request")
    succeeded_until_the_last(job)
    last = job.steps[-1]
    said = ("no baseline 'main' in the restored store (the cache held none: evicted, not yet saved by main, or a "
            "fork's first run): this pull request was not judged")
    assert last.exit_code == 0
    assert last.output == (f"::warning title=benchlab: not judged::{said} (BENCHLAB_NO_BASELINE: fail makes this "
                           "a failure)\n")
    assert job.summary.startswith("### benchlab gate not judged: no baseline 'main' yet (exit 5)\n")
    assert job.summary.endswith(f"\n> [!WARNING]\n> benchlab: {said}\n")
    assert pr_comments(runner)[-1]["body"].endswith("### benchlab gate not judged: no baseline 'main' yet (exit 5)"
                                                    "\n\nrun 1 against baseline 'main', which does not exist yet\n\n"
                                                    + "".join(f"- {line}\n" for line in
                                                              _no_baseline_lines(job.directory)))
    strict = runner.run(project_at(tmp_path / "pr", 240),
                        Event("pull_request", settings={"BENCHLAB_NO_BASELINE": "fail"}))
    succeeded_until_the_last(strict)
    assert strict.steps[-1].exit_code == 5
    assert strict.steps[-1].output == f"::error title=benchlab: not judged::{said} (BENCHLAB_NO_BASELINE: fail)\n"


def _no_baseline_lines(directory: Path) -> list[str]:
    from benchlab.output.comparisons import markdown_text
    url = f"sqlite:///{directory / '.benchlab' / 'results.db'}"
    return [f"no baseline 'main' yet in {markdown_text(url)}: nothing to judge run 1 against",
            "save one (on your main branch): benchlab baseline save main 1"]


def test_two_pushes_to_main_at_once_keep_both_runs_and_the_newer_baseline(tmp_path):
    runner = Runner(tmp_path)
    main = project_at(tmp_path / "main", 240)
    runner.run(main, "push")  # run 1, the first baseline
    first, second = runner.start(main, Event("push")), runner.start(main, Event("push"))
    runner.race(first, second, steps_before=5)  # the second push comes while the first measures
    assert first.result.steps[-1].exit_code == 0 and second.result.steps[-1].exit_code == 0
    store = newest_store(runner)
    assert run_ids(store) == [3, 2, 1]  # no job's run dropped
    assert re.search(r"^main +3 ", benchlab_in(store, "baseline", "list").stdout, re.M)  # the last push's run


def test_a_newer_push_to_a_pull_request_cancels_the_older_whose_comment_never_lands(tmp_path):
    runner = Runner(tmp_path)
    runner.run(project_at(tmp_path / "main", 240), "push")
    older = runner.start(project_at(tmp_path / "slower", 2400), Event("pull_request"))
    newer = runner.start(project_at(tmp_path / "fixed", 240), Event("pull_request"))
    runner.race(older, newer, steps_before=5)
    assert not older.result.step("Comment on the pull request").ran
    assert older.result.step("Keep the reports").ran  # always(): what it did is kept
    [ours] = [c for c in pr_comments(runner) if c["body"].startswith("<!-- benchlab")]
    assert "### benchlab gate passed" in ours["body"]  # the newer push's verdict, not overwritten


def test_a_pull_request_from_a_fork_is_judged_and_warns_that_it_cannot_comment(tmp_path):
    runner = Runner(tmp_path)
    runner.run(project_at(tmp_path / "main", 240), "push")
    fork = runner.run(project_at(tmp_path / "fork", 2400), Event("pull_request", number=8, fork=True))
    succeeded_until_the_last(fork)
    assert fork.steps[-1].exit_code == 3  # judged against main's baseline, restored from main's cache
    commented = fork.step("Comment on the pull request")
    assert commented.exit_code == 0 and "HTTP 403: Resource not accessible by integration\n" in commented.output
    assert ("::warning title=benchlab::could not comment on the pull request (a fork's token cannot write); the job "
            "summary has the table\n") in commented.output
    assert pr_comments(runner) == [OTHER_COMMENT]
    assert fork.summary.startswith("### benchlab gate failed: 1 slower beyond the threshold")


def test_two_runners_are_one_machine_whose_history_has_both_runs(tmp_path):
    runner = Runner(tmp_path)
    main = project_at(tmp_path / "main", 240)
    runner.run(main, "push")
    runner.run(main, "push")  # another job: another VM, another host name
    store = newest_store(runner)
    assert run_ids(store) == [2, 1]
    history = benchlab_in(store, "history", "Read", "--format", "json")
    assert history.returncode == 0, history.stderr
    # both jobs' runs in one machine's series, though each job ran on a VM with a host name of its own
    assert [(run["run"], run["host"]) for run in json.loads(history.stdout)["runs"]] == [
        (1, "github-ubuntu-24.04-x64"), (2, "github-ubuntu-24.04-x64")]


def test_deterministic_mode_runs_callgrind_beside_native_and_gates_on_counts(tmp_path):
    runner = Runner(tmp_path)
    log = tmp_path / "benchlab.log"  # benchlab as a stand-in here: the commands the steps build
    write(runner.tools / "benchlab", f'#!/bin/sh\necho "$@" >> {log}\n'
                                     'case "$1" in gate) echo "### benchlab gate passed" > benchlab-comment.md ;; esac\n',
          executable=True)
    job = runner.run(project_at(tmp_path / "main", 240), Event("pull_request", settings={"BENCHLAB_JUDGE": "counts"}))
    succeeded_until_the_last(job)
    assert (tmp_path / "sudo.log").read_text() == ("apt-get update\n"
                                                   "apt-get install --yes --no-install-recommends valgrind\n")
    assert log.read_text().splitlines()[:2] == [
        "run benchmarks --processes 3 --platform native --platform callgrind",
        "gate --baseline main --max-regression 2% --time 20 --judge counts --summary benchlab-comment.md "
        "--junit benchlab-junit.xml"]
    wrong = runner.run(project_at(tmp_path / "main", 240), Event("push", settings={"BENCHLAB_JUDGE": "count"}))
    assert wrong.step("Install benchlab").exit_code == 1
    assert "BENCHLAB_JUDGE is time or counts (it is 'count')" in wrong.step("Install benchlab").output


# -- the GitLab job of docs/ci.md ----------------------------------------------------------------

#: `curl` as the job calls it, against a merge request's notes kept in a JSON file: GET the
#: notes, POST one, PUT (edit) one, the body from --data-urlencode body@FILE.
CURL = r'''#!{python}
import json, sys
from pathlib import Path
state = Path({state!r})
args = sys.argv[1:]
with open(state.with_name("curl.log"), "a") as log:
    log.write(" ".join(args) + "\n")
notes = json.loads(state.read_text())
method = args[args.index("--request") + 1] if "--request" in args else "GET"
url = args[-1]
if method == "GET":
    sys.stdout.write(json.dumps(sorted(notes, key=lambda note: -note["id"])))
    sys.exit(0)
body = Path(args[args.index("--data-urlencode") + 1].split("@", 1)[1]).read_text()
if method == "PUT":
    [note] = [note for note in notes if str(note["id"]) == url.rsplit("/", 1)[1]]
    note["body"] = body
else:
    notes.append({{"id": max(note["id"] for note in notes) + 1, "body": body}})
state.write_text(json.dumps(notes))
'''
OTHER_NOTE = {"id": 1, "body": "coverage: 81%"}


def gitlab_job() -> dict:
    """The `benchmarks` job of the yaml block under docs/ci.md's "GitLab CI"."""
    text = (REPO / "docs" / "ci.md").read_text()
    section = text[text.index("## GitLab CI"):]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    return yaml.safe_load(block)["benchmarks"]


def gitlab_tools(tmp_path: Path) -> Path:
    tools = tmp_path / "gitlab-tools"
    write(tools / "pip", f'#!/bin/sh\necho "$@" >> {tmp_path}/pip.log\n', executable=True)
    write(tools / "apt-get", f'#!/bin/sh\necho "$@" >> {tmp_path}/apt-get.log\n', executable=True)
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps([OTHER_NOTE]))
    tools.joinpath("curl").write_text(CURL.format(python=sys.executable, state=str(notes)))
    tools.joinpath("curl").chmod(0o755)
    return tools


def run_gitlab(tmp_path: Path, project: Path, number: int, event: str,
               settings: dict | None = None) -> subprocess.CompletedProcess:
    """The job as a GitLab runner runs it: the rule that matches sets its variables, the cache
    is pulled and pushed as its policy says, the script runs in one bash (`set -eo pipefail`)."""
    job = gitlab_job()
    workspace = tmp_path / f"gitlab{number}" / "checkout"
    shutil.copytree(project, workspace)
    predefined = ({"CI_COMMIT_BRANCH": "main", "CI_PIPELINE_SOURCE": "push"} if event == "push" else
                  {"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "7"})
    predefined.update({"CI_DEFAULT_BRANCH": "main", "CI_API_V4_URL": "https://gitlab.invalid/api/v4",
                       "CI_PROJECT_ID": "42", "CI_JOB_NAME": "benchmarks", "BENCHLAB_GITLAB_TOKEN": "token"})
    conditions = {"$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH": predefined.get("CI_COMMIT_BRANCH") == "main",
                  '$CI_PIPELINE_SOURCE == "merge_request_event"': event == "merge_request"}
    [rule] = [rule for rule in job["rules"] if conditions[rule["if"]]]
    variables = {**{key: str(value) for key, value in job["variables"].items()}, **rule["variables"], **FAST,
                 **(settings or {})}
    policy = variables[job["cache"]["policy"].lstrip("$")]
    cache = tmp_path / "gitlab-cache" / job["cache"]["key"]
    if "pull" in policy and cache.exists():
        shutil.copytree(cache, workspace, dirs_exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("BENCHLAB_", "GITHUB_", "CI_"))}
    env.update({**predefined, **variables, "PATH": f"{tmp_path / 'gitlab-tools'}:{Path(sys.executable).parent}:"
                                                   f"{os.environ['PATH']}"})
    script = "\n".join(job["script"])
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=workspace, env=env,
                          capture_output=True, text=True, timeout=300)
    if "push" in policy and (done.returncode == 0 or job["cache"]["when"] == "always"):
        for pattern in job["cache"]["paths"]:
            for path in workspace.glob(pattern.rstrip("/")):
                if path.is_dir():
                    shutil.copytree(path, cache / path.relative_to(workspace), dirs_exist_ok=True)
                    continue
                (cache / path.relative_to(workspace)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, cache / path.relative_to(workspace))
    return done


def gitlab_notes(tmp_path: Path) -> list[dict]:
    return json.loads((tmp_path / "notes.json").read_text())


def test_the_gitlab_job_of_the_docs_gates_a_merge_request_and_comments_before_failing(tmp_path):
    gitlab_tools(tmp_path)
    job = gitlab_job()
    # one job at a time per branch; a merge request's newer push cancels the older, main's never
    assert job["resource_group"] == "benchlab-$CI_COMMIT_REF_SLUG"
    assert [rule["interruptible"] for rule in job["rules"]] == [False, True]
    assert job["variables"]["BENCHLAB_MACHINE"] == "gitlab-saas-linux-small-amd64"
    assert ".benchlab/build/" in job["cache"]["paths"]  # the build cache goes with the store
    first = run_gitlab(tmp_path, project_at(tmp_path / "main", 240), 1, "push")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "gate not judged: no baseline 'main' yet (exit 5)" in first.stderr
    assert "this run is the first baseline" in first.stdout and "WARNING" not in first.stdout
    assert (tmp_path / "pip.log").read_text() == "install dist/benchlab-0.9.0-py3-none-any.whl\n"
    stored = tmp_path / "gitlab-cache" / "benchlab-store" / ".benchlab" / "results.db"
    before = stored.read_bytes()
    slower = run_gitlab(tmp_path, project_at(tmp_path / "slower", 2400), 2, "merge_request")
    assert slower.returncode == 3, slower.stdout + slower.stderr
    workspace = tmp_path / "gitlab2" / "checkout"
    comment = (workspace / "benchlab-comment.md").read_text()
    assert comment.startswith("### benchlab gate failed: 1 slower")
    assert verdicts(read_junit(workspace / "benchlab-junit.xml"))["Read/1 on native"] == "failure:slower"
    marker = "<!-- benchlab: benchmarks -->\n"
    assert gitlab_notes(tmp_path) == [OTHER_NOTE, {"id": 2, "body": marker + comment}]
    assert (tmp_path / "curl.log").read_text().splitlines()[-1] == (
        "--fail --silent --show-error --header PRIVATE-TOKEN: token --data-urlencode body@benchlab-comment-body.md "
        "--request POST https://gitlab.invalid/api/v4/projects/42/merge_requests/7/notes")
    # a merge request pulls main's store and pushes nothing back
    assert stored.read_bytes() == before
    same = run_gitlab(tmp_path, project_at(tmp_path / "same", 240), 3, "merge_request")
    assert same.returncode == 0, same.stdout + same.stderr
    same_comment = (tmp_path / "gitlab3" / "checkout" / "benchlab-comment.md").read_text()
    assert gitlab_notes(tmp_path) == [OTHER_NOTE, {"id": 2, "body": marker + same_comment}]  # edited, not added


def test_a_gitlab_merge_request_with_an_empty_cache_warns_or_fails_by_one_setting(tmp_path):
    gitlab_tools(tmp_path)
    project = project_at(tmp_path / "mr", 240)
    warned = run_gitlab(tmp_path, project, 1, "merge_request")
    assert warned.returncode == 0, warned.stdout + warned.stderr
    assert warned.stdout.endswith(
        "WARNING: benchlab: no baseline 'main' in the cached store (the cache held none: evicted, or not yet saved "
        "by main): this merge request was not judged\n")
    assert gitlab_notes(tmp_path)[-1]["body"].startswith(
        "<!-- benchlab: benchmarks -->\n### benchlab gate not judged: no baseline 'main' yet (exit 5)")
    strict = run_gitlab(tmp_path, project, 2, "merge_request", {"BENCHLAB_NO_BASELINE": "fail"})
    assert strict.returncode == 5
    placeholder = run_gitlab(tmp_path, project, 3, "merge_request",
                             {"BENCHLAB_INSTALL": gitlab_job()["variables"]["BENCHLAB_INSTALL"]})
    assert placeholder.returncode == 1
    assert placeholder.stdout.startswith("ERROR: benchlab: BENCHLAB_INSTALL is still the placeholder ")
    assert not (tmp_path / "pip.log").read_text().count("OWNER")


# -- names in the comment and the summary ----------------------------------------------------------

#: Benchmark names a pull request can give its programs, each Markdown or HTML that GitHub's
#: renderer and sanitizer would keep: a closed and an opened <details>, a remote image, a
#: mention, backticks (a code span's own fence), pipes (a table cell's end), emphasis.
HOSTILE = ["</details>", "<details open>", "![x](http://images.invalid/x.png)", "@team", "a`b``c", "`", "x|y|",
           "**bold** _it_", "<img src=x onerror=alert(1)>", "&amp; &#64;team"]


def hostile_answer():
    from benchlab.errors import ExitCode
    from benchlab.statistics.answer import Answer, Judgment
    from benchlab.statistics.compare import BETWEEN_PROCESSES, Comparison

    rows = [Comparison(key=(name, None, "time", None), platform="native", unit="ns", a=100.0, b=120.0, ratio=1.2,
                       low=1.1, high=1.3, floor=0.01, scope=BETWEEN_PROCESSES, processes=(4, 4), threshold=0.02,
                       program="@team.sh") for name in HOSTILE]
    lines = [f"regression: {name} on native: 1.2000x [1.1000, 1.3000], more than 2% slower" for name in HOSTILE]
    judgment = Judgment(rows, [], ExitCode.REGRESSION, lines + [f"gate failed: {len(rows)} slower beyond the threshold"])
    return Answer("gate", "run 2 against baseline 'main' (run 1)", "run 1", "run 2", rows, judgment,
                  notes=["stored figures for @team.sh@native: </details> <details open> ![x](http://images.invalid/x)"])


def rendered(markdown: str):
    """The Markdown as GitHub renders it (CommonMark with GFM tables, as markdown-it-py
    parses it): its HTML, the texts of its code spans, and the cells of each table row."""
    import html.parser

    from markdown_it import MarkdownIt

    page = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)

    class Reader(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.codes, self.rows, self.inside = [], [], None

        def handle_starttag(self, tag, attrs):
            if tag == "code":
                self.inside = ""
            elif tag == "tr":
                self.rows.append(0)
            elif tag in ("td", "th"):
                self.rows[-1] += 1

        def handle_endtag(self, tag):
            if tag == "code":
                self.codes.append(self.inside)
                self.inside = None

        def handle_data(self, data):
            if self.inside is not None:
                self.inside += data

    reader = Reader()
    reader.feed(page)
    return page, reader.codes, reader.rows


def test_hostile_names_reach_the_comment_and_the_summary_as_text(tmp_path):
    from benchlab.output.ci import Outputs

    summary = tmp_path / "comment.md"
    outputs = Outputs(summary, None, None)
    outputs.write(hostile_answer())
    page, codes, rows = rendered(summary.read_text())
    outside_code = re.sub(r"<code>.*?</code>", "", page, flags=re.S)
    # no tag of a name's became HTML, no image, no link; the mention is in code, where GitHub makes none
    assert "<details" not in page and "</details>" not in page and "<img" not in page and "<a " not in page
    assert "@team" not in outside_code and "<strong>" not in page and "<em>" not in page
    # every row of the table has its seven cells (no pipe of a name ended one), each name shown whole
    assert rows == [7] * (1 + len(HOSTILE))
    for name in HOSTILE:
        assert codes.count(name) == 1 and codes.count(f"{name} on native") == 1  # its cell, its regression line
    assert codes[-1] == "stored figures for @team.sh@native: </details> <details open> ![x](http://images.invalid/x)"


def test_the_gitlab_jobs_deterministic_mode_runs_callgrind_beside_native_and_gates_on_counts(tmp_path):
    tools = gitlab_tools(tmp_path)
    log = tmp_path / "benchlab.log"  # benchlab as a stand-in here: the commands the script builds
    write(tools / "benchlab", f'#!/bin/sh\necho "$@" >> {log}\n'
                              'case "$1" in gate) echo "### benchlab gate passed" > benchlab-comment.md ;; esac\n',
          executable=True)
    done = run_gitlab(tmp_path, project_at(tmp_path / "mr", 240), 1, "merge_request", {"BENCHLAB_JUDGE": "counts"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "apt-get.log").read_text() == "update\ninstall --yes --no-install-recommends valgrind\n"
    assert log.read_text().splitlines()[:2] == [
        "run benchmarks --processes 3 --platform native --platform callgrind",
        "gate --baseline main --max-regression 2% --time 20 --judge counts --summary benchlab-comment.md "
        "--junit benchlab-junit.xml"]
