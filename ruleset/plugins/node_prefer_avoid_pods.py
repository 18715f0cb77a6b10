"""NodePreferAvoidPods (Score): honour the node annotation ``scheduler.alpha.kubernetes.io/preferAvoidPods``.

A pod whose controller (``metav1.GetControllerOf``: the owner reference with
``controller: true``) is a ReplicationController or ReplicaSet scores 0 on a node whose
annotation lists an entry with ``podSignature.podController`` of the same kind and uid;
every other pod/node pair scores 100. No NormalizeScore; upstream's default weight is 10000.

The annotation is decoded as Go's ``encoding/json`` decodes it into ``v1.AvoidPods``
(``GetAvoidPodsFromNodeAnnotations``): an empty annotation means no entries; keys match
field names exactly or case-insensitively; unknown keys are ignored; ``null`` leaves a
value at its zero value; a value of the wrong JSON type, a malformed document or a bad
``evictionTime`` (RFC 3339) is an error, and on any error upstream returns 100 ("assume
it's schedulable there").

Upstream dereferences ``podController`` without a nil check: an entry without one (absent
or ``null``) that is reached before a matching entry panics the scheduler. Here that is an
error for the pod's cycle (the Score hook raises), which is the closest a run can get.

Nodes and their annotations never change during a run, so every annotation is decoded
once per snapshot and indexed by (kind, uid).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ruleset import MAX_NODE_SCORE, NodeSet, Plugin, Snapshot, hookimpl
from ruleset.api.pod import Pod

PREFER_AVOID_PODS_ANNOTATION_KEY = "scheduler.alpha.kubernetes.io/preferAvoidPods"
AVOIDED_KINDS = ("ReplicationController", "ReplicaSet")


class GoJSONError(ValueError):
    """``json.Unmarshal`` would return an error for this document."""


# ------------------------------------------------------------------------------------------------
# encoding/json into v1.AvoidPods
# ------------------------------------------------------------------------------------------------

# Field types: "string", "bool_ptr", "time", ("struct", fields), ("ptr", fields), ("slice", fields).
_OWNER_REFERENCE = {"apiVersion": "string", "kind": "string", "name": "string", "uid": "string",
                    "controller": "bool_ptr", "blockOwnerDeletion": "bool_ptr"}
_POD_SIGNATURE = {"podController": ("ptr", _OWNER_REFERENCE)}
_ENTRY = {"podSignature": ("struct", _POD_SIGNATURE), "evictionTime": "time", "reason": "string",
          "message": "string"}
_AVOID_PODS = {"preferAvoidPods": ("slice", _ENTRY)}

_RFC3339 = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
                      r"(Z|[+-][0-9]{2}:[0-9]{2})\Z")


def _fold(text: str) -> str:
    # encoding/json's case-insensitive key match: ASCII case, plus the two non-ASCII letters
    # that fold onto ASCII ones (long s and the Kelvin sign).
    return "".join(c.lower() if c.isascii() else {"\u017f": "s", "\u212a": "k"}.get(c, c) for c in text)


def _field(fields: dict[str, Any], key: str) -> str | None:
    if key in fields:
        return key
    folded = _fold(key)
    for name in fields:
        if _fold(name) == folded:
            return name
    return None


def _days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _valid_rfc3339(text: str) -> bool:
    """``time.Parse(time.RFC3339, text)`` succeeds: fields range-checked, the offset is not (Go 1.15)."""
    m = _RFC3339.match(text)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    return (1 <= month <= 12 and 1 <= day <= _days_in(month, year)
            and hour < 24 and minute < 60 and second < 60)


def _zero(kind: Any) -> Any:
    if kind == "string":
        return ""
    if kind in ("bool_ptr", "time"):
        return None
    tag, fields = kind
    if tag == "struct":
        return {name: _zero(sub) for name, sub in fields.items()}
    return None  # nil pointer or nil slice


def _decode(value: Any, kind: Any, current: Any, errors: list[str]) -> Any:
    """Decode ``value`` into ``current`` (Go decodes into the existing value); returns the result."""
    if kind == "string":
        if value is None or isinstance(value, str):
            return current if value is None else value
        errors.append("string")
        return current
    if kind == "bool_ptr":
        if value is None or isinstance(value, bool):
            return value
        errors.append("bool")
        return current
    if kind == "time":
        # metav1.Time.UnmarshalJSON: null is the zero time; anything else must be an RFC 3339 string.
        if value is None:
            return None
        if isinstance(value, str) and _valid_rfc3339(value):
            return value
        errors.append("time")
        return current
    tag, fields = kind
    if tag == "slice":
        if value is None:
            return None
        if not isinstance(value, list):
            errors.append("slice")
            return current
        old = current or []
        element = ("struct", fields)
        return [_decode(item, element, old[i] if i < len(old) else _zero(element), errors)
                for i, item in enumerate(value)]
    if value is None:
        return None if tag == "ptr" else current  # null leaves a struct as it is, and nils a pointer
    if not isinstance(value, _Object):
        errors.append("object")
        return current
    target = current if current is not None else _zero(("struct", fields))
    for key, item in value.pairs:
        name = _field(fields, key)
        if name is not None:
            target[name] = _decode(item, fields[name], target[name], errors)
    return target


class _Object:
    """A JSON object with its pairs in document order (duplicate keys kept, as Go sees them)."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]):
        self.pairs = pairs


def _reject_constant(name: str) -> Any:
    raise GoJSONError(f"invalid character in JSON: {name}")


def parse_avoid_pods(text: str) -> list[tuple[str, str] | None]:
    """The entries of an annotation as ``(kind, uid)``, or None where ``podController`` is nil.

    Raises :class:`GoJSONError` where ``GetAvoidPodsFromNodeAnnotations`` returns an error.
    """
    try:
        document = json.loads(text, object_pairs_hook=_Object, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise GoJSONError(str(exc)) from None
    errors: list[str] = []
    avoid = _decode(document, ("struct", _AVOID_PODS), _zero(("struct", _AVOID_PODS)), errors)
    if errors:
        raise GoJSONError(f"cannot unmarshal into {errors[0]}")
    out: list[tuple[str, str] | None] = []
    for entry in avoid["preferAvoidPods"] or []:
        controller = entry["podSignature"]["podController"]
        out.append(None if controller is None else (controller["kind"], controller["uid"]))
    return out


# ------------------------------------------------------------------------------------------------
# The per-snapshot index
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _AvoidIndex:
    #: (kind, uid) -> nodes with a matching entry before any nil podController entry: score 0.
    avoided: dict[tuple[str, str], np.ndarray]
    #: nodes whose annotation has an entry without podController (sorted).
    nodes_with_nil: np.ndarray
    #: per node with a nil entry, the (kind, uid) pairs listed before that nil entry.
    safe_before_nil: dict[int, frozenset[tuple[str, str]]]


def _build_index(snapshot: Snapshot) -> _AvoidIndex:
    avoided: dict[tuple[str, str], list[int]] = {}
    safe_before_nil: dict[int, frozenset[tuple[str, str]]] = {}
    for i, node in enumerate(snapshot.nodes):
        text = node.meta.annotations.get(PREFER_AVOID_PODS_ANNOTATION_KEY, "")
        if not text:
            continue
        try:
            entries = parse_avoid_pods(text)
        except GoJSONError:
            continue  # upstream: "If we cannot get annotation, assume it's schedulable there."
        seen: set[tuple[str, str]] = set()
        for entry in entries:
            if entry is None:
                safe_before_nil[i] = frozenset(seen)
                break
            if entry not in seen:
                seen.add(entry)
                avoided.setdefault(entry, []).append(i)
    return _AvoidIndex({k: np.array(v, dtype=np.intp) for k, v in avoided.items()},
                       np.array(sorted(safe_before_nil), dtype=np.intp), safe_before_nil)


def avoid_index(snapshot: Snapshot) -> _AvoidIndex:
    return snapshot.derive(__name__, _build_index)


class NodePreferAvoidPods(Plugin):
    """Scores 0 the nodes whose preferAvoidPods annotation names the pod's ReplicationController
    or ReplicaSet, 100 the others (Score)."""

    name = "NodePreferAvoidPods"
    # Out of the v1beta2 defaults and refused by v1beta2 (1.22); no API 1.23 serves takes it.
    removed_in = "1.23"
    replaced_by = "taints with effect PreferNoSchedule (TaintToleration)"

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        scores = np.full(len(nodes), MAX_NODE_SCORE, dtype=np.int64)
        ref = pod.controller()
        if ref is None or ref.kind not in AVOIDED_KINDS:
            return scores
        index = avoid_index(nodes.snapshot)
        key = (ref.kind, ref.uid)
        if len(index.nodes_with_nil):
            for i in nodes.indices[np.isin(nodes.indices, index.nodes_with_nil)]:
                if key not in index.safe_before_nil[int(i)]:
                    name = nodes.snapshot.node_names[int(i)]
                    raise RuntimeError(f"node {name!r}: {PREFER_AVOID_PODS_ANNOTATION_KEY} has an entry "
                                       "without podSignature.podController (kube-scheduler v1.20 panics)")
        avoided = index.avoided.get(key)
        if avoided is not None:
            scores[np.isin(nodes.indices, avoided)] = 0
        return scores
