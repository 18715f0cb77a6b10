"""The PV controller's binding of new claims that do not wait for a consumer.

kube-scheduler never binds a claim whose class is not WaitForFirstConsumer: the PV
controller does (``pkg/controller/volume/persistentvolume/pv_controller.go`` of v1.20,
``syncUnboundClaim``), and until it has, the scheduler refuses the pod with ``pod has unbound
immediate PersistentVolumeClaims`` and retries it later. A claim in a dump has been through
the controller already, and is left as it is. A claim the run creates (written in ``--pods``,
or a StatefulSet's) gets the controller's first sync before anything is scheduled, so a
what-if that adds a claim and its volume answers as the cluster would a moment later:

* a claim naming its volume (``spec.volumeName``) is bound to it when the volume exists and
  is free or pre-bound to the claim (``syncUnboundClaim``, the "pre-bound" branch);
* otherwise the claim is bound to the best available volume: ``findBestMatchForClaim``,
  which tries the sets of access modes containing the claim's, fewest modes first (ties by
  the modes' names: upstream takes its index's map order), and in each the smallest volume
  ``FindMatchingVolume`` accepts (class, selector, volume mode, size; no node);
* a claim nothing matches stays Pending. Dynamic provisioning for such a claim (its class
  names a provisioner) is not simulated: where the external provisioner puts the volume is
  its own choice; the pod is then refused as upstream first refuses it.

Binding writes what ``bind`` writes: the volume's ``claimRef`` (and ``bound-by-controller``
when the controller chose it), phases Bound, and the claim's ``volumeName`` with the
``bind-completed`` and ``bound-by-controller`` annotations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ruleset.api.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    claim_class,
)
from ruleset.plugins.volumebinding.matching import (
    MatchingError,
    bind_volume_to_claim,
    find_matching_volume,
    is_volume_bound_to_claim,
)

WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


def is_new(claim: PersistentVolumeClaim) -> bool:
    """A claim the API server has not stored (no uid, no creation time): the run creates it.
    (Decoding gives an object without a uid the stand-in ``Kind/namespace/name``.)"""
    meta = claim.meta
    stand_in = f"PersistentVolumeClaim/{meta.namespace}/{meta.name}"
    return meta.creation_timestamp is None and meta.uid in ("", stand_in)


def bind_new_claims(claims: list[PersistentVolumeClaim], volumes: list[PersistentVolume],
                    classes: Sequence[StorageClass]) -> int:
    """Bind, in place in the two lists, each new, unbound claim that does not wait for a
    consumer, as the PV controller's first sync would; returns how many were bound."""
    delayed = {c.name for c in classes if c.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER}
    index = {volume.name: i for i, volume in enumerate(volumes)}
    bound = 0
    for i, claim in enumerate(claims):
        if not is_new(claim) or claim.phase != "Pending" or claim.meta.deletion_timestamp is not None:
            continue
        name = claim_class(claim)
        if claim.volume_name:
            volume = volumes[index[claim.volume_name]] if claim.volume_name in index else None
            if volume is None or (volume.claim_ref is not None
                                   and not is_volume_bound_to_claim(volume, claim)):
                continue  # missing, or bound to another claim: the claim stays Pending
        elif name in delayed:
            continue  # the scheduler's to bind (VolumeBinding)
        else:
            try:
                volume = best_match(claim, volumes)
            except MatchingError:
                continue  # a selector that does not parse: the controller cannot match it
            if volume is None:
                continue
        claims[i], volumes[index[volume.name]] = bind(claim, volume)
        bound += 1
    return bound


def best_match(claim: PersistentVolumeClaim, volumes: Sequence[PersistentVolume]) -> PersistentVolume | None:
    """``persistentVolumeOrderedIndex.findBestMatchForClaim`` (no node, no delayed binding)."""
    wanted = set(claim.access_modes)
    mode_sets = sorted({frozenset(v.access_modes) for v in volumes if wanted <= set(v.access_modes)},
                       key=lambda modes: (len(modes), sorted(modes)))
    for modes in mode_sets:
        same = [v for v in volumes if frozenset(v.access_modes) == modes]
        found = find_matching_volume(claim, same, lambda _volume: True, ())
        if found is not None:
            return found
    return None


def bind(claim: PersistentVolumeClaim,
         volume: PersistentVolume) -> tuple[PersistentVolumeClaim, PersistentVolume]:
    """``bind``: the volume's claimRef and phase, then the claim's volumeName, annotations and phase."""
    chosen = not claim.volume_name
    volume, _ = bind_volume_to_claim(volume, claim)
    volume = dataclasses.replace(volume, phase="Bound")
    annotations = {**claim.meta.annotations, ANN_BIND_COMPLETED: "yes"}
    if chosen:
        annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
    meta = dataclasses.replace(claim.meta, annotations=annotations)
    return dataclasses.replace(claim, meta=meta, volume_name=volume.name, phase="Bound"), volume
