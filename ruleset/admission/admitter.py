"""The API server's path for a pod on create: defaulting, mutating admission, name generation,
validating admission (see the package docstring for what each step mirrors)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ruleset.admission import label_keys, limitranger, runtimeclass
from ruleset.admission.defaults import default_pod
from ruleset.admission.names import NameGenerator
from ruleset.admission.objects import LimitRange, RuntimeClass
from ruleset.admission.raw import Editor, get_dict, scalar_text
from ruleset.admission.tolerations import missing_default_tolerations, toleration_dict
from ruleset.gofmt import go_quote
from ruleset.reading import LocatedDict, LocatedList

NAME_GENERATED = "name generated from generateName"
LABEL_KEYS_MERGED = "pod affinity matchLabelKeys/mismatchLabelKeys merged into the selector"
DEFAULT_TOLERATIONS = "DefaultTolerationSeconds tolerations added"
LIMIT_RANGER = "LimitRanger defaults"
RUNTIME_CLASS_OVERHEAD = "RuntimeClass overhead"
RUNTIME_CLASS_SCHEDULING = "RuntimeClass scheduling"
RUNTIME_CLASS_MISSING = "RuntimeClass not in snapshot"
REFUSED = "refused"


@dataclass
class Admitted:
    """One pod after admission."""

    #: The pod as stored: a new dict (the input is untouched). For a refused pod, the pod as
    #: it was when refused.
    raw: Any
    #: Admission's refusal (the API server's Forbidden message); the pod is never stored.
    error: str | None = None


class Admission:
    """Admits pods one at a time, in the order they are created; keeps the names taken."""

    def __init__(self, limit_ranges: Sequence[LimitRange] = (), runtime_classes: Sequence[RuntimeClass] = (),
                 seed: int = 0, taken: Iterable[str] = (), merge_label_keys: bool = False) -> None:
        self._limit_ranges: dict[str, list[LimitRange]] = {}
        for lr in limit_ranges:
            self._limit_ranges.setdefault(lr.namespace, []).append(lr)
        self._runtime_classes = {rc.name: rc for rc in runtime_classes}
        self._names = NameGenerator(seed, taken)
        #: The run's release merges pod-affinity terms' label keys on create (MatchLabelKeysInPodAffinity).
        self._merge_label_keys = merge_label_keys
        #: Kind of change -> number of admitted pods it changed (refused pods: ``"refused"``).
        self.counts: Counter[str] = Counter()

    def admit(self, raw: Any, created: bool = False) -> Admitted:
        """Admit one raw pod. ``created``: it already exists (read from a dump), so only the
        defaulting the API server also applies on reading runs, not the admission plugins."""
        if not isinstance(raw, dict):
            return Admitted(raw)
        editor = Editor()
        pod = editor.root(raw)
        changes = default_pod(editor, pod)
        error = None if created else self._admit_new(editor, pod, changes)
        if error is not None:
            self.counts[REFUSED] += 1
            return Admitted(pod, error)
        self.counts.update(changes)
        meta = get_dict(pod, "metadata") or {}
        name, namespace = scalar_text(meta.get("name")), scalar_text(meta.get("namespace"))
        if name and namespace is not None:
            self._names.take(namespace, name)
        return Admitted(pod)

    def _admit_new(self, editor: Editor, pod: dict, changes: set[str]) -> str | None:
        """Mutating admission (in the API server's plugin order), the name, then validating
        admission; the Forbidden message of a refusal."""
        meta = get_dict(pod, "metadata") or {}
        namespace = scalar_text(meta.get("namespace")) or ""
        limit_ranges = self._limit_ranges.get(namespace, [])
        for lr in limit_ranges:
            if limitranger.mutate(editor, pod, lr):
                changes.add(LIMIT_RANGER)
        if _add_default_tolerations(editor, pod):
            changes.add(DEFAULT_TOLERATIONS)
        rc = None
        check_classes = bool(self._runtime_classes)
        wanted = runtimeclass.class_name(pod)
        if wanted is not None and not check_classes:
            changes.add(RUNTIME_CLASS_MISSING)  # the snapshot says nothing of runtime classes
        elif wanted is not None:
            rc = self._runtime_classes.get(wanted)
            if rc is None:
                return _forbidden(pod, runtimeclass.not_found(wanted))
            outcome = runtimeclass.admit(editor, pod, rc)
            if outcome.error is not None:
                return _forbidden(pod, outcome.error)
            if outcome.overhead_set:
                changes.add(RUNTIME_CLASS_OVERHEAD)
            if outcome.scheduling_set:
                changes.add(RUNTIME_CLASS_SCHEDULING)
        if self._merge_label_keys and label_keys.merge_label_keys(editor, pod):
            changes.add(LABEL_KEYS_MERGED)
        if self._generate_name(editor, pod, namespace):
            changes.add(NAME_GENERATED)
        for lr in limit_ranges:
            message = limitranger.validate(pod, lr)
            if message is not None:
                return _forbidden(pod, message)
        if check_classes:
            message = runtimeclass.validate(pod, rc)
            if message is not None:
                return _forbidden(pod, message)
        return None

    def _generate_name(self, editor: Editor, pod: dict, namespace: str) -> bool:
        """``rest.BeforeCreate``: a pod with ``generateName`` and no name gets a generated one."""
        meta = get_dict(pod, "metadata")
        if meta is None or meta.get("name") not in (None, ""):
            return False
        base = meta.get("generateName")
        if not isinstance(base, str) or not base:
            return False
        editor.own(pod, "metadata")["name"] = self._names.generate(namespace, base)
        return True


def _add_default_tolerations(editor: Editor, pod: dict) -> bool:
    """The DefaultTolerationSeconds plugin (see :mod:`ruleset.admission.tolerations`)."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return False
    current = spec.get("tolerations")
    if current is not None and not isinstance(current, list):
        return False  # malformed: left for the decoder to report
    missing = missing_default_tolerations(current or [])
    if not missing:
        return False
    own_spec = editor.own(pod, "spec")
    tolerations = editor.own(own_spec, "tolerations") if current is not None else None
    if tolerations is None:
        tolerations = LocatedList() if isinstance(own_spec, LocatedDict) else []
        own_spec["tolerations"] = tolerations
    tolerations.extend(toleration_dict(t, like=own_spec) for t in missing)
    return True


def _forbidden(pod: dict, message: str) -> str:
    """``admission.NewForbidden``: ``pods "<name>" is forbidden: <message>``, naming the pod by
    its name, else its ``generateName``, else ``Unknown``."""
    meta = get_dict(pod, "metadata") or {}
    name = scalar_text(meta.get("name")) or scalar_text(meta.get("generateName")) or "Unknown"
    return f"pods {go_quote(name)} is forbidden: {message}"
