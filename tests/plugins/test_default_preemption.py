"""DefaultPreemption, ported from upstream v1.20 ``default_preemption_test.go`` (and v1.19's).

This file holds TestPostFilter, TestPodEligibleToPreemptOthers,
TestNodesWherePreemptionMightHelp, TestPreempt and ``util``'s MoreImportantPod /
GetEarliestPodStartTime, plus the shared helpers. Victim selection (TestDryRunPreemption /
TestSelectNodesForPreemption) is in ``test_default_preemption_victims.py``, node picking
(TestSelectBestCandidate / TestPickOneNodeForPreemption) in ``..._pick.py``, and nominated
pods in ``..._nominated.py``.

Upstream fixtures are kept: ``smallRes``..``veryLargeRes`` (cpu millicores and memory in
bytes), nodes of ``veryLargeRes`` with 32 pods, priorities -100/0/100/1000/10000. Upstream's
``epochTimeN`` (N nanoseconds after the epoch) become N seconds: manifests carry RFC 3339
seconds, and only the order matters. Pods live in namespace ``default``; victims are
compared by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pytest

from ruleset.api.pod import Pod
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import Plugin
from ruleset.framework.results import FilterResult, NodeStatuses
from ruleset.framework.status import Code, Status
from ruleset.hookspecs import hookimpl
from ruleset.pluginmanager import load_registry
from ruleset.plugins.default_preemption import (
    Candidate,
    DefaultPreemption,
    PreemptionReport,
    earliest_start_of_most_important,
    importance_key,
    nodes_where_preemption_might_help,
    start_time,
)
from ruleset.scheduler import Scheduler, ScheduleResult
from tests.factories import build_cluster, decode, framework_for, make_node, make_pod, registry_with

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}
ONE_POD = {"pods": "1"}

FIT = "NodeResourcesFit"
_REGISTERED = load_registry().classes


def needs(*plugins: str) -> pytest.MarkDecorator:
    """Skip until every named plugin is registered (other plugins land separately)."""
    missing = [p for p in plugins if p not in _REGISTERED]
    return pytest.mark.skipif(bool(missing), reason=f"plugin(s) not registered yet: {', '.join(missing)}")


def epoch(seconds: int) -> str:
    """Upstream's ``epochTimeN`` (here N seconds after the epoch)."""
    return f"1970-01-01T00:00:{seconds:02d}Z"


# ----------------------------------------------------------------- fake plugins
class FakeFilter(Plugin):
    """``st.FakeFilterPlugin``: counts the nodes it filters; every node gets ``code``."""

    name = "FakeFilter"
    args_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {"code": {"type": "integer"}}}

    def __init__(self, args: Any = None, handle: Any = None):
        super().__init__(args, handle)
        self.calls = 0

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: Any) -> FilterResult:
        self.calls += len(nodes)
        code = Code(self.args.get("code", 0))
        if code == Code.SUCCESS:
            return FilterResult.passing(len(nodes))
        return FilterResult.reject(
            np.ones(len(nodes), dtype=bool), code, f"injecting failure for pod {pod.name}"
        )


class TrueFilter(Plugin):
    """``st.TrueFilterPlugin``: every node fits."""

    name = "TrueFilter"

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: Any) -> FilterResult:
        return FilterResult.passing(len(nodes))


class FalseFilter(Plugin):
    """``st.FalseFilterPlugin``: no node fits (Unschedulable)."""

    name = "FalseFilter"

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: Any) -> FilterResult:
        return FilterResult.reject(np.ones(len(nodes), dtype=bool), Code.UNSCHEDULABLE, "injecting failure")


class MatchFilter(Plugin):
    """``st.MatchFilterPlugin``: only the node named like the pod fits."""

    name = "MatchFilter"

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: Any) -> FilterResult:
        names = nodes.snapshot.node_names
        fail = np.array([names[int(i)] != pod.name for i in nodes.indices], dtype=bool)
        return FilterResult.reject(fail, Code.UNSCHEDULABLE, "injecting failure")


REGISTRY = registry_with(FakeFilter, TrueFilter, FalseFilter, MatchFilter)


# ---------------------------------------------------------------------- fixtures
def node(spec: str, capacity: Mapping[str, str] = VERY_LARGE, **kwargs: Any) -> dict:
    """A node named like upstream's ``"name/zone/region"`` specs, labelled hostname/zone/region.

    Capacity sets allocatable as ``st.MakeNode().Capacity`` does (32 pods unless given).
    """
    parts = spec.split("/")
    labels = dict(zip(("hostname", "zone", "region"), parts, strict=False))
    allocatable = {"pods": "32", **capacity}
    return make_node(parts[0], labels, allocatable=allocatable, **kwargs)


def pod(
    name: str,
    node_name: str | None = None,
    priority: int | None = None,
    requests: Mapping | None = None,
    start: int | None = None,
    **kwargs: Any,
) -> dict:
    """``st.MakePod().Name(name).UID(name)...``: a pod, placed when ``node_name`` is given."""
    return make_pod(
        name,
        node_name=node_name,
        priority=priority,
        requests=requests,
        uid=name,
        start_time=epoch(start) if start is not None else None,
        **kwargs,
    )


def pdb(
    selector: Mapping[str, str] | None,
    allowed: int | None = None,
    disrupted: Iterable[str] = (),
    name: str = "pdb",
    namespace: str = "default",
    spec: Mapping[str, Any] | None = None,
) -> dict:
    """A PodDisruptionBudget selecting ``matchLabels``; ``allowed`` is ``status.disruptionsAllowed``."""
    from tests.factories import make_object

    body: dict[str, Any] = dict(spec or {})
    if selector is not None:
        body["selector"] = {"matchLabels": dict(selector)}
    status = None
    if allowed is not None or disrupted:
        status = {
            "disruptionsAllowed": allowed or 0,
            "disruptedPods": {p: "2026-01-01T00:00:00Z" for p in disrupted},
        }
    return make_object(
        "PodDisruptionBudget", name, namespace, api_version="policy/v1beta1", spec=body, status=status
    )


class Preemption:
    """A framework of ``plugins`` + DefaultPreemption over a cluster, with upstream-style entry points."""

    def __init__(
        self, plugins: Sequence[Any], objects: Iterable[dict], args: Mapping[str, Any] | None = None
    ):
        self.state = build_cluster(objects)
        self.snapshot = self.state.snapshot
        self.framework = framework_for([*plugins, ("DefaultPreemption", dict(args or {}))], REGISTRY,
                                       snapshot=self.snapshot)
        self.scheduler = Scheduler(self.framework)
        self.plugin: DefaultPreemption = self.framework.plugins["DefaultPreemption"]  # type: ignore[assignment]

    def pod(self, raw: dict | Pod) -> Pod:
        return raw if isinstance(raw, Pod) else decode(raw, self.state)

    @property
    def filter_calls(self) -> int:
        fake = self.framework.plugins.get("FakeFilter")
        return fake.calls if fake is not None else 0  # type: ignore[attr-defined]

    def pre_filter(self, pod: Pod) -> CycleState:
        """``fwk.RunPreFilterPlugins`` (tests rely on PreFilter state)."""
        state = CycleState()
        status = self.framework.run_pre_filter(state, pod, self.snapshot)
        assert status.is_success, status
        return state

    def dry_run(self, raw: dict | Pod, offset: int = 0) -> list[Candidate]:
        """``dryRunPreemption`` over every node (as the upstream test does), walking from ``offset``."""
        pod = self.pod(raw)
        state = self.pre_filter(pod)
        return self.plugin.dry_run(state, pod, self.snapshot, self.snapshot.evaluation_order, offset)

    def statuses(self, by_node: Mapping[str, Status] | None = None) -> NodeStatuses:
        """A ``NodeToStatusMap``: the given nodes' statuses, Success (a nil status) elsewhere."""
        statuses = NodeStatuses(self.snapshot.num_nodes)
        for name, status in (by_node or {}).items():
            statuses.set_status(self.snapshot.node_index[name], status)
        return statuses

    def post_filter(self, raw: dict | Pod, by_node: Mapping[str, Status] | None = None) -> tuple[Any, Status]:
        """``PostFilter`` with a hand-made status map: (nominated node or None, status)."""
        pod = self.pod(raw)
        result = self.plugin.ruleset_post_filter(self.pre_filter(pod), pod, self.statuses(by_node))
        return result.nominated_node, result.status

    def report(self, raw: dict | Pod, by_node: Mapping[str, Status] | None = None) -> PreemptionReport:
        pod = self.pod(raw)
        return self.plugin.ruleset_post_filter(self.pre_filter(pod), pod, self.statuses(by_node)).details

    def run(self, raw: dict | Pod) -> ScheduleResult:
        """A real scheduling cycle (Filter's statuses feed PostFilter)."""
        return self.scheduler.schedule(self.pod(raw))


def victims(candidate: Candidate) -> list[str]:
    return [v.name for v in candidate.victims]


def summary(candidates: Sequence[Candidate]) -> list[tuple[str, list[str], int]]:
    """``(node, victim names in order, PDB violations)`` per candidate, in the order found."""
    return [(c.node, victims(c), c.pdb_violations) for c in candidates]


# ------------------------------------------------------------- TestPostFilter
POST_FILTER_CASES = [
    pytest.param(
        pod("p", priority=HIGH),
        [pod("p1", "node1")],
        [node("node1", ONE_POD)],
        {"node1": Status(Code.UNSCHEDULABLE)},
        "node1",
        Code.SUCCESS,
        id="pod with higher priority can be made schedulable",
    ),
    pytest.param(
        pod("p"),
        [pod("p1", "node1")],
        [node("node1", ONE_POD)],
        {"node1": Status(Code.UNSCHEDULABLE)},
        None,
        Code.UNSCHEDULABLE,
        id="pod with tied priority is still unschedulable",
    ),
    pytest.param(
        pod("p", priority=HIGH),
        [pod("p1", "node1")],
        [node("node1", ONE_POD)],
        {"node1": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)},
        None,
        Code.UNSCHEDULABLE,
        id="preemption should respect filteredNodesStatuses",
    ),
    pytest.param(
        pod("p", priority=MID),
        [pod("p1", "node1", HIGH), pod("p2", "node2", LOW)],
        [node("node1", ONE_POD), node("node2", ONE_POD)],
        {"node1": Status(Code.UNSCHEDULABLE), "node2": Status(Code.UNSCHEDULABLE)},
        "node2",
        Code.SUCCESS,
        id="pod can be made schedulable on one node",
    ),
    # Dropped: "preemption result filtered out by extenders" (ruleset has no extenders).
]


@pytest.mark.parametrize(("preemptor", "pods", "nodes", "statuses", "nominated", "code"), POST_FILTER_CASES)
def test_post_filter(preemptor, pods, nodes, statuses, nominated, code):
    h = Preemption([FIT], [*nodes, *pods])
    got_node, got_status = h.post_filter(preemptor, statuses)
    assert (got_node, got_status.code) == (nominated, code)


@pytest.mark.parametrize(("preemptor", "pods", "nodes", "statuses", "nominated", "code"), POST_FILTER_CASES)
def test_post_filter_after_a_real_cycle(preemptor, pods, nodes, statuses, nominated, code):
    """The same cases through a real cycle: NodeResourcesFit's "Too many pods" is Unschedulable.

    The hand-made UnschedulableAndUnresolvable status cannot come from NodeResourcesFit, so
    that case preempts on node1 here.
    """
    h = Preemption([FIT], [*nodes, *pods])
    result = h.run(preemptor)
    assert result.node is None
    assert result.message.endswith("Too many pods.")
    post = result.post_filter
    unresolvable = any(s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE for s in statuses.values())
    assert post.nominated_node == ("node1" if unresolvable else nominated)


def test_post_filter_reports_candidates_and_the_choice():
    h = Preemption(
        [FIT],
        [node("node1", ONE_POD), node("node2", ONE_POD), pod("p1", "node1", HIGH), pod("p2", "node2", LOW)],
    )
    report = h.run(pod("p", priority=MID)).post_filter.details
    assert summary(report.candidates) == [("node2", ["p2"], 0)]
    assert (report.chosen.node, report.why, report.clear_nomination) == ("node2", "the only candidate", False)
    assert report.to_json() == {
        "candidates": [{"node": "node2", "victims": ["default/p2"], "pdbViolations": 0}],
        "nominatedNode": "node2",
        "reason": "the only candidate",
    }


def test_post_filter_says_why_nothing_happens():
    h = Preemption([FIT], [node("node1", ONE_POD), pod("p1", "node1", HIGH)])
    report = h.report(pod("p", priority=MID), {"node1": Status(Code.UNSCHEDULABLE)})
    assert (report.candidates, report.chosen, report.clear_nomination) == ([], None, False)
    assert report.why == "no node would fit the pod even with every lower-priority pod removed"
    report = h.report(pod("p", priority=VERY_HIGH), {"node1": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)})
    assert report.why == "preemption will not help: every node is unschedulable and unresolvable for this pod"
    assert report.clear_nomination is True
    report = h.report(
        pod("p", priority=VERY_HIGH, preemption_policy="Never"), {"node1": Status(Code.UNSCHEDULABLE)}
    )
    assert (report.why, report.to_json()["nominatedNode"]) == ("the pod's preemptionPolicy is Never", None)


# ---------------------------------------------------- TestPodEligibleToPreemptOthers
@pytest.mark.parametrize(
    ("preemptor", "pods", "nodes", "nominated_status", "expected"),
    [
        pytest.param(
            pod("p_with_nominated_node", priority=HIGH, nominated_node_name="node1"),
            [pod("p1", "node1", LOW, deletion_timestamp="2026-01-01T00:00:00Z")],
            ["node1"],
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had taints that the pod didn't tolerate",)),
            True,
            id="Pod with nominated node",
        ),
        pytest.param(
            pod("p_without_status", priority=HIGH, nominated_node_name="node1"),
            [pod("p1", "node1", LOW, deletion_timestamp="2026-01-01T00:00:00Z")],
            ["node1"],
            None,
            False,
            id="Pod with nominated node, but without nominated node status",
        ),
        pytest.param(
            pod("p_without_nominated_node", priority=HIGH),
            [],
            [],
            None,
            True,
            id="Pod without nominated node",
        ),
        pytest.param(
            pod("p_with_preempt_never_policy", priority=HIGH, preemption_policy="Never"),
            [],
            [],
            None,
            False,
            id="Pod with 'PreemptNever' preemption policy",
        ),
        # Beyond upstream's table:
        pytest.param(
            pod("p_terminating_peer", priority=HIGH, nominated_node_name="node1"),
            [pod("p1", "node1", HIGH, deletion_timestamp="2026-01-01T00:00:00Z")],
            ["node1"],
            None,
            True,
            id="terminating pod on the nominated node is not lower priority",
        ),
        pytest.param(
            pod("p_gone_node", priority=HIGH, nominated_node_name="gone"),
            [pod("p1", "node1", LOW, deletion_timestamp="2026-01-01T00:00:00Z")],
            ["node1"],
            None,
            True,
            id="nominated node is not in the snapshot",
        ),
        pytest.param(
            pod("p_running_peer", priority=HIGH, nominated_node_name="node1"),
            [pod("p1", "node1", LOW)],
            ["node1"],
            Status(Code.UNSCHEDULABLE),
            True,
            id="lower-priority pod on the nominated node is not terminating",
        ),
    ],
)
def test_pod_eligible_to_preempt_others(preemptor, pods, nodes, nominated_status, expected):
    h = Preemption([FIT], [*(node(n) for n in nodes), *pods])
    p = h.pod(preemptor)
    by_node = {p.nominated_node_name: nominated_status} if nominated_status else {}
    report = PreemptionReport()
    assert DefaultPreemption.eligible(p, h.snapshot, h.statuses(by_node), report) is expected
    if not expected:
        assert report.why in (
            "the pod's preemptionPolicy is Never",
            "waiting for lower-priority pods terminating on its nominated node node1",
        )


# ------------------------------------------------ TestNodesWherePreemptionMightHelp
U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
NODE_AFFINITY = "node(s) didn't match Pod's node affinity"
NODE_NAME = "node(s) didn't match the requested hostname"
TAINTS = "node(s) had taints that the pod didn't tolerate"
LABELS = "node(s) didn't have the requested labels"
AFFINITY_NOT_MATCH = "node(s) didn't match pod affinity/anti-affinity"
AFFINITY_RULES = "node(s) didn't match pod affinity rules"
UNSCHEDULABLE_NODE = "node(s) were unschedulable"
UNKNOWN_CONDITION = "node(s) had unknown conditions"
DISK_CONFLICT = "node(s) had no available disk"
VOLUME_ZONE = "node(s) had no available volume zone"
VOLUME_NODE_CONFLICT = "node(s) had volume node affinity conflict"
VOLUME_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
SPREAD = "node(s) didn't match pod topology spread constraints"
SPREAD_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)"


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        pytest.param(
            {
                "node1": (UU, NODE_AFFINITY),
                "node2": (UU, NODE_NAME),
                "node3": (UU, TAINTS),
                "node4": (UU, LABELS),
            },
            [],
            id="No node should be attempted",
        ),
        pytest.param(
            {"node1": (U, AFFINITY_NOT_MATCH), "node2": (UU, NODE_NAME), "node3": (UU, UNSCHEDULABLE_NODE)},
            ["node1", "node4"],
            id="ErrReasonAffinityNotMatch should be tried",
        ),
        pytest.param(
            {"node1": (U, AFFINITY_NOT_MATCH), "node2": (UU, NODE_NAME)},
            ["node1", "node3", "node4"],
            id="pod with both pod affinity and anti-affinity should be tried",
        ),
        pytest.param(
            {"node1": (UU, AFFINITY_RULES), "node2": (U, AFFINITY_NOT_MATCH)},
            ["node2", "node3", "node4"],
            id="ErrReasonAffinityRulesNotMatch should not be tried, ErrReasonAffinityNotMatch should",
        ),
        pytest.param(
            {"node1": (UU, DISK_CONFLICT), "node2": (U, "Insufficient memory")},
            ["node2", "node3", "node4"],
            id="Mix of failed predicates works fine",
        ),
        pytest.param(
            {"node1": (UU, UNKNOWN_CONDITION)},
            ["node2", "node3", "node4"],
            id="Node condition errors should be considered unresolvable",
        ),
        pytest.param(
            {
                "node1": (UU, VOLUME_ZONE),
                "node2": (UU, VOLUME_NODE_CONFLICT),
                "node3": (UU, VOLUME_BIND_CONFLICT),
            },
            ["node4"],
            id="ErrVolume... errors should not be tried",
        ),
        pytest.param(
            {"node1": (U, SPREAD), "node2": (UU, NODE_NAME), "node3": (U, SPREAD)},
            ["node1", "node3", "node4"],
            id="ErrReasonConstraintsNotMatch should be tried",
        ),
        pytest.param(
            {"node2": (UU, ""), "node3": (U, ""), "node4": (UU, "")},
            ["node1", "node3"],
            id="UnschedulableAndUnresolvable status should be skipped but Unschedulable should be tried",
        ),
        pytest.param(
            {"node2": (UU, SPREAD_LABEL), "node3": (U, ""), "node4": (UU, "")},
            ["node1", "node3"],
            id="ErrReasonNodeLabelNotMatch should not be tried",
        ),
    ],
)
def test_nodes_where_preemption_might_help(statuses, expected):
    h = Preemption([FIT], [node(f"node{i}") for i in range(1, 5)])
    by_node = {name: Status(code, (reason,) if reason else ()) for name, (code, reason) in statuses.items()}
    got = nodes_where_preemption_might_help(h.snapshot, h.statuses(by_node))
    assert [h.snapshot.node_names[int(i)] for i in got] == expected


def test_nodes_where_preemption_might_help_keeps_node_tree_order():
    """Zones round-robin, as ``NodeInfos().List()`` does."""
    nodes = [
        make_node(n, {"topology.kubernetes.io/zone": z})
        for n, z in (("a1", "a"), ("a2", "a"), ("b1", "b"), ("b2", "b"))
    ]
    h = Preemption([FIT], nodes)
    got = nodes_where_preemption_might_help(h.snapshot, h.statuses({"b1": Status(UU)}))
    assert [h.snapshot.node_names[int(i)] for i in got] == ["a1", "a2", "b2"]


# ----------------------------------------------------------------- TestPreempt
THREE_NODES = ["node1", "node2", "node3"]


@pytest.mark.parametrize(
    ("preemptor", "pods", "nodes", "plugins", "expected_node", "expected_victims"),
    [
        pytest.param(
            pod("p", priority=HIGH, requests=VERY_LARGE, preemption_policy="PreemptLowerPriority"),
            [
                pod("p1.1", "node1", LOW, SMALL),
                pod("p1.2", "node1", LOW, SMALL),
                pod("p2.1", "node2", HIGH, LARGE),
                pod("p3.1", "node3", MID, MEDIUM),
            ],
            THREE_NODES,
            [FIT],
            "node1",
            ["p1.1", "p1.2"],
            id="basic preemption logic",
        ),
        pytest.param(
            pod(
                "p",
                labels={"foo": ""},
                priority=HIGH,
                topology_spread_constraints=[
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
                ],
            ),
            [
                pod("p-a1", "node-a", HIGH, labels={"foo": ""}),
                pod("p-a2", "node-a", HIGH, labels={"foo": ""}),
                pod("p-b1", "node-b", LOW, labels={"foo": ""}),
                pod("p-x1", "node-x", HIGH, labels={"foo": ""}),
                pod("p-x2", "node-x", HIGH, labels={"foo": ""}),
            ],
            ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
            ["PodTopologySpread"],
            "node-b",
            ["p-b1"],
            marks=needs("PodTopologySpread"),
            id="preemption for topology spread constraints",
        ),
        # Dropped: the four extender cases (ruleset has no scheduler extenders).
        pytest.param(
            pod("p", priority=HIGH, requests=VERY_LARGE, preemption_policy="Never"),
            [
                pod("p1.1", "node1", LOW, SMALL),
                pod("p1.2", "node1", LOW, SMALL),
                pod("p2.1", "node2", HIGH, LARGE),
                pod("p3.1", "node3", MID, MEDIUM),
            ],
            THREE_NODES,
            [FIT],
            None,
            [],
            id="no preempting in pod",
        ),
        pytest.param(
            pod("p", priority=HIGH, requests=VERY_LARGE),
            [
                pod("p1.1", "node1", LOW, SMALL),
                pod("p1.2", "node1", LOW, SMALL),
                pod("p2.1", "node2", HIGH, LARGE),
                pod("p3.1", "node3", MID, MEDIUM),
            ],
            THREE_NODES,
            [FIT],
            "node1",
            ["p1.1", "p1.2"],
            id="PreemptionPolicy is nil",
        ),
        # v1.19's "One node doesn't need any preemption" expected the empty machine3; in v1.20 a
        # node without lower-priority pods is no candidate, so node1 (the only one) is chosen.
        pytest.param(
            pod("p", priority=HIGH, requests=VERY_LARGE, preemption_policy="PreemptLowerPriority"),
            [
                pod("p1.1", "node1", LOW, SMALL),
                pod("p1.2", "node1", LOW, SMALL),
                pod("p2.1", "node2", HIGH, LARGE),
            ],
            THREE_NODES,
            [FIT],
            "node1",
            ["p1.1", "p1.2"],
            id="v1.19 one node doesn't need any preemption",
        ),
    ],
)
def test_preempt(preemptor, pods, nodes, plugins, expected_node, expected_victims):
    objects = [*(node(n) for n in nodes), *pods]
    h = Preemption(plugins, objects)
    report = h.report(preemptor)  # an empty status map, as upstream's test passes
    assert (report.chosen.node if report.chosen else None) == expected_node
    assert sorted(v.name for v in report.victims) == expected_victims

    # Upstream then marks the victims terminating, sets the pod's nominated node, and calls
    # preempt again: no more preemption while the victims terminate.
    if expected_node is None:
        return
    gone = set(expected_victims)
    marked = [
        dict(o, metadata={**o["metadata"], "deletionTimestamp": "2026-01-01T00:00:00Z"})
        if o["kind"] == "Pod" and o["metadata"]["name"] in gone
        else o
        for o in objects
    ]
    again = Preemption(plugins, marked)
    retried = dict(preemptor, status={**preemptor["status"], "nominatedNodeName": expected_node})
    report = again.report(retried)
    assert (report.chosen, report.victims) == (None, [])
    assert report.why == f"waiting for lower-priority pods terminating on its nominated node {expected_node}"


# ------------------------------------------ util: MoreImportantPod, GetEarliestPodStartTime
def _pods(*specs: tuple[str, int, int | None]) -> list[Pod]:
    return [decode(pod(name, priority=prio, start=start)) for name, prio, start in specs]


def more_important(p1: Pod, p2: Pod) -> bool:
    """``MoreImportantPod`` as the sort key orders it."""
    return importance_key(p1) < importance_key(p2)


def test_more_important_pod():
    pod1, pod2, pod3 = _pods(("pod1", 1, 0), ("pod2", 2, 1), ("pod3", 2, 0))
    assert more_important(pod1, pod2) is False  # Pod with higher priority
    assert more_important(pod2, pod3) is False  # Pod with older created time
    assert more_important(pod3, pod1) is True  # Pods with same start time (priority decides)


def test_more_important_pod_without_start_time_counts_as_now():
    started, unstarted, unstarted2 = _pods(("a", 5, 30), ("b", 5, None), ("c", 5, None))
    assert start_time(unstarted) == float("inf")
    assert more_important(started, unstarted) and not more_important(unstarted, started)
    # Two pods without a start time tie (upstream reads the clock once per pod).
    assert not more_important(unstarted, unstarted2) and not more_important(unstarted2, unstarted)


def test_get_earliest_pod_start_time():
    pods = _pods(("pod1", 1, 1), ("pod2", 2, 1), ("pod3", 2, 0))
    assert earliest_start_of_most_important(pods) == pods[2].start_time
    pods = _pods(("pod1", 2, 0), ("pod2", 2, 1), ("pod3", 2, 2))
    assert earliest_start_of_most_important(pods) == pods[0].start_time


def test_get_earliest_pod_start_time_ignores_lower_priorities_and_missing_times():
    pods = _pods(("low-early", 1, 0), ("high-unstarted", 3, None), ("high-late", 3, 9))
    assert earliest_start_of_most_important(pods) == pods[2].start_time
    pods = _pods(("a", 3, None), ("b", 3, None))
    assert earliest_start_of_most_important(pods) == float("inf")


# ------------------------------------------------------------ args (calculateNumCandidates)
@pytest.mark.parametrize(
    ("args", "nodes", "expected"),
    [
        ({}, 10, 10),
        ({}, 100, 100),
        ({}, 1000, 100),
        ({}, 5000, 500),
        ({"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1}, 5, 2),
        ({"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2}, 5, 2),
        ({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 3}, 5, 3),
        ({"minCandidateNodesPercentage": 100, "minCandidateNodesAbsolute": 0}, 5, 5),
        ({"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 7}, 3, 3),
    ],
)
def test_calculate_num_candidates(args, nodes, expected):
    h = Preemption([FIT], [node("n")], args)
    assert h.plugin.num_candidates(nodes) == expected
