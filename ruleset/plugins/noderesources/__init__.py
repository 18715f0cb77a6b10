"""The node resources plugins (upstream's ``pkg/scheduler/framework/plugins/noderesources``).

:class:`NodeResourcesFit` filters; the scorers share :mod:`.resource_allocation`'s reading
of requested and allocatable amounts and its ``resources = [{name, weight}]`` args.
"""

from ruleset.plugins.noderesources.balanced_allocation import NodeResourcesBalancedAllocation
from ruleset.plugins.noderesources.fit import NodeResourcesFit
from ruleset.plugins.noderesources.least_allocated import NodeResourcesLeastAllocated
from ruleset.plugins.noderesources.most_allocated import NodeResourcesMostAllocated
from ruleset.plugins.noderesources.requested_to_capacity_ratio import RequestedToCapacityRatio
from ruleset.plugins.noderesources.resource_limits import NodeResourceLimits

__all__ = [
    "NodeResourceLimits",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesFit",
    "NodeResourcesLeastAllocated",
    "NodeResourcesMostAllocated",
    "RequestedToCapacityRatio",
]
