"""The LimitRanger admission plugin (``plugin/pkg/admission/limitranger/admission.go``, v1.20)
for pods: ``PodMutateLimitFunc`` then ``PodValidateLimitFunc``, per LimitRange of the pod's
namespace, in the snapshot's order (upstream's is its informer cache's).

Mutation (``defaultContainerResourceRequirements``, ``mergeContainerResources``): the
``default`` (limits) and ``defaultRequest`` (requests) of the range's ``Container`` items
fill each resource a container or init container lacks (one it has is never changed), and
``metadata.annotations["kubernetes.io/limit-ranger"]`` says what was set. Validation:
``min``, ``max`` and ``maxLimitRequestRatio`` of ``Container`` items against each container
and init container, and of ``Pod`` items against the pod's totals (``sum`` over containers,
keeping only resources every container names, then the max with each init container).
Errors of one LimitRange are joined as ``utilerrors.NewAggregate`` joins them; the first
LimitRange with errors refuses the pod. Upstream walks Go maps (random order); here
resources go in the order written.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ruleset.admission.goquantity import GoQuantity, go_quantity, new_milli_quantity, new_quantity
from ruleset.admission.objects import LIMIT_TYPE_CONTAINER, LIMIT_TYPE_POD, LimitRange
from ruleset.admission.raw import Editor, get_dict, get_list, scalar_text
from ruleset.quantity import milli_value_of, value_of

ANNOTATION = "kubernetes.io/limit-ranger"
#: ``resource.MaxMilliValue``.
MAX_MILLI_VALUE = (2**63 - 1) // 1000
CPU = "cpu"

Resources = dict[str, GoQuantity]


def default_requirements(limit_range: LimitRange) -> tuple[Resources, Resources]:
    """``defaultContainerResourceRequirements``: (requests, limits) from the ``Container`` items."""
    requests: Resources = {}
    limits: Resources = {}
    for item in limit_range.limits:
        if item.type == LIMIT_TYPE_CONTAINER:
            requests.update(item.default_request)
            limits.update(item.default)
    return requests, limits


def mutate(editor: Editor, pod: dict, limit_range: LimitRange) -> bool:
    """``PodMutateLimitFunc`` on ``pod`` (an editor's copy); whether anything was set."""
    requests, limits = default_requirements(limit_range)
    if not requests and not limits:
        return False
    annotations: list[str] = []
    for list_key, prefix in (("containers", "container"), ("initContainers", "init container")):
        for i, container in enumerate(get_list(get_dict(pod, "spec"), list_key) or ()):
            annotations += _merge_container(editor, pod, list_key, i, container, requests, limits, prefix)
    if not annotations:
        return False
    meta = editor.own(pod, "metadata", create=True)
    notes = editor.own(meta, "annotations", create=True) if isinstance(meta, dict) else None
    if isinstance(notes, dict):  # malformed metadata or annotations are the decoder's to report
        notes[ANNOTATION] = "LimitRanger plugin set: " + "; ".join(annotations)
    return True


def _merge_container(editor: Editor, pod: dict, list_key: str, i: int, container: Any,
                     requests: Resources, limits: Resources, prefix: str) -> list[str]:
    """``mergeContainerResources``: the annotation parts for one container."""
    if not isinstance(container, dict):
        return []
    resources = container.get("resources")
    if resources is not None and not isinstance(resources, dict):
        return []
    have = resources or {}
    if any(have.get(k) is not None and not isinstance(have.get(k), dict) for k in ("limits", "requests")):
        return []
    set_limits = [k for k in limits if k not in (have.get("limits") or {})]
    set_requests = [k for k in requests if k not in (have.get("requests") or {})]
    if not set_limits and not set_requests:
        return []
    own = editor.own(editor.own(editor.own(editor.own(pod, "spec"), list_key), i), "resources", create=True)
    for key, names, values in (("limits", set_limits, limits), ("requests", set_requests, requests)):
        if names:
            target = editor.own(own, key, create=True)
            for name in names:
                target[name] = str(values[name])
    name = scalar_text(container.get("name")) or ""
    out = []
    if set_requests:
        out.append(f"{', '.join(sorted(set_requests))} request for {prefix} {name}")
    if set_limits:
        out.append(f"{', '.join(sorted(set_limits))} limit for {prefix} {name}")
    return out


# --- validation ---------------------------------------------------------------------------------

def _values(req: GoQuantity | None, lim: GoQuantity | None, enforced: GoQuantity) -> tuple[int, int, int]:
    """``requestLimitEnforcedValues``: in thousandths when all three fit, else in units (an
    absent quantity is zero)."""
    qs = [q.value if q is not None else Fraction(0) for q in (req, lim, enforced)]
    units = [value_of(q) for q in qs]
    if all(u <= MAX_MILLI_VALUE for u in units):
        milli = [milli_value_of(q) for q in qs]
        return milli[0], milli[1], milli[2]
    return units[0], units[1], units[2]


def min_constraint(limit_type: str, name: str, enforced: GoQuantity, request: Resources,
                   limit: Resources) -> str | None:
    """``minConstraint``."""
    req, lim = request.get(name), limit.get(name)
    observed_req, observed_lim, enforced_value = _values(req, lim, enforced)
    if req is None:
        return f"minimum {name} usage per {limit_type} is {enforced}.  No request is specified"
    if observed_req < enforced_value:
        return f"minimum {name} usage per {limit_type} is {enforced}, but request is {req}"
    if lim is not None and observed_lim < enforced_value:
        return f"minimum {name} usage per {limit_type} is {enforced}, but limit is {lim}"
    return None


def max_constraint(limit_type: str, name: str, enforced: GoQuantity, request: Resources,
                   limit: Resources) -> str | None:
    """``maxConstraint``."""
    req, lim = request.get(name), limit.get(name)
    observed_req, observed_lim, enforced_value = _values(req, lim, enforced)
    if lim is None:
        return f"maximum {name} usage per {limit_type} is {enforced}.  No limit is specified"
    if observed_lim > enforced_value:
        return f"maximum {name} usage per {limit_type} is {enforced}, but limit is {lim}"
    if req is not None and observed_req > enforced_value:
        return f"maximum {name} usage per {limit_type} is {enforced}, but request is {req}"
    return None


def limit_request_ratio_constraint(limit_type: str, name: str, enforced: GoQuantity, request: Resources,
                                   limit: Resources) -> str | None:
    """``limitRequestRatioConstraint`` (float64 arithmetic, as upstream's)."""
    req, lim = request.get(name), limit.get(name)
    observed_req, observed_lim, _ = _values(req, lim, enforced)
    if req is None or observed_req == 0:
        return (f"{name} max limit to request ratio per {limit_type} is {enforced}, "
                "but no request is specified or request is 0")
    if lim is None or observed_lim == 0:
        return (f"{name} max limit to request ratio per {limit_type} is {enforced}, "
                "but no limit is specified or limit is 0")
    observed_ratio = float(observed_lim) / float(observed_req)
    display = observed_ratio
    max_ratio = float(value_of(enforced.value))
    if value_of(enforced.value) <= MAX_MILLI_VALUE:
        observed_ratio *= 1000
        max_ratio = float(milli_value_of(enforced.value))
    if observed_ratio > max_ratio:
        return (f"{name} max limit to request ratio per {limit_type} is {enforced}, "
                f"but provided ratio is {display:f}")
    return None


def _sum(inputs: list[Resources]) -> Resources:
    """``sum``: per resource named by every input, the total (cpu in millicores, others in units)."""
    result: Resources = {}
    for key in (k for resources in inputs for k in resources):
        if key in result or not all(key in resources for resources in inputs):
            continue
        if key == CPU:
            result[key] = new_milli_quantity(sum(milli_value_of(r[key].value) for r in inputs))
        else:
            result[key] = new_quantity(sum(value_of(r[key].value) for r in inputs))
    return result


def _container_resources(container: Any) -> tuple[Resources, Resources]:
    resources = get_dict(container, "resources")
    out = []
    for key in ("requests", "limits"):
        parsed: Resources = {}
        for name, raw in (get_dict(resources, key) or {}).items():
            q = go_quantity(raw)
            if q is not None:  # a malformed value is the decoder's to report
                parsed[str(name)] = q
        out.append(parsed)
    return out[0], out[1]


def validate(pod: dict, limit_range: LimitRange) -> str | None:
    """``PodValidateLimitFunc``: the aggregated message, or None when the pod complies."""
    spec = get_dict(pod, "spec")
    containers = [_container_resources(c) for c in get_list(spec, "containers") or () if isinstance(c, dict)]
    inits = [_container_resources(c) for c in get_list(spec, "initContainers") or () if isinstance(c, dict)]
    errs: list[str] = []
    checks = ((lambda item: item.min, min_constraint), (lambda item: item.max, max_constraint),
              (lambda item: item.max_limit_request_ratio, limit_request_ratio_constraint))
    for item in limit_range.limits:
        if item.type == LIMIT_TYPE_CONTAINER:
            targets = [*containers, *inits]
        elif item.type == LIMIT_TYPE_POD:
            requests = _sum([r for r, _ in containers])
            limits = _sum([lim for _, lim in containers])
            for init_requests, init_limits in inits:  # take max(sum_containers, any_init_container)
                for total, own in ((requests, init_requests), (limits, init_limits)):
                    for name, q in own.items():
                        if name not in total or q.value > total[name].value:
                            total[name] = q
            targets = [(requests, limits)]
        else:
            continue
        for requests, limits in targets:
            for values_of, check in checks:
                for name, enforced in values_of(item).items():
                    err = check(item.type, name, enforced, requests, limits)
                    if err is not None:
                        errs.append(err)
    return aggregate(errs)


def aggregate(errs: list[str]) -> str | None:
    """``utilerrors.NewAggregate(errs).Error()``: one message as is, several deduplicated in
    ``[a, b]``."""
    if not errs:
        return None
    unique = list(dict.fromkeys(errs))
    if len(errs) == 1 or len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"
