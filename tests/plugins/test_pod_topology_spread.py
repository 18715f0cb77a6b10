"""Ported from ``pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go`` (v1.20),
plus preemption and ruleset checks of PodTopologySpread's PreFilter, its AddPod/RemovePod
extensions and Filter.

* TestPreFilterState: all 13 cases. The state is compared as upstream does: the
  constraints (maxSkew, key, selector), ``TpPairToMatchNum`` and ``TpKeyToCriticalPaths``
  with equal-count paths ordered by value (upstream's ``criticalPaths.sort`` comparer).
  Upstream builds Services without namespace for pods without namespace; here both are in
  "default".
* TestPreFilterStateAddPod: all 9 cases. The added pod is put into the snapshot first, as
  ruleset's hook contract says (upstream's snapshot does not hold it; the plugin reads
  only the node's labels either way).
* TestPreFilterStateRemovePod: all 5 cases ("delete a non-existing pod won't help" calls
  the hook for a pod the snapshot never held).
* TestSingleConstraint: all 11 cases; TestMultipleConstraints: all 7 cases. Upstream
  checks codes only; the reasons are checked too.
* TestPreFilterDisabled: 1 case (Filter without PreFilter state is an Error with
  upstream's message).
* BenchmarkFilter: not ported (a benchmark; see the timing test in the score file).

Scoring is in ``test_pod_topology_spread_score.py``, args in ``test_pod_topology_spread_args.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ruleset.framework.cycle_state import CycleState
from ruleset.framework.status import Code
from ruleset.plugins.podtopologyspread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    MAX_INT32,
    PRE_FILTER_STATE_KEY,
    PodTopologySpread,
    PreFilterState,
    build_critical_paths,
    new_critical_paths,
    update_critical_paths,
)
from ruleset.snapshot import NodeSet
from tests.factories import Harness, decode, make_node, make_object, make_pod

DNS = "DoNotSchedule"
SA = "ScheduleAnyway"
SUCCESS = ("Success", ())
UNSCHED = ("Unschedulable", (ERR_REASON_CONSTRAINTS_NOT_MATCH,))
UNRESOLVABLE = ("UnschedulableAndUnresolvable", (ERR_REASON_NODE_LABEL_NOT_MATCH,))


# ---------------------------------------------------------------------------------------------------
# Builders in the spirit of upstream's st.MakePod() / st.MakeNode()
# ---------------------------------------------------------------------------------------------------

def exists(key: str) -> dict:
    return {"matchExpressions": [{"key": key, "operator": "Exists"}]}


def label(key: str, value: str) -> dict:
    return {"matchLabels": {key: value}}


def spread(max_skew: int, key: str, action: str, selector: dict | None) -> dict:
    out: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": action}
    if selector is not None:
        out["labelSelector"] = selector
    return out


def node(name: str, **labels: str) -> dict:
    return make_node(name, labels)


def zone_node(name: str, zone: str) -> dict:
    """``st.MakeNode().Name(name).Label("zone", zone).Label("node", name)``."""
    return make_node(name, {"zone": zone, "node": name})


def pod(name: str, on: str | None = None, *, ns: str = "default", labels: tuple[str, ...] = ("foo",),
        constraints: tuple[dict, ...] = (), terminating: bool = False, **extra: Any) -> dict:
    """A pod whose labels are the given keys with empty values (upstream's ``.Label(k, "")``)."""
    return make_pod(name, ns, {k: "" for k in labels}, node_name=on, topology_spread_constraints=constraints,
                    deletion_timestamp="2020-01-01T00:00:00Z" if terminating else None, **extra)


def node_affinity(key: str, operator: str, values: list[str]) -> dict:
    """``st.MakePod().NodeAffinityIn/NotIn(key, values)``."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": key, "operator": operator, "values": values}]}]}}}


FOUR_ZONE_NODES = [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"),
                   zone_node("node-x", "zone2"), zone_node("node-y", "zone2")]


def plugin_of(h: Harness) -> PodTopologySpread:
    plugin = h.framework.plugins["PodTopologySpread"]
    assert isinstance(plugin, PodTopologySpread)
    return plugin


def pre_filter(h: Harness, raw_pod: dict) -> tuple[CycleState, PreFilterState]:
    state = CycleState()
    status = plugin_of(h).ruleset_pre_filter(state, decode(raw_pod, h.state), h.snapshot)
    assert status is None
    return state, state.read(PRE_FILTER_STATE_KEY)


def sorted_paths(paths: tuple[tuple[str, int], tuple[str, int]]) -> tuple[tuple[str, int], tuple[str, int]]:
    """Upstream's ``criticalPaths.sort``: equal counts compare with their values in order."""
    (v0, n0), (v1, n1) = paths
    if n0 == n1 and v0 > v1:
        v0, v1 = v1, v0
    return (v0, n0), (v1, n1)


def summary(state: PreFilterState) -> dict[str, Any]:
    return {
        "constraints": [(c.max_skew, c.topology_key, str(c.selector)) for c in state.constraints],
        "paths": {k: sorted_paths(v) for k, v in state.critical_paths().items()},
        "pairs": state.pair_counts(),
    }


def want(constraints: list[tuple[int, str, str]], paths: dict[str, tuple],
         pairs: dict[tuple[str, str], int]) -> dict:
    return {"constraints": constraints, "paths": paths, "pairs": pairs}


NEW_PATHS = (("", MAX_INT32), ("", MAX_INT32))
EMPTY = want([], {}, {})


# ---------------------------------------------------------------------------------------------------
# TestPreFilterState
# ---------------------------------------------------------------------------------------------------

PRE_FILTER_STATE_CASES = [
    pytest.param(
        pod("p", constraints=(spread(5, "zone", DNS, label("foo", "bar")),)),
        FOUR_ZONE_NODES, [], [], None,
        want([(5, "zone", "foo=bar")], {"zone": (("zone1", 0), ("zone2", 0))},
             {("zone", "zone1"): 0, ("zone", "zone2"): 0}),
        id="clean cluster with one spreadConstraint"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)),
        FOUR_ZONE_NODES,
        [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-b1", "node-b"), pod("p-y1", "node-y"),
         pod("p-y2", "node-y")], [], None,
        want([(1, "zone", "foo")], {"zone": (("zone2", 2), ("zone1", 3))},
             {("zone", "zone1"): 3, ("zone", "zone2"): 2}),
        id="normal case with one spreadConstraint"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)),
        [*FOUR_ZONE_NODES, zone_node("node-o", "zone3"), zone_node("node-p", "zone3")],
        [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-b1", "node-b"), pod("p-y1", "node-y"),
         pod("p-y2", "node-y")], [], None,
        want([(1, "zone", "foo")], {"zone": (("zone3", 0), ("zone2", 2))},
             {("zone", "zone1"): 3, ("zone", "zone2"): 2, ("zone", "zone3"): 0}),
        id="normal case with one spreadConstraint, on a 3-zone cluster"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)),
        FOUR_ZONE_NODES,
        [pod("p-a1", "node-a"), pod("p-a2", "node-a", ns="ns1"), pod("p-b1", "node-b"),
         pod("p-y1", "node-y", ns="ns2"), pod("p-y2", "node-y")], [], None,
        want([(1, "zone", "foo")], {"zone": (("zone2", 1), ("zone1", 2))},
             {("zone", "zone1"): 2, ("zone", "zone2"): 1}),
        id="namespace mismatch doesn't count"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")), spread(1, "node", DNS, exists("foo")))),
        FOUR_ZONE_NODES,
        [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-b1", "node-b"), pod("p-y1", "node-y"),
         pod("p-y2", "node-y"), pod("p-y3", "node-y"), pod("p-y4", "node-y")], [], None,
        want([(1, "zone", "foo"), (1, "node", "foo")],
             {"zone": (("zone1", 3), ("zone2", 4)), "node": (("node-x", 0), ("node-b", 1))},
             {("zone", "zone1"): 3, ("zone", "zone2"): 4, ("node", "node-a"): 2, ("node", "node-b"): 1,
              ("node", "node-x"): 0, ("node", "node-y"): 4}),
        id="normal case with two spreadConstraints"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", SA, exists("foo")), spread(1, "zone", DNS, exists("foo")),
                              spread(1, "node", SA, exists("foo")), spread(1, "node", DNS, exists("foo")))),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-y", "zone2")],
        [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-b1", "node-b"), pod("p-y1", "node-y"),
         pod("p-y2", "node-y"), pod("p-y3", "node-y"), pod("p-y4", "node-y")], [], None,
        want([(1, "zone", "foo"), (1, "node", "foo")],
             {"zone": (("zone1", 3), ("zone2", 4)), "node": (("node-b", 1), ("node-a", 2))},
             {("zone", "zone1"): 3, ("zone", "zone2"): 4, ("node", "node-a"): 2, ("node", "node-b"): 1,
              ("node", "node-y"): 4}),
        id="soft spreadConstraints should be bypassed"),
    pytest.param(
        pod("p", labels=("foo", "bar"),
            constraints=(spread(1, "zone", DNS, exists("foo")), spread(1, "node", DNS, exists("bar")))),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-y", "zone2")],
        [pod("p-a", "node-a"), pod("p-b", "node-b", labels=("bar",))], [], None,
        want([(1, "zone", "foo"), (1, "node", "bar")],
             {"zone": (("zone2", 0), ("zone1", 1)), "node": (("node-a", 0), ("node-y", 0))},
             {("zone", "zone1"): 1, ("zone", "zone2"): 0, ("node", "node-a"): 0, ("node", "node-b"): 1,
              ("node", "node-y"): 0}),
        id="different labelSelectors - simple version"),
    pytest.param(
        pod("p", labels=("foo", "bar"),
            constraints=(spread(1, "zone", DNS, exists("foo")), spread(1, "node", DNS, exists("bar")))),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-y", "zone2")],
        [pod("p-a1", "node-a"), pod("p-a2", "node-a", labels=("foo", "bar")), pod("p-b1", "node-b"),
         pod("p-y1", "node-y"), pod("p-y2", "node-y", labels=("foo", "bar")), pod("p-y3", "node-y"),
         pod("p-y4", "node-y", labels=("foo", "bar"))], [], None,
        want([(1, "zone", "foo"), (1, "node", "bar")],
             {"zone": (("zone1", 3), ("zone2", 4)), "node": (("node-b", 0), ("node-a", 1))},
             {("zone", "zone1"): 3, ("zone", "zone2"): 4, ("node", "node-a"): 1, ("node", "node-b"): 0,
              ("node", "node-y"): 2}),
        id="different labelSelectors - complex pods"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")), spread(1, "node", DNS, exists("foo"))),
            affinity=node_affinity("node", "NotIn", ["node-x"])),
        FOUR_ZONE_NODES,
        [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-b1", "node-b"), pod("p-y1", "node-y"),
         pod("p-y2", "node-y"), pod("p-y3", "node-y"), pod("p-y4", "node-y")], [], None,
        want([(1, "zone", "foo"), (1, "node", "foo")],
             {"zone": (("zone1", 3), ("zone2", 4)), "node": (("node-b", 1), ("node-a", 2))},
             {("zone", "zone1"): 3, ("zone", "zone2"): 4, ("node", "node-a"): 2, ("node", "node-b"): 1,
              ("node", "node-y"): 4}),
        id="two spreadConstraints, and with podAffinity"),
    pytest.param(
        make_pod("p", labels={"foo": "bar", "baz": "kar"}), [], [],
        [make_object("Service", "svc", spec={"selector": {"foo": "bar"}})],
        {"defaultConstraints": [spread(3, "node", DNS, None), spread(2, "node", SA, None),
                                spread(5, "rack", DNS, None)]},
        want([(3, "node", "foo=bar"), (5, "rack", "foo=bar")], {"node": NEW_PATHS, "rack": NEW_PATHS}, {}),
        id="default constraints and a service"),
    pytest.param(
        make_pod("p", labels={"foo": "bar"}), [], [],
        [make_object("Service", "svc", spec={"selector": {"baz": "kep"}})],
        {"defaultConstraints": [spread(3, "node", DNS, None)]},
        EMPTY,
        id="default constraints and a service that doesn't match"),
    pytest.param(
        make_pod("p", labels={"foo": "bar", "baz": "tar"},
                 topology_spread_constraints=[spread(1, "zone", DNS, label("baz", "tar")),
                                              spread(2, "planet", SA, label("fot", "rok"))]),
        [], [], [make_object("Service", "svc", spec={"selector": {"foo": "bar"}})],
        {"defaultConstraints": [spread(2, "node", DNS, None)]},
        want([(1, "zone", "baz=tar")], {"zone": NEW_PATHS}, {}),
        id="default constraints and a service, but pod has constraints"),
    pytest.param(
        make_pod("p", labels={"foo": "bar"}), [], [],
        [make_object("Service", "svc", spec={"selector": {"foo": "bar"}})],
        {"defaultConstraints": [spread(2, "node", SA, None)]},
        EMPTY,
        id="default soft constraints and a service"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "objects", "args", "expected"),
                         PRE_FILTER_STATE_CASES)
def test_pre_filter_state(incoming: dict, nodes: list, existing: list, objects: list, args: dict | None,
                          expected: dict) -> None:
    h = Harness([("PodTopologySpread", args or {})], [*nodes, *existing, *objects])
    _, state = pre_filter(h, incoming)
    assert summary(state) == expected


# ---------------------------------------------------------------------------------------------------
# TestPreFilterStateAddPod / TestPreFilterStateRemovePod
# ---------------------------------------------------------------------------------------------------

NODE_FOO = (1, "node", "foo")
ZONE_FOO = (1, "zone", "foo")
ONE_NODE_SPREAD = (spread(1, "node", DNS, exists("foo")),)
ZONE_NODE_SPREAD = (spread(1, "zone", DNS, exists("foo")), spread(1, "node", DNS, exists("foo")))
ZONE_FOO_NODE_BAR = (spread(1, "zone", DNS, exists("foo")), spread(1, "node", DNS, exists("bar")))
AB = [zone_node("node-a", "zone1"), zone_node("node-b", "zone1")]
AX = [zone_node("node-a", "zone1"), zone_node("node-x", "zone2")]
ABX = [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-x", "zone2")]

ADD_POD_CASES = [
    pytest.param(
        pod("p", constraints=ONE_NODE_SPREAD), pod("p-a1", "node-a"), [], 0, AB,
        want([NODE_FOO],
             {"node": (("node-b", 0), ("node-a", 1))},
             {("node", "node-a"): 1, ("node", "node-b"): 0}),
        id="node a and b both impact current min match"),
    pytest.param(
        pod("p", constraints=ONE_NODE_SPREAD), pod("p-a1", "node-a"), [pod("p-b1", "node-b")], 0, AB,
        want([NODE_FOO],
             {"node": (("node-a", 1), ("node-b", 1))},
             {("node", "node-a"): 1, ("node", "node-b"): 1}),
        id="only node a impacts current min match"),
    pytest.param(
        pod("p", constraints=ONE_NODE_SPREAD), pod("p-a1", "node-a", ns="ns1"),
        [pod("p-b1", "node-b")], 0, AB,
        want([NODE_FOO],
             {"node": (("node-a", 0), ("node-b", 1))},
             {("node", "node-a"): 0, ("node", "node-b"): 1}),
        id="add a pod in a different namespace doesn't change topologyKeyToMinPodsMap"),
    pytest.param(
        pod("p", constraints=ONE_NODE_SPREAD), pod("p-b2", "node-b"), [pod("p-b1", "node-b")], 1, AB,
        want([NODE_FOO],
             {"node": (("node-a", 0), ("node-b", 2))},
             {("node", "node-a"): 0, ("node", "node-b"): 2}),
        id="add pod on non-critical node won't trigger re-calculation"),
    pytest.param(
        pod("p", constraints=ZONE_NODE_SPREAD), pod("p-a1", "node-a"), [], 0, AX,
        want([ZONE_FOO, NODE_FOO],
             {"zone": (("zone2", 0), ("zone1", 1)), "node": (("node-x", 0), ("node-a", 1))},
             {("zone", "zone1"): 1, ("zone", "zone2"): 0, ("node", "node-a"): 1, ("node", "node-x"): 0}),
        id="node a and x both impact topologyKeyToMinPodsMap on zone and node"),
    pytest.param(
        pod("p", constraints=ZONE_NODE_SPREAD), pod("p-a1", "node-a"), [pod("p-x1", "node-x")], 0, AX,
        want([ZONE_FOO, NODE_FOO],
             {"zone": (("zone1", 1), ("zone2", 1)), "node": (("node-a", 1), ("node-x", 1))},
             {("zone", "zone1"): 1, ("zone", "zone2"): 1, ("node", "node-a"): 1, ("node", "node-x"): 1}),
        id="only node a impacts topologyKeyToMinPodsMap on zone and node"),
    pytest.param(
        pod("p", constraints=ZONE_NODE_SPREAD), pod("p-a1", "node-a"),
        [pod("p-b1", "node-b"), pod("p-b2", "node-b"), pod("p-x1", "node-x")], 0, ABX,
        want([ZONE_FOO, NODE_FOO],
             {"zone": (("zone2", 1), ("zone1", 3)), "node": (("node-a", 1), ("node-x", 1))},
             {("zone", "zone1"): 3, ("zone", "zone2"): 1, ("node", "node-a"): 1, ("node", "node-b"): 2,
              ("node", "node-x"): 1}),
        id="node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap on zone"),
    pytest.param(
        pod("p", labels=("foo", "bar"), constraints=ZONE_FOO_NODE_BAR), pod("p-a1", "node-a"),
        [pod("p-b1", "node-b", labels=("foo", "bar")), pod("p-x1", "node-x", labels=("foo", "bar")),
         pod("p-x2", "node-x", labels=("bar",))], 0, ABX,
        want([ZONE_FOO, (1, "node", "bar")],
             {"zone": (("zone2", 1), ("zone1", 2)), "node": (("node-a", 0), ("node-b", 1))},
             {("zone", "zone1"): 2, ("zone", "zone2"): 1, ("node", "node-a"): 0, ("node", "node-b"): 1,
              ("node", "node-x"): 2}),
        id="Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone"),
    pytest.param(
        pod("p", labels=("foo", "bar"), constraints=ZONE_FOO_NODE_BAR),
        pod("p-a1", "node-a", labels=("foo", "bar")),
        [pod("p-b1", "node-b", labels=("bar",)), pod("p-x1", "node-x", labels=("foo", "bar")),
         pod("p-x2", "node-x", labels=("bar",))], 0, ABX,
        want([ZONE_FOO, (1, "node", "bar")],
             {"zone": (("zone1", 1), ("zone2", 1)), "node": (("node-a", 1), ("node-b", 1))},
             {("zone", "zone1"): 1, ("zone", "zone2"): 1, ("node", "node-a"): 1, ("node", "node-b"): 1,
              ("node", "node-x"): 2}),
        id="Constraints hold different labelSelectors, "
           "node a impacts topologyKeyToMinPodsMap on both zone and node"),
]


@pytest.mark.parametrize(("preemptor", "added", "existing", "node_index", "nodes", "expected"), ADD_POD_CASES)
def test_pre_filter_state_add_pod(preemptor: dict, added: dict, existing: list, node_index: int, nodes: list,
                                  expected: dict) -> None:
    h = Harness(["PodTopologySpread"], [*nodes, *existing])
    preemptor_pod = decode(preemptor, h.state)
    state, _ = pre_filter(h, preemptor)
    added_pod = decode(added, h.state)
    with h.snapshot.what_if():
        h.snapshot.add_pod(added_pod, node_index)
        status = h.framework.run_pre_filter_add_pod(state, preemptor_pod,
                                                      added_pod, node_index, h.snapshot)
    assert status.is_success
    assert summary(state.read(PRE_FILTER_STATE_KEY)) == expected


def _pod_named(h: Harness, index: int, name: str):
    return next(p for p in h.snapshot.pods_on(index) if p.name == name)


REMOVE_POD_CASES = [
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)), ABX,
        [pod("p-a1", "node-a"), pod("p-b1", "node-b"), pod("p-x1", "node-x")], "p-a1", None, 0,
        want([ZONE_FOO],
             {"zone": (("zone1", 1), ("zone2", 1))},
             {("zone", "zone1"): 1, ("zone", "zone2"): 1}),
        id="one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)), FOUR_ZONE_NODES,
        [pod("p-a1", "node-a"), pod("p-b1", "node-b"), pod("p-x1", "node-x"), pod("p-y1", "node-y")],
        "p-a1", None, 0,
        want([ZONE_FOO],
             {"zone": (("zone1", 1), ("zone2", 2))},
             {("zone", "zone1"): 1, ("zone", "zone2"): 2}),
        id="one spreadConstraint on node, topologyKeyToMinPodsMap changed"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)), FOUR_ZONE_NODES,
        [pod("p-a0", "node-a", labels=("bar",)), pod("p-a1", "node-a"), pod("p-b1", "node-b"),
         pod("p-x1", "node-x"), pod("p-y1", "node-y")], "p-a0", None, 0,
        want([ZONE_FOO],
             {"zone": (("zone1", 2), ("zone2", 2))},
             {("zone", "zone1"): 2, ("zone", "zone2"): 2}),
        id="delete an irrelevant pod won't help"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)), FOUR_ZONE_NODES,
        [pod("p-a1", "node-a"), pod("p-b1", "node-b"), pod("p-x1", "node-x"), pod("p-y1", "node-y")],
        None, pod("p-a0", "node-a", labels=("bar",)), 0,
        want([ZONE_FOO],
             {"zone": (("zone1", 2), ("zone2", 2))},
             {("zone", "zone1"): 2, ("zone", "zone2"): 2}),
        id="delete a non-existing pod won't help"),
    pytest.param(
        pod("p", constraints=ZONE_NODE_SPREAD), ABX,
        [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-b1", "node-b"), pod("p-x1", "node-x"),
         pod("p-x2", "node-x")], "p-x1", None, 2,
        want([ZONE_FOO, NODE_FOO],
             {"zone": (("zone2", 1), ("zone1", 3)), "node": (("node-b", 1), ("node-x", 1))},
             {("zone", "zone1"): 3, ("zone", "zone2"): 1, ("node", "node-a"): 2, ("node", "node-b"): 1,
              ("node", "node-x"): 1}),
        id="two spreadConstraints"),
]


@pytest.mark.parametrize(
    ("preemptor", "nodes", "existing", "deleted_name", "deleted_pod", "node_index", "expected"),
    REMOVE_POD_CASES)
def test_pre_filter_state_remove_pod(preemptor: dict, nodes: list, existing: list, deleted_name: str | None,
                                     deleted_pod: dict | None, node_index: int, expected: dict) -> None:
    h = Harness(["PodTopologySpread"], [*nodes, *existing])
    preemptor_pod = decode(preemptor, h.state)
    state, _ = pre_filter(h, preemptor)
    with h.snapshot.what_if():
        if deleted_name is not None:
            removed = _pod_named(h, node_index, deleted_name)
            h.snapshot.remove_pod(removed)
        else:
            assert deleted_pod is not None
            removed = decode(deleted_pod, h.state)  # never in the snapshot
        status = h.framework.run_pre_filter_remove_pod(state, preemptor_pod,
                                                      removed, node_index, h.snapshot)
    assert status.is_success
    assert summary(state.read(PRE_FILTER_STATE_KEY)) == expected


# ---------------------------------------------------------------------------------------------------
# TestSingleConstraint / TestMultipleConstraints
# ---------------------------------------------------------------------------------------------------

SPREAD_2_1_0_3 = [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-b1", "node-b"), pod("p-y1", "node-y"),
                  pod("p-y2", "node-y"), pod("p-y3", "node-y")]

SINGLE_CONSTRAINT_CASES = [
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)), FOUR_ZONE_NODES, [],
        {"node-a": SUCCESS, "node-b": SUCCESS, "node-x": SUCCESS, "node-y": SUCCESS},
        id="no existing pods"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("bar")),)), FOUR_ZONE_NODES, [],
        {"node-a": SUCCESS, "node-b": SUCCESS, "node-x": SUCCESS, "node-y": SUCCESS},
        id="no existing pods, incoming pod doesn't match itself"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)), FOUR_ZONE_NODES,
        [pod("p-a1", "node-a", ns="ns1"), pod("p-b1", "node-a", ns="ns2"), pod("p-x1", "node-x"),
         pod("p-y1", "node-y")],
        {"node-a": SUCCESS, "node-b": SUCCESS, "node-x": UNSCHED, "node-y": UNSCHED},
        id="existing pods in a different namespace do not count"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)), FOUR_ZONE_NODES,
        SPREAD_2_1_0_3,
        {"node-a": SUCCESS, "node-b": SUCCESS, "node-x": SUCCESS, "node-y": SUCCESS},
        id="pods spread across zones as 3/3, all nodes fit"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),)),
        [zone_node("node-a", "zone1"), node("node-b", zon="zone1", node="node-b"),
         zone_node("node-x", "zone2"), zone_node("node-y", "zone2")],
        [pod("p-a1", "node-a"), pod("p-b1", "node-b"), pod("p-x1", "node-x"), pod("p-y1", "node-y")],
        {"node-a": SUCCESS, "node-b": UNRESOLVABLE, "node-x": UNSCHED, "node-y": UNSCHED},
        id="pods spread across zones as 1/2 due to absence of label 'zone' on node-b"),
    pytest.param(
        pod("p", constraints=(spread(1, "rack", DNS, exists("foo")),)),
        [zone_node("node-a", "zone1"), zone_node("node-x", "zone2")], [],
        {"node-a": UNRESOLVABLE, "node-x": UNRESOLVABLE},
        id="pod cannot be scheduled as all nodes don't have label 'rack'"),
    pytest.param(
        pod("p", constraints=(spread(1, "node", DNS, exists("foo")),)), FOUR_ZONE_NODES, SPREAD_2_1_0_3,
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": SUCCESS, "node-y": UNSCHED},
        id="pods spread across nodes as 2/1/0/3, only node-x fits"),
    pytest.param(
        pod("p", constraints=(spread(2, "node", DNS, exists("foo")),)), FOUR_ZONE_NODES, SPREAD_2_1_0_3,
        {"node-a": UNSCHED, "node-b": SUCCESS, "node-x": SUCCESS, "node-y": UNSCHED},
        id="pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit"),
    pytest.param(
        pod("p", labels=("bar",), constraints=(spread(1, "node", DNS, exists("foo")),)), FOUR_ZONE_NODES,
        SPREAD_2_1_0_3,
        {"node-a": UNSCHED, "node-b": SUCCESS, "node-x": SUCCESS, "node-y": UNSCHED},
        id="pods spread across nodes as 2/1/0/3, but pod doesn't match itself"),
    pytest.param(
        pod("p", constraints=(spread(1, "node", DNS, exists("foo")),),
            affinity=node_affinity("node", "In", ["node-a", "node-y"])),
        FOUR_ZONE_NODES, SPREAD_2_1_0_3,
        # NodeAffinity does not run here, so node-b and node-x pass this filter.
        {"node-a": SUCCESS, "node-b": SUCCESS, "node-x": SUCCESS, "node-y": UNSCHED},
        id="incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits"),
    pytest.param(
        pod("p", constraints=(spread(1, "node", DNS, exists("foo")),)),
        [node("node-a", node="node-a"), node("node-b", node="node-b")],
        [pod("p-a", "node-a", terminating=True), pod("p-b", "node-b")],
        {"node-a": SUCCESS, "node-b": UNSCHED},
        id="terminating Pods should be excluded"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "expected"), SINGLE_CONSTRAINT_CASES)
def test_single_constraint(incoming: dict, nodes: list, existing: list, expected: dict) -> None:
    assert Harness(["PodTopologySpread"], [*nodes, *existing]).filter(incoming) == expected


MULTIPLE_CONSTRAINTS_CASES = [
    pytest.param(
        pod("p", constraints=ZONE_NODE_SPREAD), FOUR_ZONE_NODES, SPREAD_2_1_0_3,
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": SUCCESS, "node-y": UNSCHED},
        id="two Constraints on zone and node, spreads = [3/3, 2/1/0/3]"),
    pytest.param(
        pod("p", constraints=ZONE_NODE_SPREAD), FOUR_ZONE_NODES, [*SPREAD_2_1_0_3, pod("p-y4", "node-y")],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": UNSCHED, "node-y": UNSCHED},
        id="two Constraints on zone and node, spreads = [3/4, 2/1/0/4]"),
    pytest.param(
        pod("p", labels=("foo", "bar"), constraints=ZONE_FOO_NODE_BAR), FOUR_ZONE_NODES,
        [pod("p-a1", "node-a"), pod("p-y1", "node-y", labels=("bar",))],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": SUCCESS, "node-y": UNSCHED},
        id="Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]"),
    pytest.param(
        pod("p", labels=("foo", "bar"), constraints=ZONE_FOO_NODE_BAR), FOUR_ZONE_NODES,
        [pod("p-a1", "node-a"), pod("p-x1", "node-x", labels=("bar",)),
         pod("p-y1", "node-y", labels=("bar",))],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": UNSCHED, "node-y": UNSCHED},
        id="Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]"),
    pytest.param(
        pod("p", labels=("foo", "bar"), constraints=ZONE_FOO_NODE_BAR), FOUR_ZONE_NODES,
        [pod("p-a1", "node-a"), pod("p-a2", "node-a", labels=("foo", "bar")), pod("p-y1", "node-y"),
         pod("p-y2", "node-y", labels=("foo", "bar")), pod("p-y3", "node-y")],
        {"node-a": UNSCHED, "node-b": SUCCESS, "node-x": UNSCHED, "node-y": UNSCHED},
        id="Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]"),
    pytest.param(
        pod("p", labels=("bar",), constraints=ZONE_FOO_NODE_BAR), FOUR_ZONE_NODES,
        [pod("p-a1", "node-a"), pod("p-x1", "node-x", labels=("bar",)),
         pod("p-y1", "node-y", labels=("bar",))],
        {"node-a": SUCCESS, "node-b": SUCCESS, "node-x": UNSCHED, "node-y": UNSCHED},
        id="Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint"),
    pytest.param(
        pod("p", constraints=ZONE_NODE_SPREAD),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), node("node-x", zone="zone2"),
         zone_node("node-y", "zone2")],
        [pod("p-a1", "node-a"), pod("p-y3", "node-y")],
        {"node-a": UNSCHED, "node-b": SUCCESS, "node-x": UNRESOLVABLE, "node-y": UNSCHED},
        id="two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "expected"), MULTIPLE_CONSTRAINTS_CASES)
def test_multiple_constraints(incoming: dict, nodes: list, existing: list, expected: dict) -> None:
    assert Harness(["PodTopologySpread"], [*nodes, *existing]).filter(incoming) == expected


def test_pre_filter_disabled() -> None:
    h = Harness(["PodTopologySpread"], [make_node("node")])
    result = plugin_of(h).ruleset_filter(CycleState(), decode(make_pod("p"), h.state), h.snapshot.all_nodes())
    assert result is not None
    status = result.status(0)
    assert status.code == Code.ERROR
    assert status.reasons == ('reading "PreFilterPodTopologySpread" from cycleState: not found',)


# ---------------------------------------------------------------------------------------------------
# Preemption: the dry run removes victims through RemovePod
# ---------------------------------------------------------------------------------------------------

def test_preemption_evicts_the_lower_priority_pod_that_breaks_the_spread() -> None:
    # zone1 = {node-a, node-d}, zone2 = {node-b}. Matching pods: node-d 2 (priority 1000),
    # node-b 1 (priority 0). Zone counts 2/1 (min 1), node counts 0/2/1 (min 0):
    #   node-a: zone 2+1-1 = 2 > 1; node-d: zone 2 > 1; node-b: zone 1 ok, node 1+1-0 = 2 > 1.
    # Only node-b has a lower-priority pod; removing it (RemovePod) gives zone 0+1-0 and
    # node 0+1-0, so the pod fits, and adding it back breaks it again: it is the victim.
    constraints = (spread(1, "zone", DNS, exists("foo")), spread(1, "node", DNS, exists("foo")))
    objects = [zone_node("node-a", "zone1"), zone_node("node-d", "zone1"), zone_node("node-b", "zone2"),
               pod("high-1", "node-d", priority=1000), pod("high-2", "node-d", priority=1000),
               pod("low", "node-b", priority=0)]
    h = Harness(["PodTopologySpread", "DefaultPreemption"], objects)
    result = h.run(pod("preemptor", constraints=constraints, priority=100))
    assert not result.scheduled
    assert result.message == ("0/3 nodes are available: "
                              "3 node(s) didn't match pod topology spread constraints.")
    assert result.post_filter is not None
    assert result.post_filter.nominated_node == "node-b"
    report = result.post_filter.details
    assert [c.node for c in report.candidates] == ["node-b"]
    assert [v.name for v in report.chosen.victims] == ["low"]


def test_preemption_does_not_help_when_the_victim_does_not_match_the_selector() -> None:
    # The same cluster, but the low-priority pod on node-b is not a "foo" pod: removing it
    # changes no count, so no node becomes feasible.
    constraints = (spread(1, "zone", DNS, exists("foo")), spread(1, "node", DNS, exists("foo")))
    objects = [zone_node("node-a", "zone1"), zone_node("node-d", "zone1"), zone_node("node-b", "zone2"),
               pod("high-1", "node-d", priority=1000), pod("high-2", "node-d", priority=1000),
               pod("match", "node-b", priority=1000), pod("low", "node-b", labels=("bar",), priority=0)]
    h = Harness(["PodTopologySpread", "DefaultPreemption"], objects)
    result = h.run(pod("preemptor", constraints=constraints, priority=100))
    assert result.post_filter is not None
    assert result.post_filter.nominated_node is None
    assert result.post_filter.details.candidates == []


# ---------------------------------------------------------------------------------------------------
# ruleset checks
# ---------------------------------------------------------------------------------------------------

def test_v1_20_counts_pods_on_nodes_the_pod_affinity_excludes() -> None:
    # node-b is excluded by the pod's node affinity, but it is in zone1, whose pair exists
    # (node-a): v1.20 counts its two pods into zone1 (v1.24 stopped doing so), so node-a
    # is 2+1-0 = 3 > 1 while node-x (zone2, nothing) fits.
    nodes = [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-x", "zone2")]
    h = Harness(["PodTopologySpread"], [*nodes, pod("p-b1", "node-b"), pod("p-b2", "node-b")])
    incoming = pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),),
                   affinity=node_affinity("node", "In", ["node-a", "node-x"]))
    _, state = pre_filter(h, incoming)
    assert state.pair_counts() == {("zone", "zone1"): 2, ("zone", "zone2"): 0}
    assert h.filter(incoming) == {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": SUCCESS}


def test_node_selector_limits_the_pairs_too() -> None:
    nodes = [make_node("node-a", {"zone": "zone1", "disk": "ssd"}), make_node("node-x", {"zone": "zone2"})]
    h = Harness(["PodTopologySpread"], [*nodes, pod("p-x1", "node-x")])
    incoming = pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),), node_selector={"disk": "ssd"})
    _, state = pre_filter(h, incoming)
    # zone2 is no pair (node-x lacks disk=ssd), so its pod is not counted and the minimum is zone1's 0.
    assert state.pair_counts() == {("zone", "zone1"): 0}
    assert sorted_paths(state.critical_paths()["zone"]) == (("zone1", 0), ("", MAX_INT32))
    # Filter reads a missing pair as 0 matching pods: node-x passes (0+1-0) despite its pod.
    assert h.filter(incoming) == {"node-a": SUCCESS, "node-x": SUCCESS}


def test_clone_is_independent_of_the_original() -> None:
    h = Harness(["PodTopologySpread"], [*AB, pod("p-b1", "node-b")])
    preemptor = pod("p", constraints=ONE_NODE_SPREAD)
    state, original = pre_filter(h, preemptor)
    copy = state.clone()
    added = decode(pod("p-a1", "node-a"), h.state)
    status = h.framework.run_pre_filter_add_pod(copy,
                                                  decode(preemptor, h.state), added, 0, h.snapshot)
    assert status.is_success
    assert copy.read(PRE_FILTER_STATE_KEY).pair_counts() == {("node", "node-a"): 1, ("node", "node-b"): 1}
    assert original.pair_counts() == {("node", "node-a"): 0, ("node", "node-b"): 1}
    assert original.critical_paths()["node"] == (("node-a", 0), ("node-b", 1))


def test_critical_paths_keep_upstreams_approximation_after_updates() -> None:
    # Three nodes with one matching pod each. Paths are built visiting values in order
    # (node-a, node-b), so after adding a pod to node-a and then to node-b the paths hold
    # node-b and node-a at 2 and forget node-c at 1: the "[2]criticalPath" caveat of
    # upstream, which a Go map order could also produce. node-a then passes (2+1-2 <= 1).
    nodes = [zone_node(n, "zone1") for n in ("node-a", "node-b", "node-c")]
    existing = [pod("pa", "node-a"), pod("pb", "node-b"), pod("pc", "node-c")]
    h = Harness(["PodTopologySpread"], [*nodes, *existing])
    preemptor_raw = pod("p", constraints=ONE_NODE_SPREAD)
    preemptor = decode(preemptor_raw, h.state)
    state, current = pre_filter(h, preemptor_raw)
    assert current.critical_paths()["node"] == (("node-a", 1), ("node-b", 1))
    for index in (0, 1):
        extra = decode(pod(f"extra-{index}", h.snapshot.node_names[index]), h.state)
        status = h.framework.run_pre_filter_add_pod(state, preemptor, extra,
                                                      index, h.snapshot)
        assert status.is_success
    assert current.critical_paths()["node"] == (("node-b", 2), ("node-a", 2))
    result = plugin_of(h).ruleset_filter(state, preemptor, h.snapshot.all_nodes())
    assert result is None  # every node passes with the (approximate) minimum 2


def test_add_pod_on_a_node_without_a_pair_is_ignored() -> None:
    # node-x is excluded by the pod's affinity and is the only node of zone2, so no zone2
    # pair exists. v1.20 dereferences a nil counter here (kubernetes#110726); ruleset
    # leaves the state unchanged, as upstream does since the fix.
    nodes = [zone_node("node-a", "zone1"), zone_node("node-x", "zone2")]
    h = Harness(["PodTopologySpread"], nodes)
    preemptor_raw = pod("p", constraints=(spread(1, "zone", DNS, exists("foo")),),
                        affinity=node_affinity("node", "In", ["node-a"]))
    state, current = pre_filter(h, preemptor_raw)
    added = decode(pod("x1", "node-x"), h.state)
    status = h.framework.run_pre_filter_add_pod(state,
                                                  decode(preemptor_raw, h.state), added, 1, h.snapshot)
    assert status.is_success
    assert current.pair_counts() == {("zone", "zone1"): 0}


def test_add_pod_without_pre_filter_state_is_an_error() -> None:
    h = Harness(["PodTopologySpread"], AB)
    status = h.framework.run_pre_filter_add_pod(CycleState(),
                                                  decode(pod("p"), h.state), decode(pod("q"), h.state), 0,
                                                  h.snapshot)
    assert status.code == Code.ERROR
    assert status.reasons == ('running ruleset_pre_filter_add_pod of plugin "PodTopologySpread": '
                              'reading "PreFilterPodTopologySpread" from cycleState: not found',)


def test_invalid_pod_selector_fails_pre_filter_with_upstreams_message() -> None:
    h = Harness(["PodTopologySpread"], AB)
    bad = {"matchExpressions": [{"key": "foo", "operator": "In", "values": []}]}
    result = h.run(pod("p", constraints=(spread(1, "node", DNS, bad),)))
    assert result.status.code == Code.ERROR
    assert result.message == ("running PreFilter plugin \"PodTopologySpread\": obtaining pod's hard topology "
                              "spread constraints: for 'in', 'notin' operators, values set can't be empty")


def test_first_failing_constraint_decides_the_reason() -> None:
    # node-b (zone1, no "rack") holds two matching pods, counted into zone1 because node-a
    # makes that pair exist: zone counts 2/0. Upstream returns at the first failing
    # constraint, so node-b is Unschedulable when the zone constraint comes first and
    # UnschedulableAndUnresolvable (missing "rack") when the rack constraint does.
    nodes = [make_node("node-a", {"zone": "zone1", "rack": "r1"}), make_node("node-b", {"zone": "zone1"}),
             make_node("node-c", {"zone": "zone2", "rack": "r2"})]
    h = Harness(["PodTopologySpread"], [*nodes, pod("p-b1", "node-b"), pod("p-b2", "node-b")])
    zone, rack = spread(1, "zone", DNS, exists("foo")), spread(1, "rack", DNS, exists("foo"))
    assert h.filter(pod("p", constraints=(zone, rack))) == {"node-a": UNSCHED, "node-b": UNSCHED,
                                                            "node-c": SUCCESS}
    assert h.filter(pod("p", constraints=(rack, zone))) == {"node-a": UNSCHED, "node-b": UNRESOLVABLE,
                                                            "node-c": SUCCESS}


def test_filter_is_vectorised_and_chunk_independent() -> None:
    # Many nodes over three zones; the result of one batch equals node-by-node evaluation.
    nodes = [make_node(f"n{i}", {"zone": f"z{i % 3}", "node": f"n{i}"}) for i in range(30)]
    pods = [pod(f"p{i}", f"n{i % 7}") for i in range(20)]
    h = Harness(["PodTopologySpread"], [*nodes, *pods])
    incoming_raw = pod("p", constraints=ZONE_NODE_SPREAD)
    incoming = decode(incoming_raw, h.state)
    state, _ = pre_filter(h, incoming_raw)
    plugin = plugin_of(h)
    batch = plugin.ruleset_filter(state, incoming, h.snapshot.all_nodes())
    assert batch is not None
    for i in range(30):
        single = plugin.ruleset_filter(state, incoming, NodeSet(h.snapshot, np.array([i])))
        got = single.status(0) if single is not None else None
        assert (got.code if got else Code.SUCCESS) == batch.status(i).code
    # Pods per node: n0..n5 3, n6 2, the rest 0 (min 0); zones z0 (n0, n3, n6) 8, z1 6, z2 6
    # (min 6). So z0 nodes break the zone constraint and n0..n6 the node constraint.
    expected = {f"n{i}": SUCCESS if i % 3 != 0 and i >= 7 else UNSCHED for i in range(30)}
    assert h.filter(incoming_raw) == expected


@pytest.mark.parametrize("seed", range(20))
def test_vectorised_critical_paths_equal_upstreams_loop_in_value_order(seed: int) -> None:
    # build_critical_paths must give what criticalPaths.update gives when called for every
    # pair in ascending value order, "" values (which hit the empty initial slot) included.
    rng = np.random.default_rng(seed)
    values = sorted({"", *(f"v{int(i)}" for i in rng.integers(0, 40, size=int(rng.integers(1, 12))))},
                    key=lambda _: rng.random())
    counts = rng.integers(0, 4, size=len(values)).astype(np.int64)
    exists = rng.random(len(values)) < 0.8
    rank = np.empty(len(values), dtype=np.int64)
    rank[sorted(range(len(values)), key=values.__getitem__)] = np.arange(len(values))
    expected = new_critical_paths()
    for code in sorted(np.flatnonzero(exists), key=values.__getitem__):
        update_critical_paths(expected, values[code], int(counts[code]))
    assert build_critical_paths(values, exists, counts, rank) == expected
