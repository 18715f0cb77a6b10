"""Ported from ``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go`` (v1.20).

* TestNodeUnschedulable: all 3 cases.

Plus ruleset checks: tolerations that do and do not cover the unschedulable taint, and a
mixed set of nodes in one call.
"""

import numpy as np
import pytest

from ruleset.plugins.node_unschedulable import NodeUnschedulable
from ruleset.snapshot import NodeSet
from tests.factories import Harness, build_cluster, decode, make_node, make_pod

SUCCESS = ("Success", ())
CORDONED = ("UnschedulableAndUnresolvable", ("node(s) were unschedulable",))
TAINT_KEY = "node.kubernetes.io/unschedulable"
UNSCHEDULABLE_TOLERATION = {"key": TAINT_KEY, "effect": "NoSchedule"}


@pytest.mark.parametrize(("tolerations", "unschedulable", "expected"), [
    pytest.param([], True, CORDONED,
                 id="Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)"),
    pytest.param([], False, SUCCESS, id="Schedule pod to normal node"),
    pytest.param([UNSCHEDULABLE_TOLERATION], True, SUCCESS,
                 id="Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)"),
])
def test_node_unschedulable(tolerations: list, unschedulable: bool, expected: tuple) -> None:
    h = Harness(["NodeUnschedulable"], [make_node("node", unschedulable=unschedulable)])
    assert h.filter(make_pod(tolerations=tolerations)) == {"node": expected}


@pytest.mark.parametrize(("toleration", "expected"), [
    pytest.param({"operator": "Exists"}, SUCCESS, id="tolerate everything"),
    pytest.param({"key": TAINT_KEY, "operator": "Exists"}, SUCCESS, id="key, any effect"),
    pytest.param({"key": TAINT_KEY, "effect": "NoExecute"}, CORDONED, id="other effect"),
    pytest.param({"key": TAINT_KEY, "value": "x", "effect": "NoSchedule"}, CORDONED,
                 id="Equal with a value the taint does not have"),
    pytest.param({"key": "other", "operator": "Exists"}, CORDONED, id="other key"),
])
def test_tolerations(toleration: dict, expected: tuple) -> None:
    h = Harness(["NodeUnschedulable"], [make_node("node", unschedulable=True)])
    assert h.filter(make_pod(tolerations=[toleration])) == {"node": expected}


def test_mixed_nodes() -> None:
    h = Harness(["NodeUnschedulable"], [make_node(f"n{i}", unschedulable=i % 2 == 1) for i in range(6)])
    assert h.filter(make_pod()) == {f"n{i}": CORDONED if i % 2 else SUCCESS for i in range(6)}


def test_one_instance_over_two_snapshots() -> None:
    # The per-snapshot column must not leak from one snapshot to the next.
    plugin = NodeUnschedulable()
    pod = decode(make_pod())
    first = build_cluster([make_node("a"), make_node("b", unschedulable=True)]).snapshot
    second = build_cluster([make_node("a", unschedulable=True), make_node("b")]).snapshot
    assert plugin.ruleset_filter(pod, first.all_nodes()).codes.tolist() == [0, 3]
    assert plugin.ruleset_filter(pod, second.all_nodes()).codes.tolist() == [3, 0]
    assert plugin.ruleset_filter(pod, NodeSet(first, np.array([1]))).codes.tolist() == [3]
