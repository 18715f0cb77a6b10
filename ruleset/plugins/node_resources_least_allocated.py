"""NodeResourcesLeastAllocated (Score): favour nodes with more free capacity.

Per resource ``(allocatable - requested) * 100 / allocatable`` (0 when nothing is
allocatable or the node is over-requested), then the weighted average over the configured
resources, all in integer arithmetic (v1.20 ``leastResourceScorer``). ``requested`` is the
node's total plus the pod's request, with the non-zero defaults for cpu and memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ruleset.api.pod import Pod
from ruleset.framework.args import ArgError, arg_field
from ruleset.framework.plugin import Plugin
from ruleset.hookspecs import hookimpl
from ruleset.plugins.resource_allocation import (
    MAX_NODE_SCORE,
    RESOURCES_SCHEMA,
    ResourceSpec,
    dump_resources,
    parse_resources_defaulted,
    validate_resource_weights_1_20,
    weight_map,
    weighted_resource_score,
    with_default_resources,
)
from ruleset.snapshot import NodeSet


@dataclass(frozen=True, slots=True)
class NodeResourcesLeastAllocatedArgs:
    """``NodeResourcesLeastAllocatedArgs`` of kubescheduler.config.k8s.io/v1beta1."""

    resources: tuple[ResourceSpec, ...] = arg_field("resources", default=(), parse=parse_resources_defaulted,
                                                    dump=dump_resources)

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
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False, "properties": {"resources": RESOURCES_SCHEMA},
    }

    @classmethod
    def validate_args(cls, args: NodeResourcesLeastAllocatedArgs) -> list[ArgError]:
        """``ValidateNodeResourcesLeastAllocatedArgs`` (v1.20): weights 1..100, first error only."""
        return validate_resource_weights_1_20(args.resources)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        return weighted_resource_score(pod, nodes, weight_map(self.args.resources), least_requested_score)
