"""Ported from ``pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go`` (v1.20),
plus ruleset checks of PodTopologySpread's PreScore, Score and NormalizeScore.

* TestPreScoreStateEmptyNodes: all 6 cases (including "system defaults constraints and a
  replica set"): constraints (maxSkew, key, selector), ignored nodes,
  ``TopologyPairToPodCounts`` and the topology weights, compared bit for bit with
  ``topologyNormalizingWeight``. Upstream's ReplicaSets and pods carry no namespace; here
  both are in "default".
* TestPodTopologySpreadScore: all 15 cases, normalized scores. "failedNodes" are in the
  snapshot but not scored: those cases run PreScore/Score/NormalizeScore through the
  framework on the candidate nodes only, the others run the whole cycle.
* BenchmarkTestPodTopologySpreadScore, BenchmarkTestDefaultEvenPodsSpreadPriority: not
  ported (benchmarks).

The v1.20 file has no other test functions (``TestPodTopologySpreadScore_Normalize...`` do
not exist before later releases).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from ruleset.framework.cycle_state import CycleState
from ruleset.plugins.podtopologyspread import (
    PRE_SCORE_STATE_KEY,
    PodTopologySpread,
    PreScoreState,
)
from ruleset.plugins.podtopologyspread.helpers import go_log, topology_normalizing_weight
from ruleset.snapshot import NodeSet
from tests.factories import Harness, decode, make_node, make_object, make_pod

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
DNS = "DoNotSchedule"
SA = "ScheduleAnyway"
W = topology_normalizing_weight


def exists(key: str) -> dict:
    return {"matchExpressions": [{"key": key, "operator": "Exists"}]}


def label(key: str, value: str) -> dict:
    return {"matchLabels": {key: value}}


def spread(max_skew: int, key: str, action: str, selector: dict | None = None) -> dict:
    out: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": action}
    if selector is not None:
        out["labelSelector"] = selector
    return out


def host_node(name: str, **extra: str) -> dict:
    return make_node(name, {HOST: name, **extra})


def pod(name: str, on: str | None = None, *, ns: str = "default", labels: tuple[str, ...] = ("foo",),
        constraints: tuple[dict, ...] = (), terminating: bool = False, **extra: Any) -> dict:
    return make_pod(name, ns, {k: "" for k in labels}, node_name=on, topology_spread_constraints=constraints,
                    deletion_timestamp="2020-01-01T00:00:00Z" if terminating else None, **extra)


def replica_set(selector: dict, name: str = "rs") -> dict:
    return make_object("ReplicaSet", name, api_version="apps/v1", spec={"selector": selector})


def names(nodes: list[dict]) -> list[str]:
    return [n["metadata"]["name"] for n in nodes]


def plugin_of(h: Harness) -> PodTopologySpread:
    plugin = h.framework.plugins["PodTopologySpread"]
    assert isinstance(plugin, PodTopologySpread)
    return plugin


def pre_score(h: Harness, raw_pod: dict, node_names: list[str]) -> PreScoreState:
    state = CycleState()
    nodes = NodeSet(h.snapshot, np.array([h.snapshot.node_index[n] for n in node_names], dtype=np.intp))
    assert plugin_of(h).ruleset_pre_score(state, decode(raw_pod, h.state), nodes) is None
    return state.read(PRE_SCORE_STATE_KEY)


def score_on(h: Harness, raw_pod: dict, node_names: list[str], *, raw: bool = False) -> dict[str, int]:
    """PreScore, Score and NormalizeScore through the framework, on ``node_names`` only."""
    incoming = decode(raw_pod, h.state)
    state = CycleState()
    nodes = NodeSet(h.snapshot, np.array([h.snapshot.node_index[n] for n in node_names], dtype=np.intp))
    assert h.framework.run_pre_score(state, incoming, nodes).is_success
    table, status = h.framework.run_score(state, incoming, nodes)
    assert status.is_success and table is not None
    values = table.raw[0] if raw else table.normalized[0]
    return {name: int(v) for name, v in zip(node_names, values, strict=True)}


# ---------------------------------------------------------------------------------------------------
# TestPreScoreStateEmptyNodes
# ---------------------------------------------------------------------------------------------------

def state_summary(h: Harness, state: PreScoreState) -> dict[str, Any]:
    return {
        "constraints": [(c.max_skew, c.topology_key, str(c.selector)) for c in state.constraints],
        "ignored": {h.snapshot.node_names[i] for i in np.flatnonzero(state.ignored)},
        "pairs": state.topology_pair_counts(),
        "weights": list(state.weights),
    }


PRE_SCORE_CASES = [
    pytest.param(
        pod("p", constraints=(spread(1, "zone", SA, exists("foo")), spread(1, HOST, SA, exists("foo")))),
        [host_node("node-a", zone="zone1"), host_node("node-b", zone="zone1"),
         host_node("node-x", zone="zone2")],
        [], {"defaultingType": "List"},
        {"constraints": [(1, "zone", "foo"), (1, HOST, "foo")], "ignored": set(),
         "pairs": {("zone", "zone1"): 0, ("zone", "zone2"): 0}, "weights": [W(2), W(3)]},
        id="normal case"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", SA, exists("foo")), spread(1, HOST, SA, exists("bar")))),
        [host_node("node-a", zone="zone1"), host_node("node-b", zone="zone1"), host_node("node-x")],
        [], {"defaultingType": "List"},
        {"constraints": [(1, "zone", "foo"), (1, HOST, "bar")], "ignored": {"node-x"},
         "pairs": {("zone", "zone1"): 0}, "weights": [W(1), W(2)]},
        id="node-x doesn't have label zone"),
    pytest.param(
        make_pod("p", labels={"foo": "tar", "baz": "sup"}),
        [make_node("node-a", {HOST: "node-a", ZONE: "mars"})],
        [replica_set(exists("foo"))], {"defaultingType": "System"},
        {"constraints": [(3, HOST, "foo"), (5, ZONE, "foo")], "ignored": set(),
         "pairs": {(ZONE, "mars"): 0}, "weights": [W(1), W(1)]},
        id="system defaults constraints and a replica set"),
    pytest.param(
        make_pod("p", labels={"foo": "tar", "baz": "sup"}),
        [make_node("node-a", {"rack": "rack1", HOST: "node-a", "planet": "mars"})],
        [replica_set(exists("foo"))],
        {"defaultConstraints": [spread(1, HOST, SA), spread(2, "rack", DNS), spread(2, "planet", SA)],
         "defaultingType": "List"},
        {"constraints": [(1, HOST, "foo"), (2, "planet", "foo")], "ignored": set(),
         "pairs": {("planet", "mars"): 0}, "weights": [W(1), W(1)]},
        id="defaults constraints and a replica set"),
    pytest.param(
        make_pod("p", labels={"foo": "bar", "baz": "sup"}),
        [make_node("node-a", {"planet": "mars"})],
        [replica_set(exists("tar"))],
        {"defaultConstraints": [spread(2, "planet", SA)], "defaultingType": "List"},
        {"constraints": [], "ignored": set(), "pairs": {}, "weights": []},
        id="defaults constraints and a replica set that doesn't match"),
    pytest.param(
        make_pod("p", labels={"foo": "bar", "baz": "sup"},
                 topology_spread_constraints=[spread(1, "zone", DNS, label("foo", "bar")),
                                              spread(2, "planet", SA, label("baz", "sup"))]),
        [make_node("node-a", {"planet": "mars", "galaxy": "andromeda"})],
        [replica_set(exists("foo"))],
        {"defaultConstraints": [spread(2, "galaxy", SA)], "defaultingType": "List"},
        {"constraints": [(2, "planet", "baz=sup")], "ignored": set(),
         "pairs": {("planet", "mars"): 0}, "weights": [W(1)]},
        id="defaults constraints and a replica set, but pod has constraints"),
]


@pytest.mark.parametrize(("incoming", "nodes", "objects", "args", "expected"), PRE_SCORE_CASES)
def test_pre_score_state_empty_nodes(incoming: dict, nodes: list, objects: list, args: dict,
                                     expected: dict) -> None:
    h = Harness([("PodTopologySpread", args)], [*nodes, *objects])
    assert state_summary(h, pre_score(h, incoming, names(nodes))) == expected


# ---------------------------------------------------------------------------------------------------
# TestPodTopologySpreadScore
# ---------------------------------------------------------------------------------------------------

ON_NODE_1 = (spread(1, HOST, SA, exists("foo")),)
ZONE_AND_NODE = (spread(1, "zone", SA, exists("foo")), spread(1, HOST, SA, exists("foo")))
ZONE_FOO_NODE_BAR = (spread(1, "zone", SA, exists("foo")), spread(1, HOST, SA, exists("bar")))
ABCD = [host_node(n) for n in ("node-a", "node-b", "node-c", "node-d")]
SPREAD_2_1_0_3 = [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-b1", "node-b"), pod("p-d1", "node-d"),
                  pod("p-d2", "node-d"), pod("p-d3", "node-d")]
SPREAD_4_2_1_3 = [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-a3", "node-a"), pod("p-a4", "node-a"),
                  pod("p-b1", "node-b"), pod("p-b2", "node-b"), pod("p-x1", "node-x"), pod("p-y1", "node-y"),
                  pod("p-y2", "node-y"), pod("p-y3", "node-y")]
ZONED = {n: host_node(n, zone=z) for n, z in (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"),
                                                ("node-y", "zone2"))}
DIFFERENT_SELECTOR_PODS = [pod("p-a1", "node-a"), pod("p-b1", "node-b", labels=("foo", "bar")),
                           pod("p-y1", "node-y"), pod("p-y2", "node-y", labels=("bar",))]

SCORE_CASES = [
    pytest.param(
        pod("p", constraints=ON_NODE_1), [], [host_node("node-a"), host_node("node-b")], [],
        {"node-a": 100, "node-b": 100},
        id="one constraint on node, no existing pods"),
    pytest.param(
        pod("p", constraints=ON_NODE_1),
        [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-b1", "node-b")],
        [host_node("node-a")], [host_node("node-b")],
        {"node-a": 100},
        id="one constraint on node, only one node is candidate"),
    pytest.param(
        pod("p", constraints=ON_NODE_1), [pod("p-a1", "node-a"), pod("p-b1", "node-b")],
        [host_node("node-a"), host_node("node-b")], [],
        {"node-a": 100, "node-b": 100},
        id="one constraint on node, all nodes have the same number of matching pods"),
    pytest.param(
        pod("p", constraints=ON_NODE_1), SPREAD_2_1_0_3, ABCD, [],
        {"node-a": 40, "node-b": 80, "node-c": 100, "node-d": 0},
        id="one constraint on node, all 4 nodes are candidates"),
    pytest.param(
        pod("p", constraints=(spread(2, HOST, SA, exists("foo")),)), SPREAD_2_1_0_3, ABCD, [],
        {"node-a": 50, "node-b": 83, "node-c": 100, "node-d": 16},
        id="one constraint on node, all 4 nodes are candidates, maxSkew=2"),
    pytest.param(
        pod("p", constraints=(spread(3, HOST, SA, exists("foo")),)),
        [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-a3", "node-a"), pod("p-a4", "node-a"),
         pod("p-b1", "node-b"), pod("p-b2", "node-b"), pod("p-b3", "node-b"), pod("p-c1", "node-c"),
         pod("p-c2", "node-c"), pod("p-d1", "node-d")],
        ABCD, [],
        {"node-a": 33, "node-b": 55, "node-c": 77, "node-d": 100},
        id="one constraint on node, all 4 nodes are candidates, maxSkew=3"),
    pytest.param(
        pod("p", constraints=ON_NODE_1), SPREAD_4_2_1_3,
        [host_node("node-a"), host_node("node-b"), host_node("node-x")], [host_node("node-y")],
        {"node-a": 16, "node-b": 66, "node-x": 100},
        id="one constraint on node, 3 out of 4 nodes are candidates"),
    pytest.param(
        pod("p", constraints=ON_NODE_1), SPREAD_4_2_1_3,
        [host_node("node-a"), make_node("node-b", {"n": "node-b"}), host_node("node-x")],
        [host_node("node-y")],
        {"node-a": 20, "node-b": 0, "node-x": 100},
        id="one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key"),
    pytest.param(
        pod("p", constraints=(spread(1, "zone", SA, exists("foo")),)), SPREAD_4_2_1_3,
        [ZONED["node-a"], ZONED["node-b"], ZONED["node-x"]], [ZONED["node-y"]],
        {"node-a": 62, "node-b": 62, "node-x": 100},
        id="one constraint on zone, 3 out of 4 nodes are candidates"),
    pytest.param(
        pod("p", constraints=ZONE_AND_NODE),
        [pod("p-a1", "node-a"), pod("p-a2", "node-a"), pod("p-b1", "node-b"), pod("p-x1", "node-x"),
         pod("p-x2", "node-x"), pod("p-y1", "node-y"), pod("p-y2", "node-y"), pod("p-y3", "node-y"),
         pod("p-y4", "node-y")],
        [ZONED["node-a"], ZONED["node-x"]], [ZONED["node-b"], ZONED["node-y"]],
        {"node-a": 100, "node-x": 54},
        id="two Constraints on zone and node, 2 out of 4 nodes are candidates"),
    pytest.param(
        pod("p", labels=("foo", "bar"), constraints=ZONE_FOO_NODE_BAR), DIFFERENT_SELECTOR_PODS,
        list(ZONED.values()), [],
        {"node-a": 75, "node-b": 25, "node-x": 100, "node-y": 50},
        id="two Constraints on zone and node, with different labelSelectors"),
    pytest.param(
        pod("p", labels=("foo", "bar"), constraints=ZONE_FOO_NODE_BAR),
        [pod("p-b1", "node-b", labels=("bar",)), pod("p-x1", "node-x"),
         pod("p-y1", "node-y", labels=("foo", "bar"))],
        list(ZONED.values()), [],
        {"node-a": 100, "node-b": 75, "node-x": 50, "node-y": 0},
        id="two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods"),
    pytest.param(
        pod("p", labels=("foo", "bar"), constraints=ZONE_FOO_NODE_BAR), DIFFERENT_SELECTOR_PODS,
        [ZONED["node-a"], ZONED["node-b"], ZONED["node-x"]], [ZONED["node-y"]],
        {"node-a": 75, "node-b": 25, "node-x": 100},
        id="two Constraints on zone and node, with different labelSelectors, "
           "3 out of 4 nodes are candidates"),
    pytest.param(
        pod("p", constraints=ON_NODE_1),
        [pod("p-a1", "node-a", ns="ns1"), pod("p-a2", "node-a"), pod("p-b1", "node-b"),
         pod("p-b2", "node-b")],
        [host_node("node-a"), host_node("node-b")], [],
        {"node-a": 100, "node-b": 50},
        id="existing pods in a different namespace do not count"),
    pytest.param(
        pod("p", constraints=ON_NODE_1), [pod("p-a", "node-a", terminating=True), pod("p-b", "node-b")],
        [host_node("node-a"), host_node("node-b")], [],
        {"node-a": 100, "node-b": 0},
        id="terminating Pods should be excluded"),
]


@pytest.mark.parametrize(("incoming", "existing", "nodes", "failed", "expected"), SCORE_CASES)
def test_pod_topology_spread_score(incoming: dict, existing: list, nodes: list, failed: list,
                                   expected: dict) -> None:
    h = Harness(["PodTopologySpread"], [*nodes, *failed, *existing])
    got = score_on(h, incoming, names(nodes)) if failed else h.score(incoming)
    assert got == expected


# ---------------------------------------------------------------------------------------------------
# ruleset checks
# ---------------------------------------------------------------------------------------------------

def test_system_defaulting_spreads_a_replica_sets_pods() -> None:
    # Pods of a ReplicaSet (app=web): n1 2, n2 0 (zone z1), n3 1 (zone z2). System defaults:
    # hostname maxSkew 3 (size 3 -> log 5), zone maxSkew 5 (size 2 -> log 4):
    #   n1 = 2·log5 + 2 + 2·log4 + 4 = 11.99 -> 11;  n2 = 0 + 2 + 2·log4 + 4 = 8.77 -> 8;
    #   n3 = 1·log5 + 2 + 1·log4 + 4 = 8.99 -> 8.  Normalized 100·(11+8-s)/11: 72, 100, 100.
    nodes = [make_node(n, {HOST: n, ZONE: z}) for n, z in (("n1", "z1"), ("n2", "z1"), ("n3", "z2"))]
    web = {"app": "web"}
    pods = [make_pod(f"w{i}", labels=web, node_name=n) for i, n in enumerate(("n1", "n1", "n3"))]
    objects = [*nodes, *pods, make_pod("other", labels={"app": "db"}, node_name="n2"),
               replica_set({"matchLabels": web})]
    h = Harness(["PodTopologySpread"], objects)
    incoming = make_pod("new", labels=web)
    assert h.score(incoming, raw=True) == {"n1": 11, "n2": 8, "n3": 8}
    assert h.score(incoming) == {"n1": 72, "n2": 100, "n3": 100}


def test_no_constraints_and_no_workload_scores_100_everywhere() -> None:
    h = Harness(["PodTopologySpread"], [host_node("a"), host_node("b"), pod("x", "a")])
    assert h.score(make_pod("p", labels={"foo": ""})) == {"a": 100, "b": 100}


def test_list_defaulting_with_a_service() -> None:
    # defaultConstraints on "rack"; the Service selecting app=web is the selector.
    nodes = [make_node(name, {"rack": name[:2]}) for name in ("r1a", "r1b", "r2a")]
    pods = [make_pod("w1", labels={"app": "web"}, node_name="r1a"),
            make_pod("w2", labels={"app": "web"}, node_name="r1b")]
    service = make_object("Service", "web", spec={"selector": {"app": "web"}})
    args = {"defaultConstraints": [spread(1, "rack", SA)]}
    h = Harness([("PodTopologySpread", args)], [*nodes, *pods, service])
    # rack sizes 2 -> log 4; r1 has 2 pods: 2·log4 = 2.77 -> 2; r2: 0.
    assert h.score(make_pod("new", labels={"app": "web"}), raw=True) == {"r1a": 2, "r1b": 2, "r2a": 0}
    assert h.score(make_pod("new", labels={"app": "web"})) == {"r1a": 0, "r1b": 0, "r2a": 100}


def test_pre_score_counts_only_nodes_matching_the_pod_node_affinity() -> None:
    # Unlike Filter's PreFilter, PreScore adds up pods only on nodes that match the pod's
    # node affinity: node-b's three pods do not count for zone1. zone1 0, zone2 1 (log 4):
    # node-a 0, node-x 1 -> 100 and 0. (With node-b counted it would be 25 and 100.)
    nodes = [ZONED["node-a"], ZONED["node-b"], ZONED["node-x"]]
    pods = [pod("b1", "node-b"), pod("b2", "node-b"), pod("b3", "node-b"), pod("x1", "node-x")]
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": HOST, "operator": "In", "values": ["node-a", "node-x"]}]}]}}}
    h = Harness(["NodeAffinity", "PodTopologySpread"], [*nodes, *pods])
    incoming = pod("p", constraints=(spread(1, "zone", SA, exists("foo")),), affinity=affinity)
    assert h.score(incoming, "PodTopologySpread") == {"node-a": 100, "node-x": 0}


def test_all_nodes_ignored_score_zero() -> None:
    h = Harness(["PodTopologySpread"], [make_node("a"), make_node("b")])
    assert h.score(pod("p", constraints=(spread(1, "zone", SA, exists("foo")),))) == {"a": 0, "b": 0}


def test_score_without_pre_score_state_is_an_error() -> None:
    h = Harness(["PodTopologySpread"], [host_node("a")])
    message = 'error reading "PreScorePodTopologySpread" from cycleState: not found'
    with pytest.raises(LookupError, match=message):
        plugin_of(h).ruleset_score(CycleState(), decode(pod("p"), h.state), h.snapshot.all_nodes())


def test_hostname_counts_use_the_node_itself_not_the_label_value() -> None:
    # Two nodes share the hostname label value "h": hostname counts are per node, not per pair.
    nodes = [make_node("a", {HOST: "h"}), make_node("b", {HOST: "h"})]
    h = Harness(["PodTopologySpread"], [*nodes, pod("a1", "a"), pod("a2", "a")])
    # size 2 -> log 4: a = 2·1.386 = 2.77 -> 2, b = 0.
    assert h.score(pod("p", constraints=ON_NODE_1), raw=True) == {"a": 2, "b": 0}


def test_go_log_is_gos_math_log_not_the_c_librarys() -> None:
    # math.Log as printed by Go (go1.19, linux/amd64): %v and the IEEE bits.
    assert go_log(3.0) == 1.0986122886681096 == float.fromhex("0x1.193ea7aad030ap+0")
    assert go_log(14.0) == 2.639057329615259
    assert go_log(48.0) == 3.8712010109078907
    assert go_log(5002.0) == 8.517593111437565
    assert math.log(3.0) != go_log(3.0)  # glibc rounds ln 3 the other way
    assert W(1) == go_log(3.0)
