"""Ported from ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go``.

* TestTaintTolerationScore: the 5 v1.20 cases. The 3 later cases (``Numeric Gt/Lt operator
  ...``, ``Score ignores parse errors ...``) need the Gt/Lt toleration operators, which
  v1.20 does not have, and are dropped.
* TestTaintTolerationFilter: the 9 v1.20 cases, with v1.20's reason text
  ``node(s) had taint {key: value}, that the pod didn't tolerate`` (later versions print
  ``node(s) had untolerated taint(s)``). The 5 later Gt/Lt cases are dropped.
* TestTaintTolerationFilterWithFeatureGate (added after v1.20): the 4 cases run with the
  comparison-operator gate *disabled* are exactly v1.20 behaviour (a Gt/Lt toleration
  tolerates nothing) and are ported with v1.20's reason text; the 2 gate-enabled cases
  describe behaviour v1.20 does not have and are dropped.

Plus ruleset checks of the batch path: several nodes at once, each with its own first
untolerated taint, and NoExecute taints.
"""

from collections.abc import Mapping, Sequence

import pytest

from tests.factories import Harness, make_node, make_pod

UNRESOLVABLE = "UnschedulableAndUnresolvable"


def reason(key: str, value: str) -> str:
    return f"node(s) had taint {{{key}: {value}}}, that the pod didn't tolerate"


def taint(key: str, value: str, effect: str) -> dict:
    return {"key": key, "value": value, "effect": effect}


def tol(key: str, value: str = "", effect: str = "", operator: str | None = None) -> dict:
    out = {"key": key, "value": value, "effect": effect}
    if operator is not None:
        out["operator"] = operator
    return {k: v for k, v in out.items() if v != "" or k == "operator"}


def node_with_taints(name: str, taints: Sequence[Mapping[str, str]]) -> dict:
    return make_node(name, taints=taints)


def pod_with_tolerations(tolerations: Sequence[Mapping[str, str]]) -> dict:
    return make_pod("pod1", tolerations=tolerations)


# ---------------------------------------------------------------------------------------------------
# TestTaintTolerationScore
# ---------------------------------------------------------------------------------------------------

SCORE_CASES = [
    pytest.param(
        pod_with_tolerations([tol("foo", "bar", "PreferNoSchedule", "Equal")]),
        [node_with_taints("nodeA", [taint("foo", "bar", "PreferNoSchedule")]),
         node_with_taints("nodeB", [taint("foo", "blah", "PreferNoSchedule")])],
        {"nodeA": 100, "nodeB": 0},
        id="node with taints tolerated by the pod, gets a higher score than those node with intolerable "
           "taints",
    ),
    pytest.param(
        pod_with_tolerations([tol("cpu-type", "arm64", "PreferNoSchedule", "Equal"),
                              tol("disk-type", "ssd", "PreferNoSchedule", "Equal")]),
        [node_with_taints("nodeA", []),
         node_with_taints("nodeB", [taint("cpu-type", "arm64", "PreferNoSchedule")]),
         node_with_taints("nodeC", [taint("cpu-type", "arm64", "PreferNoSchedule"),
                                    taint("disk-type", "ssd", "PreferNoSchedule")])],
        {"nodeA": 100, "nodeB": 100, "nodeC": 100},
        id="the nodes that all of their taints are tolerated by the pod, get the same score, "
           "no matter how many tolerable taints a node has",
    ),
    pytest.param(
        pod_with_tolerations([tol("foo", "bar", "PreferNoSchedule", "Equal")]),
        [node_with_taints("nodeA", []),
         node_with_taints("nodeB", [taint("cpu-type", "arm64", "PreferNoSchedule")]),
         node_with_taints("nodeC", [taint("cpu-type", "arm64", "PreferNoSchedule"),
                                    taint("disk-type", "ssd", "PreferNoSchedule")])],
        {"nodeA": 100, "nodeB": 50, "nodeC": 0},
        id="the more intolerable taints a node has, the lower score it gets.",
    ),
    pytest.param(
        pod_with_tolerations([tol("cpu-type", "arm64", "NoSchedule", "Equal"),
                              tol("disk-type", "ssd", "NoSchedule", "Equal")]),
        [node_with_taints("nodeA", []),
         node_with_taints("nodeB", [taint("cpu-type", "arm64", "NoSchedule")]),
         node_with_taints("nodeC", [taint("cpu-type", "arm64", "PreferNoSchedule"),
                                    taint("disk-type", "ssd", "PreferNoSchedule")])],
        {"nodeA": 100, "nodeB": 100, "nodeC": 0},
        id="only taints and tolerations that have effect PreferNoSchedule are checked by "
           "taints-tolerations priority function",
    ),
    pytest.param(
        pod_with_tolerations([]),
        [node_with_taints("nodeA", []),
         node_with_taints("nodeB", [taint("cpu-type", "arm64", "PreferNoSchedule")])],
        {"nodeA": 100, "nodeB": 0},
        id="Default behaviour No taints and tolerations, lands on node with no taints",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "expected"), SCORE_CASES)
def test_taint_toleration_score(pod: dict, nodes: list[dict], expected: dict[str, int]) -> None:
    # Upstream calls PreScore, Score and NormalizeScore directly, without Filter.
    h = Harness(["TaintToleration"], nodes, points={"TaintToleration": ["score"]})
    assert h.score(pod) == expected


def test_score_raw_counts_intolerable_prefer_no_schedule_taints() -> None:
    nodes = [node_with_taints("nodeA", []),
             node_with_taints("nodeB", [taint("cpu-type", "arm64", "PreferNoSchedule")]),
             node_with_taints("nodeC", [taint("cpu-type", "arm64", "PreferNoSchedule"),
                                        taint("disk-type", "ssd", "PreferNoSchedule"),
                                        taint("gpu", "", "NoExecute")])]
    h = Harness(["TaintToleration"], nodes, points={"TaintToleration": ["score"]})
    pod = pod_with_tolerations([tol("foo", "bar", "PreferNoSchedule", "Equal")])
    assert h.score(pod, raw=True) == {"nodeA": 0, "nodeB": 1, "nodeC": 2}


def test_score_empty_effect_toleration_counts_for_prefer_no_schedule() -> None:
    # An empty-effect toleration is kept by PreScore; a NoSchedule-only one is not.
    nodes = [node_with_taints("nodeA", [taint("k", "v", "PreferNoSchedule")]),
             node_with_taints("nodeB", [taint("other", "v", "PreferNoSchedule")])]
    h = Harness(["TaintToleration"], nodes, points={"TaintToleration": ["score"]})
    assert h.score(pod_with_tolerations([tol("k", operator="Exists")]), raw=True) == {"nodeA": 0, "nodeB": 1}
    assert h.score(pod_with_tolerations([tol("k", operator="Exists", effect="NoSchedule")]), raw=True) == {
        "nodeA": 1, "nodeB": 1}


# ---------------------------------------------------------------------------------------------------
# TestTaintTolerationFilter (+ the gate-disabled cases of TestTaintTolerationFilterWithFeatureGate)
# ---------------------------------------------------------------------------------------------------

SUCCESS = ("Success", ())

FILTER_CASES = [
    pytest.param(
        pod_with_tolerations([]),
        [taint("dedicated", "user1", "NoSchedule")],
        (UNRESOLVABLE, (reason("dedicated", "user1"),)),
        id="A pod having no tolerations can't be scheduled onto a node with nonempty taints",
    ),
    pytest.param(
        pod_with_tolerations([tol("dedicated", "user1", "NoSchedule")]),
        [taint("dedicated", "user1", "NoSchedule")],
        SUCCESS,
        id="A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
    ),
    pytest.param(
        pod_with_tolerations([tol("dedicated", "user2", "NoSchedule", "Equal")]),
        [taint("dedicated", "user1", "NoSchedule")],
        (UNRESOLVABLE, (reason("dedicated", "user1"),)),
        id="A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
    ),
    pytest.param(
        pod_with_tolerations([tol("foo", effect="NoSchedule", operator="Exists")]),
        [taint("foo", "bar", "NoSchedule")],
        SUCCESS,
        id="A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the "
           "taints on the node",
    ),
    pytest.param(
        pod_with_tolerations([tol("dedicated", "user2", "NoSchedule", "Equal"),
                              tol("foo", effect="NoSchedule", operator="Exists")]),
        [taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")],
        SUCCESS,
        id="A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can "
           "be scheduled onto the node",
    ),
    pytest.param(
        pod_with_tolerations([tol("foo", "bar", "PreferNoSchedule", "Equal")]),
        [taint("foo", "bar", "NoSchedule")],
        (UNRESOLVABLE, (reason("foo", "bar"),)),
        id="A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect "
           "doesn't match, can't be scheduled onto the node",
    ),
    pytest.param(
        pod_with_tolerations([tol("foo", "bar", operator="Equal")]),
        [taint("foo", "bar", "NoSchedule")],
        SUCCESS,
        id="The pod has a toleration that keys and values match the taint on the node, the effect of "
           "toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
    ),
    pytest.param(
        pod_with_tolerations([tol("dedicated", "user2", "NoSchedule", "Equal")]),
        [taint("dedicated", "user1", "PreferNoSchedule")],
        SUCCESS,
        id="The pod has a toleration that key and value don't match the taint on the node, but the effect of "
           "taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
    ),
    pytest.param(
        pod_with_tolerations([]),
        [taint("dedicated", "user1", "PreferNoSchedule")],
        SUCCESS,
        id="The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be "
           "scheduled onto the node",
    ),
    # TestTaintTolerationFilterWithFeatureGate, gate disabled (= v1.20: Gt/Lt tolerate nothing).
    pytest.param(
        pod_with_tolerations([tol("node.kubernetes.io/sla", "750", "NoSchedule", "Gt")]),
        [taint("node.kubernetes.io/sla", "950", "NoSchedule")],
        (UNRESOLVABLE, (reason("node.kubernetes.io/sla", "950"),)),
        id="Pod with Gt toleration cannot be scheduled when feature gate is disabled",
    ),
    pytest.param(
        pod_with_tolerations([tol("node.kubernetes.io/sla", "950", "NoSchedule", "Lt")]),
        [taint("node.kubernetes.io/sla", "800", "NoSchedule")],
        (UNRESOLVABLE, (reason("node.kubernetes.io/sla", "800"),)),
        id="Pod with Lt toleration cannot be scheduled when feature gate is disabled",
    ),
    pytest.param(
        pod_with_tolerations([tol("dedicated", "user1", "NoSchedule", "Equal"),
                              tol("node.kubernetes.io/sla", "750", "NoSchedule", "Gt")]),
        [taint("dedicated", "user1", "NoSchedule")],
        SUCCESS,
        id="Pod with mixed tolerations (Equal and Gt) when feature gate is disabled - only Equal is honored",
    ),
    pytest.param(
        pod_with_tolerations([tol("dedicated", "user1", "NoSchedule", "Equal"),
                              tol("node.kubernetes.io/sla", "750", "NoSchedule", "Gt")]),
        [taint("dedicated", "user1", "NoSchedule"), taint("node.kubernetes.io/sla", "950", "NoSchedule")],
        (UNRESOLVABLE, (reason("node.kubernetes.io/sla", "950"),)),
        id="Pod with mixed tolerations, Gt toleration needed but filtered out when feature gate is disabled",
    ),
]


@pytest.mark.parametrize(("pod", "taints", "expected"), FILTER_CASES)
def test_taint_toleration_filter(pod: dict, taints: list[dict], expected: tuple) -> None:
    h = Harness(["TaintToleration"], [node_with_taints("nodeA", taints)])
    assert h.filter(pod) == {"nodeA": expected}


# ---------------------------------------------------------------------------------------------------
# ruleset: the batch path
# ---------------------------------------------------------------------------------------------------

def test_filter_reports_each_nodes_first_untolerated_taint() -> None:
    nodes = [
        node_with_taints("n0", []),
        node_with_taints("n1", [taint("a", "1", "NoSchedule"), taint("b", "2", "NoExecute")]),
        node_with_taints("n2", [taint("b", "2", "NoExecute"), taint("a", "1", "NoSchedule")]),
        node_with_taints("n3", [taint("a", "1", "PreferNoSchedule"), taint("c", "", "NoExecute")]),
        node_with_taints("n4", [taint("tolerated", "x", "NoSchedule")]),
        node_with_taints("n5", [taint("tolerated", "x", "NoSchedule"), taint("a", "1", "NoSchedule")]),
    ]
    h = Harness(["TaintToleration"], nodes)
    pod = pod_with_tolerations([tol("tolerated", operator="Exists")])
    assert h.filter(pod) == {
        "n0": SUCCESS,
        "n1": (UNRESOLVABLE, (reason("a", "1"),)),
        "n2": (UNRESOLVABLE, (reason("b", "2"),)),
        "n3": (UNRESOLVABLE, (reason("c", ""),)),
        "n4": SUCCESS,
        "n5": (UNRESOLVABLE, (reason("a", "1"),)),
    }
    # Without the two feasible nodes the pod does not fit: the FitError histogram, sorted as strings.
    h = Harness(["TaintToleration"], [n for n in nodes if n["metadata"]["name"] not in ("n0", "n4")])
    assert h.run(pod).message == (
        "0/4 nodes are available: 1 node(s) had taint {b: 2}, that the pod didn't tolerate, "
        "1 node(s) had taint {c: }, that the pod didn't tolerate, "
        "2 node(s) had taint {a: 1}, that the pod didn't tolerate.")


def test_empty_key_exists_tolerates_everything_of_its_effect() -> None:
    nodes = [node_with_taints("n1", [taint("a", "1", "NoSchedule")]),
             node_with_taints("n2", [taint("a", "1", "NoExecute")])]
    h = Harness(["TaintToleration"], nodes)
    assert h.filter(pod_with_tolerations([tol("", effect="NoSchedule", operator="Exists")])) == {
        "n1": SUCCESS, "n2": (UNRESOLVABLE, (reason("a", "1"),))}
    assert h.filter(pod_with_tolerations([tol("", operator="Exists")])) == {"n1": SUCCESS, "n2": SUCCESS}
