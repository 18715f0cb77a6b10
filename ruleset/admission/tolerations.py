"""Tolerations: the DefaultTolerationSeconds admission plugin, and ``MergeTolerations``.

* ``plugin/pkg/admission/defaulttolerationseconds/admission.go`` (v1.20): a pod that does not
  already tolerate ``node.kubernetes.io/not-ready`` (resp. ``unreachable``) with effect
  ``NoExecute`` gets ``{key, operator: Exists, effect: NoExecute, tolerationSeconds: 300}``.
  "Tolerates" is upstream's test, not ``ToleratesTaint``: the key is that key or empty, and
  the effect ``NoExecute`` or empty (operator and value are not looked at).
* ``pkg/util/tolerations/tolerations.go`` (v1.20) ``MergeTolerations`` and ``isSuperset``,
  which the RuntimeClass plugin uses to add a class's tolerations.
"""

from __future__ import annotations

from typing import Any

from ruleset.admission.raw import new_map_like, scalar_text
from ruleset.api.pod import Toleration

TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_TOLERATION_SECONDS = 300  # --default-not-ready/unreachable-toleration-seconds
NO_EXECUTE = "NoExecute"


def parse_toleration(raw: Any) -> Toleration | None:
    """A raw toleration as the decoder reads it; None when it is malformed (left to the decoder)."""
    if not isinstance(raw, dict):
        return None
    fields = [scalar_text(raw.get(k)) for k in ("key", "operator", "value", "effect")]
    seconds = raw.get("tolerationSeconds")
    if any(f is None for f in fields) or (seconds is not None and (
            isinstance(seconds, bool) or not isinstance(seconds, int))):
        return None
    key, operator, value, effect = (f or "" for f in fields)
    return Toleration(key=key, operator=operator, value=value, effect=effect, toleration_seconds=seconds)


def toleration_dict(t: Toleration, like: Any = None) -> dict:
    """A toleration as the API server serializes it (empty fields omitted)."""
    out = new_map_like(like)
    for key, value in (("key", t.key), ("operator", t.operator), ("value", t.value), ("effect", t.effect)):
        if value:
            out[key] = value
    if t.toleration_seconds is not None:
        out["tolerationSeconds"] = t.toleration_seconds
    return out


def missing_default_tolerations(tolerations: list) -> list[Toleration]:
    """The tolerations DefaultTolerationSeconds appends to a pod with ``tolerations``."""
    not_ready = unreachable = False
    for raw in tolerations:
        if not isinstance(raw, dict):
            continue
        key, effect = scalar_text(raw.get("key")), scalar_text(raw.get("effect"))
        if effect not in (NO_EXECUTE, ""):
            continue
        if key in (TAINT_NODE_NOT_READY, ""):
            not_ready = True
        if key in (TAINT_NODE_UNREACHABLE, ""):
            unreachable = True
    out = []
    if not not_ready:
        out.append(Toleration(TAINT_NODE_NOT_READY, "Exists", "", NO_EXECUTE, DEFAULT_TOLERATION_SECONDS))
    if not unreachable:
        out.append(Toleration(TAINT_NODE_UNREACHABLE, "Exists", "", NO_EXECUTE, DEFAULT_TOLERATION_SECONDS))
    return out


def is_superset(ss: Toleration, t: Toleration) -> bool:
    """``isSuperset``: whether ``ss`` tolerates everything ``t`` does."""
    if ss == t:
        return True
    # An empty key with Exists matches every key and value.
    if t.key != ss.key and (ss.key != "" or ss.operator != "Exists"):
        return False
    if t.effect != ss.effect and ss.effect != "":  # an empty effect matches every effect
        return False
    if ss.effect == NO_EXECUTE and ss.toleration_seconds is not None and (
            t.toleration_seconds is None or t.toleration_seconds > ss.toleration_seconds):
        return False
    if ss.operator in ("Equal", ""):  # upstream compares t's operator with "Equal" only
        return t.operator == "Equal" and t.value == ss.value
    return ss.operator == "Exists"  # upstream logs an unknown operator and answers false


def merge_tolerations(first: list[Toleration], second: list[Toleration]) -> list[int]:
    """``MergeTolerations(first, second)``: which of ``first + second`` (by index) are kept,
    in order. A toleration another one is a superset of is dropped; of equal ones, the first
    is kept."""
    all_ = [*first, *second]
    kept: list[int] = []
    for i, t in enumerate(all_):
        if any(is_superset(all_[k], t) for k in kept):
            continue
        if any(t != t2 and is_superset(t2, t) for t2 in all_[i + 1:]):
            continue
        kept.append(i)
    return kept
