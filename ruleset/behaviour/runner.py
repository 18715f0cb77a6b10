"""Run test files: schedule each file's pods under its profile, as ``ruleset schedule`` does, and
check every expectation.

The run goes through :func:`ruleset.app.prepare_profiles` and
:func:`ruleset.scheduler.schedule_all`, so a test sees exactly what the command shows. Inline
nodes and pods are written as JSON manifests to a temporary folder and read as
``--cluster`` and ``--pods`` files; a problem found in one is located at its table in the
test file.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ruleset.app import prepare_profiles
from ruleset.behaviour.expectations import Context, check
from ruleset.behaviour.loader import load_test_file
from ruleset.behaviour.model import FileOutcome, Report, TestFile
from ruleset.errors import Problem, RulesetError, format_path
from ruleset.pluginmanager import load_registry
from ruleset.profile.loader import display_path
from ruleset.scheduler import schedule_all
from ruleset.scheduler.loop import ScheduleRun


def run_files(paths: Iterable[Path], root: Path | None = None, missing: Iterable[Problem] = ()) -> Report:
    """Run every test file; ``missing`` (arguments that named no file) are reported first."""
    files = [FileOutcome(path=problem.file or "<input>", problems=[problem]) for problem in missing]
    files.extend(run_file(path, root) for path in paths)
    return Report(files, plugin_problems=list(load_registry().problems))


def run_file(path: Path, root: Path | None = None) -> FileOutcome:
    """Run one test file: its outcomes, or the problems that kept it (or an expectation) from running."""
    start = time.perf_counter()
    outcome = FileOutcome(path=display_path(path))
    test, problems = load_test_file(path)
    if test is None:
        outcome.problems = problems
    else:
        with tempfile.TemporaryDirectory(prefix="ruleset-test-") as folder:
            _run(test, Path(folder), root, outcome)
    outcome.seconds = time.perf_counter() - start
    return outcome


def _run(test: TestFile, folder: Path, root: Path | None, outcome: FileOutcome) -> None:
    inline: dict[str, tuple[str | int, ...]] = {}
    node_files = [_write(folder, key, manifest, inline) for key, manifest in test.nodes]
    pod_files = [_write(folder, key, manifest, inline) for key, manifest in test.pods]
    cluster = [*test.cluster, *node_files] or None
    pods = [*test.pod_files, *pod_files] or None
    runs: dict[str, ScheduleRun] = {}

    def schedule(profile: str) -> ScheduleRun:
        if profile not in runs:
            frameworks, state = prepare_profiles([profile], cluster, pods, root, seed=test.seed)
            runs[profile] = schedule_all(frameworks, state, seed=test.seed)
        return runs[profile]

    try:
        context = Context(run=schedule(test.profile), rerun=schedule)
    except RulesetError as exc:
        outcome.problems = [_relocated(p, test, inline) for p in exc.problems]
        return
    for expectation in test.expectations:
        try:
            result = check(expectation, context)
        except RulesetError as exc:  # the other profile of same-as, or the run under it
            outcome.problems.extend(_relocated(p, test, inline) for p in exc.problems)
            continue
        if isinstance(result, Problem):
            outcome.problems.append(result)
        else:
            outcome.outcomes.append(result)


def _write(folder: Path, key: tuple[str | int, ...], manifest: dict[str, Any],
           inline: dict[str, tuple[str | int, ...]]) -> str:
    path = folder / f"{key[0]}-{key[1]:04d}.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    inline[str(path)] = key
    return str(path)


def _relocated(problem: Problem, test: TestFile, inline: dict[str, tuple[str | int, ...]]) -> Problem:
    """A problem found in an inline object's manifest, at that object's table in the test file."""
    key = inline.get(problem.file or "")
    if key is None:
        return problem
    line, column = test.places.get(key, (1, 1))
    path = format_path(key) + (f": {problem.path}" if problem.path else "")
    return Problem(problem.message, file=str(test.path), line=line, column=column, path=path,
                   code=problem.code, severity=problem.severity)
