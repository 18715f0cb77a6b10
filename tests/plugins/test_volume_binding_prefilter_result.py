"""VolumeBinding's PreFilterResult, 1.27 to 1.31: the nodes the bound claims' volumes name.

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/volume_binding.go`` PreFilter and
``binder.go`` ``GetEligibleNodes`` from v1.27.0 (kubernetes#109877) to v1.31, removed in v1.32
by kubernetes#127584; ``pkg/volume/util/util.go`` ``GetLocalPersistentVolumeNodeNames``. The
cases follow ``binder_test.go`` TestGetEligibleNodes and ``util_test.go``
TestGetLocalPersistentVolumeNodeNames by name (their tables could not be read at a tag here:
each expectation is worked out from the v1.27 code), then v1.32's
``schedule_one_test.go`` case "hostname and nodename of the node do not match", which
kubernetes#127584 added, run at the releases before it too: the bug it fixed
(kubernetes#123465) is upstream's behaviour there, and ruleset's.
"""

from __future__ import annotations

from typing import Any

import pytest

from ruleset import CycleState, PreFilterResult
from ruleset.api.meta import LabelSelectorRequirement, ObjectMeta
from ruleset.api.pod import NodeSelectorTerm
from ruleset.api.storage import PersistentVolume
from ruleset.cluster import build_cluster_state
from ruleset.manifests.model import Cluster
from ruleset.plugins.volumebinding import VolumeBinding
from ruleset.plugins.volumebinding.plugin import eligible_nodes, local_volume_node_names
from ruleset.scheduler import Scheduler
from ruleset.snapshot import VolumeStore
from ruleset.testing import node as make_node
from ruleset.testing.run import plugin_framework, resolve_plugin
from tests.plugins.test_volume_binding import pod_of, pvc, sc_classes

HOSTNAME = "kubernetes.io/hostname"


def _term(*requirements: tuple[str, str, tuple[str, ...]]) -> NodeSelectorTerm:
    return NodeSelectorTerm(match_expressions=tuple(LabelSelectorRequirement(k, op, v) for k, op, v in requirements))


def _pv(name: str, *terms: NodeSelectorTerm, affinity: bool = True) -> PersistentVolume:
    return PersistentVolume(meta=ObjectMeta(name=name), storage_class_name="wait-sc",
                            node_affinity=tuple(terms) if affinity else None)


@pytest.mark.parametrize(("volume", "names"), [
    pytest.param(_pv("pv", affinity=False), set(), id="no node affinity"),
    pytest.param(_pv("pv"), set(), id="node affinity without terms"),
    pytest.param(_pv("pv", _term((HOSTNAME, "In", ("node1",)))), {"node1"}, id="single term, single value"),
    pytest.param(_pv("pv", _term((HOSTNAME, "In", ("node1", "node2")))), {"node1", "node2"},
                 id="single term, multiple values"),
    pytest.param(_pv("pv", _term((HOSTNAME, "In", ("node1",))), _term((HOSTNAME, "In", ("node2",)))),
                 {"node1", "node2"}, id="multiple terms, united"),
    pytest.param(_pv("pv", _term((HOSTNAME, "In", ("node1", "node2")), (HOSTNAME, "In", ("node2", "node3")))),
                 {"node2"}, id="multiple hostname expressions in a term, intersected"),
    pytest.param(_pv("pv", _term(("topology.kubernetes.io/zone", "In", ("a",)))), set(),
                 id="a term without a hostname expression adds nothing"),
    pytest.param(_pv("pv", _term(("topology.kubernetes.io/zone", "In", ("a",))), _term((HOSTNAME, "In", ("n",)))),
                 {"n"}, id="a term without one beside a term with one"),
    pytest.param(_pv("pv", _term((HOSTNAME, "NotIn", ("node1",)))), set(), id="NotIn names nothing"),
])
def test_local_volume_node_names(volume: PersistentVolume, names: set[str]) -> None:
    assert local_volume_node_names(volume) == frozenset(names)


PV1 = _pv("pv-1", _term((HOSTNAME, "In", ("node1", "node2"))))
PV2 = _pv("pv-2", _term((HOSTNAME, "In", ("node2", "node3"))))
PV3 = _pv("pv-3", _term((HOSTNAME, "In", ("node3",))))
PLAIN = _pv("pv-plain", affinity=False)


@pytest.mark.parametrize(("claims", "volumes", "eligible"), [
    pytest.param([], [PV1], None, id="no bound claims"),
    pytest.param([pvc("c1", "pv-plain")], [PLAIN], None, id="no node found: a volume without node affinity"),
    pytest.param([pvc("c1", "pv-1"), pvc("c2", "pv-missing")], [PV1], None, id="a volume not found"),
    pytest.param([pvc("c1", "pv-1")], [PV1], {"node1", "node2"}, id="multiple nodes found"),
    pytest.param([pvc("c1", "pv-1"), pvc("c2", "pv-2")], [PV1, PV2], {"node2"},
                 id="multiple volumes: intersected"),
    pytest.param([pvc("c1", "pv-1"), pvc("c2", "pv-plain")], [PV1, PLAIN], {"node1", "node2"},
                 id="a volume naming no node does not narrow"),
    pytest.param([pvc("c1", "pv-1"), pvc("c3", "pv-3")], [PV1, PV3], set(), id="no matching node"),
])
def test_eligible_nodes(claims: list[Any], volumes: list[PersistentVolume], eligible: set[str] | None) -> None:
    store = VolumeStore.of(claims=claims, volumes=volumes, classes=sc_classes())
    got = eligible_nodes(store, claims)
    assert got == (None if eligible is None else frozenset(eligible))


@pytest.mark.parametrize(("version", "result"), [
    pytest.param("1.26", None, id="1.26: none"),
    pytest.param("1.27", PreFilterResult(frozenset({"node1", "node2"})), id="1.27"),
    pytest.param("1.31", PreFilterResult(frozenset({"node1", "node2"})), id="1.31"),
    pytest.param("1.32", None, id="1.32: removed (kubernetes#127584)"),
])
def test_pre_filter_returns_the_eligible_nodes_from_1_27_to_1_31(version: str, result: Any) -> None:
    state = build_cluster_state(Cluster(nodes=[make_node("node1")], persistent_volume_claims=[pvc("c1", "pv-1")],
                                        persistent_volumes=[PV1], storage_classes=sc_classes()), None)
    cls, registry = resolve_plugin(VolumeBinding)
    framework = plugin_framework(cls, registry, state.snapshot, kubernetes_version=version)
    (step,) = [s for s in framework.tables["ruleset_pre_filter"] if s.plugin == "VolumeBinding"]
    assert step(state=CycleState(), pod=pod_of(["c1"]), snapshot=state.snapshot) == result


@pytest.mark.parametrize(("version", "node", "message"), [
    pytest.param("1.26", "node1", "", id="1.26"),
    pytest.param("1.27", None, 'nodeinfo not found for node name "host1"', id="1.27: an Error (kubernetes#123465)"),
    pytest.param("1.29", None, 'nodeinfo not found for node name "host1"', id="1.29"),
    pytest.param("1.30", None, "0/1 nodes are available: 1 node is filtered out by the prefilter result.",
                 id="1.30: unschedulable"),
    pytest.param("1.31", None, "0/1 nodes are available:", id="1.31"),
    pytest.param("1.32", "node1", "", id="1.32: fixed"),
])
def test_hostname_and_nodename_of_the_node_do_not_match(version: str, node: str | None, message: str) -> None:
    host = _pv("pv1", _term((HOSTNAME, "In", ("host1",))))
    state = build_cluster_state(Cluster(nodes=[make_node("node1", labels={HOSTNAME: "host1"})],
                                        persistent_volume_claims=[pvc("pvc1", "pv1")], persistent_volumes=[host],
                                        storage_classes=sc_classes()), None)
    cls, registry = resolve_plugin(VolumeBinding)
    framework = plugin_framework(cls, registry, state.snapshot, kubernetes_version=version)
    result = Scheduler(framework, seed=0).schedule(pod_of(["pvc1"]))
    assert (result.node, result.message) == (node, message)
