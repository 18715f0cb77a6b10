"""Ported from ``pkg/scheduler/framework/plugins/nodename/node_name_test.go`` (v1.20).

* TestNodeName: all 3 cases. Upstream's first case uses a Node without a name; a snapshot
  node always has one, so it is named "foo" here (the pod names no host, so any name fits).

Plus ruleset checks: a pod naming a node that is not in the snapshot, and many nodes at once.
"""

import pytest

from tests.factories import Harness, make_node, make_pod

SUCCESS = ("Success", ())
MISMATCH = ("UnschedulableAndUnresolvable", ("node(s) didn't match the requested hostname",))


@pytest.mark.parametrize(("node_name", "expected"), [
    pytest.param(None, SUCCESS, id="no host specified"),
    pytest.param("foo", SUCCESS, id="host matches"),
    pytest.param("bar", MISMATCH, id="host doesn't match"),
])
def test_node_name(node_name: str | None, expected: tuple) -> None:
    h = Harness(["NodeName"], [make_node("foo")])
    assert h.filter(make_pod(node_name=node_name)) == {"foo": expected}


def test_unknown_node_name_rejects_every_node() -> None:
    h = Harness(["NodeName"], [make_node("foo"), make_node("bar")])
    assert h.filter(make_pod(node_name="baz")) == {"foo": MISMATCH, "bar": MISMATCH}


def test_only_the_named_node_passes() -> None:
    h = Harness(["NodeName"], [make_node(f"n{i}") for i in range(5)])
    assert h.filter(make_pod(node_name="n3")) == {f"n{i}": SUCCESS if i == 3 else MISMATCH for i in range(5)}
