"""``matchLabelKeys`` / ``mismatchLabelKeys`` of pod (anti-)affinity terms, merged into the
term's ``labelSelector`` when the pod is created, as the API server's pod strategy does
(``applyMatchLabelKeysAndMismatchLabelKeys`` in ``pkg/registry/core/pod/strategy.go``,
``PrepareForCreate``, with the MatchLabelKeysInPodAffinity gate: alpha 1.29, on from 1.31).

For each key the pod has a label for, ``key In [value]`` (match) or ``key NotIn [value]``
(mismatch) joins ``labelSelector.matchExpressions``; a term without a ``labelSelector``
matches nothing and is left alone. The scheduler then only sees the merged selector.
"""

from __future__ import annotations

from typing import Any

from ruleset.admission.raw import Editor, get_dict

_KINDS = ("podAffinity", "podAntiAffinity")
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def merge_label_keys(editor: Editor, pod: dict) -> bool:
    """Merge every term's label keys into its selector; whether anything changed."""
    labels = get_dict(get_dict(pod, "metadata") or {}, "labels") or {}
    affinity = get_dict(get_dict(pod, "spec") or {}, "affinity")
    if affinity is None:
        return False
    changed = False
    for kind in _KINDS:
        section = get_dict(affinity, kind)
        if section is None:
            continue
        for list_key, nested in ((_REQUIRED, False), (_PREFERRED, True)):
            terms = section.get(list_key)
            if not isinstance(terms, list):
                continue
            for i, item in enumerate(terms):
                term = item.get("podAffinityTerm") if nested and isinstance(item, dict) else item
                if not isinstance(term, dict) or not _wanted(term, labels):
                    continue
                spec_affinity = editor.own(editor.own(pod, "spec"), "affinity")
                owned = editor.own(editor.own(editor.own(spec_affinity, kind), list_key), i)
                if nested:
                    owned = editor.own(owned, "podAffinityTerm")
                changed |= _merge(editor, owned, labels)
    return changed


def _wanted(term: dict, labels: dict[str, Any]) -> bool:
    keys = [*_keys(term, "matchLabelKeys"), *_keys(term, "mismatchLabelKeys")]
    return isinstance(term.get("labelSelector"), dict) and any(isinstance(labels.get(k), str) for k in keys)


def _keys(term: dict, field: str) -> list[str]:
    value = term.get(field)
    return [k for k in value if isinstance(k, str)] if isinstance(value, list) else []


def _merge(editor: Editor, term: dict, labels: dict[str, Any]) -> bool:
    selector = editor.own(term, "labelSelector")
    if selector is None:
        return False
    expressions = editor.own(selector, "matchExpressions", create=True)
    if isinstance(expressions, dict):  # created empty as a mapping: a list is wanted
        selector["matchExpressions"] = expressions = []
    if not isinstance(expressions, list):
        return False  # malformed: decode_pod reports it
    added = False
    for field, operator in (("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")):
        for key in _keys(term, field):
            value = labels.get(key)
            if isinstance(value, str):
                expressions.append({"key": key, "operator": operator, "values": [value]})
                added = True
    return added
