"""Resource names and request arithmetic, as the scheduler's ``framework.Resource`` does it.

CPU is kept in millicores, everything else in whole units. Each quantity fits in an int64
(:func:`ruleset.api.validation.decode_resource_list` refuses the others); sums are int64 and
wrap around as Go's ``+=`` on ``framework.Resource``'s int64 fields does.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from ruleset.quantity import milli_value_of, value_of, wrap_int64

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


def scaled(name: str, quantity: Fraction) -> int:
    """A quantity in the scheduler's unit for ``name`` (millicores for CPU)."""
    return milli_value_of(quantity) if name == CPU else value_of(quantity)


def tracked(name: str) -> bool:
    """Whether ``framework.Resource`` accounts for this resource name at all."""
    return name in (CPU, MEMORY, EPHEMERAL_STORAGE) or is_scalar_resource(name)


def add_into(total: dict[str, int], requests: Mapping[str, Fraction]) -> None:
    """``Resource.Add``: add a resource list into ``total``."""
    for name, quantity in requests.items():
        if tracked(name):
            total[name] = wrap_int64(total.get(name, 0) + scaled(name, quantity))


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
        return milli_value_of(requests[CPU]) if CPU in requests else DEFAULT_MILLI_CPU_REQUEST
    if name == MEMORY:
        return value_of(requests[MEMORY]) if MEMORY in requests else DEFAULT_MEMORY_REQUEST
    if name == EPHEMERAL_STORAGE or is_scalar_resource(name):
        return value_of(requests[name]) if name in requests else 0
    return 0
