"""Shared pieces of the resource scorers (``resource_allocation.go`` of v1.20).

Not a plugin itself: LeastAllocated, MostAllocated, BalancedAllocation and
RequestedToCapacityRatio all read "requested" and "allocatable" per node the same way, and
share the args shape ``resources = [{name, weight}]``. :class:`ResourceWeightScorer` is the
whole of Least/MostAllocated but for the per-resource formula.

Upstream keeps the configured resources in a ``map[ResourceName]int64``: a resource listed
twice counts once, with the weight of its last entry (:func:`weight_map`). The scorers only
sum over that map, so its iteration order never matters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ruleset import ArgError, NodeSet, Plugin, arg_field, hookimpl
from ruleset.api import resources as res
from ruleset.api.pod import Pod
from ruleset.plugins.noderesources import scoring

# The args, apart (ruleset validate reads them without numpy); re-exported for the scorers.
from ruleset.plugins.noderesources.resource_args import (  # noqa: F401
    DEFAULT_RESOURCE_SPECS,
    DEFAULT_RESOURCES,
    RESOURCES_DESCRIPTION,
    RESOURCES_SCHEMA,
    ResourceSpec,
    dump_resources,
    parse_resources,
    parse_resources_defaulted,
    with_default_resources,
)
from ruleset.plugins.noderesources.scoring import go_round  # noqa: F401 - re-exported for the v1.20 scorers


def weight_map(specs: tuple[ResourceSpec, ...]) -> dict[str, int]:
    """``resourceToWeightMap``: name -> weight, the last entry of a repeated name winning."""
    weights: dict[str, int] = {}
    for spec in specs:
        weights[spec.name] = spec.weight
    return weights


def validate_resource_weights_1_20(specs: tuple[ResourceSpec, ...]) -> list[ArgError]:
    """``validateResources`` of v1.20 (Least/MostAllocated): weights 1..100, first error only."""
    for i, spec in enumerate(specs):
        if spec.weight <= 0:
            return [ArgError(("resources", i, "weight"),
                             f"resource Weight of {spec.name} should be a positive value, got {spec.weight}")]
        if spec.weight > 100:
            return [ArgError(("resources", i, "weight"),
                             f"resource Weight of {spec.name} should be less than 100, got {spec.weight}")]
    return []


def requested_and_allocatable(pod: Pod, nodes: NodeSet, resource: str) -> tuple[np.ndarray, np.ndarray]:
    """``calculateResourceAllocatableRequest``: per node (requested incl. the pod, allocatable).

    CPU and memory use the nodes' non-zero requested totals; other resources use the plain
    requested totals. The pod's own request follows ``calculatePodResourceRequest``.
    """
    snapshot = nodes.snapshot
    idx = nodes.indices
    pod_request = pod.scoring_request(resource)
    if resource == res.CPU:
        return snapshot.non_zero_cpu[idx] + pod_request, snapshot.allocatable(res.CPU)[idx]
    if resource == res.MEMORY:
        return snapshot.non_zero_memory[idx] + pod_request, snapshot.allocatable(res.MEMORY)[idx]
    if resource == res.EPHEMERAL_STORAGE or res.is_scalar_resource(resource):
        return snapshot.requested(resource)[idx] + pod_request, snapshot.allocatable(resource)[idx]
    zeros = np.zeros(len(idx), dtype=np.int64)
    return zeros, zeros.copy()


def weighted_resource_score(pod: Pod, nodes: NodeSet, weights: dict[str, int],
                            scorer: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """``Σ scorer(requested, allocatable) * w / Σ w`` per node (int64, both operands >= 0).

    The shared body of ``leastResourceScorer`` and ``mostResourceScorer``; ``scorer`` maps
    (requested, allocatable) arrays to per-resource scores in [0, 100].
    """
    node_score = np.zeros(len(nodes), dtype=np.int64)
    weight_sum = 0
    for name, weight in weights.items():
        requested, allocatable = requested_and_allocatable(pod, nodes, name)
        node_score += scorer(requested, allocatable) * weight
        weight_sum += weight
    # Validation keeps every weight >= 1 and defaulting keeps the list non-empty, so no zero division.
    return node_score // weight_sum


def fraction_of_capacity(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``fractionOfCapacity``: requested/capacity as float64, 1 where capacity is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = requested.astype(np.float64) / capacity.astype(np.float64)
    return np.where(capacity == 0, 1.0, fraction)


@dataclass(frozen=True, slots=True)
class ResourceWeightsArgs:
    """``NodeResources{Least,Most}AllocatedArgs`` of kubescheduler.config.k8s.io/v1beta1."""

    resources: tuple[ResourceSpec, ...] = arg_field(
        "resources", default=DEFAULT_RESOURCE_SPECS, parse=parse_resources_defaulted, dump=dump_resources,
        schema=RESOURCES_SCHEMA, description=RESOURCES_DESCRIPTION)

    def __post_init__(self) -> None:
        object.__setattr__(self, "resources", with_default_resources(self.resources))


class ResourceWeightScorer(Plugin):
    """Score: the weighted average over the configured resources of a per-resource score.

    Subclasses define :meth:`resource_score`, a function of (requested, allocatable) arrays, and
    ``scorer_1_22``, the 1.22 scorer of :mod:`.scoring` (the plugins were unregistered in 1.23,
    when v1beta1 went: from 1.22 the configuration API spells them as NodeResourcesFit's
    ``scoringStrategy``).
    """

    Args = ResourceWeightsArgs
    removed_in = "1.23"

    def __init__(self, args: ResourceWeightsArgs | None = None, handle: Any = None):
        super().__init__(args, handle)
        target = self.handle.target
        weights = weight_map(self.args.resources)
        self._reader = (scoring.ResourceReader.at(target, list(weights))
                        if target.has(scoring.SKIP_UNUSED) else None)
        self._weights = list(weights.values())

    @staticmethod
    def resource_score(requested: np.ndarray, allocatable: np.ndarray) -> np.ndarray:
        """A resource's score in [0, 100] per node, from its requested and allocatable amounts."""
        raise NotImplementedError

    @staticmethod
    def scorer_1_22(columns: scoring.Columns, weights: Sequence[int]) -> np.ndarray:
        """The 1.22 weighted average over (requested, allocatable) columns."""
        raise NotImplementedError

    @classmethod
    def validate_args(cls, args: ResourceWeightsArgs) -> list[ArgError]:
        """``validateResources`` (v1.20): weights 1..100, first error only."""
        return validate_resource_weights_1_20(args.resources)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        if self._reader is not None:
            columns = self._reader.read(self._reader.pod_requests(pod), nodes)
            return type(self).scorer_1_22(columns, self._weights)
        return weighted_resource_score(pod, nodes, weight_map(self.args.resources), type(self).resource_score)
