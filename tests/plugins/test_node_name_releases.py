"""NodeName's Filter reason per release: ``node(s) didn't match the requested hostname`` in
v1.20, ``node(s) didn't match the requested node name`` from 1.21 (upstream PR #97454;
v1.34.0's ``pkg/scheduler/framework/plugins/nodename/node_name.go`` has the same text).
Upstream's node_name_test.go checks the status with ``ErrReason``, whatever its text: its
cases are v1.20's (``test_node_name.py``), re-run here at 1.34 with the new text."""

from __future__ import annotations

import pytest

from tests.factories import make_node, make_pod
from tests.plugins.release_harness import ReleaseHarness

UNRESOLVABLE = "UnschedulableAndUnresolvable"
HOSTNAME = "node(s) didn't match the requested hostname"
NODE_NAME = "node(s) didn't match the requested node name"


def _pod(node_name: str | None) -> dict:
    pod = make_pod("pod")
    if node_name is not None:
        pod["spec"]["nodeName"] = node_name
    return pod


@pytest.mark.parametrize(("version", "reason"), [
    pytest.param("1.20", HOSTNAME, id="1.20"),
    pytest.param("1.21", NODE_NAME, id="1.21"),
    pytest.param("1.34", NODE_NAME, id="1.34"),
])
def test_reason_per_release(version: str, reason: str) -> None:
    h = ReleaseHarness(["NodeName"], [make_node("foo"), make_node("bar")], version)
    assert h.filter(_pod("foo")) == {"foo": ("Success", ()), "bar": (UNRESOLVABLE, (reason,))}


# TestNodeName at v1.34: no nodeName fits; the same name fits; another name does not.
@pytest.mark.parametrize(("node_name", "expected"), [
    pytest.param(None, ("Success", ()), id="no host specified"),
    pytest.param("foo", ("Success", ()), id="host matches"),
    pytest.param("bar", (UNRESOLVABLE, (NODE_NAME,)), id="host doesn't match"),
])
def test_node_name_at_v1_34(node_name: str | None, expected: tuple) -> None:
    h = ReleaseHarness(["NodeName"], [make_node("foo")], "1.34")
    assert h.filter(_pod(node_name)) == {"foo": expected}
