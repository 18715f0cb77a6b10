"""PreFilter plugins returning a PreFilterResult (node names), release by release; and from 1.30
an Unschedulable PreFilter that lets the others run.

Upstream: ``pkg/scheduler/schedule_one_test.go`` TestSchedulerSchedulePod, the cases with
FakePreFilter plugins returning a ``PreFilterResult``, in their v1.32/v1.33 form and with the
v1.30.0 expectations of kubernetes#119779; ``RunPreFilterPlugins``
(``pkg/scheduler/framework/runtime/framework.go``) and ``findNodesThatFitPod``
(``schedule_one.go``) at v1.24 (kubernetes#108648), v1.29, v1.30 (kubernetes#119779), v1.31
(kubernetes#122251, kubernetes#124933, kubernetes#125197) and v1.32 (``SetAbsentNodesStatus``);
``pkg/scheduler/framework/runtime/framework_test.go`` TestRunPreFilterPlugins, the three cases
kubernetes#119779 added (v1.30.0), each also at 1.29.
Upstream compares ``Diagnosis`` structs; here the same outcome is read as the FitError message,
each node's status and the count of nodes filters ran on (upstream's EvaluatedNodes also counts
the statuses of nodes left out, at 1.30). Left out: "prefilter plugin returning skip"
(tests/framework/test_prefilter_skip.py has Skip). 1.26 and 1.27, whose PreFilter rejections leave the node
statuses empty upstream, are not among the releases of the rejection cases (ruleset fills
them, as 1.25 and 1.28 do). Upstream walks the names in a Go set's order; ruleset in node-tree
order (the nodes here are named in that order, so the outcome is the same).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ruleset import FilterResult, PreFilterResult, hookspecs
from ruleset.config import PluginConfig, Profile
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import Handle, Plugin
from ruleset.framework.runtime import PRE_FILTER_NODES, SKIP_FILTER_PLUGINS, Framework
from ruleset.framework.status import Code, Status
from ruleset.scheduler import Scheduler
from ruleset.scheduler.cycle import FILTERED_OUT
from tests.factories import build_cluster, decode, make_node, make_pod, registry_with

hookimpl = hookspecs.hookimpl


def _pre_filter(name: str, names: set[str] | None) -> type[Plugin]:
    """A PreFilter plugin returning ``names`` as its result (None: plain Success)."""
    def ruleset_pre_filter(self: Plugin) -> PreFilterResult | None:
        return None if names is None else PreFilterResult(frozenset(names))
    return type(name, (Plugin,), {"name": name, "ruleset_pre_filter": hookimpl(ruleset_pre_filter)})


class FakeFilter(Plugin):
    """Rejects node2, Unschedulable, as upstream's FakeFilter with ``map{"node2": Unschedulable}``."""

    name = "FakeFilter"

    @hookimpl
    def ruleset_filter(self, pod: Any, nodes: Any) -> FilterResult:
        names = [nodes.snapshot.node_names[i] for i in nodes.indices]
        return FilterResult.reject(np.array([n == "node2" for n in names]), Code.UNSCHEDULABLE,
                                   f"injecting failure for pod {pod.name}")


class TrueFilter(Plugin):
    name = "TrueFilter"

    @hookimpl
    def ruleset_filter(self, nodes: Any) -> FilterResult:
        return FilterResult.passing(len(nodes))


class ScoresZero(Plugin):
    """A Score plugin (from 1.30 a profile without one looks for a single feasible node)."""

    name = "ScoresZero"

    @hookimpl
    def ruleset_score(self, nodes: Any) -> np.ndarray:
        return np.zeros(len(nodes), dtype=np.int64)


def scheduler(version: str, plugins: list[type[Plugin]], nodes: list[str]) -> Scheduler:
    state = build_cluster([make_node(n) for n in nodes])
    profile = Profile(name="p", plugins=[PluginConfig(name=p.name) for p in plugins],
                      percentage_of_nodes_to_score=100, kubernetes_version=version)
    return Scheduler(Framework(profile, registry_with(*plugins), Handle(state.snapshot)), seed=0)


POD = decode(make_pod("test-prefilter"))
ALL = ["1.24", "1.25", "1.28", "1.29", "1.30", "1.31", "1.32", "1.35"]
THREE = ["node1", "node2", "node3"]


def _statuses(s: Scheduler, result: Any) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {name: (result.statuses.status(i).code.label, result.statuses.status(i).reasons)
            for i, name in enumerate(s.snapshot.node_names) if result.statuses.status(i).code != Code.SUCCESS}


@pytest.mark.parametrize(("version", "evaluated"), [
    # Filters ran on node2 alone. (Upstream's EvaluatedNodes, feasible nodes plus statuses, is 3 at
    # 1.30.0, which gave the nodes left out a status of their own: they have it here too, below.)
    *[pytest.param(v, 1, id=v) for v in ("1.24", "1.29", "1.30", "1.31", "1.35")],
])
def test_prefilter_plugin_returning_node(version: str, evaluated: int) -> None:
    # FakePreFilter1 nil, FakePreFilter2 {node2}, FakePreFilter3 {node1, node2}: node2, no Filter plugin.
    s = scheduler(version, [_pre_filter("FakePreFilter1", None), _pre_filter("FakePreFilter2", {"node2"}),
                            _pre_filter("FakePreFilter3", {"node1", "node2"})], THREE)
    result = s.schedule(POD)
    assert result.node == "node2"
    assert int(np.count_nonzero(result.statuses.evaluated)) == evaluated


@pytest.mark.parametrize(("version", "code", "message"), [
    pytest.param("1.20", None, None, id="1.20: no PreFilterResult yet, every node is feasible"),
    pytest.param("1.24", "Unschedulable", "0/3 nodes are available: 3 {msg}.", id="1.24"),
    pytest.param("1.25", "Unschedulable", "0/3 nodes are available: 3 {msg}.", id="1.25"),
    pytest.param("1.28", "Unschedulable", "0/3 nodes are available: {msg}.", id="1.28"),
    pytest.param("1.29", "Unschedulable", "0/3 nodes are available: {msg}.", id="1.29"),
    pytest.param("1.30", "UnschedulableAndUnresolvable", "0/3 nodes are available: {msg}.", id="1.30"),
    pytest.param("1.35", "UnschedulableAndUnresolvable", "0/3 nodes are available: {msg}.", id="1.35"),
])
def test_prefilter_plugins_returning_non_intersecting_nodes(version: str, code: str | None,
                                                             message: str | None) -> None:
    s = scheduler(version, [_pre_filter("FakePreFilter1", None), _pre_filter("FakePreFilter2", {"node2"}),
                            _pre_filter("FakePreFilter3", {"node1"})], THREE)
    result = s.schedule(POD)
    if code is None:
        assert result.scheduled and len(result.feasible) == 3
        return
    msg = "node(s) didn't satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously"
    assert result.node is None
    assert result.message == message.format(msg=msg)
    assert _statuses(s, result) == {n: (code, (msg,)) for n in THREE}
    assert result.statuses.pre_filter_message == msg


@pytest.mark.parametrize(("version", "names"), [
    pytest.param("1.30", "[PreFilterB PreFilterA]", id="1.30: in the order they ran"),
    pytest.param("1.31", "[PreFilterA PreFilterB]", id="1.31: sorted (kubernetes#122251)"),
])
def test_the_plugins_of_an_empty_intersection_are_named_sorted_from_1_31(version: str, names: str) -> None:
    s = scheduler(version, [_pre_filter("PreFilterB", {"node2"}), _pre_filter("PreFilterA", {"node1"})], THREE)
    assert s.schedule(POD).message == f"0/3 nodes are available: node(s) didn't satisfy plugin(s) {names} simultaneously."


@pytest.mark.parametrize("version", ALL)
def test_prefilter_plugin_returning_empty_node_set(version: str) -> None:
    s = scheduler(version, [_pre_filter("FakePreFilter1", None), _pre_filter("FakePreFilter2", set())], ["node1"])
    result = s.schedule(POD)
    assert result.node is None
    assert result.statuses.pre_filter_message == "node(s) didn't satisfy plugin FakePreFilter2"
    assert result.message.endswith(" node(s) didn't satisfy plugin FakePreFilter2.")


@pytest.mark.parametrize(("version", "message", "statuses", "evaluated"), [
    *[pytest.param(v, "0/2 nodes are available: 1 injecting failure for pod test-prefilter.",
                   {"node2": ("Unschedulable", ("injecting failure for pod test-prefilter",))}, 1, id=v)
      for v in ("1.24", "1.25", "1.28", "1.29", "1.31")],
    pytest.param("1.30", "0/2 nodes are available: 1 injecting failure for pod test-prefilter, "
                 "1 node is filtered out by the prefilter result.",
                 {"node1": ("UnschedulableAndUnresolvable", ("node is filtered out by the prefilter result",)),
                  "node2": ("Unschedulable", ("injecting failure for pod test-prefilter",))}, 1, id="1.30"),
    *[pytest.param(v, "0/2 nodes are available: 1 injecting failure for pod test-prefilter, "
                   "1 node(s) didn't satisfy plugin(s) [FakePreFilter].",
                   {"node1": ("UnschedulableAndUnresolvable", ("node(s) didn't satisfy plugin(s) [FakePreFilter]",)),
                    "node2": ("Unschedulable", ("injecting failure for pod test-prefilter",))}, 1, id=v)
      for v in ("1.32", "1.35")],
])
def test_some_nodes_are_filtered_out_by_prefilter_plugin_and_other_are_filtered_out_by_filter_plugin(
        version: str, message: str, statuses: dict, evaluated: int) -> None:
    s = scheduler(version, [_pre_filter("FakePreFilter", {"node2"}), FakeFilter], ["node1", "node2"])
    result = s.schedule(POD)
    assert result.node is None
    assert result.message == message
    assert _statuses(s, result) == statuses
    assert int(np.count_nonzero(result.statuses.evaluated)) == evaluated


@pytest.mark.parametrize(("version", "status", "message"), [
    # Up to 1.29 a name the snapshot lacks ends the cycle with NodeInfos().Get's error.
    *[pytest.param(v, Code.ERROR, 'nodeinfo not found for node name "invalid-node"', id=v) for v in ("1.24", "1.29")],
    # 1.30.0 panicked here (a modulo by the zero nodes named, kubernetes#124930); ruleset takes 1.30.2's
    # modulo by all nodes, with 1.30's statuses of the nodes left out.
    pytest.param("1.30", Code.UNSCHEDULABLE, "0/2 nodes are available: 2 node is filtered out by the prefilter result.",
                 id="1.30"),
    pytest.param("1.31", Code.UNSCHEDULABLE, "0/2 nodes are available:", id="1.31: nothing after the colon"),
    pytest.param("1.32", Code.UNSCHEDULABLE,
                 "0/2 nodes are available: 2 node(s) didn't satisfy plugin(s) [FakePreFilter].", id="1.32"),
])
def test_prefilter_plugin_returned_an_invalid_node(version: str, status: Code, message: str) -> None:
    s = scheduler(version, [_pre_filter("FakePreFilter", {"invalid-node"}), TrueFilter], ["1", "2"])
    result = s.schedule(POD)
    assert (result.node, result.status.code, result.message) == (None, status, message)


@pytest.mark.parametrize(("version", "starts"), [
    # The two nodes named are processed each time: up to 1.30 the rotating start index advances
    # modulo the nodes named (back to 0), from 1.31 modulo all five nodes (kubernetes#124933).
    pytest.param("1.29", [0, 0, 0, 0], id="1.29"),
    pytest.param("1.31", [0, 2, 4, 1], id="1.31"),
])
def test_the_start_index_advances_over_the_nodes_named(version: str, starts: list[int]) -> None:
    nodes = [f"node{i}" for i in range(1, 6)]
    s = scheduler(version, [_pre_filter("FakePreFilter", {"node2", "node4"}), TrueFilter, ScoresZero], nodes)
    seen = []
    for _ in range(4):
        seen.append(s.next_start_node_index)
        s.schedule(POD)
    assert seen == starts


def test_the_intersection_is_kept_for_the_cycle() -> None:
    s = scheduler("1.35", [_pre_filter("B", {"node1", "node2"}), _pre_filter("A", {"node2", "node3"}),
                           _pre_filter("C", None)], THREE)
    state = CycleState()
    assert s.framework.run_pre_filter(state, POD, s.snapshot).is_success
    assert state.read(PRE_FILTER_NODES) == (frozenset({"node2"}), ("B", "A"))


def test_a_prefilter_result_is_plain_success_before_1_24() -> None:
    s = scheduler("1.23", [_pre_filter("FakePreFilter", {"node2"})], THREE)
    state = CycleState()
    assert s.framework.run_pre_filter(state, POD, s.snapshot) == Status(Code.SUCCESS)
    assert PRE_FILTER_NODES not in state


def test_a_malformed_prefilter_result_is_refused_where_it_is_made() -> None:
    with pytest.raises(TypeError, match="must be a frozenset of node names"):
        PreFilterResult({"node1"})  # type: ignore[arg-type]


def _answering(name: str, status: Status) -> type[Plugin]:
    """A PreFilter plugin returning ``status``, and recording that it ran."""
    def ruleset_pre_filter(self: Plugin) -> Status:
        RAN.append(name)
        return status
    return type(name, (Plugin,), {"name": name, "ruleset_pre_filter": hookimpl(ruleset_pre_filter)})


RAN: list[str] = []
UNSCHEDULABLE = _answering("unschedulable", Status(Code.UNSCHEDULABLE, ("injected",)))
UNRESOLVABLE = _answering("unresolvable", Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("injected",)))
SKIPS = _answering("skip", Status(Code.SKIP))
REJECT_ALL = _pre_filter("reject-all-nodes", set())


@pytest.mark.parametrize(("version", "plugins", "code", "ran", "skipped"), [
    # TestRunPreFilterPlugins (v1.30.0, kubernetes#119779), its three cases, then each at 1.29.
    pytest.param("1.30", [UNSCHEDULABLE, SKIPS], Code.UNSCHEDULABLE, ["unschedulable", "skip"],
                 frozenset({"skip"}), id="1.30: Unschedulable, but another PreFilter plugin is executed"),
    pytest.param("1.30", [UNRESOLVABLE, SKIPS], Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ["unresolvable"], None,
                 id="1.30: UnschedulableAndUnresolvable, and no other plugin is executed"),
    pytest.param("1.30", [REJECT_ALL, SKIPS], Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [], None,
                 id="1.30: all nodes filtered out by the prefilter result, no other plugin executed"),
    pytest.param("1.29", [UNSCHEDULABLE, SKIPS], Code.UNSCHEDULABLE, ["unschedulable"], None,
                 id="1.29: Unschedulable stops"),
    pytest.param("1.29", [REJECT_ALL, SKIPS], Code.UNSCHEDULABLE, [], None, id="1.29: an empty result stops"),
])
def test_run_pre_filter_plugins(version: str, plugins: list[type[Plugin]], code: Code, ran: list[str],
                                skipped: frozenset[str] | None) -> None:
    RAN.clear()
    s = scheduler(version, plugins, THREE)
    state = CycleState()
    status = s.framework.run_pre_filter(state, POD, s.snapshot)
    assert (status.code, RAN, state.get(SKIP_FILTER_PLUGINS)) == (code, ran, skipped)


def test_the_last_unschedulable_is_the_outcome_from_1_30() -> None:
    RAN.clear()
    second = _answering("second", Status(Code.UNSCHEDULABLE, ("later",)))
    s = scheduler("1.35", [UNSCHEDULABLE, second], THREE)
    status = s.framework.run_pre_filter(CycleState(), POD, s.snapshot)
    assert (status.code, status.reasons, status.plugin, RAN) == (
        Code.UNSCHEDULABLE, ("later",), "second", ["unschedulable", "second"])


@pytest.mark.parametrize(("version", "code", "message"), [
    pytest.param("1.24", Code.UNSCHEDULABLE, "0/1 nodes are available: 1 {msg}.", id="1.24"),
    pytest.param("1.25", Code.UNSCHEDULABLE, "0/1 nodes are available: 1 {msg}.", id="1.25"),
    pytest.param("1.28", Code.UNSCHEDULABLE, "0/1 nodes are available: {msg}.", id="1.28"),
    pytest.param("1.29", Code.UNSCHEDULABLE, "0/1 nodes are available: {msg}.", id="1.29"),
    pytest.param("1.30", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "0/1 nodes are available: {msg}.", id="1.30"),
    pytest.param("1.35", Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "0/1 nodes are available: {msg}.", id="1.35"),
])
def test_prefilter_plugin_returning_empty_node_set_exactly(version: str, code: Code, message: str) -> None:
    s = scheduler(version, [_pre_filter("FakePreFilter1", None), _pre_filter("FakePreFilter2", set())], ["node1"])
    result = s.schedule(POD)
    msg = "node(s) didn't satisfy plugin FakePreFilter2"
    assert (result.message, result.statuses.status(0)) == (message.format(msg=msg), Status(code, (msg,)))


class RejectsNode1(Plugin):
    """Filter: node1 is Unschedulable ("no")."""

    name = "RejectsNode1"

    @hookimpl
    def ruleset_filter(self, nodes: Any) -> FilterResult:
        names = [nodes.snapshot.node_names[i] for i in nodes.indices]
        return FilterResult.reject(np.array([n == "node1" for n in names]), Code.UNSCHEDULABLE, "no")


@pytest.mark.parametrize(("version", "node1", "start"), [
    # The nominated node1 fails alone first; the scan then filters node2 and node3 only. Upstream
    # counts node1's status among the processed nodes: 2 feasible + 1 = 3, modulo the 2 named up to
    # 1.29 and the 4 nodes from 1.31; 1.30 counts node1 and node4 as filtered out: 2 + 2, modulo 2.
    pytest.param("1.29", ("Unschedulable", ("no",)), 1, id="1.29: its own status stays"),
    pytest.param("1.30", ("UnschedulableAndUnresolvable", (FILTERED_OUT,)), 0,
                 id="1.30: overwritten as filtered out (counted once)"),
    pytest.param("1.31", ("Unschedulable", ("no",)), 3, id="1.31"),
    pytest.param("1.35", ("Unschedulable", ("no",)), 3, id="1.35: its own status, not the absent one"),
])
def test_a_failed_nominated_node_outside_the_nodes_named(version: str, node1: tuple, start: int) -> None:
    s = scheduler(version, [_pre_filter("FakePreFilter", {"node2", "node3"}), RejectsNode1, ScoresZero],
                  ["node1", "node2", "node3", "node4"])
    result = s.schedule(decode(make_pod("test-prefilter", nominated_node_name="node1")))
    statuses = _statuses(s, result)
    assert (result.node in ("node2", "node3"), statuses["node1"], s.next_start_node_index) == (True, node1, start)


@pytest.mark.parametrize("version", ["1.30", "1.35"])
def test_no_score_plugin_prefilter_plugin_returning_2_nodes_only_1_node_is_evaluated(version: str) -> None:
    # Upstream's case (v1.30.0 on): no Score plugin, so one feasible node is looked for among the two.
    s = scheduler(version, [_pre_filter("FakePreFilter", {"node1", "node2"})], THREE)
    result = s.schedule(POD)
    assert (result.node, int(np.count_nonzero(result.statuses.evaluated))) == ("node1", 1)
