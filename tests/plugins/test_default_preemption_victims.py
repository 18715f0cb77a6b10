"""Victim selection per node: upstream v1.20 ``TestDryRunPreemption`` (v1.19's
``TestSelectNodesForPreemption``), case by case.

Every case registers ``FakeFilter`` first (it counts filter runs: ``expectedNumFilterCalled``)
and walks every node, as upstream's test calls ``dryRunPreemption`` on all of them. Upstream
sorts the victims and candidates by name before comparing; here the order is ours and is
asserted as is: candidates in the order the walk found them (non-violating first), victims
in reprieve order (PDB-violating first, each group most important first, equal pods in
node order).

Offsets: upstream seeds ``rand`` with 4 and draws offsets 4, 1, 3 for five nodes; our
plugin always starts at 0. The cases that depend on the offset are asserted twice: with
the upstream offset passed to ``dry_run`` (upstream's exact expectations), and at offset 0
(what ``ruleset`` does).
"""

from __future__ import annotations

import pytest

from ruleset.framework.plugin import Plugin
from ruleset.framework.status import Code, Status
from ruleset.hookspecs import hookimpl
from ruleset.scheduler import Scheduler
from tests.factories import build_cluster, decode, framework_for, registry_with
from tests.plugins.test_default_preemption import (
    FIT,
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    Preemption,
    needs,
    node,
    pdb,
    pod,
    summary,
)

TWO = ["node1", "node2"]
FIVE = ["node1", "node2", "node3", "node4", "node5"]
ANTI_AFFINITY_FOO = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {
                "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
                "topologyKey": "hostname",
            }
        ]
    }
}
SPREAD_FOO = [
    {
        "maxSkew": 1,
        "topologyKey": "zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
    },
    {
        "maxSkew": 1,
        "topologyKey": "hostname",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
    },
]
FOO = {"app": "foo"}


def case(
    name, plugins, nodes, preemptor, pods, expected, calls, *, pdbs=(), fake_code=0, args=None, marks=()
):
    return pytest.param(
        plugins, nodes, preemptor, pods, list(pdbs), fake_code, args, expected, calls, id=name, marks=marks
    )


DRY_RUN_CASES = [
    case(
        "a pod that does not fit on any node",
        ["FalseFilter"],
        TWO,
        pod("p", priority=HIGH),
        [pod("p1", "node1", MID), pod("p2", "node2", MID)],
        [],
        2,
    ),
    case(
        "a pod that fits with no preemption",
        ["TrueFilter"],
        TWO,
        pod("p", priority=HIGH),
        [pod("p1", "node1", MID), pod("p2", "node2", MID)],
        [("node1", [], 0), ("node2", [], 0)],
        4,
    ),
    case(
        "a pod that fits on one node with no preemption",
        ["MatchFilter"],
        TWO,
        pod("node1", priority=HIGH),  # named like node1 to fit MatchFilter
        [pod("p1", "node1", MID), pod("p2", "node2", MID)],
        [("node1", [], 0)],
        3,
    ),
    case(
        "a pod that fits on both nodes when lower priority pods are preempted",
        [FIT],
        TWO,
        pod("p", priority=HIGH, requests=LARGE),
        [pod("p1", "node1", MID, LARGE), pod("p2", "node2", MID, LARGE)],
        [("node1", ["p1"], 0), ("node2", ["p2"], 0)],
        4,
    ),
    case(
        "a pod that would fit on the nodes, but other pods running are higher priority, no preemption would "
        "happen",
        [FIT],
        TWO,
        pod("p", priority=LOW, requests=LARGE),
        [pod("p1", "node1", MID, LARGE), pod("p2", "node2", MID, LARGE)],
        [],
        0,
    ),  # v1.19 expected 2 filter calls: it had no "no lower-priority pods" shortcut
    case(
        "medium priority pod is preempted, but lower priority one stays as it is small",
        [FIT],
        TWO,
        pod("p", priority=HIGH, requests=LARGE),
        [pod("p1.1", "node1", LOW, SMALL), pod("p1.2", "node1", MID, LARGE), pod("p2", "node2", MID, LARGE)],
        [("node1", ["p1.2"], 0), ("node2", ["p2"], 0)],
        5,
    ),
    case(
        "mixed priority pods are preempted",
        [FIT],
        TWO,
        pod("p", priority=HIGH, requests=LARGE),
        [
            pod("p1.1", "node1", MID, SMALL),
            pod("p1.2", "node1", LOW, SMALL),
            pod("p1.3", "node1", MID, MEDIUM),
            pod("p1.4", "node1", HIGH, SMALL),
            pod("p2", "node2", HIGH, LARGE),
        ],
        [("node1", ["p1.3", "p1.2"], 0)],
        4,
    ),
    case(
        "mixed priority pods are preempted, pick later StartTime one when priorities are equal",
        [FIT],
        TWO,
        pod("p", priority=HIGH, requests=LARGE),
        [
            pod("p1.1", "node1", LOW, SMALL, start=5),
            pod("p1.2", "node1", LOW, SMALL, start=4),
            pod("p1.3", "node1", MID, MEDIUM, start=3),
            pod("p1.4", "node1", HIGH, SMALL, start=2),
            pod("p2", "node2", HIGH, LARGE, start=1),
        ],
        [("node1", ["p1.3", "p1.1"], 0)],
        4,
    ),
    case(
        "pod with anti-affinity is preempted",
        [FIT, "InterPodAffinity"],
        TWO,
        pod("p", labels={"foo": ""}, priority=HIGH, requests=SMALL),
        [
            pod("p1.1", "node1", LOW, SMALL, labels={"foo": ""}, affinity=ANTI_AFFINITY_FOO),
            pod("p1.2", "node1", MID, SMALL),
            pod("p1.3", "node1", HIGH, SMALL),
            pod("p2", "node2", HIGH, SMALL),
        ],
        [("node1", ["p1.1"], 0)],
        3,
        marks=needs("InterPodAffinity"),
    ),
    case(
        "preemption to resolve pod topology spread filter failure",
        ["PodTopologySpread"],
        ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        pod("p", labels={"foo": ""}, priority=HIGH, topology_spread_constraints=SPREAD_FOO),
        [
            pod("pod-a1", "node-a", MID, labels={"foo": ""}),
            pod("pod-a2", "node-a", LOW, labels={"foo": ""}),
            pod("pod-b1", "node-b", LOW, labels={"foo": ""}),
            pod("pod-x1", "node-x", HIGH, labels={"foo": ""}),
            pod("pod-x2", "node-x", HIGH, labels={"foo": ""}),
        ],
        [("node-a", ["pod-a2"], 0), ("node-b", ["pod-b1"], 0)],
        5,
        marks=needs("PodTopologySpread"),
    ),
    case(
        "get Unschedulable in the preemption phase when the filter plugins filtering the nodes",
        [FIT],
        TWO,
        pod("p", priority=HIGH, requests=LARGE),
        [pod("p1", "node1", MID, LARGE), pod("p2", "node2", MID, LARGE)],
        [],
        2,
        fake_code=Code.UNSCHEDULABLE,
    ),
    case(
        "preemption with violation of same pdb",
        [FIT],
        ["node1"],
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [pod("p1.1", "node1", MID, MEDIUM, labels=FOO), pod("p1.2", "node1", MID, MEDIUM, labels=FOO)],
        [("node1", ["p1.2", "p1.1"], 1)],
        3,
        pdbs=[pdb(FOO, allowed=1)],
    ),
    case(
        "preemption with violation of the pdb with pod whose eviction was processed, "
        "the victim doesn't belong to DisruptedPods",
        [FIT],
        ["node1"],
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [pod("p1.1", "node1", MID, MEDIUM, labels=FOO), pod("p1.2", "node1", MID, MEDIUM, labels=FOO)],
        [("node1", ["p1.2", "p1.1"], 1)],
        3,
        pdbs=[pdb(FOO, allowed=1, disrupted=["p2"])],
    ),
    case(
        "preemption with violation of the pdb with pod whose eviction was processed, the victim belongs to "
        "DisruptedPods",
        [FIT],
        ["node1"],
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [pod("p1.1", "node1", MID, MEDIUM, labels=FOO), pod("p1.2", "node1", MID, MEDIUM, labels=FOO)],
        [("node1", ["p1.1", "p1.2"], 0)],
        3,
        pdbs=[pdb(FOO, allowed=1, disrupted=["p1.2"])],
    ),
    case(
        "preemption with violation of the pdb with pod whose eviction was processed, "
        "the victim which belongs to DisruptedPods is treated as 'nonViolating'",
        [FIT],
        ["node1"],
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [
            pod("p1.1", "node1", MID, MEDIUM, labels=FOO),
            pod("p1.2", "node1", MID, MEDIUM, labels=FOO),
            pod("p1.3", "node1", MID, MEDIUM, labels=FOO),
        ],
        [("node1", ["p1.2", "p1.1", "p1.3"], 1)],
        4,
        pdbs=[pdb(FOO, allowed=1, disrupted=["p1.3"])],
    ),
    # The next cases depend on upstream's random offset; here at offset 0 (see the module
    # docstring, and test_dry_run_at_upstream_offsets for upstream's own expectations).
    case(
        "all nodes are possible candidates, but DefaultPreemptionArgs limits to 2",
        [FIT],
        FIVE,
        pod("p", priority=HIGH, requests=LARGE),
        [pod(f"p{i}", f"node{i}", MID, LARGE) for i in range(1, 6)],
        [("node1", ["p1"], 0), ("node2", ["p2"], 0)],
        4,
        args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
    ),
    case(
        "some nodes are not possible candidates, DefaultPreemptionArgs limits to 2",
        [FIT],
        FIVE,
        pod("p", priority=HIGH, requests=LARGE),
        [
            pod("p1", "node1", MID, LARGE),
            pod("p2", "node2", VERY_HIGH, LARGE),
            pod("p3", "node3", MID, LARGE),
            pod("p4", "node4", MID, LARGE),
            pod("p5", "node5", VERY_HIGH, LARGE),
        ],
        [("node1", ["p1"], 0), ("node3", ["p3"], 0)],
        4,
        args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
    ),
    case(
        "preemption looks past numCandidates until a non-PDB violating node is found",
        [FIT],
        FIVE,
        pod("p", priority=HIGH, requests=LARGE),
        [
            pod("p1", "node1", MID, LARGE, labels=FOO),
            pod("p2", "node2", MID, LARGE, labels=FOO),
            pod("p3", "node3", MID, LARGE),
            pod("p4", "node4", MID, LARGE),
            pod("p5", "node5", MID, LARGE, labels=FOO),
        ],
        [("node3", ["p3"], 0), ("node1", ["p1"], 1), ("node2", ["p2"], 1)],
        6,
        pdbs=[pdb(FOO, allowed=0)],
        args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2},
    ),
    # Beyond upstream's table: a violating list that fills up drops later violating
    # candidates (upstream's candidateList has numCandidates slots).
    case(
        "violating candidates past numCandidates are dropped",
        [FIT],
        FIVE,
        pod("p", priority=HIGH, requests=LARGE),
        [
            pod("p1", "node1", MID, LARGE, labels=FOO),
            pod("p2", "node2", MID, LARGE, labels=FOO),
            pod("p3", "node3", MID, LARGE, labels=FOO),
            pod("p4", "node4", MID, LARGE),
            pod("p5", "node5", MID, LARGE),
        ],
        [("node4", ["p4"], 0), ("node1", ["p1"], 1), ("node2", ["p2"], 1)],
        8,
        pdbs=[pdb(FOO, allowed=0)],
        args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2},
    ),
    case(
        "only violating candidates: the walk visits every node, the list keeps numCandidates",
        [FIT],
        FIVE,
        pod("p", priority=HIGH, requests=LARGE),
        [pod(f"p{i}", f"node{i}", MID, LARGE, labels=FOO) for i in range(1, 6)],
        [("node1", ["p1"], 1), ("node2", ["p2"], 1)],
        10,
        pdbs=[pdb(FOO, allowed=0)],
        args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2},
    ),
]


@pytest.mark.parametrize(
    ("plugins", "nodes", "preemptor", "pods", "pdbs", "fake_code", "args", "expected", "calls"), DRY_RUN_CASES
)
def test_dry_run_preemption(plugins, nodes, preemptor, pods, pdbs, fake_code, args, expected, calls):
    h = Preemption(
        [("FakeFilter", {"code": int(fake_code)}), *plugins], [*(node(n) for n in nodes), *pods, *pdbs], args
    )
    assert summary(h.dry_run(preemptor)) == expected
    assert h.filter_calls == calls


# Upstream's offsets (rand.Seed(4): 4, then 1, then 3), with upstream's expectations
# (candidates sorted by name there, found order here) and NumFilterCalled.
@pytest.mark.parametrize(
    ("offsets", "pods", "pdbs", "args", "expected", "calls"),
    [
        pytest.param(
            [4],
            [pod(f"p{i}", f"node{i}", MID, LARGE) for i in range(1, 6)],
            [],
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
            [[("node5", ["p5"], 0), ("node1", ["p1"], 0)]],
            [4],
            id="all nodes are possible candidates, but DefaultPreemptionArgs limits to 2",
        ),
        pytest.param(
            [4],
            [
                pod("p1", "node1", MID, LARGE),
                pod("p2", "node2", VERY_HIGH, LARGE),
                pod("p3", "node3", MID, LARGE),
                pod("p4", "node4", MID, LARGE),
                pod("p5", "node5", VERY_HIGH, LARGE),
            ],
            [],
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
            [[("node1", ["p1"], 0), ("node3", ["p3"], 0)]],
            [4],
            id="some nodes are not possible candidates, DefaultPreemptionArgs limits to 2",
        ),
        pytest.param(
            [4, 1, 3],
            [pod(f"p{i}", f"node{i}", MID, LARGE) for i in range(1, 6)],
            [],
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
            [
                [("node5", ["p5"], 0), ("node1", ["p1"], 0)],
                [("node2", ["p2"], 0), ("node3", ["p3"], 0)],
                [("node4", ["p4"], 0), ("node5", ["p5"], 0)],
            ],
            [4, 4, 4],
            id="preemption offset across multiple scheduling cycles and wrap around",
        ),
        pytest.param(
            [4],
            [
                pod("p1", "node1", MID, LARGE, labels=FOO),
                pod("p2", "node2", MID, LARGE, labels=FOO),
                pod("p3", "node3", MID, LARGE),
                pod("p4", "node4", MID, LARGE),
                pod("p5", "node5", MID, LARGE, labels=FOO),
            ],
            [pdb(FOO, allowed=0)],
            {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2},
            # node5 (pdb), node1 (pdb), node2 (pdb, dropped: the list is full), node3
            [[("node3", ["p3"], 0), ("node5", ["p5"], 1), ("node1", ["p1"], 1)]],
            [8],
            id="preemption looks past numCandidates until a non-PDB violating node is found",
        ),
    ],
)
def test_dry_run_at_upstream_offsets(offsets, pods, pdbs, args, expected, calls):
    h = Preemption([("FakeFilter", {"code": 0}), FIT], [*(node(n) for n in FIVE), *pods, *pdbs], args)
    previous = 0
    for cycle, offset in enumerate(offsets):
        preemptor = pod(f"tp{cycle + 1}", priority=HIGH, requests=LARGE)
        assert summary(h.dry_run(preemptor, offset=offset)) == expected[cycle]
        assert h.filter_calls - previous == calls[cycle]
        previous = h.filter_calls


def test_dry_run_offset_zero_is_the_same_every_cycle():
    """Ours for "preemption offset across multiple scheduling cycles": offset 0 each time."""
    h = Preemption(
        [("FakeFilter", {"code": 0}), FIT],
        [*(node(n) for n in FIVE), *(pod(f"p{i}", f"node{i}", MID, LARGE) for i in range(1, 6))],
        {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
    )
    for cycle in range(3):
        candidates = h.dry_run(pod(f"tp{cycle + 1}", priority=HIGH, requests=LARGE))
        assert summary(candidates) == [("node1", ["p1"], 0), ("node2", ["p2"], 0)]
    assert h.filter_calls == 12


def test_dry_run_leaves_the_snapshot_as_it_was():
    h = Preemption(
        [FIT],
        [
            node("node1"),
            pod("p1.1", "node1", LOW, SMALL),
            pod("p1.2", "node1", MID, LARGE),
            pod("p1.3", "node1", LOW, SMALL),
        ],
    )
    before = [p.name for p in h.snapshot.pods_on(0)], h.snapshot.requested("cpu").tolist()
    assert summary(h.dry_run(pod("p", priority=HIGH, requests=LARGE))) == [("node1", ["p1.2"], 0)]
    assert ([p.name for p in h.snapshot.pods_on(0)], h.snapshot.requested("cpu").tolist()) == before


class BrokenRemove(Plugin):
    """A PreFilter whose RemovePod extension fails on the first node."""

    name = "BrokenRemove"

    @hookimpl
    def ruleset_pre_filter(self, state, pod, snapshot):
        return None

    @hookimpl
    def ruleset_pre_filter_remove_pod(self, state, pod, pod_to_remove, node, snapshot):
        return Status.error("cannot remove") if node == 0 else None


def test_dry_run_skips_a_node_where_pre_filter_remove_pod_fails():
    """A RemovePod extension error makes the node no candidate (upstream returns fits=false)."""
    state = build_cluster(
        [node("node1"), node("node2"), pod("p1", "node1", MID, LARGE), pod("p2", "node2", MID, LARGE)]
    )
    framework = framework_for([FIT, "BrokenRemove", "DefaultPreemption"], registry_with(BrokenRemove),
                              snapshot=state.snapshot)
    result = Scheduler(framework).schedule(
        decode(pod("p", priority=HIGH, requests=VERY_LARGE))
    )
    assert summary(result.post_filter.details.candidates) == [("node2", ["p2"], 0)]
