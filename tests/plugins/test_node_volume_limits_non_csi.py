"""EBSLimits, GCEPDLimits, AzureDiskLimits, CinderLimits: the cases of upstream's
``pkg/scheduler/framework/plugins/nodevolumelimits/non_csi_test.go`` (``TestEBSLimits``'s
table and the ``TestMaxVolumeFunc*`` instance types) as of v1.20.0, rebuilt on ruleset's
objects: a node whose ``attachable-volumes-<type>`` allocatable is the table's ``maxVols``,
claims ``some<Type>Vol`` (bound to a volume of the type), ``someNon<Type>Vol`` (bound to an
NFS volume), ``pvcWithDeletedPV`` (bound to a missing volume), ``unboundPVC`` (class
``standard-sc`` with the type's provisioner), ``unboundPVCwithInvalidSCName`` and
``unboundPVCwithDefaultSCPod`` (no class). Left out: ``KUBE_MAX_PD_VOLS`` (``TestGetMaxVols``:
ruleset ignores the scheduler's environment), the cases with a CSINode and the CSIMigration*
gates enabled by hand (ruleset has no such gates; a release where the gate is on by default
is tested instead), and the BalanceAttachedNodeVolumes transient info (not a Filter outcome).
The 1.21+ claim-lookup error and generic ephemeral volumes are tested at 1.21.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from ruleset import CycleState, Handle, Snapshot, Status
from ruleset.api.meta import ObjectMeta, OwnerReference
from ruleset.api.pod import Pod
from ruleset.api.storage import CSINode, PersistentVolume, PersistentVolumeClaim, StorageClass
from ruleset.kversion import KubeVersion, Target
from ruleset.plugins.nodevolumelimits import AzureDiskLimits, CinderLimits, EBSLimits, GCEPDLimits
from ruleset.plugins.nodevolumelimits.non_csi import NonCSILimits, instance_type, max_ebs_volumes
from ruleset.snapshot import VolumeStore
from ruleset.testing import cluster, node
from ruleset.testing.builders import decode_pod_manifest, pod_manifest

EXCEEDED = Status.unschedulable("node(s) exceed max volume count")

# kind -> (plugin, inline source key, its ID field, in-tree provisioner)
TYPES: dict[str, tuple[type[NonCSILimits], str, str, str]] = {
    "EBS": (EBSLimits, "awsElasticBlockStore", "volumeID", "kubernetes.io/aws-ebs"),
    "GCE": (GCEPDLimits, "gcePersistentDisk", "pdName", "kubernetes.io/gce-pd"),
    "AzureDisk": (AzureDiskLimits, "azureDisk", "diskName", "kubernetes.io/azure-disk"),
    "Cinder": (CinderLimits, "cinder", "volumeID", "kubernetes.io/cinder"),
}


def inline(kind: str, vol_id: str) -> dict[str, Any]:
    _, source, field, _ = TYPES[kind]
    return {"name": f"v-{vol_id}", source: {field: vol_id}}


def claim_vol(name: str) -> dict[str, Any]:
    return {"name": f"c-{name}", "persistentVolumeClaim": {"claimName": name}}


def a_pod(name: str, *volumes: dict[str, Any], node_name: str | None = None, uid: str = "") -> Pod:
    raw = pod_manifest(name, node_name=node_name, volumes=list(volumes))
    if uid:
        raw["metadata"]["uid"] = uid
    return decode_pod_manifest(raw)


def store(kind: str) -> VolumeStore:
    _, source, field, provisioner = TYPES[kind]

    def pvc(name: str, volume: str = "", cls: str | None = None) -> PersistentVolumeClaim:
        return PersistentVolumeClaim(ObjectMeta(name, "default"), storage_class_name=cls, volume_name=volume)

    return VolumeStore.of(
        claims=[pvc(f"some{kind}Vol", f"some{kind}Vol"), pvc(f"someNon{kind}Vol", f"someNon{kind}Vol"),
                pvc("pvcWithDeletedPV", "pvcWithDeletedPV", "standard-sc"),
                pvc("anotherPVCWithDeletedPV", "anotherPVCWithDeletedPV", "standard-sc"),
                pvc("unboundPVC", cls="standard-sc"), pvc("anotherUnboundPVC", cls="standard-sc"),
                pvc("unboundPVCwithDefaultSCPod", cls=""), pvc("unboundPVCwithInvalidSCName", cls="invalid-sc")],
        volumes=[PersistentVolume(ObjectMeta(f"some{kind}Vol"), source=source, source_spec={field: f"{kind}Vol"}),
                 PersistentVolume(ObjectMeta(f"someNon{kind}Vol"), source="nfs", source_spec={"path": "/"})],
        classes=[StorageClass(ObjectMeta("standard-sc"), provisioner=provisioner)])


def run(cls: type[NonCSILimits], pod: Pod, existing: list[Pod], max_vols: int | None, volumes: VolumeStore,
        version: str = "1.20", labels: dict[str, str] | None = None) -> Status | None:
    resources = {} if max_vols is None else {cls.limit_key: max_vols}
    state = cluster([node("node", resources=resources, labels=labels)], existing)
    snapshot: Snapshot = state.snapshot
    snapshot.storage = volumes
    handle = Handle(snapshot)
    profile = SimpleNamespace(name="t", percentage_of_nodes_to_score=None,
                              target=Target(KubeVersion.parse(version), explicit=True))
    handle.framework = SimpleNamespace(profile=profile)  # type: ignore[assignment]
    return cls(None, handle).filter_node(CycleState(), pod, snapshot.node_info(0))


def on(*pods: Pod) -> list[Pod]:
    """The pods placed on the node (renamed: a table may place the same pod twice)."""
    return [decode_pod_manifest(pod_manifest(f"{p.meta.name}-{i}", node_name="node", volumes=list(p.volumes)))
            for i, p in enumerate(pods)]


def ebs_cases(kind: str) -> list[Any]:
    one_vol = a_pod("onePod", inline(kind, "ovp"))
    split = a_pod("split", inline(kind, "svp"), {"name": "host", "hostPath": {"path": "/"}})
    two_vol = a_pod("twoPod", inline(kind, "tvp1"), inline(kind, "tvp2"))
    non_applicable = a_pod("nonApplicable", {"name": "host", "hostPath": {"path": "/"}})
    one_pvc = a_pod("onePVC", claim_vol(f"some{kind}Vol"))
    split_pvc = a_pod("splitPVC", claim_vol(f"some{kind}Vol"), claim_vol(f"someNon{kind}Vol"))
    deleted_pv = a_pod("deletedPV", claim_vol("pvcWithDeletedPV"))
    two_deleted = a_pod("twoDeleted", claim_vol("pvcWithDeletedPV"), claim_vol("anotherPVCWithDeletedPV"))
    another_deleted = a_pod("anotherDeleted", claim_vol("anotherPVCWithDeletedPV"))
    unbound = a_pod("unbound", claim_vol("unboundPVC"))
    another_unbound = a_pod("anotherUnbound", claim_vol("anotherUnboundPVC"))
    invalid_sc = a_pod("invalidSC", claim_vol("unboundPVCwithInvalidSCName"))
    default_sc = a_pod("defaultSC", claim_vol("unboundPVCwithDefaultSCPod"))
    deleted_pvc = a_pod("deletedPVC", claim_vol("deletedPVC"))
    return [
        pytest.param(kind, one_vol, on(two_vol, one_vol), 4, None, id=f"{kind}-fits-when-capacity-suffices"),
        pytest.param(kind, two_vol, on(one_vol), 2, EXCEEDED, id=f"{kind}-exceeds-capacity"),
        pytest.param(kind, split, on(two_vol), 3, None, id=f"{kind}-new-pod-ignores-other-volumes"),
        pytest.param(kind, two_vol, on(split, non_applicable), 3, None, id=f"{kind}-existing-ignore-other-volumes"),
        pytest.param(kind, one_pvc, on(split, non_applicable, two_vol), 3, EXCEEDED,
                     id=f"{kind}-new-pod-counts-claims-of-the-type"),
        pytest.param(kind, split_pvc, on(split, one_vol), 3, None, id=f"{kind}-new-pod-ignores-other-claims"),
        pytest.param(kind, two_vol, on(split, non_applicable, one_pvc), 3, EXCEEDED,
                     id=f"{kind}-existing-count-claims-of-the-type"),
        pytest.param(kind, two_vol, on(one_vol, two_vol, one_pvc), 4, None, id=f"{kind}-mounted-volumes-allowed"),
        pytest.param(kind, split_pvc, on(one_vol, one_vol, one_pvc), 3, None, id=f"{kind}-same-volume-counted-once"),
        pytest.param(kind, one_pvc, on(one_pvc), 1, None, id=f"{kind}-same-claim-counted-once"),
        pytest.param(kind, one_vol, on(deleted_pv), 2, None, id=f"{kind}-missing-pv-counts-below-limit"),
        pytest.param(kind, two_vol, on(deleted_pv), 2, EXCEEDED, id=f"{kind}-missing-pv-counts-over-limit"),
        pytest.param(kind, deleted_pv, on(two_deleted), 2, None, id=f"{kind}-two-pods-missing-same-pv-once"),
        pytest.param(kind, another_deleted, on(two_deleted), 2, None, id=f"{kind}-missing-pvs-counted-once-each"),
        pytest.param(kind, another_deleted, on(deleted_pv, two_vol), 2, EXCEEDED,
                     id=f"{kind}-different-missing-pvs-count"),
        pytest.param(kind, one_vol, on(unbound), 2, None, id=f"{kind}-unbound-claim-counts-below-limit"),
        pytest.param(kind, two_vol, on(unbound), 2, EXCEEDED, id=f"{kind}-unbound-claim-counts-over-limit"),
        pytest.param(kind, unbound, on(unbound), 1, None, id=f"{kind}-same-unbound-claim-once"),
        pytest.param(kind, another_unbound, on(unbound), 1, EXCEEDED, id=f"{kind}-two-unbound-claims"),
        pytest.param(kind, invalid_sc, on(two_vol), 2, None, id=f"{kind}-unbound-claim-unknown-class-ignored"),
        pytest.param(kind, default_sc, on(two_vol), 2, None, id=f"{kind}-unbound-claim-no-class-ignored"),
        pytest.param(kind, deleted_pvc, on(two_vol), 2, None, id=f"{kind}-missing-claim-not-counted"),
        pytest.param(kind, non_applicable, on(two_vol, one_vol), 1, None, id=f"{kind}-pod-without-volumes-of-type"),
    ]


@pytest.mark.parametrize(("kind", "pod", "existing", "max_vols", "want"),
                         [case for kind in TYPES for case in ebs_cases(kind)])
def test_limits_table(kind: str, pod: Pod, existing: list[Pod], max_vols: int, want: Status | None) -> None:
    assert run(TYPES[kind][0], pod, existing, max_vols, store(kind)) == want


@pytest.mark.parametrize(("cls", "count", "labels", "want"), [
    pytest.param(EBSLimits, 39, {}, None, id="ebs-39-default"),
    pytest.param(EBSLimits, 40, {}, EXCEEDED, id="ebs-40-default"),
    pytest.param(EBSLimits, 25, {"node.kubernetes.io/instance-type": "m5.large"}, None, id="ebs-25-nitro"),
    pytest.param(EBSLimits, 26, {"beta.kubernetes.io/instance-type": "m5.large"}, EXCEEDED, id="ebs-26-nitro-beta"),
    pytest.param(GCEPDLimits, 16, {}, None, id="gce-16"),
    pytest.param(GCEPDLimits, 17, {}, EXCEEDED, id="gce-17"),
    pytest.param(AzureDiskLimits, 17, {}, EXCEEDED, id="azure-17"),
    pytest.param(CinderLimits, 256, {}, None, id="cinder-256"),
    pytest.param(CinderLimits, 257, {}, EXCEEDED, id="cinder-257"),
])
def test_default_maximum_without_allocatable(cls: type[NonCSILimits], count: int, labels: dict[str, str],
                                             want: Status | None) -> None:
    kind = next(k for k, v in TYPES.items() if v[0] is cls)
    pod = a_pod("p", *(inline(kind, f"v{i}") for i in range(count)))
    assert run(cls, pod, [], None, VolumeStore(), labels=labels) == want


@pytest.mark.parametrize(("instance", "want"), [
    ("m5.large", 25), ("t3.medium", 25), ("r5.large", 25), ("c5.xlarge", 25), ("z1d.large", 25),
    ("m4.2xlarge", 39), ("", 39),
])
def test_max_volume_func_instance_types(instance: str, want: int) -> None:
    assert max_ebs_volumes(instance) == want


def test_instance_type_prefers_the_stable_label() -> None:
    labels = {"beta.kubernetes.io/instance-type": "m4.large", "node.kubernetes.io/instance-type": "m5.large"}
    assert instance_type(node("n", labels=labels)) == "m5.large"


def test_empty_storage_still_counts_inline_volumes_and_skips_claims() -> None:
    pod = a_pod("p", inline("EBS", "a"), claim_vol("someEBSVol"), claim_vol("unboundPVC"))
    assert run(EBSLimits, pod, [], 1, VolumeStore()) is None
    assert run(EBSLimits, a_pod("p", inline("EBS", "a"), inline("EBS", "b")), [], 1, VolumeStore()) == EXCEEDED


def test_claim_without_name_is_an_error() -> None:
    pod = a_pod("p", {"name": "c", "persistentVolumeClaim": {"claimName": ""}})
    assert run(EBSLimits, pod, [], 1, store("EBS")) == Status.error("PersistentVolumeClaim had no name")


def test_missing_claim_of_new_pod_is_an_error_from_1_21() -> None:
    pod = a_pod("p", claim_vol("deletedPVC"))
    assert run(EBSLimits, pod, [], 1, store("EBS"), "1.20") is None
    assert run(EBSLimits, pod, [], 1, store("EBS"), "1.21") == Status.error(
        'looking up PVC default/deletedPVC: persistentvolumeclaim "deletedPVC" not found')


@pytest.mark.parametrize(("owner_uid", "at_1_21"), [
    pytest.param("u1", EXCEEDED, id="owned-claim-counts"),
    pytest.param("other", Status.error("PVC default/p-eph was not created for pod default/p (pod is not owner)"),
                 id="claim-of-another-owner-is-an-error"),
])
def test_generic_ephemeral_volume_counts_from_1_21(owner_uid: str, at_1_21: Status) -> None:
    volumes = store("EBS")
    owned = PersistentVolumeClaim(ObjectMeta("p-eph", "default", owner_references=(
        OwnerReference("Pod", "p", owner_uid, controller=True),)), storage_class_name="standard-sc")
    volumes.claims[owned.key] = owned
    pod = a_pod("p", {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}, inline("EBS", "a"),
                uid="u1")
    assert run(EBSLimits, pod, [], 1, volumes, "1.20") is None
    assert run(EBSLimits, pod, [], 1, volumes, "1.21") == at_1_21


def test_migrated_plugin_defers_to_csi_when_the_gate_is_on_by_default() -> None:
    volumes = store("EBS")
    volumes.csi_nodes["node"] = CSINode(ObjectMeta("node", annotations={
        "storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs"}))
    pod = a_pod("p", inline("EBS", "a"), inline("EBS", "b"))
    assert run(EBSLimits, pod, [], 1, volumes, "1.20") == EXCEEDED
    assert run(EBSLimits, pod, [], 1, volumes, "1.23") is None


@pytest.mark.parametrize("cls", [EBSLimits, GCEPDLimits, AzureDiskLimits, CinderLimits])
def test_removed_in_1_32(cls: type[NonCSILimits]) -> None:
    assert (cls.introduced_in, cls.removed_in) == (None, "1.32")
    assert cls.replaced_by.startswith("NodeVolumeLimits")
