"""The test kit's builders make the objects a manifest would: node, pod and cluster, and the
API server's refusals as ValueError."""

from __future__ import annotations

import pytest

from ruleset.api.node import Taint
from ruleset.testing import cluster, node, pod


def test_node_defaults():
    built = node("n1")
    assert (built.name, built.labels, built.allocatable, built.allowed_pod_number, built.taints,
            built.unschedulable) == ("n1", {"kubernetes.io/hostname": "n1"},
                                     {"cpu": 4000, "memory": 8 * 1024**3}, 110, (), False)


def test_node_with_everything():
    built = node("gpu", cpu=16, memory="64Gi", pods=20, labels={"zone": "a", "kubernetes.io/hostname": "h"},
                 annotations={"note": "x"}, resources={"nvidia.com/gpu": 4},
                 taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}], unschedulable=True)
    assert built.labels == {"kubernetes.io/hostname": "h", "zone": "a"}
    assert built.meta.annotations == {"note": "x"}
    assert built.allocatable == {"cpu": 16000, "memory": 64 * 1024**3, "nvidia.com/gpu": 4}
    assert built.allowed_pod_number == 20
    assert built.taints == (Taint("dedicated", "gpu", "NoSchedule"),)
    assert built.unschedulable is True


def test_pod_defaults():
    built = pod("p")
    assert (built.key, built.labels, built.requests, built.node_name, built.priority, built.tolerations) == (
        "default/p", {}, {}, "", 0, ())


def test_pod_with_everything():
    built = pod("p", namespace="ml", cpu="500m", memory="1Gi", resources={"nvidia.com/gpu": 1},
                labels={"app": "train"}, annotations={"a": "b"}, node_name="n1", priority=7,
                tolerations=[{"key": "dedicated", "operator": "Exists"}],
                affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In",
                                                                 "values": ["a"]}]}]}}})
    assert built.key == "ml/p"
    assert built.requests == {"cpu": 500, "memory": 1024**3, "nvidia.com/gpu": 1}
    assert (built.labels, built.meta.annotations, built.node_name, built.priority) == (
        {"app": "train"}, {"a": "b"}, "n1", 7)
    assert [t.key for t in built.tolerations] == ["dedicated"]
    assert built.affinity.node_affinity is not None


@pytest.mark.parametrize(("build", "message"), [
    pytest.param(lambda: node("n", labels={"bad key!": "x"}), "metadata.labels", id="node-label"),
    pytest.param(lambda: node("n", cpu="lots"), "status.allocatable.cpu", id="node-quantity"),
    pytest.param(lambda: node("n", taints=[{"key": "k", "effect": "Sometimes"}]), "spec.taints[0].effect",
                 id="node-taint"),
    pytest.param(lambda: pod("p", memory="-1"), "resources.requests.memory", id="pod-quantity"),
    pytest.param(lambda: pod("p", priority=2**31), "spec.priority", id="pod-priority"),
])
def test_what_the_api_server_refuses_is_a_value_error(build, message):
    with pytest.raises(ValueError, match=r"<ruleset\.testing>") as info:
        build()
    assert message in str(info.value)


def test_cluster_places_pods_with_a_node_name_and_keeps_the_rest_pending():
    running, pending = pod("run", cpu=1, node_name="n2"), pod("wait")
    state = cluster([node("n1"), node("n2")], [running, pending])
    assert state.snapshot.node_names == ["n1", "n2"]
    assert [p.key for p in state.snapshot.pods_on(1)] == ["default/run"]
    assert state.snapshot.pods_on(0) == []
    assert state.pending == [pending]
    assert state.snapshot.requested("cpu").tolist() == [0, 1000]


@pytest.mark.parametrize(("nodes", "pods", "message"), [
    pytest.param(["n1", "n1"], [], "duplicate Node", id="duplicate-node"),
    pytest.param(["n1"], [("p", None), ("p", None)], "duplicate Pod", id="duplicate-pod"),
    pytest.param(["n1"], [("p", "n9")], "pods on nodes that are not in the cluster: default/p", id="stray-pod"),
])
def test_cluster_refuses_what_a_snapshot_cannot_hold(nodes, pods, message):
    with pytest.raises(ValueError, match=message):
        cluster([node(n) for n in nodes], [pod(name, node_name=on) for name, on in pods])
