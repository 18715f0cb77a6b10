"""NodeResourcesMostAllocated (Score): favour nodes whose capacity is already in use (bin packing).

Per resource ``requested * 100 / allocatable`` (0 when nothing is allocatable or the node is
over-requested), then the weighted average over the configured resources, all in integer
arithmetic (v1.20 ``mostResourceScorer``). ``requested`` is the node's total plus the pod's
request, with the non-zero defaults for cpu and memory. Args and their validation are those
of NodeResourcesLeastAllocated.
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
class NodeResourcesMostAllocatedArgs:
    """``NodeResourcesMostAllocatedArgs`` of kubescheduler.config.k8s.io/v1beta1."""

    resources: tuple[ResourceSpec, ...] = arg_field("resources", default=(), parse=parse_resources_defaulted,
                                                    dump=dump_resources)

    def __post_init__(self) -> None:
        object.__setattr__(self, "resources", with_default_resources(self.resources))


def most_requested_score(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``mostRequestedScore`` of v1.20: 0 if capacity is 0 or requested exceeds it."""
    bad = (capacity == 0) | (requested > capacity)
    safe = np.where(bad, 1, capacity)
    return np.where(bad, 0, requested * MAX_NODE_SCORE // safe)


class NodeResourcesMostAllocated(Plugin):
    name = "NodeResourcesMostAllocated"
    Args = NodeResourcesMostAllocatedArgs
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False, "properties": {"resources": RESOURCES_SCHEMA},
    }

    @classmethod
    def validate_args(cls, args: NodeResourcesMostAllocatedArgs) -> list[ArgError]:
        """``ValidateNodeResourcesMostAllocatedArgs`` (v1.20): weights 1..100, first error only."""
        return validate_resource_weights_1_20(args.resources)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        return weighted_resource_score(pod, nodes, weight_map(self.args.resources), most_requested_score)
