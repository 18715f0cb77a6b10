"""Pod fields a Kubernetes release after 1.20 brought, found in raw pods, so that a profile
whose release ignores them can say so instead of silently misreading the pod.

Each row names the field as a user would search for it, the feature gate that makes the
scheduler honour it (a release honours it when the gate is on there: its default, or the
profile's ``featureGates``), or None for fields ruleset does not model at any release.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NewerField:
    key: str
    gate: str | None
    #: The release that first honoured it (by default), for the message.
    since: str
    found: Callable[[dict], bool]


def _spec(raw: dict) -> dict:
    spec = raw.get("spec")
    return spec if isinstance(spec, dict) else {}


def _items(value: Any) -> Iterator[dict]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _spread(raw: dict, key: str) -> bool:
    return any(key in c for c in _items(_spec(raw).get("topologySpreadConstraints")))


def _affinity_terms(raw: dict) -> Iterator[dict]:
    affinity = _spec(raw).get("affinity")
    if not isinstance(affinity, dict):
        return
    for kind in ("podAffinity", "podAntiAffinity"):
        section = affinity.get(kind)
        if not isinstance(section, dict):
            continue
        yield from _items(section.get("requiredDuringSchedulingIgnoredDuringExecution"))
        for weighted in _items(section.get("preferredDuringSchedulingIgnoredDuringExecution")):
            term = weighted.get("podAffinityTerm")
            if isinstance(term, dict):
                yield term


NEWER_FIELDS = (
    NewerField("initContainers[].restartPolicy: Always (native sidecar containers)", "SidecarContainers",
               "1.29", lambda raw: any(c.get("restartPolicy") == "Always"
                                       for c in _items(_spec(raw).get("initContainers")))),
    NewerField("spec.schedulingGates", "PodSchedulingReadiness", "1.27",
               lambda raw: bool(_spec(raw).get("schedulingGates"))),
    NewerField("spec.resources (pod-level resources)", "PodLevelResources", "1.34",
               lambda raw: bool(_spec(raw).get("resources"))),
    NewerField("topologySpreadConstraints[].minDomains", "MinDomainsInPodTopologySpread", "1.27",
               lambda raw: _spread(raw, "minDomains")),
    NewerField("topologySpreadConstraints[].nodeAffinityPolicy / nodeTaintsPolicy",
               "NodeInclusionPolicyInPodTopologySpread", "1.26",
               lambda raw: _spread(raw, "nodeAffinityPolicy") or _spread(raw, "nodeTaintsPolicy")),
    NewerField("topologySpreadConstraints[].matchLabelKeys", "MatchLabelKeysInPodTopologySpread", "1.27",
               lambda raw: _spread(raw, "matchLabelKeys")),
    NewerField("pod (anti-)affinity terms' namespaceSelector", "PodAffinityNamespaceSelector", "1.22",
               lambda raw: any("namespaceSelector" in t for t in _affinity_terms(raw))),
    NewerField("pod (anti-)affinity terms' matchLabelKeys / mismatchLabelKeys", "MatchLabelKeysInPodAffinity",
               "1.31", lambda raw: any("matchLabelKeys" in t or "mismatchLabelKeys" in t
                                       for t in _affinity_terms(raw))),
    NewerField("spec.resourceClaims (dynamic resource allocation)", None, "1.34",
               lambda raw: bool(_spec(raw).get("resourceClaims"))),
)


#: Every ``spec`` key a :data:`NEWER_FIELDS` test reads: a pod whose spec has none uses none.
_SPEC_KEYS = frozenset(("initContainers", "schedulingGates", "resources", "topologySpreadConstraints",
                        "affinity", "resourceClaims"))


def newer_fields(raw: Any) -> list[str]:
    """The :data:`NEWER_FIELDS` keys a raw pod uses."""
    if not isinstance(raw, dict):
        return []
    spec = raw.get("spec")
    if not isinstance(spec, dict) or _SPEC_KEYS.isdisjoint(spec):
        return []  # the usual pod: every test below reads one of these keys of the spec
    return [f.key for f in NEWER_FIELDS if f.found(raw)]


def ignored_by(counts: dict[str, int], gate_on: Callable[[str], bool], release: str) -> list[dict[str, Any]]:
    """The fields of ``counts`` (key -> pods using it) the target does not honour, as
    ``{"field", "pods", "honouredFrom", "gate"}`` (``honouredFrom`` None: ruleset models it at
    no release), in :data:`NEWER_FIELDS` order."""
    out = []
    for f in NEWER_FIELDS:
        pods = counts.get(f.key, 0)
        if pods and (f.gate is None or not gate_on(f.gate)):
            out.append({"field": f.key, "pods": pods, "honouredFrom": f.since if f.gate else None,
                        "gate": f.gate, "release": release})
    return out
