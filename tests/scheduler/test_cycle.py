"""The scheduling cycle: numFeasibleNodesToFind, rotation, host selection, FitError text."""

import numpy as np
import pytest

from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.results import NodeStatuses, fit_error_message
from ruleset.framework.runtime import Framework
from ruleset.framework.status import Code, Status
from ruleset.pluginmanager import load_registry
from ruleset.scheduler import Scheduler, num_feasible_nodes_to_find
from tests.factories import Harness, build_cluster, decode, make_framework, make_node, make_pod


@pytest.mark.parametrize(("percentage", "num_all", "want"), [
    # generic_scheduler_test.go TestNumFeasibleNodesToFind (v1.20), all 6 cases
    (0, 10, 10),      # not set percentageOfNodesToScore and nodes number not more than 50
    (40, 10, 10),     # set percentageOfNodesToScore and nodes number not more than 50
    (0, 1000, 420),   # not set percentageOfNodesToScore and nodes number more than 50
    (40, 1000, 400),  # set percentageOfNodesToScore and nodes number more than 50
    (0, 6000, 300),   # not set percentageOfNodesToScore and nodes number more than 50*125
    (40, 6000, 2400),  # set percentageOfNodesToScore and nodes number more than 50*125
    # the floors and the shortcut
    (0, 99, 99), (0, 100, 100), (0, 5000, 500), (1, 5000, 100), (100, 5000, 5000),
    (0, 125 * 45, 281),
])
def test_num_feasible_nodes_to_find(percentage, num_all, want):
    assert num_feasible_nodes_to_find(num_all, percentage) == want


def _nodes(n):
    return [make_node(f"n{i:03d}") for i in range(n)]


def test_start_index_rotates_by_processed_nodes():
    state = build_cluster(_nodes(200))
    fw = make_framework(["NodeResourcesFit", "NodeResourcesLeastAllocated"], percentage=0, snapshot=state.snapshot)
    scheduler = Scheduler(fw)
    pod = decode(make_pod())
    first = scheduler.schedule(pod)
    # 200 nodes, adaptive 48% -> 96, floored to 100 feasible nodes, visited from index 0.
    assert len(first.feasible) == 100
    assert first.feasible[0] == 0 and first.feasible[-1] == 99
    assert scheduler.next_start_node_index == 100
    second = scheduler.schedule(pod)
    assert second.feasible[0] == 100 and second.feasible[-1] == 199
    assert scheduler.next_start_node_index == 0


def test_without_filter_plugins_the_first_nodes_to_find_are_feasible():
    # findNodesThatPassFilters without Filter plugins (v1.20 generic_scheduler.go, v1.24
    # schedule_one.go): numFeasibleNodesToFind nodes from the rotating index, which advances by them.
    state = build_cluster(_nodes(150))
    scheduler = Scheduler(make_framework(["NodeResourcesLeastAllocated"], percentage=0, snapshot=state.snapshot))
    pod = decode(make_pod())
    first = scheduler.schedule(pod)
    assert (len(first.feasible), int(first.feasible[0]), int(first.feasible[-1])) == (100, 0, 99)
    assert scheduler.next_start_node_index == 100
    second = scheduler.schedule(pod)
    assert (len(second.feasible), int(second.feasible[0]), int(second.feasible[49])) == (100, 100, 149)
    assert int(second.feasible[50]) == 0 and scheduler.next_start_node_index == 50


@pytest.mark.parametrize(("version", "feasible", "start"), [
    # Before 1.30 every node is looked for, and the tie drawn among them; from 1.30 a profile
    # without Score plugins stops at the first node that passes (schedule_one.go, hasScoring).
    ("1.29", 5, 0),
    ("1.30", 1, 1),
])
def test_without_score_plugins_from_1_30_one_feasible_node_is_looked_for(version, feasible, start):
    state = build_cluster(_nodes(5))
    profile = Profile(name="p", plugins=[PluginConfig(name="NodeUnschedulable")], kubernetes_version=version)
    scheduler = Scheduler(Framework(profile, load_registry(), Handle(state.snapshot)))
    result = scheduler.schedule(decode(make_pod()))
    assert (len(result.feasible), scheduler.next_start_node_index) == (feasible, start)
    if feasible == 1:
        assert result.node == "n000"


def test_single_feasible_node_is_chosen_without_scoring():
    harness = Harness(["NodeName", "NodeResourcesLeastAllocated"], _nodes(3))
    result = harness.scheduler.schedule(decode(make_pod(node_name="n001")))
    assert result.node == "n001"
    assert result.scores is None and result.score is None


def test_ties_are_broken_by_the_seed_reproducibly():
    def picks(seed):
        harness = Harness(["NodeResourcesLeastAllocated"], _nodes(5), seed=seed)
        return [harness.scheduler.schedule(decode(make_pod())).node for _ in range(5)]

    assert picks(3) == picks(3)
    # Every node ties, so over a few seeds every node gets picked first at least once.
    assert {picks(seed)[0] for seed in range(30)} == {"n000", "n001", "n002", "n003", "n004"}


def test_no_nodes():
    harness = Harness(["NodeResourcesFit"], [])
    result = harness.scheduler.schedule(decode(make_pod()))
    assert result.status.code == Code.ERROR
    assert result.message == "no nodes available to schedule pods"


def test_fit_error_histogram_is_sorted_as_strings():
    statuses = NodeStatuses(12)
    for i in range(10):
        statuses.set_all(np.array([i]), Status(Code.UNSCHEDULABLE, ("X",), "P"))
    statuses.set_all(np.array([10, 11]), Status(Code.UNSCHEDULABLE, ("Insufficient cpu", "Y"), "P"))
    # "10 X" sorts before "2 Insufficient cpu" because upstream sorts the rendered strings.
    assert fit_error_message(12, statuses) == "0/12 nodes are available: 10 X, 2 Insufficient cpu, 2 Y."


def test_fit_error_counts_every_reason_of_every_node():
    harness = Harness(["NodeUnschedulable", "NodeResourcesFit"], [
        make_node("a", cpu="1", memory="1Gi"), make_node("b", cpu="1", memory="1Gi"),
        make_node("c", unschedulable=True),
    ])
    result = harness.scheduler.schedule(decode(make_pod(requests={"cpu": "2", "memory": "2Gi"})))
    assert result.message == ("0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu, "
                              "2 Insufficient memory.")
