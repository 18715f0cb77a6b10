"""Object metadata, owner references, label selectors and timestamps."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ruleset.api.decode import (
    DecodeContext,
    get_bool,
    get_list,
    get_map,
    get_str,
    get_string_list,
    get_string_map,
    line_of,
)


@dataclass(frozen=True, slots=True)
class OwnerReference:
    """``metadata.ownerReferences[i]``."""

    kind: str
    name: str
    uid: str
    controller: bool = False


@dataclass(frozen=True, slots=True)
class Origin:
    """Where an object was read: file, line (YAML) and document index (0-based)."""

    file: str | None = None
    line: int | None = None
    document: int | None = None


@dataclass(slots=True)
class ObjectMeta:
    """The parts of ``metadata`` the scheduler reads."""

    name: str
    namespace: str = ""
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    owner_references: tuple[OwnerReference, ...] = ()
    creation_timestamp: float | None = None
    deletion_timestamp: float | None = None
    #: Where the object was read (None for objects built in code); not part of its identity.
    origin: Origin | None = field(default=None, compare=False, repr=False)

    def controller(self) -> OwnerReference | None:
        """``metav1.GetControllerOf``: the owner reference marked ``controller: true``."""
        for ref in self.owner_references:
            if ref.controller:
                return ref
        return None


@dataclass(frozen=True, slots=True)
class LabelSelectorRequirement:
    """One ``matchExpressions`` entry (also used for node selector requirements)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """``metav1.LabelSelector``: matchLabels plus matchExpressions."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()

    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions


def parse_timestamp(text: str) -> float | None:
    """RFC 3339 text (as Kubernetes writes it) to seconds since the epoch."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def decode_timestamp(ctx: DecodeContext, obj: Any, key: str, path: str) -> float | None:
    """A timestamp field; a malformed one is reported and read as absent."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return None
    if isinstance(value, datetime):  # unquoted YAML timestamps arrive as datetime
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return moment.timestamp()
    if isinstance(value, str):
        seconds = parse_timestamp(value)
        if seconds is not None:
            return seconds
    ctx.fail(path, f"{value!r}: expected an RFC 3339 timestamp", obj, key)
    return None


def decode_meta(ctx: DecodeContext, raw: Any, namespaced: bool, kind: str) -> ObjectMeta:
    """Read ``metadata``; a missing name is a problem (objects are keyed by it)."""
    meta = get_map(ctx, raw, "metadata", "metadata")
    name = get_str(ctx, meta, "name", "metadata.name")
    if not name:
        ctx.fail("metadata.name", "Required value", meta or raw, "name")
    namespace = get_str(ctx, meta, "namespace", "metadata.namespace", default="default") if namespaced else ""
    namespace = namespace or ("default" if namespaced else "")
    refs = []
    for i, ref in enumerate(get_list(ctx, meta, "ownerReferences", "metadata.ownerReferences")):
        path = f"metadata.ownerReferences[{i}]"
        if not isinstance(ref, dict):
            ctx.fail(path, "expected an object", meta, "ownerReferences")
            continue
        refs.append(OwnerReference(
            kind=get_str(ctx, ref, "kind", f"{path}.kind"),
            name=get_str(ctx, ref, "name", f"{path}.name"),
            uid=get_str(ctx, ref, "uid", f"{path}.uid"),
            controller=get_bool(ctx, ref, "controller", f"{path}.controller"),
        ))
    uid = get_str(ctx, meta, "uid", "metadata.uid")
    return ObjectMeta(
        name=name,
        namespace=namespace,
        # Snapshots written by hand rarely carry uids; a stable stand-in keeps identity checks working.
        uid=uid or f"{kind}/{namespace}/{name}",
        labels=get_string_map(ctx, meta, "labels", "metadata.labels"),
        annotations=get_string_map(ctx, meta, "annotations", "metadata.annotations"),
        owner_references=tuple(refs),
        creation_timestamp=decode_timestamp(ctx, meta, "creationTimestamp", "metadata.creationTimestamp"),
        deletion_timestamp=decode_timestamp(ctx, meta, "deletionTimestamp", "metadata.deletionTimestamp"),
        origin=Origin(file=ctx.file, line=line_of(raw), document=ctx.document),
    )


def decode_requirements(ctx: DecodeContext, raw: Any, key: str,
                        path: str) -> tuple[LabelSelectorRequirement, ...]:
    """A list of ``{key, operator, values}`` requirements, kept as written (validated on use)."""
    out = []
    items = get_list(ctx, raw, key, path)
    for i, item in enumerate(items):
        item_path = f"{path}[{i}]"
        if not isinstance(item, dict):
            ctx.fail(item_path, "expected an object", items, i)
            continue
        out.append(LabelSelectorRequirement(
            key=get_str(ctx, item, "key", f"{item_path}.key"),
            operator=get_str(ctx, item, "operator", f"{item_path}.operator"),
            values=tuple(get_string_list(ctx, item, "values", f"{item_path}.values")),
        ))
    return tuple(out)


def decode_label_selector(ctx: DecodeContext, raw: Any, key: str, path: str) -> LabelSelector | None:
    """``raw[key]`` as a ``metav1.LabelSelector``; None when absent (nil selects nothing)."""
    if not isinstance(raw, dict) or raw.get(key) is None:
        return None
    sel = get_map(ctx, raw, key, path)
    labels = get_string_map(ctx, sel, "matchLabels", f"{path}.matchLabels")
    return LabelSelector(
        match_labels=tuple(labels.items()),
        match_expressions=decode_requirements(ctx, sel, "matchExpressions", f"{path}.matchExpressions"),
    )
