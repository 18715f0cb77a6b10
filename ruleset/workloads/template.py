"""A workload's identity and pod template, read with located problems, and the pod a
controller makes from a template (v1.20 ``pkg/controller/controller_utils.go``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ruleset.api.decode import DecodeContext, get_int, get_map, get_str, line_of
from ruleset.api.validation import INT32, IS_NEGATIVE_ERROR_MSG, inclusive_range_error, show_int
from ruleset.reading import LocatedDict, LocatedList
from ruleset.selector import dns1123_subdomain_errors
from ruleset.workloads.copying import located_copy
from ruleset.workloads.hashing import stand_in_uid

#: The group/version each controller names its kind with (``controllerKind``).
API_VERSIONS = {
    "Deployment": "apps/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1",
    "ReplicationController": "v1", "Job": "batch/v1",
}
#: The most pods one workload may expand to. Kubernetes' scalability limits are 150,000 pods
#: per cluster; an int32 replica count (two billion pods) would exhaust memory instead.
MAX_PODS = 150_000


@dataclass
class Workload:
    """What every controller reads of its object; ``ctx`` holds the problems found."""

    kind: str
    raw: Mapping[str, Any]
    name: str
    #: ``metadata.namespace`` as written ("" when absent: admission defaults it).
    namespace: str
    uid: str
    #: Whether ``metadata.uid`` was written (else :attr:`uid` is a stand-in).
    has_uid: bool
    metadata: Mapping[str, Any]
    spec: Mapping[str, Any]
    template: Mapping[str, Any]
    template_metadata: Mapping[str, Any]
    template_labels: Mapping[str, Any]
    ctx: DecodeContext = field(repr=False, default_factory=DecodeContext)

    @property
    def api_version(self) -> str:
        return API_VERSIONS.get(self.kind, "v1")


def _expect_map(ctx: DecodeContext, obj: Mapping[str, Any], key: str, path: str, required: bool) -> Any:
    """``obj[key]`` when it is a mapping; None after reporting it missing (if ``required``) or
    not a mapping."""
    if obj.get(key) is None:
        if required:
            ctx.fail(path, "Required value", obj, key)
        return None
    value = get_map(ctx, obj, key, path)
    return value if isinstance(obj.get(key), dict) else None


def read_workload(kind: str, raw: Any, ctx: DecodeContext) -> Workload | None:
    """The workload ``raw`` (a raw object of ``kind``), or None after reporting (to ``ctx``)
    what makes it impossible to expand: not an object, no ``metadata.name``, no
    ``spec.template`` (or one that is not an object), template metadata or labels or spec that
    are not objects."""
    if not isinstance(raw, dict):
        ctx.fail("", f"a {kind} must be an object", raw)
        return None
    metadata = get_map(ctx, raw, "metadata", "metadata")
    name = get_str(ctx, metadata, "name", "metadata.name")
    namespace = get_str(ctx, metadata, "namespace", "metadata.namespace")
    ctx.subject = f"{kind} {namespace or 'default'}/{name}" if name else kind
    if not name:
        ctx.fail("metadata.name", "Required value", metadata or raw, "name")
    before = len(ctx.problems)
    spec = _expect_map(ctx, raw, "spec", "spec", required=True)
    template = None if spec is None else _expect_map(ctx, spec, "template", "spec.template", required=True)
    spec = spec if spec is not None else {}
    template = template if template is not None else {}
    template_metadata = _expect_map(ctx, template, "metadata", "spec.template.metadata", False) or {}
    labels = _expect_map(ctx, template_metadata, "labels", "spec.template.metadata.labels", False) or {}
    _expect_map(ctx, template, "spec", "spec.template.spec", False)
    uid = get_str(ctx, metadata, "uid", "metadata.uid")
    if not name or len(ctx.problems) > before:
        return None
    return Workload(kind=kind, raw=raw, name=name, namespace=namespace,
                    uid=uid or stand_in_uid(kind, namespace or "default", name), has_uid=bool(uid),
                    metadata=metadata, spec=spec, template=template, template_metadata=template_metadata,
                    template_labels=labels, ctx=ctx)


def read_count(ctx: DecodeContext, obj: Mapping[str, Any], key: str, path: str,
               default: int | None) -> int | None:
    """A replica-like count: an int32, not negative (``ValidateNonnegativeField``), at most
    :data:`MAX_PODS`. Returns None after reporting a bad one; ``default`` when absent."""
    value = obj.get(key)
    if value is None:
        return default
    before = len(ctx.problems)
    number = get_int(ctx, obj, key, path)
    if number is None or len(ctx.problems) > before:
        return None
    if not INT32[0] <= number <= INT32[1]:
        detail = f"{inclusive_range_error(*INT32)} (an int32 field)"
        ctx.fail(path, f"Invalid value: {show_int(number)}: {detail}", obj, key)
        return None
    if number < 0:
        ctx.fail(path, f"Invalid value: {number}: {IS_NEGATIVE_ERROR_MSG}", obj, key)
        return None
    if number > MAX_PODS:
        ctx.fail(path, f"Invalid value: {number}: more pods than ruleset expands from one workload "
                       f"({MAX_PODS:,}, Kubernetes' limit of pods per cluster)", obj, key)
        return None
    return number


def pods_prefix(controller_name: str) -> str:
    """``getPodsPrefix``: ``name-``, or the name alone when ``name-`` is not a valid
    generateName (``ValidatePodName(prefix, true)``: ``maskTrailingDash`` -- which replaces
    the dash *and the character before it* by ``a`` -- then ``IsDNS1123Subdomain``)."""
    prefix = f"{controller_name}-"
    masked = prefix[:-2] + "a" if len(prefix) > 1 else prefix  # maskTrailingDash
    return prefix if not dns1123_subdomain_errors(masked) else controller_name


def controller_ref(api_version: str, kind: str, name: str, uid: str) -> dict[str, Any]:
    """``metav1.NewControllerRef``."""
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
            "controller": True, "blockOwnerDeletion": True}


def _located_map(line: int | None, key_lines: Mapping[str, int | None]) -> LocatedDict:
    out = LocatedDict()
    out.line = line
    out.key_lines = {k: v for k, v in key_lines.items() if v is not None}
    return out


def pod_from_template(template: Mapping[str, Any], owner: Mapping[str, Any], controller_name: str,
                      namespace: str, ref: dict[str, Any], *, name: str | None = None) -> dict[str, Any]:
    """``GetPodFromTemplate`` plus the namespace ``createPods`` sets: labels, annotations and
    finalizers of the template, ``generateName`` from the controller's name, one controller
    reference, and a copy of the template's spec; no name (the API server gives one) unless
    ``name`` is given (a StatefulSet's pods).

    ``owner`` is the workload's raw ``metadata``: fields the pod gets from the workload rather
    than from its template are reported at its lines. The pod keeps the template's line maps.
    """
    tmeta = template.get("metadata")
    tmeta = tmeta if isinstance(tmeta, dict) else {}
    metadata = _located_map(line_of(tmeta) or line_of(template, "metadata") or line_of(owner), {
        "name": line_of(owner, "name"),
        "generateName": line_of(owner, "name"),
        "namespace": line_of(owner, "namespace"),
        "labels": line_of(tmeta, "labels"),
        "annotations": line_of(tmeta, "annotations"),
        "finalizers": line_of(tmeta, "finalizers"),
    })
    if name is not None:
        metadata["name"] = name
    metadata["generateName"] = pods_prefix(controller_name)
    if namespace:
        metadata["namespace"] = namespace
    labels = tmeta.get("labels")
    metadata["labels"] = located_copy(labels) if isinstance(labels, dict) else LocatedDict()
    for key in ("annotations", "finalizers"):
        if tmeta.get(key):
            metadata[key] = located_copy(tmeta[key])
    refs = LocatedList([ref])
    refs.line = line_of(owner, "name")
    metadata["ownerReferences"] = refs
    pod = _located_map(line_of(template), {"metadata": line_of(template, "metadata"),
                                           "spec": line_of(template, "spec")})
    pod["apiVersion"] = "v1"
    pod["kind"] = "Pod"
    pod["metadata"] = metadata
    spec = template.get("spec")
    pod["spec"] = located_copy(spec) if isinstance(spec, dict) else _located_map(line_of(template), {})
    return pod

