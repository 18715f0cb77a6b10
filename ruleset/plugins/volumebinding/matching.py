"""Matching a claim with a volume, and where a volume or a provisioned volume can be used.

``pkg/controller/volume/persistentvolume/util/util.go`` of v1.20 (``FindMatchingVolume``,
``CheckVolumeModeMismatches``, ``CheckAccessModes``, ``IsVolumeBoundToClaim``,
``GetBindVolumeToClaim``), ``pkg/volume/util`` (``CheckNodeAffinity``) and
``pkg/apis/core/v1/helper`` (``MatchNodeSelectorTerms``, ``MatchTopologySelectorTerms``).

The node-dependent checks (a volume's node affinity, a class's ``allowedTopologies``, a
CSIStorageCapacity's ``nodeTopology``) are evaluated for every candidate node at once, as
boolean columns over a :class:`~ruleset.NodeSet`; :func:`find_matching_volume` then runs on
one node's answers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any

import numpy as np

from ruleset import NodeSet
from ruleset.api.pod import NodeSelectorTerm
from ruleset.api.storage import (
    ANN_BOUND_BY_CONTROLLER,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    TopologySelectorRequirement,
    claim_class,
)
from ruleset.plugins.node_affinity import parse_term
from ruleset.selector import Selector, SelectorError, from_label_selector, is_empty_node_selector_term
from ruleset.selector import new_requirement as _new_requirement

#: ``v1.VolumeAvailable``: the only phase an unbound volume is matched in.
VOLUME_AVAILABLE = "Available"
#: ``PersistentVolumeFilesystem``: what an absent ``volumeMode`` means.
FILESYSTEM = "Filesystem"
#: ``pvutil.NotSupportedProvisioner``: a class that never provisions (local volumes).
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"


class MatchingError(Exception):
    """``FindMatchingVolume`` failed (the claim's selector does not parse): an Error status."""


def is_volume_bound_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """``IsVolumeBoundToClaim``: the volume's ``claimRef`` names the claim (and its uid, if it has one)."""
    ref = volume.claim_ref
    if ref is None:
        return False
    if claim.meta.name != ref.name or claim.meta.namespace != ref.namespace:
        return False
    return not (ref.uid and claim.meta.uid != ref.uid)


def check_access_modes(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """``CheckAccessModes``: the volume offers every access mode the claim asks for."""
    offered = set(volume.access_modes)
    return all(mode in offered for mode in claim.access_modes)


def volume_mode_mismatch(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """``CheckVolumeModeMismatches`` (BlockVolume is GA): an absent mode is Filesystem."""
    return (claim.volume_mode or FILESYSTEM) != (volume.volume_mode or FILESYSTEM)


def claim_selector(claim: PersistentVolumeClaim) -> Selector | None:
    """The claim's ``spec.selector`` (None when absent); raises :class:`MatchingError` when it
    does not parse, with ``FindMatchingVolume``'s message."""
    if claim.selector is None:
        return None
    try:
        return from_label_selector(claim.selector)
    except SelectorError as exc:
        raise MatchingError(f"error creating internal label selector for claim: {claim.key}: {exc}") from None


def find_matching_volume(claim: PersistentVolumeClaim, volumes: Sequence[PersistentVolume],
                         node_ok: Callable[[PersistentVolume], bool], excluded: Container[str]) -> \
        PersistentVolume | None:
    """``FindMatchingVolume`` on the scheduler's path (a node given, delayed binding): the
    volume pre-bound to the claim (None if its node affinity does not fit: the claim cannot
    use this node), else the smallest available volume of the claim's class that is big
    enough, of the claim's volume mode, matches its selector, fits the node
    (``node_ok``) and offers its access modes. Volumes named in ``excluded`` (chosen for
    the pod's other claims), claimed by another claim, or being deleted are skipped. Ties
    keep the first volume in ``volumes``' order (upstream lists them from a map)."""
    requested_class = claim_class(claim)
    selector = claim_selector(claim)
    smallest: PersistentVolume | None = None
    for volume in volumes:
        if volume.name in excluded:
            continue
        bound_to_claim = is_volume_bound_to_claim(volume, claim)
        if volume.claim_ref is not None and not bound_to_claim:
            continue
        if volume.capacity < claim.request or volume_mode_mismatch(claim, volume):
            continue
        if volume.meta.deletion_timestamp is not None:
            continue
        fits = node_ok(volume)
        if bound_to_claim:
            return volume if fits else None
        if volume.phase != VOLUME_AVAILABLE:
            continue
        if selector is not None and not selector.matches(volume.meta.labels):
            continue
        if volume.storage_class_name != requested_class or not fits:
            continue
        if not check_access_modes(claim, volume):
            continue
        if smallest is None or smallest.capacity > volume.capacity:
            smallest = volume
    return smallest


def match_on_nodes(claims: Sequence[PersistentVolumeClaim],
                   volumes_of: Callable[[PersistentVolumeClaim], Sequence[PersistentVolume]],
                   index: Mapping[str, int], mask_of: Callable[[PersistentVolume], np.ndarray],
                   n: int) -> np.ndarray:
    """``findMatchingVolumes``' choices on ``n`` nodes at once: column ``k`` holds, per node, the
    ``index`` of the volume :func:`find_matching_volume` gives ``claims[k]`` there (-1: none),
    each claim excluding the volumes the earlier ones took on that node. ``volumes_of(claim)``
    lists a claim's candidates in order, ``mask_of(volume)`` says which nodes it fits.

    The same answers as :func:`find_matching_volume` node by node: the first candidate
    pre-bound to the claim (and not taken) decides alone (it, if it fits the node, else
    nothing); otherwise the first fitting, not taken, available candidate in order of
    (capacity, position)."""
    out = np.full((n, len(claims)), -1, dtype=np.int64)
    rows = np.arange(n)
    for k, claim in enumerate(claims):
        selector = claim_selector(claim)
        requested_class = claim_class(claim)
        chosen: list[tuple[PersistentVolume, bool]] = []
        for volume in volumes_of(claim):
            bound_to_claim = is_volume_bound_to_claim(volume, claim)
            if volume.claim_ref is not None and not bound_to_claim:
                continue
            if volume.capacity < claim.request or volume_mode_mismatch(claim, volume):
                continue
            if volume.meta.deletion_timestamp is not None:
                continue
            if not bound_to_claim and (
                    volume.phase != VOLUME_AVAILABLE
                    or (selector is not None and not selector.matches(volume.meta.labels))
                    or volume.storage_class_name != requested_class
                    or not check_access_modes(claim, volume)):
                continue
            chosen.append((volume, bound_to_claim))
        if not chosen:
            continue
        ids = np.array([index[v.name] for v, _ in chosen], dtype=np.int64)
        fits = np.stack([mask_of(v) for v, _ in chosen], axis=1)
        live = ~(out[:, :k, None] == ids[None, None, :]).any(axis=1) if k else np.ones(fits.shape, dtype=bool)
        result = np.full(n, -1, dtype=np.int64)
        prebound = np.array([p for _, p in chosen], dtype=bool)
        decided = np.zeros(n, dtype=bool)
        if prebound.any():
            candidates = live & prebound[None, :]
            decided = candidates.any(axis=1)
            first = candidates.argmax(axis=1)
            take = decided & fits[rows, first]
            result[take] = ids[first[take]]
        unbound = (j for j, (_, p) in enumerate(chosen) if not p)
        order = sorted(unbound, key=lambda j: (chosen[j][0].capacity, j))
        if order:
            columns = np.array(order, dtype=np.intp)
            usable = (live & fits)[:, columns]
            found = usable.any(axis=1) & ~decided
            first = usable.argmax(axis=1)
            result[found] = ids[columns[first[found]]]
        out[:, k] = result
    return out


def bind_volume_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> \
        tuple[PersistentVolume, bool]:
    """``GetBindVolumeToClaim``: a copy of ``volume`` whose ``claimRef`` is the claim (with
    its uid) and that is annotated ``pv.kubernetes.io/bound-by-controller: "yes"`` unless it
    was bound to the claim already; and whether anything changed (dirty)."""
    already_bound = is_volume_bound_to_claim(volume, claim)
    ref = volume.claim_ref
    dirty = False
    claim_ref = ref
    if ref is None or ref.name != claim.meta.name or ref.namespace != claim.meta.namespace \
            or ref.uid != claim.meta.uid:
        claim_ref = ObjectReference(claim.meta.namespace, claim.meta.name, claim.meta.uid)
        dirty = True
    annotations = volume.meta.annotations
    if not already_bound and ANN_BOUND_BY_CONTROLLER not in annotations:
        annotations = {**annotations, ANN_BOUND_BY_CONTROLLER: "yes"}
        dirty = True
    meta = dataclasses.replace(volume.meta, annotations=dict(annotations))
    return dataclasses.replace(volume, meta=meta, claim_ref=claim_ref), dirty


# ------------------------------------------------------------------------- node columns


def volume_node_mask(volume: PersistentVolume, nodes: NodeSet) -> np.ndarray:
    """``CheckNodeAffinity(pv, node.Labels)`` for every node of ``nodes``.

    v1.20's ``MatchNodeSelectorTerms(terms, labels, nil)`` sees no node fields, so a
    ``matchFields`` requirement compares with "" (``metadata.name In [x]`` never matches);
    empty terms and terms that do not parse never match; no node affinity matches all."""
    if volume.node_affinity is None:
        return np.ones(len(nodes), dtype=bool)
    # Nodes and a volume's node affinity never change during a run: each distinct affinity is
    # matched against every node once (local volumes share a few shapes), then indexed.
    cache: dict[Any, np.ndarray] = nodes.snapshot.derive(_MASKS_KEY, lambda _snapshot: {})
    try:
        full = cache.get(volume.node_affinity)
    except TypeError:  # an unhashable affinity (not from the decoder): match it directly
        return _node_affinity_mask(volume.node_affinity, nodes)
    if full is None:
        full = cache[volume.node_affinity] = _node_affinity_mask(volume.node_affinity,
                                                                 nodes.snapshot.all_nodes())
    return full[nodes.indices]


_MASKS_KEY = "volumebinding.node-affinity-masks"


def _node_affinity_mask(terms: Sequence[NodeSelectorTerm], nodes: NodeSet) -> np.ndarray:
    out = np.zeros(len(nodes), dtype=bool)
    for term in terms:
        if is_empty_node_selector_term(term):
            continue
        parsed = parse_term(term)
        if parsed.error is not None:
            continue
        mask = np.ones(len(nodes), dtype=bool) if parsed.labels is None else nodes.match(parsed.labels)
        for requirement in parsed.fields or ():
            equal = requirement.value == ""
            if equal == requirement.negated:
                mask[:] = False
        out |= mask
    return out


def _topology_term_selector(term: Sequence[TopologySelectorRequirement]) -> Selector | None:
    """``TopologySelectorRequirementsAsSelector``: each requirement ``key in (values)``; None
    when one does not parse (the term then matches nothing)."""
    try:
        return Selector((tuple(_new_requirement(r.key, "in", list(r.values)) for r in term),))
    except SelectorError:
        return None


def topology_node_mask(storage_class: StorageClass, nodes: NodeSet) -> np.ndarray:
    """``MatchTopologySelectorTerms(class.AllowedTopologies, node.Labels)`` for every node:
    no terms match all; an empty term, or one that does not parse, matches nothing."""
    if not storage_class.allowed_topologies:
        return np.ones(len(nodes), dtype=bool)
    out = np.zeros(len(nodes), dtype=bool)
    for term in storage_class.allowed_topologies:
        if not term:
            continue
        selector = _topology_term_selector(term)
        if selector is not None:
            out |= nodes.match(selector)
    return out
