"""Storage objects the volume plugins read: PersistentVolumeClaim, PersistentVolume,
StorageClass, CSINode, CSIDriver and CSIStorageCapacity (``k8s.io/api/core/v1`` and
``storage/v1``), holding the fields kube-scheduler's volume plugins and volume binder use.

Quantities are exact integers of bytes (``storage``) as ``resource.Quantity.Value()`` gives
them (rounded up). A volume source is kept as written (``source``: the one key of
``PersistentVolumeSource`` that is set, and its map), as pods keep ``spec.volumes``: each
plugin reads the sources it knows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruleset.api.meta import LabelSelector, ObjectMeta
from ruleset.api.pod import NodeSelectorTerm

#: ``v1.PersistentVolumeAccessMode`` values.
READ_WRITE_ONCE = "ReadWriteOnce"
READ_ONLY_MANY = "ReadOnlyMany"
READ_WRITE_MANY = "ReadWriteMany"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"

#: ``storagev1.VolumeBindingMode`` values.
BINDING_IMMEDIATE = "Immediate"
BINDING_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"

#: Annotations the PV controller and the binder write (``pkg/controller/volume/persistentvolume/util``).
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
#: The beta annotation naming a class, still honoured by ``GetPersistentVolumeClaimClass``.
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
#: CSINode annotation listing the in-tree plugins migrated to CSI on that node.
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"


@dataclass(frozen=True, slots=True)
class ObjectReference:
    """``claimRef`` of a PersistentVolume (the parts binding compares)."""

    namespace: str = ""
    name: str = ""
    uid: str = ""


@dataclass(eq=False)
class PersistentVolumeClaim:
    """A claim. ``storage_class_name`` is None when ``spec.storageClassName`` is absent (the
    beta annotation, when set, is kept in ``meta.annotations``: :func:`claim_class` reads
    both), "" when it asks for no class."""

    meta: ObjectMeta
    storage_class_name: str | None = None
    volume_name: str = ""
    access_modes: tuple[str, ...] = ()
    #: ``spec.resources.requests.storage`` in bytes (0 when absent).
    request: int = 0
    selector: LabelSelector | None = None
    #: ``spec.volumeMode``: "Filesystem" (the default) or "Block".
    volume_mode: str = "Filesystem"
    #: ``status.phase``: "Pending", "Bound" or "Lost" ("Pending" when absent).
    phase: str = "Pending"

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.meta.namespace}/{self.meta.name}"


@dataclass(eq=False)
class PersistentVolume:
    """A volume. ``source`` is the key of the one volume source set (``csi``,
    ``gcePersistentDisk``, ``awsElasticBlockStore``, ``azureDisk``, ``cinder``, ``rbd``,
    ``iscsi``, ``local``, ``hostPath``, ``nfs`` …; "" when none), ``source_spec`` its map."""

    meta: ObjectMeta
    capacity: int = 0
    access_modes: tuple[str, ...] = ()
    #: ``spec.storageClassName``, or the beta annotation's class, or "".
    storage_class_name: str = ""
    claim_ref: ObjectReference | None = None
    #: ``spec.nodeAffinity.required.nodeSelectorTerms`` (None: no node affinity).
    node_affinity: tuple[NodeSelectorTerm, ...] | None = None
    volume_mode: str = "Filesystem"
    reclaim_policy: str = "Retain"
    #: ``status.phase``: "Pending", "Available", "Bound", "Released" or "Failed".
    phase: str = "Available"
    source: str = ""
    source_spec: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.meta.name


@dataclass(frozen=True, slots=True)
class TopologySelectorRequirement:
    """One ``allowedTopologies[].matchLabelExpressions`` entry: the key is one of ``values``."""

    key: str
    values: tuple[str, ...] = ()


@dataclass(eq=False)
class StorageClass:
    meta: ObjectMeta
    provisioner: str = ""
    volume_binding_mode: str = BINDING_IMMEDIATE
    #: ``allowedTopologies``: each term a list of requirements ANDed; terms ORed; () = any.
    allowed_topologies: tuple[tuple[TopologySelectorRequirement, ...], ...] = ()
    parameters: dict[str, str] = field(default_factory=dict)
    reclaim_policy: str = "Delete"

    @property
    def name(self) -> str:
        return self.meta.name


@dataclass(frozen=True, slots=True)
class CSINodeDriver:
    """One ``CSINode.spec.drivers`` entry; ``allocatable_count`` None when not given."""

    name: str
    node_id: str = ""
    topology_keys: tuple[str, ...] = ()
    allocatable_count: int | None = None


@dataclass(eq=False)
class CSINode:
    """``CSINode``, named after its node."""

    meta: ObjectMeta
    drivers: tuple[CSINodeDriver, ...] = ()

    @property
    def name(self) -> str:
        return self.meta.name

    def driver(self, name: str) -> CSINodeDriver | None:
        for driver in self.drivers:
            if driver.name == name:
                return driver
        return None


@dataclass(eq=False)
class CSIDriver:
    meta: ObjectMeta
    attach_required: bool = True
    #: ``spec.storageCapacity``: whether the scheduler checks CSIStorageCapacity objects.
    storage_capacity: bool = False

    @property
    def name(self) -> str:
        return self.meta.name


@dataclass(eq=False)
class CSIStorageCapacity:
    meta: ObjectMeta
    storage_class_name: str = ""
    #: ``nodeTopology``; None selects no node (upstream: a nil selector matches nothing).
    node_topology: LabelSelector | None = None
    #: ``capacity`` in bytes; None when not reported.
    capacity: int | None = None
    maximum_volume_size: int | None = None


def claim_class(claim: PersistentVolumeClaim) -> str:
    """``storagehelpers.GetPersistentVolumeClaimClass``: the beta annotation wins, then
    ``spec.storageClassName``, else ""."""
    annotated = claim.meta.annotations.get(ANN_BETA_STORAGE_CLASS)
    if annotated is not None:
        return annotated
    return claim.storage_class_name or ""


def claim_provisioner(claim: PersistentVolumeClaim) -> str:
    """The provisioner the claim is waiting for (GA annotation, then the beta one), or ""."""
    annotations = claim.meta.annotations
    return annotations.get(ANN_STORAGE_PROVISIONER) or annotations.get(ANN_BETA_STORAGE_PROVISIONER, "")


@dataclass(frozen=True, slots=True)
class PodClaim:
    """A claim a pod's volume names: ``persistentVolumeClaim.claimName``, or for a generic
    ephemeral volume ``<pod name>-<volume name>`` (``ephemeral=True``; the claim must be
    owned by the pod)."""

    volume: str
    claim_name: str
    read_only: bool = False
    ephemeral: bool = False


def pod_claims(pod_name: str, volumes: tuple[dict[str, Any], ...], ephemeral: bool = True) -> list[PodClaim]:
    """The claims of a pod's ``spec.volumes`` in order (generic ephemeral volumes only with
    ``ephemeral``: the release's GenericEphemeralVolume gate)."""
    claims = []
    for volume in volumes:
        raw_name = volume.get("name")
        name = raw_name if isinstance(raw_name, str) else ""
        pvc = volume.get("persistentVolumeClaim")
        if isinstance(pvc, dict) and isinstance(pvc.get("claimName"), str):
            claims.append(PodClaim(name, pvc["claimName"], bool(pvc.get("readOnly"))))
        elif ephemeral and isinstance(volume.get("ephemeral"), dict):
            claims.append(PodClaim(name, f"{pod_name}-{name}", False, True))
    return claims
