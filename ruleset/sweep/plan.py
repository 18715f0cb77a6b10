"""Check every input of a grid once, before any task runs, and make the tasks.

Each profile is checked at each release it runs as (and its plugins constructed, which finds
what only constructors can); each snapshot is read; each scenario is read with the first
snapshot. A bad input fails the sweep here, with the usual located problems, not in task 937.
(A ``--scale`` naming a workload that only some snapshots hold fails those tasks alone.)

A task's id is a hash of its parameters: the profile's label and the content of its files (the
``extends`` chain included), the snapshot's name and content, the scenario's name and content,
the release and the seed. The same grid over the same files gives the same ids, which is what
lets a rerun skip the tasks that already have a result.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruleset.errors import Problem, RulesetError
from ruleset.sweep.grid import Grid
from ruleset.sweep.task import SnapshotRef, TaskSpec, digest_files


@dataclass(frozen=True)
class Plan:
    """The checked grid's tasks, in grid order (profile slowest, then snapshot, scenario, release)."""

    grid: Grid
    tasks: tuple[TaskSpec, ...]


def plan_sweep(grid: Grid, root: Path | None = None, plugins: tuple[str, ...] | None = None,
               autoload: bool | None = None) -> Plan:
    """Check the grid's profiles, snapshots and scenarios; raise RulesetError with every problem,
    else return the tasks. ``plugins`` and ``autoload``: the registry the workers load (default:
    the one this process loads)."""
    from ruleset.pluginmanager import autoload_disabled, load_registry, requested_local

    plugins = requested_local() if plugins is None else plugins
    autoload = not autoload_disabled() if autoload is None else autoload
    registry = load_registry(autoload=autoload, local=plugins)
    problems: list[Problem] = []
    profiles = {(p, v): _check_profile(p, v, registry, root, problems)
                for p in grid.profiles for v in grid.versions}
    snapshots = [_snapshot(c, problems) for c in grid.clusters] or [_snapshot(None, problems)]
    if problems:
        raise RulesetError(problems)
    scenario_digests = {s.name: _scenario_digest(s.name, s.pods, s.scale, problems) for s in grid.scenarios}
    labels = _labels(grid, profiles)
    if problems:
        raise RulesetError(problems)
    _read_inputs(grid, snapshots, problems)
    if problems:
        raise RulesetError(problems)
    tasks = []
    for p in grid.profiles:
        for snapshot in snapshots:
            for scenario in grid.scenarios:
                for v in grid.versions:
                    params = {"profile": labels[p], "profileDigest": profiles[(p, v)][1],
                              "snapshot": snapshot.name, "snapshotDigest": snapshot.digest,
                              "scenario": scenario.name, "scenarioDigest": scenario_digests[scenario.name],
                              "kubernetesVersion": v, "seed": grid.seed}
                    tasks.append(TaskSpec(
                        id=task_id(params), profile=_absolute(p), profile_label=labels[p],
                        snapshot=_absolute_snapshot(snapshot), scenario=scenario.name,
                        pods=tuple(_absolute(f) for f in scenario.pods), scale=scenario.scale,
                        scenario_digest=scenario_digests[scenario.name], kubernetes_version=v, seed=grid.seed,
                        root=str(root) if root is not None else None,
                        plugins=tuple(_absolute(item) if item.endswith(".py") else item for item in plugins),
                        autoload=autoload))
    return Plan(grid=grid, tasks=tuple(tasks))


def _absolute(value: str) -> str:
    """An existing path made absolute (a worker's working folder is not ours); anything else as is."""
    path = Path(value)
    return str(path.resolve()) if path.exists() else value


def _absolute_snapshot(snapshot: SnapshotRef) -> SnapshotRef:
    return SnapshotRef(snapshot.name, tuple(_absolute(f) for f in snapshot.paths), snapshot.digest)


def task_id(params: dict[str, Any]) -> str:
    """The stable id of a task: the first 16 hex digits of the SHA-256 of its parameters."""
    text = json.dumps(params, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _check_profile(value: str, version: str | None, registry: Any, root: Path | None,
                   problems: list[Problem]) -> tuple[Any, str]:
    """The checked profile at ``version`` and the content hash of its files ('' when it failed)."""
    from ruleset.analysis.compare import SideSpec, load_side
    from ruleset.errors import PLUGIN_FAULTS, describe_exception
    from ruleset.framework.plugin import Handle
    from ruleset.framework.runtime import Framework

    try:
        check = load_side(SideSpec(value, version), registry, root)
    except RulesetError as exc:
        problems.extend(p for p in exc.problems if p not in problems)
        return None, ""
    assert check.profile is not None
    try:
        Framework(check.profile, registry, Handle(None, None), checked=check.plugins)
    except RulesetError as exc:
        problems.extend(exc.problems)
    except PLUGIN_FAULTS as exc:
        problems.append(Problem(f"building the profile's plugins failed: {describe_exception(exc)}",
                                file=str(next(iter(check.files), value)), code="plugin-error"))
    return check, digest_files(sorted(check.files))


def _snapshot(value: str | None, problems: list[Problem]) -> SnapshotRef:
    from ruleset import bundled
    from ruleset.manifests import manifest_files

    if value is None:
        return SnapshotRef("demo", (), digest_files([bundled.demo_cluster()]))
    found: list[Problem] = []
    files = manifest_files([value], found)
    digest = _digest(files, found)
    problems.extend(found)
    return SnapshotRef(value, tuple(str(f) for f in files), digest)


def _digest(files: list[Path], problems: list[Problem]) -> str:
    """The content hash of ``files`` ('' with a problem for each that cannot be read)."""
    for file in files:
        try:
            file.stat()
        except OSError as exc:
            problems.append(Problem(f"cannot read: {exc.strerror or exc}", file=str(file), code="io-error"))
    if problems:
        return ""
    try:
        return digest_files(files)
    except OSError as exc:
        problems.append(Problem(f"cannot read: {exc.strerror or exc}", file=str(exc.filename),
                                code="io-error"))
        return ""


def _scenario_digest(name: str, pods: tuple[str, ...], scale: tuple[str, ...],
                     problems: list[Problem]) -> str:
    from ruleset.manifests import manifest_files

    found: list[Problem] = []
    files = manifest_files(list(pods), found)
    digest = _digest(files, found)
    problems.extend(found)
    h = hashlib.sha256(json.dumps({"pods": list(pods), "scale": list(scale)}).encode())
    h.update(digest.encode())
    return h.hexdigest()


def _labels(grid: Grid, profiles: dict[tuple[str, str | None], tuple[Any, str]]) -> dict[str, str]:
    """Each profile's label: its name; the argument as given when two profiles share a name."""
    names = {p: profiles[(p, grid.versions[0])][0].profile.name for p in grid.profiles}
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    return {p: name if counts[name] == 1 else p for p, name in names.items()}


def _read_inputs(grid: Grid, snapshots: list[SnapshotRef], problems: list[Problem]) -> None:
    """Read each snapshot, and each scenario on the first snapshot, as the tasks will."""
    from ruleset.app import load_state
    from ruleset.manifests import ScaleRequest
    from ruleset.sweep.task import scale_request

    def read(snapshot: SnapshotRef, pods: tuple[str, ...] = (), scale: tuple[str, ...] = ()) -> None:
        try:
            load_state(list(snapshot.paths) or None, list(pods), seed=grid.seed,
                       scale=[scale_request(t, ScaleRequest) for t in scale])
        except RulesetError as exc:
            problems.extend(p for p in exc.problems if p not in problems)

    for snapshot in snapshots:
        read(snapshot)
    for scenario in grid.scenarios:
        if scenario.pods or scenario.scale:
            read(snapshots[0], scenario.pods, scenario.scale)
