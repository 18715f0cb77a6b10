"""NodeResourcesLeastAllocated (Score): favour nodes with more free capacity.

Per resource ``(allocatable - requested) * 100 / allocatable`` (0 when nothing is
allocatable or the node is over-requested), then the weighted average over the configured
resources, all in integer arithmetic (v1.20 ``leastResourceScorer``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ruleset.api.pod import Pod
from ruleset.framework.args import ArgError, arg_field
from ruleset.framework.plugin import Plugin
from ruleset.hookspecs import hookimpl
from ruleset.plugins.resource_allocation import (
    RESOURCES_SCHEMA,
    ResourceSpec,
    dump_resources,
    parse_resources,
    requested_and_allocatable,
    validate_resource_weights_1_20,
    with_default_resources,
)
from ruleset.snapshot import NodeSet

MAX_NODE_SCORE = 100


@dataclass(frozen=True, slots=True)
class NodeResourcesLeastAllocatedArgs:
    resources: tuple[ResourceSpec, ...] = arg_field(
        "resources", default=(), parse=lambda raw: with_default_resources(parse_resources(raw)), dump=dump_resources)

    def __post_init__(self) -> None:
        object.__setattr__(self, "resources", with_default_resources(self.resources))


def least_requested_score(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``leastRequestedScore``: 0 if capacity is 0 or requested exceeds it."""
    bad = (capacity == 0) | (requested > capacity)
    safe = np.where(bad, 1, capacity)
    return np.where(bad, 0, (capacity - requested) * MAX_NODE_SCORE // safe)


class NodeResourcesLeastAllocated(Plugin):
    name = "NodeResourcesLeastAllocated"
    Args = NodeResourcesLeastAllocatedArgs
    args_schema = {"type": "object", "additionalProperties": False, "properties": {"resources": RESOURCES_SCHEMA}}

    @classmethod
    def validate_args(cls, args: NodeResourcesLeastAllocatedArgs) -> list[ArgError]:
        return validate_resource_weights_1_20(args.resources)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        node_score = np.zeros(len(nodes), dtype=np.int64)
        weight_sum = 0
        for spec in self.args.resources:
            requested, allocatable = requested_and_allocatable(pod, nodes, spec.name)
            node_score += least_requested_score(requested, allocatable) * spec.weight
            weight_sum += spec.weight
        return node_score // weight_sum
