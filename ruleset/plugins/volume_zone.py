"""VolumeZone (Filter; PreFilter from 1.27): a bound volume's zone and region labels must
match the node's.

For each ``persistentVolumeClaim`` volume of the pod the claim is looked up; an unbound claim
whose StorageClass binds ``WaitForFirstConsumer`` is skipped; otherwise the bound
PersistentVolume's ``failure-domain.beta.kubernetes.io/zone`` / ``region`` and
``topology.kubernetes.io/zone`` / ``region`` labels, each a ``__``-separated set of values
(``volumehelpers.LabelZonesToSet``; a value with an empty member is ignored), must contain
the node's value of the same label. A node with none of those four labels fits (a
single-zone cluster). A mismatch is UnschedulableAndUnresolvable ``node(s) had no available
volume zone``.

What cannot be looked up:

* v1.20 Filter (per node with a zone label, volume by volume): an Error — ``PersistentVolumeClaim
  had no name``; the lister's ``persistentvolumeclaim "x" not found``; ``PersistentVolumeClaim
  had no pv name and storageClass name``; ``StorageClass "c" claimed by PersistentVolumeClaim
  "x" not found``; ``VolumeBindingMode not set for StorageClass "c"``; ``PersistentVolume had
  no name`` (an unbound claim of an Immediate class); ``persistentvolume "v" not found``.
* from 1.22 (:data:`LOOKUP_UNRESOLVABLE`, kubernetes#102306, also cherry-picked to 1.20 and
  1.21 patch releases) the same messages are UnschedulableAndUnresolvable, and a missing class
  is the lister's ``storageclass.storage.k8s.io "c" not found``.
* from 1.27 (:data:`PRE_FILTER`) PreFilter looks everything up once, before any node: a
  failure refuses the pod on every node (nodes without zone labels included), and for a pod
  with no zone-labelled bound volume it returns Skip (:data:`PRE_FILTER_SKIP`): the framework
  then does not run its Filter.

From 1.28 (:data:`BETA_TO_GA`) a volume's beta label also matches the node's GA label of the
same kind when the node lacks the beta one.

A snapshot without storage objects (``snapshot.storage.is_empty()``) looks nothing up: every
node fits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ruleset import (
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
from ruleset.api.storage import BINDING_WAIT_FOR_FIRST_CONSUMER, claim_class

NAME = "VolumeZone"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
GA_ZONE = "topology.kubernetes.io/zone"
GA_REGION = "topology.kubernetes.io/region"
#: ``topologyLabels``, in upstream's order (v1.20's ``volumeZoneLabels`` set holds the same four).
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION)
_GA_OF = {BETA_ZONE: GA_ZONE, BETA_REGION: GA_REGION}
#: ``LabelMultiZoneDelimiter``.
MULTI_ZONE_DELIMITER = "__"

_REF = "pkg/scheduler/framework/plugins/volumezone/volume_zone.go"
LOOKUP_UNRESOLVABLE = switch(
    "VolumeZone.lookup-unresolvable", "1.22",
    "a claim, class or volume that cannot be found (or a claim without name, class or volume) is "
    "UnschedulableAndUnresolvable, no longer an Error; a missing class reads 'storageclass.storage.k8s.io "
    "\"c\" not found'", _REF + " (kubernetes#102306)")
PRE_FILTER = switch(
    "VolumeZone.prefilter", "1.27",
    "PreFilter looks the pod's claims and volumes up once: a lookup failure refuses the pod on every node, "
    "and a pod without a zone-labelled bound volume skips Filter", _REF + " (kubernetes#114149, #114896)")
PRE_FILTER_SKIP = switch(
    "VolumeZone.prefilter-skip", "1.27",
    "PreFilter returns Skip for a pod without a zone-labelled bound volume: its Filter is not run",
    _REF + " (PreFilter, kubernetes#114896)")
BETA_TO_GA = switch(
    "VolumeZone.beta-to-ga-labels", "1.28",
    "a volume's failure-domain.beta.kubernetes.io zone or region label also matches the node's "
    "topology.kubernetes.io label when the node lacks the beta one", _REF + " (kubernetes#118923)")


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """``volumehelpers.LabelZonesToSet``: the ``__``-separated values, trimmed; None (an error
    upstream, which ignores the label) when one is empty."""
    zones = set()
    for zone in value.split(MULTI_ZONE_DELIMITER):
        trimmed = zone.strip()
        if not trimmed:
            return None
        zones.add(trimmed)
    return frozenset(zones)


@dataclass(frozen=True)
class PVTopology:
    """``pvTopology``: one zone label of a bound volume and its values."""

    pv_name: str
    key: str
    values: frozenset[str]


def pv_topologies(name: str, labels: Mapping[str, str]) -> list[PVTopology]:
    """``getPVTopologies``: the volume's zone labels in :data:`TOPOLOGY_LABELS` order."""
    out = []
    for key in TOPOLOGY_LABELS:
        value = labels.get(key)
        if value is not None:
            values = label_zones_to_set(value)
            if values is not None:
                out.append(PVTopology(name, key, values))
    return out


_SKIP = Status(Code.SKIP)


class VolumeZone(Plugin):
    """Rejects nodes whose zone or region labels differ from those of a bound volume the pod
    uses (through its PersistentVolumeClaims)."""

    name = NAME
    points_since: ClassVar[Mapping[str, str]] = {"preFilter": "1.27"}

    def __init__(self, args: Any = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        target = self.handle.target
        self._unresolvable = target.has(LOOKUP_UNRESOLVABLE)
        self._pre_filter = target.has(PRE_FILTER)
        self._pre_filter_skip = target.has(PRE_FILTER_SKIP)
        self._beta_to_ga = target.has(BETA_TO_GA)

    # ------------------------------------------------------------------ lookups
    def _failed(self, message: str) -> Status:
        return Status.unresolvable(message) if self._unresolvable else Status.error(message)

    def _volume(self, pod: Pod, volume: Mapping[str, Any],
                snapshot: Snapshot) -> tuple[str, Mapping[str, str]] | Status | None:
        """One ``persistentVolumeClaim`` volume: its bound volume's ``(name, labels)``, None when
        there is nothing to check (not a claim, or unbound and waiting for its first consumer),
        or the status of what could not be looked up."""
        pvc = volume.get("persistentVolumeClaim")
        if not isinstance(pvc, dict):
            return None
        name = pvc.get("claimName")
        if not isinstance(name, str) or not name:
            return self._failed("PersistentVolumeClaim had no name")
        store = snapshot.storage
        claim = store.claim(pod.namespace, name)
        if claim is None:
            return self._failed(f'persistentvolumeclaim "{name}" not found')
        pv_name = claim.volume_name
        if not pv_name:
            class_name = claim_class(claim)
            if not class_name:
                return self._failed("PersistentVolumeClaim had no pv name and storageClass name")
            storage_class = store.classes.get(class_name)
            if storage_class is None:
                if self._unresolvable:
                    return self._failed(f'storageclass.storage.k8s.io "{class_name}" not found')
                return self._failed(f'StorageClass "{class_name}" claimed by PersistentVolumeClaim "{name}" '
                                    "not found")
            if not storage_class.volume_binding_mode:
                return self._failed(f'VolumeBindingMode not set for StorageClass "{class_name}"')
            if storage_class.volume_binding_mode == BINDING_WAIT_FOR_FIRST_CONSUMER:
                return None
            return self._failed("PersistentVolume had no name")
        bound = store.volumes.get(pv_name)
        if bound is None:
            return self._failed(f'persistentvolume "{pv_name}" not found')
        return pv_name, bound.meta.labels

    def pod_topologies(self, pod: Pod, snapshot: Snapshot) -> list[PVTopology] | Status:
        """``getPVbyPod`` (1.27+): the zone labels of every bound volume of the pod, or the
        status of the first lookup that failed."""
        out: list[PVTopology] = []
        if snapshot.storage.is_empty():
            return out
        for volume in pod.volumes:
            found = self._volume(pod, volume, snapshot)
            if isinstance(found, Status):
                return found
            if found is not None:
                out.extend(pv_topologies(*found))
        return out

    # ------------------------------------------------------------------ hooks
    @hookimpl
    def ruleset_pre_filter(self, state: CycleState, pod: Pod, snapshot: Snapshot) -> Status | None:
        if not self._pre_filter:
            return None
        found = self.pod_topologies(pod, snapshot)
        if isinstance(found, Status):
            return found
        if not found and self._pre_filter_skip:
            return _SKIP
        state.write(PRE_FILTER_STATE_KEY, found)
        return None

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Its verdicts read the node and the pod only: other pods never change them."""
        return OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        if not pod.volumes or nodes.snapshot.storage.is_empty():
            return None
        if not self._pre_filter:
            return self._filter_v120(pod, nodes)
        found = state.get(PRE_FILTER_STATE_KEY)
        # Without PreFilter's state, upstream looks the volumes up again in Filter.
        topologies = found if isinstance(found, list) else self.pod_topologies(pod, nodes.snapshot)
        if isinstance(topologies, Status):
            return FilterResult.from_statuses([topologies] * len(nodes))
        conflict = Status.unresolvable(ERR_REASON_CONFLICT)
        statuses = [self._check(node.labels, topologies, conflict) for node in nodes.nodes]
        return FilterResult.from_statuses(statuses)

    def _check(self, labels: Mapping[str, str], topologies: list[PVTopology],
               conflict: Status) -> Status | None:
        if not any(key in labels for key in TOPOLOGY_LABELS):
            return None
        for topology in topologies:
            value = labels.get(topology.key)
            if value is None and self._beta_to_ga:
                value = labels.get(_GA_OF.get(topology.key, topology.key))
            if value is None or value not in topology.values:
                return conflict
        return None

    def _filter_v120(self, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        """v1.20's Filter: each node with a zone label checks the pod's volumes in order, a
        lookup failure or the first mismatching label deciding. Nodes with the same zone labels
        get the same answer, so each combination is worked out once."""
        snapshot = nodes.snapshot
        answers: dict[tuple[tuple[str, str], ...], Status | None] = {}
        statuses: list[Status | None] = []
        for node in nodes.nodes:
            constraints = tuple((key, node.labels[key]) for key in TOPOLOGY_LABELS if key in node.labels)
            if not constraints:
                statuses.append(None)
                continue
            if constraints not in answers:
                answers[constraints] = self._node_v120(pod, dict(constraints), snapshot)
            statuses.append(answers[constraints])
        if not any(statuses):
            return None
        return FilterResult.from_statuses(statuses)

    def _node_v120(self, pod: Pod, constraints: Mapping[str, str], snapshot: Snapshot) -> Status | None:
        for volume in pod.volumes:
            found = self._volume(pod, volume, snapshot)
            if found is None:
                continue
            if isinstance(found, Status):
                return found
            _, labels = found
            for key, value in labels.items():
                if key not in TOPOLOGY_LABELS:
                    continue
                values = label_zones_to_set(value)
                if values is not None and constraints.get(key, "") not in values:
                    return Status.unresolvable(ERR_REASON_CONFLICT)
        return None

