"""Storage through the command line, as a user meets it: a StatefulSet whose claims bind to
local PersistentVolumes (the Kubernetes docs' "StatefulSet Basics" ``web.yaml``, its
volumeClaimTemplates as written, and the docs' local-volume StorageClass and PVs), a node at
its CSI attach limit, a volume's zone, a missing claim, and a dump without storage objects.
The unit tables live in ``tests/plugins/test_volume_*.py``, ``test_node_volume_limits_*.py``
and ``tests/workloads/test_stateful_set_claims.py``; these check the wiring.

Fixtures in ``tests/e2e/storage/``: ``web.yaml`` is the docs' StatefulSet (kubernetes.io,
"StatefulSet Basics", replicas raised from 2 to 3); ``local-pvs.yaml`` is three nodes in
zones a, b, c, the docs' ``local-storage`` class (``kubernetes.io/no-provisioner``,
WaitForFirstConsumer; annotated as the default class so the templates' claims get it) and
the docs' local PV twice, pinned to a-1 and b-1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ruleset.cli import main

HERE = Path(__file__).parent / "storage"
NOT_FOUND_1_20 = '0/3 nodes are available: 3 persistentvolumeclaim "nope" not found.'


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:
    code = main([*argv, "-o", "json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out else {}, captured.err


def placements(data: dict) -> list[tuple[str, str | None, str | None]]:
    return [(p["pod"], p["node"], p.get("reason")) for p in data["placements"]]


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(("profile", "reason"), [
    ("default-1.20", "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind."),
    ("default", "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. "
                "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."),
])
def test_a_stateful_set_lands_where_its_volumes_are_and_the_third_replica_says_why(capsys, profile, reason):
    code, data, err = run(capsys, "schedule", "--cluster", str(HERE / "local-pvs.yaml"),
                          "--pods", str(HERE / "web.yaml"), "-p", profile, "-v")
    assert code == 0
    placed = placements(data)
    assert [p[0] for p in placed] == ["default/web-0", "default/web-1", "default/web-2"]
    # One replica beside each volume (the claims are www-web-0 … and bind one PV each), none in zone c.
    assert sorted(node for _, node, _ in placed[:2]) == ["a-1", "b-1"]
    assert placed[2] == ("default/web-2", None, reason)
    notes = [line for line in err.splitlines() if line.startswith(("note: read", "note: created"))]
    assert notes == ["note: read 2 × PersistentVolume", "note: read 1 × StorageClass",
                     "note: created 3 × PersistentVolumeClaim"]


def test_scaling_the_set_to_two_fits_and_a_third_volume_lets_the_third_replica_in(tmp_path, capsys):
    third = (HERE / "local-pvs.yaml").read_text().split("---\napiVersion: v1\nkind: PersistentVolume")[1]
    extra = "---\napiVersion: v1\nkind: PersistentVolume" + third.replace("local-a", "local-c").replace(
        "values: [a-1]", "values: [c-1]")
    cluster = write(tmp_path, "c.yaml", (HERE / "local-pvs.yaml").read_text() + extra)
    code, data, _ = run(capsys, "schedule", "--cluster", cluster, "--pods", str(HERE / "web.yaml"))
    assert code == 0
    assert sorted(node for _, node, _ in placements(data)) == ["a-1", "b-1", "c-1"]


CSI = """\
---
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{topology.kubernetes.io/zone: a}}}}
status: {{allocatable: {{cpu: '8', memory: 32Gi, pods: '110'}}}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {{name: {name}}}
spec:
  drivers:
  - {{name: ebs.csi.aws.com, nodeID: {name}, allocatable: {{count: 1}}}}
"""
PV = """\
---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: {name}, uid: {name}-uid}}
spec:
  capacity: {{storage: 10Gi}}
  accessModes: [ReadWriteOnce]
  storageClassName: gp3
  csi: {{driver: ebs.csi.aws.com, volumeHandle: vol-{name}}}
  claimRef: {{namespace: default, name: {claim}}}
status: {{phase: Bound}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {claim}
  namespace: default
  uid: {claim}-uid
  # What the PV controller writes on binding; without it the claim is not fully bound.
  annotations: {{pv.kubernetes.io/bind-completed: "yes", pv.kubernetes.io/bound-by-controller: "yes"}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: gp3
  volumeName: {name}
  resources: {{requests: {{storage: 10Gi}}}}
status: {{phase: Bound}}
"""
POD = """\
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  {node}containers: [{{name: c, image: nginx}}]
  volumes: [{{name: data, persistentVolumeClaim: {{claimName: {claim}}}}}]
"""


def test_a_node_at_its_csi_attach_limit_is_skipped(tmp_path, capsys):
    cluster = write(tmp_path, "c.yaml", CSI.format(name="n1") + CSI.format(name="n2")
                    + PV.format(name="pv-1", claim="data-1") + PV.format(name="pv-2", claim="data-2")
                    + POD.format(name="old", claim="data-1", node="nodeName: n1\n  ")
                    + "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: gp3}\n"
                      "provisioner: ebs.csi.aws.com\nvolumeBindingMode: WaitForFirstConsumer\n")
    pods = write(tmp_path, "p.yaml", POD.format(name="new", claim="data-2", node=""))
    code, data, _ = run(capsys, "score", "--cluster", cluster, "--pod", pods)
    assert code == 0
    verdicts = {n["name"]: (n["filter"]["code"], n["filter"].get("plugin"), n["filter"].get("reasons"))
                for n in data["nodes"]}
    assert verdicts == {"n1": ("Unschedulable", "NodeVolumeLimits", ["node(s) exceed max volume count"]),
                        "n2": ("Success", None, [])}


ZONED = """\
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-zoned
  uid: pv-zoned-uid
  labels: {topology.kubernetes.io/zone: b}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  gcePersistentDisk: {pdName: disk-1}
  claimRef: {namespace: default, name: zoned}
status: {phase: Bound}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: zoned
  namespace: default
  uid: zoned-uid
  annotations: {pv.kubernetes.io/bind-completed: "yes"}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  volumeName: pv-zoned
  resources: {requests: {storage: 10Gi}}
status: {phase: Bound}
"""


def test_a_bound_volume_keeps_its_pod_in_its_zone(tmp_path, capsys):
    nodes = (HERE / "local-pvs.yaml").read_text().split("---\napiVersion: storage.k8s.io/v1")[0]
    cluster = write(tmp_path, "c.yaml", nodes + ZONED)
    pods = write(tmp_path, "p.yaml", POD.format(name="db", claim="zoned", node=""))
    code, data, _ = run(capsys, "schedule", "--cluster", cluster, "--pods", pods, "-p", "default-1.20")
    assert code == 0
    assert placements(data) == [("default/db", "b-1", None)]
    code, data, _ = run(capsys, "score", "--cluster", cluster, "--pod", pods, "-p", "default-1.20")
    assert {n["name"]: n["filter"].get("reasons") for n in data["nodes"]} == {
        "a-1": ["node(s) had no available volume zone"], "b-1": [],
        "c-1": ["node(s) had no available volume zone"]}


@pytest.mark.parametrize(("profile", "reason"), [
    ("default-1.20", NOT_FOUND_1_20),
    # 1.26 on: the PreFilter message once, then PostFilter's (preemption cannot help a pod no node passes).
    ("default", '0/3 nodes are available: persistentvolumeclaim "nope" not found. preemption: 0/3 nodes are '
                "available: 3 Preemption is not helpful for scheduling."),
])
def test_a_pod_with_a_missing_claim_is_unschedulable_with_upstreams_message(tmp_path, capsys, profile, reason):
    pods = write(tmp_path, "p.yaml", POD.format(name="orphan", claim="nope", node=""))
    code, data, err = run(capsys, "schedule", "--cluster", str(HERE / "local-pvs.yaml"), "--pods", pods,
                          "-p", profile)
    assert (code, placements(data), err) == (0, [("default/orphan", None, reason)], "")


def test_a_claim_the_pv_controller_has_not_finished_binding_waits(tmp_path, capsys):
    """``isPVCFullyBound``: ``volumeName`` without the bind-completed annotation is not bound yet,
    and its class is not WaitForFirstConsumer: the PV controller's to finish, not the scheduler's."""
    nodes = (HERE / "local-pvs.yaml").read_text().split("---\napiVersion: storage.k8s.io/v1")[0]
    cluster = write(tmp_path, "c.yaml", nodes + ZONED.replace('  annotations: {pv.kubernetes.io/bind-completed: "yes"}\n', ""))
    pods = write(tmp_path, "p.yaml", POD.format(name="db", claim="zoned", node=""))
    code, data, _ = run(capsys, "schedule", "--cluster", cluster, "--pods", pods, "-p", "default-1.20")
    assert (code, placements(data)) == (0, [("default/db", None, "0/3 nodes are available: 3 pod has unbound "
                                                                   "immediate PersistentVolumeClaims.")])


def test_without_storage_objects_claims_are_not_checked_and_a_warning_says_so(tmp_path, capsys):
    nodes = (HERE / "local-pvs.yaml").read_text().split("---\napiVersion: storage.k8s.io/v1")[0]
    cluster = write(tmp_path, "c.yaml", nodes)
    pods = write(tmp_path, "p.yaml", POD.format(name="orphan", claim="nope", node="nodeName: ''\n  "))
    code, data, err = run(capsys, "schedule", "--cluster", cluster, "--pods", pods, "-p", "default-1.20")
    assert code == 0
    assert placements(data)[0][1] in ("a-1", "b-1", "c-1")
    assert err == ("warning: <input>: pods mount PersistentVolumeClaims but the input has no storage objects, so "
                   "volume binding, zones and attach limits are not checked (add them: kubectl get "
                   "pvc,pv,storageclass,csinode,csidriver -A -o yaml)\n")
