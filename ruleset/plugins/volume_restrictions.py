"""VolumeRestrictions (Filter; PreFilter from 1.22): volumes a pod cannot share with the pods
already on a node, and from 1.22 ReadWriteOncePod claims it cannot share with any pod.

Filter (every release) rejects a node with Unschedulable ``node(s) had no available disk``
when one of the pod's inline volumes conflicts with a volume of a pod on it
(``isVolumeConflict``):

* GCE PD: the same ``pdName``, unless both are read-only;
* AWS EBS: the same ``volumeID``;
* RBD: a shared monitor, the same pool (``rbd`` when unset, the API default) and image,
  unless both are read-only;
* iSCSI: the same ``iqn``, unless both are read-only.

ReadWriteOncePod (gate ``ReadWriteOncePod``: alpha 1.22, beta and on 1.27, GA 1.29): the
pod's ``persistentVolumeClaim`` volumes are looked up (a missing claim refuses the pod,
UnschedulableAndUnresolvable ``persistentvolumeclaim "x" not found``); a claim with that
access mode that some pod on any node already uses (``StorageInfos().IsPVCUsedByPods``)
refuses it:

* 1.22-1.26 (:data:`READ_WRITE_ONCE_POD`): at PreFilter, UnschedulableAndUnresolvable
  ``node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access
  mode``;
* from 1.27 (:data:`RWOP_PREEMPTION`): PreFilter counts the conflicting claims and Filter
  rejects every node with that reason, Unschedulable, so preemption can free the claim
  (AddPod/RemovePod recount the claims a pod uses, by claim name).

From 1.27 (:data:`PRE_FILTER_SKIP`) PreFilter returns Skip for a pod with none of the four
inline volumes and no conflicting claim: the framework then runs neither its Filter nor its
PreFilter extensions for the pod (upstream's ``SkipFilterPlugins``).

A snapshot without storage objects (``snapshot.storage.is_empty()``) looks no claim up:
ReadWriteOncePod finds nothing; inline volumes are checked as always.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ruleset import (
    OTHER_PODS_ANY,
    OTHER_PODS_IGNORED,
    Code,
    CycleState,
    FilterResult,
    Handle,
    NodeSet,
    Plugin,
    Snapshot,
    Status,
    hookimpl,
    switch,
)
from ruleset.api.pod import Pod
from ruleset.api.storage import READ_WRITE_ONCE_POD as RWOP_MODE

NAME = "VolumeRestrictions"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_RWOP_CONFLICT = ("node has pod using PersistentVolumeClaim with the same name and "
                            "ReadWriteOncePod access mode")
RWOP_GATE = "ReadWriteOncePod"
#: The inline volume sources Filter compares (``needsRestrictionsCheck``).
RESTRICTED_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")
#: ``SetDefaults_RBDVolumeSource``: the pool of an RBD volume that names none.
DEFAULT_RBD_POOL = "rbd"

_REF = "pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go"
READ_WRITE_ONCE_POD = switch(
    "VolumeRestrictions.read-write-once-pod", "1.22",
    "PreFilter looks the pod's claims up (a missing one: UnschedulableAndUnresolvable 'persistentvolumeclaim "
    "\"x\" not found') and refuses a ReadWriteOncePod claim another pod already uses",
    _REF + " (kubernetes#103082)", gate=RWOP_GATE)
RWOP_PREEMPTION = switch(
    "VolumeRestrictions.read-write-once-pod-preemption", "1.27",
    "a ReadWriteOncePod conflict is counted at PreFilter and rejects every node at Filter, Unschedulable "
    "(was UnschedulableAndUnresolvable at PreFilter): preemption can free the claim",
    _REF + " (kubernetes#114051)")
PRE_FILTER_SKIP = switch(
    "VolumeRestrictions.prefilter-skip", "1.27",
    "PreFilter skips a pod with no GCE PD, EBS, RBD or iSCSI volume and no conflicting ReadWriteOncePod "
    "claim: Filter does not run for it", _REF + " (kubernetes#114898)")


def _source(volume: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    value = volume.get(key)
    return value if isinstance(value, dict) else None


def needs_restrictions_check(volume: Mapping[str, Any]) -> bool:
    """``needsRestrictionsCheck``: a GCE PD, EBS, RBD or iSCSI volume."""
    return any(_source(volume, key) is not None for key in RESTRICTED_SOURCES)


def _both_read_only(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return bool(a.get("readOnly")) and bool(b.get("readOnly"))


def _monitors(rbd: Mapping[str, Any]) -> set[str]:
    monitors = rbd.get("monitors")
    return {m for m in monitors if isinstance(m, str)} if isinstance(monitors, list) else set()


def is_volume_conflict(volume: Mapping[str, Any], existing_volumes: Iterable[Mapping[str, Any]]) -> bool:
    """``isVolumeConflict``: whether ``volume`` conflicts with any of a pod's volumes."""
    gce, ebs = _source(volume, "gcePersistentDisk"), _source(volume, "awsElasticBlockStore")
    iscsi, rbd = _source(volume, "iscsi"), _source(volume, "rbd")
    for existing in existing_volumes:
        other = _source(existing, "gcePersistentDisk")
        if (gce is not None and other is not None and gce.get("pdName", "") == other.get("pdName", "")
                and not _both_read_only(gce, other)):
            return True
        other = _source(existing, "awsElasticBlockStore")
        if ebs is not None and other is not None and ebs.get("volumeID", "") == other.get("volumeID", ""):
            return True
        other = _source(existing, "iscsi")
        if (iscsi is not None and other is not None and iscsi.get("iqn", "") == other.get("iqn", "")
                and not _both_read_only(iscsi, other)):
            return True
        other = _source(existing, "rbd")
        if rbd is not None and other is not None:
            same_image = (rbd.get("pool") or DEFAULT_RBD_POOL) == (other.get("pool") or DEFAULT_RBD_POOL) \
                and rbd.get("image", "") == other.get("image", "")
            if _monitors(rbd) & _monitors(other) and same_image and not _both_read_only(rbd, other):
                return True
    return False


def conflicting_nodes(snapshot: Snapshot, indices: np.ndarray,
                      volumes: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Which of the nodes ``indices`` hold a pod whose volumes conflict with ``volumes``
    (``satisfyVolumeConflicts`` false)."""
    out = np.zeros(len(indices), dtype=bool)
    for k, i in enumerate(indices):
        for existing in snapshot.pods_on(int(i)):
            if any(is_volume_conflict(volume, existing.volumes) for volume in volumes):
                out[k] = True
                break
    return out


def claim_names(pod: Pod) -> list[str]:
    """The ``claimName`` of each ``persistentVolumeClaim`` volume, in order (ephemeral volumes
    are not looked at)."""
    names = []
    for volume in pod.volumes:
        pvc = _source(volume, "persistentVolumeClaim")
        if pvc is not None:
            name = pvc.get("claimName")
            names.append(name if isinstance(name, str) else "")
    return names


def used_claims(snapshot: Snapshot) -> set[str]:
    """``namespace/claimName`` of every claim a pod on some node uses (the snapshot's
    ``usedPVCSet``)."""
    used: set[str] = set()
    for i in range(snapshot.num_nodes):
        for pod in snapshot.pods_on(i):
            used.update(f"{pod.namespace}/{name}" for name in claim_names(pod))
    return used


def not_found(name: str) -> Status:
    """The lister's NotFound error for a claim, as PreFilter returns it."""
    return Status.unresolvable(f'persistentvolumeclaim "{name}" not found')


def rwop_claims(pod: Pod, snapshot: Snapshot) -> tuple[list[str], Status | None]:
    """``readWriteOncePodPVCsForPod``: the names of the pod's claims with the ReadWriteOncePod
    access mode (in order, once each), or the status of the first claim that does not exist.
    Nothing when the snapshot has no storage object."""
    store = snapshot.storage
    if store.is_empty():
        return [], None
    names: list[str] = []
    for name in claim_names(pod):
        claim = store.claim(pod.namespace, name)
        if claim is None:
            return [], not_found(name)
        if RWOP_MODE in claim.access_modes and name not in names:
            names.append(name)
    return names, None


@dataclass
class PreFilterState:
    """``preFilterState`` (1.27+): the pod's ReadWriteOncePod claim names and how many of them
    scheduled pods use."""

    claims: frozenset[str]
    conflicts: int

    def clone(self) -> PreFilterState:
        return PreFilterState(self.claims, self.conflicts)

    def update_with_pod(self, pod: Pod, multiplier: int) -> None:
        # Upstream counts by claim name only, whatever the namespace of the pod added.
        self.conflicts += multiplier * sum(1 for name in claim_names(pod) if name in self.claims)


_SKIP = Status(Code.SKIP)


class VolumeRestrictions(Plugin):
    """Rejects nodes where a pod's GCE PD, EBS, RBD or iSCSI volume is in use in a conflicting
    way, and (from 1.22, gate ReadWriteOncePod) pods whose ReadWriteOncePod claim is in use."""

    name = NAME
    points_since: ClassVar[Mapping[str, str]] = {"preFilter": "1.22"}

    def __init__(self, args: Any = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        target = self.handle.target
        self._rwop = target.has(READ_WRITE_ONCE_POD)
        self._preemption = target.has(RWOP_PREEMPTION)
        self._skip = target.has(PRE_FILTER_SKIP)

    @hookimpl
    def ruleset_pre_filter(self, state: CycleState, pod: Pod, snapshot: Snapshot) -> Status | None:
        if not self._preemption:
            if not self._rwop:
                return None
            claims, status = rwop_claims(pod, snapshot)
            if status is not None:
                return status
            used = used_claims(snapshot) if claims else set()
            if any(f"{pod.namespace}/{name}" in used for name in claims):
                return Status.unresolvable(ERR_REASON_RWOP_CONFLICT)
            return None
        needs_check = any(needs_restrictions_check(volume) for volume in pod.volumes)
        if not self._rwop:
            return _SKIP if not needs_check and self._skip else None
        claims, status = rwop_claims(pod, snapshot)
        if status is not None:
            return status
        used = used_claims(snapshot) if claims else set()
        conflicts = sum(1 for name in claims if f"{pod.namespace}/{name}" in used)
        if not needs_check and conflicts == 0 and self._skip:
            return _SKIP
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(frozenset(claims), conflicts))
        return None

    def _update(self, state: CycleState, pod: Pod, multiplier: int) -> Status | None:
        if not (self._preemption and self._rwop):
            return None
        found = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(found, PreFilterState):
            return Status.error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        found.update_with_pod(pod, multiplier)
        return None

    @hookimpl
    def ruleset_pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_to_add: Pod, node: int,
                                   snapshot: Snapshot) -> Status | None:
        return self._update(state, pod_to_add, +1)

    @hookimpl
    def ruleset_pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: Pod, node: int,
                                      snapshot: Snapshot) -> Status | None:
        return self._update(state, pod_to_remove, -1)

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """A pod without volumes passes every node, whatever pods run there."""
        return OTHER_PODS_ANY if pod.volumes else OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        found = state.get(PRE_FILTER_STATE_KEY)
        volumes = [volume for volume in pod.volumes if needs_restrictions_check(volume)]
        disk = conflicting_nodes(nodes.snapshot, nodes.indices, volumes) if volumes else None
        if not (self._preemption and self._rwop):
            if disk is None or not disk.any():
                return None
            return FilterResult.reject(disk, Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT)
        if not isinstance(found, PreFilterState):
            error = f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState'
            if disk is None:
                return FilterResult.error(len(nodes), error)
            # Upstream: the disk conflict is found first, the missing state only on other nodes.
            return _two_reasons(disk, Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT, Code.ERROR, error)
        if found.conflicts > 0:
            if disk is None:
                return FilterResult.reject(np.ones(len(nodes), dtype=bool), Code.UNSCHEDULABLE,
                                           ERR_REASON_RWOP_CONFLICT)
            return _two_reasons(disk, Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT, Code.UNSCHEDULABLE,
                                ERR_REASON_RWOP_CONFLICT)
        if disk is None or not disk.any():
            return None
        return FilterResult.reject(disk, Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT)


def _two_reasons(first: np.ndarray, first_code: Code, first_reason: str, rest_code: Code,
                 rest_reason: str) -> FilterResult:
    """Nodes where ``first`` holds get the first status, every other node the second."""
    codes = np.where(first, np.int8(first_code), np.int8(rest_code)).astype(np.int8)
    index = np.where(first, 1, 2).astype(np.int32)
    return FilterResult(codes, [(), (first_reason,), (rest_reason,)], index)
