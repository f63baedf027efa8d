"""The gate's re-measurement: a baseline's kept binaries against the candidate run's, in
fresh interleaved processes (the `ab` machinery), judged on paired rounds.

Stored figures of two runs minutes or days apart carry the machine's state of each run;
on a VM that switches host states within seconds, their difference is mostly that. Run
again side by side in alternating processes, both halves of a pair meet the same state
and it cancels in their ratio (ab.py). So `gate` re-measures whenever it can: the
baseline keeps its binaries (content-addressed in the database: `baseline save`), the
candidate run names its own (its context's `code`: path and sha256), and each unit both
have, on a platform this machine runs, is measured again. Rounds stop as soon as every
figure's interval is on one side of its threshold (`decided`), or at the time limit.

What cannot be re-measured falls back to the stored figures, and says why, per unit:
a baseline without binaries, a stored binary whose content no longer hashes to its
sha256 (refused, never executed), a binary that this machine's `benchlab run` never ran
(trust.py: the store alone is no reason to execute anything; --trust-stored-binaries
overrides), a candidate binary rebuilt or deleted since its run, a platform not available
here, flags that differ, or binaries that do not run here.

Only what was hashed runs: the baseline's binaries are written from their stored content,
and the candidate's is read once from a path this machine's `benchlab run` ran it at,
hashed, and copied; each goes to a directory of its own in the gate's private workspace,
under a name made safe (`safe_name`), so stored names never choose where a file is
written, and a file replaced after the check is never executed (issue 37).
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

from benchlab.statistics import noise
from benchlab.measuring.ab import PROCESS_TIME_LIMIT_S, ABRun, Pair, paired_scope
from benchlab.measuring.build import Builder
from benchlab.statistics.compare import Comparison
from benchlab.config import Config, draw_seed
from benchlab.errors import UserError
from benchlab.measuring import trust
from benchlab.measuring.platforms import Platform, resolve_platforms
from benchlab.measuring.recording import sigterm_as_interrupt
from benchlab.measuring.runner import RunOptions, Runner, Unit
from benchlab.measuring.targets import Target

#: What a re-measured row's interval rests on (Comparison.scope), with its rounds.
REMEASURED = "re-measured: {rounds} paired rounds of baseline and candidate"
#: The characters a stored file name keeps in the workspace; every other becomes "_".
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")
#: The longest file name written there (well under every file system's 255 bytes).
MAX_FILE_NAME = 100


@dataclasses.dataclass
class Plan:
    """What the gate can run again: a pair per unit, and why each other unit cannot."""
    pairs: list[Pair]
    fallbacks: dict[str, str]        # code label -> why it is judged on stored figures


def kept_binaries(context: dict[str, Any] | None) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The binaries of a run to keep with its baseline ({binary, platform, file_name, content}),
    each still the file the run ran (same sha256); and why the others cannot be kept."""
    kept, skipped = [], {}
    for label, entry in ((context or {}).get("code") or {}).items():
        if not isinstance(entry, dict) or entry.get("flavor") == "workload":
            skipped[label] = "a workload is timed as a whole command: its figures are compared as stored"
            continue
        path = Path(entry.get("path") or "")
        content = _read_once(path, entry.get("sha256"))  # what is kept is what was hashed
        if content is None:
            skipped[label] = f"its binary {path} is gone or was rebuilt since the run"
            continue
        binary, _, platform = label.rpartition("@")
        kept.append({"binary": binary, "platform": platform, "file_name": path.name, "content": content})
    return kept, skipped


def plan(config: Config, kept: list[dict[str, Any]], baseline_context: dict[str, Any] | None,
         candidate_context: dict[str, Any] | None, directory: Path, trust_stored: bool = False) -> Plan:
    """Pairs of (baseline binary written into `directory`, candidate binary copied there) per
    unit both have. Only what was hashed is executed: the stored content, and the candidate's
    copy, never its path (a file replaced after the check would run). Only binaries this
    machine's `benchlab run` ran are executed (trust.py), unless `trust_stored`."""
    base_codes = (baseline_context or {}).get("code") or {}
    candidate_codes = (candidate_context or {}).get("code") or {}
    trusted = None if trust_stored else trust.trusted()
    pairs, fallbacks = [], {}
    platforms: dict[str, Platform] = {}
    for index, row in enumerate(kept):
        label = noise.code_label(row["binary"], row["platform"])
        reason = _cannot_pair(row, base_codes.get(label), candidate_codes.get(label), trusted)
        platform = None if reason else _platform(config, row["platform"], platforms)
        if isinstance(platform, str):
            reason = platform
        candidate = None if reason else _copy_candidate(directory, index, label, candidate_codes[label])
        if isinstance(candidate, str):
            reason = candidate
        if reason:
            fallbacks[label] = reason
            continue
        exe = _write_binary(directory / f"{index}-a-{safe_name(label)}", row["file_name"], row["content"])
        pairs.append(Pair(label, Unit(Target(row["binary"], "executable", exe), platform),
                          Unit(Target(row["binary"], "executable", candidate), platform)))
    for label in candidate_codes:
        if label not in fallbacks and not any(pair.name == label for pair in pairs):
            fallbacks[label] = "the baseline keeps no binary of it (saved before binaries were kept, or a workload)"
    return Plan(pairs, fallbacks)


def not_kept_reason(label: str, baseline_context: dict[str, Any] | None, kept: int) -> str:
    """Why the baseline holds no binary of unit `label`, from what its run recorded and how
    many binaries it keeps (`kept`): a workload, a unit its run did not have, or a binary
    not kept or deleted from the store since, never 'saved before binaries were kept' of a
    baseline that keeps others (a kept binary deleted from the store was said to be that)."""
    entry = ((baseline_context or {}).get("code") or {}).get(label)
    if isinstance(entry, dict) and entry.get("flavor") == "workload":
        return "a workload is timed as a whole command: its figures are compared as stored"
    if not isinstance(entry, dict):
        return "the baseline's run did not run it"
    again = "save the baseline again from a run whose binaries exist (benchlab baseline save NAME RUN)"
    if kept:
        return (f"the baseline keeps {kept} other binaries but none of it: its binary was gone or rebuilt when the "
                f"baseline was saved, or was deleted from the store since; {again}")
    return (f"the baseline keeps no binaries: saved before baselines kept them, or deleted from the store since; "
            f"{again}")


def _copy_candidate(directory: Path, index: int, label: str, code: dict[str, Any]) -> Path | str:
    """The candidate's binary read once, hashed, and written as read into a directory of its own
    in the workspace: the copy is what runs. Why not, when the file is no longer what its run ran."""
    path = Path(code["path"])
    content = _read_once(path, code.get("sha256"))
    if content is None:
        return f"the candidate's binary {path} is gone or was rebuilt since its run"
    return _write_binary(directory / f"{index}-b-{safe_name(label)}", path.name, content)


def _read_once(path: Path, sha256: str | None) -> bytes | None:
    """The content of the regular file at `path`, read once, when it hashes to `sha256`; else
    None. Non-blocking: a FIFO put there must not hang the gate or baseline save."""
    if not sha256:
        return None
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb") as file:
            content = file.read() if stat.S_ISREG(os.fstat(descriptor).st_mode) else None
    except OSError:
        return None
    return content if content is not None and hashlib.sha256(content).hexdigest() == sha256 else None


def _write_binary(folder: Path, file_name: Any, content: bytes) -> Path:
    """`content` written into `folder`, a directory of its own in the workspace (the index in
    its name keeps two labels that make the same safe name apart), under `file_name` made safe."""
    exe = folder / safe_name(file_name)
    folder.mkdir()
    exe.write_bytes(content)
    exe.chmod(0o755)
    return exe


def safe_name(name: Any) -> str:
    """A stored name as one file name that stays where it is put: no `/`, no NUL, no `..`,
    not hidden, not empty, at most MAX_FILE_NAME characters; its suffix (.wasm) kept."""
    text = _UNSAFE.sub("_", str(name or "")).lstrip(".")
    if len(text) > MAX_FILE_NAME:
        stem, dot, suffix = text.rpartition(".")
        suffix = suffix if dot and stem and len(suffix) <= 16 else ""
        text = text[:MAX_FILE_NAME - len(suffix) - 1].rstrip(".") + ("." + suffix if suffix else "")
    return text or "binary"


def _cannot_pair(row: dict[str, Any], base: dict | None, candidate: dict | None,
                 trusted: trust.Trusted | None) -> str | None:
    if not row["intact"]:
        return (f"the baseline's stored binary no longer matches its sha256 {row['sha256'][:12]}... (corrupted): "
                "refused, never executed")
    if not candidate or not candidate.get("path"):
        return "the candidate run does not name its binary"
    if base is not None and base.get("flags") != candidate.get("flags"):
        return f"the two runs gave it different flags ({base.get('flags')} and {candidate.get('flags')})"
    if trusted is not None:
        return (trust.untrusted_reason("the baseline's binary", row["sha256"], trusted)
                or trust.untrusted_path_reason("the candidate's binary", str(candidate["path"]),
                                               candidate.get("sha256"), trusted))
    return None


def _platform(config: Config, name: str, cache: dict[str, Platform]) -> Platform | str:
    """The platform by name, available here; or why not."""
    if name not in cache:
        try:
            [platform] = resolve_platforms([name], config)
            platform.check_available()
        except UserError as error:
            return f"platform {name} is not available here: {error.what}"
        cache[name] = platform
    return cache[name]


#: A gate's workspace is named WORKSPACE_PREFIX + its pid + "-" + mkdtemp's random part, so
#: that a later gate can tell one whose gate is gone (killed by SIGKILL, which no handler sees).
WORKSPACE_PREFIX = "benchlab-gate-"
_WORKSPACE_NAME = re.compile(rf"{re.escape(WORKSPACE_PREFIX)}([0-9]+)-[A-Za-z0-9_]+")


@contextlib.contextmanager
def workspace(root: str | None = None) -> Iterator[Path]:
    """A private directory for the baseline's binaries while they run, in `root` (the system's
    temporary directory by default); removed on the way out, SIGTERM (a CI job cancelled)
    included: it is raised as Ctrl-C is. The workspaces of gates that were killed outright
    (SIGKILL: 687 KB each, issue 37) are removed first (`stale_workspaces`)."""
    root = root or tempfile.gettempdir()
    for stale in stale_workspaces(Path(root)):
        shutil.rmtree(stale, ignore_errors=True)
    with sigterm_as_interrupt(), tempfile.TemporaryDirectory(prefix=f"{WORKSPACE_PREFIX}{os.getpid()}-",
                                                             dir=root) as directory:
        os.chmod(directory, 0o700)
        yield Path(directory)


def stale_workspaces(root: Path) -> list[Path]:
    """The gate workspaces in `root` whose gate is gone: directories (not links) of benchlab's
    own name, owned by this user, whose pid runs no process. Nothing else is touched: another
    user's, a live gate's, one named otherwise (or before the pid was in the name)."""
    found = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    for entry in entries:
        match = _WORKSPACE_NAME.fullmatch(entry.name)
        if match is None or int(match[1]) == os.getpid():
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not _running(int(match[1])):
            found.append(Path(entry.path))
    return found


def _running(pid: int) -> bool:
    """Whether process `pid` exists (another user's counts: it may be that gate's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def run(config: Config, pairs: list[Pair], *, decided: Callable[[tuple, float, float], bool],
        floor_of: Callable[[str], float], time_limit: float, seed: int | None = None,
        progress: Callable[[str], None] = lambda _: None,
        on_round: Callable[[int], None] = lambda _: None) -> tuple[list[Comparison], dict[str, str], int, float]:
    """Measure the pairs interleaved until every figure is `decided` (the gate's rule:
    judging/thresholds.py) or `time_limit`: the comparisons (scope names the method; each
    row's noise floor `floor_of` its benchmark), the pairs that failed to run here (label -> why), the rounds, and
    the seconds they took."""
    seed = seed if seed is not None else draw_seed()
    platforms = list({id(p.a.platform): p.a.platform for p in pairs}.values())
    options = RunOptions(timeout=config.timeout, seed=seed, time_limit=PROCESS_TIME_LIMIT_S)
    runner = Runner(config, platforms, options, Builder(config), lambda m: None)
    result = ABRun(runner, pairs, seed=seed, precision=0.0, time_limit=time_limit, max_rounds=10**6, duet=False,
                   floor_of=floor_of, progress=progress, decided=decided, drop_failing=True,
                   on_round=on_round).run()
    binaries = {pair.name: pair.a.target.name for pair in pairs}  # loop@native -> loop
    for comparison in result.comparisons:
        rounds = len(comparison.rounds[0]) if comparison.rounds else result.rounds
        comparison.scope = paired_scope(REMEASURED.format(rounds=rounds), len(result.comparisons))
        comparison.program = binaries.get(comparison.program, comparison.program)
    failed = {label: f"its binaries do not run here ({why})" for label, why in result.failed.items()}
    return result.comparisons, failed, result.rounds, result.seconds
