"""The two kinds admission reads from a snapshot: LimitRange (``v1``) and RuntimeClass
(``node.k8s.io/v1``, ``v1beta1``; ``v1alpha1`` keeps the same fields under ``spec``, with
``runtimeHandler`` for ``handler``).

Decoders never raise: problems go to the :class:`~ruleset.api.decode.DecodeContext`, located
like every other object's. A LimitRange is read as the API server stores it: its
``Container`` items get ``SetDefaults_LimitRangeItem`` (``pkg/apis/core/v1/defaults.go``,
v1.20): a missing ``default`` is ``max``, a missing ``defaultRequest`` is ``default``, then
``min`` (a dumped LimitRange already carries these, so reading one is idempotent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruleset.admission.goquantity import GoQuantity, format_of
from ruleset.api.decode import DecodeContext, get_list, get_map, get_str, get_string_map
from ruleset.api.meta import ObjectMeta, decode_meta
from ruleset.api.pod import Toleration, decode_tolerations
from ruleset.api.validation import check_labels, decode_resource_list

LIMIT_TYPE_CONTAINER = "Container"
LIMIT_TYPE_POD = "Pod"


@dataclass(frozen=True)
class LimitRangeItem:
    """``v1.LimitRangeItem``: resource name to quantity, in the order written."""

    type: str
    max: dict[str, GoQuantity] = field(default_factory=dict)
    min: dict[str, GoQuantity] = field(default_factory=dict)
    default: dict[str, GoQuantity] = field(default_factory=dict)
    default_request: dict[str, GoQuantity] = field(default_factory=dict)
    max_limit_request_ratio: dict[str, GoQuantity] = field(default_factory=dict)


@dataclass(frozen=True)
class LimitRange:
    """``v1.LimitRange``."""

    meta: ObjectMeta
    limits: tuple[LimitRangeItem, ...] = ()

    @property
    def namespace(self) -> str:
        return self.meta.namespace

    @property
    def name(self) -> str:
        return self.meta.name


@dataclass(frozen=True)
class RuntimeClass:
    """``node.k8s.io`` RuntimeClass. ``overhead`` is None without ``overhead`` (an
    ``overhead`` without ``podFixed`` is ``{}``); ``scheduling`` likewise."""

    meta: ObjectMeta
    handler: str = ""
    overhead: dict[str, GoQuantity] | None = None
    scheduling: Scheduling | None = None

    @property
    def name(self) -> str:
        return self.meta.name


@dataclass(frozen=True)
class Scheduling:
    """``RuntimeClass.scheduling``: ``nodeSelector`` (None when absent) and tolerations."""

    node_selector: dict[str, str] | None = None
    tolerations: tuple[Toleration, ...] = ()


def _quantities(ctx: DecodeContext, obj: Any, key: str, path: str) -> dict[str, GoQuantity]:
    values = decode_resource_list(ctx, obj, key, path)
    raw = obj.get(key) if isinstance(obj, dict) else None
    formats = {str(k): format_of(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
    return {name: GoQuantity(value, formats.get(name, "DecimalSI")) for name, value in values.items()}


def _default_container_item(item: LimitRangeItem) -> LimitRangeItem:
    """``SetDefaults_LimitRangeItem`` for a ``Container`` item."""
    if item.type != LIMIT_TYPE_CONTAINER:
        return item
    default = dict(item.default)
    for name, q in item.max.items():
        default.setdefault(name, q)
    request = dict(item.default_request)
    for name, q in default.items():
        request.setdefault(name, q)
    for name, q in item.min.items():
        request.setdefault(name, q)
    return LimitRangeItem(item.type, dict(item.max), dict(item.min), default, request,
                          dict(item.max_limit_request_ratio))


def decode_limit_range(ctx: DecodeContext, raw: Any) -> LimitRange:
    """Decode a ``v1`` LimitRange (``spec.limits``), defaulted as the API server stores it."""
    meta = decode_meta(ctx, raw, namespaced=True, kind="LimitRange")
    ctx.subject = f"LimitRange {meta.namespace}/{meta.name}" if meta.name else "LimitRange"
    check_labels(ctx, raw.get("metadata") if isinstance(raw, dict) else None, "labels", "metadata.labels")
    spec = get_map(ctx, raw, "spec", "spec")
    items = get_list(ctx, spec, "limits", "spec.limits")
    limits = []
    for i, item in enumerate(items):
        path = f"spec.limits[{i}]"
        if not isinstance(item, dict):
            ctx.fail(path, "expected an object", items, i)
            continue
        limits.append(_default_container_item(LimitRangeItem(
            type=get_str(ctx, item, "type", f"{path}.type"),
            max=_quantities(ctx, item, "max", f"{path}.max"),
            min=_quantities(ctx, item, "min", f"{path}.min"),
            default=_quantities(ctx, item, "default", f"{path}.default"),
            default_request=_quantities(ctx, item, "defaultRequest", f"{path}.defaultRequest"),
            max_limit_request_ratio=_quantities(ctx, item, "maxLimitRequestRatio",
                                                f"{path}.maxLimitRequestRatio"),
        )))
    return LimitRange(meta=meta, limits=tuple(limits))


def decode_runtime_class(ctx: DecodeContext, raw: Any) -> RuntimeClass:
    """Decode a RuntimeClass: ``handler``, ``overhead.podFixed`` and ``scheduling`` at the top
    level (``node.k8s.io/v1`` and ``v1beta1``) or under ``spec`` (``v1alpha1``)."""
    meta = decode_meta(ctx, raw, namespaced=False, kind="RuntimeClass")
    ctx.subject = f"RuntimeClass {meta.name}" if meta.name else "RuntimeClass"
    check_labels(ctx, raw.get("metadata") if isinstance(raw, dict) else None, "labels", "metadata.labels")
    api_version = get_str(ctx, raw, "apiVersion", "apiVersion")
    body, prefix, handler_key = raw, "", "handler"
    if api_version.endswith("/v1alpha1"):
        body, prefix, handler_key = get_map(ctx, raw, "spec", "spec"), "spec.", "runtimeHandler"
    handler = get_str(ctx, body, handler_key, f"{prefix}{handler_key}")
    overhead = None
    if isinstance(body, dict) and body.get("overhead") is not None:
        over = get_map(ctx, body, "overhead", f"{prefix}overhead")
        overhead = _quantities(ctx, over, "podFixed", f"{prefix}overhead.podFixed")
    scheduling = None
    if isinstance(body, dict) and body.get("scheduling") is not None:
        sched = get_map(ctx, body, "scheduling", f"{prefix}scheduling")
        selector = None
        if sched.get("nodeSelector") is not None:
            selector = get_string_map(ctx, sched, "nodeSelector", f"{prefix}scheduling.nodeSelector")
            check_labels(ctx, sched, "nodeSelector", f"{prefix}scheduling.nodeSelector")
        tolerations = decode_tolerations(ctx, sched, "tolerations", f"{prefix}scheduling.tolerations")
        scheduling = Scheduling(node_selector=selector, tolerations=tolerations)
    return RuntimeClass(meta=meta, handler=handler, overhead=overhead, scheduling=scheduling)
