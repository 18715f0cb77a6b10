"""The PersistentVolumeClaims a StatefulSet's controller creates for its pods, and the pod
volumes that name them (v1.20 ``pkg/controller/statefulset/stateful_set_utils.go``).

For each ordinal, each entry of ``spec.volumeClaimTemplates`` becomes a claim
(``getPersistentVolumeClaims``):

* named ``<template name>-<set name>-<ordinal>`` (``getPersistentVolumeClaimName``), in the
  set's namespace;
* labelled with the template's labels, the set's ``selector.matchLabels`` written over them
  (the template's labels alone when the selector has no ``matchLabels``);
* otherwise the template as written (annotations, spec; its ``status`` is the API server's
  to clear, see :mod:`ruleset.admission.default_storage_class`). No owner reference: v1.20
  sets none (the retention policy of 1.23+ adds them only for deletion and scale-down,
  which ruleset does not model, and the scheduler never reads a claim's owners).

The pod's volumes (``updateStorage``): one ``persistentVolumeClaim`` volume per template,
named like it, then the pod template's volumes whose names no template takes (a same-named
volume is replaced). Upstream walks a Go map, so the order of the claim volumes varies from
run to run; here they come in template order. Two templates of one name are one claim (the
map keeps the last).

A claim that already exists (a dump's, or one kept from an earlier scale-down) is not
created again: the controller uses it (``createPersistentVolumeClaims`` creates only those
it does not find); :mod:`ruleset.manifests.create` decides that, with the whole input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ruleset.api.decode import DecodeContext, line_of
from ruleset.reading import LocatedDict, LocatedList
from ruleset.workloads.copying import located_copy


@dataclass(frozen=True)
class ClaimTemplate:
    """One usable ``spec.volumeClaimTemplates`` entry."""

    name: str
    raw: Mapping[str, Any]
    #: The entry's line in the set's file (claims and pod volumes made from it are located there).
    line: int | None = None


def claim_name(template_name: str, set_name: str, ordinal: int) -> str:
    """``getPersistentVolumeClaimName``."""
    return f"{template_name}-{set_name}-{ordinal}"


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def claim_templates(set_raw: Any, ctx: DecodeContext | None = None) -> list[ClaimTemplate]:
    """The set's claim templates, one per name (the last of a name wins, at the place of the
    first). An entry that is not an object or has no ``metadata.name`` is reported to ``ctx``
    (when given) and left out; so is a ``volumeClaimTemplates`` that is not a list."""
    spec = _map(_map(set_raw).get("spec"))
    entries = spec.get("volumeClaimTemplates")
    if entries is None:
        return []
    if not isinstance(entries, list):
        if ctx is not None:
            ctx.fail("spec.volumeClaimTemplates", "must be a list of PersistentVolumeClaims", spec,
                     "volumeClaimTemplates")
        return []
    found: dict[str, ClaimTemplate] = {}
    for i, entry in enumerate(entries):
        path = f"spec.volumeClaimTemplates[{i}]"
        if not isinstance(entry, dict):
            if ctx is not None:
                ctx.fail(path, "must be an object (a PersistentVolumeClaim)", entries, i)
            continue
        meta = entry.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        if not isinstance(name, str) or not name:
            if ctx is not None:
                where, key = (meta, "name") if isinstance(meta, dict) else (entry, "metadata")
                ctx.fail(f"{path}.metadata.name", "Required value", where, key)
            continue
        found[name] = ClaimTemplate(name, entry, line_of(entries, i))
    return list(found.values())


def _match_labels(set_raw: Any) -> Mapping[str, Any] | None:
    selector = _map(_map(set_raw).get("spec")).get("selector")
    labels = selector.get("matchLabels") if isinstance(selector, dict) else None
    return labels if isinstance(labels, dict) else None


def _located(line: int | None) -> LocatedDict:
    out = LocatedDict()
    out.line = line
    return out


def new_claim(template: ClaimTemplate, set_name: str, namespace: str, ordinal: int,
              match_labels: Mapping[str, Any] | None) -> dict[str, Any]:
    """The claim of ``template`` for the pod of ``ordinal`` (raw, as the controller sends it)."""
    claim = located_copy(template.raw)
    claim["apiVersion"] = "v1"
    claim["kind"] = "PersistentVolumeClaim"
    meta = claim.get("metadata")
    meta = meta if isinstance(meta, dict) else _located(template.line)
    claim["metadata"] = meta
    meta["name"] = claim_name(template.name, set_name, ordinal)
    meta["namespace"] = namespace
    labels = meta.get("labels")
    if isinstance(labels, dict):
        labels.update(match_labels or {})
    elif match_labels is not None:
        meta["labels"] = located_copy(match_labels)
    return claim


def stateful_set_claims(set_raw: Any, ordinals: Sequence[int]) -> list[dict[str, Any]]:
    """The claims the StatefulSet ``set_raw`` (raw, never changed) creates for the pods of
    ``ordinals``, in creation order: each pod's claims (in template order) before the next
    pod's. Malformed templates give nothing (:func:`claim_templates` with a context reports them)."""
    meta = _map(_map(set_raw).get("metadata"))
    set_name = meta.get("name")
    if not isinstance(set_name, str) or not set_name:
        return []
    namespace = meta.get("namespace")
    namespace = namespace if isinstance(namespace, str) and namespace else "default"
    templates = claim_templates(set_raw)
    match_labels = _match_labels(set_raw)
    return [new_claim(template, set_name, namespace, ordinal, match_labels)
            for ordinal in ordinals for template in templates]


def claim_volume(template: ClaimTemplate, set_name: str, ordinal: int) -> LocatedDict:
    """The pod volume that mounts the claim of ``template`` (``readOnly`` false, so not written)."""
    volume = _located(template.line)
    volume["name"] = template.name
    source = _located(template.line)
    source["claimName"] = claim_name(template.name, set_name, ordinal)
    volume["persistentVolumeClaim"] = source
    return volume


def update_storage(pod: dict[str, Any], templates: Sequence[ClaimTemplate], set_name: str,
                   ordinal: int) -> None:
    """``updateStorage``: the pod's volumes become the claim volumes, then its other volumes.
    A pod without templates is left as it is; a ``spec.volumes`` that is not a list is left
    for ``decode_pod`` to report."""
    spec = pod.get("spec")
    if not templates or not isinstance(spec, dict):
        return
    current = spec.get("volumes")
    if current is not None and not isinstance(current, list):
        return
    taken = {template.name for template in templates}
    volumes = LocatedList()
    volumes.line = line_of(spec, "volumes") if current is not None else None
    lines: list[int | None] = []
    for template in templates:
        volumes.append(claim_volume(template, set_name, ordinal))
        lines.append(template.line)
    for i, volume in enumerate(current or ()):
        if isinstance(volume, dict) and volume.get("name") in taken:
            continue
        volumes.append(volume)
        lines.append(line_of(current, i) if isinstance(current, LocatedList) else None)
    # Lines per item only when every item has one (else items are located at the list).
    volumes.item_lines = [line for line in lines if line is not None] if None not in lines else []
    spec["volumes"] = volumes
