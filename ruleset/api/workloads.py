"""Objects the scheduler reads besides pods and nodes: the controllers that select pods
(Service, ReplicationController, ReplicaSet, StatefulSet), PodDisruptionBudgets and
PriorityClasses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ruleset.api.decode import DecodeContext, get_bool, get_map, get_str, get_string_map
from ruleset.api.meta import LabelSelector, ObjectMeta, decode_label_selector, decode_meta
from ruleset.api.validation import INT32, check_priority_class, get_int32, inclusive_range_error, show_int
from ruleset.selector import Selector, SelectorError, from_label_selector


@dataclass(eq=False)
class Service:
    meta: ObjectMeta
    #: ``spec.selector``; None when absent (such services select nothing).
    selector: dict[str, str] | None


@dataclass(eq=False)
class ReplicationController:
    meta: ObjectMeta
    selector: dict[str, str]
    replicas: int | None = None


@dataclass(eq=False)
class ReplicaSet:
    meta: ObjectMeta
    selector: LabelSelector | None
    replicas: int | None = None


@dataclass(eq=False)
class StatefulSet:
    meta: ObjectMeta
    selector: LabelSelector | None
    replicas: int | None = None


@dataclass(eq=False)
class PodDisruptionBudget:
    meta: ObjectMeta
    selector: LabelSelector | None
    min_available: int | str | None
    max_unavailable: int | str | None
    #: ``status.disruptionsAllowed`` as written; None when the status is absent.
    disruptions_allowed: int | None
    disrupted_pods: frozenset[str]
    #: ``status.expectedPods`` / ``status.currentHealthy`` when the status is present.
    expected_pods: int | None = None
    current_healthy: int | None = None


@dataclass(eq=False)
class PriorityClass:
    meta: ObjectMeta
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"


def label_selector_of(obj: ReplicaSet | StatefulSet | PodDisruptionBudget) -> Selector | None:
    """``metav1.LabelSelectorAsSelector`` of the object's ``spec.selector``, converted once per
    object; None when it does not convert (a nil selector does: to NOTHING)."""
    cached = obj.__dict__.get("_label_selector", False)
    if cached is not False:
        return cached
    try:
        selector = from_label_selector(obj.selector)
    except SelectorError:
        selector = None
    obj.__dict__["_label_selector"] = selector
    return selector


def decode_service(ctx: DecodeContext, raw: Any) -> Service:
    meta = decode_meta(ctx, raw, namespaced=True, kind="Service")
    ctx.subject = f"Service {meta.namespace}/{meta.name}"
    spec = get_map(ctx, raw, "spec", "spec")
    selector = (get_string_map(ctx, spec, "selector", "spec.selector")
                if spec.get("selector") is not None else None)
    return Service(meta=meta, selector=selector)


def decode_replication_controller(ctx: DecodeContext, raw: Any) -> ReplicationController:
    meta = decode_meta(ctx, raw, namespaced=True, kind="ReplicationController")
    ctx.subject = f"ReplicationController {meta.namespace}/{meta.name}"
    spec = get_map(ctx, raw, "spec", "spec")
    return ReplicationController(meta=meta, selector=get_string_map(ctx, spec, "selector", "spec.selector"),
                                 replicas=get_int32(ctx, spec, "replicas", "spec.replicas"))


def decode_replica_set(ctx: DecodeContext, raw: Any) -> ReplicaSet:
    meta = decode_meta(ctx, raw, namespaced=True, kind="ReplicaSet")
    ctx.subject = f"ReplicaSet {meta.namespace}/{meta.name}"
    spec = get_map(ctx, raw, "spec", "spec")
    return ReplicaSet(meta=meta, selector=decode_label_selector(ctx, spec, "selector", "spec.selector"),
                      replicas=get_int32(ctx, spec, "replicas", "spec.replicas"))


def decode_stateful_set(ctx: DecodeContext, raw: Any) -> StatefulSet:
    meta = decode_meta(ctx, raw, namespaced=True, kind="StatefulSet")
    ctx.subject = f"StatefulSet {meta.namespace}/{meta.name}"
    spec = get_map(ctx, raw, "spec", "spec")
    return StatefulSet(meta=meta, selector=decode_label_selector(ctx, spec, "selector", "spec.selector"),
                       replicas=get_int32(ctx, spec, "replicas", "spec.replicas"))


PERCENT_ERROR = ("a valid percent string must be a numeric string followed by an ending '%' "
                 "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")


def _int_or_percent(ctx: DecodeContext, obj: dict, key: str, path: str) -> int | str | None:
    """An IntOrString field, validated as ``ValidatePositiveIntOrPercent`` and
    ``IsNotMoreThan100Percent`` do (messages included)."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        ctx.fail(path, f"Invalid value: {value!r}: expected an integer or a percent string", obj, key)
        return None
    if isinstance(value, str):
        # A quoted "3" is a string in an IntOrString, and must then be a percentage.
        if not (value.endswith("%") and value[:-1].isascii() and value[:-1].isdigit()):
            ctx.fail(path, f"Invalid value: {value}: {PERCENT_ERROR}", obj, key)
            return None
        digits = value[:-1].lstrip("0")
        if len(digits) > 3 or int(digits or "0") > 100:  # no int() of thousands of digits
            ctx.fail(path, f"Invalid value: {value}: must not be greater than 100%", obj, key)
            return None
        return value
    if not INT32[0] <= value <= INT32[1]:  # intstr.IntOrString holds an int32
        detail = f"{inclusive_range_error(*INT32)} (an int32 field)"
        ctx.fail(path, f"Invalid value: {show_int(value)}: {detail}", obj, key)
        return None
    if value < 0:
        ctx.fail(path, f"Invalid value: {value}: must be greater than or equal to 0", obj, key)
        return None
    return value


def decode_pod_disruption_budget(ctx: DecodeContext, raw: Any) -> PodDisruptionBudget:
    meta = decode_meta(ctx, raw, namespaced=True, kind="PodDisruptionBudget")
    ctx.subject = f"PodDisruptionBudget {meta.namespace}/{meta.name}"
    spec = get_map(ctx, raw, "spec", "spec")
    status = get_map(ctx, raw, "status", "status")
    # ValidatePodDisruptionBudgetSpec's order: both set, then minAvailable, then maxUnavailable.
    # Upstream prints the whole Go spec struct (pointers included) as the invalid value; the
    # two fields that clash stand in for it.
    both = spec.get("minAvailable"), spec.get("maxUnavailable")
    if both[0] is not None and both[1] is not None:
        ctx.fail("spec", f"Invalid value: {{minAvailable: {both[0]}, maxUnavailable: {both[1]}}}: "
                         "minAvailable and maxUnavailable cannot be both set", spec, "maxUnavailable")
    min_available = _int_or_percent(ctx, spec, "minAvailable", "spec.minAvailable")
    max_unavailable = _int_or_percent(ctx, spec, "maxUnavailable", "spec.maxUnavailable")
    disrupted = get_map(ctx, status, "disruptedPods", "status.disruptedPods")
    return PodDisruptionBudget(
        meta=meta,
        selector=decode_label_selector(ctx, spec, "selector", "spec.selector"),
        min_available=min_available,
        max_unavailable=max_unavailable,
        disruptions_allowed=get_int32(
            ctx, status, "disruptionsAllowed", "status.disruptionsAllowed",
            get_int32(ctx, status, "podDisruptionsAllowed", "status.podDisruptionsAllowed")),
        disrupted_pods=frozenset(str(k) for k in disrupted),
        expected_pods=get_int32(ctx, status, "expectedPods", "status.expectedPods"),
        current_healthy=get_int32(ctx, status, "currentHealthy", "status.currentHealthy"),
    )


def decode_priority_class(ctx: DecodeContext, raw: Any) -> PriorityClass:
    """Decode a PriorityClass: ``value`` is a required int32, checked as ``ValidatePriorityClass``
    checks it (see :func:`ruleset.api.validation.check_priority_class`)."""
    meta = decode_meta(ctx, raw, namespaced=False, kind="PriorityClass")
    ctx.subject = f"PriorityClass {meta.name}"
    present = isinstance(raw, dict) and raw.get("value") is not None
    value = get_int32(ctx, raw, "value", "value")
    global_default = get_bool(ctx, raw, "globalDefault", "globalDefault")
    if value is None:
        if not present:
            ctx.fail("value", "Required value", raw)
        value = 0
    elif meta.name:
        check_priority_class(ctx, raw, meta.name, value, global_default)
    return PriorityClass(
        meta=meta,
        value=value,
        global_default=global_default,
        preemption_policy=get_str(ctx, raw, "preemptionPolicy", "preemptionPolicy") or "PreemptLowerPriority",
    )
