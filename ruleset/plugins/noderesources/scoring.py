"""The resource scorers from Kubernetes 1.22 on (``resource_allocation.go`` after NodeResourcesFit
took over scoring), as arrays over nodes.

From 1.22 each configured resource is read as (requested, allocatable) per node, and a resource
the node does not have (allocatable 0), or an extended resource the pod does not request, is
left out of the score altogether (:data:`SKIP_UNUSED`): Least/MostAllocated and
RequestedToCapacityRatio drop it from the weight sum, BalancedAllocation from its fractions.
The v1.20 formulas stay in their plugin modules; these serve every release from 1.22.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from ruleset import MAX_NODE_SCORE, NodeSet, Snapshot, Target, switch
from ruleset.api import resources as res
from ruleset.api.pod import Pod
from ruleset.plugins.helper.normalize import go_div
from ruleset.quantity import milli_value_of, value_of, wrap_int64

_REF = "pkg/scheduler/framework/plugins/noderesources/"

SKIP_UNUSED = switch(
    "noderesources.score.skip-unallocatable-and-unrequested", "1.22",
    "resource scorers leave out resources a node does not have and extended resources the pod does "
    "not request (no longer in the weight sum)", _REF + "resource_allocation.go")
OVERHEAD_MILLI = switch(
    "noderesources.score.overhead-in-millicores", "1.27",
    "the resource scorers add a pod's CPU overhead in millicores (before: Quantity.Value(), whole "
    "cores rounded up)", _REF + "resource_allocation.go")
MOST_CLAMP = switch(
    "noderesources.score.most-allocated-clamps", "1.22",
    "MostAllocated: a resource requested beyond allocatable scores 100, not 0 (kubernetes#102925, "
    "back-ported to 1.21 patch releases)", _REF + "most_allocated.go")
RTCR_FLOOR = switch(
    "noderesources.score.requested-to-capacity-ratio-floor", "1.22",
    "RequestedToCapacityRatio: utilization is requested*100/allocatable rounded down (before: "
    "100 - free*100/allocatable, rounded up)", _REF + "requested_to_capacity_ratio.go")

#: ``maxUtilization`` of requested_to_capacity_ratio.go.
MAX_UTILIZATION = 100


def _plain_request(name: str, requests: dict) -> int:
    """``GetRequestForResource(..., nonZero=false)``: the request as written, 0 when absent."""
    if name not in requests:
        return 0
    return milli_value_of(requests[name]) if name == res.CPU else value_of(requests[name])


def pod_scoring_request(pod: Pod, resource: str, *, non_zero: bool, overhead_milli: bool) -> int:
    """``calculatePodResourceRequest``: Σ containers, at least each init container, plus the overhead.

    ``non_zero``: containers without a cpu/memory request count 100m/200Mi. ``overhead_milli``
    (1.27 on): the CPU overhead in millicores; before, ``Quantity.Value()`` as v1.20 does.
    """
    if non_zero and not overhead_milli:
        return pod.scoring_request(resource)
    one = res.non_zero if non_zero else _plain_request
    value = wrap_int64(sum(one(resource, c.requests) for c in pod.containers))
    for c in pod.init_containers:
        value = max(value, one(resource, c.requests))
    if resource in pod.overhead:
        quantity = pod.overhead[resource]
        extra = milli_value_of(quantity) if overhead_milli and resource == res.CPU else value_of(quantity)
        value = wrap_int64(value + extra)
    return value


@dataclass(frozen=True, slots=True)
class ResourceReader:
    """How a scorer of a given release reads the pod and the nodes (chosen once per plugin)."""

    names: tuple[str, ...]
    #: Actual requests (BalancedAllocation from 1.23); else the non-zero defaults for cpu and memory.
    use_requested: bool
    overhead_milli: bool
    #: Where :meth:`pod_requests` keeps its answer in the pod's ``__dict__`` (as the pod's own
    #: cached properties do): one key per way of reading.
    cache_key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cache_key",
                           f"_scoring_requests:{self.names!r}:{self.use_requested}:{self.overhead_milli}")

    @classmethod
    def at(cls, target: Target, names: Sequence[str], *, use_requested: bool = False) -> ResourceReader:
        return cls(tuple(names), use_requested, target.has(OVERHEAD_MILLI))

    def pod_requests(self, pod: Pod) -> list[int]:
        """``calculatePodResourceRequestList``: the pod's request of each resource, in order.

        Computed once per pod and way of reading (a cycle asks up to three times; quantities are
        parsed on every computation): a pod's containers and overhead never change once it is
        read, and the answer is dropped if the pod's accounting is replaced (``apply_target``).
        """
        cached = pod.__dict__.get(self.cache_key)
        if cached is not None and cached[0] is pod.accounting:
            return list(cached[1])
        values = [pod_scoring_request(pod, name, non_zero=not self.use_requested,
                                      overhead_milli=self.overhead_milli) for name in self.names]
        pod.__dict__[self.cache_key] = (pod.accounting, tuple(values))
        return values

    def _column(self, name: str, pod_request: int, snapshot: Snapshot) -> np.ndarray | None:
        """Every node's summed request of ``name`` as this scorer reads it; None where the
        resource is left out (a scalar the pod does not ask for, or one the scorer ignores)."""
        if pod_request == 0 and res.is_scalar_resource(name):
            return None
        if name == res.CPU:
            return snapshot.requested(res.CPU) if self.use_requested else snapshot.non_zero_cpu
        if name == res.MEMORY:
            return snapshot.requested(res.MEMORY) if self.use_requested else snapshot.non_zero_memory
        if name == res.EPHEMERAL_STORAGE or res.is_scalar_resource(name):
            return snapshot.requested(name)
        return None

    def read(self, pod_requests: list[int], nodes: NodeSet) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per resource, (requested incl. the pod, allocatable) per node; both 0 where the
        resource is left out (``score`` and ``calculateResourceAllocatableRequest``)."""
        snapshot = nodes.snapshot
        idx = nodes.indices
        zeros = np.zeros(len(idx), dtype=np.int64)
        out = []
        for name, pod_request in zip(self.names, pod_requests, strict=True):
            node = self._column(name, pod_request, snapshot)
            if node is None:
                out.append((zeros, zeros))
                continue
            allocatable = snapshot.allocatable(name)[idx]
            requested = node[idx] + pod_request
            # Nodes never change during a run: whether every one reports the resource is read once.
            if not snapshot.derive(_REPORTED_BY_ALL + name, partial(_reported_by_all, name)) \
                    and np.count_nonzero(allocatable) != len(allocatable):  # else nothing to zero
                requested = np.where(allocatable == 0, 0, requested)
            out.append((requested, allocatable))
        return out

    def read_one(self, pod_requests: list[int], snapshot: Snapshot, at: int) -> list[tuple[int, int]] | None:
        """:meth:`read` for node ``at`` alone, as Python integers; None when a value is too large
        for :func:`least_one`, :func:`most_one` and :func:`balanced_one` to reproduce int64 and
        float64 arithmetic exactly (ask :meth:`read`)."""
        out = []
        for name, pod_request in zip(self.names, pod_requests, strict=True):
            node = self._column(name, pod_request, snapshot)
            if node is None:
                out.append((0, 0))
                continue
            allocatable, requested = snapshot.allocatable(name).item(at), node.item(at) + pod_request
            if not (abs(allocatable) < _EXACT and abs(requested) < _EXACT):
                return None
            out.append((0 if allocatable == 0 else requested, allocatable))
        return out


#: Below this magnitude a one-node score in Python integers and floats is what the int64 and
#: float64 arrays give: nothing wraps (times 100 stays far from 2^63) and every value is an
#: exact float.
_EXACT = 2**50


def least_one(columns: list[tuple[int, int]], weights: Sequence[int]) -> int:
    """:func:`least_allocated` of one node (from :meth:`ResourceReader.read_one`)."""
    return _weighted_one(columns, weights, lambda requested, capacity: (
        0 if capacity == 0 or requested > capacity else (capacity - requested) * MAX_NODE_SCORE // capacity))


def most_one(columns: list[tuple[int, int]], weights: Sequence[int]) -> int:
    """:func:`most_allocated` of one node."""
    return _weighted_one(columns, weights, lambda requested, capacity: (
        0 if capacity == 0 else min(requested, capacity) * MAX_NODE_SCORE // capacity))


def _weighted_one(columns: list[tuple[int, int]], weights: Sequence[int],
                  per_resource: Callable[[int, int], int]) -> int:
    node_score = weight_sum = 0
    for (requested, allocatable), weight in zip(columns, weights, strict=True):
        if allocatable != 0:
            node_score += per_resource(requested, allocatable) * weight
            weight_sum += weight
    return 0 if weight_sum == 0 else node_score // weight_sum


def balanced_one(columns: list[tuple[int, int]]) -> int:
    """:func:`balanced_std_dev` of one node: the same float64 operations, in the same order."""
    fractions = [min(float(requested) / float(allocatable), 1.0)
                 for requested, allocatable in columns if allocatable != 0]
    k = len(fractions)
    if k == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif k > 2:
        total = 0.0
        for fraction in fractions:
            total = total + fraction
        mean = total / k
        squares = 0.0
        for fraction in fractions:
            squares = squares + (fraction - mean) * (fraction - mean)
        std = math.sqrt(squares / k)
    else:
        std = 0.0
    return int((1 - std) * MAX_NODE_SCORE)


class ScoresByShape:
    """A resource scorer's scores of every node, per pod shape (what the pod requests, as the
    scorer reads it), kept up to date node by node from :attr:`Snapshot.changed_at`: a node's
    score depends only on the pod's requests and that node's sums and allocatable, and between
    two pods of one template only the nodes where pods landed change.

    A shape is kept from its second pod on (a one-off pod would pay for every node), at most
    :attr:`LIMIT` shapes at a time (the oldest goes first).
    """

    LIMIT = 32

    def __init__(self) -> None:
        #: shape -> (snapshot, generation it is current at, every node's score in node order).
        self._kept: dict[tuple[Any, ...], tuple[Snapshot, int, np.ndarray]] = {}
        self._seen: set[tuple[Any, ...]] = set()

    def scores(self, shape: tuple[Any, ...], nodes: NodeSet,
               compute: Callable[[NodeSet], np.ndarray]) -> np.ndarray:
        """``compute(nodes)``, answered from the kept scores where they are current."""
        snapshot = nodes.snapshot
        kept = self._kept.get(shape)
        if kept is None or kept[0] is not snapshot:
            if shape not in self._seen:
                if len(self._seen) >= 64 * self.LIMIT:
                    self._seen.clear()
                self._seen.add(shape)
                return compute(nodes)
            if len(self._kept) >= self.LIMIT:
                del self._kept[next(iter(self._kept))]
            every = compute(NodeSet(snapshot, np.arange(snapshot.num_nodes)))
            self._kept[shape] = kept = (snapshot, snapshot.generation, every)
        _, generation, every = kept
        if snapshot.generation != generation:
            changed = snapshot.changed_since(generation)
            if len(changed):
                every[changed] = compute(NodeSet(snapshot, changed))  # only ever handed out gathered
            self._kept[shape] = (snapshot, snapshot.generation, every)
        return every[nodes.indices]


_REPORTED_BY_ALL = "noderesources.scoring.reported-by-all:"


def _reported_by_all(name: str, snapshot: Snapshot) -> bool:
    """Whether every node's allocatable ``name`` is non-zero."""
    return bool(np.count_nonzero(snapshot.allocatable(name)) == snapshot.num_nodes)


def go_round(values: np.ndarray) -> np.ndarray:
    """Go's ``math.Round`` as int64: halves round away from zero (``np.round`` rounds to even)."""
    magnitude = np.abs(values)
    whole = np.floor(magnitude)
    # ``magnitude - whole`` is exact in float64, unlike ``floor(magnitude + 0.5)``.
    rounded = np.where(magnitude - whole >= 0.5, whole + 1.0, whole)
    return (np.sign(values) * rounded).astype(np.int64)


Columns = list[tuple[np.ndarray, np.ndarray]]


def _weighted(columns: Columns, weights: Sequence[int],
              per_resource: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """Σ score·w / Σ w over the resources each node has (int64 division; 0 with none)."""
    if columns and _every_node_has_all(columns):
        return _weighted_all(columns, weights, per_resource)
    n = len(columns[0][0]) if columns else 0
    node_score = np.zeros(n, dtype=np.int64)
    weight_sum = np.zeros(n, dtype=np.int64)
    for (requested, allocatable), weight in zip(columns, weights, strict=True):
        counted = allocatable != 0
        node_score += np.where(counted, per_resource(requested, allocatable) * weight, 0)
        weight_sum += np.where(counted, weight, 0)
    return np.where(weight_sum == 0, 0, node_score // np.maximum(weight_sum, 1))


def _every_node_has_all(columns: Columns) -> bool:
    """Whether every node has every resource of ``columns`` (no allocatable is 0): then the
    scorers' per-node masks are all true and their fast forms below give the same integers."""
    return all(np.count_nonzero(allocatable) == len(allocatable) for _, allocatable in columns)


def _weighted_all(columns: Columns, weights: Sequence[int],
                  per_resource: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """:func:`_weighted` when every node has every resource: the same sums without the masks
    (int64 addition wraps the same in any grouping, and the weight sum is one number)."""
    node_score: np.ndarray | None = None
    weight_sum = 0
    per_resource = _NO_ZERO_CAPACITY.get(per_resource, per_resource)
    for (requested, allocatable), weight in zip(columns, weights, strict=True):
        part = per_resource(requested, allocatable)
        if weight != 1:
            part = part * weight
        node_score = part if node_score is None else node_score + part
        weight_sum += weight
    assert node_score is not None
    if weight_sum == 0:
        return np.zeros(len(node_score), dtype=np.int64)
    # The masked form divides by np.maximum(weight_sum, 1), an int64: the same floor division,
    # which for a power of two is an arithmetic shift (floor for negative sums too).
    divisor = max(weight_sum, 1)
    if divisor & (divisor - 1) == 0 and divisor < 2**62:
        return node_score >> (divisor.bit_length() - 1)
    return node_score // np.int64(divisor)


def _least(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    bad = (capacity == 0) | (requested > capacity)
    return np.where(bad, 0, (capacity - requested) * MAX_NODE_SCORE // np.where(bad, 1, capacity))


def _most(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    safe = np.where(capacity == 0, 1, capacity)
    return np.where(capacity == 0, 0, np.minimum(requested, capacity) * MAX_NODE_SCORE // safe)


def _least_no_zero(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """:func:`_least` where no capacity is 0: the same quotient wherever it is kept."""
    over = requested > capacity
    score = (capacity - requested) * MAX_NODE_SCORE // capacity
    return np.where(over, 0, score) if over.any() else score


def _most_no_zero(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """:func:`_most` where no capacity is 0."""
    return np.minimum(requested, capacity) * MAX_NODE_SCORE // capacity


#: The per-resource scores' forms for capacities that are never 0 (used by :func:`_weighted_all`).
_NO_ZERO_CAPACITY: dict[Callable[[np.ndarray, np.ndarray], np.ndarray],
                        Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    _least: _least_no_zero, _most: _most_no_zero}


def least_allocated(columns: Columns, weights: Sequence[int]) -> np.ndarray:
    """``leastResourceScorer`` (1.22 on)."""
    return _weighted(columns, weights, _least)


def most_allocated(columns: Columns, weights: Sequence[int]) -> np.ndarray:
    """``mostResourceScorer`` (1.22 on): over-commit clamps to 100."""
    return _weighted(columns, weights, _most)


def broken_linear(utilization: np.ndarray, points: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """``helper.BuildBrokenLinearFunction`` over an array of utilizations (points strictly increasing;
    the first point with ``p >= utilization`` found as upstream's loop finds it). The v1.20
    RequestedToCapacityRatio plugin uses it too."""
    i = np.searchsorted(points, utilization, side="left")
    last = len(points) - 1
    lo = np.clip(i - 1, 0, last)
    hi = np.clip(i, 0, last)
    span = np.where(hi > lo, points[hi] - points[lo], 1)
    between = scores[lo] + go_div((scores[hi] - scores[lo]) * (utilization - points[lo]), span)
    return np.where(i == 0, scores[0], np.where(i > last, scores[last], between))


def requested_to_capacity_ratio(columns: Columns, weights: Sequence[int], points: np.ndarray,
                                scores: np.ndarray) -> np.ndarray:
    """``buildRequestedToCapacityRatioScorerFunction`` (1.22 on): utilization rounded down,
    resources scoring 0 out of the weight sum, the average rounded half away from zero."""
    n = len(columns[0][0]) if columns else 0
    node_score = np.zeros(n, dtype=np.int64)
    weight_sum = np.zeros(n, dtype=np.int64)
    for (requested, allocatable), weight in zip(columns, weights, strict=True):
        full = (allocatable == 0) | (requested > allocatable)
        utilization = np.where(full, MAX_UTILIZATION,
                               requested * MAX_UTILIZATION // np.where(full, 1, allocatable))
        score = broken_linear(utilization, points, scores)
        counted = (allocatable != 0) & (score > 0)
        node_score += np.where(counted, score * weight, 0)
        weight_sum += np.where(counted, weight, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(weight_sum == 0, 0.0, node_score.astype(np.float64) / np.maximum(weight_sum, 1))
    return np.where(weight_sum == 0, 0, go_round(ratio))


def balanced_std_dev(columns: Columns) -> np.ndarray:
    """``balancedResourceScorer`` (1.22 on): ``int((1 - std) * 100)`` over the fractions (capped
    at 1) of the resources each node has; two resources: ``std = |f1 - f2| / 2``."""
    if columns and _every_node_has_all(columns):
        return _balanced_all(columns)
    n = len(columns[0][0]) if columns else 0
    count = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.float64)
    fractions = []
    first = np.zeros(n, dtype=np.float64)
    second = np.zeros(n, dtype=np.float64)
    for requested, allocatable in columns:
        have = allocatable != 0
        with np.errstate(divide="ignore", invalid="ignore"):
            fraction = np.minimum(requested.astype(np.float64) / np.where(have, allocatable, 1), 1.0)
        fraction = np.where(have, fraction, 0.0)
        first = np.where(have & (count == 0), fraction, first)
        second = np.where(have & (count == 1), fraction, second)
        total = total + np.where(have, fraction, 0.0)
        count = count + have
        fractions.append((have, fraction))
    mean = total / np.maximum(count, 1)
    squares = np.zeros(n, dtype=np.float64)
    for have, fraction in fractions:
        squares = squares + np.where(have, (fraction - mean) * (fraction - mean), 0.0)
    spread = np.sqrt(squares / np.maximum(count, 1))
    std = np.where(count == 2, np.abs((first - second) / 2), np.where(count > 2, spread, 0.0))
    return ((1 - std) * MAX_NODE_SCORE).astype(np.int64)


def _balanced_all(columns: Columns) -> np.ndarray:
    """:func:`balanced_std_dev` when every node has every resource: each node's count is
    ``len(columns)``, so the same float operations, in the same order, without the masks."""
    fractions = [np.minimum(requested.astype(np.float64) / allocatable, 1.0)
                 for requested, allocatable in columns]
    k = len(fractions)
    if k == 2:
        std = np.abs((fractions[0] - fractions[1]) / 2)
    elif k > 2:
        total = fractions[0]
        for fraction in fractions[1:]:
            total = total + fraction
        mean = total / np.int64(k)
        squares = (fractions[0] - mean) * (fractions[0] - mean)
        for fraction in fractions[1:]:
            squares = squares + (fraction - mean) * (fraction - mean)
        std = np.sqrt(squares / np.int64(k))
    else:
        return np.full(len(fractions[0]), MAX_NODE_SCORE, dtype=np.int64)
    return ((1 - std) * MAX_NODE_SCORE).astype(np.int64)
