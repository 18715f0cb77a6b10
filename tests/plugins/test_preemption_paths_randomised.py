"""The bulk what-if paths against the reference path, on randomised clusters.

:mod:`ruleset.plugins.default_preemption_bulk` (preemption's dry run on columns) and the
nominated-pods check on columns (``Scheduler._with_nominated_in_bulk``) must give exactly
what upstream's node-by-node code gives (:func:`ruleset.framework.dependence.reference_path`).
Each case is a seeded random cluster: nodes of random sizes (some with an extended resource
and few pod slots), running pods of random priorities, requests and start times, PDBs on
some, and pending pods of several priorities that preempt, get nominated and make later
pods leave room. Both runs must agree on every placement, every preemption (node, victims,
every candidate with its victims and PDB violations, why), every unschedulable pod's message,
at v1.20 (dry-run every node that is not UnschedulableAndUnresolvable), 1.27 (the PostFilter
message), 1.31 (Unschedulable nodes only) and 1.34 (UnschedulableAndUnresolvable when a
request exceeds allocatable), with few and with many candidate nodes wanted.

The upstream tables themselves (tests/plugins/test_default_preemption*.py) run on both paths
too (tests/conftest.py).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from ruleset.app import build_framework
from ruleset.cluster import build_cluster_state
from ruleset.framework.dependence import reference_path
from ruleset.manifests import decode_documents
from ruleset.plugins import default_preemption_bulk
from ruleset.scheduler import schedule_all

Manifest = dict[str, Any]
GPU = "example.com/gpu"


def _node(i: int, rng: random.Random) -> Manifest:
    capacity = {"cpu": str(rng.choice([1, 2, 4, 8])), "memory": f"{rng.choice([2, 4, 8, 16])}Gi",
                "pods": str(rng.choice([3, 5, 110]))}
    if rng.random() < 0.3:
        capacity[GPU] = str(rng.choice([1, 2, 4]))
    name = f"n{i:02d}"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "zone": f"z{i % 3}"}},
            "status": {"capacity": capacity, "allocatable": capacity,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _pod(name: str, rng: random.Random, priority: int, node: str | None, app: str) -> Manifest:
    requests = {"cpu": f"{rng.choice([100, 250, 500, 900, 1500, 3000, 9000])}m",
                "memory": f"{rng.choice([128, 512, 1024, 3072])}Mi"}
    if rng.random() < 0.2:
        requests[GPU] = str(rng.choice([1, 2]))
    spec: Manifest = {"priority": priority,
                      "containers": [{"name": "c", "image": "pause", "resources": {"requests": requests}}]}
    status: Manifest = {"phase": "Pending"}
    if node is not None:
        spec["nodeName"] = node
        status = {"phase": "Running"}
        if rng.random() < 0.7:
            status["startTime"] = f"2026-01-01T00:{rng.randrange(60):02d}:00Z"
    return {"apiVersion": "v1", "kind": "Pod", "spec": spec, "status": status,
            "metadata": {"name": name, "namespace": "default", "labels": {"app": app}}}


def cluster(seed: int) -> list[Manifest]:
    """A random cluster: nodes, running pods, PDBs (in some), pending pods."""
    rng = random.Random(seed)
    nodes = [_node(i, rng) for i in range(rng.randrange(3, 24))]
    out: list[Manifest] = list(nodes)
    apps = ["a", "b", "c"]
    for k in range(rng.randrange(len(nodes), 5 * len(nodes))):
        node = rng.choice(nodes)["metadata"]["name"]
        out.append(_pod(f"run-{k}", rng, rng.choice([-5, 0, 0, 10, 100]), node, rng.choice(apps)))
    if rng.random() < 0.4:
        for app in rng.sample(apps, rng.randrange(1, 3)):
            out.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                        "metadata": {"name": f"pdb-{app}", "namespace": "default"},
                        "spec": {"selector": {"matchLabels": {"app": app}}, "minAvailable": 1},
                        "status": {"disruptionsAllowed": rng.randrange(0, 3)}})
    for k in range(rng.randrange(3, 14)):
        out.append(_pod(f"new-{k}", rng, rng.choice([5, 50, 200, 1000]), None, rng.choice(apps)))
    return out


PROFILE = """name = "p"
extends = "{base}"
kubernetesVersion = "{version}"
[plugins.DefaultPreemption]
args = {{ minCandidateNodesPercentage = {percentage}, minCandidateNodesAbsolute = {absolute} }}
"""


def run(manifests: list[Manifest], profile: str) -> tuple[Any, ...]:
    problems: list[Any] = []
    decoded = decode_documents([(0, {"kind": "List", "items": manifests})], "<random>", problems)
    assert not problems
    framework = build_framework(profile)
    state = build_cluster_state(decoded, framework.profile.target)
    framework = build_framework(profile, state)
    result = schedule_all(framework, state)
    events = [(e.kind, e.pod, e.node, sorted(e.detail.items())) for e in result.events]
    return [(p.pod.key, p.node) for p in result.placements], events


@pytest.mark.parametrize("version", ["1.20", "1.27", "1.31", "1.34"])
@pytest.mark.parametrize(("percentage", "absolute"), [(10, 100), (0, 2), (30, 1)],
                         ids=["every node", "two candidates", "30 percent"])
@pytest.mark.parametrize("seed", range(12))
def test_bulk_and_reference_paths_agree(tmp_path: Path, seed: int, version: str, percentage: int,
                                        absolute: int) -> None:
    assert_paths_agree(tmp_path, cluster(seed), version, percentage, absolute)


def assert_paths_agree(tmp_path: Path, manifests: list[Manifest], version: str, percentage: int,
                       absolute: int) -> None:
    """The same run of ``manifests`` on the bulk paths and on the reference path."""
    base = "default-1.20" if version == "1.20" else "default"
    path = tmp_path / "profile.toml"
    path.write_text(PROFILE.format(base=base, version=version, percentage=percentage, absolute=absolute))
    with reference_path(False):
        bulk = run(manifests, str(path))
    with reference_path():
        reference = run(manifests, str(path))
    assert bulk == reference


def test_the_random_clusters_preempt_and_nominate(tmp_path: Path) -> None:
    """The cases above are not vacuous: they preempt, with PDB violations and several victims,
    and the bulk path is the one that ran."""
    path = tmp_path / "profile.toml"
    path.write_text(PROFILE.format(base="default", version="1.34", percentage=0, absolute=2))
    calls = []
    original = default_preemption_bulk.walk

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    preemptions = victims = violating = 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(default_preemption_bulk, "walk", counting)
        for seed in range(12):
            _, events = run(cluster(seed), str(path))
            for kind, _pod, _node, detail in events:
                if kind == "preemption":
                    preemptions += 1
                    victims += len(dict(detail)["victims"])
                    violating += sum(1 for c in dict(detail)["candidates"] if c["pdbViolations"])
    assert (preemptions, victims, violating, len(calls)) == (16, 27, 2, 19)


def constrained(seed: int) -> list[Manifest]:
    """:func:`cluster`, with some nodes tainted or cordoned and some pending pods asking for a
    zone: nodes rejected by steps that ignore other pods, nominated pods on some of them (the
    nominated-pods check reruns only the steps reading other pods on the others)."""
    rng = random.Random(1000 + seed)
    out = cluster(seed)
    for manifest in out:
        if manifest["kind"] == "Node":
            roll = rng.random()
            if roll < 0.2:
                manifest["spec"] = {"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}
            elif roll < 0.3:
                manifest["spec"] = {"unschedulable": True}
        elif manifest["kind"] == "Pod" and "nodeName" not in manifest["spec"] and rng.random() < 0.4:
            manifest["spec"]["nodeSelector"] = {"zone": f"z{rng.randrange(3)}"}
    return out


@pytest.mark.parametrize("version", ["1.20", "1.34"])
@pytest.mark.parametrize("seed", range(24))
def test_bulk_and_reference_paths_agree_on_constrained_clusters(tmp_path: Path, seed: int, version: str) -> None:
    assert_paths_agree(tmp_path, constrained(seed), version, 10, 100)


def test_the_constrained_clusters_nominate_onto_rejected_nodes(tmp_path: Path) -> None:
    """Not vacuous: pods are nominated, and later cycles meet nodes holding nominated pods that
    the batch rejected at a step ignoring other pods (taints, cordons, node selectors)."""
    from ruleset.scheduler import cycle

    path = tmp_path / "profile.toml"
    path.write_text(PROFILE.format(base="default", version="1.34", percentage=10, absolute=100))
    seen = {"runs": 0, "kept": 0}
    original = cycle.Scheduler._nominated_pass

    def counting(self: Any, state: Any, pod: Any, steps: Any, holding: Any, room: Any, statuses: Any) -> Any:
        ran, ok, failed = original(self, state, pod, steps, holding, room, statuses)
        seen["runs"] += 1
        seen["kept"] += len(holding) - len(ran)
        return ran, ok, failed

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cycle.Scheduler, "_nominated_pass", counting)
        for seed in range(24):
            run(constrained(seed), str(path))
    assert seen == {"runs": 33, "kept": 11}


def test_the_reprieve_asked_step_by_step_agrees_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With NodeResourcesFit declining ``room_with_columns``, the bulk reprieve asks it pod by pod
    (``_reprieve_by_steps``): the same runs as the reference path."""
    from ruleset.plugins.noderesources.fit import NodeResourcesFit

    monkeypatch.setattr(NodeResourcesFit, "room_with_columns", lambda self, *args: None)
    steps = []
    original = default_preemption_bulk._reprieve_by_steps
    monkeypatch.setattr(default_preemption_bulk, "_reprieve_by_steps",
                        lambda *args: steps.append(1) or original(*args))
    for seed in range(6):
        assert_paths_agree(tmp_path, cluster(seed), "1.34", 0, 2)
    assert len(steps) == 8  # reprieves run step by step (their results checked above)
