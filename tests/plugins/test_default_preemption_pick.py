"""Node picking: upstream v1.20 ``TestSelectBestCandidate`` (v1.19's
``TestPickOneNodeForPreemption``), then ``pickOneNodeForPreemption`` criterion by criterion.

Upstream accepts any of several nodes where its map order decides; our rule (the first
tied candidate in walk order) gives one, asserted exactly. Candidates come from a real dry
run over all nodes with NodeResourcesFit, as upstream's test does.
"""

from __future__ import annotations

import pytest

from ruleset.plugins.default_preemption import MAX_INT32, Candidate, pick_one_node_for_preemption
from tests.factories import decode
from tests.plugins.test_default_preemption import (
    FIT,
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    NEG,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    Preemption,
    node,
    pod,
    summary,
)


def nodes(n: int) -> list[dict]:
    return [node(f"node{i}") for i in range(1, n + 1)]


SELECT_CASES = [
    pytest.param(
        nodes(1),
        pod("p", priority=HIGH, requests=LARGE),
        [pod("p1", "node1", MID, SMALL, start=0)],
        ["node1"],
        "node1",
        "the only candidate",
        id="No node needs preemption",
    ),
    pytest.param(
        nodes(2),
        pod("p", priority=HIGH, requests=LARGE),
        [pod("p1", "node1", MID, LARGE, start=0), pod("p2", "node2", MID, LARGE, start=0)],
        ["node1", "node2"],
        "node1",
        "latest start time of its most important victims",
        id="a pod that fits on both nodes when lower priority pods are preempted",
    ),
    pytest.param(
        nodes(3),
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [
            pod("p1.1", "node1", MID, MEDIUM, start=0),
            pod("p1.2", "node1", MID, LARGE, start=0),
            pod("p2.1", "node2", MID, MEDIUM, start=0),
            pod("p2.2", "node2", LOW, MEDIUM, start=0),
            pod("p3.1", "node3", LOW, MEDIUM, start=0),
            pod("p3.2", "node3", LOW, MEDIUM, start=0),
        ],
        ["node3"],
        "node3",
        "lowest highest-victim priority",
        id="node with min highest priority pod is picked",
    ),
    pytest.param(
        nodes(3),
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [
            pod("p1.1", "node1", MID, MEDIUM, start=0),
            pod("p1.2", "node1", MID, LARGE, start=0),
            pod("p2.1", "node2", MID, LARGE, start=0),
            pod("p2.2", "node2", LOW, MEDIUM, start=0),
            pod("p3.1", "node3", MID, MEDIUM, start=0),
            pod("p3.2", "node3", MID, MEDIUM, start=0),
        ],
        ["node2"],
        "node2",
        "smallest sum of victim priorities",
        id="when highest priorities are the same, minimum sum of priorities is picked",
    ),
    pytest.param(
        nodes(3),
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [
            pod("p1.1", "node1", MID, SMALL, start=0),
            pod("p1.2", "node1", NEG, SMALL, start=0),
            pod("p1.3", "node1", MID, SMALL, start=0),
            pod("p1.4", "node1", NEG, SMALL, start=0),
            pod("p2.1", "node2", MID, LARGE, start=0),
            pod("p2.2", "node2", NEG, MEDIUM, start=0),
            pod("p3.1", "node3", MID, MEDIUM, start=0),
            pod("p3.2", "node3", NEG, SMALL, start=0),
            pod("p3.3", "node3", LOW, SMALL, start=0),
        ],
        ["node2"],
        "node2",
        "smallest sum of victim priorities",
        id="when highest priority and sum are the same, minimum number of pods is picked",
    ),
    pytest.param(
        nodes(3),
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [
            pod("p1.1", "node1", MID, SMALL, start=0),
            pod("p1.2", "node1", NEG, SMALL, start=0),
            pod("p1.3", "node1", NEG, SMALL, start=0),
            pod("p2.1", "node2", MID, LARGE, start=0),
            pod("p2.2", "node2", NEG, MEDIUM, start=0),
            pod("p3.1", "node3", MID, MEDIUM, start=0),
            pod("p3.2", "node3", NEG, SMALL, start=0),
            pod("p3.3", "node3", LOW, SMALL, start=0),
        ],
        ["node2"],
        "node2",
        "smallest sum of victim priorities",
        id="sum of adjusted priorities is considered",
    ),
    pytest.param(
        nodes(4),
        pod("p", priority=VERY_HIGH, requests=VERY_LARGE),
        [
            pod("p1.1", "node1", MID, SMALL, start=0),
            pod("p1.2", "node1", LOW, SMALL, start=0),
            pod("p1.3", "node1", LOW, SMALL, start=0),
            pod("p2.1", "node2", HIGH, LARGE, start=0),
            pod("p3.1", "node3", MID, MEDIUM, start=0),
            pod("p3.2", "node3", LOW, SMALL, start=0),
            pod("p3.3", "node3", LOW, SMALL, start=0),
            pod("p3.4", "node3", LOW, MEDIUM, start=0),
            pod("p4.1", "node4", MID, MEDIUM, start=0),
            pod("p4.2", "node4", MID, SMALL, start=0),
            pod("p4.3", "node4", MID, SMALL, start=0),
            pod("p4.4", "node4", NEG, SMALL, start=0),
        ],
        ["node1"],
        "node1",
        "smallest sum of victim priorities",
        id="non-overlapping lowest high priority, sum priorities, and number of pods",
    ),
    pytest.param(
        nodes(3),
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [
            pod("p1.1", "node1", MID, MEDIUM, start=2),
            pod("p1.2", "node1", MID, MEDIUM, start=2),
            pod("p2.1", "node2", MID, MEDIUM, start=3),
            pod("p2.2", "node2", MID, MEDIUM, start=3),
            pod("p3.1", "node3", MID, MEDIUM, start=1),
            pod("p3.2", "node3", MID, MEDIUM, start=1),
        ],
        ["node2"],
        "node2",
        "latest start time of its most important victims",
        id="same priority, same number of victims, different start time for each node's pod",
    ),
    pytest.param(
        nodes(3),
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [
            pod("p1.1", "node1", MID, MEDIUM, start=4),
            pod("p1.2", "node1", MID, MEDIUM, start=2),
            pod("p2.1", "node2", MID, MEDIUM, start=5),
            pod("p2.2", "node2", MID, MEDIUM, start=1),
            pod("p3.1", "node3", MID, MEDIUM, start=3),
            pod("p3.2", "node3", MID, MEDIUM, start=6),
        ],
        ["node3"],
        "node3",
        "latest start time of its most important victims",
        id="same priority, same number of victims, different start time for all pods",
    ),
    pytest.param(
        nodes(3),
        pod("p", priority=HIGH, requests=VERY_LARGE),
        [
            pod("p1.1", "node1", LOW, MEDIUM, start=4),
            pod("p1.2", "node1", MID, MEDIUM, start=2),
            pod("p2.1", "node2", MID, MEDIUM, start=6),
            pod("p2.2", "node2", LOW, MEDIUM, start=1),
            pod("p3.1", "node3", LOW, MEDIUM, start=3),
            pod("p3.2", "node3", MID, MEDIUM, start=5),
        ],
        ["node2"],
        "node2",
        "latest start time of its most important victims",
        id="different priority, same number of victims, different start time for all pods",
    ),
    # v1.19 only: "a pod that fits on a machine with no preemption" expected the empty
    # machine3. In v1.20 a node without lower-priority pods is no candidate, so the two
    # tied candidates remain and the first wins.
    pytest.param(
        nodes(3),
        pod("p", priority=HIGH, requests=LARGE),
        [pod("m1.1", "node1", MID, LARGE, start=0), pod("m2.1", "node2", MID, LARGE, start=0)],
        ["node1", "node2"],
        "node1",
        "latest start time of its most important victims",
        id="v1.19 a pod that fits on a machine with no preemption",
    ),
]


@pytest.mark.parametrize(("cluster", "preemptor", "pods", "upstream", "expected", "why"), SELECT_CASES)
def test_select_best_candidate(cluster, preemptor, pods, upstream, expected, why):
    h = Preemption([FIT], [*cluster, *pods])
    candidates = h.dry_run(preemptor)
    chosen, reason = pick_one_node_for_preemption(candidates)
    assert chosen.node in upstream
    assert (chosen.node, reason) == (expected, why)


def test_select_best_candidate_victim_lists():
    """The candidates behind "non-overlapping lowest high priority...": victims most important first."""
    h = Preemption([FIT], [*SELECT_CASES[6].values[0], *SELECT_CASES[6].values[2]])
    assert summary(h.dry_run(SELECT_CASES[6].values[1])) == [
        ("node1", ["p1.1", "p1.2", "p1.3"], 0),
        ("node2", ["p2.1"], 0),
        ("node3", ["p3.1", "p3.2", "p3.3", "p3.4"], 0),
        ("node4", ["p4.1", "p4.2", "p4.3", "p4.4"], 0),
    ]


# ------------------------------------------------- pickOneNodeForPreemption, directly
def candidate(name: str, *victims: tuple[int, int | None], violations: int = 0) -> Candidate:
    pods = [decode(pod(f"{name}-{i}", priority=prio, start=start)) for i, (prio, start) in enumerate(victims)]
    return Candidate(node=name, index=0, victims=pods, pdb_violations=violations)


def test_fewest_pdb_violations_first():
    chosen, why = pick_one_node_for_preemption(
        [
            candidate("a", (LOW, 0), violations=2),
            candidate("b", (HIGH, 0), (HIGH, 0), violations=1),
            candidate("c", (LOW, 0), violations=3),
        ]
    )
    assert (chosen.node, why) == ("b", "fewest PDB violations")


def test_highest_victim_is_the_first_victim():
    """Upstream compares ``victims[0]``: after PDB-violating victims come first, that need not
    be the highest priority of the list."""
    chosen, why = pick_one_node_for_preemption(
        [candidate("a", (MID, 0), (HIGH, 0), violations=1), candidate("b", (HIGH, 0), (LOW, 0), violations=1)]
    )
    assert (chosen.node, why) == ("a", "lowest highest-victim priority")


def test_sum_offsets_negative_priorities_by_max_int32_plus_one():
    """Without the offset, three pods of -100 (sum -300) would beat one pod of -100."""
    many = candidate("many", (NEG, 0), (NEG, 0), (NEG, 0))
    one = candidate("one", (NEG, 0))
    chosen, why = pick_one_node_for_preemption([many, one])
    assert (chosen.node, why) == ("one", "smallest sum of victim priorities")
    assert MAX_INT32 == 2**31 - 1


def test_sum_with_the_lowest_possible_priority():
    """A victim of priority -2^31 adds 0 to the offset sum: the sums tie, the count decides."""
    lowest = -(2**31)
    chosen, why = pick_one_node_for_preemption(
        [candidate("two", (lowest, 0), (lowest, 0)), candidate("one", (lowest, 0))]
    )
    assert (chosen.node, why) == ("one", "fewest victims")


def test_fewest_victims_after_equal_sums():
    # (100 + 2^31) + (-2^31 + 2^31) == 100 + 2^31: equal sums, y has fewer victims.
    chosen, why = pick_one_node_for_preemption(
        [
            candidate("x", (MID, 0), (-(2**31), 0)),
            candidate("y", (MID, 0)),
            candidate("z", (MID, 0), (LOW, 0)),
        ]
    )
    assert (chosen.node, why) == ("y", "fewest victims")


def test_latest_start_among_highest_priority_victims():
    # Same first priority, sums and counts; node b's most important victims started last.
    chosen, why = pick_one_node_for_preemption(
        [
            candidate("a", (MID, 5), (LOW, 9)),
            candidate("b", (MID, 7), (LOW, 1)),
            candidate("c", (MID, 6), (LOW, 8)),
        ]
    )
    assert (chosen.node, why) == ("b", "latest start time of its most important victims")


def test_start_time_ties_keep_the_first_candidate():
    chosen, why = pick_one_node_for_preemption(
        [candidate("a", (MID, 5)), candidate("b", (MID, 5)), candidate("c", (MID, 4))]
    )
    assert (chosen.node, why) == ("a", "latest start time of its most important victims")


def test_victims_without_start_time_count_as_started_now():
    chosen, _ = pick_one_node_for_preemption([candidate("a", (MID, 5)), candidate("b", (MID, None))])
    assert chosen.node == "b"
    chosen, _ = pick_one_node_for_preemption([candidate("a", (MID, None)), candidate("b", (MID, None))])
    assert chosen.node == "a"


def test_candidates_without_victims_rank_first():
    chosen, why = pick_one_node_for_preemption(
        [candidate("busy", (NEG, 0)), candidate("free"), candidate("free2")]
    )
    assert (chosen.node, why) == ("free", "first of the tied candidates")


def test_single_and_no_candidate():
    assert pick_one_node_for_preemption([]) == (None, "")
    only = candidate("only", (HIGH, 0), violations=4)
    assert pick_one_node_for_preemption([only]) == (only, "the only candidate")
