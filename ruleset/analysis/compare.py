"""``ruleset compare``: the same pending pods scheduled under two profiles, or under one profile
at two Kubernetes releases, each side its own run on a fresh copy of the cluster; what differs.

A side is a profile (a path or a bundled name) and, optionally, the ``kubernetesVersion`` it
runs as instead of its own (``--kubernetes-version``): the profile's plugins are checked again
at that release, and the cluster is read for it (admission and resource accounting follow the
release), as ``schedule`` would with the version written in the profile.

The gate (``--fail-if-differs``) counts as differences: pods placed on different nodes, pods
scheduled by one side only, and each compared number (:func:`gate_numbers`) whose two values
differ by more than its tolerance (0 unless given). ``--tolerance placements=N`` lets up to N
pods land differently (one-sided ones included).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruleset.analysis.capacity import DEFAULT_LIMIT, count_fitting
from ruleset.analysis.metrics import balance, flat_metrics
from ruleset.api.pod import Pod
from ruleset.app import load_state
from ruleset.errors import Problem, RulesetError
from ruleset.framework.nominator import Nominator
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.framework.validation import check_plugins
from ruleset.kversion import supported
from ruleset.manifests import ScaleRequest
from ruleset.pluginmanager import PluginRegistry, load_registry
from ruleset.profile.loader import ProfileCheck, check_profile_argument
from ruleset.scheduler import ScheduleRun, schedule_all
from ruleset.snapshot import Snapshot

#: The compared number that counts pods placed differently (one-sided ones included).
PLACEMENTS = "placements"


@dataclass(frozen=True)
class SideSpec:
    """One side to run: a profile argument (None: the bundled "default") and the release to run
    it as (None: the profile's own)."""

    profile: str | None = None
    kubernetes_version: str | None = None


@dataclass
class Side:
    """One side's run: its label, framework, the run, the balance metrics after it, and how many
    copies of the largest pending pod still fit (None when there was no pending pod)."""

    label: str
    framework: Framework
    run: ScheduleRun
    metrics: dict[str, Any]
    fragmentation: int | None
    largest: Pod | None


def sides_of(profiles: Sequence[str] | None, versions: Sequence[str] | None) -> list[SideSpec]:
    """Two sides from ``--profile`` and ``--kubernetes-version`` values: two of one and at most one
    of the other (a single value, or none, is the same on both sides)."""
    profiles, versions = list(profiles or []), list(versions or [])
    if len(profiles) > 2 or len(versions) > 2 or max(len(profiles), len(versions)) != 2:
        raise RulesetError(Problem(
            f"compare needs two sides: two --profile, or two --kubernetes-version (got {len(profiles)} "
            f"profile(s) and {len(versions)} version(s))", code="invalid-value"))
    pick = profiles if len(profiles) == 2 else [profiles[0] if profiles else None] * 2
    chosen = versions if len(versions) == 2 else [versions[0] if versions else None] * 2
    return [SideSpec(pick[i], chosen[i]) for i in range(2)]


def retarget(check: ProfileCheck, version: str, registry: PluginRegistry) -> ProfileCheck:
    """``check``'s profile run as Kubernetes ``version``: its plugins checked again at that
    release (a plugin the release does not have is an error, located at the profile's file)."""
    assert check.profile is not None
    file = check.profile.files[0] if check.profile.files else None
    try:
        supported(version)
    except ValueError as exc:
        where = f"--kubernetes-version {version}"
        raise RulesetError(Problem(str(exc), file=where, code="invalid-value")) from None
    profile = dataclasses.replace(check.profile, kubernetes_version=version)
    plugins = check_plugins(profile, registry)
    errors = [Problem(f"at Kubernetes {version}: {f.message}", file=file, code=f.code)
              for f in plugins.findings if f.severity == "error"]
    if errors:
        raise RulesetError(errors)
    return dataclasses.replace(check, profile=profile, plugins=plugins)


def load_side(spec: SideSpec, registry: PluginRegistry, root: Path | None = None) -> ProfileCheck:
    """The checked profile of ``spec`` (retargeted when it names a release)."""
    check = check_profile_argument(spec.profile or "default", registry, root)
    return retarget(check, spec.kubernetes_version, registry) if spec.kubernetes_version else check


def largest_pod(pods: Sequence[Pod]) -> Pod | None:
    """The pod requesting the most CPU, then the most memory (the first of equals)."""
    best = None
    for pod in pods:
        key = (pod.requests.get("cpu", 0), pod.requests.get("memory", 0))
        if best is None or key > best[0]:
            best = (key, pod)
    return None if best is None else best[1]


def run_side(label: str, check: ProfileCheck, registry: PluginRegistry, cluster_files: Sequence[str] | None,
             pod_files: Sequence[str] | None = None, *, seed: int = 0, scale: Sequence[ScaleRequest] = (),
             fragmentation_limit: int = DEFAULT_LIMIT) -> Side:
    """Schedule every pending pod of a fresh copy of the cluster with ``check``'s profile, then
    measure the balance and count the copies of the largest pending pod that still fit."""
    assert check.profile is not None
    state = load_state(cluster_files, pod_files, seed=seed, scale=scale, target=check.profile.target)
    framework = Framework(check.profile, registry, Handle(state.snapshot, Nominator()), checked=check.plugins)
    largest = largest_pod([p for p in state.pending if p not in state.pod_errors])
    run = schedule_all([framework], state, seed=seed)
    metrics = balance(state.snapshot, (p.node for p in run.placements))
    fragmentation = None
    if largest is not None:
        fragmentation = count_fitting(framework, largest, limit=fragmentation_limit, seed=seed)
    return Side(label, framework, run, metrics, fragmentation, largest)


def labels_of(specs: Sequence[SideSpec], checks: Sequence[ProfileCheck]) -> list[str]:
    """Each side's name: its profile's name, ``@VERSION`` when a release was given; ``#1``/``#2``
    when the two would read the same."""
    labels = []
    for spec, check in zip(specs, checks, strict=True):
        assert check.profile is not None
        label = check.profile.name
        labels.append(f"{label}@{spec.kubernetes_version}" if spec.kubernetes_version else label)
    if labels[0] == labels[1]:
        labels = [f"{labels[0]}#1", f"{labels[1]}#2"]
    return labels


def compare(specs: Sequence[SideSpec], cluster_files: Sequence[str] | None,
            pod_files: Sequence[str] | None = None, root: Path | None = None, *, seed: int = 0,
            scale: Sequence[ScaleRequest] = ()) -> tuple[Side, Side]:
    """Run both sides (both profiles are checked before any cluster is read)."""
    registry = load_registry()
    checks = [load_side(spec, registry, root) for spec in specs]
    labels = labels_of(specs, checks)
    a, b = (run_side(labels[i], checks[i], registry, cluster_files, pod_files, seed=seed, scale=scale)
            for i in range(2))
    return a, b


def gate_numbers(side: Side) -> dict[str, float]:
    """The numbers of one side the gate compares, by name: ``RESOURCE.stddev``,
    ``RESOURCE.range`` (utilisation, percent), ``nodesUsed``, ``fragmentation``, ``preemptions``,
    ``unschedulable``."""
    out = flat_metrics(side.metrics)
    out["fragmentation"] = side.fragmentation or 0
    out["preemptions"] = _count(side.run, "preemption")
    out["unschedulable"] = sum(1 for p in side.run.placements if p.node is None)
    return out


def metric_names(a: Side, b: Side) -> list[str]:
    """Every name ``--tolerance`` accepts for these two sides."""
    return [PLACEMENTS, *dict.fromkeys([*gate_numbers(a), *gate_numbers(b)])]


def compare_json(a: Side, b: Side, tolerances: dict[str, float] | None = None) -> dict[str, Any]:
    """The JSON contract of ``ruleset compare`` (without ``schemaVersion``): ``sides`` (per side:
    ``label``, ``profile``, ``kubernetesVersion``, counts, ``largestPendingPod``,
    ``fragmentation``, ``balance``, ``cpuPerNode``: :func:`cpu_per_node`), ``placementsDiffer``
    (pod, nodes by side), ``onlyScheduledBy`` (pod, the side that scheduled it, its node, the
    other side's reason), ``metrics`` (name, the two values, difference b−a, tolerance,
    ``exceeds``) and ``differs`` (what the gate says)."""
    tolerances = tolerances or {}
    first = {p.pod.key: p for p in a.run.placements}
    second = {p.pod.key: p for p in b.run.placements}
    moved, one_sided = [], []
    for key, pa in first.items():
        pb = second.get(key)
        if pb is None:
            continue
        if pa.node is not None and pb.node is not None and pa.node != pb.node:
            moved.append({"pod": key, "nodes": {a.label: pa.node, b.label: pb.node}})
        elif (pa.node is None) != (pb.node is None):
            placed, other, side = (pa, pb, a.label) if pa.node is not None else (pb, pa, b.label)
            one_sided.append({"pod": key, "scheduledBy": side, "node": placed.node,
                              "otherReason": other.reason})
    numbers_a, numbers_b = gate_numbers(a), gate_numbers(b)
    metrics = [_metric(PLACEMENTS, 0, len(moved) + len(one_sided), tolerances)]
    metrics[0]["difference"] = len(moved) + len(one_sided)
    for name in dict.fromkeys([*numbers_a, *numbers_b]):
        metrics.append(_metric(name, numbers_a.get(name, 0), numbers_b.get(name, 0), tolerances))
    return {
        "sides": [_side_json(side) for side in (a, b)],
        "placementsDiffer": moved,
        "onlyScheduledBy": one_sided,
        "metrics": metrics,
        "differs": any(m["exceeds"] for m in metrics),
    }


def _metric(name: str, va: float, vb: float, tolerances: dict[str, float]) -> dict[str, Any]:
    difference = round(vb - va, 2) if name != PLACEMENTS else vb
    tolerance = tolerances.get(name, 0)
    return {"metric": name, "values": [va, vb] if name != PLACEMENTS else None, "difference": difference,
            "tolerance": tolerance, "exceeds": abs(difference) > tolerance}


def _count(run: ScheduleRun, kind: str) -> int:
    return sum(1 for e in run.events if e.kind == kind)


def _side_json(side: Side) -> dict[str, Any]:
    profile = side.framework.profile
    placements = side.run.placements
    return {
        "label": side.label,
        "profile": profile.name,
        "kubernetesVersion": str(profile.target.version),
        "pods": len(placements),
        "scheduled": sum(1 for p in placements if p.node is not None),
        "unschedulable": sum(1 for p in placements if p.node is None),
        "preemptions": _count(side.run, "preemption"),
        "evictions": _count(side.run, "evicted"),
        "largestPendingPod": None if side.largest is None else side.largest.key,
        "fragmentation": side.fragmentation,
        "balance": side.metrics,
        "cpuPerNode": cpu_per_node(side.run.state.snapshot),
    }


def cpu_per_node(snapshot: Snapshot) -> dict[str, float | None]:
    """Each node's CPU requested / allocatable after the run, in percent rounded to 2 decimals
    (None for a node with no CPU allocatable), nodes in the snapshot's order."""
    requested, allocatable = snapshot.requested("cpu"), snapshot.allocatable("cpu")
    return {name: round(100.0 * float(requested[i]) / float(allocatable[i]), 2) if allocatable[i] > 0
            else None for i, name in enumerate(snapshot.node_names)}


def parse_tolerances(values: Sequence[str] | None) -> dict[str, float]:
    """``--tolerance METRIC=VALUE`` values (VALUE a non-negative number); malformed ones are input
    errors. Whether METRIC exists is checked against the sides (:func:`check_tolerances`)."""
    out, problems = {}, []
    for value in values or []:
        name, sep, number = value.rpartition("=")
        try:
            parsed = float(number)
        except ValueError:
            parsed = -1.0
        if not sep or not name or not parsed >= 0 or parsed == float("inf"):
            problems.append(Problem("expected METRIC=VALUE with VALUE a number ≥ 0 (e.g. cpu.stddev=2.5)",
                                    file=f"--tolerance {value}", code="invalid-value"))
            continue
        out[name] = parsed
    if problems:
        raise RulesetError(problems)
    return out


def check_tolerances(tolerances: dict[str, float], a: Side, b: Side) -> None:
    """A tolerance on a number the comparison has not is an input error."""
    known = metric_names(a, b)
    unknown = [name for name in tolerances if name not in known]
    if unknown:
        raise RulesetError([Problem(f"no such metric {name!r}; expected one of {', '.join(known)}",
                                    file=f"--tolerance {name}", code="invalid-value") for name in unknown])
