"""Resource names and request arithmetic, as the scheduler's ``framework.Resource`` does it.

CPU is kept in millicores, everything else in whole units. Each quantity fits in an int64
(:func:`ruleset.api.validation.decode_resource_list` refuses the others); sums are int64 and
wrap around as Go's ``+=`` on ``framework.Resource``'s int64 fields does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ruleset.kversion import Target, switch
from ruleset.quantity import milli_value_of, value_of, wrap_int64

if TYPE_CHECKING:
    from ruleset.api.pod import ContainerPort, Pod

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

#: ``schedutil.DefaultMilliCPURequest``: CPU assumed for a container with no CPU request.
DEFAULT_MILLI_CPU_REQUEST = 100
#: ``schedutil.DefaultMemoryRequest``: 200 MiB (the upstream comment says "200 MB").
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

_NATIVE_PREFIX = "kubernetes.io/"


def is_native_resource(name: str) -> bool:
    """``v1helper.IsNativeResource``: no domain, or a ``kubernetes.io/`` one."""
    return "/" not in name or _NATIVE_PREFIX in name


def is_extended_resource(name: str) -> bool:
    """``v1helper.IsExtendedResourceName``: a domain-qualified, non-native resource name."""
    if is_native_resource(name) or name.startswith("requests."):
        return False
    from ruleset.selector.validation import qualified_name_errors

    return not qualified_name_errors("requests." + name)


def is_scalar_resource(name: str) -> bool:
    """``v1helper.IsScalarResourceName``: extended, hugepages, prefixed native or attachable volumes."""
    return (
        is_extended_resource(name)
        or name.startswith("hugepages-")
        or _NATIVE_PREFIX in name
        or name.startswith("attachable-volumes-")
    )


#: ``id(quantity) -> (quantity, MilliValue(), Value())`` for the quantities seen first: decoding
#: shares one Fraction among every pod that wrote the same text, so a snapshot counts the same
#: few again and again. The entry holds the quantity, so its id is not reused while it is kept.
_UNITS: dict[int, tuple[Fraction, int, int]] = {}
_MAX_UNITS = 4096


def _units(quantity: Fraction) -> tuple[Fraction, int, int]:
    entry = _UNITS.get(id(quantity))
    if entry is None or entry[0] is not quantity:
        entry = (quantity, milli_value_of(quantity), value_of(quantity))
        if len(_UNITS) >= _MAX_UNITS:
            _UNITS.clear()  # the ones in use now come back on their next read
        _UNITS[id(quantity)] = entry
    return entry


def scaled(name: str, quantity: Fraction) -> int:
    """A quantity in the scheduler's unit for ``name`` (millicores for CPU)."""
    entry = _units(quantity)
    return entry[1] if name == CPU else entry[2]


def tracked(name: str) -> bool:
    """Whether ``framework.Resource`` accounts for this resource name at all."""
    return name in (CPU, MEMORY, EPHEMERAL_STORAGE) or is_scalar_resource(name)


def add_into(total: dict[str, int], requests: Mapping[str, Fraction]) -> None:
    """``Resource.Add``: add a resource list into ``total``."""
    for name, quantity in requests.items():
        if name in _BASIC or tracked(name):
            entry = _units(quantity)
            total[name] = wrap_int64(total.get(name, 0) + (entry[1] if name == CPU else entry[2]))


_BASIC = frozenset((CPU, MEMORY, EPHEMERAL_STORAGE))


def max_into(total: dict[str, int], requests: Mapping[str, Fraction]) -> None:
    """``Resource.SetMaxResource``: raise each entry of ``total`` to the request's value."""
    for name, quantity in requests.items():
        if tracked(name):
            value = scaled(name, quantity)
            if value > total.get(name, 0):
                total[name] = value


def non_zero(name: str, requests: Mapping[str, Fraction]) -> int:
    """``schedutil.GetNonzeroRequestForResource``: a request with the CPU/memory defaults.

    The default applies only when the key is absent: an explicit ``cpu: 0`` stays 0.
    """
    if name == CPU:
        return _units(requests[CPU])[1] if CPU in requests else DEFAULT_MILLI_CPU_REQUEST
    if name == MEMORY:
        return _units(requests[MEMORY])[2] if MEMORY in requests else DEFAULT_MEMORY_REQUEST
    if name == EPHEMERAL_STORAGE or is_scalar_resource(name):
        return value_of(requests[name]) if name in requests else 0
    return 0


# ------------------------------------------------------------------ what a pod asks for, per release
#
# The scheduler counts a pod's requests in three places (NodeResourcesFit's PreFilter, the
# node's Requested/NonZeroRequested totals, the used host ports); how it counts them changed
# after 1.20. Each pod carries the :class:`Accounting` of the run's release (set once, by
# :func:`ruleset.api.pod.apply_target`, before the snapshot counts any pod), so that
# ``pod.requests`` and the rest stay cached properties with no version check in them.

REQUESTS_HELPER = switch(
    "pod.requests-helper", "1.27",
    "pod requests summed as exact quantities and rounded once (resourcehelper.PodRequests); "
    "non-zero CPU/memory from the same sum with the 100m/200Mi defaults per container",
    "staging/src/k8s.io/component-helpers/resource/helpers.go; pkg/scheduler/framework/types.go")
SIDECAR_REQUESTS = switch(
    "pod.sidecar-requests", "1.28",
    "init containers with restartPolicy Always (native sidecars) run beside the app containers: "
    "their requests add to the sum and to every later init container's",
    "staging/src/k8s.io/component-helpers/resource/helpers.go", gate="SidecarContainers")
POD_LEVEL_RESOURCES = switch(
    "pod.level-resources", "1.32",
    "spec.resources.requests (cpu, memory, hugepages-*) replace the containers' sum",
    "staging/src/k8s.io/component-helpers/resource/helpers.go", gate="PodLevelResources")
SIDECAR_HOST_PORTS = switch(
    "pod.sidecar-host-ports", "1.34",
    "host ports of native sidecars are used on the node and checked by NodePorts (schedutil.GetHostPorts)",
    "pkg/scheduler/util/utils.go", gate="SidecarContainers")

#: ``supportedPodLevelResources`` (the ``hugepages-`` prefix is tested apart).
_POD_LEVEL_NAMES = (CPU, MEMORY)
_HUGEPAGES_PREFIX = "hugepages-"
#: ``NewMilliQuantity(DefaultMilliCPURequest)`` / ``NewQuantity(DefaultMemoryRequest)`` as quantities.
_NON_ZERO_DEFAULTS: dict[str, Fraction] = {CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
                                           MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}


def is_supported_pod_level_resource(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and ``hugepages-*``."""
    return name in _POD_LEVEL_NAMES or name.startswith(_HUGEPAGES_PREFIX)


def is_pod_level_requests_set(pod: Pod) -> bool:
    """``IsPodLevelRequestsSet``: ``spec.resources.requests`` names a supported resource."""
    return any(is_supported_pod_level_resource(name) for name in pod.pod_requests)


def _add_list(total: dict[str, Fraction], more: Mapping[str, Fraction]) -> None:
    for name, quantity in more.items():
        total[name] = total.get(name, Fraction(0)) + quantity


def _max_list(total: dict[str, Fraction], more: Mapping[str, Fraction]) -> None:
    for name, quantity in more.items():
        if name not in total or quantity > total[name]:
            total[name] = quantity


def _apply_non_missing(requests: Mapping[str, Fraction],
                       non_missing: Mapping[str, Fraction]) -> Mapping[str, Fraction]:
    """``applyNonMissing``: a copy with each absent ``non_missing`` resource set (an explicit 0 stays)."""
    if all(name in requests for name in non_missing):
        return requests
    out = dict(requests)
    for name, quantity in non_missing.items():
        if name not in requests:
            out[name] = quantity
    return out


def pod_requests(pod: Pod, *, sidecars: bool, pod_level: bool,
                 non_missing: Mapping[str, Fraction] | None = None,
                 exclude_overhead: bool = False) -> dict[str, Fraction]:
    """``resourcehelper.PodRequests`` (1.34) as exact quantities, before any rounding.

    ``sidecars``: init containers with ``restartPolicy: Always`` count as upstream counts
    them (False: as ordinary init containers, which is what a release without the feature
    sees, its API server having dropped the field). ``pod_level``: ``spec.resources.requests``
    replace the containers' sum for the resources pod-level resources support
    (``SkipPodLevelResources`` is its negation). ``non_missing``: the
    ``NonMissingContainerRequests`` option. Status resources (in-place resize) and DRA are
    not modelled: a dump's pending pods have none.
    """
    total: dict[str, Fraction] = {}
    for c in pod.containers:
        _add_list(total, _apply_non_missing(c.requests, non_missing) if non_missing else c.requests)
    restartable: dict[str, Fraction] = {}
    init: dict[str, Fraction] = {}
    for c in pod.init_containers:
        requests = _apply_non_missing(c.requests, non_missing) if non_missing else c.requests
        if sidecars and c.restart_policy == "Always":
            _add_list(total, requests)
            _add_list(restartable, requests)
            _max_list(init, restartable)
        else:
            combined = dict(requests)
            _add_list(combined, restartable)
            _max_list(init, combined)
    _max_list(total, init)
    if pod_level and is_pod_level_requests_set(pod):
        for name, quantity in pod.pod_requests.items():
            if is_supported_pod_level_resource(name):
                total[name] = quantity
    if not exclude_overhead:
        _add_list(total, pod.overhead)
    return total


#: What pods of one shape ask for, per accounting (pods of one template all ask the same, and
#: working it out in exact quantities costs more than the rest of a pod's scheduling cycle).
_BY_SHAPE: dict[tuple[Accounting, str, tuple], Any] = {}
#: Past this many distinct shapes, new ones are worked out each time (memory stays bounded).
_SHAPES = 65536


def _shape(pod: Pod) -> tuple:
    """Everything :meth:`Accounting.requests` and :meth:`Accounting.non_zero_requests` read of a
    pod: its containers' and init containers' requests (and restart policies), its overhead
    and its pod-level requests."""
    return (tuple([tuple(c.requests.items()) for c in pod.containers]),
            tuple([(tuple(c.requests.items()), c.restart_policy) for c in pod.init_containers])
            if pod.init_containers else (),
            tuple(pod.overhead.items()) if pod.overhead else (),
            tuple(pod.pod_requests.items()) if pod.pod_requests else ())


def _by_shape(accounting: Accounting, what: str, pod: Pod, compute: Callable[[Pod], Any]) -> Any:
    """``compute(pod)``, worked out once per accounting, question and shape of pod."""
    key = (accounting, what, _shape(pod))
    known = _BY_SHAPE.get(key)
    if known is None:
        known = compute(pod)
        if len(_BY_SHAPE) < _SHAPES:
            _BY_SHAPE[key] = known
    return known


def _resource_of(requests: Mapping[str, Fraction]) -> dict[str, int]:
    """``Resource.Add`` of one list into an empty Resource: each tracked quantity rounded once."""
    out: dict[str, int] = {}
    add_into(out, requests)
    return out


@dataclass(frozen=True, slots=True)
class Accounting:
    """How a release counts what a pod asks for (one per run: every profile shares a release)."""

    #: :data:`REQUESTS_HELPER`: exact sums (False: 1.20's per-container rounding).
    helper: bool = False
    #: :data:`SIDECAR_REQUESTS`.
    sidecars: bool = False
    #: :data:`POD_LEVEL_RESOURCES`.
    pod_level: bool = False
    #: :data:`SIDECAR_HOST_PORTS`.
    sidecar_ports: bool = False

    @classmethod
    def for_target(cls, target: Target) -> Accounting:
        """The accounting of ``target``'s release and feature gates."""
        return cls(helper=target.has(REQUESTS_HELPER), sidecars=target.has(SIDECAR_REQUESTS),
                   pod_level=target.has(POD_LEVEL_RESOURCES), sidecar_ports=target.has(SIDECAR_HOST_PORTS))

    def requests(self, pod: Pod) -> dict[str, int]:
        """``Requested`` of the pod (NodeResourcesFit's ``computePodResourceRequest``, the
        node's ``calculateResource``), CPU in millicores."""
        known: dict[str, int] = _by_shape(self, "requests", pod, self._requests)
        return dict(known)  # each pod its own dict: the cached one is never handed out

    def _requests(self, pod: Pod) -> dict[str, int]:
        if not self.helper:
            return _v120_requests(pod)
        return _resource_of(pod_requests(pod, sidecars=self.sidecars, pod_level=self.pod_level))

    def non_zero_requests(self, pod: Pod) -> tuple[int, int]:
        """``(Non0CPU, Non0Mem)`` the node's ``NonZeroRequested`` counts."""
        known: tuple[int, int] = _by_shape(self, "non-zero", pod, self._non_zero_requests)
        return known

    def _non_zero_requests(self, pod: Pod) -> tuple[int, int]:
        if not self.helper:
            return _v120_non_zero(pod)
        requests = pod_requests(pod, sidecars=self.sidecars, pod_level=self.pod_level)
        # getNonMissingContainerRequests: with pod-level requests set, a default only for a
        # resource neither the pod level nor any container (nor the overhead) names.
        if self.pod_level and is_pod_level_requests_set(pod):
            non_missing = {name: q for name, q in _NON_ZERO_DEFAULTS.items() if name not in requests}
        else:
            non_missing = _NON_ZERO_DEFAULTS
        if non_missing:
            requests = pod_requests(pod, sidecars=self.sidecars, pod_level=self.pod_level,
                                    non_missing=non_missing)
        cpu = requests.get(CPU)
        mem = requests.get(MEMORY)
        return (wrap_int64(milli_value_of(cpu)) if cpu is not None else 0,
                wrap_int64(value_of(mem)) if mem is not None else 0)

    def host_ports(self, pod: Pod) -> tuple[ContainerPort, ...]:
        """The ports the pod holds on its node, host port > 0 (``schedutil.GetHostPorts``:
        native sidecars' first, from 1.34)."""
        regular = [p for c in pod.containers for p in c.ports if p.host_port > 0]
        if not self.sidecar_ports:
            return tuple(regular)
        sidecar = [p for c in pod.init_containers if c.restart_policy == "Always"
                   for p in c.ports if p.host_port > 0]
        return (*sidecar, *regular)


#: How 1.20 counts (and every release before :data:`REQUESTS_HELPER`).
V1_20 = Accounting()


def _v120_requests(pod: Pod) -> dict[str, int]:
    """``computePodResourceRequest`` (1.20): max(Σ containers, each init container) + overhead.

    Each container's quantities are rounded before they are added, and sums are int64 and
    wrap around as Go's do (each quantity fits in an int64; only a sum of huge ones can overflow).
    """
    total: dict[str, int] = {}
    for c in pod.containers:
        add_into(total, c.requests)
    for c in pod.init_containers:
        max_into(total, c.requests)
    add_into(total, pod.overhead)
    return total


def _v120_non_zero(pod: Pod) -> tuple[int, int]:
    """``calculateResource``'s (non0CPU, non0Mem) for node accounting (1.20, int64 sums)."""
    cpu = mem = 0
    for c in pod.containers:
        requests = c.requests
        cpu += _units(requests[CPU])[1] if CPU in requests else DEFAULT_MILLI_CPU_REQUEST
        mem += _units(requests[MEMORY])[2] if MEMORY in requests else DEFAULT_MEMORY_REQUEST
    cpu, mem = wrap_int64(cpu), wrap_int64(mem)
    for c in pod.init_containers:
        cpu = max(cpu, non_zero(CPU, c.requests))
        mem = max(mem, non_zero(MEMORY, c.requests))
    if CPU in pod.overhead:
        cpu = wrap_int64(cpu + scaled(CPU, pod.overhead[CPU]))
    if MEMORY in pod.overhead:
        mem = wrap_int64(mem + scaled(MEMORY, pod.overhead[MEMORY]))
    return cpu, mem
