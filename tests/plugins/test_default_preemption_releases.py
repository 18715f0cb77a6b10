"""DefaultPreemption's PostFilter status per release, and upstream's TestPostFilter at v1.34.

* v1.34.0 ``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go``,
  TestPostFilter: 8 of its 11 cases, with upstream's fixtures (``nodeRes`` is cpu 200m and
  memory 400, ``largeRes`` cpu 300m and memory 300; ``onePodRes`` a node of one pod; the
  ``node()`` helper of ``test_default_preemption.py`` gives 32 pods unless told). Left out:
  "preemption result filtered out by extenders" (ruleset has no extenders), and the two
  "TestPlugin" cases, whose PreFilter RemovePod returns an Error: ruleset keeps v1.20's
  handling of an Error a plugin reports during a dry run (the node is no candidate), where
  later releases end the attempt with that Error.
* 1.24 (kubernetes#107775) gave the Unschedulable status its message ("preemption: " and
  ``PodEligibleToPreemptOthers``' reason or ``Preempt``'s FitError); 1.21-1.23 built the
  FitError status but the scheduler only logged it, so 1.23 answers as 1.20 here.
* 1.31 (kubernetes#125197; its back-ports are in v1.27.16, v1.29.7 and v1.30.4, not in
  v1.28.8 or v1.29.4) dry-runs only nodes whose status is Unschedulable; a node without a
  status (ruleset: Success) counts as "not helpful". Checked against preemption.go
  (nodesWherePreemptionMightHelp) at v1.29.4 and v1.30.4/v1.31.2.
* The FitError message of a real cycle ending in PostFilter is checked with
  ``FitErrorText`` over the cycle's statuses and PostFilter result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.results import FitErrorText
from ruleset.framework.runtime import Framework
from ruleset.framework.status import Code, Status
from ruleset.plugins.default_preemption import DefaultPreemption, nodes_where_preemption_might_help
from ruleset.scheduler import Scheduler
from tests.factories import build_cluster
from tests.plugins.test_default_preemption import (
    FIT,
    HIGH,
    LARGE,
    LOW,
    MID,
    ONE_POD,
    REGISTRY,
    Preemption,
    node,
    pod,
)

NODE_RES = {"cpu": "200m", "memory": "400"}
U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"


class ReleasePreemption(Preemption):
    """``Preemption`` in a profile with ``kubernetesVersion = version``."""

    def __init__(self, plugins: Sequence[str], objects: Iterable[dict], version: str,
                 args: Mapping[str, Any] | None = None):
        self.state = build_cluster(objects)
        self.snapshot = self.state.snapshot
        configs = [*(PluginConfig(name=p) for p in plugins),
                   PluginConfig(name="DefaultPreemption", args=dict(args or {}))]
        profile = Profile(name="test", plugins=configs, percentage_of_nodes_to_score=100,
                          kubernetes_version=version)
        self.framework = Framework(profile, REGISTRY, Handle(self.snapshot))
        self.scheduler = Scheduler(self.framework)
        plugin = self.framework.plugins["DefaultPreemption"]
        assert isinstance(plugin, DefaultPreemption)
        self.plugin = plugin


def unschedulable(message: str) -> tuple[Code, tuple[str, ...]]:
    return U, (f"preemption: {message}",)


SUCCESS = (Code.SUCCESS, ())

# --------------------------------------------------------------- TestPostFilter (v1.34)
POST_FILTER_V134 = [
    pytest.param(pod("p", priority=HIGH), [pod("p1", "node1")], [node("node1", ONE_POD)], {"node1": U},
                 "node1", SUCCESS, id="pod with higher priority can be made schedulable"),
    pytest.param(pod("p"), [pod("p1", "node1")], [node("node1", ONE_POD)], {"node1": U},
                 None, unschedulable(f"0/1 nodes are available: 1 {NO_VICTIMS}."),
                 id="pod with tied priority is still unschedulable"),
    pytest.param(pod("p", priority=HIGH), [pod("p1", "node1")], [node("node1", ONE_POD)], {"node1": UU},
                 None, unschedulable(f"0/1 nodes are available: 1 {NOT_HELPFUL}."),
                 id="preemption should respect filteredNodesStatuses"),
    pytest.param(pod("p", priority=MID), [pod("p1", "node1", HIGH), pod("p2", "node2", LOW)],
                 [node("node1", ONE_POD), node("node2", ONE_POD)], {"node1": U, "node2": U},
                 "node2", SUCCESS, id="pod can be made schedulable on one node"),
    pytest.param(pod("p", priority=HIGH, requests=LARGE), [pod("p1", "node1"), pod("p2", "node2")],
                 [node("node1", NODE_RES), node("node2", NODE_RES)], {"node1": U, "node2": U},
                 None, unschedulable("0/2 nodes are available: 2 Insufficient cpu."),
                 id="no candidate nodes found, no enough resource after removing low priority pods"),
    pytest.param(pod("p", priority=HIGH, requests=LARGE),
                 [pod("p1", "node1", HIGH), pod("p2", "node2"), pod("p3", "node3", HIGH)],
                 [node("node1", ONE_POD), node("node2", NODE_RES), node("node3", ONE_POD)],
                 {"node1": U, "node2": U, "node3": U},
                 None, unschedulable(f"0/3 nodes are available: 1 Insufficient cpu, 2 {NO_VICTIMS}."),
                 id="no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource"),
    pytest.param(pod("p", priority=HIGH, requests=LARGE), [pod("p1", "node1"), pod("p2", "node2")],
                 [node(f"node{i}", NODE_RES) for i in range(1, 5)], {"node1": U, "node2": U, "node4": UU},
                 None, unschedulable(f"0/4 nodes are available: 2 Insufficient cpu, 2 {NOT_HELPFUL}."),
                 id="no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 nodes "
                    "don't have enough CPU resource"),
]


def _post_filter(h: Preemption, preemptor: dict, codes: Mapping[str, Code]) -> tuple[Any, tuple[Code, tuple]]:
    nominated, status = h.post_filter(preemptor, {name: Status(code) for name, code in codes.items()})
    return nominated, (status.code, status.reasons)


@pytest.mark.parametrize(("preemptor", "pods", "nodes", "codes", "nominated", "status"), POST_FILTER_V134)
def test_post_filter_at_v1_34(preemptor, pods, nodes, codes, nominated, status):
    h = ReleasePreemption([FIT], [*nodes, *pods], "1.34")
    assert _post_filter(h, preemptor, codes) == (nominated, status)


@pytest.mark.parametrize(("preemptor", "pods", "nodes", "codes", "nominated", "status"), POST_FILTER_V134)
@pytest.mark.parametrize("version", ["1.20", "1.23"])
def test_post_filter_before_v1_24_has_no_message(version, preemptor, pods, nodes, codes, nominated, status):
    # The 4-node case tries node3 (no status) before 1.31, and preempts nothing there either.
    h = ReleasePreemption([FIT], [*nodes, *pods], version)
    assert _post_filter(h, preemptor, codes) == (nominated, (status[0], ()))


# ------------------------------------------------------------------------- per release
FOUR_NODES = POST_FILTER_V134[-1].values


@pytest.mark.parametrize(("version", "status"), [
    pytest.param("1.20", (U, ()), id="1.20-no-message"),
    pytest.param("1.24", unschedulable(f"0/4 nodes are available: 1 {NO_VICTIMS}, 1 {NOT_HELPFUL}, "
                                       "2 Insufficient cpu."), id="1.24-node-without-status-is-tried"),
    pytest.param("1.28", unschedulable(f"0/4 nodes are available: 1 {NO_VICTIMS}, 1 {NOT_HELPFUL}, "
                                       "2 Insufficient cpu."), id="1.28"),
    pytest.param("1.30", unschedulable(f"0/4 nodes are available: 1 {NO_VICTIMS}, 1 {NOT_HELPFUL}, "
                                       "2 Insufficient cpu."), id="1.30-node-without-status-is-still-tried"),
    pytest.param("1.31", unschedulable(f"0/4 nodes are available: 2 Insufficient cpu, 2 {NOT_HELPFUL}."),
                 id="1.31-only-unschedulable-nodes-are-tried"),
    pytest.param("1.34", unschedulable(f"0/4 nodes are available: 2 Insufficient cpu, 2 {NOT_HELPFUL}."),
                 id="1.34"),
])
def test_node_without_status_per_release(version, status):
    preemptor, pods, nodes, codes, _, _ = FOUR_NODES
    h = ReleasePreemption([FIT], [*nodes, *pods], version)
    assert _post_filter(h, preemptor, codes) == (None, status)


@pytest.mark.parametrize(("only_unschedulable", "expected"), [
    pytest.param(False, ["node1", "node3"], id="1.20-all-but-unresolvable"),
    pytest.param(True, ["node3"], id="1.31-only-unschedulable"),
])
def test_nodes_where_preemption_might_help_per_release(only_unschedulable, expected):
    h = Preemption([FIT], [node(f"node{i}") for i in range(1, 5)])
    statuses = h.statuses({"node2": Status(UU), "node3": Status(U), "node4": Status(UU)})
    got = nodes_where_preemption_might_help(h.snapshot, statuses, only_unschedulable)
    assert [h.snapshot.node_names[int(i)] for i in got] == expected


NEVER = pod("p", priority=HIGH, preemption_policy="Never")
NOMINATED = pod("p", priority=HIGH, nominated_node_name="node1")
TERMINATING = pod("p1", "node1", LOW, deletion_timestamp="2026-01-01T00:00:00Z")


@pytest.mark.parametrize(("version", "preemptor", "status"), [
    pytest.param("1.20", NEVER, (U, ()), id="1.20-never"),
    pytest.param("1.23", NEVER, (U, ()), id="1.23-never"),
    pytest.param("1.24", NEVER, unschedulable("not eligible due to preemptionPolicy=Never."), id="1.24-never"),
    pytest.param("1.34", NEVER, unschedulable("not eligible due to preemptionPolicy=Never."), id="1.34-never"),
    pytest.param("1.20", NOMINATED, (U, ()), id="1.20-terminating"),
    pytest.param("1.24", NOMINATED, unschedulable("not eligible due to a terminating pod on the nominated node."),
                 id="1.24-terminating"),
])
def test_not_eligible_per_release(version, preemptor, status):
    h = ReleasePreemption([FIT], [node("node1", ONE_POD), TERMINATING], version)
    assert _post_filter(h, preemptor, {"node1": U}) == (None, status)


def test_every_node_unresolvable_says_not_helpful_for_all_nodes():
    h = ReleasePreemption([FIT], [node("node1"), node("node2"), pod("p1", "node1")], "1.34")
    assert _post_filter(h, pod("p", priority=HIGH), {"node1": UU, "node2": UU}) == (
        None, unschedulable(f"0/2 nodes are available: 2 {NOT_HELPFUL}."))


# ------------------------------------------------------- the FitError of a real cycle
@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", "0/2 nodes are available: 2 Too many pods.", id="1.20"),
    pytest.param("1.24", "0/2 nodes are available: 2 Too many pods. preemption: 0/2 nodes are available: "
                         f"2 {NO_VICTIMS}.", id="1.24"),
    pytest.param("1.26", "0/2 nodes are available: 2 Too many pods. preemption: 0/2 nodes are available: "
                         f"2 {NO_VICTIMS}..", id="1.26-double-period"),
    pytest.param("1.34", "0/2 nodes are available: 2 Too many pods. preemption: 0/2 nodes are available: "
                         f"2 {NO_VICTIMS}.", id="1.34"),
])
def test_fit_error_of_a_cycle_ending_in_preemption(version, expected):
    h = ReleasePreemption([FIT], [node("node1", ONE_POD), node("node2", ONE_POD),
                                  pod("p1", "node1", HIGH), pod("p2", "node2", HIGH)], version)
    result = h.run(pod("p", priority=MID))
    assert result.statuses is not None and result.post_filter is not None
    message = FitErrorText.of(h.framework.profile.target).message(h.snapshot.num_nodes, result.statuses,
                                                                  result.post_filter)
    assert message == expected
