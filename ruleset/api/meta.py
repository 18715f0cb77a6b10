"""Object metadata, owner references, label selectors and timestamps."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ruleset.api import decode as _decode
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
    """Read ``metadata``; a missing name is a problem (objects are keyed by it). The usual
    well-formed metadata takes :func:`known_meta` when the decoders' fast paths are on."""
    if _decode.FAST_PATHS and isinstance(raw, dict):
        known = known_meta(ctx, raw, namespaced, kind)
        if known is not None:
            return known
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


def string_map(value: Any) -> dict[str, str] | None:
    """A copy of a mapping of strings to strings as ``get_string_map`` gives it (``{}`` for
    null); None for anything else."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        return None
    for k, v in value.items():
        if k.__class__ is not str or v.__class__ is not str:
            return None
    return dict(value)


def known_meta(ctx: DecodeContext, raw: dict, namespaced: bool, kind: str) -> ObjectMeta | None:
    """What :func:`decode_meta` gives for the usual well-formed ``metadata`` (a name, string
    fields, string labels and annotations, owner references of strings, RFC 3339 timestamps
    as text), without a problem; None for anything else (decode it then)."""
    meta = raw.get("metadata")
    if not isinstance(meta, dict):
        return None
    get = meta.get
    name = get("name")
    uid = get("uid")
    if name.__class__ is not str or not name or (uid is not None and uid.__class__ is not str):
        return None
    refs, created, deleted = get("ownerReferences"), get("creationTimestamp"), get("deletionTimestamp")
    refs = () if refs is None else _owner_references(refs)
    if created is not None:
        created = _timestamp(created)
    if deleted is not None:
        deleted = _timestamp(deleted)
    if refs is None or created is _BAD or deleted is _BAD:
        return None
    namespace = ""
    if namespaced:
        written = get("namespace")
        if written is not None and written.__class__ is not str:
            return None
        namespace = written or "default"
    labels, annotations = get("labels"), get("annotations")
    labels = {} if labels is None else string_map(labels)
    annotations = {} if annotations is None else string_map(annotations)
    if labels is None or annotations is None:
        return None
    line = line_of(raw)
    origin = _ORIGINS.get((ctx.file, ctx.document)) if line is None else None
    if origin is None:
        origin = Origin(file=ctx.file, line=line, document=ctx.document)
        if line is None and len(_ORIGINS) < _MAX_ORIGINS:
            _ORIGINS[(ctx.file, ctx.document)] = origin
    return ObjectMeta(name=name, namespace=namespace, uid=uid or f"{kind}/{namespace}/{name}", labels=labels,
                      annotations=annotations, owner_references=refs,
                      creation_timestamp=created, deletion_timestamp=deleted,  # type: ignore[arg-type]
                      origin=origin)


#: Origins without a line (JSON: every object of a document has the same one), shared: they
#: are immutable, and a snapshot would otherwise hold one per object.
_ORIGINS: dict[tuple[str | None, int | None], Origin] = {}
_MAX_ORIGINS = 1024


_BAD = object()


def _timestamp(value: Any) -> object:
    """A timestamp as :func:`decode_timestamp` reads text (None when absent); ``_BAD`` for
    anything else."""
    if value is None:
        return None
    if value.__class__ is not str:
        return _BAD
    seconds = parse_timestamp(value)
    return _BAD if seconds is None else seconds


def _owner_references(value: Any) -> tuple[OwnerReference, ...] | None:
    """Owner references of string fields (and a boolean ``controller``) as :func:`decode_meta`
    reads them; None for anything else."""
    if value is None:
        return ()
    if not isinstance(value, list):
        return None
    refs = []
    for ref in value:
        if not isinstance(ref, dict):
            return None
        kind, name, uid, controller = ref.get("kind"), ref.get("name"), ref.get("uid"), ref.get("controller")
        if ((kind is not None and kind.__class__ is not str)
                or (name is not None and name.__class__ is not str)
                or (uid is not None and uid.__class__ is not str)
                or (controller is not None and controller.__class__ is not bool)):
            return None
        refs.append(OwnerReference(kind=kind or "", name=name or "", uid=uid or "",
                                   controller=bool(controller)))
    return tuple(refs)


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
