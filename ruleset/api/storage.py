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

from ruleset.api.decode import (
    DecodeContext,
    get_bool,
    get_list,
    get_map,
    get_str,
    get_string_list,
    get_string_map,
)
from ruleset.api.meta import LabelSelector, ObjectMeta, decode_label_selector, decode_meta
from ruleset.api.pod import NodeSelectorTerm, decode_node_selector_term
from ruleset.api.validation import (
    IS_NEGATIVE_ERROR_MSG,
    decode_resource_list,
    get_int32,
    invalid,
    validating,
)
from ruleset.quantity import (
    MAX_INT64,
    QuantityError,
    QuantityRangeError,
    coerce_quantity,
    describe,
    fits_int64,
    value_of,
)

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


# --- decoders -------------------------------------------------------------------------------

#: ``v1.PersistentVolumeSource``'s members in the API's field order (unchanged from 1.20 on).
PERSISTENT_VOLUME_SOURCES = (
    "gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "iscsi", "cinder",
    "cephfs", "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "quobyte", "azureDisk",
    "photonPersistentDisk", "portworxVolume", "scaleIO", "local", "storageos", "csi",
)
#: What the API server writes into absent fields (``pkg/apis/core/v1/defaults.go``,
#: ``pkg/apis/storage/v1/defaults.go``).
DEFAULT_VOLUME_MODE = "Filesystem"
DEFAULT_CLAIM_PHASE = "Pending"
#: A volume without ``status.phase``: the API server stores Pending, and the PV controller's first
#: sync (``syncVolume``) makes an unbound or pre-bound volume Available at once; the binder's
#: ``FindMatchingVolume`` passes over volumes in any other phase, so a hand-written volume is
#: read as the scheduler meets it. Dumps always carry the phase.
DEFAULT_VOLUME_PHASE = "Available"
DEFAULT_VOLUME_RECLAIM_POLICY = "Retain"
DEFAULT_CLASS_RECLAIM_POLICY = "Delete"


def _subject(kind: str, meta: ObjectMeta) -> str:
    name = f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name
    return f"{kind} {name}" if meta.name else kind


def _storage(ctx: DecodeContext, obj: Any, key: str, path: str) -> int:
    """``obj[key]["storage"]`` of a resource list, in bytes (``Quantity.Value()``); 0 when absent."""
    quantities = decode_resource_list(ctx, obj, key, path)
    return value_of(quantities["storage"]) if "storage" in quantities else 0


def _quantity(ctx: DecodeContext, obj: dict, key: str, path: str, nonnegative: bool = False) -> int | None:
    """A single quantity field as ``Quantity.Value()``; None when absent or refused."""
    value = obj.get(key)
    if value is None:
        return None
    too_large = f"out of range: Kubernetes reads {key} as an int64 (Quantity.Value()), at most {MAX_INT64}"
    try:
        quantity = coerce_quantity(value)
    except QuantityRangeError:
        ctx.fail(path, f"{describe(value)}: {too_large}", obj, key)
        return None
    except QuantityError as exc:
        ctx.fail(path, f"{describe(value)}: {exc}", obj, key)
        return None
    if not fits_int64(quantity):
        ctx.fail(path, f"{describe(value)}: {too_large}", obj, key)
        return None
    if nonnegative and quantity < 0 and validating(ctx):
        written = value.strip() if isinstance(value, str) else str(value)
        ctx.fail(path, invalid(written, IS_NEGATIVE_ERROR_MSG), obj, key)
        return None
    return value_of(quantity)


def decode_persistent_volume_claim(ctx: DecodeContext, raw: Any) -> PersistentVolumeClaim:
    """Decode a PersistentVolumeClaim (``spec.volumeMode`` and ``status.phase`` defaulted as the
    API server defaults them: Filesystem, Pending)."""
    meta = decode_meta(ctx, raw, namespaced=True, kind="PersistentVolumeClaim")
    ctx.subject = _subject("PersistentVolumeClaim", meta)
    spec = get_map(ctx, raw, "spec", "spec")
    status = get_map(ctx, raw, "status", "status")
    resources = get_map(ctx, spec, "resources", "spec.resources")
    class_name = None
    if spec.get("storageClassName") is not None:
        class_name = get_str(ctx, spec, "storageClassName", "spec.storageClassName")
    return PersistentVolumeClaim(
        meta=meta,
        storage_class_name=class_name,
        volume_name=get_str(ctx, spec, "volumeName", "spec.volumeName"),
        access_modes=tuple(get_string_list(ctx, spec, "accessModes", "spec.accessModes")),
        request=_storage(ctx, resources, "requests", "spec.resources.requests"),
        selector=decode_label_selector(ctx, spec, "selector", "spec.selector"),
        volume_mode=get_str(ctx, spec, "volumeMode", "spec.volumeMode") or DEFAULT_VOLUME_MODE,
        phase=get_str(ctx, status, "phase", "status.phase") or DEFAULT_CLAIM_PHASE,
    )


def _volume_source(ctx: DecodeContext, spec: dict) -> tuple[str, dict[str, Any]]:
    """The one ``PersistentVolumeSource`` member set; a second is the API server's refusal,
    located at the later one in field order."""
    found = [key for key in PERSISTENT_VOLUME_SOURCES if spec.get(key) is not None]
    if not found:
        return "", {}
    for extra in found[1:]:
        if validating(ctx):
            ctx.fail(f"spec.{extra}", "Forbidden: may not specify more than 1 volume type", spec, extra)
    source = found[0]
    return source, get_map(ctx, spec, source, f"spec.{source}")


def _volume_node_affinity(ctx: DecodeContext, spec: dict) -> tuple[NodeSelectorTerm, ...] | None:
    """``spec.nodeAffinity.required.nodeSelectorTerms``; None without ``required`` (any node)."""
    affinity = get_map(ctx, spec, "nodeAffinity", "spec.nodeAffinity")
    if affinity.get("required") is None:
        return None
    path = "spec.nodeAffinity.required"
    required = get_map(ctx, affinity, "required", path)
    terms = get_list(ctx, required, "nodeSelectorTerms", f"{path}.nodeSelectorTerms")
    out = []
    for i, term in enumerate(terms):
        term_path = f"{path}.nodeSelectorTerms[{i}]"
        if not isinstance(term, dict):
            ctx.fail(term_path, "expected an object", terms, i)
            continue
        out.append(decode_node_selector_term(ctx, term, term_path))
    return tuple(out)


def decode_persistent_volume(ctx: DecodeContext, raw: Any) -> PersistentVolume:
    """Decode a PersistentVolume. The class is ``GetPersistentVolumeClass``'s: the beta
    annotation wins over ``spec.storageClassName``. Absent fields get the API server's
    defaults (reclaim policy Retain, volume mode Filesystem), and an absent phase is Available
    (see :data:`DEFAULT_VOLUME_PHASE`)."""
    meta = decode_meta(ctx, raw, namespaced=False, kind="PersistentVolume")
    ctx.subject = _subject("PersistentVolume", meta)
    spec = get_map(ctx, raw, "spec", "spec")
    status = get_map(ctx, raw, "status", "status")
    claim_ref = None
    if spec.get("claimRef") is not None:
        ref = get_map(ctx, spec, "claimRef", "spec.claimRef")
        claim_ref = ObjectReference(
            namespace=get_str(ctx, ref, "namespace", "spec.claimRef.namespace"),
            name=get_str(ctx, ref, "name", "spec.claimRef.name"),
            uid=get_str(ctx, ref, "uid", "spec.claimRef.uid"),
        )
    class_name = get_str(ctx, spec, "storageClassName", "spec.storageClassName")
    annotated = meta.annotations.get(ANN_BETA_STORAGE_CLASS)
    source, source_spec = _volume_source(ctx, spec)
    return PersistentVolume(
        meta=meta,
        capacity=_storage(ctx, spec, "capacity", "spec.capacity"),
        access_modes=tuple(get_string_list(ctx, spec, "accessModes", "spec.accessModes")),
        storage_class_name=annotated if annotated is not None else class_name,
        claim_ref=claim_ref,
        node_affinity=_volume_node_affinity(ctx, spec),
        volume_mode=get_str(ctx, spec, "volumeMode", "spec.volumeMode") or DEFAULT_VOLUME_MODE,
        reclaim_policy=get_str(ctx, spec, "persistentVolumeReclaimPolicy",
                               "spec.persistentVolumeReclaimPolicy") or DEFAULT_VOLUME_RECLAIM_POLICY,
        phase=get_str(ctx, status, "phase", "status.phase") or DEFAULT_VOLUME_PHASE,
        source=source,
        source_spec=source_spec,
    )


def _allowed_topologies(ctx: DecodeContext, raw: Any) -> tuple[tuple[TopologySelectorRequirement, ...], ...]:
    terms = get_list(ctx, raw, "allowedTopologies", "allowedTopologies")
    out = []
    for i, term in enumerate(terms):
        term_path = f"allowedTopologies[{i}]"
        if not isinstance(term, dict):
            ctx.fail(term_path, "expected an object", terms, i)
            continue
        items = get_list(ctx, term, "matchLabelExpressions", f"{term_path}.matchLabelExpressions")
        requirements = []
        for j, item in enumerate(items):
            item_path = f"{term_path}.matchLabelExpressions[{j}]"
            if not isinstance(item, dict):
                ctx.fail(item_path, "expected an object", items, j)
                continue
            requirements.append(TopologySelectorRequirement(
                key=get_str(ctx, item, "key", f"{item_path}.key"),
                values=tuple(get_string_list(ctx, item, "values", f"{item_path}.values")),
            ))
        out.append(tuple(requirements))
    return tuple(out)


def decode_storage_class(ctx: DecodeContext, raw: Any) -> StorageClass:
    """Decode a StorageClass (reclaim policy Delete and binding mode Immediate when absent)."""
    meta = decode_meta(ctx, raw, namespaced=False, kind="StorageClass")
    ctx.subject = _subject("StorageClass", meta)
    return StorageClass(
        meta=meta,
        provisioner=get_str(ctx, raw, "provisioner", "provisioner"),
        volume_binding_mode=get_str(ctx, raw, "volumeBindingMode", "volumeBindingMode") or BINDING_IMMEDIATE,
        allowed_topologies=_allowed_topologies(ctx, raw),
        parameters=get_string_map(ctx, raw, "parameters", "parameters"),
        reclaim_policy=get_str(ctx, raw, "reclaimPolicy", "reclaimPolicy") or DEFAULT_CLASS_RECLAIM_POLICY,
    )


def decode_csi_node(ctx: DecodeContext, raw: Any) -> CSINode:
    """Decode a CSINode (``spec.drivers``; ``allocatable.count`` an int32, None when absent)."""
    meta = decode_meta(ctx, raw, namespaced=False, kind="CSINode")
    ctx.subject = _subject("CSINode", meta)
    spec = get_map(ctx, raw, "spec", "spec")
    items = get_list(ctx, spec, "drivers", "spec.drivers")
    drivers = []
    for i, item in enumerate(items):
        path = f"spec.drivers[{i}]"
        if not isinstance(item, dict):
            ctx.fail(path, "expected an object", items, i)
            continue
        allocatable = get_map(ctx, item, "allocatable", f"{path}.allocatable")
        drivers.append(CSINodeDriver(
            name=get_str(ctx, item, "name", f"{path}.name"),
            node_id=get_str(ctx, item, "nodeID", f"{path}.nodeID"),
            topology_keys=tuple(get_string_list(ctx, item, "topologyKeys", f"{path}.topologyKeys")),
            allocatable_count=get_int32(ctx, allocatable, "count", f"{path}.allocatable.count"),
        ))
    return CSINode(meta=meta, drivers=tuple(drivers))


def decode_csi_driver(ctx: DecodeContext, raw: Any) -> CSIDriver:
    """Decode a CSIDriver (``attachRequired`` true and ``storageCapacity`` false when absent)."""
    meta = decode_meta(ctx, raw, namespaced=False, kind="CSIDriver")
    ctx.subject = _subject("CSIDriver", meta)
    spec = get_map(ctx, raw, "spec", "spec")
    return CSIDriver(
        meta=meta,
        attach_required=get_bool(ctx, spec, "attachRequired", "spec.attachRequired", default=True),
        storage_capacity=get_bool(ctx, spec, "storageCapacity", "spec.storageCapacity", default=False),
    )


def decode_csi_storage_capacity(ctx: DecodeContext, raw: Any) -> CSIStorageCapacity:
    """Decode a CSIStorageCapacity (namespaced; its fields are top-level, there is no spec).
    A negative ``capacity`` is refused as ``ValidateCSIStorageCapacity`` refuses it."""
    meta = decode_meta(ctx, raw, namespaced=True, kind="CSIStorageCapacity")
    ctx.subject = _subject("CSIStorageCapacity", meta)
    obj = raw if isinstance(raw, dict) else {}
    return CSIStorageCapacity(
        meta=meta,
        storage_class_name=get_str(ctx, obj, "storageClassName", "storageClassName"),
        node_topology=decode_label_selector(ctx, obj, "nodeTopology", "nodeTopology"),
        capacity=_quantity(ctx, obj, "capacity", "capacity", nonnegative=True),
        maximum_volume_size=_quantity(ctx, obj, "maximumVolumeSize", "maximumVolumeSize"),
    )
