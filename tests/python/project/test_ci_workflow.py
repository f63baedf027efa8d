"""examples/ci/github-actions.yml, run here as GitHub Actions would run it: each `run:` step in
bash (`-eo pipefail`, as `shell: bash` does) with the job's environment (GITHUB_REF,
GITHUB_EVENT_NAME, a GITHUB_STEP_SUMMARY file, GITHUB_ENV read back between steps), each
`uses:` step done by its stand-in here (the cache: a directory kept between jobs), in a
fresh copy of a small project per job, at a path of its own.

The project's suite is a script that prints its figure (the lind format), so that every
verdict is the same on any machine, however busy: a pull request makes it ten times slower,
which no noise can hide or fake. Four jobs: the first push to main (an empty store: no
baseline yet, exit 5, a pass that says so, and the first baseline saved), a pull request
that is slower (its comment and reports written, then the job fails with 3), a pull request
that changes nothing (passes), and a later push to main (passes, saves the baseline again).
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

import yaml

from conftest import REPO, write
from junit_schema import read_junit, verdicts

WORKFLOW = REPO / "examples" / "ci" / "github-actions.yml"
#: The project's settings for a short job: a fixed number of processes instead of a time budget.
FAST = {"BENCHLAB_RUN_OPTIONS": "--processes 3", "BENCHLAB_GATE_OPTIONS": "--max-regression 2% --time-limit 20"}
READ = "#!/bin/sh\nprintf 'Read\\t1\\t100\\t{figure}\\n'\n"
WRITE = "#!/bin/sh\nprintf 'Write\\t1\\t100\\t500\\n'\n"


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
    summary: str

    def step(self, name: str) -> Step:
        return next(step for step in self.steps if step.name == name)


class Runner:
    """What GitHub Actions does with the workflow's one job, for a push or a pull request."""

    def __init__(self, tmp_path: Path):
        self.workflow = yaml.safe_load(WORKFLOW.read_text())
        [(self.job_name, self.job)] = self.workflow["jobs"].items()
        self.tmp = tmp_path
        self.cache = tmp_path / "actions-cache"  # what actions/cache keeps between jobs
        self.tools = self._tools()
        self.jobs = 0

    def _tools(self) -> Path:
        """pip and gh as stand-ins that say what they were asked; benchlab is this checkout's."""
        tools = self.tmp / "tools"
        write(tools / "pip", f'#!/bin/sh\necho "$@" >> {self.tmp}/pip.log\n', executable=True)
        write(tools / "gh", f'#!/bin/sh\necho "$@" >> {self.tmp}/gh.log\n'
                            f'cp benchlab-comment.md {self.tmp}/commented.md\n', executable=True)
        return tools

    def run(self, project: Path, event: str) -> Job:
        """The job in a fresh copy of `project`, as a push to main or a pull request (#7)."""
        self.jobs += 1
        workspace = self.tmp / f"job{self.jobs}" / "checkout"
        shutil.copytree(project, workspace)  # actions/checkout: a fresh clone, at a new path
        github = {"ref": "refs/heads/main" if event == "push" else "refs/pull/7/merge", "event_name": event,
                  "token": "token", "event.pull_request.number": "7" if event == "pull_request" else "",
                  "run_id": str(1000 + self.jobs), "run_attempt": "1"}
        summary = workspace.parent / "step_summary.md"
        github_env = workspace.parent / "github_env"
        summary.touch()
        github_env.touch()
        base = {key: value for key, value in os.environ.items() if not key.startswith(("BENCHLAB_", "GITHUB_"))}
        base.update({"PATH": f"{self.tools}:{Path(sys.executable).parent}:{os.environ['PATH']}", "CI": "true",
                     "GITHUB_ACTIONS": "true", "GITHUB_REF": github["ref"], "GITHUB_EVENT_NAME": event,
                     "GITHUB_WORKSPACE": str(workspace), "GITHUB_ENV": str(github_env), "RUNNER_OS": "Linux",
                     "GITHUB_STEP_SUMMARY": str(summary)})
        base.update({key: str(value) for key, value in self.workflow["env"].items()})
        base.update(FAST)
        steps, failed = [], False
        for spec in self.job["steps"]:
            name = spec.get("name") or spec["uses"]
            if not self._condition(spec.get("if"), github, failed):
                steps.append(Step(name, ran=False))
                continue
            env = {**base, **_read_env_file(github_env),
                   **{key: self._expand(str(value), github) for key, value in (spec.get("env") or {}).items()}}
            if "uses" in spec:
                self._uses(spec, workspace, github)
                steps.append(Step(name, ran=True))
                continue
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", spec["run"]],
                                  cwd=workspace, env=env, capture_output=True, text=True, timeout=300)
            steps.append(Step(name, ran=True, exit_code=done.returncode, output=done.stdout + done.stderr))
            failed = failed or done.returncode != 0
        return Job(workspace, steps, summary.read_text())

    @staticmethod
    def _condition(condition: str | None, github: dict, failed: bool) -> bool:
        """The `if:` expressions the workflow uses; any other is a test to extend, not a guess."""
        known = {None: not failed, "always()": True,
                 "github.ref == 'refs/heads/main'": not failed and github["ref"] == "refs/heads/main",
                 "github.event_name == 'pull_request'": not failed and github["event_name"] == "pull_request"}
        assert condition in known, f"the workflow's condition {condition!r} is not one this test knows"
        return known[condition]

    @staticmethod
    def _expand(text: str, github: dict) -> str:
        def value(match: re.Match) -> str:
            name = match.group(1).strip()
            if name == "runner.os":
                return "Linux"
            assert name.startswith("github."), name
            return github[name[len("github."):]]
        return re.sub(r"\$\{\{(.*?)\}\}", value, text)

    def _uses(self, spec: dict, workspace: Path, github: dict) -> None:
        action = spec["uses"].split("@")[0]
        inputs = {key: self._expand(str(value), github) for key, value in (spec.get("with") or {}).items()}
        if action == "actions/cache/restore":
            prefix = inputs["restore-keys"].strip()
            assert inputs["key"].startswith(prefix)  # a later job's exact key is found by its prefix
            saved = sorted(self.cache.glob(f"{prefix}*"), key=lambda path: int(path.name.split("-")[2]))
            if saved:  # the newest, as restore-keys finds it
                shutil.copytree(saved[-1], workspace, dirs_exist_ok=True)
        elif action == "actions/cache/save":
            target = self.cache / inputs["key"]
            for pattern in inputs["path"].split():
                for path in workspace.glob(pattern):
                    (target / path.relative_to(workspace)).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, target / path.relative_to(workspace))
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


def test_the_github_workflow_gates_pull_requests_against_mains_baseline_in_fresh_jobs(tmp_path):
    runner = Runner(tmp_path)
    main = project_at(tmp_path / "main", 240)

    first = runner.run(main, "push")  # an empty store: nothing cached yet
    succeeded_until_the_last(first)
    assert first.steps[-1].exit_code == 0
    assert "no baseline 'main' yet: nothing judged; this run is the first baseline" in first.steps[-1].output
    assert first.summary.startswith("### benchlab gate not judged: no baseline 'main' yet (exit 5)\n")
    assert "saved baseline 'main'" in first.step("Save the baseline").output
    assert not first.step("Comment on the pull request").ran
    assert (tmp_path / "pip.log").read_text() == "install benchlab\n"

    slower = runner.run(project_at(tmp_path / "slower", 2400), "pull_request")  # ten times slower
    succeeded_until_the_last(slower)
    assert slower.steps[-1].name == "Fail when the gate failed" and slower.steps[-1].exit_code == 3
    assert not slower.step("Save the baseline").ran and not slower.step("Save the store").ran
    comment = (slower.directory / "benchlab-comment.md").read_text()
    assert comment.startswith("### benchlab gate failed: 1 slower beyond the threshold\n\n"
                              "run 2 against baseline 'main' (run 1)\n")
    assert "| `Read/1` | native | 240 | 2400 | 10.0000 | [10.0000, 10.0000] | slower |" in comment
    assert "| `Write/1` | native | 500 | 500 | 1.0000 | [1.0000, 1.0000] | not slower |" in comment
    assert "re-measured: 4 paired rounds of baseline and candidate" in comment  # main's history, restored
    # The comment was posted before the job failed, and is the summary's table.
    assert (tmp_path / "gh.log").read_text() == "pr comment 7 --body-file benchlab-comment.md --edit-last --create-if-none\n"
    assert (tmp_path / "commented.md").read_text() == comment
    assert slower.summary == comment + "\n"
    junit = read_junit(slower.directory / "benchlab-junit.xml")
    assert verdicts(junit) == {"Read/1 on native": "failure:slower", "Write/1 on native": "passed"}
    figures = json.loads((slower.directory / "benchlab-figures.json").read_text())
    assert {(entry["name"], entry["value"], entry["unit"]) for entry in figures} == {
        ("Read/1 (native)", 2400.0, "ns"), ("Write/1 (native)", 500.0, "ns")}

    same = runner.run(project_at(tmp_path / "same", 240), "pull_request")
    succeeded_until_the_last(same)
    assert same.steps[-1].exit_code == 0 and same.summary.startswith("### benchlab gate passed: every row not slower")

    again = runner.run(main, "push")
    succeeded_until_the_last(again)
    assert again.steps[-1].exit_code == 0 and "gate passed" in again.steps[-1].output
    assert again.summary.startswith("### benchlab gate passed")
    assert "it was run 1" in again.step("Save the baseline").output  # main's baseline moves on


# -- the GitLab job of docs/ci.md ----------------------------------------------------------------

def gitlab_job() -> dict:
    """The `benchmarks` job of the yaml block under docs/ci.md's "GitLab CI"."""
    text = (REPO / "docs" / "ci.md").read_text()
    section = text[text.index("## GitLab CI"):]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    return yaml.safe_load(block)["benchmarks"]


def run_gitlab(tmp_path: Path, project: Path, number: int, event: str) -> subprocess.CompletedProcess:
    """The job as a GitLab runner runs it: the rule that matches sets its variables, the cache
    is pulled and pushed as its policy says, the script runs in one bash (`set -eo pipefail`)."""
    job = gitlab_job()
    workspace = tmp_path / f"gitlab{number}" / "checkout"
    shutil.copytree(project, workspace)
    predefined = ({"CI_COMMIT_BRANCH": "main", "CI_PIPELINE_SOURCE": "push"} if event == "push" else
                  {"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "7"})
    predefined.update({"CI_DEFAULT_BRANCH": "main", "CI_API_V4_URL": "https://gitlab.example/api/v4",
                       "CI_PROJECT_ID": "42", "BENCHLAB_GITLAB_TOKEN": "token"})
    conditions = {"$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH": predefined.get("CI_COMMIT_BRANCH") == "main",
                  '$CI_PIPELINE_SOURCE == "merge_request_event"': event == "merge_request"}
    [rule] = [rule for rule in job["rules"] if conditions[rule["if"]]]
    variables = {**{key: str(value) for key, value in job["variables"].items()}, **rule["variables"], **FAST}
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
            for path in workspace.glob(pattern):
                (cache / path.relative_to(workspace)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, cache / path.relative_to(workspace))
    return done


def test_the_gitlab_job_of_the_docs_gates_a_merge_request_and_comments_before_failing(tmp_path):
    tools = tmp_path / "gitlab-tools"
    write(tools / "pip", "#!/bin/sh\nexit 0\n", executable=True)
    write(tools / "curl", f'#!/bin/sh\necho "$@" >> {tmp_path}/curl.log\n', executable=True)
    first = run_gitlab(tmp_path, project_at(tmp_path / "main", 240), 1, "push")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "gate not judged: no baseline 'main' yet (exit 5)" in first.stderr and "gate status 5" in first.stdout
    stored = tmp_path / "gitlab-cache" / "benchlab-store" / ".benchlab" / "results.db"
    before = stored.read_bytes()
    slower = run_gitlab(tmp_path, project_at(tmp_path / "slower", 2400), 2, "merge_request")
    assert slower.returncode == 3, slower.stdout + slower.stderr
    workspace = tmp_path / "gitlab2" / "checkout"
    assert (workspace / "benchlab-comment.md").read_text().startswith("### benchlab gate failed: 1 slower")
    assert verdicts(read_junit(workspace / "benchlab-junit.xml"))["Read/1 on native"] == "failure:slower"
    assert (tmp_path / "curl.log").read_text() == (
        "--fail --silent --show-error --request POST --header PRIVATE-TOKEN: token --data-urlencode "
        "body@benchlab-comment.md https://gitlab.example/api/v4/projects/42/merge_requests/7/notes\n")
    # a merge request pulls main's store and pushes nothing back
    assert stored.read_bytes() == before


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
