"""The API server's path for a pod on create: defaulting, mutating admission, name generation,
validating admission (see the package docstring for what each step mirrors)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ruleset.admission import label_keys, limitranger, runtimeclass
from ruleset.admission.defaults import (
    CONTAINER_LISTS,
    DEFAULT_NAMESPACE,
    DEFAULT_SCHEDULER_NAME,
    NAMESPACE,
    SCHEDULER_NAME,
    default_pod,
)
from ruleset.admission.names import NameGenerator
from ruleset.admission.objects import LimitRange, RuntimeClass
from ruleset.admission.raw import Editor, get_dict, located_copy, new_map_like, scalar_text
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
#: Whether a stored pod of the usual shape is defaulted without an :class:`Editor`
#: (:meth:`Admission._admit_stored`, the same result); tests turn it off to compare.
STORED_FAST_PATH = True


@dataclass
class Admitted:
    """One pod after admission."""

    #: The pod as stored: a new dict when admission changed it (the input is untouched), else
    #: possibly the input itself. For a refused pod, the pod as it was when refused.
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
        if created and STORED_FAST_PATH:
            stored = self._admit_stored(raw)
            if stored is not None:
                return stored
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

    def _admit_stored(self, raw: dict) -> Admitted | None:
        """A stored pod's defaulting without an :class:`Editor`, for the usual pod: no host
        network, and every container limit already requested. Then only ``schedulerName``
        and the namespace can be defaulted: the pod (and its ``spec`` or ``metadata``) is
        copied when one is, else it is the input itself (nothing changes it afterwards). None
        for any other pod (:func:`default_pod` defaults it)."""
        spec, meta = raw.get("spec"), raw.get("metadata")
        if isinstance(spec, dict) and (spec.get("hostNetwork") is True or _limits_unrequested(spec)):
            return None
        pod = raw
        if (spec is None or isinstance(spec, dict)) and _blank(spec.get("schedulerName") if spec else None):
            pod = located_copy(raw)
            own = pod["spec"] = located_copy(spec) if spec is not None else new_map_like(pod)
            own["schedulerName"] = DEFAULT_SCHEDULER_NAME
            self.counts[SCHEDULER_NAME] += 1
        if (meta is None or isinstance(meta, dict)) and _blank(meta.get("namespace") if meta else None):
            if pod is raw:
                pod = located_copy(raw)
            meta = pod["metadata"] = located_copy(meta) if meta is not None else new_map_like(pod)
            meta["namespace"] = DEFAULT_NAMESPACE
            self.counts[NAMESPACE] += 1
        if isinstance(meta, dict):
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


def _blank(value: Any) -> bool:
    return value is None or value == ""


def _limits_unrequested(spec: dict) -> bool:
    """Whether a container of ``spec`` has a limit its requests do not name (``SetDefaults_Pod``
    may then request it)."""
    for key in CONTAINER_LISTS:
        containers = spec.get(key)
        if not isinstance(containers, list):
            continue
        for container in containers:
            resources = container.get("resources") if isinstance(container, dict) else None
            limits = resources.get("limits") if isinstance(resources, dict) else None
            if not limits or not isinstance(limits, dict):
                continue
            requests = resources.get("requests")  # type: ignore[union-attr]
            if requests is None:
                return True
            if isinstance(requests, dict):
                for k in limits:
                    if k not in requests:
                        return True
    return False


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
