"""The RuntimeClass admission plugin (``plugin/pkg/admission/runtimeclass/admission.go``, v1.20,
with the PodOverhead feature gate on, its v1.20 default).

Admit: a pod whose ``spec.runtimeClassName`` names a class gets the class's
``overhead.podFixed`` as ``spec.overhead`` (``setOverhead``; refused when the pod already
sets a different one), the class's ``scheduling.nodeSelector`` merged into its own
(``setScheduling``; refused on a key with another value) and its tolerations merged with
the class's (``MergeTolerations``, which also drops a pod toleration another one covers).
Validate (``validateOverhead``): the pod's overhead must be the class's, and a pod with an
overhead needs a class that defines one. Upstream walks Go maps (random order); here the
class's ``nodeSelector`` keys go in the order written.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ruleset.admission.goquantity import go_quantity
from ruleset.admission.objects import RuntimeClass
from ruleset.admission.raw import Editor, get_dict, new_map_like, scalar_text
from ruleset.admission.tolerations import merge_tolerations, parse_toleration, toleration_dict
from ruleset.gofmt import go_quote
from ruleset.reading import LocatedList

OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
OVERHEAD_WITHOUT_CLASS = "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"


def not_found(name: str) -> str:
    """``prepareObjects``' refusal."""
    return f"pod rejected: RuntimeClass {go_quote(name)} not found"


@dataclass
class Outcome:
    """What the plugin did to one pod."""

    error: str | None = None
    overhead_set: bool = False
    scheduling_set: bool = False


def class_name(pod: dict) -> str | None:
    """``spec.runtimeClassName`` as text; None when absent, null or not a string."""
    spec = get_dict(pod, "spec")
    if spec is None or spec.get("runtimeClassName") is None:
        return None
    return scalar_text(spec.get("runtimeClassName"))


def _pod_overhead(pod: dict) -> dict[str, Fraction] | bool | None:
    """The pod's ``spec.overhead`` (None when absent or null), or False when it is malformed."""
    raw = (get_dict(pod, "spec") or {}).get("overhead")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        return False
    out = {}
    for name, value in raw.items():
        q = go_quantity(value)
        if q is None:
            return False
        out[str(name)] = q.value
    return out


def _class_overhead(rc: RuntimeClass) -> dict[str, Fraction]:
    return {name: q.value for name, q in (rc.overhead or {}).items()}


def admit(editor: Editor, pod: dict, rc: RuntimeClass) -> Outcome:
    """``Admit`` for a pod that names ``rc``: ``setOverhead`` then ``setScheduling``."""
    out = Outcome()
    if rc.overhead is not None:
        current = _pod_overhead(pod)
        if current is not False:
            wanted = _class_overhead(rc)
            # Semantic.DeepEqual: quantities by value; a nil and an empty list are equal.
            if current is not None and current != wanted:
                out.error = OVERHEAD_MISMATCH
                return out
            if current is None and wanted:
                spec = editor.own(pod, "spec", create=True)
                overhead = new_map_like(spec)
                for name, q in (rc.overhead or {}).items():
                    overhead[name] = str(q)
                spec["overhead"] = overhead
                out.overhead_set = True
    if rc.scheduling is not None:
        out.error = _set_scheduling(editor, pod, rc, out)
    return out


def _set_scheduling(editor: Editor, pod: dict, rc: RuntimeClass, out: Outcome) -> str | None:
    assert rc.scheduling is not None
    spec = get_dict(pod, "spec") or {}
    selector = spec.get("nodeSelector")
    wanted = rc.scheduling.node_selector or {}
    if selector is None or isinstance(selector, dict):
        have = selector or {}
        add = {}
        for key, value in wanted.items():
            pod_value = scalar_text(have[key]) if key in have else None
            if pod_value is not None and pod_value != value:
                return (f"conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; "
                        f"pod.spec.nodeSelector[{key}] = {pod_value}")
            if key not in have:
                add[key] = value
        if add:
            editor.own(editor.own(pod, "spec", create=True), "nodeSelector", create=True).update(add)
            out.scheduling_set = True
    raw_list = spec.get("tolerations")
    if raw_list is not None and not isinstance(raw_list, list):
        return None
    raw_items: list[Any] = raw_list or []
    parsed = [parse_toleration(t) for t in raw_items]
    if any(t is None for t in parsed):
        return None  # a malformed toleration: left for the decoder to report
    pod_tolerations = [t for t in parsed if t is not None]
    kept = merge_tolerations(pod_tolerations, list(rc.scheduling.tolerations))
    if kept == list(range(len(raw_items))):
        return None
    merged: list[Any] = LocatedList() if isinstance(raw_list, LocatedList) else []
    lines = raw_list.item_lines if isinstance(raw_list, LocatedList) else []
    for i in kept:
        if i < len(raw_items):
            merged.append(raw_items[i])
            if isinstance(merged, LocatedList) and i < len(lines):
                merged.item_lines.append(lines[i])
        else:
            merged.append(toleration_dict(rc.scheduling.tolerations[i - len(raw_items)], like=spec))
    if isinstance(merged, LocatedList) and isinstance(raw_list, LocatedList):
        merged.line = raw_list.line
        if len(merged.item_lines) != sum(1 for i in kept if i < len(raw_items)):
            merged.item_lines = []  # lines no longer line up: better none than wrong ones
    editor.own(pod, "spec", create=True)["tolerations"] = merged
    out.scheduling_set = True
    return None


def validate(pod: dict, rc: RuntimeClass | None) -> str | None:
    """``validateOverhead``."""
    current = _pod_overhead(pod)
    if current is False:
        return None
    if rc is not None and rc.overhead is not None:
        return None if (current or {}) == _class_overhead(rc) else OVERHEAD_MISMATCH
    if current is not None:
        return OVERHEAD_WITHOUT_CLASS
    return None
