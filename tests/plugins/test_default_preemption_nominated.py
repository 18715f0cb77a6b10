"""Nominated pods: ``PodPassesFiltersOnNode``'s two passes, in Filter and in preemption's dry runs.

Upstream (v1.20 ``core/generic_scheduler.go``): on a node with nominated pods of at least the
pod's priority (other than the pod itself), the filters run once with those pods added (and
PreFilter AddPod extensions applied to a copy of the state) and, if that passed, once
without them; the node fits only if both pass, and a node failing the first pass reports
that pass's status.
"""

from __future__ import annotations

from ruleset.framework.status import Code
from tests.plugins.test_default_preemption import (
    FIT,
    HIGH,
    LOW,
    MID,
    VERY_HIGH,
    Preemption,
    needs,
    node,
    pod,
    summary,
)

CPU_1 = {"cpu": "1", "memory": "1536Mi"}


def nominate(h: Preemption, raw: dict, node_name: str):
    p = h.pod(raw)
    h.framework.handle.nominator.add(p, node_name)
    return p


def test_nominated_pod_of_higher_or_equal_priority_takes_its_room():
    h = Preemption([FIT], [node("node1", CPU_1), node("node2", CPU_1)])
    nominate(h, pod("nominee", priority=HIGH, requests={"cpu": "600m"}), "node1")
    for priority in (MID, HIGH):
        result = h.run(pod(f"p{priority}", priority=priority, requests={"cpu": "600m"}))
        assert (result.node, list(map(int, result.feasible))) == ("node2", [1])
        assert result.statuses.status(0).reasons == ("Insufficient cpu",)


def test_nominated_pod_of_lower_priority_is_ignored():
    h = Preemption([FIT], [node("node1", CPU_1)])
    nominate(h, pod("nominee", priority=LOW, requests={"cpu": "600m"}), "node1")
    assert h.run(pod("p", priority=MID, requests={"cpu": "600m"})).node == "node1"


def test_the_pod_itself_is_not_counted_on_its_nominated_node():
    h = Preemption([FIT], [node("node1", CPU_1)])
    me = nominate(h, pod("me", priority=HIGH, requests={"cpu": "600m"}), "node1")
    assert h.run(me).node == "node1"


def test_a_node_failing_with_the_nominated_pods_reports_that_pass():
    """Without the nominated pod only cpu is short; with it memory is short too, and that
    first pass's status is the node's (upstream returns it before the second pass)."""
    h = Preemption([FIT], [node("node1", CPU_1), pod("running", "node1", LOW, {"cpu": "500m"})])
    nominate(h, pod("nominee", priority=HIGH, requests={"memory": "1Gi"}), "node1")
    result = h.run(pod("p", priority=MID, requests={"cpu": "600m", "memory": "1Gi"}))
    assert result.statuses.status(0).reasons == ("Insufficient cpu", "Insufficient memory")
    assert result.message == "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."


def test_a_node_failing_only_without_the_nominated_pods_keeps_that_status():
    h = Preemption([FIT], [node("node1", CPU_1), pod("running", "node1", LOW, {"cpu": "500m"})])
    nominate(h, pod("nominee", priority=HIGH, requests={"memory": "1"}), "node1")
    result = h.run(pod("p", priority=MID, requests={"cpu": "600m"}))
    assert result.message == "0/1 nodes are available: 1 Insufficient cpu."


@needs("InterPodAffinity")
def test_affinity_to_a_nominated_pod_alone_does_not_make_a_node_fit():
    """Pass one (with the nominated pod) satisfies the affinity, pass two does not."""
    affinity = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "hostname"}
            ]
        }
    }
    h = Preemption(
        [FIT, "InterPodAffinity"],
        [node("node1"), node("node2"), pod("db-0", "node2", LOW, labels={"app": "db"})],
    )
    nominate(h, pod("db-1", priority=HIGH, labels={"app": "db"}), "node1")
    result = h.run(pod("p", priority=MID, affinity=affinity))
    assert result.node == "node2"
    assert result.statuses.status(0).code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_dry_run_leaves_room_for_pods_nominated_to_the_node():
    """A second preemptor of equal priority must leave room for the first one's nomination."""
    h = Preemption(
        [FIT],
        [
            node("node1", CPU_1),
            node("node2", CPU_1),
            pod("a1", "node1", LOW, {"cpu": "400m"}),
            pod("a2", "node1", LOW, {"cpu": "400m"}),
            pod("b1", "node2", MID, {"cpu": "400m"}),
            pod("b2", "node2", MID, {"cpu": "400m"}),
        ],
    )
    assert summary(h.dry_run(pod("first", priority=HIGH, requests={"cpu": "600m"}))) == [
        ("node1", ["a2"], 0),
        ("node2", ["b2"], 0),
    ]
    nominate(h, pod("first", priority=HIGH, requests={"cpu": "600m"}), "node1")
    # node1 holds 600m for "first": 600m more does not fit even with both a1 and a2 gone.
    assert summary(h.dry_run(pod("second", priority=HIGH, requests={"cpu": "600m"}))) == [
        ("node2", ["b2"], 0)
    ]
    # A pod of higher priority than the nominee ignores the nomination.
    assert summary(h.dry_run(pod("third", priority=VERY_HIGH, requests={"cpu": "600m"}))) == [
        ("node1", ["a2"], 0),
        ("node2", ["b2"], 0),
    ]
