"""The built-in (in-tree) plugins, one module per plugin, registered through the discovery hook."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ruleset.hookspecs import hookimpl

#: module name -> class name, in the order ``ruleset plugins`` lists them.
BUILTIN_PLUGINS: dict[str, str] = {
    "priority_sort": "PrioritySort",
    "node_unschedulable": "NodeUnschedulable",
    "node_name": "NodeName",
    "node_label": "NodeLabel",
    "node_resources_fit": "NodeResourcesFit",
    "node_resources_balanced_allocation": "NodeResourcesBalancedAllocation",
    "node_resources_least_allocated": "NodeResourcesLeastAllocated",
    "node_resources_most_allocated": "NodeResourcesMostAllocated",
    "requested_to_capacity_ratio": "RequestedToCapacityRatio",
    "resource_limits": "NodeResourceLimits",
    "taint_toleration": "TaintToleration",
    "node_affinity": "NodeAffinity",
    "selector_spread": "SelectorSpread",
    "pod_topology_spread": "PodTopologySpread",
    "node_ports": "NodePorts",
    "image_locality": "ImageLocality",
    "node_prefer_avoid_pods": "NodePreferAvoidPods",
    "inter_pod_affinity": "InterPodAffinity",
    "equal_priority": "EqualPriority",
    "default_preemption": "DefaultPreemption",
    "rules": "Rules",
    "default_binder": "DefaultBinder",
}


@hookimpl
def ruleset_register_plugins(register: Callable[[type], None]) -> None:
    for module_name, class_name in BUILTIN_PLUGINS.items():
        try:
            module = importlib.import_module(f"ruleset.plugins.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"ruleset.plugins.{module_name}":
                continue  # not built yet
            raise
        register(getattr(module, class_name))
