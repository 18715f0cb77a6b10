"""The Pod as the scheduler sees it: requests, placement constraints, priority."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Generic, TypeVar, overload

from ruleset.api import decode as _decode
from ruleset.api import resources as res
from ruleset.api.decode import (
    DecodeContext,
    get_list,
    get_map,
    get_str,
    get_string_list,
    get_string_map,
)
from ruleset.api.meta import (
    LabelSelector,
    LabelSelectorRequirement,
    ObjectMeta,
    OwnerReference,
    decode_label_selector,
    decode_meta,
    decode_requirements,
    decode_timestamp,
    known_meta,
    string_map,
)
from ruleset.api.validation import (
    INT32,
    PORT_PROTOCOLS,
    check_container_port,
    check_labels,
    check_tolerations,
    check_weight,
    decode_resource_list,
    get_int32,
    get_int64,
    known_resource_list,
    labels_valid,
)
from ruleset.kversion import Target
from ruleset.quantity import value_of, wrap_int64


@dataclass(frozen=True, slots=True)
class ContainerPort:
    container_port: int
    host_port: int = 0
    protocol: str = "TCP"
    host_ip: str = ""


@dataclass(frozen=True, slots=True)
class Container:
    name: str
    image: str = ""
    requests: dict[str, Fraction] = field(default_factory=dict)
    limits: dict[str, Fraction] = field(default_factory=dict)
    ports: tuple[ContainerPort, ...] = ()
    #: ``restartPolicy`` of an init container ("Always": a native sidecar, 1.28+); "" when unset.
    restart_policy: str = ""


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint_key: str, taint_value: str, taint_effect: str) -> bool:
        """``Toleration.ToleratesTaint``."""
        if self.effect and self.effect != taint_effect:
            return False
        if self.key and self.key != taint_key:
            return False
        if self.operator in ("", "Equal"):
            return self.value == taint_value
        return self.operator == "Exists"


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()
    match_fields: tuple[LabelSelectorRequirement, ...] = ()


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    #: None when ``requiredDuringSchedulingIgnoredDuringExecution`` is absent (no constraint).
    required: tuple[NodeSelectorTerm, ...] | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    label_selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()
    #: Fields of later releases (read at every release; plugins honour them where theirs does).
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class PodAffinity:
    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


@dataclass(frozen=True, slots=True)
class Affinity:
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    label_selector: LabelSelector | None = None
    #: Fields of later releases (read at every release; plugins honour them where theirs does).
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()


T = TypeVar("T")


class cached_property(Generic[T]):
    """``functools.cached_property`` without its lock: Python 3.11's takes one on every first
    read, a third of the time a snapshot spends counting its pods' requests. The value is
    kept in the instance's ``__dict__`` under the same name (so ``pod.__dict__.pop(name)``
    forgets it, as with the functools one)."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, cls: type | None = None) -> cached_property[T]: ...

    @overload
    def __get__(self, obj: object, cls: type | None = None) -> T: ...

    def __get__(self, obj: object | None, cls: type | None = None) -> T | cached_property[T]:
        if obj is None:
            return self
        value: T = self.func(obj)
        obj.__dict__[self.name] = value
        return value


@dataclass(eq=False)
class Pod:
    """A pod; identity is the object itself (two pods never compare equal by value)."""

    meta: ObjectMeta
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    overhead: dict[str, Fraction] = field(default_factory=dict)
    node_name: str = ""
    scheduler_name: str = "default-scheduler"
    #: ``spec.priority`` as written; the resolved value is :attr:`priority`.
    spec_priority: int | None = None
    priority_class_name: str = ""
    preemption_policy: str = ""
    node_selector: dict[str, str] = field(default_factory=dict)
    affinity: Affinity = field(default_factory=Affinity)
    tolerations: tuple[Toleration, ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    volumes: tuple[dict[str, Any], ...] = ()
    phase: str = ""
    nominated_node_name: str = ""
    start_time: float | None = None
    #: Resolved at cluster load from ``spec.priority`` or the PriorityClass.
    priority: int = 0
    #: ``spec.schedulingGates`` names (1.26+; SchedulingGates keeps a gated pod out of scheduling).
    scheduling_gates: tuple[str, ...] = ()
    #: ``spec.resources.requests`` (pod-level resources, 1.32+), as written.
    pod_requests: dict[str, Fraction] = field(default_factory=dict)
    #: ``spec.resources.limits`` (pod-level resources), as written.
    pod_limits: dict[str, Fraction] = field(default_factory=dict)
    #: How the run's release counts what the pod asks for (:func:`apply_target`); 1.20's until set.
    accounting: res.Accounting = field(default=res.V1_20, repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def namespace(self) -> str:
        return self.meta.namespace

    @property
    def labels(self) -> dict[str, str]:
        return self.meta.labels

    @property
    def key(self) -> str:
        """``namespace/name``, the pod's name in every report."""
        return f"{self.meta.namespace}/{self.meta.name}"

    @property
    def terminating(self) -> bool:
        return self.meta.deletion_timestamp is not None

    def __repr__(self) -> str:
        return f"Pod({self.key})"

    @cached_property
    def requests(self) -> dict[str, int]:
        """What the pod requests, CPU in millicores, as its release counts it
        (:class:`~ruleset.api.resources.Accounting`). In 1.20 (``computePodResourceRequest``):
        max(Σ containers, each init container) + overhead, int64 sums that wrap around as Go's do.
        """
        return self.accounting.requests(self)

    @cached_property
    def non_zero_requests(self) -> tuple[int, int]:
        """``calculateResource``'s (non0CPU, non0Mem) for node accounting (int64 sums)."""
        return self.accounting.non_zero_requests(self)

    @cached_property
    def host_ports(self) -> tuple[ContainerPort, ...]:
        """The ports (host port > 0) the pod holds on its node: its containers', and from 1.34
        its native sidecars' (``schedutil.GetHostPorts``)."""
        return self.accounting.host_ports(self)

    def scoring_request(self, resource: str) -> int:
        """``calculatePodResourceRequest`` (v1.20 resource scorers).

        Upstream adds the overhead with ``Quantity.Value()`` for every resource, CPU
        included, so a 250m CPU overhead adds 1 (a whole core, rounded up) to a request
        counted in millicores. That is a bug in v1.19-v1.21; it is reproduced on purpose.
        """
        cache = self.__dict__.setdefault("_scoring_requests", {})
        if resource in cache:
            return cache[resource]
        value = wrap_int64(sum(res.non_zero(resource, c.requests) for c in self.containers))
        for c in self.init_containers:
            value = max(value, res.non_zero(resource, c.requests))
        if resource in self.overhead:
            value = wrap_int64(value + value_of(self.overhead[resource]))
        cache[resource] = value
        return value

    @cached_property
    def limits(self) -> dict[str, int]:
        """max(Σ container limits, each init container's limits), as ResourceLimits reads them."""
        total: dict[str, int] = {}
        for c in self.containers:
            res.add_into(total, c.limits)
        for c in self.init_containers:
            res.max_into(total, c.limits)
        return total

    def controller(self) -> OwnerReference | None:
        return self.meta.controller()


#: What :func:`apply_target` recomputes (the cached properties that depend on the release).
_ACCOUNTED = ("requests", "non_zero_requests", "host_ports")


def apply_target(pods: Iterable[Pod], target: Target) -> None:
    """Make ``pods`` count their requests and host ports as ``target``'s release does.

    Call it once, before the snapshot counts any of them (a pod already on a node would be
    taken off with other numbers than it was put on with). For a 1.20 target this is a no-op
    on fresh pods.
    """
    accounting = res.Accounting.for_target(target)
    for pod in pods:
        if pod.accounting is accounting or pod.accounting == accounting:
            continue
        pod.accounting = accounting
        for name in _ACCOUNTED:
            pod.__dict__.pop(name, None)


def _get_int32_checked(ctx: DecodeContext, obj: Any, key: str, path: str) -> tuple[int, bool]:
    """An int32 field (0 when absent) and whether it decoded: a refused number is reported
    once and not validated further, as the API server's decoder refuses an object before
    validation runs."""
    value = get_int32(ctx, obj, key, path)
    refused = value is None and isinstance(obj, dict) and obj.get(key) is not None
    return value or 0, not refused


def _decode_container(ctx: DecodeContext, raw: Any, path: str) -> Container:
    resources = get_map(ctx, raw, "resources", f"{path}.resources")
    ports = []
    raw_ports = get_list(ctx, raw, "ports", f"{path}.ports")
    for i, p in enumerate(raw_ports):
        p_path = f"{path}.ports[{i}]"
        if not isinstance(p, dict):
            ctx.fail(p_path, "expected an object", raw_ports, i)
            continue
        container_port, decoded = _get_int32_checked(ctx, p, "containerPort", f"{p_path}.containerPort")
        host_port, host_decoded = _get_int32_checked(ctx, p, "hostPort", f"{p_path}.hostPort")
        port = ContainerPort(
            container_port=container_port,
            host_port=host_port,
            # SetDefaults_ContainerPort: an absent protocol is TCP.
            protocol=get_str(ctx, p, "protocol", f"{p_path}.protocol") or "TCP",
            host_ip=get_str(ctx, p, "hostIP", f"{p_path}.hostIP"),
        )
        if decoded and host_decoded:
            check_container_port(ctx, p, p_path, port.container_port, port.host_port, port.protocol)
        ports.append(port)
    # No API defaulting (requests := limits) here: dumps of a live cluster are already defaulted,
    # and the scheduler reads exactly what the object says.
    requests = decode_resource_list(ctx, resources, "requests", f"{path}.resources.requests")
    limits = decode_resource_list(ctx, resources, "limits", f"{path}.resources.limits")
    return Container(
        name=get_str(ctx, raw, "name", f"{path}.name"),
        image=get_str(ctx, raw, "image", f"{path}.image"),
        requests=requests,
        limits=limits,
        ports=tuple(ports),
        restart_policy=get_str(ctx, raw, "restartPolicy", f"{path}.restartPolicy"),
    )


def _decode_containers(ctx: DecodeContext, spec: Any, key: str) -> tuple[Container, ...]:
    out = []
    items = get_list(ctx, spec, key, f"spec.{key}")
    for i, raw in enumerate(items):
        path = f"spec.{key}[{i}]"
        if not isinstance(raw, dict):
            ctx.fail(path, "expected an object", items, i)
            continue
        out.append(_decode_container(ctx, raw, path))
    return tuple(out)


def _decode_node_selector_term(ctx: DecodeContext, raw: Any, path: str) -> NodeSelectorTerm:
    return NodeSelectorTerm(
        match_expressions=decode_requirements(ctx, raw, "matchExpressions", f"{path}.matchExpressions"),
        match_fields=decode_requirements(ctx, raw, "matchFields", f"{path}.matchFields"),
    )


#: Public name for the other objects holding node selector terms (a PersistentVolume's node affinity).
decode_node_selector_term = _decode_node_selector_term


def decode_node_affinity(ctx: DecodeContext, raw: Any, path: str, *, pod: bool = False) -> NodeAffinity:
    """A ``v1.NodeAffinity`` (also the ``addedAffinity`` plugin arg). In a pod (``pod=True``) each
    preferred term's weight is checked as the API server checks it (1..100)."""
    required = None
    if isinstance(raw, dict) and raw.get("requiredDuringSchedulingIgnoredDuringExecution") is not None:
        req_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
        req = get_map(ctx, raw, "requiredDuringSchedulingIgnoredDuringExecution", req_path)
        terms = get_list(ctx, req, "nodeSelectorTerms", f"{req_path}.nodeSelectorTerms")
        required = tuple(
            _decode_node_selector_term(ctx, t, f"{req_path}.nodeSelectorTerms[{i}]")
            for i, t in enumerate(terms)
        )
    preferred = []
    pref_path = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, t in enumerate(get_list(ctx, raw, "preferredDuringSchedulingIgnoredDuringExecution", pref_path)):
        weight, decoded = _get_int32_checked(ctx, t, "weight", f"{pref_path}[{i}].weight")
        if pod and decoded and isinstance(t, dict):
            check_weight(ctx, t, f"{pref_path}[{i}].weight", weight)
        preferred.append(PreferredSchedulingTerm(
            weight=weight,
            preference=_decode_node_selector_term(
                ctx, get_map(ctx, t, "preference", f"{pref_path}[{i}].preference"),
                                                  f"{pref_path}[{i}].preference"),
        ))
    return NodeAffinity(required=required, preferred=tuple(preferred))


def _decode_pod_affinity_term(ctx: DecodeContext, raw: Any, path: str) -> PodAffinityTerm:
    return PodAffinityTerm(
        label_selector=decode_label_selector(ctx, raw, "labelSelector", f"{path}.labelSelector"),
        topology_key=get_str(ctx, raw, "topologyKey", f"{path}.topologyKey"),
        namespaces=tuple(get_string_list(ctx, raw, "namespaces", f"{path}.namespaces")),
        namespace_selector=decode_label_selector(ctx, raw, "namespaceSelector", f"{path}.namespaceSelector"),
        match_label_keys=tuple(get_string_list(ctx, raw, "matchLabelKeys", f"{path}.matchLabelKeys")),
        mismatch_label_keys=tuple(get_string_list(ctx, raw, "mismatchLabelKeys",
                                                  f"{path}.mismatchLabelKeys")),
    )


def _decode_weighted_term(ctx: DecodeContext, raw: Any, path: str) -> WeightedPodAffinityTerm:
    weight, decoded = _get_int32_checked(ctx, raw, "weight", f"{path}.weight")
    if decoded and isinstance(raw, dict):
        check_weight(ctx, raw, f"{path}.weight", weight)
    return WeightedPodAffinityTerm(
        weight=weight,
        term=_decode_pod_affinity_term(
            ctx, get_map(ctx, raw, "podAffinityTerm", f"{path}.podAffinityTerm"), f"{path}.podAffinityTerm"),
    )


def _decode_pod_affinity(ctx: DecodeContext, raw: Any, path: str) -> PodAffinity:
    req_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    pref_path = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    required = tuple(
        _decode_pod_affinity_term(ctx, t, f"{req_path}[{i}]")
        for i, t in enumerate(get_list(ctx, raw, "requiredDuringSchedulingIgnoredDuringExecution", req_path))
    )
    preferred = tuple(
        _decode_weighted_term(ctx, t, f"{pref_path}[{i}]")
        for i, t in enumerate(
            get_list(ctx, raw, "preferredDuringSchedulingIgnoredDuringExecution", pref_path))
    )
    return PodAffinity(required=required, preferred=preferred)


def _decode_affinity(ctx: DecodeContext, spec: Any) -> Affinity:
    raw = get_map(ctx, spec, "affinity", "spec.affinity")
    node = raw.get("nodeAffinity")
    pod = raw.get("podAffinity")
    anti = raw.get("podAntiAffinity")
    return Affinity(
        node_affinity=(decode_node_affinity(ctx, node, "spec.affinity.nodeAffinity", pod=True)
                       if node is not None else None),
        pod_affinity=_decode_pod_affinity(ctx, pod, "spec.affinity.podAffinity") if pod is not None else None,
        pod_anti_affinity=(_decode_pod_affinity(ctx, anti, "spec.affinity.podAntiAffinity")
                           if anti is not None else None),
    )


def decode_tolerations(ctx: DecodeContext, spec: Any, key: str, path: str) -> tuple[Toleration, ...]:
    """``spec[key]`` as tolerations, checked as ``ValidateTolerations`` checks them."""
    out = []
    checked = []
    items = get_list(ctx, spec, key, path)
    for i, t in enumerate(items):
        t_path = f"{path}[{i}]"
        if not isinstance(t, dict):
            ctx.fail(t_path, "expected an object", items, i)
            continue
        toleration = Toleration(
            key=get_str(ctx, t, "key", f"{t_path}.key"),
            operator=get_str(ctx, t, "operator", f"{t_path}.operator"),
            value=get_str(ctx, t, "value", f"{t_path}.value"),
            effect=get_str(ctx, t, "effect", f"{t_path}.effect"),
            toleration_seconds=get_int64(ctx, t, "tolerationSeconds", f"{t_path}.tolerationSeconds"),
        )
        out.append(toleration)
        checked.append((i, t, toleration))
    check_tolerations(ctx, checked, path)
    return tuple(out)


def decode_spread_constraints(ctx: DecodeContext, raw: Any, key: str,
                              path: str) -> tuple[TopologySpreadConstraint, ...]:
    out = []
    for i, c in enumerate(get_list(ctx, raw, key, path)):
        c_path = f"{path}[{i}]"
        out.append(TopologySpreadConstraint(
            max_skew=get_int32(ctx, c, "maxSkew", f"{c_path}.maxSkew", 0) or 0,
            topology_key=get_str(ctx, c, "topologyKey", f"{c_path}.topologyKey"),
            when_unsatisfiable=get_str(ctx, c, "whenUnsatisfiable", f"{c_path}.whenUnsatisfiable"),
            label_selector=decode_label_selector(ctx, c, "labelSelector", f"{c_path}.labelSelector"),
            min_domains=get_int32(ctx, c, "minDomains", f"{c_path}.minDomains"),
            node_affinity_policy=(get_str(ctx, c, "nodeAffinityPolicy", f"{c_path}.nodeAffinityPolicy")
                                  or None),
            node_taints_policy=get_str(ctx, c, "nodeTaintsPolicy", f"{c_path}.nodeTaintsPolicy") or None,
            match_label_keys=tuple(get_string_list(ctx, c, "matchLabelKeys", f"{c_path}.matchLabelKeys")),
        ))
    return tuple(out)


def decode_pod(ctx: DecodeContext, raw: Any) -> Pod:
    """Decode a Pod manifest; problems go to ``ctx``.

    Besides the types, the fields the scheduler reads are checked as the API server checks
    them (:mod:`ruleset.api.validation`): labels and ``nodeSelector`` (``ValidateLabels``),
    resource quantities, container ports, tolerations, preferred-term weights, and
    ``spec.priority`` within int32.

    A well-formed pod takes a fast path (:func:`_known_pod`) that gives the same pod; any pod
    with a problem, or of a shape it does not know, is decoded by :func:`decode_pod_checked`.
    """
    if _decode.FAST_PATHS and isinstance(raw, dict):
        pod = _known_pod(ctx, raw)
        if pod is not None:
            return pod
    return decode_pod_checked(ctx, raw)


def decode_pod_checked(ctx: DecodeContext, raw: Any) -> Pod:
    """:func:`decode_pod` field by field, every value checked and every problem located: the
    reference the fast path is tested against."""
    meta = decode_meta(ctx, raw, namespaced=True, kind="Pod")
    ctx.subject = f"Pod {meta.namespace}/{meta.name}" if meta.name else "Pod"
    check_labels(ctx, raw.get("metadata") if isinstance(raw, dict) else None, "labels", "metadata.labels")
    # Only the name is required: the API server would insist on containers, but the scheduler
    # never looks for them, and snapshots transcribed from tests often have none.
    spec = get_map(ctx, raw, "spec", "spec")
    status = get_map(ctx, raw, "status", "status")
    containers = _decode_containers(ctx, spec, "containers")
    volumes = tuple(v for v in get_list(ctx, spec, "volumes", "spec.volumes") if isinstance(v, dict))
    spec_priority = get_int32(ctx, spec, "priority", "spec.priority")
    node_selector = get_string_map(ctx, spec, "nodeSelector", "spec.nodeSelector")
    check_labels(ctx, spec, "nodeSelector", "spec.nodeSelector")
    pod_resources = get_map(ctx, spec, "resources", "spec.resources")
    return Pod(
        meta=meta,
        containers=containers,
        init_containers=_decode_containers(ctx, spec, "initContainers"),
        overhead=decode_resource_list(ctx, spec, "overhead", "spec.overhead"),
        node_name=get_str(ctx, spec, "nodeName", "spec.nodeName"),
        scheduler_name=get_str(ctx, spec, "schedulerName", "spec.schedulerName") or "default-scheduler",
        spec_priority=spec_priority,
        priority_class_name=get_str(ctx, spec, "priorityClassName", "spec.priorityClassName"),
        preemption_policy=get_str(ctx, spec, "preemptionPolicy", "spec.preemptionPolicy"),
        node_selector=node_selector,
        affinity=_decode_affinity(ctx, spec),
        tolerations=decode_tolerations(ctx, spec, "tolerations", "spec.tolerations"),
        topology_spread_constraints=decode_spread_constraints(
            ctx, spec, "topologySpreadConstraints", "spec.topologySpreadConstraints"),
        volumes=volumes,
        phase=get_str(ctx, status, "phase", "status.phase"),
        nominated_node_name=get_str(ctx, status, "nominatedNodeName", "status.nominatedNodeName"),
        start_time=decode_timestamp(ctx, status, "startTime", "status.startTime"),
        priority=spec_priority or 0,
        scheduling_gates=_decode_scheduling_gates(ctx, spec),
        pod_requests=decode_resource_list(ctx, pod_resources, "requests", "spec.resources.requests"),
        pod_limits=decode_resource_list(ctx, pod_resources, "limits", "spec.resources.limits"),
    )


# ------------------------------------------------------------------ the fast path
#
# Snapshots are tens of thousands of pods of a few well-formed shapes. :func:`_known_pod`
# reads those with plain dict lookups (no path strings, no per-field calls), takes resource
# lists the checking path has accepted before from its memo, and decodes the rarer parts
# (affinity, tolerations, spread constraints...) with the checking path's own functions. It
# gives up (None) on any value of an unusual type; and when anything it decoded reported a
# problem, it drops those problems and gives up too, so that :func:`decode_pod_checked`
# reports them in its order. Its pods are therefore always the checking path's pods.

_PORT_PROTOCOLS = frozenset(PORT_PROTOCOLS)
#: The affinity of a pod without one (immutable, so shared).
_NO_AFFINITY = Affinity()


def _texts(values: tuple[Any, ...]) -> bool:
    """Whether each value is a string or absent: fields ``get_str`` reads without a problem
    (as the value, or "")."""
    for value in values:  # noqa: SIM110 (a loop: all() over a generator costs more, once per pod)
        if value is not None and value.__class__ is not str:
            return False
    return True


#: Ports read before, by their fields as written (ints, strings, None: no two types compare
#: equal among these): a snapshot's containers repeat a few port lists, and the ports are immutable.
_KNOWN_PORTS: dict[tuple[tuple[Any, ...], ...], tuple[ContainerPort, ...]] = {}
_MAX_KNOWN_PORTS = 4096


def _known_ports(raw: Any) -> tuple[ContainerPort, ...] | None:
    """Container ports with an integer ``containerPort`` in 1..65535, a ``hostPort`` absent or
    in 0..65535, a known protocol (TCP when absent): valid as written, whoever checks them."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        return None
    written: list[tuple[Any, ...]] = []
    for p in raw:
        if not isinstance(p, dict):
            return None
        fields = (p.get("containerPort"), p.get("hostPort"), p.get("protocol"), p.get("hostIP"))
        container_port, host_port, protocol, host_ip = fields
        if (container_port.__class__ is not int or (host_port is not None and host_port.__class__ is not int)
                or (protocol is not None and protocol.__class__ is not str)
                or (host_ip is not None and host_ip.__class__ is not str)):
            return None
        written.append(fields)
    key = tuple(written)
    known = _KNOWN_PORTS.get(key)
    if known is not None:
        return known
    out = []
    for container_port, host_port, protocol, host_ip in written:
        protocol = protocol or "TCP"
        if (not 1 <= container_port <= 65535 or not 0 <= (host_port or 0) <= 65535
                or protocol not in _PORT_PROTOCOLS):
            return None
        out.append(ContainerPort(container_port=container_port, host_port=host_port or 0, protocol=protocol,
                                 host_ip=host_ip or ""))
    ports = tuple(out)
    if len(_KNOWN_PORTS) < _MAX_KNOWN_PORTS:
        _KNOWN_PORTS[key] = ports
    return ports


def _known_container(raw: Any, validated: bool) -> Container | None:
    if not isinstance(raw, dict):
        return None
    get = raw.get
    resources, name, image, restart_policy = get("resources"), get("name"), get("image"), get("restartPolicy")
    if resources is None:
        requests: dict[str, Fraction] | None = {}
        limits: dict[str, Fraction] | None = {}
    elif isinstance(resources, dict):
        requests = known_resource_list(resources.get("requests"), validated)
        limits = known_resource_list(resources.get("limits"), validated)
    else:
        return None
    ports = _known_ports(get("ports"))
    if (requests is None or limits is None or ports is None
            or (name is not None and name.__class__ is not str)
            or (image is not None and image.__class__ is not str)
            or (restart_policy is not None and restart_policy.__class__ is not str)):
        return None
    return Container(name=name or "", image=image or "", requests=requests, limits=limits, ports=ports,
                     restart_policy=restart_policy or "")


def _known_containers(ctx: DecodeContext, spec: dict, key: str) -> tuple[Container, ...] | None:
    """``spec[key]``: each container read fast, or decoded (its problems, if any, make the
    caller give up)."""
    items = spec.get(key)
    if items is None:
        return ()
    if not isinstance(items, list):
        return None
    out = []
    validated = ctx.api_checks
    for i, raw in enumerate(items):
        container = _known_container(raw, validated)
        if container is None:
            if not isinstance(raw, dict):
                return None
            container = _decode_container(ctx, raw, f"spec.{key}[{i}]")
        out.append(container)
    return tuple(out)


def _known_pod(ctx: DecodeContext, raw: dict) -> Pod | None:
    """The pod :func:`decode_pod_checked` decodes from ``raw``, when it reports no problem and
    every field has a usual type; None otherwise (nothing is left in ``ctx``)."""
    before = len(ctx.problems)
    validated = ctx.api_checks
    meta = known_meta(ctx, raw, namespaced=True, kind="Pod")
    spec, status = raw.get("spec"), raw.get("status")
    if spec is None:
        spec = {}
    if status is None:
        status = {}
    if meta is None or not isinstance(spec, dict) or not isinstance(status, dict):
        return None
    if validated and not labels_valid(meta.labels):
        return None
    get = spec.get
    containers = _known_containers(ctx, spec, "containers")
    init_containers = _known_containers(ctx, spec, "initContainers")
    volumes = get("volumes")
    priority = get("priority")
    node_selector = string_map(get("nodeSelector"))
    pod_resources = get("resources")
    if pod_resources is None:
        pod_resources = {}
    texts = (get("nodeName"), get("schedulerName"), get("priorityClassName"), get("preemptionPolicy"),
             status.get("phase"), status.get("nominatedNodeName"))
    if (containers is None or init_containers is None or node_selector is None
            or (volumes is not None and not isinstance(volumes, list))
            or (priority is not None
                and (priority.__class__ is not int or not INT32[0] <= priority <= INT32[1]))
            or (validated and not labels_valid(node_selector))
            or not isinstance(pod_resources, dict)
            or not _texts(texts)):
        _forget(ctx, before)
        return None
    # each a string, or None: "" as get_str reads an absent field
    node_name, scheduler_name, priority_class_name, preemption_policy, phase, nominated = texts
    overhead = get("overhead")
    overhead = {} if overhead is None else known_resource_list(overhead, validated)
    pod_requests: dict[str, Fraction] | None = {}
    pod_limits: dict[str, Fraction] | None = {}
    if pod_resources:
        pod_requests = known_resource_list(pod_resources.get("requests"), validated)
        pod_limits = known_resource_list(pod_resources.get("limits"), validated)
    if overhead is None:
        overhead = decode_resource_list(ctx, spec, "overhead", "spec.overhead")
    if pod_requests is None:
        pod_requests = decode_resource_list(ctx, pod_resources, "requests", "spec.resources.requests")
    if pod_limits is None:
        pod_limits = decode_resource_list(ctx, pod_resources, "limits", "spec.resources.limits")
    affinity = _NO_AFFINITY if get("affinity") is None else _decode_affinity(ctx, spec)
    tolerations = (() if get("tolerations") is None
                   else decode_tolerations(ctx, spec, "tolerations", "spec.tolerations"))
    spread = (() if get("topologySpreadConstraints") is None
              else decode_spread_constraints(ctx, spec, "topologySpreadConstraints",
                                             "spec.topologySpreadConstraints"))
    start_time = (None if status.get("startTime") is None
                  else decode_timestamp(ctx, status, "startTime", "status.startTime"))
    gates = () if get("schedulingGates") is None else _decode_scheduling_gates(ctx, spec)
    if len(ctx.problems) != before:
        _forget(ctx, before)
        return None
    ctx.subject = f"Pod {meta.namespace}/{meta.name}"
    return Pod(
        meta=meta,
        containers=containers,
        init_containers=init_containers,
        overhead=overhead,
        node_name=node_name or "",
        scheduler_name=scheduler_name or "default-scheduler",
        spec_priority=priority,
        priority_class_name=priority_class_name or "",
        preemption_policy=preemption_policy or "",
        node_selector=node_selector,
        affinity=affinity,
        tolerations=tolerations,
        topology_spread_constraints=spread,
        volumes=tuple(v for v in volumes if isinstance(v, dict)) if volumes else (),
        phase=phase or "",
        nominated_node_name=nominated or "",
        start_time=start_time,
        priority=priority or 0,
        scheduling_gates=gates,
        pod_requests=pod_requests,
        pod_limits=pod_limits,
    )


def _forget(ctx: DecodeContext, before: int) -> None:
    """Drop what the fast path reported: the checking path reports it again, in its order."""
    del ctx.problems[before:]


def _decode_scheduling_gates(ctx: DecodeContext, spec: Any) -> tuple[str, ...]:
    """``spec.schedulingGates[].name``, in order."""
    out = []
    items = get_list(ctx, spec, "schedulingGates", "spec.schedulingGates")
    for i, gate in enumerate(items):
        if not isinstance(gate, dict):
            ctx.fail(f"spec.schedulingGates[{i}]", "expected an object", items, i)
            continue
        out.append(get_str(ctx, gate, "name", f"spec.schedulingGates[{i}].name"))
    return tuple(out)
