"""NodeVolumeLimits: the cases of upstream's ``pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go``
(``TestCSILimits``) as of v1.20.0, rebuilt on ruleset's objects, and the cases the newest
csi_test.go adds for what later releases changed (generic ephemeral volumes, migrated inline
volumes, missing claims). Drivers ``ebs.csi.aws.com`` and ``gce`` (``pd.csi.storage.googleapis.com``
for migration); limits come from the CSINode's ``allocatable.count`` (or the node's
``attachable-volumes-csi-<driver>`` when there is no CSINode). Left out: the cases that enable
the CSIMigration* gates by hand at 1.20 (ruleset has no such gates: the release where a gate
is on by default is tested instead), and the CSINode-less "limit from node" variants that only
repeat the table through the node's allocatable (one case covers that path).
"""

from __future__ import annotations

import hashlib
from types import SimpleNamespace
from typing import Any

import pytest

from ruleset import CycleState, Handle, Snapshot, Status
from ruleset.api.meta import ObjectMeta, OwnerReference
from ruleset.api.pod import Pod
from ruleset.api.storage import (
    ANN_MIGRATED_PLUGINS,
    CSINode,
    CSINodeDriver,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from ruleset.kversion import KubeVersion, Target
from ruleset.plugins.nodevolumelimits import NodeVolumeLimits
from ruleset.plugins.nodevolumelimits.utils import csi_attach_limit_key
from ruleset.snapshot import VolumeStore
from ruleset.testing import cluster, node
from ruleset.testing.builders import decode_pod_manifest, pod_manifest

EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.googleapis.com"
EXCEEDED = Status.unschedulable("node(s) exceed max volume count")


def claim_vol(name: str) -> dict[str, Any]:
    return {"name": f"c-{name}", "persistentVolumeClaim": {"claimName": name}}


def a_pod(name: str, *volumes: dict[str, Any], uid: str = "") -> Pod:
    raw = pod_manifest(name, volumes=list(volumes))
    if uid:
        raw["metadata"]["uid"] = uid
    return decode_pod_manifest(raw)


def on(*pods: Pod) -> list[Pod]:
    """The pods placed on the node (renamed: a table may place the same pod twice)."""
    return [decode_pod_manifest(pod_manifest(f"{p.meta.name}-{i}", node_name="node", volumes=list(p.volumes)))
            for i, p in enumerate(pods)]


def pvc(name: str, volume: str = "", cls: str | None = None) -> PersistentVolumeClaim:
    return PersistentVolumeClaim(ObjectMeta(name, "default"), storage_class_name=cls, volume_name=volume)


def csi_pv(name: str, driver: str, handle: str) -> PersistentVolume:
    return PersistentVolume(ObjectMeta(name), source="csi", source_spec={"driver": driver, "volumeHandle": handle})


def objects() -> dict[str, list[Any]]:
    """``getFakeCSIPVLister``/``getFakeCSIPVCLister``/``getFakeCSIStorageClassLister``: claim
    ``<driver>-<n>`` bound to volume ``<driver>-vol-<n>`` with handle ``<driver>-vol-<n>``."""
    claims, volumes = [], []
    for driver in (EBS, GCE):
        for i in range(4):
            claims.append(pvc(f"{driver}-{i}", f"{driver}-vol-{i}"))
            volumes.append(csi_pv(f"{driver}-vol-{i}", driver, f"{driver}-vol-{i}"))
    claims += [pvc(f"{EBS}-3-pending", cls=f"{EBS}-sc"), pvc(f"{EBS}-4-pending", cls=f"{EBS}-sc"),
               pvc("missing-pv", "nonexistent-pv", f"{EBS}-sc"), pvc("missing-pv-no-sc", "nonexistent-pv"),
               pvc("no-sc", cls="")]
    claims += [pvc("aws-inline-migrated", "aws-vol", "ebs-intree-sc"), pvc("aws-pending", cls="ebs-intree-sc")]
    volumes.append(PersistentVolume(ObjectMeta("aws-vol"), source="awsElasticBlockStore",
                                    source_spec={"volumeID": "aws://us-east-1a/vol-aws"}))
    classes = [StorageClass(ObjectMeta(f"{EBS}-sc"), provisioner=EBS),
               StorageClass(ObjectMeta("ebs-intree-sc"), provisioner="kubernetes.io/aws-ebs")]
    return {"claims": claims, "volumes": volumes, "classes": classes}


def store(limits: dict[str, int] | None, migrated: str = "", no_csi_node: bool = False) -> VolumeStore:
    nodes = []
    if not no_csi_node:
        drivers = tuple(CSINodeDriver(name, allocatable_count=count) for name, count in (limits or {}).items())
        annotations = {ANN_MIGRATED_PLUGINS: migrated} if migrated else {}
        nodes.append(CSINode(ObjectMeta("node", annotations=annotations), drivers))
    return VolumeStore.of(csi_nodes=nodes, **objects())


def run(pod: Pod, existing: list[Pod], volumes: VolumeStore, version: str = "1.20",
        resources: dict[str, int] | None = None) -> Status | None:
    state = cluster([node("node", resources=resources)], existing)
    snapshot: Snapshot = state.snapshot
    snapshot.storage = volumes
    handle = Handle(snapshot)
    profile = SimpleNamespace(name="t", percentage_of_nodes_to_score=None,
                              target=Target(KubeVersion.parse(version), explicit=True))
    handle.framework = SimpleNamespace(profile=profile)  # type: ignore[assignment]
    return NodeVolumeLimits(None, handle).filter_node(CycleState(), pod, snapshot.node_info(0))


ebs_two = a_pod("csi-ebs.csi.aws.com-2", claim_vol(f"{EBS}-0"), claim_vol(f"{EBS}-1"))
ebs_one = a_pod("csi-ebs.csi.aws.com-3", claim_vol(f"{EBS}-3"))
ebs_same_as_two = a_pod("same", claim_vol(f"{EBS}-0"))
gce_two = a_pod("gce-two", claim_vol(f"{GCE}-0"), claim_vol(f"{GCE}-1"))
pending_one = a_pod("pending", claim_vol(f"{EBS}-3-pending"))
pending_two = a_pod("pending-two", claim_vol(f"{EBS}-3-pending"), claim_vol(f"{EBS}-4-pending"))
missing_pv = a_pod("missing-pv", claim_vol("missing-pv"))
missing_pv_no_sc = a_pod("missing-pv-no-sc", claim_vol("missing-pv-no-sc"))
no_sc = a_pod("no-sc", claim_vol("no-sc"))
missing_pvc = a_pod("missing-pvc", claim_vol("no-such-claim"))
in_tree = a_pod("in-tree", claim_vol("aws-inline-migrated"))
in_tree_pending = a_pod("in-tree-pending", claim_vol("aws-pending"))
aws_inline = a_pod("aws-inline", {"name": "a", "awsElasticBlockStore": {"volumeID": "vol-aws"}})
no_volumes = a_pod("plain")


@pytest.mark.parametrize(("pod", "existing", "limits", "want"), [
    pytest.param(ebs_one, on(ebs_two), {EBS: 4}, None, id="fits-when-limit-above-count"),
    pytest.param(ebs_one, on(ebs_two), {EBS: 2}, EXCEEDED, id="exceeds-when-limit-below-count"),
    pytest.param(ebs_one, on(ebs_two), {EBS: 3}, None, id="fits-exactly"),
    pytest.param(ebs_same_as_two, on(ebs_two), {EBS: 2}, None, id="volume-already-attached-counted-once"),
    pytest.param(ebs_two, on(ebs_two, ebs_two), {EBS: 2}, None, id="same-claims-on-two-pods-counted-once"),
    pytest.param(ebs_one, on(ebs_two), {GCE: 2}, None, id="driver-without-limit-not-checked"),
    pytest.param(ebs_one, on(ebs_two), None, None, id="no-limits-at-all"),
    pytest.param(gce_two, on(ebs_two), {EBS: 2, GCE: 2}, None, id="drivers-counted-apart"),
    pytest.param(gce_two, on(ebs_two), {EBS: 2, GCE: 1}, EXCEEDED, id="second-driver-over-its-limit"),
    pytest.param(pending_one, on(ebs_two), {EBS: 2}, EXCEEDED, id="pending-claim-counts-via-class"),
    pytest.param(pending_one, on(ebs_two), {EBS: 3}, None, id="pending-claim-below-limit"),
    pytest.param(pending_two, on(ebs_one), {EBS: 2}, EXCEEDED, id="two-pending-claims"),
    pytest.param(pending_one, on(pending_one), {EBS: 1}, None, id="same-pending-claim-counted-once"),
    pytest.param(missing_pv, on(ebs_two), {EBS: 2}, EXCEEDED, id="missing-pv-counts-via-class"),
    pytest.param(missing_pv_no_sc, on(ebs_two), {EBS: 2}, None, id="missing-pv-without-class-not-counted"),
    pytest.param(no_sc, on(ebs_two), {EBS: 2}, None, id="unbound-claim-without-class-not-counted"),
    pytest.param(missing_pvc, on(ebs_two), {EBS: 2}, None, id="missing-claim-not-counted-at-1.20"),
    pytest.param(ebs_one, on(missing_pvc, ebs_two), {EBS: 3}, None, id="missing-claim-of-existing-pod-skipped"),
    pytest.param(no_volumes, on(ebs_two), {EBS: 0}, None, id="pod-without-volumes"),
    pytest.param(in_tree, on(ebs_two), {EBS: 2}, None, id="in-tree-pv-not-migrated-at-1.20"),
    pytest.param(in_tree_pending, on(ebs_two), {EBS: 2}, None, id="in-tree-class-not-migrated-at-1.20"),
    pytest.param(aws_inline, on(ebs_two), {EBS: 2}, None, id="inline-in-tree-not-counted-at-1.20"),
])
def test_csi_limits_table(pod: Pod, existing: list[Pod], limits: dict[str, int] | None,
                          want: Status | None) -> None:
    assert run(pod, existing, store(limits, migrated="kubernetes.io/aws-ebs")) == want


@pytest.mark.parametrize(("limit", "want"), [(3, None), (2, EXCEEDED)])
def test_limit_from_node_allocatable_without_csinode(limit: int, want: Status | None) -> None:
    resources = {csi_attach_limit_key(EBS): limit}
    assert run(ebs_one, on(ebs_two), store(None, no_csi_node=True), resources=resources) == want


def test_csinode_count_overrides_node_allocatable() -> None:
    resources = {csi_attach_limit_key(EBS): 10}
    assert run(ebs_one, on(ebs_two), store({EBS: 2}), resources=resources) == EXCEEDED


def test_csi_attach_limit_key() -> None:
    assert csi_attach_limit_key(EBS) == "attachable-volumes-csi-ebs.csi.aws.com"
    long_name = "a" * 40  # 23 + 40 >= 63: the first 23 characters and 16 hex digits of its SHA-1
    digest = hashlib.sha1(long_name.encode()).hexdigest()[:16]
    assert csi_attach_limit_key(long_name) == "attachable-volumes-csi-" + "a" * 23 + digest


def test_empty_storage_checks_no_claims() -> None:
    assert run(ebs_one, on(ebs_two), VolumeStore(), resources={csi_attach_limit_key(EBS): 0}) is None
    assert run(missing_pvc, [], VolumeStore(), "1.35", resources={csi_attach_limit_key(EBS): 0}) is None


@pytest.mark.parametrize(("version", "want"), [
    pytest.param("1.20", None, id="1.20-not-counted"),
    pytest.param("1.21", Status.error('looking up PVC default/no-such-claim: persistentvolumeclaim '
                                      '"no-such-claim" not found'), id="1.21-error"),
    pytest.param("1.30", Status.unresolvable('looking up PVC default/no-such-claim: persistentvolumeclaim '
                                             '"no-such-claim" not found'), id="1.30-unresolvable"),
])
def test_missing_claim_of_the_pod_to_schedule(version: str, want: Status | None) -> None:
    assert run(missing_pvc, on(ebs_two), store({EBS: 2}), version) == want


def test_existing_pod_missing_claim_is_skipped_in_every_release() -> None:
    assert run(ebs_one, on(missing_pvc, ebs_two), store({EBS: 3}), "1.35") is None


@pytest.mark.parametrize(("owner_uid", "at_1_21"), [
    pytest.param("u1", EXCEEDED, id="owned-claim-counts"),
    pytest.param("other", Status.error("PVC default/p-eph was not created for pod default/p (pod is not owner)"),
                 id="claim-of-another-owner-is-an-error"),
])
def test_generic_ephemeral_volume_from_1_21(owner_uid: str, at_1_21: Status) -> None:
    volumes = store({EBS: 2})
    claim = PersistentVolumeClaim(ObjectMeta("p-eph", "default", owner_references=(
        OwnerReference("Pod", "p", owner_uid, controller=True),)), volume_name=f"{EBS}-vol-3")
    volumes.claims[claim.key] = claim
    pod = a_pod("p", {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}, uid="u1")
    assert run(pod, on(ebs_two), volumes, "1.20") is None
    assert run(pod, on(ebs_two), volumes, "1.21") == at_1_21


@pytest.mark.parametrize(("pod", "version", "migrated", "want"), [
    pytest.param(in_tree, "1.22", "kubernetes.io/aws-ebs", None, id="pv-gate-off-before-1.23"),
    pytest.param(in_tree, "1.23", "kubernetes.io/aws-ebs", EXCEEDED, id="pv-migrated-counts"),
    pytest.param(in_tree, "1.23", "", None, id="pv-not-listed-in-annotation"),
    pytest.param(in_tree_pending, "1.23", "kubernetes.io/aws-ebs", EXCEEDED, id="in-tree-class-migrated"),
    pytest.param(in_tree_pending, "1.23", "kubernetes.io/gce-pd", None, id="in-tree-class-other-plugin-listed"),
    pytest.param(aws_inline, "1.23", "kubernetes.io/aws-ebs", EXCEEDED, id="inline-migrated-counts"),
    pytest.param(aws_inline, "1.22", "kubernetes.io/aws-ebs", None, id="inline-gate-off-before-1.23"),
])
def test_in_tree_volumes_migrated_to_csi(pod: Pod, version: str, migrated: str, want: Status | None) -> None:
    assert run(pod, on(ebs_two), store({EBS: 2}, migrated=migrated), version) == want


def test_migrated_pv_and_inline_volume_of_the_same_disk_count_once() -> None:
    both = a_pod("both", claim_vol("aws-inline-migrated"),
                 {"name": "a", "awsElasticBlockStore": {"volumeID": "vol-aws"}})
    assert run(both, on(ebs_one), store({EBS: 2}, migrated="kubernetes.io/aws-ebs"), "1.23") is None


def test_claim_without_name_is_an_error() -> None:
    pod = a_pod("p", {"name": "c", "persistentVolumeClaim": {"claimName": ""}})
    assert run(pod, [], store({EBS: 2})) == Status.error("PersistentVolumeClaim had no name")
