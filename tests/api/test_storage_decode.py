"""Decoding the storage objects (``ruleset.api.storage``): PersistentVolumeClaim,
PersistentVolume, StorageClass, CSINode, CSIDriver and CSIStorageCapacity.

Defaults are the API server's at v1.20: ``pkg/apis/core/v1/defaults.go``
(``SetDefaults_PersistentVolume``: reclaim policy Retain, volume mode Filesystem; its phase
Pending is not kept: the PV controller's first sync makes a new unbound volume Available, and
the binder's ``FindMatchingVolume`` skips any other phase; ``SetDefaults_PersistentVolumeClaim`` / ``…ClaimSpec``: phase Pending, volume mode
Filesystem) and ``pkg/apis/storage/v1/defaults.go`` (``SetDefaults_StorageClass``: reclaim
policy Delete, binding mode Immediate; ``SetDefaults_CSIDriver``: attachRequired true,
storageCapacity false). A PV's class is ``GetPersistentVolumeClass``'s (the beta annotation
first). Quantities are ``Quantity.Value()`` (rounded up).
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from ruleset.api.decode import DecodeContext
from ruleset.api.meta import LabelSelector, LabelSelectorRequirement
from ruleset.api.pod import NodeSelectorTerm
from ruleset.api.storage import (
    CSINodeDriver,
    ObjectReference,
    TopologySelectorRequirement,
    decode_csi_driver,
    decode_csi_node,
    decode_csi_storage_capacity,
    decode_persistent_volume,
    decode_persistent_volume_claim,
    decode_storage_class,
)
from ruleset.reading import CLUSTER
from ruleset.yaml_reading import load_yaml

GI = 1024**3


def decode(decoder: Any, raw: Any, file: str = "s.yaml") -> tuple[Any, list[str]]:
    ctx = DecodeContext(file=file)
    obj = decoder(ctx, raw)
    return obj, [f"{p.path}: {p.message}" for p in ctx.problems]


def from_yaml(text: str) -> Any:
    return next(load_yaml(textwrap.dedent(text), "s.yaml", CLUSTER))


# --- PersistentVolumeClaim --------------------------------------------------------------------

def test_claim_full():
    claim, problems = decode(decode_persistent_volume_claim, {
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "db", "annotations": {"a": "b"}},
        "spec": {"storageClassName": "fast", "volumeName": "pv-1", "accessModes": ["ReadWriteOnce", "ReadOnlyMany"],
                 "resources": {"requests": {"storage": "1.5Gi"}}, "volumeMode": "Block",
                 "selector": {"matchLabels": {"tier": "gold"},
                              "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}},
        "status": {"phase": "Bound"},
    })
    assert problems == []
    assert (claim.key, claim.storage_class_name, claim.volume_name, claim.access_modes, claim.request,
            claim.volume_mode, claim.phase, claim.meta.annotations) == (
        "db/data", "fast", "pv-1", ("ReadWriteOnce", "ReadOnlyMany"), 3 * GI // 2, "Block", "Bound", {"a": "b"})
    assert claim.selector == LabelSelector(match_labels=(("tier", "gold"),), match_expressions=(
        LabelSelectorRequirement("zone", "In", ("a",)),))


def test_claim_defaults():
    claim, problems = decode(decode_persistent_volume_claim, {"kind": "PersistentVolumeClaim",
                                                              "metadata": {"name": "c"}})
    assert problems == []
    assert (claim.key, claim.storage_class_name, claim.volume_name, claim.access_modes, claim.request,
            claim.selector, claim.volume_mode, claim.phase) == (
        "default/c", None, "", (), 0, None, "Filesystem", "Pending")


@pytest.mark.parametrize(("class_name", "expected"), [
    pytest.param(None, None, id="absent is None"),
    pytest.param("", "", id="empty asks for no class"),
    pytest.param("fast", "fast", id="named"),
])
def test_claim_class_name_absent_or_empty(class_name: str | None, expected: str | None):
    spec = {} if class_name is None else {"storageClassName": class_name}
    claim, _ = decode(decode_persistent_volume_claim, {"metadata": {"name": "c"}, "spec": spec})
    assert claim.storage_class_name == expected


@pytest.mark.parametrize(("storage", "expected"), [
    pytest.param("1Gi", GI, id="binary"),
    pytest.param("1G", 10**9, id="decimal"),
    pytest.param("1500m", 2, id="milli rounded up"),
    pytest.param(10, 10, id="bare number"),
    pytest.param("0.5", 1, id="fraction rounded up"),
])
def test_claim_request_is_value_rounded_up(storage: Any, expected: int):
    claim, problems = decode(decode_persistent_volume_claim, {
        "metadata": {"name": "c"}, "spec": {"resources": {"requests": {"storage": storage}}}})
    assert (claim.request, problems) == (expected, [])


@pytest.mark.parametrize(("spec", "expected"), [
    pytest.param({"accessModes": "ReadWriteOnce"},
                 "PersistentVolumeClaim ns/c: spec.accessModes: expected a list, got a string", id="access modes"),
    pytest.param({"resources": {"requests": {"storage": "lots"}}},
                 "PersistentVolumeClaim ns/c: spec.resources.requests.storage: 'lots': quantities must match the "
                 "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", id="bad quantity"),
    pytest.param({"resources": {"requests": {"storage": "-1Gi"}}},
                 'PersistentVolumeClaim ns/c: spec.resources.requests.storage: Invalid value: "-1Gi": must be '
                 "greater than or equal to 0", id="negative quantity"),
    pytest.param({"storageClassName": ["a"]},
                 "PersistentVolumeClaim ns/c: spec.storageClassName: expected a string, got a list", id="class"),
    pytest.param({"selector": "x"}, "PersistentVolumeClaim ns/c: spec.selector: expected an object, got a string",
                 id="selector"),
])
def test_claim_bad_fields(spec: dict, expected: str):
    claim, problems = decode(decode_persistent_volume_claim, {"metadata": {"name": "c", "namespace": "ns"},
                                                              "spec": spec})
    assert problems == [expected]
    assert claim.key == "ns/c"


def test_claim_problem_is_located_at_its_line():
    raw = from_yaml("""\
        kind: PersistentVolumeClaim
        metadata: {name: c}
        spec:
          volumeMode: Block
          accessModes: {ReadWriteOnce: true}
        status: {phase: 1}
        """)
    ctx = DecodeContext(file="s.yaml")
    claim = decode_persistent_volume_claim(ctx, raw)
    assert [(p.file, p.line, p.path, p.message) for p in ctx.problems] == [
        ("s.yaml", 5, "PersistentVolumeClaim default/c: spec.accessModes", "expected a list, got an object")]
    # An unquoted number is still text (as for labels): phase "1".
    assert (claim.access_modes, claim.volume_mode, claim.phase) == ((), "Block", "1")


# --- PersistentVolume -------------------------------------------------------------------------

def test_volume_full():
    volume, problems = decode(decode_persistent_volume, {
        "kind": "PersistentVolume",
        "metadata": {"name": "pv-1", "labels": {"tier": "gold"}},
        "spec": {
            "capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "db", "name": "data", "uid": "u-1"},
            "persistentVolumeReclaimPolicy": "Delete", "volumeMode": "Block",
            "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                       "values": ["eu-1a"]}]},
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}},
        },
        "status": {"phase": "Bound"},
    })
    assert problems == []
    assert (volume.name, volume.capacity, volume.access_modes, volume.storage_class_name, volume.claim_ref,
            volume.reclaim_policy, volume.volume_mode, volume.phase, volume.source, volume.source_spec) == (
        "pv-1", 10 * GI, ("ReadWriteOnce",), "fast", ObjectReference("db", "data", "u-1"), "Delete", "Block",
        "Bound", "csi", {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"})
    assert volume.node_affinity == (
        NodeSelectorTerm(match_expressions=(
            LabelSelectorRequirement("topology.kubernetes.io/zone", "In", ("eu-1a",)),)),
        NodeSelectorTerm(match_fields=(LabelSelectorRequirement("metadata.name", "In", ("n1",)),)),
    )


def test_volume_defaults():
    volume, problems = decode(decode_persistent_volume, {"kind": "PersistentVolume", "metadata": {"name": "v"}})
    assert problems == []
    assert (volume.capacity, volume.access_modes, volume.storage_class_name, volume.claim_ref, volume.node_affinity,
            volume.volume_mode, volume.reclaim_policy, volume.phase, volume.source, volume.source_spec) == (
        0, (), "", None, None, "Filesystem", "Retain", "Available", "", {})


@pytest.mark.parametrize(("annotations", "spec_class", "expected"), [
    pytest.param({}, "fast", "fast", id="spec"),
    pytest.param({"volume.beta.kubernetes.io/storage-class": "old"}, None, "old", id="annotation"),
    pytest.param({"volume.beta.kubernetes.io/storage-class": "old"}, "fast", "old", id="annotation wins"),
    pytest.param({"volume.beta.kubernetes.io/storage-class": ""}, "fast", "", id="empty annotation wins"),
])
def test_volume_class_is_get_persistent_volume_class(annotations: dict, spec_class: str | None, expected: str):
    spec = {} if spec_class is None else {"storageClassName": spec_class}
    volume, _ = decode(decode_persistent_volume, {"metadata": {"name": "v", "annotations": annotations},
                                                  "spec": spec})
    assert volume.storage_class_name == expected


@pytest.mark.parametrize("key", [
    "gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "iscsi", "cinder",
    "cephfs", "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "quobyte", "azureDisk",
    "photonPersistentDisk", "portworxVolume", "scaleIO", "local", "storageos", "csi",
])
def test_volume_source_keys(key: str):
    volume, problems = decode(decode_persistent_volume, {"metadata": {"name": "v"}, "spec": {key: {"x": 1}}})
    assert (volume.source, volume.source_spec, problems) == (key, {"x": 1}, [])


def test_volume_required_without_terms_matches_no_node():
    volume, problems = decode(decode_persistent_volume, {"metadata": {"name": "v"},
                                                         "spec": {"nodeAffinity": {"required": {}}}})
    assert (volume.node_affinity, problems) == ((), [])


@pytest.mark.parametrize(("spec", "expected"), [
    pytest.param({"gcePersistentDisk": {"pdName": "a"}, "csi": {"driver": "d"}},
                 "PersistentVolume v: spec.csi: Forbidden: may not specify more than 1 volume type",
                 id="two sources"),
    pytest.param({"csi": "d"}, "PersistentVolume v: spec.csi: expected an object, got a string", id="source type"),
    pytest.param({"capacity": {"storage": "1Qi"}},
                 "PersistentVolume v: spec.capacity.storage: '1Qi': quantities must match the regular expression "
                 "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", id="capacity"),
    pytest.param({"claimRef": ["x"]}, "PersistentVolume v: spec.claimRef: expected an object, got a list",
                 id="claim ref"),
    pytest.param({"nodeAffinity": {"required": {"nodeSelectorTerms": ["zone"]}}},
                 "PersistentVolume v: spec.nodeAffinity.required.nodeSelectorTerms[0]: expected an object",
                 id="term"),
    pytest.param({"nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": {"key": "z"}}]}}},
                 "PersistentVolume v: spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions: expected "
                 "a list, got an object", id="expressions"),
    pytest.param({"persistentVolumeReclaimPolicy": True},
                 "PersistentVolume v: spec.persistentVolumeReclaimPolicy: expected a string, got a boolean",
                 id="reclaim policy"),
])
def test_volume_bad_fields(spec: dict, expected: str):
    _, problems = decode(decode_persistent_volume, {"metadata": {"name": "v"}, "spec": spec})
    assert problems == [expected]


def test_two_sources_are_not_checked_for_objects_built_as_upstream_tests_build_them():
    ctx = DecodeContext(api_checks=False)
    volume = decode_persistent_volume(ctx, {"metadata": {"name": "v"},
                                            "spec": {"gcePersistentDisk": {}, "csi": {"driver": "d"}}})
    assert (volume.source, ctx.problems) == ("gcePersistentDisk", [])


# --- StorageClass ------------------------------------------------------------------------------

def test_storage_class_full():
    sc, problems = decode(decode_storage_class, {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
        "provisioner": "ebs.csi.aws.com", "parameters": {"type": "gp3", "iops": 3000},
        "reclaimPolicy": "Retain", "volumeBindingMode": "WaitForFirstConsumer",
        "allowedTopologies": [{"matchLabelExpressions": [
            {"key": "topology.kubernetes.io/zone", "values": ["a", "b"]}, {"key": "rack", "values": ["r1"]}]},
            {"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["c"]}]}],
    })
    assert problems == []
    assert (sc.name, sc.provisioner, sc.parameters, sc.reclaim_policy, sc.volume_binding_mode) == (
        "fast", "ebs.csi.aws.com", {"type": "gp3", "iops": "3000"}, "Retain", "WaitForFirstConsumer")
    assert sc.allowed_topologies == (
        (TopologySelectorRequirement("topology.kubernetes.io/zone", ("a", "b")),
         TopologySelectorRequirement("rack", ("r1",))),
        (TopologySelectorRequirement("topology.kubernetes.io/zone", ("c",)),),
    )


def test_storage_class_defaults():
    sc, problems = decode(decode_storage_class, {"kind": "StorageClass", "metadata": {"name": "s"}})
    assert problems == []
    assert (sc.provisioner, sc.parameters, sc.reclaim_policy, sc.volume_binding_mode, sc.allowed_topologies) == (
        "", {}, "Delete", "Immediate", ())


@pytest.mark.parametrize(("raw", "expected"), [
    pytest.param({"allowedTopologies": {"zone": "a"}},
                 "StorageClass s: allowedTopologies: expected a list, got an object", id="topologies"),
    pytest.param({"allowedTopologies": [{"matchLabelExpressions": [{"key": "z", "values": "a"}]}]},
                 "StorageClass s: allowedTopologies[0].matchLabelExpressions[0].values: expected a list, got a "
                 "string", id="values"),
    pytest.param({"parameters": {"type": ["gp3"]}}, "StorageClass s: parameters.type: expected a string, got a list",
                 id="parameters"),
    pytest.param({"volumeBindingMode": 3.5}, None, id="number read as text"),
])
def test_storage_class_bad_fields(raw: dict, expected: str | None):
    _, problems = decode(decode_storage_class, {"metadata": {"name": "s"}, **raw})
    assert problems == ([expected] if expected else [])


# --- CSINode, CSIDriver --------------------------------------------------------------------------

def test_csi_node_full_and_defaults():
    node, problems = decode(decode_csi_node, {"kind": "CSINode", "metadata": {"name": "n1"}, "spec": {"drivers": [
        {"name": "ebs.csi.aws.com", "nodeID": "i-1", "topologyKeys": ["topology.ebs.csi.aws.com/zone"],
         "allocatable": {"count": 25}},
        {"name": "other", "nodeID": "n1"}]}})
    assert problems == []
    assert (node.name, node.drivers) == ("n1", (
        CSINodeDriver("ebs.csi.aws.com", "i-1", ("topology.ebs.csi.aws.com/zone",), 25),
        CSINodeDriver("other", "n1", (), None)))
    assert node.driver("other") is node.drivers[1]
    empty, problems = decode(decode_csi_node, {"kind": "CSINode", "metadata": {"name": "n2"}})
    assert (empty.drivers, problems) == ((), [])


@pytest.mark.parametrize(("spec", "expected"), [
    pytest.param({"drivers": [{"name": "d", "allocatable": {"count": "25"}}]},
                 "CSINode n1: spec.drivers[0].allocatable.count: expected an integer, got a string", id="count"),
    pytest.param({"drivers": [{"name": "d", "allocatable": {"count": 2**31}}]},
                 "CSINode n1: spec.drivers[0].allocatable.count: Invalid value: 2147483648: must be between "
                 "-2147483648 and 2147483647, inclusive (an int32 field)", id="count range"),
    pytest.param({"drivers": ["d"]}, "CSINode n1: spec.drivers[0]: expected an object", id="driver"),
    pytest.param({"drivers": [{"name": "d", "topologyKeys": "zone"}]},
                 "CSINode n1: spec.drivers[0].topologyKeys: expected a list, got a string", id="keys"),
])
def test_csi_node_bad_fields(spec: dict, expected: str):
    _, problems = decode(decode_csi_node, {"metadata": {"name": "n1"}, "spec": spec})
    assert problems == [expected]


@pytest.mark.parametrize(("spec", "attach", "capacity"), [
    pytest.param(None, True, False, id="defaults"),
    pytest.param({"attachRequired": False, "storageCapacity": True}, False, True, id="set"),
])
def test_csi_driver(spec: dict | None, attach: bool, capacity: bool):
    raw: dict = {"kind": "CSIDriver", "metadata": {"name": "d"}}
    if spec is not None:
        raw["spec"] = spec
    driver, problems = decode(decode_csi_driver, raw)
    assert (driver.name, driver.attach_required, driver.storage_capacity, problems) == ("d", attach, capacity, [])


def test_csi_driver_bad_field_keeps_the_default():
    driver, problems = decode(decode_csi_driver, {"metadata": {"name": "d"}, "spec": {"attachRequired": "no"}})
    assert problems == ["CSIDriver d: spec.attachRequired: expected a boolean, got a string"]
    assert driver.attach_required is True


# --- CSIStorageCapacity -----------------------------------------------------------------------------

def test_csi_storage_capacity_full_and_defaults():
    cap, problems = decode(decode_csi_storage_capacity, {
        "apiVersion": "storage.k8s.io/v1beta1", "kind": "CSIStorageCapacity",
        "metadata": {"name": "csisc-1", "namespace": "kube-system"}, "storageClassName": "fast",
        "nodeTopology": {"matchLabels": {"zone": "a"}}, "capacity": "100Gi", "maximumVolumeSize": "1.5"})
    assert problems == []
    assert (cap.meta.namespace, cap.meta.name, cap.storage_class_name, cap.node_topology, cap.capacity,
            cap.maximum_volume_size) == (
        "kube-system", "csisc-1", "fast", LabelSelector(match_labels=(("zone", "a"),)), 100 * GI, 2)
    empty, problems = decode(decode_csi_storage_capacity, {"metadata": {"name": "c"}})
    assert (empty.meta.namespace, empty.storage_class_name, empty.node_topology, empty.capacity,
            empty.maximum_volume_size, problems) == ("default", "", None, None, None, [])


@pytest.mark.parametrize(("raw", "expected"), [
    pytest.param({"capacity": "-1Gi"},
                 'CSIStorageCapacity default/c: capacity: Invalid value: "-1Gi": must be greater than or equal to 0',
                 id="negative"),
    pytest.param({"capacity": "10E"},
                 "CSIStorageCapacity default/c: capacity: '10E': out of range: Kubernetes reads capacity as an int64 "
                 "(Quantity.Value()), at most 9223372036854775807", id="range"),
    pytest.param({"maximumVolumeSize": [1]},
                 "CSIStorageCapacity default/c: maximumVolumeSize: [1]: quantities must match the regular "
                 "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", id="type"),
    pytest.param({"nodeTopology": ["a"]},
                 "CSIStorageCapacity default/c: nodeTopology: expected an object, got a list", id="topology"),
])
def test_csi_storage_capacity_bad_fields(raw: dict, expected: str):
    cap, problems = decode(decode_csi_storage_capacity, {"metadata": {"name": "c"}, **raw})
    assert problems == [expected]
    assert (cap.capacity, cap.maximum_volume_size) == (None, None)


@pytest.mark.parametrize(("decoder", "expected"), [
    pytest.param(decode_persistent_volume_claim, ["PersistentVolumeClaim: spec: expected an object, got a string"],
                 id="claim"),
    pytest.param(decode_persistent_volume, ["PersistentVolume: spec: expected an object, got a string"], id="volume"),
    pytest.param(decode_storage_class, [], id="class (no spec)"),
    pytest.param(decode_csi_node, ["CSINode: spec: expected an object, got a string"], id="csinode"),
    pytest.param(decode_csi_driver, ["CSIDriver: spec: expected an object, got a string"], id="csidriver"),
    pytest.param(decode_csi_storage_capacity, [], id="capacity (no spec)"),
])
def test_not_an_object_spec_or_no_name_is_a_problem_not_a_traceback(decoder: Any, expected: list[str]):
    _, problems = decode(decoder, {"metadata": {}, "spec": "x"})
    assert problems == ["metadata.name: Required value", *expected]


@pytest.mark.parametrize("decoder", [decode_persistent_volume_claim, decode_persistent_volume, decode_storage_class,
                                     decode_csi_node, decode_csi_driver, decode_csi_storage_capacity],
                         ids=lambda d: d.__name__)
def test_not_an_object_at_all(decoder: Any):
    _, problems = decode(decoder, ["x"])
    assert problems == ["metadata.name: Required value"]
