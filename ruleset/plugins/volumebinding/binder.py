"""The scheduler's volume binder: ``pkg/controller/volume/scheduling/scheduler_binder.go`` of
v1.20 (``plugins/volumebinding/binder.go`` from 1.21), over the snapshot's
:class:`~ruleset.snapshot.VolumeStore` (its assume caches).

* :func:`get_pod_volumes` (``GetPodVolumes``, at PreFilter): the pod's claims, split into
  bound ones (``volumeName`` set and ``pv.kubernetes.io/bind-completed``), unbound ones of a
  WaitForFirstConsumer class, and unbound "immediate" ones (any other class, a missing
  class, or an unbound claim naming a volume: these the PV controller binds, not the
  scheduler).
* :func:`find_pod_volumes` (``FindPodVolumes``, at Filter) for every candidate node: the
  bound claims' volumes must fit the node (node affinity), else ``node(s) had volume node
  affinity conflict``; a bound claim whose volume does not exist gives ``pvc(s) bound to
  non-existent pv(s)`` (1.23 rewords it). Unbound claims: one with a selected node
  (``volume.kubernetes.io/selected-node``, already being provisioned) only fits that node;
  the others, smallest request first, each take the smallest matching available volume
  (:func:`~.matching.find_matching_volume`); the rest must be provisioned: the class must
  have a provisioner (not ``kubernetes.io/no-provisioner``) and ``allowedTopologies`` that
  the node matches, else ``node(s) didn't find available persistent volumes to bind``, and
  where the release checks capacity (CSIStorageCapacity), a CSI driver that opts in
  (``storageCapacity: true``) must publish a CSIStorageCapacity of the class, reachable from
  the node, big enough, else ``node(s) did not have enough free storage``.
* :func:`assume_pod_volumes` (``AssumePodVolumes``, at Reserve): the chosen volumes get the
  claim as ``claimRef``, the claims to provision the selected-node annotation, in the store,
  so the next pod sees them; :func:`revert_assumed_pod_volumes` (Unreserve) puts them back.

Left out: CSI migration (``tryTranslatePVToCSI``: an in-tree volume migrated to CSI on the
node has its node affinity translated, e.g. GCE PD zone labels): volumes are checked as
written. Every node-dependent question is answered for all candidate nodes at once (numpy
columns: which nodes a volume fits, which volume each claim takes on each node, …); nodes
with the same answers share one outcome, computed once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ruleset import NodeSet, Status
from ruleset.api.pod import Pod
from ruleset.api.storage import (
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    BINDING_WAIT_FOR_FIRST_CONSUMER,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    claim_class,
    pod_claims,
)
from ruleset.plugins.volumebinding.matching import (
    NOT_SUPPORTED_PROVISIONER,
    MatchingError,
    bind_volume_to_claim,
    match_on_nodes,
    topology_node_mask,
    volume_node_mask,
)
from ruleset.selector import SelectorError, from_label_selector
from ruleset.snapshot import VolumeStore

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
#: ``ErrReasonPVNotExist`` of v1.20 (kubernetes#95541) and, from 1.23, kubernetes#105196's.
ERR_REASON_PV_NOT_EXIST = "pvc(s) bound to non-existent pv(s)"
ERR_REASON_PV_NOT_EXIST_NODES = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"


class BinderError(Exception):
    """A binder step failed: the hook returns an Error status with this message."""


@dataclass(frozen=True)
class BinderOptions:
    """What the profile's release changes in the binder (read once, by the plugin)."""

    #: Generic ephemeral volumes are claims (GenericEphemeralVolume).
    ephemeral: bool = False
    #: CSIStorageCapacity objects are checked for claims to provision.
    capacity: bool = False
    #: A capacity's ``maximumVolumeSize``, when set, is the limit (else ``capacity``).
    maximum_volume_size: bool = False
    #: The reason for a bound claim whose volume does not exist.
    pv_not_exist_reason: str = ERR_REASON_PV_NOT_EXIST


@dataclass
class PodVolumeClaims:
    """``GetPodVolumes``' answer, in the pod's volume order."""

    bound: list[PersistentVolumeClaim] = field(default_factory=list)
    #: Unbound claims of a WaitForFirstConsumer class (the scheduler binds or provisions them).
    to_bind: list[PersistentVolumeClaim] = field(default_factory=list)
    #: Unbound claims the PV controller should have bound (``unboundClaimsImmediate``).
    immediate: list[PersistentVolumeClaim] = field(default_factory=list)


@dataclass
class PodVolumes:
    """``PodVolumes``: the binding decisions for one node."""

    #: ``(volume, claim)``: a pre-provisioned volume for a claim.
    static_bindings: list[tuple[PersistentVolume, PersistentVolumeClaim]] = field(default_factory=list)
    #: Claims to provision on the node.
    dynamic_provisions: list[PersistentVolumeClaim] = field(default_factory=list)


def is_claim_fully_bound(claim: PersistentVolumeClaim) -> bool:
    """``isPVCFullyBound``: ``volumeName`` set and the PV controller's bind-completed annotation."""
    return claim.volume_name != "" and ANN_BIND_COMPLETED in claim.meta.annotations


def is_controlled_by(claim: PersistentVolumeClaim, pod: Pod) -> bool:
    """``metav1.IsControlledBy(claim, pod)``: the claim's controller reference has the pod's uid."""
    ref = claim.meta.controller()
    return ref is not None and ref.uid == pod.meta.uid


def is_delay_binding_mode(store: VolumeStore, claim: PersistentVolumeClaim) -> bool:
    """``IsDelayBindingMode``: the claim's class exists and is WaitForFirstConsumer (no class,
    or a missing one, is immediate)."""
    name = claim_class(claim)
    if not name:
        return False
    storage_class = store.classes.get(name)
    return storage_class is not None and storage_class.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER


def _pod_claim_objects(store: VolumeStore, pod: Pod,
                       options: BinderOptions) -> list[tuple[PersistentVolumeClaim | None, bool, str]]:
    """``(claim or None, whether it is usable by the pod, its key)`` per claim volume of the pod."""
    out = []
    for ref in pod_claims(pod.name, pod.volumes, ephemeral=options.ephemeral):
        key = f"{pod.namespace}/{ref.claim_name}"
        claim = store.claims.get(key)
        usable = claim is not None and (not ref.ephemeral or is_controlled_by(claim, pod))
        out.append((claim, usable, key))
    return out


def get_pod_volumes(store: VolumeStore, pod: Pod, options: BinderOptions) -> PodVolumeClaims:
    """``GetPodVolumes``; raises :class:`BinderError` for a claim that is missing or (an
    ephemeral volume's) not owned by the pod (PreFilter checked both before)."""
    claims = PodVolumeClaims()
    for claim, usable, key in _pod_claim_objects(store, pod, options):
        if claim is None:
            raise BinderError(f'error getting PVC "{key}": could not find v1.PersistentVolumeClaim "{key}"')
        if not usable:
            raise BinderError(f"PVC {key} is not owned by pod")
        if is_claim_fully_bound(claim):
            claims.bound.append(claim)
        elif is_delay_binding_mode(store, claim) and claim.volume_name == "":
            claims.to_bind.append(claim)
        else:
            claims.immediate.append(claim)
    return claims


def are_pod_volumes_bound(store: VolumeStore, pod: Pod, options: BinderOptions) -> bool:
    """``arePodVolumesBound``: every claim of the pod is there, the pod's, and fully bound."""
    return all(claim is not None and usable and is_claim_fully_bound(claim)
               for claim, usable, _ in _pod_claim_objects(store, pod, options))


# ----------------------------------------------------------------------------- Filter


@dataclass
class NodeOutcome:
    """``FindPodVolumes`` on one node: the decisions, or the reasons, or an error."""

    volumes: PodVolumes | None = None
    reasons: tuple[str, ...] = ()
    error: str | None = None

    def status(self) -> Status | None:
        if self.error is not None:
            return Status.error(self.error)
        if self.reasons:
            return Status.unresolvable(*self.reasons)
        return None


def _capacity_limit(capacity: CSIStorageCapacity, maximum_volume_size: bool) -> int | None:
    """``volumeLimit``: ``maximumVolumeSize`` when set (from 1.21), else ``capacity``."""
    if maximum_volume_size and capacity.maximum_volume_size is not None:
        return capacity.maximum_volume_size
    return capacity.capacity


def capacity_node_mask(store: VolumeStore, claim: PersistentVolumeClaim, storage_class: StorageClass,
                       nodes: NodeSet, options: BinderOptions) -> np.ndarray:
    """``hasEnoughCapacity`` for every node: true unless the release checks capacity, the claim
    asks for storage, and the class's provisioner is a CSI driver with ``storageCapacity``;
    then a CSIStorageCapacity of the class, big enough, whose ``nodeTopology`` selects the
    node must exist. (A request of 0 is taken as no request: the model keeps no difference.)"""
    everywhere = np.ones(len(nodes), dtype=bool)
    if not options.capacity or claim.request == 0:
        return everywhere
    driver = store.csi_drivers.get(storage_class.provisioner)
    if driver is None or not driver.storage_capacity:
        return everywhere
    out = np.zeros(len(nodes), dtype=bool)
    for capacity in store.capacities:
        limit = _capacity_limit(capacity, options.maximum_volume_size)
        if capacity.storage_class_name != storage_class.name or limit is None or limit < claim.request:
            continue
        if capacity.node_topology is None:
            continue
        try:
            out |= nodes.match(from_label_selector(capacity.node_topology))
        except SelectorError:
            continue
    return out


def _volumes_of_class(store: VolumeStore, name: str) -> list[PersistentVolume]:
    """``pvCache.ListPVs(class)``: the volumes of a class, in input order."""
    return [v for v in store.volumes.values() if v.storage_class_name == name]


@dataclass
class _Columns:
    """The node-dependent answers, one integer column per question, over the candidate nodes."""

    names: list[str] = field(default_factory=list)
    columns: list[np.ndarray] = field(default_factory=list)

    def add(self, name: str, column: np.ndarray) -> None:
        self.names.append(name)
        self.columns.append(column.astype(np.int64))


def find_pod_volumes(store: VolumeStore, claims: PodVolumeClaims, nodes: NodeSet,
                     options: BinderOptions) -> list[NodeOutcome]:
    """``FindPodVolumes`` for every node of ``nodes`` (aligned with it).

    Every node-dependent answer is a column over the nodes: each bound claim's volume fits
    (up to the first missing volume, where ``checkBoundClaims`` stops), a claim is being
    provisioned for another node, the volume each claim to match takes there
    (:func:`~.matching.match_on_nodes`), each class's ``allowedTopologies`` and each claim's
    capacity. Nodes with the same answers get the same outcome, computed once."""
    n = len(nodes)
    if n == 0:
        return []
    cols = _Columns()
    masks: dict[str, np.ndarray] = {}

    def mask_of(volume: PersistentVolume) -> np.ndarray:
        mask = masks.get(volume.name)
        if mask is None:
            mask = masks[volume.name] = volume_node_mask(volume, nodes)
        return mask

    missing_pv = False
    bound_ok = np.ones(n, dtype=bool)
    for claim in claims.bound:
        volume = store.volumes.get(claim.volume_name)
        if volume is None:
            missing_pv = True
            break
        bound_ok &= mask_of(volume)
    cols.add("bound", bound_ok)
    names = np.array(nodes.names, dtype=object)
    fast_fail = np.zeros(n, dtype=bool)
    for claim in claims.to_bind:
        selected = claim.meta.annotations.get(ANN_SELECTED_NODE)
        if selected is not None:
            fast_fail |= names != selected
    cols.add("selected-node", fast_fail)
    # Smallest request first (Go's sort of so few claims is an insertion sort: stable).
    to_find = sorted((c for c in claims.to_bind if ANN_SELECTED_NODE not in c.meta.annotations),
                     key=lambda c: c.request)
    volumes = list(store.volumes.values())
    index = {v.name: i for i, v in enumerate(volumes)}
    matching_error = None
    try:
        chosen = match_on_nodes(to_find, lambda c: _volumes_of_class(store, claim_class(c)), index, mask_of,
                                n)
    except MatchingError as exc:
        matching_error, chosen = str(exc), np.full((n, len(to_find)), -1, dtype=np.int64)
    for k in range(len(to_find)):
        cols.add(f"match:{k}", chosen[:, k])
    for claim in claims.to_bind:
        name = claim_class(claim)
        storage_class = store.classes.get(name)
        if storage_class is None:
            continue
        if f"class:{name}" not in cols.names:
            cols.add(f"class:{name}", topology_node_mask(storage_class, nodes))
        cols.add(f"capacity:{claim.key}", capacity_node_mask(store, claim, storage_class, nodes, options))

    matrix = np.stack(cols.columns, axis=1)
    groups, inverse = np.unique(matrix, axis=0, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    outcomes = []
    for row in groups:
        answers = {name: int(row[j]) for j, name in enumerate(cols.names)}
        matched = [(volumes[answers[f"match:{k}"]] if answers[f"match:{k}"] >= 0 else None, claim)
                   for k, claim in enumerate(to_find)]
        outcomes.append(_find_on_node(store, claims, answers, matched, missing_pv, matching_error, options))
    return [outcomes[int(g)] for g in inverse]


def _find_on_node(store: VolumeStore, claims: PodVolumeClaims, answers: dict[str, int],
                  matched: list[tuple[PersistentVolume | None, PersistentVolumeClaim]], missing_pv: bool,
                  matching_error: str | None, options: BinderOptions) -> NodeOutcome:
    """``FindPodVolumes`` on one node, from its answers to the node-dependent questions and
    the volume each claim to match takes there (None: none)."""
    unbound_satisfied = True
    bound_satisfied = True
    sufficient_storage = True
    bound_pvs_found = True
    volumes = PodVolumes()

    def outcome() -> NodeOutcome:
        reasons = []
        if not bound_satisfied:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_satisfied:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not sufficient_storage:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not bound_pvs_found:
            reasons.append(options.pv_not_exist_reason)
        return NodeOutcome(volumes=volumes, reasons=tuple(reasons))

    if claims.bound:
        # checkBoundClaims: the first mismatching volume answers (false, true); a missing one
        # reached before any mismatch answers (true, false).
        bound_satisfied = bool(answers["bound"])
        bound_pvs_found = not (missing_pv and bound_satisfied)
    if claims.to_bind:
        if answers["selected-node"]:
            unbound_satisfied = False  # fast path: a claim is being provisioned for another node
            return outcome()
        to_provision = [c for c in claims.to_bind if ANN_SELECTED_NODE in c.meta.annotations]
        if matched:
            if matching_error is not None:
                return NodeOutcome(error=matching_error)
            volumes.static_bindings = [(volume, claim) for volume, claim in matched if volume is not None]
            unbound = [claim for volume, claim in matched if volume is None]
            unbound_satisfied = not unbound
            to_provision += unbound
        if to_provision:
            result = _check_volume_provisions(store, to_provision, answers)
            if isinstance(result, str):
                return NodeOutcome(error=result)
            unbound_satisfied, sufficient_storage, provisions = result
            volumes.dynamic_provisions = provisions
    return outcome()


def _check_volume_provisions(store: VolumeStore, claims: list[PersistentVolumeClaim],
                             answers: dict[str, int]) -> \
        tuple[bool, bool, list[PersistentVolumeClaim]] | str:
    """``checkVolumeProvisions``: ``(provision satisfied, sufficient storage, claims to
    provision)``, or an error message."""
    provisions = []
    for claim in claims:
        name = claim_class(claim)
        if not name:
            return f'no class for claim "{claim.key}"'
        storage_class = store.classes.get(name)
        if storage_class is None:
            return f'failed to find storage class "{name}"'
        if storage_class.provisioner in ("", NOT_SUPPORTED_PROVISIONER):
            return False, True, []
        if not answers[f"class:{name}"]:
            return False, True, []
        if not answers[f"capacity:{claim.key}"]:
            return True, False, []
        provisions.append(claim)
    return True, True, provisions


# ---------------------------------------------------------------------- Reserve, Unreserve


def assume_pod_volumes(store: VolumeStore, pod: Pod, node_name: str, volumes: PodVolumes,
                       options: BinderOptions) -> bool:
    """``AssumePodVolumes``: True (nothing to do) when every claim of the pod is fully bound;
    else each chosen volume, bound to its claim (``GetBindVolumeToClaim``), and each claim to
    provision, annotated with the selected node, replace the store's objects (the originals
    are kept for :func:`revert_assumed_pod_volumes`), and ``volumes`` holds the new objects."""
    if are_pod_volumes_bound(store, pod, options):
        return True
    bindings = []
    for volume, claim in volumes.static_bindings:
        new_volume, dirty = bind_volume_to_claim(volume, claim)
        if dirty:
            store.assume_volume(new_volume)
        bindings.append((new_volume, claim))
    provisions = []
    for claim in volumes.dynamic_provisions:
        annotations = {**claim.meta.annotations, ANN_SELECTED_NODE: node_name}
        meta = dataclasses.replace(claim.meta, annotations=annotations)
        clone = dataclasses.replace(claim, meta=meta)
        store.assume_claim(clone)
        provisions.append(clone)
    volumes.static_bindings = bindings
    volumes.dynamic_provisions = provisions
    return False


def revert_assumed_pod_volumes(store: VolumeStore, volumes: PodVolumes) -> None:
    """``RevertAssumedPodVolumes``: the store's volumes and claims as they were."""
    for volume, _ in volumes.static_bindings:
        store.restore_volume(volume.name)
    for claim in volumes.dynamic_provisions:
        store.restore_claim(claim.key)


def bind_pod_volumes(store: VolumeStore, volumes: PodVolumes) -> None:
    """``BindPodVolumes`` in a simulation: the API updates are the assumed objects, which
    become the truth (no PV controller runs: claims keep ``volumeName`` unset, the chosen
    volumes their ``claimRef``, provisioned claims their selected node)."""
    store.forget(claim_keys=[c.key for c in volumes.dynamic_provisions],
                 volume_names=[v.name for v, _ in volumes.static_bindings])
