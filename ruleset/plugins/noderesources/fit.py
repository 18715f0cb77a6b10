"""NodeResourcesFit (PreFilter, Filter; Score from Kubernetes 1.22): the node must have room for
the pod's requests.

Reasons, in upstream's order: "Too many pods" (checked even for pods requesting nothing),
then "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage" and
"Insufficient <name>" for each scalar resource. Scalar resources are checked in name order
(upstream walks a Go map). Every failing resource is reported, with code Unschedulable.
Extended resources named in ``ignoredResources``, or whose domain (before the first '/') is
in ``ignoredResourceGroups``, are not checked. Filter without PreFilter's state is an Error,
as upstream.

A scalar resource the pod requests 0 of is not checked from 1.26 (:data:`SKIP_ZERO_SCALAR`), nor
CPU, memory or ephemeral storage requested at 0 from 1.28 (:data:`SKIP_ZERO_REQUESTS`); with
the SidecarContainers gate off PreFilter refuses a pod with a native sidecar (:data:`SIDECARS_GATED`,
as upstream, which would otherwise count it differently from a pre-1.28 kubelet); from
1.34 a node whose allocatable itself is below a failing request is UnschedulableAndUnresolvable
(:data:`UNRESOLVABLE`). From 1.22 the plugin also scores, by its ``scoringStrategy``
(:mod:`.strategy`): :attr:`NodeResourcesFit.points_since` keeps it off the Score point before,
and off PreScore before 1.27 (kubernetes#115655 gave it one, which only caches the pod's requests:
nothing to model, so it does nothing here).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar, Protocol

import numpy as np

from ruleset import (
    OTHER_PODS_AS_RESOURCES,
    ROOM_PODS,
    ArgError,
    Code,
    CycleState,
    FilterResult,
    Handle,
    NodeColumns,
    NodeSet,
    Plugin,
    Snapshot,
    Status,
    Target,
    hookimpl,
    switch,
)
from ruleset.api import resources as res
from ruleset.api.pod import Pod
from ruleset.plugins.noderesources import args as fit_args
from ruleset.plugins.noderesources import scoring
from ruleset.plugins.noderesources.args import NodeResourcesFitArgs
from ruleset.plugins.noderesources.strategy import (
    DEFAULT_STRATEGY,
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    ScoringStrategy,
    shape_arrays,
)
from ruleset.quantity import wrap_int64

_REF = "pkg/scheduler/framework/plugins/noderesources/fit.go"
SCORE = fit_args.FIT_SCORE
SKIP_ZERO_SCALAR = switch("NodeResourcesFit.skip-zero-scalar-requests", "1.26",
                          "Filter does not check a scalar (extended, hugepages…) resource the pod "
                          "requests 0 of",
                          _REF + " (fitsRequest: rQuant == 0)")
SKIP_ZERO_REQUESTS = switch("NodeResourcesFit.skip-zero-requests", "1.28",
                            "Filter does not check CPU, memory or ephemeral storage when the pod "
                            "requests 0 of it",
                            _REF + " (fitsRequest)")
UNRESOLVABLE = switch("NodeResourcesFit.unresolvable-beyond-allocatable", "1.34",
                      "a request above the node's allocatable itself is UnschedulableAndUnresolvable", _REF)
SIDECARS_GATED = switch("NodeResourcesFit.sidecars-need-gate", "1.28",
                        "with the SidecarContainers feature gate off, PreFilter refuses a pod with a "
                        "restartable init container (UnschedulableAndUnresolvable)", _REF + " (PreFilter)")

#: Upstream's PreFilter message (v1.28 on) for a native sidecar while the gate is off.
SIDECARS_DISABLED = "Pod has a restartable init container and the SidecarContainers feature is disabled"

PRE_FILTER_STATE_KEY = "PreFilterNodeResourcesFit"
TOO_MANY_PODS = "Too many pods"
_ONE = np.ones(1, dtype=bool)




@dataclass(frozen=True, slots=True)
class PreFilterState:
    """``preFilterState``: what Filter compares, worked out once per cycle from the pod's requests."""

    checks: tuple[tuple[str, str, int], ...]


class NodeResourcesFit(Plugin):
    """Rejects nodes without room for the pod's resource requests or for one more pod
    (PreFilter, Filter)."""

    name = "NodeResourcesFit"
    Args = NodeResourcesFitArgs
    points_since: ClassVar[Mapping[str, str]] = {"score": "1.22", "preScore": "1.27"}

    def __init__(self, args: NodeResourcesFitArgs | None = None, handle: Handle | None = None):
        super().__init__(args, handle)
        target = self.handle.target
        strategy: ScoringStrategy | None = self.args.scoring_strategy
        if strategy is not None and not target.has(SCORE):
            raise ValueError(f"scoringStrategy is not in Kubernetes {target.version}: it came in 1.22")
        self._skip_zero = target.has(SKIP_ZERO_REQUESTS)
        self._skip_zero_scalar = target.has(SKIP_ZERO_SCALAR)
        self._unresolvable = target.has(UNRESOLVABLE)
        self._refuse_sidecars = target.has(SIDECARS_GATED) and not target.gate("SidecarContainers")
        self._strategy = (strategy or DEFAULT_STRATEGY) if target.has(SCORE) else None
        self._by_shape = scoring.ScoresByShape()
        #: Per request shape, whether each node fails Filter for any reason (kept like the scores).
        self._failing_by_shape = scoring.ScoresByShape()
        if self._strategy is not None:
            names = [spec.name for spec in self._strategy.resources]
            self._reader = scoring.ResourceReader.at(target, names)
            self._weights = [spec.weight for spec in self._strategy.resources]
            if self._strategy.type == REQUESTED_TO_CAPACITY_RATIO:
                self._points, self._scores = shape_arrays(self._strategy.shape or ())

    @classmethod
    def defaults_for(cls, target: Target) -> dict[str, Any]:
        """The release's defaults of args the v1.20 dataclass does not default (:mod:`.args`)."""
        return fit_args.fit_defaults_for(target)

    @classmethod
    def args_not_in(cls, target: Target) -> frozenset[str]:
        """The args the target release does not have (:mod:`.args`)."""
        return fit_args.fit_args_not_in(target)

    @classmethod
    def validate_args_for(cls, args: NodeResourcesFitArgs, target: Target) -> list[ArgError]:
        """What :meth:`validate_args` cannot know (:mod:`.args`)."""
        return fit_args.validate_fit_args_for(args, target)

    @classmethod
    def validate_args(cls, args: NodeResourcesFitArgs) -> list[ArgError]:
        """``validateFitArgs`` (:mod:`.args`)."""
        return fit_args.validate_fit_args(args)

    @hookimpl
    def ruleset_pre_score(self) -> None:
        """``Fit.PreScore`` (1.27 on): upstream caches the pod's requests; never Skip."""
        return None

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        """``Fit.Score`` (1.22 on) by the scoring strategy; no NormalizeScore."""
        if self._strategy is None:  # before 1.22 the framework never calls it (points_since)
            return np.zeros(len(nodes), dtype=np.int64)
        requests = self._reader.pod_requests(pod)
        return self._by_shape.scores(tuple(requests), nodes, partial(self._score, requests))

    def _score(self, requests: list[int], nodes: NodeSet) -> np.ndarray:
        assert self._strategy is not None
        if len(nodes) == 1 and self._strategy.type in (LEAST_ALLOCATED, MOST_ALLOCATED):
            # One node, as when a kept shape catches up with the node the last pod took.
            one = self._reader.read_one(requests, nodes.snapshot, nodes.indices.item(0))
            if one is not None:
                score = (scoring.least_one if self._strategy.type == LEAST_ALLOCATED else scoring.most_one)(
                    one, self._weights)
                return np.array([score], dtype=np.int64)
        columns = self._reader.read(requests, nodes)
        if self._strategy.type == LEAST_ALLOCATED:
            return scoring.least_allocated(columns, self._weights)
        if self._strategy.type == MOST_ALLOCATED:
            return scoring.most_allocated(columns, self._weights)
        return scoring.requested_to_capacity_ratio(columns, self._weights, self._points, self._scores)

    @hookimpl
    def ruleset_pre_filter(self, state: CycleState, pod: Pod, snapshot: Snapshot) -> Status | None:
        if self._refuse_sidecars and any(c.restart_policy == "Always" for c in pod.init_containers):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (SIDECARS_DISABLED,))
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(self.resource_checks(pod.requests)))
        return None

    def _ignored(self, name: str) -> bool:
        if not res.is_extended_resource(name):
            return False
        args: NodeResourcesFitArgs = self.args
        return name in args.ignored_resources or name.split("/")[0] in args.ignored_resource_groups

    def resource_checks(self, request: dict[str, int]) -> tuple[tuple[str, str, int], ...]:
        """``(reason, resource, requested amount)`` for each resource Filter compares, in reason order.

        Empty for a pod requesting nothing (only the pod count is checked then); otherwise
        CPU, memory and ephemeral storage (even at 0), then the scalar resources not ignored.
        Kept per distinct request (pods of one template ask the same): the answer depends only on
        the request and the plugin's fixed args and release.
        """
        key = tuple(request.items())
        cache: dict[tuple[tuple[str, int], ...], tuple[tuple[str, str, int], ...]] | None
        cache = self.__dict__.get("_checks_by_request")
        if cache is None:
            cache = self.__dict__["_checks_by_request"] = {}
        checks = cache.get(key)
        if checks is None:
            if len(cache) >= 4096:  # many distinct requests: keep memory bounded
                cache.clear()
            checks = cache[key] = self._resource_checks(request)
        return checks

    def _resource_checks(self, request: dict[str, int]) -> tuple[tuple[str, str, int], ...]:
        scalars = sorted(name for name in request if name not in (res.CPU, res.MEMORY, res.EPHEMERAL_STORAGE))
        asks_nothing = (request.get(res.CPU, 0) == 0 and request.get(res.MEMORY, 0) == 0
                        and request.get(res.EPHEMERAL_STORAGE, 0) == 0 and not scalars)
        if asks_nothing:
            return ()
        names = [res.CPU, res.MEMORY, res.EPHEMERAL_STORAGE, *(n for n in scalars if not self._ignored(n))]
        checks = tuple((f"Insufficient {name}", name, request.get(name, 0)) for name in names)
        if self._skip_zero:
            return tuple(c for c in checks if c[2] != 0)
        if self._skip_zero_scalar:
            return checks[:3] + tuple(c for c in checks[3:] if c[2] != 0)
        return checks

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        fit: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if fit is None:
            return FilterResult.error(len(nodes),
                                      f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if len(nodes) == 1:
            # One node, as in every pass of a preemption dry run: the same comparisons in Python
            # integers cost a fraction of numpy's per-call overhead on arrays.
            return self._one_node(fit, nodes.snapshot, nodes.indices.item(0))
        # Most scans pass every node: answered from each node's kept verdict for pods asking
        # the same (kept up to date node by node); otherwise worked out with the reasons.
        if not self._failing_by_shape.scores(fit.checks, nodes, partial(_failing, fit)).any():
            return None
        if self._unresolvable:
            return _with_unresolvable(fit, nodes.snapshot, nodes.indices)
        return _combine(len(nodes), list(_shortfalls(fit, nodes.snapshot, nodes.indices)))

    def _one_node(self, fit: PreFilterState, snapshot: Snapshot, at: int) -> FilterResult | None:
        """Filter on node ``at`` alone: what the array forms give for one node."""
        shortfalls = _shortfalls_one(fit, snapshot, at)
        failing = [reason for reason, short in shortfalls if short]
        if not failing:
            return None
        code = Code.UNSCHEDULABLE
        if self._unresolvable and any(short and wanted > snapshot.allocatable(name).item(at)
                                      for (_, short), (_, name, wanted) in zip(shortfalls[1:], fit.checks,
                                                                               strict=True)):
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        return FilterResult.reject(_ONE, code, *failing)

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Other pods count only through the node's summed requests and pod count."""
        return OTHER_PODS_AS_RESOURCES

    def filter_with_columns(self, state: CycleState, pod: Pod, nodes: NodeSet,
                            columns: NodeColumns) -> FilterResult | None:
        """Filter, reading each node's requests and pod count from ``columns`` (aligned with
        ``nodes``) instead of the snapshot: the same verdicts as with those pods really there."""
        fit: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if fit is None:
            return FilterResult.error(len(nodes),
                                      f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        every = slice(None)
        if self._unresolvable:
            return _with_unresolvable(fit, columns, every)
        return _combine(len(nodes), list(_shortfalls(fit, columns, every)))


    def passes_with_columns(self, state: CycleState, pod: Pod, nodes: NodeSet,
                            columns: NodeColumns) -> np.ndarray:
        """Whether each node passes :meth:`filter_with_columns` (no reasons built): what a
        preemption's reprieve asks once per pod it puts back."""
        fit: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if fit is None:  # filter_with_columns' Error: no node passes
            return np.zeros(len(nodes), dtype=bool)
        passing = None
        for _, fails in _shortfalls(fit, columns, slice(None)):
            passing = ~fails if passing is None else passing & ~fails
        assert passing is not None
        return passing


    def room_with_columns(self, state: CycleState, pod: Pod, nodes: NodeSet,
                          columns: NodeColumns) -> dict[str, np.ndarray] | None:
        """How much each node's sums may grow with the pod still passing: ``wanted > allocatable -
        (requested + added)`` fails exactly when ``added > allocatable - requested - wanted``, and
        the pod count likewise. None (ask :meth:`passes_with_columns` instead) where a sum could
        reach int64's limits, whose wrapping that rearrangement would not follow."""
        fit: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if fit is None:
            return None
        count, allowed = columns.pod_count, columns.allowed_pods
        rooms = {ROOM_PODS: allowed - count - 1}
        bound = 1 << 60
        if len(count) and (np.abs(count).max() >= bound or np.abs(allowed).max() >= bound):
            return None
        for _, name, wanted in fit.checks:
            allocatable, requested = columns.allocatable(name), columns.requested(name)
            if abs(wanted) >= bound or (len(requested) and (np.abs(allocatable).max() >= bound
                                                            or np.abs(requested).max() >= bound)):
                return None
            room = allocatable - requested - wanted
            rooms[name] = room if name not in rooms else np.minimum(rooms[name], room)
        return rooms


class _Sums(Protocol):
    """Per-node sums Filter reads: the snapshot (indexed by node) or a NodeColumns (aligned)."""

    @property
    def pod_count(self) -> np.ndarray: ...
    @property
    def allowed_pods(self) -> np.ndarray: ...
    def allocatable(self, resource: str) -> np.ndarray: ...
    def requested(self, resource: str) -> np.ndarray: ...


def _shortfalls(fit: PreFilterState, sums: _Sums, at: Any) -> Iterator[tuple[str, Any]]:
    """Each reason with whether the node fails it (``at`` a node index) or which of the nodes
    do (``at`` an array of node indices, or every row of aligned columns), in upstream's order."""
    yield TOO_MANY_PODS, sums.pod_count[at] + 1 > sums.allowed_pods[at]
    for reason, name, wanted in fit.checks:
        # Upstream's comparison, in int64 that wraps as Go's does (silently on arrays; a caller
        # passing a node index wraps the call in np.errstate).
        yield reason, wanted > sums.allocatable(name)[at] - sums.requested(name)[at]


def _shortfalls_one(fit: PreFilterState, snapshot: Snapshot, at: int) -> list[tuple[str, bool]]:
    """:func:`_shortfalls` of node ``at`` alone, in Python integers wrapped as int64 does (numpy
    scalars would cost more than the comparisons, and warn where arrays wrap silently)."""
    out = [(TOO_MANY_PODS, wrap_int64(snapshot.pod_count.item(at) + 1) > snapshot.allowed_pods.item(at))]
    for reason, name, wanted in fit.checks:
        out.append((reason, wanted > wrap_int64(snapshot.allocatable(name).item(at)
                                                - snapshot.requested(name).item(at))))
    return out


def _failing(fit: PreFilterState, nodes: NodeSet) -> np.ndarray:
    """Whether each of ``nodes`` fails Filter for some reason."""
    if len(nodes) == 1:  # the usual update: the one node a pod was bound to
        shortfalls = _shortfalls_one(fit, nodes.snapshot, nodes.indices.item(0))
        return np.array([any(short for _, short in shortfalls)])
    failing = np.zeros(len(nodes), dtype=bool)
    for _, short in _shortfalls(fit, nodes.snapshot, nodes.indices):
        failing |= short
    return failing


def _combine(n: int, checks: list[tuple[str, np.ndarray]], failing: bool = False) -> FilterResult:
    """Turn per-reason failure masks into one FilterResult listing every failing reason per node
    (``failing``: ``checks`` holds only masks failing some node already)."""
    if not failing:
        checks = [(reason, mask) for reason, mask in checks if mask.any()]
    if not checks:
        return FilterResult.passing(n)
    if len(checks) == 1:
        reason, mask = checks[0]
        return FilterResult.reject(mask, Code.UNSCHEDULABLE, reason)
    # Each node's set of failing reasons as a bit pattern, then one table row per distinct pattern.
    patterns = np.zeros(n, dtype=object if len(checks) > 62 else np.int64)
    for bit, (_, mask) in enumerate(checks):
        patterns = patterns + np.where(mask, 1 << bit, 0)
    distinct, inverse = np.unique(patterns, return_inverse=True)
    table = [tuple(reason for bit, (reason, _) in enumerate(checks) if int(p) >> bit & 1) for p in distinct]
    codes = np.where(patterns != 0, np.int8(Code.UNSCHEDULABLE), np.int8(Code.SUCCESS)).astype(np.int8)
    return FilterResult(codes, table, inverse.astype(np.int32).reshape(-1))


def _with_unresolvable(fit: PreFilterState, sums: _Sums, at: Any) -> FilterResult:
    """Filter from 1.34: as :func:`_combine`, and a node whose allocatable is below a failing
    request (preemption cannot help) is UnschedulableAndUnresolvable."""
    checks = list(_shortfalls(fit, sums, at))
    n = len(checks[0][1])
    failing = [check for check in checks if check[1].any()]
    if not failing:
        return FilterResult.passing(n)
    unresolvable = None
    for (_, fails), (_, name, wanted) in zip(checks[1:], fit.checks, strict=True):
        if fails.any():
            beyond = fails & (wanted > sums.allocatable(name)[at])
            unresolvable = beyond if unresolvable is None else unresolvable | beyond
    result = _combine(n, failing, failing=True)
    if unresolvable is None or not unresolvable.any():
        return result
    codes = np.where(unresolvable, np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), result.codes).astype(np.int8)
    return FilterResult(codes, result.reasons, result.reason_index)
