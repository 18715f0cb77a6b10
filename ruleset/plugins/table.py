"""The built-in plugins as data: what checking a profile needs to know of each, without importing it.

kube-scheduler keeps its in-tree registry as a static table (``pkg/scheduler/framework/plugins/
registry.go``) and validates plugin args in ``apis/config/validation``, apart from the plugins.
ruleset does the same so that ``ruleset validate`` imports no plugin implementation (nor
numpy): each :class:`BuiltinPlugin` row names where the class lives, the hooks it implements
and its class-level declarations (aliases, releases, points by release), and, through
:attr:`BuiltinPlugin.args`, an :class:`ArgsSpec` in a module of its own holding the plugin's
args dataclass and the functions behind its args class methods.

The rows are data that can drift from the classes: ``tests/plugins/test_builtin_table.py``
checks every row against the class it names (and each :class:`ArgsSpec` against the class's
own methods). A row whose plugin takes args it cannot yet declare apart from the class has
``args`` :data:`IN_CLASS`: checking a profile naming it imports the class.

This module imports nothing of ruleset: :mod:`ruleset.pluginmanager` reads it to know every
built-in plugin's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ruleset import ArgError, Target

#: :attr:`BuiltinPlugin.args` of a plugin whose args are declared only by its class.
IN_CLASS = "in-class"


@dataclass(frozen=True, slots=True)
class ArgsSpec:
    """A plugin's args apart from its class: the dataclass, and the functions its class methods
    of the same names (:class:`ruleset.Plugin`) are (None: the base class's behaviour)."""

    Args: type
    validate_args: Callable[[Any], list[ArgError]] | None = None
    validate_args_for: Callable[[Any, Target], list[ArgError]] | None = None
    defaults_for: Callable[[Target], dict[str, Any]] | None = None
    args_not_in: Callable[[Target], frozenset[str]] | None = None
    #: Whether the constructor refuses, at ``target``, what no args check says (``ruleset
    #: validate`` then builds the plugin to report it); None: it never does.
    constructor_refuses: Callable[[Target], bool] | None = None


@dataclass(frozen=True, slots=True)
class BuiltinPlugin:
    """One built-in plugin: its class's location and what it declares (see the module docstring)."""

    name: str
    module: str
    cls: str
    #: The extension-point hook methods the class implements (``ruleset_filter``...).
    hooks: tuple[str, ...]
    #: ``module:NAME`` of its :class:`ArgsSpec`; None when it takes no args; :data:`IN_CLASS`.
    args: str | None = None
    aliases: tuple[str, ...] = ()
    introduced_in: str | None = None
    removed_in: str | None = None
    replaced_by: str = ""
    points_since: Mapping[str, str] = field(default_factory=dict)

    @property
    def declared(self) -> bool:
        """Whether this row (and its :class:`ArgsSpec`) says all a profile check needs."""
        return self.args != IN_CLASS


_PRE_FILTER = ("ruleset_pre_filter", "ruleset_pre_filter_add_pod", "ruleset_pre_filter_remove_pod")
_SCORE = ("ruleset_pre_score", "ruleset_score", "ruleset_normalize_score")
_VOLUME_LIMITS = ("NodeVolumeLimits (the volume's CSI driver reports the node's limit in its CSINode "
                  "allocatable.count)")
_NON_CSI = "ruleset.plugins.nodevolumelimits.non_csi"
#: The volume-limit plugins' hooks and the release their PreFilter came in (kubernetes#115398).
_VOLUME_LIMITS_HOOKS = ("ruleset_pre_filter", "ruleset_filter")
_VOLUME_LIMITS_PRE_FILTER = {"preFilter": "1.28"}

#: Every built-in plugin, in the order ``ruleset plugins`` lists them
#: (:data:`ruleset.plugins.BUILTIN_PLUGINS`).
BUILTINS: tuple[BuiltinPlugin, ...] = (
    BuiltinPlugin("SchedulingGates", "ruleset.plugins.scheduling_gates", "SchedulingGates",
                  ("ruleset_pre_enqueue",), introduced_in="1.26"),
    BuiltinPlugin("PrioritySort", "ruleset.plugins.priority_sort", "PrioritySort", ("ruleset_queue_sort",)),
    BuiltinPlugin("NodeUnschedulable", "ruleset.plugins.node_unschedulable", "NodeUnschedulable",
                  ("ruleset_filter",)),
    BuiltinPlugin("NodeName", "ruleset.plugins.node_name", "NodeName", ("ruleset_filter",)),
    BuiltinPlugin("NodeLabel", "ruleset.plugins.node_label", "NodeLabel", ("ruleset_filter", "ruleset_score"),
                  args=IN_CLASS, removed_in="1.23",
                  replaced_by="NodeAffinity (a nodeSelector or node affinity on the pods)"),
    BuiltinPlugin("NodeResourcesFit", "ruleset.plugins.noderesources.fit", "NodeResourcesFit",
                  ("ruleset_pre_filter", "ruleset_filter", "ruleset_pre_score", "ruleset_score"),
                  args="ruleset.plugins.noderesources.args:FIT_ARGS",
                  points_since={"score": "1.22", "preScore": "1.27"}),
    BuiltinPlugin("NodeResourcesBalancedAllocation", "ruleset.plugins.noderesources.balanced_allocation",
                  "NodeResourcesBalancedAllocation", ("ruleset_pre_score", "ruleset_score"),
                  args="ruleset.plugins.noderesources.args:BALANCED_ALLOCATION_ARGS",
                  points_since={"preScore": "1.27"}),
    BuiltinPlugin("NodeResourcesLeastAllocated", "ruleset.plugins.noderesources.least_allocated",
                  "NodeResourcesLeastAllocated", ("ruleset_score",), args=IN_CLASS, removed_in="1.23",
                  replaced_by="NodeResourcesFit with scoringStrategy LeastAllocated"),
    BuiltinPlugin("NodeResourcesMostAllocated", "ruleset.plugins.noderesources.most_allocated",
                  "NodeResourcesMostAllocated", ("ruleset_score",), args=IN_CLASS, removed_in="1.23",
                  replaced_by="NodeResourcesFit with scoringStrategy MostAllocated"),
    BuiltinPlugin("RequestedToCapacityRatio", "ruleset.plugins.noderesources.requested_to_capacity_ratio",
                  "RequestedToCapacityRatio", ("ruleset_score",), args=IN_CLASS, removed_in="1.23",
                  replaced_by="NodeResourcesFit with scoringStrategy RequestedToCapacityRatio"),
    BuiltinPlugin("NodeResourceLimits", "ruleset.plugins.noderesources.resource_limits", "NodeResourceLimits",
                  ("ruleset_pre_score", "ruleset_score"), aliases=("ResourceLimits",)),
    BuiltinPlugin("TaintToleration", "ruleset.plugins.taint_toleration", "TaintToleration",
                  ("ruleset_filter", *_SCORE)),
    BuiltinPlugin("NodeAffinity", "ruleset.plugins.node_affinity", "NodeAffinity",
                  ("ruleset_pre_filter", "ruleset_filter", "ruleset_score", "ruleset_normalize_score"),
                  args="ruleset.plugins.node_affinity_args:NODE_AFFINITY_ARGS",
                  points_since={"preFilter": "1.21"}),
    BuiltinPlugin("SelectorSpread", "ruleset.plugins.selector_spread", "SelectorSpread", _SCORE,
                  args=IN_CLASS, aliases=("ServiceSpreading",), removed_in="1.29",
                  replaced_by="PodTopologySpread (its system default constraints spread the same pods)"),
    BuiltinPlugin("PodTopologySpread", "ruleset.plugins.podtopologyspread.plugin", "PodTopologySpread",
                  (*_PRE_FILTER, "ruleset_filter", *_SCORE),
                  args="ruleset.plugins.podtopologyspread.args:POD_TOPOLOGY_SPREAD_ARGS"),
    BuiltinPlugin("NodePorts", "ruleset.plugins.node_ports", "NodePorts",
                  ("ruleset_pre_filter", "ruleset_filter")),
    BuiltinPlugin("ImageLocality", "ruleset.plugins.image_locality", "ImageLocality", ("ruleset_score",)),
    BuiltinPlugin("NodePreferAvoidPods", "ruleset.plugins.node_prefer_avoid_pods", "NodePreferAvoidPods",
                  ("ruleset_score",), removed_in="1.23",
                  replaced_by="taints with effect PreferNoSchedule (TaintToleration)"),
    BuiltinPlugin("InterPodAffinity", "ruleset.plugins.interpodaffinity.plugin", "InterPodAffinity",
                  (*_PRE_FILTER, "ruleset_filter", *_SCORE),
                  args="ruleset.plugins.interpodaffinity.args:INTER_POD_AFFINITY_ARGS"),
    BuiltinPlugin("VolumeRestrictions", "ruleset.plugins.volume_restrictions", "VolumeRestrictions",
                  (*_PRE_FILTER, "ruleset_filter"), points_since={"preFilter": "1.22"}),
    BuiltinPlugin("EBSLimits", _NON_CSI, "EBSLimits", _VOLUME_LIMITS_HOOKS, removed_in="1.32",
                  replaced_by=_VOLUME_LIMITS, points_since=_VOLUME_LIMITS_PRE_FILTER),
    BuiltinPlugin("GCEPDLimits", _NON_CSI, "GCEPDLimits", _VOLUME_LIMITS_HOOKS, removed_in="1.32",
                  replaced_by=_VOLUME_LIMITS, points_since=_VOLUME_LIMITS_PRE_FILTER),
    BuiltinPlugin("NodeVolumeLimits", "ruleset.plugins.nodevolumelimits.csi", "NodeVolumeLimits",
                  _VOLUME_LIMITS_HOOKS, points_since=_VOLUME_LIMITS_PRE_FILTER),
    BuiltinPlugin("AzureDiskLimits", _NON_CSI, "AzureDiskLimits", _VOLUME_LIMITS_HOOKS, removed_in="1.32",
                  replaced_by=_VOLUME_LIMITS, points_since=_VOLUME_LIMITS_PRE_FILTER),
    BuiltinPlugin("CinderLimits", _NON_CSI, "CinderLimits", _VOLUME_LIMITS_HOOKS, removed_in="1.32",
                  replaced_by=_VOLUME_LIMITS, points_since=_VOLUME_LIMITS_PRE_FILTER),
    BuiltinPlugin("VolumeBinding", "ruleset.plugins.volumebinding.plugin", "VolumeBinding",
                  ("ruleset_pre_filter", "ruleset_filter", "ruleset_pre_score", "ruleset_score",
                   "ruleset_reserve", "ruleset_unreserve", "ruleset_pre_bind"),
                  args="ruleset.plugins.volumebinding.args:VOLUME_BINDING_ARGS",
                  points_since={"score": "1.23", "preScore": "1.30"}),
    BuiltinPlugin("VolumeZone", "ruleset.plugins.volume_zone", "VolumeZone",
                  ("ruleset_pre_filter", "ruleset_filter"),
                  points_since={"preFilter": "1.27"}),
    BuiltinPlugin("EqualPriority", "ruleset.plugins.equal_priority", "EqualPriority", ("ruleset_score",)),
    BuiltinPlugin("DefaultPreemption", "ruleset.plugins.default_preemption", "DefaultPreemption",
                  ("ruleset_post_filter",),
                  args="ruleset.plugins.default_preemption_args:DEFAULT_PREEMPTION_ARGS"),
    BuiltinPlugin("Rules", "ruleset.plugins.rules.plugin", "Rules",
                  ("ruleset_filter", "ruleset_score", "ruleset_normalize_score"),
                  args="ruleset.plugins.rules.args:RULES_ARGS"),
    BuiltinPlugin("DefaultBinder", "ruleset.plugins.default_binder", "DefaultBinder", ("ruleset_bind",)),
)
