"""Preemption through ``schedule_all``: a demo-like cluster hit by a burst of urgent pods.

Six full nodes in three zones (node-tree order a1, b1, c1, a2, b2, c2) run two ReplicaSets:
``web`` (PriorityClass ``standard``, 100; covered by a PDB with ``disruptionsAllowed: 0``) and
``batch`` (``batch-low``, -10). Six ``urgent`` pods (1000, 2 cpu each) arrive. Each one
fails, preempts, and goes back to the queue behind the urgent pods already waiting (its
queue timestamp is refreshed, as upstream's ``AddUnschedulableIfNotPresent`` does); the
retries then bind them where they were nominated. A web pod is evicted only by the sixth
pod, when every node without a PDB violation is used up.
"""

from __future__ import annotations

import pytest

from ruleset.app import build_framework
from ruleset.scheduler import schedule_all
from tests.factories import build_cluster, make_node, make_object, make_pod

PROFILE = """\
name = "preempting"
[plugins.PrioritySort]
[plugins.NodeUnschedulable]
[plugins.NodeName]
[plugins.TaintToleration]
[plugins.NodeAffinity]
[plugins.NodePorts]
[plugins.NodeResourcesFit]
[plugins.PodTopologySpread]
weight = 2
[plugins.InterPodAffinity]
[plugins.DefaultPreemption]
[plugins.NodeResourcesBalancedAllocation]
[plugins.NodeResourcesLeastAllocated]
[plugins.DefaultBinder]
"""
ZONES = {"a1": "zone-a", "b1": "zone-b", "c1": "zone-c", "a2": "zone-a", "b2": "zone-b", "c2": "zone-c"}
LAYOUT = {
    "a1": ["web", "web", "batch", "batch"],
    "b1": ["web", "batch", "batch", "batch"],
    "c1": ["web", "web", "web", "batch"],
    "a2": ["batch", "batch", "batch", "batch"],
    "b2": ["web", "web", "batch", "batch"],
    "c2": ["web", "web", "web", "web"],
}


@pytest.fixture
def framework(tmp_path):
    path = tmp_path / "preempting.toml"
    path.write_text(PROFILE)
    return lambda state: build_framework(str(path), state)


def priority_class(name: str, value: int, **extra) -> dict:
    return make_object("PriorityClass", name, api_version="scheduling.k8s.io/v1", value=value, **extra)


def owner(name: str) -> list[dict]:
    return [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name, "uid": f"rs-{name}", "controller": True}
    ]


def demo(urgent: int = 6, web_status: dict | None = None, extra: tuple = ()) -> list[dict]:
    objects = [
        priority_class("batch-low", -10),
        priority_class("standard", 100, globalDefault=True),
        priority_class("urgent", 1000),
        make_object(
            "ReplicaSet",
            "web",
            api_version="apps/v1",
            spec={"replicas": 12, "selector": {"matchLabels": {"app": "web"}}},
        ),
        make_object(
            "ReplicaSet",
            "batch",
            api_version="apps/v1",
            spec={"replicas": 12, "selector": {"matchLabels": {"app": "batch"}}},
        ),
        make_object(
            "PodDisruptionBudget",
            "web",
            api_version="policy/v1beta1",
            spec={"minAvailable": 12, "selector": {"matchLabels": {"app": "web"}}},
            status=web_status if web_status is not None else {"disruptionsAllowed": 0},
        ),
    ]
    for name, zone in ZONES.items():
        objects.append(
            make_node(
                name,
                {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone},
                cpu="4",
                memory="8Gi",
            )
        )
    count = {"web": 0, "batch": 0}
    minute = 0
    for name, workloads in LAYOUT.items():
        for app in workloads:
            minute += 1
            objects.append(
                make_pod(
                    f"{app}-{count[app]}",
                    labels={"app": app},
                    node_name=name,
                    owner_references=owner(app),
                    requests={"cpu": "1", "memory": "1Gi"},
                    priority_class_name="batch-low" if app == "batch" else None,
                    start_time=f"2026-11-01T08:{minute:02d}:00Z",
                )
            )
            count[app] += 1
    for k in range(urgent):
        objects.append(
            make_pod(
                f"urgent-{k}",
                labels={"app": "urgent"},
                requests={"cpu": "2", "memory": "1Gi"},
                priority_class_name="urgent",
                creation_timestamp=f"2026-11-01T09:00:0{k}Z",
            )
        )
    return [*objects, *extra]


def preemptions(run) -> list[tuple[str, str, list[str], str]]:
    return [
        (e.pod, e.node, e.detail["victims"], e.detail["reason"]) for e in run.events if e.kind == "preemption"
    ]


def test_burst_of_urgent_pods(framework):
    state = build_cluster(demo())
    run = schedule_all(framework(state), state)
    assert [(p.pod.name, p.node, p.attempts) for p in run.placements] == [
        ("urgent-0", "b2", 2),
        ("urgent-1", "a2", 2),
        ("urgent-2", "a2", 2),
        ("urgent-3", "b1", 2),
        ("urgent-4", "a1", 2),
        ("urgent-5", "c1", 2),
    ]
    latest = "latest start time of its most important victims"
    assert preemptions(run) == [
        # Four nodes can give two batch pods each; b2's were started last.
        ("default/urgent-0", "b2", ["default/batch-10", "default/batch-11"], latest),
        # b2's free cpu is held for urgent-0 (nominated, same priority): a2 is next.
        ("default/urgent-1", "a2", ["default/batch-8", "default/batch-9"], latest),
        ("default/urgent-2", "a2", ["default/batch-6", "default/batch-7"], latest),
        ("default/urgent-3", "b1", ["default/batch-3", "default/batch-4"], latest),
        ("default/urgent-4", "a1", ["default/batch-0", "default/batch-1"], "fewest PDB violations"),
        # No node is left without a PDB violation: b1 and c1 cost one; c1's web victim started later.
        ("default/urgent-5", "c1", ["default/web-5", "default/batch-5"], latest),
    ]
    kinds = [(e.kind, e.pod) for e in run.events if e.kind in ("preemption", "scheduled")]
    assert kinds == [
        *(("preemption", f"default/urgent-{k}") for k in range(6)),
        *(("scheduled", f"default/urgent-{k}") for k in range(6)),
    ]
    evicted = [(e.pod, e.node, e.detail["by"]) for e in run.events if e.kind == "evicted"]
    assert evicted[-2:] == [
        ("default/web-5", "c1", "default/urgent-5"),
        ("default/batch-5", "c1", "default/urgent-5"),
    ]
    assert all(
        e.pod.startswith("default/batch-")
        for e in run.events[:-1]
        if e.kind == "evicted" and e.detail["by"] != "default/urgent-5"
    )
    # a1, b1, c1, b2: two pods out, one in; a2: four out, two in.
    assert state.snapshot.pod_count.tolist() == [3, 3, 3, 2, 3, 4]


def test_candidates_of_the_first_and_last_preemptions(framework):
    state = build_cluster(demo())
    run = schedule_all(framework(state), state)
    events = [e for e in run.events if e.kind == "preemption"]
    assert events[0].detail["candidates"] == [
        {"node": "a1", "victims": ["default/batch-0", "default/batch-1"], "pdbViolations": 0},
        {"node": "b1", "victims": ["default/batch-3", "default/batch-4"], "pdbViolations": 0},
        {"node": "a2", "victims": ["default/batch-8", "default/batch-9"], "pdbViolations": 0},
        {"node": "b2", "victims": ["default/batch-10", "default/batch-11"], "pdbViolations": 0},
        {"node": "c1", "victims": ["default/web-5", "default/batch-5"], "pdbViolations": 1},
        {"node": "c2", "victims": ["default/web-10", "default/web-11"], "pdbViolations": 2},
    ]
    # Before the sixth attempt every urgent pod is nominated: a2 holds 4 cpu for two of
    # them (no lower-priority pod left there: no candidate); b2 and a1 hold 2 cpu each.
    assert events[5].detail["candidates"] == [
        {"node": "a1", "victims": ["default/web-0", "default/web-1"], "pdbViolations": 2},
        {"node": "b1", "victims": ["default/web-2", "default/batch-2"], "pdbViolations": 1},
        {"node": "c1", "victims": ["default/web-5", "default/batch-5"], "pdbViolations": 1},
        {"node": "b2", "victims": ["default/web-6", "default/web-7"], "pdbViolations": 2},
        {"node": "c2", "victims": ["default/web-10", "default/web-11"], "pdbViolations": 2},
    ]


def test_no_pdb_protected_pod_goes_while_a_cheaper_candidate_exists(framework):
    state = build_cluster(demo())
    run = schedule_all(framework(state), state)
    for event in (e for e in run.events if e.kind == "preemption"):
        chosen = next(c for c in event.detail["candidates"] if c["node"] == event.node)
        cheapest = min(c["pdbViolations"] for c in event.detail["candidates"])
        assert chosen["pdbViolations"] == cheapest
        if any(v.startswith("default/web-") for v in event.detail["victims"]):
            assert cheapest > 0


def test_status_budget_counts_evictions_of_the_run(framework):
    """Full nodes of web pods only; the PDB allows one disruption."""
    objects = [o for o in demo(urgent=0, web_status={"disruptionsAllowed": 1}) if o["kind"] != "Pod"]
    for name in ZONES:
        for i in range(4):
            objects.append(
                make_pod(
                    f"web-{name}-{i}",
                    labels={"app": "web"},
                    node_name=name,
                    owner_references=owner("web"),
                    requests={"cpu": "1"},
                    start_time=f"2026-11-01T08:0{i}:00Z",
                )
            )
    objects += [
        make_pod(
            f"urgent-{k}",
            requests={"cpu": "1"},
            priority_class_name="urgent",
            creation_timestamp=f"2026-11-01T09:00:0{k}Z",
        )
        for k in range(2)
    ]
    state = build_cluster(objects)
    run = schedule_all(framework(state), state)
    [first, second] = [e for e in run.events if e.kind == "preemption"]
    assert {c["pdbViolations"] for c in first.detail["candidates"]} == {0}
    assert {c["pdbViolations"] for c in second.detail["candidates"]} == {1}
    # One disruption left: on every node the first web pod (in importance order) spends it and
    # is non-violating; the violating ones are reprieved first, so that one is the victim.
    assert (first.node, first.detail["victims"]) == ("a1", ["default/web-a1-0"])
    # The budget is spent: every web pod violates, the least important goes. Every node
    # ties (a1 still has room for urgent-0's nomination only), so the first one wins.
    assert (second.node, second.detail["victims"]) == ("a1", ["default/web-a1-3"])
    assert [(p.pod.name, p.node) for p in run.placements] == [("urgent-0", "a1"), ("urgent-1", "a1")]


def test_pods_that_cannot_preempt_and_bad_priority_classes(framework):
    """A PreemptNever pod waits, an unknown PriorityClass is that pod's error; the run goes on."""
    extra = (
        make_pod(
            "polite",
            requests={"cpu": "2"},
            priority_class_name="urgent",
            preemption_policy="Never",
            creation_timestamp="2026-11-01T08:59:00Z",
        ),
        make_pod("typo", requests={"cpu": "1"}, priority_class_name="urgnet"),
    )
    state = build_cluster(demo(urgent=1, extra=extra))
    run = schedule_all(framework(state), state)
    placements = {p.pod.name: (p.node, p.reason, p.attempts) for p in run.placements}
    assert placements["typo"] == (None, "no PriorityClass with name urgnet was found", 0)
    assert placements["urgent-0"][0] == "b2"
    # "polite" (created first, same priority) never preempts: it finds the cpu urgent-0 freed
    # held by urgent-0's nomination, and is parked again when that is gone too.
    assert placements["polite"][0] is None
    assert placements["polite"][1] == "0/6 nodes are available: 6 Insufficient cpu."
    assert [e.to_json() for e in run.events if e.pod == "default/typo"] == [
        {
            "type": "error",
            "pod": "default/typo",
            "node": None,
            "reason": "no PriorityClass with name urgnet was found",
        }
    ]
    assert run.placements[0].pod.name == "typo"


# -------------------------------------------------------------- nominations over a run
def small(objects_extra, framework):
    objects = [
        priority_class("low", 0),
        priority_class("mid", 50),
        priority_class("high", 100),
        priority_class("top", 200),
        *objects_extra,
    ]
    state = build_cluster(objects)
    fw = framework(state)
    return schedule_all(fw, state), fw, state


def test_a_failed_retry_keeps_the_nomination(framework):
    """Upstream keeps ``nominatedNodeName`` when a retry fails and preemption finds nothing: the
    nominated pod keeps holding the room against lower priorities."""
    run, fw, _ = small(
        [
            make_node("n1", cpu="4", memory="8Gi"),
            make_pod("l1", node_name="n1", requests={"cpu": "2"}, priority_class_name="low"),
            make_pod("l2", node_name="n1", requests={"cpu": "2"}, priority_class_name="low"),
            make_pod("h", requests={"cpu": "2"}, priority_class_name="top", preemption_policy="Never"),
            make_pod("p", requests={"cpu": "4"}, priority_class_name="high"),
            make_pod("q", requests={"cpu": "2"}, priority_class_name="mid"),
        ],
        framework,
    )
    placements = {p.pod.name: p.node for p in run.placements}
    assert placements == {"h": "n1", "p": None, "q": None}
    assert preemptions(run) == [("default/p", "n1", ["default/l1", "default/l2"], "the only candidate")]
    [p] = [pl.pod for pl in run.placements if pl.pod.name == "p"]
    assert p.nominated_node_name == "n1"
    assert fw.handle.nominated == {"n1": [p]}


def test_preemption_clears_lower_priority_nominations_on_the_node(framework):
    run, fw, _ = small(
        [
            make_node("n1", cpu="2", memory="8Gi"),
            make_pod("l1", node_name="n1", requests={"cpu": "2"}, priority_class_name="low"),
            make_pod("waiting", requests={"cpu": "2"}, priority_class_name="mid", nominated_node_name="n1"),
            make_pod("boss", requests={"cpu": "2"}, priority_class_name="high"),
        ],
        framework,
    )
    assert [(p.pod.name, p.node) for p in run.placements] == [("boss", "n1"), ("waiting", None)]
    assert preemptions(run) == [("default/boss", "n1", ["default/l1"], "the only candidate")]
    [waiting] = [p.pod for p in run.placements if p.pod.name == "waiting"]
    assert waiting.nominated_node_name == ""
    assert fw.handle.nominated == {"n1": []}


def test_nomination_is_cleared_when_preemption_cannot_help(framework):
    run, fw, _ = small(
        [
            make_node(
                "n1", cpu="2", memory="8Gi", taints=[{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
            ),
            make_pod("l1", node_name="n1", requests={"cpu": "2"}, priority_class_name="low"),
            make_pod("stale", requests={"cpu": "1"}, priority_class_name="high", nominated_node_name="n1"),
        ],
        framework,
    )
    [placement] = run.placements
    assert placement.node is None
    assert (
        placement.reason
        == "0/1 nodes are available: 1 node(s) had taint {gpu: yes}, that the pod didn't tolerate."
    )
    assert placement.pod.nominated_node_name == ""
    assert fw.handle.nominated == {"n1": []}


def test_requeued_pods_go_behind_pods_of_their_priority(framework):
    """Each preemptor retries only after the other urgent pods had their first attempt."""
    state = build_cluster(demo(urgent=3))
    run = schedule_all(framework(state), state)
    attempts = [
        (e.pod.split("/")[1], e.detail["attempt"])
        for e in run.events
        if e.kind in ("unschedulable", "scheduled")
    ]
    assert attempts == [
        ("urgent-0", 1),
        ("urgent-1", 1),
        ("urgent-2", 1),
        ("urgent-0", 2),
        ("urgent-1", 2),
        ("urgent-2", 2),
    ]
