"""Every built-in plugin class, imported (:data:`ruleset.plugins.BUILTIN_PLUGINS`); its rows as
data, imported by nothing, are :data:`ruleset.plugins.table.BUILTINS`."""

from __future__ import annotations

from ruleset import Plugin
from ruleset.plugins.default_binder import DefaultBinder
from ruleset.plugins.default_preemption import DefaultPreemption
from ruleset.plugins.equal_priority import EqualPriority
from ruleset.plugins.image_locality import ImageLocality
from ruleset.plugins.interpodaffinity import InterPodAffinity
from ruleset.plugins.node_affinity import NodeAffinity
from ruleset.plugins.node_label import NodeLabel
from ruleset.plugins.node_name import NodeName
from ruleset.plugins.node_ports import NodePorts
from ruleset.plugins.node_prefer_avoid_pods import NodePreferAvoidPods
from ruleset.plugins.node_unschedulable import NodeUnschedulable
from ruleset.plugins.noderesources import (
    NodeResourceLimits,
    NodeResourcesBalancedAllocation,
    NodeResourcesFit,
    NodeResourcesLeastAllocated,
    NodeResourcesMostAllocated,
    RequestedToCapacityRatio,
)
from ruleset.plugins.nodevolumelimits import (
    AzureDiskLimits,
    CinderLimits,
    EBSLimits,
    GCEPDLimits,
    NodeVolumeLimits,
)
from ruleset.plugins.podtopologyspread import PodTopologySpread
from ruleset.plugins.priority_sort import PrioritySort
from ruleset.plugins.rules import Rules
from ruleset.plugins.scheduling_gates import SchedulingGates
from ruleset.plugins.selector_spread import SelectorSpread
from ruleset.plugins.taint_toleration import TaintToleration
from ruleset.plugins.volume_restrictions import VolumeRestrictions
from ruleset.plugins.volume_zone import VolumeZone
from ruleset.plugins.volumebinding import VolumeBinding

#: The built-in plugin classes, in the order ``ruleset plugins`` lists them.
BUILTIN_PLUGINS: tuple[type[Plugin], ...] = (
    SchedulingGates,
    PrioritySort,
    NodeUnschedulable,
    NodeName,
    NodeLabel,
    NodeResourcesFit,
    NodeResourcesBalancedAllocation,
    NodeResourcesLeastAllocated,
    NodeResourcesMostAllocated,
    RequestedToCapacityRatio,
    NodeResourceLimits,
    TaintToleration,
    NodeAffinity,
    SelectorSpread,
    PodTopologySpread,
    NodePorts,
    ImageLocality,
    NodePreferAvoidPods,
    InterPodAffinity,
    VolumeRestrictions,
    EBSLimits,
    GCEPDLimits,
    NodeVolumeLimits,
    AzureDiskLimits,
    CinderLimits,
    VolumeBinding,
    VolumeZone,
    EqualPriority,
    DefaultPreemption,
    Rules,
    DefaultBinder,
)

__all__ = ["BUILTIN_PLUGINS"]
