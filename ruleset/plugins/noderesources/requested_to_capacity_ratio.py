"""RequestedToCapacityRatio (Score): score nodes by a user-drawn curve of resource utilization.

v1.20 ``requested_to_capacity_ratio.go``. The ``shape`` points (utilization 0..100, score
0..10) have their scores scaled by 10 onto 0..100 and define a broken linear function ``f``:
``shape[0].score`` up to the first point, linear between points (Go integer division,
truncating toward zero), ``shape[-1].score`` after the last. Per configured resource, with
``requested`` the node's total plus the pod's request (non-zero defaults for cpu and memory):

* ``f(100)`` when nothing is allocatable or the node is over-requested;
* otherwise ``f(100 - (allocatable - requested) * 100 / allocatable)``, i.e. the utilization
  rounded *up* (v1.28 rounds it down).

Only resources scoring above 0 enter both the weighted sum and the weight sum; the node
scores ``int64(math.Round(Σ score*w / Σ w))`` (halves away from zero), or 0 when no resource
scored. A weight of 0 counts as 1, and a resource listed twice keeps its last weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ruleset import MAX_NODE_SCORE, ArgError, Handle, NodeSet, Plugin, arg_field, hookimpl
from ruleset.api.pod import Pod
from ruleset.plugins.noderesources import scoring
from ruleset.plugins.noderesources.resource_allocation import (
    DEFAULT_RESOURCE_SPECS,
    RESOURCES_DESCRIPTION,
    RESOURCES_SCHEMA,
    ResourceSpec,
    dump_resources,
    go_round,
    parse_resources_defaulted,
    requested_and_allocatable,
    weight_map,
    with_default_resources,
)
from ruleset.plugins.noderesources.resource_args import (
    MAX_CUSTOM_PRIORITY_SCORE,
    SHAPE_SCHEMA,
    UtilizationShapePoint,
    dump_shape,
    parse_shape,
)

MIN_UTILIZATION = 0
MAX_UTILIZATION = 100
MIN_SCORE = 0


@dataclass(frozen=True, slots=True)
class RequestedToCapacityRatioArgs:
    """``RequestedToCapacityRatioArgs`` of kubescheduler.config.k8s.io/v1beta1."""

    shape: tuple[UtilizationShapePoint, ...] = arg_field(
        "shape", default=(), parse=parse_shape, dump=dump_shape, schema=SHAPE_SCHEMA,
        description="Required: the utilization (0..100) -> score (0..10) points of the curve, utilization "
                    "strictly increasing; at least one point.")
    resources: tuple[ResourceSpec, ...] = arg_field(
        "resources", default=DEFAULT_RESOURCE_SPECS, parse=parse_resources_defaulted, dump=dump_resources,
        schema=RESOURCES_SCHEMA, description=RESOURCES_DESCRIPTION)

    def __post_init__(self) -> None:
        object.__setattr__(self, "resources", with_default_resources(self.resources))


def validate_function_shape(shape: tuple[UtilizationShapePoint, ...]) -> list[ArgError]:
    """``validateFunctionShape`` of v1.20: sortedness over all points first, then each point's ranges."""
    if not shape:
        return [ArgError(("shape",), "at least one point must be specified")]
    for i in range(1, len(shape)):
        before, point = shape[i - 1], shape[i]
        if before.utilization >= point.utilization:
            return [ArgError(("shape", i, "utilization"),
                             f"utilization values must be sorted. Utilization[{i - 1}]=={before.utilization} "
                             f">= Utilization[{i}]=={point.utilization}")]
    for i, point in enumerate(shape):
        utilization = ("shape", i, "utilization")
        score = ("shape", i, "score")
        if point.utilization < MIN_UTILIZATION:
            return [ArgError(utilization, f"utilization values must not be less than {MIN_UTILIZATION}. "
                                          f"Utilization[{i}]=={point.utilization}")]
        if point.utilization > MAX_UTILIZATION:
            return [ArgError(utilization, f"utilization values must not be greater than {MAX_UTILIZATION}. "
                                          f"Utilization[{i}]=={point.utilization}")]
        if point.score < MIN_SCORE:
            return [ArgError(score, f"score values must not be less than {MIN_SCORE}. "
                                    f"Score[{i}]=={point.score}")]
        if point.score > MAX_CUSTOM_PRIORITY_SCORE:
            return [ArgError(score, f"score values must not be greater than {MAX_CUSTOM_PRIORITY_SCORE}. "
                                    f"Score[{i}]=={point.score}")]
    return []


def validate_resources_no_max(resources: tuple[ResourceSpec, ...]) -> list[ArgError]:
    """``validateResourcesNoMax`` of v1.20: every weight at least 1, first error only."""
    for i, spec in enumerate(resources):
        if spec.weight < 1:
            return [ArgError(("resources", i, "weight"),
                             f"resource {spec.name} weight {spec.weight} must not be less than 1")]
    return []


class RequestedToCapacityRatio(Plugin):
    """Scores nodes by a configured curve of their resource utilization once the pod is placed (Score)."""

    name = "RequestedToCapacityRatio"
    Args = RequestedToCapacityRatioArgs
    removed_in = "1.23"
    replaced_by = "NodeResourcesFit with scoringStrategy RequestedToCapacityRatio"

    def __init__(self, args: RequestedToCapacityRatioArgs | None = None, handle: Handle | None = None):
        super().__init__(args, handle)
        shape = self.args.shape
        self._points = np.array([p.utilization for p in shape], dtype=np.int64)
        self._scores = np.array([p.score * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE) for p in shape],
                                dtype=np.int64)
        # NewRequestedToCapacityRatio: weight 0 means 1 (validation already rejects it from config).
        self._weights = {name: weight or 1 for name, weight in weight_map(self.args.resources).items()}
        target = self.handle.target
        # 1.22: the scorer NodeResourcesFit's RequestedToCapacityRatio strategy also runs.
        self._reader = (scoring.ResourceReader.at(target, list(self._weights))
                        if target.has(scoring.RTCR_FLOOR) else None)

    @classmethod
    def validate_args(cls, args: RequestedToCapacityRatioArgs) -> list[ArgError]:
        """``ValidateRequestedToCapacityRatioArgs`` (v1.20): the shape, then the weights; first error only."""
        return validate_function_shape(args.shape) or validate_resources_no_max(args.resources)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        if self._reader is not None:
            columns = self._reader.read(self._reader.pod_requests(pod), nodes)
            return scoring.requested_to_capacity_ratio(columns, list(self._weights.values()), self._points,
                                                       self._scores)
        node_score = np.zeros(len(nodes), dtype=np.int64)
        weight_sum = np.zeros(len(nodes), dtype=np.int64)
        for name, weight in self._weights.items():
            requested, allocatable = requested_and_allocatable(pod, nodes, name)
            full = (allocatable == 0) | (requested > allocatable)
            safe = np.where(full, 1, allocatable)
            utilization = np.where(full, MAX_UTILIZATION,
                                   MAX_UTILIZATION - (allocatable - requested) * MAX_UTILIZATION // safe)
            score = scoring.broken_linear(utilization, self._points, self._scores)
            counted = score > 0
            node_score += np.where(counted, score * weight, 0)
            weight_sum += np.where(counted, weight, 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = node_score.astype(np.float64) / weight_sum.astype(np.float64)
        return np.where(weight_sum == 0, 0, go_round(np.where(weight_sum == 0, 0.0, ratio)))
