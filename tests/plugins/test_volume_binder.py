"""The volume binder (``ruleset.plugins.volumebinding.binder``), ported from upstream's
``pkg/controller/volume/scheduling/scheduler_binder_test.go`` of v1.20 (the version with
``CapacityCheck`` and CSIStorageCapacity v1alpha1, after kubernetes#95541: a bound claim
whose volume is missing gives ``ErrReasonPVNotExist``).

Ported: every case of ``TestFindPodVolumesWithoutProvisioning`` (with and without
CSIStorageCapacity checking, with a CSI driver that tracks capacity), of
``TestFindPodVolumesWithProvisioning`` (``needsCapacity`` cases add
``ErrReasonNotEnoughSpace`` and lose their provisions when capacity is checked for a driver
that tracks it), of ``TestCapacity``, ``TestAssumePodVolumes``, ``TestRevertAssumedPodVolumes``
and ``TestFindAssumeVolumes``. A case that "should fail" is an error of the binder's claim
lookup or an unbound immediate claim (upstream's test helper turns the latter into an
error; the plugin refuses both at PreFilter).

Left out: ``TestFindPodVolumesWithCSIMigration`` (CSI migration of in-tree volumes is not
modelled), the two ``*-tmpupdate-failed`` assume cases (they need resource versions in the
assume cache), ``TestBindAPIUpdate``, ``TestCheckBindings``, ``TestBindPodVolumes`` and
``TestCheckBindingsWithCSIMigration`` (API writes and the PV controller, which a simulation
does not have), and the informer plumbing. Node affinity, access-mode, volume-mode and
selector rules of ``FindMatchingVolume`` that upstream tests in ``persistentvolume/util``
are covered by :data:`MATCHING_CASES` (not a port: upstream's ``TestFindMatchingVolume`` runs
the PV controller's path, without a node); and the vectorised matcher
(:func:`~ruleset.plugins.volumebinding.matching.match_on_nodes`) is checked against
:func:`~ruleset.plugins.volumebinding.matching.find_matching_volume` node by node on
random inputs.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from ruleset.api.meta import LabelSelector, LabelSelectorRequirement, ObjectMeta, OwnerReference
from ruleset.api.pod import NodeSelectorTerm, Pod
from ruleset.api.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    BINDING_IMMEDIATE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    CSIDriver,
    CSIStorageCapacity,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    TopologySelectorRequirement,
)
from ruleset.plugins.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    BinderError,
    BinderOptions,
    PodVolumes,
    assume_pod_volumes,
    find_pod_volumes,
    get_pod_volumes,
    revert_assumed_pod_volumes,
)
from ruleset.plugins.volumebinding.matching import find_matching_volume, match_on_nodes
from ruleset.snapshot import NodeSet, Snapshot, VolumeStore
from ruleset.testing import node as make_node
from ruleset.testing.builders import decode_pod_manifest, pod_manifest

G = 10**9
GI = 1024**3
MI = 1024**2
PROVISIONER = "test-provisioner"
NODE_KEY = "nodeKey"
WAIT = "waitClass"
IMMEDIATE = "immediateClass"
WAIT_PROVISIONER = "waitClassWithProvisioner"
TOPO_MISMATCH = "topoMismatchClass"


# ----------------------------------------------------------------------------- builders


def make_pvc(name: str, size: int, *, state: str = "unbound", pv_name: str = "", node: str = "",
             cls: str | None = WAIT, namespace: str = "testns", uid: str = "pvc-uid",
             **spec: Any) -> PersistentVolumeClaim:
    """``makeTestPVC``: unbound, prebound (``volumeName``), bound (and bind-completed) or
    selected-node (annotated, unbound)."""
    annotations: dict[str, str] = {}
    if state == "selected-node":
        annotations[ANN_SELECTED_NODE] = node
    if state == "bound":
        annotations[ANN_BIND_COMPLETED] = "yes"
    volume_name = pv_name if state in ("bound", "prebound") else ""
    meta = ObjectMeta(name=name, namespace=namespace, uid=uid, annotations=annotations)
    return PersistentVolumeClaim(meta=meta, storage_class_name=cls, volume_name=volume_name, request=size,
                                 **spec)


def node_affinity(value: str, key: str = NODE_KEY) -> tuple[NodeSelectorTerm, ...]:
    """``GetVolumeNodeAffinity(key, value)``: one term, ``key In [value]``."""
    return (NodeSelectorTerm(match_expressions=(LabelSelectorRequirement(key, "In", (value,)),)),)


def make_pv(name: str, node: str, capacity: int, bound_to: PersistentVolumeClaim | None = None,
            cls: str = WAIT, **spec: Any) -> PersistentVolume:
    """``makeTestPV``: Available, node affinity ``nodeKey In [node]`` unless ``node`` is "", and
    when ``bound_to`` its claimRef (with uid) and the bound-by-controller annotation."""
    annotations = {ANN_BOUND_BY_CONTROLLER: "yes"} if bound_to is not None else {}
    claim_ref = None if bound_to is None else ObjectReference(bound_to.meta.namespace, bound_to.meta.name,
                                                               bound_to.meta.uid)
    fields: dict[str, Any] = {"node_affinity": node_affinity(node) if node else None, **spec}
    return PersistentVolume(meta=ObjectMeta(name=name, annotations=annotations), capacity=capacity,
                            storage_class_name=cls, claim_ref=claim_ref, **fields)


def classes() -> list[StorageClass]:
    """The four classes of ``newTestBinder``."""
    topology = ((TopologySelectorRequirement(NODE_KEY, ("node1", "reference-value")),),)
    mismatch = ((TopologySelectorRequirement(NODE_KEY, ("reference-value",)),),)
    return [
        StorageClass(ObjectMeta(name=WAIT_PROVISIONER), provisioner=PROVISIONER,
                     volume_binding_mode=BINDING_WAIT_FOR_FIRST_CONSUMER, allowed_topologies=topology),
        StorageClass(ObjectMeta(name=IMMEDIATE), volume_binding_mode=BINDING_IMMEDIATE),
        StorageClass(ObjectMeta(name=WAIT), provisioner="kubernetes.io/no-provisioner",
                     volume_binding_mode=BINDING_WAIT_FOR_FIRST_CONSUMER),
        StorageClass(ObjectMeta(name=TOPO_MISMATCH), provisioner=PROVISIONER,
                     volume_binding_mode=BINDING_WAIT_FOR_FIRST_CONSUMER, allowed_topologies=mismatch),
    ]


def make_pod(claims: list[PersistentVolumeClaim] | None, name: str = "test-pod", namespace: str = "testns",
             volumes: list[dict[str, Any]] | None = None, uid: str | None = None) -> Pod:
    """``makePod``: one ``persistentVolumeClaim`` volume per claim (``vol0``, ``vol1``, …)."""
    raw = pod_manifest(name, namespace=namespace)
    raw["spec"]["volumes"] = volumes if volumes is not None else [
        {"name": f"vol{i}", "persistentVolumeClaim": {"claimName": c.meta.name}} for i, c in enumerate(claims or [])]
    if uid is not None:
        raw["metadata"]["uid"] = uid
    return decode_pod_manifest(raw)


def node_set(*nodes: Any, storage: VolumeStore) -> NodeSet:
    snapshot = Snapshot(list(nodes), storage=storage)
    return NodeSet(snapshot, np.arange(len(nodes)))


def labelled_node(name: str = "node1", value: str | None = "node1") -> Any:
    return make_node(name, labels={NODE_KEY: value} if value is not None else {})


# The fixtures of scheduler_binder_test.go.
unboundPVC = make_pvc("unbound-pvc", G)
unboundPVC2 = make_pvc("unbound-pvc2", 5 * G)
preboundPVC = make_pvc("prebound-pvc", G, state="prebound", pv_name="pv-node1a")
boundPVC = make_pvc("bound-pvc", G, state="bound", pv_name="pv-bound")
immediateUnboundPVC = make_pvc("immediate-unbound-pvc", G, cls=IMMEDIATE)
immediateBoundPVC = make_pvc("immediate-bound-pvc", G, state="bound", pv_name="pv-bound-immediate", cls=IMMEDIATE)
provisionedPVC = make_pvc("provisioned-pvc", GI, cls=WAIT_PROVISIONER)
noProvisionerPVC = make_pvc("no-provisioner-pvc", GI, cls=WAIT)
topoMismatchPVC = make_pvc("topo-mismatch-pvc", GI, cls=TOPO_MISMATCH)
selectedNodePVC = make_pvc("provisioned-pvc", GI, state="selected-node", node="node1", cls=WAIT_PROVISIONER)

pvNode1a = make_pv("pv-node1a", "node1", 5 * G)
pvNode1b = make_pv("pv-node1b", "node1", 10 * G)
pvNode1c = make_pv("pv-node1b", "node1", 5 * G)
pvNode2 = make_pv("pv-node2", "node2", G)
pvBound = make_pv("pv-bound", "node1", G, boundPVC)
pvNode1aBound = make_pv("pv-node1a", "node1", 5 * G, unboundPVC)
pvNode1bBound = make_pv("pv-node1b", "node1", 10 * G, unboundPVC2)
pvBoundImmediate = make_pv("pv-bound-immediate", "node1", G, immediateBoundPVC, cls=IMMEDIATE)
pvBoundImmediateNode2 = make_pv("pv-bound-immediate", "node2", G, immediateBoundPVC, cls=IMMEDIATE)


def find(claims: list[PersistentVolumeClaim], pvs: list[PersistentVolume], *, pod: Pod | None = None,
         capacity: bool = False, drivers: tuple[CSIDriver, ...] = (),
         capacities: tuple[CSIStorageCapacity, ...] = ()) -> tuple[PodVolumes | None, tuple[str, ...], bool]:
    """upstream's ``findPodVolumes`` on node1: ``(volumes, reasons, failed)``."""
    store = VolumeStore.of(claims=claims, volumes=pvs, classes=classes(), csi_drivers=drivers,
                           capacities=capacities)
    options = BinderOptions(capacity=capacity)
    pod = pod if pod is not None else make_pod(claims)
    try:
        split = get_pod_volumes(store, pod, options)
    except BinderError:
        return None, (), True
    if split.immediate:
        return None, (), True  # "pod has unbound immediate PersistentVolumeClaims"
    [outcome] = find_pod_volumes(store, split, node_set(labelled_node(), storage=store), options)
    assert outcome.error is None
    return outcome.volumes, outcome.reasons, False


def bindings(volumes: PodVolumes | None) -> list[tuple[str, str]]:
    return [(v.name, c.meta.name) for v, c in (volumes.static_bindings if volumes else [])]


def provisions(volumes: PodVolumes | None) -> list[str]:
    return [c.meta.name for c in (volumes.dynamic_provisions if volumes else [])]


# ------------------------------------------------------------------ TestFindPodVolumesWithoutProvisioning

WITHOUT_PROVISIONING = {
    # name: (pod claims, cached claims or None, pvs, expected bindings, reasons, should fail)
    "no-volumes": ([], None, [], [], (), False),
    "pvc-not-found": ([boundPVC], [], [], [], (), True),
    "bound-pvc": ([boundPVC], None, [pvBound], [], (), False),
    "bound-pvc,pv-not-exists": ([boundPVC], None, [], [], (ERR_REASON_PV_NOT_EXIST,), False),
    "prebound-pvc": ([preboundPVC], None, [pvNode1aBound], [], (), True),
    "unbound-pvc,pv-same-node": ([unboundPVC], None, [pvNode2, pvNode1a, pvNode1b],
                                 [("pv-node1a", "unbound-pvc")], (), False),
    "unbound-pvc,pv-different-node": ([unboundPVC], None, [pvNode2], [], (ERR_REASON_BIND_CONFLICT,), False),
    "two-unbound-pvcs": ([unboundPVC, unboundPVC2], None, [pvNode1a, pvNode1b],
                         [("pv-node1a", "unbound-pvc"), ("pv-node1b", "unbound-pvc2")], (), False),
    "two-unbound-pvcs,order-by-size": ([unboundPVC2, unboundPVC], None, [pvNode1a, pvNode1b],
                                       [("pv-node1a", "unbound-pvc"), ("pv-node1b", "unbound-pvc2")], (), False),
    "two-unbound-pvcs,partial-match": ([unboundPVC, unboundPVC2], None, [pvNode1a],
                                       [("pv-node1a", "unbound-pvc")], (ERR_REASON_BIND_CONFLICT,), False),
    "one-bound,one-unbound": ([unboundPVC, boundPVC], None, [pvBound, pvNode1a],
                              [("pv-node1a", "unbound-pvc")], (), False),
    "one-bound,one-unbound,no-match": ([unboundPVC, boundPVC], None, [pvBound, pvNode2], [],
                                       (ERR_REASON_BIND_CONFLICT,), False),
    "one-prebound,one-unbound": ([unboundPVC, preboundPVC], None, [pvNode1a, pvNode1b], [], (), True),
    "immediate-bound-pvc": ([immediateBoundPVC], None, [pvBoundImmediate], [], (), False),
    "immediate-bound-pvc-wrong-node": ([immediateBoundPVC], None, [pvBoundImmediateNode2], [],
                                       (ERR_REASON_NODE_CONFLICT,), False),
    "immediate-unbound-pvc": ([immediateUnboundPVC], None, [], [], (), True),
    "immediate-unbound-pvc,delayed-mode-bound": ([immediateUnboundPVC, boundPVC], None, [pvBound], [], (), True),
    "immediate-unbound-pvc,delayed-mode-unbound": ([immediateUnboundPVC, unboundPVC], None, [], [], (), True),
}
CAPACITY_MODES = {
    "without CSIStorageCapacity": (False, ()),
    "with CSIStorageCapacity, no CSIDriver": (True, ()),
    "with CSIStorageCapacity, CSIDriver with capacity tracking": (
        True, (CSIDriver(ObjectMeta(name=PROVISIONER), storage_capacity=True),)),
    "with CSIStorageCapacity, CSIDriver without capacity tracking": (
        True, (CSIDriver(ObjectMeta(name=PROVISIONER), storage_capacity=False),)),
}


@pytest.mark.parametrize("mode", CAPACITY_MODES)
@pytest.mark.parametrize("name", WITHOUT_PROVISIONING)
def test_find_pod_volumes_without_provisioning(name: str, mode: str) -> None:
    pod_claims, cached, pvs, want_bindings, want_reasons, should_fail = WITHOUT_PROVISIONING[name]
    capacity, drivers = CAPACITY_MODES[mode]
    pod = make_pod(pod_claims)
    volumes, reasons, failed = find(pod_claims if cached is None else cached, pvs, pod=pod, capacity=capacity,
                                    drivers=drivers)
    assert failed == should_fail
    assert reasons == want_reasons
    assert bindings(volumes) == want_bindings
    assert provisions(volumes) == []


def test_find_pod_volumes_pod_without_claims() -> None:
    """``no-pvcs``: an emptyDir volume is no claim."""
    pod = make_pod(None, volumes=[{"name": "scratch", "emptyDir": {}}])
    volumes, reasons, failed = find([], [], pod=pod)
    assert (bindings(volumes), provisions(volumes), reasons, failed) == ([], [], (), False)


# --------------------------------------------------------------------- TestFindPodVolumesWithProvisioning

WITH_PROVISIONING = {
    # name: (pod claims, pvs, expected bindings, expected provisions, reasons, should fail, needs capacity)
    "one-provisioned": ([provisionedPVC], [], [], ["provisioned-pvc"], (), False, True),
    "two-unbound-pvcs,one-matched,one-provisioned": ([unboundPVC, provisionedPVC], [pvNode1a],
                                                     [("pv-node1a", "unbound-pvc")], ["provisioned-pvc"], (),
                                                     False, True),
    "one-bound,one-provisioned": ([boundPVC, provisionedPVC], [pvBound], [], ["provisioned-pvc"], (), False, True),
    "one-binding,one-selected-node": ([boundPVC, selectedNodePVC], [pvBound], [], ["provisioned-pvc"], (),
                                      False, True),
    "immediate-unbound-pvc": ([immediateUnboundPVC], [], [], [], (), True, False),
    "one-immediate-bound,one-provisioned": ([immediateBoundPVC, provisionedPVC], [pvBoundImmediate], [],
                                            ["provisioned-pvc"], (), False, True),
    "invalid-provisioner": ([noProvisionerPVC], [], [], [], (ERR_REASON_BIND_CONFLICT,), False, False),
    "volume-topology-unsatisfied": ([topoMismatchPVC], [], [], [], (ERR_REASON_BIND_CONFLICT,), False, False),
}


@pytest.mark.parametrize("mode", CAPACITY_MODES)
@pytest.mark.parametrize("name", WITH_PROVISIONING)
def test_find_pod_volumes_with_provisioning(name: str, mode: str) -> None:
    pod_claims, pvs, want_bindings, want_provisions, want_reasons, should_fail, needs_capacity = \
        WITH_PROVISIONING[name]
    capacity, drivers = CAPACITY_MODES[mode]
    volumes, reasons, failed = find(pod_claims, pvs, capacity=capacity, drivers=drivers)
    if needs_capacity and capacity and drivers and drivers[0].storage_capacity:
        # Without CSIStorageCapacity objects, provisioning is blocked.
        want_reasons, want_provisions = (*want_reasons, ERR_REASON_NOT_ENOUGH_SPACE), []
    assert failed == should_fail
    assert reasons == want_reasons
    assert bindings(volumes) == want_bindings
    assert provisions(volumes) == want_provisions


# ------------------------------------------------------------------------------------- TestCapacity


def make_capacity(cls: str, node_value: str | None, capacity: int | None,
                  maximum: int | None = None) -> CSIStorageCapacity:
    """``makeCapacity``: an empty ``nodeTopology`` (every node) or ``nodeKey: <node>``."""
    topology = LabelSelector() if node_value is None else LabelSelector(match_labels=((NODE_KEY, node_value),))
    return CSIStorageCapacity(ObjectMeta(name="net"), storage_class_name=cls, node_topology=topology,
                              capacity=capacity, maximum_volume_size=maximum)


CAPACITY = {
    "network-attached": ([make_capacity(WAIT_PROVISIONER, None, GI)], ()),
    "local-storage": ([make_capacity(WAIT_PROVISIONER, "node1", GI)], ()),
    "multiple": ([make_capacity(WAIT_PROVISIONER, None, GI), make_capacity(WAIT_PROVISIONER, "node2", GI),
                  make_capacity(WAIT_PROVISIONER, "node1", GI)], ()),
    "no-storage": ([], (ERR_REASON_NOT_ENOUGH_SPACE,)),
    "wrong-node": ([make_capacity(WAIT_PROVISIONER, "node2", GI)], (ERR_REASON_NOT_ENOUGH_SPACE,)),
    "wrong-storage-class": ([make_capacity(WAIT, "node1", GI)], (ERR_REASON_NOT_ENOUGH_SPACE,)),
    "insufficient-storage": ([make_capacity(WAIT_PROVISIONER, "node1", MI)], (ERR_REASON_NOT_ENOUGH_SPACE,)),
    "zero-storage": ([make_capacity(WAIT_PROVISIONER, "node1", 0)], (ERR_REASON_NOT_ENOUGH_SPACE,)),
    "nil-storage": ([make_capacity(WAIT_PROVISIONER, "node1", None)], (ERR_REASON_NOT_ENOUGH_SPACE,)),
}


@pytest.mark.parametrize("name", CAPACITY)
def test_capacity(name: str) -> None:
    capacities, want_reasons = CAPACITY[name]
    driver = CSIDriver(ObjectMeta(name=PROVISIONER), storage_capacity=True)
    volumes, reasons, failed = find([provisionedPVC], [], capacity=True, drivers=(driver,),
                                    capacities=tuple(capacities))
    assert not failed
    assert reasons == want_reasons
    assert provisions(volumes) == ([] if want_reasons else ["provisioned-pvc"])


@pytest.mark.parametrize(("maximum_volume_size", "capacity", "maximum", "fits"), [
    pytest.param(False, GI, MI, True, id="1.20-capacity-only"),
    pytest.param(True, GI, MI, False, id="1.21-maximum-volume-size-wins"),
    pytest.param(True, MI, GI, True, id="1.21-maximum-volume-size-large-enough"),
    pytest.param(True, GI, None, True, id="1.21-no-maximum-uses-capacity"),
])
def test_capacity_maximum_volume_size(maximum_volume_size: bool, capacity: int, maximum: int | None,
                                      fits: bool) -> None:
    """From 1.21 ``volumeLimit``: ``maximumVolumeSize`` when set, else ``capacity``."""
    store = VolumeStore.of(claims=[provisionedPVC], classes=classes(),
                           csi_drivers=[CSIDriver(ObjectMeta(name=PROVISIONER), storage_capacity=True)],
                           capacities=[make_capacity(WAIT_PROVISIONER, "node1", capacity, maximum)])
    options = BinderOptions(capacity=True, maximum_volume_size=maximum_volume_size)
    split = get_pod_volumes(store, make_pod([provisionedPVC]), options)
    [outcome] = find_pod_volumes(store, split, node_set(labelled_node(), storage=store), options)
    assert outcome.reasons == (() if fits else (ERR_REASON_NOT_ENOUGH_SPACE,))


# --------------------------------------------------------------------------------- TestAssumePodVolumes

ASSUME = {
    # name: (pod claims, pvs, bindings, provisioned, all bound, want bindings, want provisions)
    "all-bound": ([boundPVC], [pvBound], [], [], True, [], []),
    "one-binding": ([unboundPVC], [pvNode1a], [(pvNode1a, unboundPVC)], [], False,
                    [(pvNode1aBound, unboundPVC)], []),
    "two-bindings": ([unboundPVC, unboundPVC2], [pvNode1a, pvNode1b],
                     [(pvNode1a, unboundPVC), (pvNode1b, unboundPVC2)], [], False,
                     [(pvNode1aBound, unboundPVC), (pvNode1bBound, unboundPVC2)], []),
    "pv-already-bound": ([unboundPVC], [pvNode1aBound], [(pvNode1aBound, unboundPVC)], [], False,
                         [(pvNode1aBound, unboundPVC)], []),
    "one-binding, one-pvc-provisioned": ([unboundPVC, provisionedPVC], [pvNode1a], [(pvNode1a, unboundPVC)],
                                         [provisionedPVC], False, [(pvNode1aBound, unboundPVC)],
                                         [selectedNodePVC]),
}


def same_volume(a: PersistentVolume, b: PersistentVolume) -> bool:
    return (a.name, a.claim_ref, a.meta.annotations, a.capacity) == (b.name, b.claim_ref, b.meta.annotations,
                                                                     b.capacity)


@pytest.mark.parametrize("name", ASSUME)
def test_assume_pod_volumes(name: str) -> None:
    pod_claims, pvs, bound, provisioned, want_all_bound, want_bindings, want_provisions = ASSUME[name]
    store = VolumeStore.of(claims=pod_claims, volumes=pvs, classes=classes())
    volumes = PodVolumes(static_bindings=list(bound), dynamic_provisions=list(provisioned))
    all_bound = assume_pod_volumes(store, make_pod(pod_claims), "node1", volumes, BinderOptions())
    assert all_bound == want_all_bound
    if all_bound:
        return
    assert len(volumes.static_bindings) == len(want_bindings)
    for (got_pv, got_pvc), (want_pv, want_pvc) in zip(volumes.static_bindings, want_bindings, strict=True):
        assert same_volume(got_pv, want_pv) and got_pvc is want_pvc
        cached = store.volumes[want_pv.name]  # validateAssume: the cache holds the claimRef
        assert cached.claim_ref is not None
        assert (cached.claim_ref.namespace, cached.claim_ref.name) == (want_pvc.meta.namespace, want_pvc.meta.name)
    assert [c.meta.annotations for c in volumes.dynamic_provisions] == [c.meta.annotations for c in want_provisions]
    for claim in want_provisions:
        assert store.claims[claim.key].meta.annotations[ANN_SELECTED_NODE] == "node1"


def test_assume_does_not_change_objects_in_place() -> None:
    store = VolumeStore.of(claims=[unboundPVC, provisionedPVC], volumes=[pvNode1a], classes=classes())
    volumes = PodVolumes([(pvNode1a, unboundPVC)], [provisionedPVC])
    assume_pod_volumes(store, make_pod([unboundPVC, provisionedPVC]), "node1", volumes, BinderOptions())
    assert pvNode1a.claim_ref is None and ANN_BOUND_BY_CONTROLLER not in pvNode1a.meta.annotations
    assert ANN_SELECTED_NODE not in provisionedPVC.meta.annotations


def test_revert_assumed_pod_volumes() -> None:
    """``TestRevertAssumedPodVolumes``."""
    store = VolumeStore.of(claims=[unboundPVC, provisionedPVC], volumes=[pvNode1a], classes=classes())
    volumes = PodVolumes([(pvNode1a, unboundPVC)], [provisionedPVC])
    assert not assume_pod_volumes(store, make_pod([unboundPVC, provisionedPVC]), "node1", volumes, BinderOptions())
    assert store.volumes["pv-node1a"].claim_ref == ObjectReference("testns", "unbound-pvc", "pvc-uid")
    assert store.claims["testns/provisioned-pvc"].meta.annotations[ANN_SELECTED_NODE] == "node1"
    revert_assumed_pod_volumes(store, volumes)
    assert store.volumes["pv-node1a"] is pvNode1a
    assert store.claims["testns/provisioned-pvc"] is provisionedPVC


def test_find_assume_volumes() -> None:
    """``TestFindAssumeVolumes``: after the assume, finding again returns the volume chosen
    (now pre-bound to the claim), not the other 5G volume."""
    store = VolumeStore.of(claims=[unboundPVC], volumes=[pvNode2, pvNode1a, pvNode1c], classes=classes())
    options = BinderOptions()
    pod = make_pod([unboundPVC])
    nodes = node_set(labelled_node(), storage=store)
    [outcome] = find_pod_volumes(store, get_pod_volumes(store, pod, options), nodes, options)
    assert outcome.volumes is not None and outcome.reasons == ()
    assert bindings(outcome.volumes) == [("pv-node1a", "unbound-pvc")]
    assert not assume_pod_volumes(store, pod, "node1", outcome.volumes, options)
    for _ in range(3):
        [again] = find_pod_volumes(store, get_pod_volumes(store, pod, options), nodes, options)
        assert bindings(again.volumes) == [("pv-node1a", "unbound-pvc")]
        assert again.volumes is not None and again.volumes.static_bindings[0][0].claim_ref is not None


# ----------------------------------------------------------------- FindMatchingVolume (persistentvolume/util)

claimA = make_pvc("claim-a", 2 * G, access_modes=("ReadWriteOnce",))


def volume(name: str, capacity: int, **kw: Any) -> PersistentVolume:
    fields: dict[str, Any] = {"access_modes": ("ReadWriteOnce", "ReadOnlyMany"), **kw}
    return PersistentVolume(meta=ObjectMeta(name=name, labels=fields.pop("labels", {}),
                                            deletion_timestamp=fields.pop("deleted", None)),
                            capacity=capacity, storage_class_name=fields.pop("cls", WAIT), **fields)


MATCHING_CASES = {
    "smallest-big-enough": (claimA, [volume("v10", 10 * G), volume("v1", G), volume("v3", 3 * G)], True, "v3"),
    "tie-keeps-first": (claimA, [volume("x", 3 * G), volume("y", 3 * G)], True, "x"),
    "too-small": (claimA, [volume("v1", G)], True, None),
    "other-class": (claimA, [volume("v3", 3 * G, cls="other")], True, None),
    "not-available": (claimA, [volume("v3", 3 * G, phase="Released")], True, None),
    "being-deleted": (claimA, [volume("v3", 3 * G, deleted=1.0)], True, None),
    "block-mode-mismatch": (claimA, [volume("v3", 3 * G, volume_mode="Block")], True, None),
    "access-modes-missing": (dataclasses.replace(claimA, access_modes=("ReadWriteMany",)),
                             [volume("v3", 3 * G)], True, None),
    "claimed-by-another": (claimA, [volume("v3", 3 * G, claim_ref=ObjectReference("testns", "other", "u"))],
                           True, None),
    "node-affinity-mismatch": (claimA, [volume("v3", 3 * G)], False, None),
    "selector-matches": (dataclasses.replace(claimA, selector=LabelSelector(match_labels=(("tier", "db"),))),
                         [volume("v3", 3 * G), volume("v5", 5 * G, labels={"tier": "db"})], True, "v5"),
    "prebound-wins-over-smaller": (claimA, [volume("v3", 3 * G),
                                            volume("v9", 9 * G, phase="Bound",
                                                   claim_ref=ObjectReference("testns", "claim-a", ""))], True, "v9"),
    "prebound-node-mismatch-no-match": (claimA, [volume("v3", 3 * G, claim_ref=ObjectReference("testns", "claim-a",
                                                                                               "pvc-uid"))],
                                        False, None),
    "prebound-other-uid": (claimA, [volume("v3", 3 * G, claim_ref=ObjectReference("testns", "claim-a", "zzz"))],
                           True, None),
}


@pytest.mark.parametrize("name", MATCHING_CASES)
def test_find_matching_volume(name: str) -> None:
    claim, volumes, fits, want = MATCHING_CASES[name]
    got = find_matching_volume(claim, volumes, lambda v: fits, set())
    assert (got.name if got else None) == want


def test_find_matching_volume_excluded() -> None:
    volumes = [volume("v3", 3 * G), volume("v4", 4 * G)]
    got = find_matching_volume(claimA, volumes, lambda v: True, {"v3"})
    assert got is not None and got.name == "v4"


# ------------------------------------------------------------------------ many nodes at once (grouping)


def test_find_pod_volumes_per_node() -> None:
    """Nodes grouped by their answers each get their own decision: node1 takes its 5G volume,
    node2 its 1G one (too small for unbound-pvc2 but fine for unbound-pvc), node3 none."""
    store = VolumeStore.of(claims=[unboundPVC], volumes=[pvNode1a, pvNode2], classes=classes())
    nodes = node_set(labelled_node("node1", "node1"), labelled_node("node2", "node2"), labelled_node("node3", "node3"),
                     labelled_node("node1b", "node1"), storage=store)
    options = BinderOptions()
    outcomes = find_pod_volumes(store, get_pod_volumes(store, make_pod([unboundPVC]), options), nodes, options)
    assert [bindings(o.volumes) for o in outcomes] == [
        [("pv-node1a", "unbound-pvc")], [("pv-node2", "unbound-pvc")], [], [("pv-node1a", "unbound-pvc")]]
    assert [o.reasons for o in outcomes] == [(), (), (ERR_REASON_BIND_CONFLICT,), ()]


def test_selected_node_fast_path() -> None:
    """A claim being provisioned for node1 fits node1 only (``unboundVolumesSatisfied = false``
    elsewhere, before any other check)."""
    store = VolumeStore.of(claims=[selectedNodePVC], classes=classes())
    nodes = node_set(labelled_node("node1", "node1"), labelled_node("node2", "node2"), storage=store)
    options = BinderOptions()
    outcomes = find_pod_volumes(store, get_pod_volumes(store, make_pod([selectedNodePVC]), options), nodes, options)
    assert [o.reasons for o in outcomes] == [(), (ERR_REASON_BIND_CONFLICT,)]
    assert provisions(outcomes[0].volumes) == ["provisioned-pvc"]


@pytest.mark.parametrize(("claim", "message"), [
    pytest.param(make_pvc("gone-class", GI, state="selected-node", node="node1", cls=WAIT),
                 None, id="no-provisioner-class"),
    pytest.param(dataclasses.replace(provisionedPVC, storage_class_name=""), None, id="no-class-is-immediate"),
])
def test_provisioning_errors(claim: PersistentVolumeClaim, message: str | None) -> None:
    """A selected-node claim of a class without provisioner cannot be provisioned (BindConflict);
    a claim without class is immediate (the PV controller's)."""
    store = VolumeStore.of(claims=[claim], classes=classes())
    options = BinderOptions()
    split = get_pod_volumes(store, make_pod([claim]), options)
    if not split.to_bind:
        assert split.immediate == [claim]
        return
    [outcome] = find_pod_volumes(store, split, node_set(labelled_node(), storage=store), options)
    assert outcome.reasons == (ERR_REASON_BIND_CONFLICT,)


def test_missing_class_of_selected_node_claim_is_an_error() -> None:
    """``checkVolumeProvisions``: a claim to provision whose class is gone fails the node with an
    Error (it was WaitForFirstConsumer when split: the class went away in between)."""
    claim = make_pvc("orphan", GI, state="selected-node", node="node1", cls="gone")
    store = VolumeStore.of(claims=[claim], classes=classes())
    options = BinderOptions()
    split = get_pod_volumes(store, make_pod([claim]), options)
    split.to_bind, split.immediate = split.immediate, []
    [outcome] = find_pod_volumes(store, split, node_set(labelled_node(), storage=store), options)
    assert outcome.error == 'failed to find storage class "gone"'


def test_ephemeral_claim_owned_by_pod() -> None:
    """A generic ephemeral volume's claim ``<pod>-<volume>`` counts where the gate is on, and
    only when the pod controls it."""
    owner = OwnerReference(kind="Pod", name="test-pod", uid="pod-uid", controller=True)
    claim = make_pvc("test-pod-scratch", GI, cls=WAIT_PROVISIONER)
    claim = dataclasses.replace(claim, meta=dataclasses.replace(claim.meta, owner_references=(owner,)))
    pod = make_pod(None, volumes=[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}],
                   uid="pod-uid")
    store = VolumeStore.of(claims=[claim], classes=classes())
    assert get_pod_volumes(store, pod, BinderOptions(ephemeral=False)).to_bind == []
    assert get_pod_volumes(store, pod, BinderOptions(ephemeral=True)).to_bind == [claim]
    stranger = make_pod(None, volumes=[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}],
                        uid="other-uid")
    with pytest.raises(BinderError, match="PVC testns/test-pod-scratch is not owned by pod"):
        get_pod_volumes(store, stranger, BinderOptions(ephemeral=True))


@pytest.mark.parametrize("seed", range(40))
def test_match_on_nodes_agrees_with_find_matching_volume(seed: int) -> None:
    """The vectorised ``findMatchingVolumes`` (all nodes at once) gives, on every node, what
    :func:`find_matching_volume` gives claim after claim there (random volumes, claims and
    node fits; pre-bound volumes, other claims' volumes, ties, selectors, phases, modes)."""
    rng = np.random.default_rng(seed)
    n = 7
    claims = [make_pvc(f"c{k}", int(rng.integers(1, 4)) * G, uid=f"u{k}",
                       selector=LabelSelector(match_labels=(("tier", "db"),)) if rng.random() < 0.2 else None)
              for k in range(int(rng.integers(1, 4)))]
    volumes = []
    for i in range(int(rng.integers(0, 9))):
        ref = None
        roll = rng.random()
        if roll < 0.2:
            target = claims[int(rng.integers(len(claims)))]
            ref = ObjectReference("testns", target.meta.name, "" if rng.random() < 0.5 else target.meta.uid)
        elif roll < 0.3:
            ref = ObjectReference("testns", "someone-else", "x")
        volumes.append(PersistentVolume(
            meta=ObjectMeta(name=f"v{i}", labels={"tier": "db"} if rng.random() < 0.5 else {}),
            capacity=int(rng.integers(1, 5)) * G, storage_class_name=WAIT, claim_ref=ref,
            phase="Available" if rng.random() < 0.85 else "Released",
            volume_mode="Filesystem" if rng.random() < 0.9 else "Block"))
    fits = {v.name: rng.random(n) < 0.6 for v in volumes}
    index = {v.name: i for i, v in enumerate(volumes)}
    got = match_on_nodes(claims, lambda c: volumes, index, lambda v: fits[v.name], n)
    for node in range(n):
        taken: set[str] = set()
        for k, claim in enumerate(claims):
            want = find_matching_volume(claim, volumes, lambda v, at=node: bool(fits[v.name][at]), taken)
            if want is not None:
                taken.add(want.name)
            assert got[node, k] == (index[want.name] if want is not None else -1), (node, k)
