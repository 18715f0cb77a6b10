"""Ported from ``pkg/scheduler/framework/plugins/defaultbinder/default_binder_test.go`` (v1.20).

* TestDefaultBinder: 1 of 2 cases. ``successful``: binding pod ns/foo to node
  ``foohost.kubernetes.mydomain.com`` succeeds and the pod ends up bound to that node (in
  a snapshot run the Binding is recorded as ``spec.nodeName``). ``binding error`` injects a
  failure into the API client's ``pods/binding`` create call; a snapshot run has no API
  server to fail, so it is dropped.
"""

from ruleset.framework.cycle_state import CycleState
from ruleset.framework.status import Code
from ruleset.plugins.default_binder import DefaultBinder
from tests.factories import Harness, decode, make_node, make_pod

TEST_NODE = "foohost.kubernetes.mydomain.com"


def test_default_binder_successful() -> None:
    h = Harness([], [make_node(TEST_NODE)])
    assert [s.plugin for s in h.framework.tables["ruleset_bind"]] == ["DefaultBinder"]
    pod = decode(make_pod("foo", namespace="ns"))
    result = h.run(pod)
    assert result.node == TEST_NODE
    status = h.scheduler.commit(result)
    assert status.code == Code.SUCCESS
    assert (pod.namespace, pod.name, pod.node_name) == ("ns", "foo", TEST_NODE)
    assert h.snapshot.pods_on(h.snapshot.node_index[TEST_NODE]) == [pod]


def test_bind_hook_returns_success() -> None:
    pod = decode(make_pod("foo", namespace="ns"))
    assert DefaultBinder().ruleset_bind(CycleState(), pod, TEST_NODE) is None
    assert pod.node_name == ""  # the scheduler records the binding once Bind succeeds
