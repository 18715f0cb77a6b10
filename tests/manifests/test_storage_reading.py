"""Storage objects read from manifests into the snapshot's ``VolumeStore``: YAML streams (core
v1 and storage.k8s.io v1 / v1beta1), ``kind: List`` and typed lists, the kube-scheduler-simulator
export (``pvs``, ``pvcs``, ``storageClasses``: ``simulator/snapshot/snapshot.go``
``ResourcesForSnap``; it exports no CSI object), duplicates, and what ``--verbose`` says."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ruleset.cli import main
from ruleset.cluster import build_cluster_state
from ruleset.errors import RulesetError
from ruleset.manifests import load_manifests

GI = 1024**3

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
"""

STORAGE = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: db}
spec:
  storageClassName: fast
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  local: {path: /mnt/disk}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 25}}]
---
apiVersion: storage.k8s.io/v1beta1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {attachRequired: true, storageCapacity: true}
---
apiVersion: storage.k8s.io/v1beta1
kind: CSIStorageCapacity
metadata: {name: cap-a, namespace: kube-system}
storageClassName: fast
nodeTopology: {matchLabels: {topology.kubernetes.io/zone: a}}
capacity: 100Gi
"""

STORAGE_KINDS = {"PersistentVolumeClaim": 1, "PersistentVolume": 1, "StorageClass": 1, "CSINode": 1,
                 "CSIDriver": 1, "CSIStorageCapacity": 1}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def store_contents(paths: list[Path]) -> tuple:
    store = build_cluster_state(load_manifests(paths)).snapshot.storage
    return (list(store.claims), list(store.volumes), list(store.classes), list(store.csi_nodes),
            list(store.csi_drivers), [f"{c.meta.namespace}/{c.meta.name}" for c in store.capacities])


def test_a_yaml_stream_of_every_storage_kind(tmp_path):
    path = write(tmp_path, "c.yaml", NODE + "---\n" + STORAGE)
    cluster = load_manifests([path])
    assert dict(cluster.kinds) == {"Node": 1, **STORAGE_KINDS}
    assert dict(cluster.skipped) == {}
    store = build_cluster_state(cluster).snapshot.storage
    assert store.is_empty() is False
    claim = store.claim("db", "data")
    assert claim is not None and (claim.request, claim.storage_class_name, claim.phase) == (5 * GI, "fast", "Pending")
    volume = store.volumes["pv-1"]
    assert (volume.capacity, volume.source, volume.source_spec, volume.phase) == (
        10 * GI, "local", {"path": "/mnt/disk"}, "Available")
    assert volume.meta.origin is not None and (volume.meta.origin.file, volume.meta.origin.line) == (str(path), 14)
    assert store.classes["fast"].volume_binding_mode == "WaitForFirstConsumer"
    assert store.csi_nodes["n1"].drivers[0].allocatable_count == 25
    assert store.csi_drivers["ebs.csi.aws.com"].storage_capacity is True
    assert [(c.storage_class_name, c.capacity) for c in store.capacities] == [("fast", 100 * GI)]


def test_a_v1_list_and_typed_lists(tmp_path):
    items = [json.loads(json.dumps(d)) for d in (
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-a"},
         "spec": {"capacity": {"storage": "1Gi"}, "csi": {"driver": "d", "volumeHandle": "h"}}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "x"}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "std"},
         "provisioner": "d"},
    )]
    listed = write(tmp_path, "list.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    typed = write(tmp_path, "pvcs.json", json.dumps({
        "apiVersion": "v1", "kind": "PersistentVolumeClaimList",
        "items": [{"metadata": {"name": "c2", "namespace": "x"}}]}))
    drivers = write(tmp_path, "drivers.yaml", """\
        apiVersion: storage.k8s.io/v1
        kind: CSIDriverList
        items:
        - metadata: {name: d}
        """)
    assert store_contents([listed, typed, drivers]) == (["x/c", "x/c2"], ["pv-a"], ["std"], [], ["d"], [])


def test_a_simulator_export(tmp_path):
    doc = {"nodes": [{"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1"}}}],
           "pods": [],
           "pvs": [{"metadata": {"name": "pv-1"}, "spec": {"capacity": {"storage": "2Gi"},
                                                         "hostPath": {"path": "/d"}}}],
           "pvcs": [{"metadata": {"name": "c", "namespace": "default"},
                     "spec": {"resources": {"requests": {"storage": "1Gi"}}, "volumeName": "pv-1"}}],
           "storageClasses": [{"metadata": {"name": "s"}, "provisioner": "p"}],
           "priorityClasses": [], "schedulerConfig": None, "namespaces": [{"metadata": {"name": "default"}}]}
    path = write(tmp_path, "export.json", json.dumps(doc))
    cluster = load_manifests([path])
    assert dict(cluster.kinds) == {"Node": 1, "PersistentVolume": 1, "PersistentVolumeClaim": 1, "StorageClass": 1,
                                   "<simulator namespaces>": 1}
    assert dict(cluster.skipped) == {"<simulator namespaces>": 1}
    assert store_contents([path]) == (["default/c"], ["pv-1"], ["s"], [], [], [])


def test_a_dump_without_storage_objects_gives_an_empty_store(tmp_path):
    store = build_cluster_state(load_manifests([write(tmp_path, "c.yaml", NODE)])).snapshot.storage
    assert store.is_empty() is True


def test_a_bad_storage_field_is_a_located_error(tmp_path):
    path = write(tmp_path, "c.yaml", STORAGE.replace("capacity: 100Gi", "capacity: lots"))
    with pytest.raises(RulesetError) as exc:
        load_manifests([path])
    assert [str(p) for p in exc.value.problems] == [
        f"{path}:44: CSIStorageCapacity kube-system/cap-a: capacity: 'lots': quantities must match the regular "
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]


def test_duplicates_are_located_errors(tmp_path):
    first = write(tmp_path, "a.yaml", STORAGE)
    second = write(tmp_path, "b.yaml", STORAGE)
    with pytest.raises(RulesetError) as exc:
        build_cluster_state(load_manifests([first, second]))
    assert [str(p) for p in exc.value.problems] == [
        f"{second}:1: PersistentVolumeClaim db/data: duplicate PersistentVolumeClaim 'db/data' (first at {first}:1)",
        f"{second}:9: PersistentVolume pv-1: duplicate PersistentVolume 'pv-1' (first at {first}:9)",
        f"{second}:22: StorageClass fast: duplicate StorageClass 'fast' (first at {first}:22)",
        f"{second}:28: CSINode n1: duplicate CSINode 'n1' (first at {first}:28)",
        f"{second}:34: CSIDriver ebs.csi.aws.com: duplicate CSIDriver 'ebs.csi.aws.com' (first at {first}:34)",
        f"{second}:39: CSIStorageCapacity kube-system/cap-a: duplicate CSIStorageCapacity 'kube-system/cap-a' "
        f"(first at {first}:39)",
    ]


def test_verbose_counts_the_storage_objects_read_and_no_longer_calls_them_skipped(tmp_path, capsys):
    cluster = write(tmp_path, "c.yaml", NODE + "---\n" + STORAGE + "---\napiVersion: v1\nkind: Event\n"
                                                                   "metadata: {name: e}\n")
    pods = write(tmp_path, "p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                                     "spec: {containers: [{name: c}]}\n")
    assert main(["schedule", "--cluster", str(cluster), "--pods", str(pods), "-o", "json", "-v"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith(("note: skipped", "note: read"))]
    assert notes == ["note: read 1 × PersistentVolumeClaim", "note: read 1 × PersistentVolume",
                     "note: read 1 × StorageClass", "note: read 1 × CSINode", "note: read 1 × CSIDriver",
                     "note: read 1 × CSIStorageCapacity", "note: skipped 1 × Event"]
