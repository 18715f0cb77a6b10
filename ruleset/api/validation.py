"""The API server's rules for the fields the scheduler reads, with Kubernetes' messages.

A snapshot holds objects the API server has admitted, so an object it would refuse is bad
input, reported like any other (located, exit 2). Each check below ports one upstream
function, named in its docstring: object validation from ``k8s.io/kubernetes``
``pkg/apis/core/validation/validation.go``, ``pkg/apis/core/helper/helpers.go`` and
``pkg/apis/scheduling/validation/validation.go`` (read at kubernetes/kubernetes 000f2605;
the functions ported have the v1.20 behaviour: SCTP has been a plain protocol since v1.20,
and no rule ported here changed after it), the helpers and ``field.Error`` wording from
``k8s.io/apimachinery`` at tag v0.20.0 (``pkg/util/validation``,
``pkg/apis/meta/v1/validation``, ``pkg/util/validation/field/errors.go``). Only rules about
fields the scheduler reads are ported, and none is added that the API server does not have.
Left out: ``validateNodeTaints``' rule that no two taints share a key and an effect
(ruleset's tests build such nodes; the scheduler reads them fine), requests against
limits, resource names, and everything the scheduler does not read.

Messages follow ``field.Error``: ``Invalid value: <value>: <detail>``, ``Unsupported value:
"x": supported values: …``, ``Required value``. Three deliberate differences:

* Paths name where the field is in the file: upstream reports node taints at
  ``metadata.taints[i]`` (``ValidateNode`` roots them under ``metadata``) and pod overhead
  at ``spec.overhead.limits.<name>`` (``validateOverhead`` reuses the requirements check).
* A quantity is shown as written; upstream shows its canonical form (``-500m`` for
  ``-0.5``), or, for ``must be an integer``, the Go struct.
* A struct in a message (a toleration) is shown with its string fields only (upstream's
  ``%#v`` also prints ``TolerationSeconds``, a pointer).

Which objects are checked: those read from a file (:func:`validating`). Objects decoded
from dicts built in code (``DecodeContext`` without a file, or with a placeholder such as
``"<test>"``) are taken as they are, as kube-scheduler's own unit tests build objects the
API server never saw; ruleset's ported plugin tests rely on that.

Always checked, whatever the source: numbers have the range of their API type (int32 or
int64), as the API server's decoder refuses a number beyond it before validation runs; and
a quantity must fit in an int64 in the unit Kubernetes reads it in (millicores for
``cpu``), since beyond it ``Value()`` and ``MilliValue()`` overflow (see
:mod:`ruleset.quantity`). Both keep the scheduler's int64 arithmetic from overflowing.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ruleset.api import decode as _decode
from ruleset.api import resources as res
from ruleset.api.decode import DecodeContext, get_int, get_map
from ruleset.gofmt import go_quote
from ruleset.quantity import (
    MAX_INT64,
    QuantityError,
    QuantityRangeError,
    coerce_quantity,
    describe,
    fits_int64,
    milli_value_of,
)
from ruleset.selector import validation as names

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)

#: ``apimachineryvalidation.IsNegativeErrorMsg``.
IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"
#: ``isNotIntegerErrorMsg``.
IS_NOT_INTEGER_ERROR_MSG = "must be an integer"
#: The taint effects ``validateTaintEffect`` accepts, in its order.
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
#: ``supportedPortProtocols`` (SCTP is GA, and unconditional, from v1.20), listed sorted.
PORT_PROTOCOLS = ("SCTP", "TCP", "UDP")
TOLERATION_OPERATORS = ("Equal", "Exists")
#: ``scheduling.HighestUserDefinablePriority``.
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
#: ``scheduling.SystemPriorityClassPrefix`` and ``systemPriorityClasses`` (name: value).
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
SYSTEM_PRIORITY_CLASSES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
#: ``helper.integerResources``; extended resources are integers too (``IsIntegerResourceName``).
INTEGER_RESOURCES = frozenset((
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
))


def validating(ctx: DecodeContext) -> bool:
    """Whether objects decoded in ``ctx`` get the API server's checks (``ctx.api_checks``)."""
    return ctx.api_checks


@lru_cache(maxsize=8192)
def qualified_name_errors(name: str) -> tuple[str, ...]:
    """``IsQualifiedName``, memoized: a cluster repeats the same label keys many times."""
    return tuple(names.qualified_name_errors(name))


@lru_cache(maxsize=8192)
def label_value_errors(value: str) -> tuple[str, ...]:
    """``IsValidLabelValue``, memoized."""
    return tuple(names.label_value_errors(value))


# --- field.Error bodies -------------------------------------------------------------------

def invalid(value: object, detail: str) -> str:
    """``field.Invalid``: an int shown as is, a string quoted (``%q``)."""
    shown = go_quote(value) if isinstance(value, str) else str(value)
    return f"Invalid value: {shown}: {detail}"


def not_supported(value: str, valid: Iterable[str]) -> str:
    """``field.NotSupported``."""
    return f"Unsupported value: {go_quote(value)}: supported values: {', '.join(go_quote(v) for v in valid)}"


REQUIRED = "Required value"


def inclusive_range_error(lo: int, hi: int) -> str:
    """``validation.InclusiveRangeError``."""
    return f"must be between {lo} and {hi}, inclusive"


def _go_struct(type_name: str, fields: Iterable[tuple[str, str]]) -> str:
    """``%#v`` of a struct, string fields only."""
    return type_name + "{" + ", ".join(f"{name}:{go_quote(value)}" for name, value in fields) + "}"


# --- numbers of a fixed width ----------------------------------------------------------------

def show_int(value: int) -> str:
    """An integer for a message (a huge one summarised: Python will not print 4,300+ digits)."""
    if value.bit_length() > 256:
        return describe(value)
    return str(value)


def get_int_of(ctx: DecodeContext, obj: Any, key: str, path: str, bounds: tuple[int, int],
               default: int | None = None) -> int | None:
    """``obj[key]`` as an integer of the API type with ``bounds`` (:data:`INT32`, :data:`INT64`).

    A number beyond them is refused as the API server's decoder refuses it (JSON into an
    int32 or int64 field), before any validation: with the type's range, in
    ``InclusiveRangeError``'s words.
    """
    value = get_int(ctx, obj, key, path)
    if value is None:
        return default
    lo, hi = bounds
    if not lo <= value <= hi:
        width = "int32" if bounds == INT32 else "int64"
        detail = f"{inclusive_range_error(lo, hi)} (an {width} field)"
        ctx.fail(path, f"Invalid value: {show_int(value)}: {detail}", obj, key)
        return default
    return value


def get_int32(ctx: DecodeContext, obj: Any, key: str, path: str, default: int | None = None) -> int | None:
    """An ``int32`` field (see :func:`get_int_of`)."""
    return get_int_of(ctx, obj, key, path, INT32, default)


def get_int64(ctx: DecodeContext, obj: Any, key: str, path: str, default: int | None = None) -> int | None:
    """An ``int64`` field (see :func:`get_int_of`)."""
    return get_int_of(ctx, obj, key, path, INT64, default)


# --- resource quantities ------------------------------------------------------------------

def is_integer_resource(name: str) -> bool:
    """``helper.IsIntegerResourceName``."""
    return name in INTEGER_RESOURCES or res.is_extended_resource(name)


def _written(raw: object) -> str:
    """A quantity as written, for ``Invalid value: "…"``."""
    if isinstance(raw, str):
        text = raw.strip()
        return text if len(text) <= 64 else text[:64] + "…"
    return describe(raw)


def _range_message(name: str) -> str:
    if name == res.CPU:
        return (f"out of range: Kubernetes reads cpu in int64 millicores (Quantity.MilliValue()), "
                f"at most {MAX_INT64}m")
    return f"out of range: Kubernetes reads {name} as an int64 (Quantity.Value()), at most {MAX_INT64}"


def decode_resource_list(ctx: DecodeContext, obj: Any, key: str, path: str) -> dict[str, Fraction]:
    """``obj[key]`` as a ``ResourceList``: each quantity parsed, within int64 in its unit, and
    valid per ``ValidateResourceQuantityValue`` (v1.20):

    * ``ValidateNonnegativeQuantity``: ``must be greater than or equal to 0``;
    * for ``IsIntegerResourceName`` resources (``pods``, extended resources…),
      ``MilliValue() % 1000 == 0``: ``must be an integer``.

    The API server runs it on node ``status.capacity`` and ``status.allocatable``
    (``ValidateNodeResources``), container ``resources.requests`` and ``.limits``
    (``ValidateResourceRequirements``) and ``spec.overhead`` (``validateOverhead``). A
    refused quantity is left out of the result.

    A list whose every entry was accepted before is taken from the memo
    (:func:`known_resource_list`) when the decoders' fast paths are on.
    """
    if _decode.FAST_PATHS:
        known = known_resource_list(obj.get(key) if isinstance(obj, dict) else None, ctx.api_checks)
        if known is not None:
            return known
    raw = get_map(ctx, obj, key, path)
    out: dict[str, Fraction] = {}
    for name_key, value in raw.items():
        name = str(name_key)
        field_path = f"{path}.{name}"
        try:
            quantity = coerce_quantity(value)
        except QuantityRangeError:
            ctx.fail(field_path, f"{describe(value)}: {_range_message(name)}", raw, name_key)
            continue
        except QuantityError as exc:
            ctx.fail(field_path, f"{describe(value)}: {exc}", raw, name_key)
            continue
        if not fits_int64(quantity, -3 if name == res.CPU else 0):
            ctx.fail(field_path, f"{describe(value)}: {_range_message(name)}", raw, name_key)
            continue
        ok = True
        if not validating(ctx):
            out[name] = quantity
            _remember_quantity(False, name_key, value, quantity)
            continue
        if quantity < 0:
            ctx.fail(field_path, invalid(_written(value), IS_NEGATIVE_ERROR_MSG), raw, name_key)
            ok = False
        if is_integer_resource(name) and milli_value_of(quantity) % 1000 != 0:
            ctx.fail(field_path, invalid(_written(value), IS_NOT_INTEGER_ERROR_MSG), raw, name_key)
            ok = False
        if ok:
            out[name] = quantity
            _remember_quantity(True, name_key, value, quantity)
    return out


#: Resource-list entries :func:`decode_resource_list` accepted without a problem, by whether
#: it validated: name -> text -> quantity. A snapshot repeats a few (``cpu: 100m``) for every
#: container, and :func:`known_resource_list` reads those without parsing or checking again.
_ACCEPTED: tuple[dict[str, dict[str, Fraction]], dict[str, dict[str, Fraction]]] = ({}, {})
_ACCEPTED_SIZE = [0]
#: At most this many texts are remembered (a snapshot has a few dozen; the rest are parsed).
MAX_REMEMBERED_QUANTITIES = 8192


def _remember_quantity(validated: bool, name: object, value: object, quantity: Fraction) -> None:
    if (name.__class__ is not str or value.__class__ is not str
            or _ACCEPTED_SIZE[0] >= MAX_REMEMBERED_QUANTITIES):
        return
    texts = _ACCEPTED[validated].setdefault(name, {})
    if value not in texts:
        texts[value] = quantity
        _ACCEPTED_SIZE[0] += 1


def known_resource_list(value: Any, validated: bool) -> dict[str, Fraction] | None:
    """The resource list :func:`decode_resource_list` gives for ``value`` (an ``obj[key]``) with
    no problem, when every entry is one it has accepted before (a string it parsed and checked);
    None otherwise (decode it then). Absent or null is ``{}``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        return None
    accepted = _ACCEPTED[validated]
    out: dict[str, Fraction] = {}
    for name, text in value.items():
        texts = accepted.get(name)
        if texts is None or text.__class__ is not str:
            return None
        quantity = texts.get(text)
        if quantity is None:
            return None
        out[name] = quantity
    return out


# --- labels -----------------------------------------------------------------------------------

def labels_valid(raw: dict) -> bool:
    """Whether :func:`check_labels` finds nothing in ``raw`` (a mapping), for mappings whose keys
    and values are all strings; False for any other (check those)."""
    for k, v in raw.items():
        if (k.__class__ is not str or v.__class__ is not str or qualified_name_errors(k)
                or label_value_errors(v)):
            return False
    return True


def check_labels(ctx: DecodeContext, obj: Any, key: str, path: str) -> None:
    """``ValidateLabels`` (apimachinery ``pkg/apis/meta/v1/validation``) on ``obj[key]``: each key
    a qualified name (``ValidateLabelName``), each value a label value (``IsValidLabelValue``).
    Upstream reports both at the map's path (``metadata.labels``), not at the key."""
    raw = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(raw, dict) or not validating(ctx):
        return
    for k, v in raw.items():
        name = str(k)
        for msg in qualified_name_errors(name):
            ctx.fail(path, invalid(name, msg), raw, k)
        if v is None or isinstance(v, bool) or not isinstance(v, (str, int, float)):
            continue  # the decoder has reported it
        text = v if isinstance(v, str) else str(v)
        for msg in label_value_errors(text):
            ctx.fail(path, invalid(text, msg), raw, k)


# --- taints and tolerations -----------------------------------------------------------------

def _effect_errors(effect: str, allow_empty: bool) -> list[str]:
    """``validateTaintEffect``."""
    if not allow_empty and not effect:
        return [REQUIRED]
    if effect in TAINT_EFFECTS:
        return []
    return [not_supported(effect, TAINT_EFFECTS)]


def check_node_taints(ctx: DecodeContext, taints: list[tuple[int, str, str, str]], items: Any,
                      path: str) -> None:
    """``validateNodeTaints``: ``(index, key, value, effect)`` per taint: the key a qualified name,
    the value a label value (messages joined with ``;``), the effect required and one of
    :data:`TAINT_EFFECTS`.

    Not ported: its rule that no two taints share a key and an effect. The scheduler reads
    such a node without trouble (TaintToleration matches each taint on its own), and
    ruleset's tests build nodes with such pairs.
    """
    if not validating(ctx):
        return
    for i, key, value, effect in taints:
        item = items[i] if isinstance(items, list) and i < len(items) else None
        for msg in qualified_name_errors(key):
            ctx.fail(f"{path}[{i}].key", invalid(key, msg), item, "key")
        errs = label_value_errors(value)
        if errs:
            ctx.fail(f"{path}[{i}].value", invalid(value, ";".join(errs)), item, "value")
        for msg in _effect_errors(effect, allow_empty=False):
            ctx.fail(f"{path}[{i}].effect", msg, item, "effect")


_EMPTY_KEY_NEEDS_EXISTS = ("operator must be Exists when `key` is empty, "
                           "which means \"match all values and all keys\"")
_SECONDS_NEED_NO_EXECUTE = "effect must be 'NoExecute' when `tolerationSeconds` is set"
_EXISTS_TAKES_NO_VALUE = "value must be empty when `operator` is 'Exists'"


def check_tolerations(ctx: DecodeContext, tolerations: list[tuple[int, dict, Any]], path: str) -> None:
    """``ValidateTolerations``: ``(index, raw toleration, decoded toleration)`` per toleration.

    A non-empty key is a qualified name; an empty key needs ``Exists``; ``tolerationSeconds``
    needs ``NoExecute``; ``Equal`` (or no operator) takes a label value, ``Exists`` no value,
    and no other operator is known; a non-empty effect is a taint effect. Upstream reports a
    bad value at ``.operator``; so does this.
    """
    if not validating(ctx):
        return
    for i, raw, t in tolerations:
        at = f"{path}[{i}]"
        if t.key:
            for msg in qualified_name_errors(t.key):
                ctx.fail(f"{at}.key", invalid(t.key, msg), raw, "key")
        if not t.key and t.operator != "Exists":
            ctx.fail(f"{at}.operator", invalid(t.operator, _EMPTY_KEY_NEEDS_EXISTS), raw, "operator")
        if t.toleration_seconds is not None and t.effect != "NoExecute":
            ctx.fail(f"{at}.effect", invalid(t.effect, _SECONDS_NEED_NO_EXECUTE), raw, "effect")
        if t.operator in ("Equal", ""):
            errs = label_value_errors(t.value)
            if errs:
                ctx.fail(f"{at}.operator", invalid(t.value, ";".join(errs)), raw, "value")
        elif t.operator == "Exists":
            if t.value:
                fields = (("Key", t.key), ("Operator", t.operator), ("Value", t.value), ("Effect", t.effect))
                shown = _go_struct("core.Toleration", fields)
                ctx.fail(f"{at}.operator", f"Invalid value: {shown}: {_EXISTS_TAKES_NO_VALUE}", raw, "value")
        else:
            ctx.fail(f"{at}.operator", not_supported(t.operator, TOLERATION_OPERATORS), raw, "operator")
        if t.effect:
            for msg in _effect_errors(t.effect, allow_empty=True):
                ctx.fail(f"{at}.effect", msg, raw, "effect")


# --- ports, weights, priority classes -----------------------------------------------------------

def _port_num_errors(port: int) -> list[str]:
    """``validation.IsValidPortNum``."""
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


def check_container_port(ctx: DecodeContext, raw: Any, path: str, container_port: int, host_port: int,
                         protocol: str) -> None:
    """``validateContainerPorts`` for one port (the protocol after defaulting to TCP):
    ``containerPort`` required and in 1..65535, a non-zero ``hostPort`` in 1..65535, the
    protocol one of :data:`PORT_PROTOCOLS`, exactly cased."""
    if not validating(ctx):
        return
    if container_port == 0:
        ctx.fail(f"{path}.containerPort", REQUIRED, raw, "containerPort")
    for msg in _port_num_errors(container_port) if container_port else ():
        ctx.fail(f"{path}.containerPort", invalid(container_port, msg), raw, "containerPort")
    for msg in _port_num_errors(host_port) if host_port else ():
        ctx.fail(f"{path}.hostPort", invalid(host_port, msg), raw, "hostPort")
    if protocol not in PORT_PROTOCOLS:
        ctx.fail(f"{path}.protocol", not_supported(protocol, PORT_PROTOCOLS), raw, "protocol")


def check_weight(ctx: DecodeContext, raw: Any, path: str, weight: int) -> None:
    """``ValidatePreferredSchedulingTerms`` and ``validateWeightedPodAffinityTerms``: a preferred
    term's weight is in 1..100."""
    if validating(ctx) and (weight <= 0 or weight > 100):
        ctx.fail(path, invalid(weight, "must be in the range 1-100"), raw, "weight")


def check_priority_class(ctx: DecodeContext, raw: Any, name: str, value: int, global_default: bool) -> None:
    """``ValidatePriorityClass``: a ``system-`` name must be a known system class
    (``IsKnownSystemPriorityClass``: its value, ``globalDefault`` false); any other class's
    value is at most ``HighestUserDefinablePriority`` (10^9)."""
    if not validating(ctx):
        return
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        expected = SYSTEM_PRIORITY_CLASSES.get(name)
        if expected is None:
            err = f"{name} is not a known system priority class"
        elif value != expected:
            err = f"value of {name} PriorityClass must be {expected}"
        elif global_default:
            err = f"globalDefault of {name} PriorityClass must be false"
        else:
            return
        meta = raw.get("metadata") if isinstance(raw, dict) else None
        reserved = (f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' prefix "
                    "are reserved for system use only")
        ctx.fail("metadata.name", f"Forbidden: {reserved}. error: {err}", meta, "name")
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        ctx.fail("value", f"Forbidden: maximum allowed value of a user defined priority is "
                          f"{HIGHEST_USER_DEFINABLE_PRIORITY}", raw, "value")
