"""The node resources plugins (upstream's ``pkg/scheduler/framework/plugins/noderesources``).

:class:`NodeResourcesFit` filters; the scorers share :mod:`.resource_allocation`'s reading
of requested and allocatable amounts and its ``resources = [{name, weight}]`` args.
"""

from ruleset.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ruleset.plugins.noderesources.balanced_allocation import NodeResourcesBalancedAllocation
    from ruleset.plugins.noderesources.fit import NodeResourcesFit
    from ruleset.plugins.noderesources.least_allocated import NodeResourcesLeastAllocated
    from ruleset.plugins.noderesources.most_allocated import NodeResourcesMostAllocated
    from ruleset.plugins.noderesources.requested_to_capacity_ratio import RequestedToCapacityRatio
    from ruleset.plugins.noderesources.resource_limits import NodeResourceLimits

#: Each name -> its module, imported when the name is first read: importing one module of the
#: package (its args, for ``ruleset validate``) imports no other.
_EXPORTS = {
    "NodeResourcesBalancedAllocation": "ruleset.plugins.noderesources.balanced_allocation",
    "NodeResourcesFit": "ruleset.plugins.noderesources.fit",
    "NodeResourcesLeastAllocated": "ruleset.plugins.noderesources.least_allocated",
    "NodeResourcesMostAllocated": "ruleset.plugins.noderesources.most_allocated",
    "RequestedToCapacityRatio": "ruleset.plugins.noderesources.requested_to_capacity_ratio",
    "NodeResourceLimits": "ruleset.plugins.noderesources.resource_limits",
}

__all__ = [
    "NodeResourceLimits",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesFit",
    "NodeResourcesLeastAllocated",
    "NodeResourcesMostAllocated",
    "RequestedToCapacityRatio",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
