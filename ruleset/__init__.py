"""ruleset: declarative TOML scheduling profiles assembled into a Kubernetes-exact scheduler.

This module is the public API for plugin authors, the one place it is declared: what a
plugin imports to subclass :class:`Plugin`, implement hooks with :data:`hookimpl`, return
:class:`Status`, :class:`FilterResult` or scores, and read the :class:`NodeSet` view of
the snapshot. Below the framework, plugins also read :mod:`ruleset.api` (the Kubernetes
objects a hook receives), :mod:`ruleset.selector`, :mod:`ruleset.snapshot`,
:mod:`ruleset.labels`, :mod:`ruleset.gofmt`, :mod:`ruleset.kversion` and :mod:`ruleset.errors`. The framework,
scheduler, profile loading, plugin discovery and command line are internal and may move;
built-in plugins import none of them, as a third-party plugin would not.

Names are imported lazily at run time, so that importing the command line stays fast; type
checkers see them directly.
"""

from __future__ import annotations

from ruleset.lazy import lazy_exports

#: ``typing.TYPE_CHECKING`` without importing typing (which alone is a quarter of ``ruleset --version``);
#: type checkers treat any constant of this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ruleset.framework.args import ArgError, arg_field
    from ruleset.framework.cycle_state import CycleState, StateNotFound
    from ruleset.framework.plugin import (
        MAX_NODE_SCORE,
        MAX_TOTAL_SCORE,
        MIN_NODE_SCORE,
        PLUGIN_API_VERSION,
        Handle,
        PerNodeFilter,
        PerNodeScore,
        Plugin,
        ProfileView,
    )
    from ruleset.framework.results import FilterResult, NodeStatuses, PostFilterResult, PreFilterResult
    from ruleset.framework.status import Code, Status
    from ruleset.framework.types import QueuedPodInfo
    from ruleset.framework.waiting import WaitingPod
    from ruleset.hookspecs import hookimpl, hookspec
    from ruleset.kversion import KubeVersion, Switch, Target, switch
    from ruleset.snapshot import NodeInfo, NodeSet, Snapshot

#: Public name -> the module that defines it.
_EXPORTS = {
    "hookimpl": "ruleset.hookspecs",
    "hookspec": "ruleset.hookspecs",
    "Plugin": "ruleset.framework.plugin",
    "PerNodeFilter": "ruleset.framework.plugin",
    "PerNodeScore": "ruleset.framework.plugin",
    "Handle": "ruleset.framework.plugin",
    "MAX_NODE_SCORE": "ruleset.framework.plugin",
    "MIN_NODE_SCORE": "ruleset.framework.plugin",
    "MAX_TOTAL_SCORE": "ruleset.framework.plugin",
    "PLUGIN_API_VERSION": "ruleset.framework.plugin",
    "PRIORITY_ORDER": "ruleset.framework.plugin",
    "OTHER_PODS_IGNORED": "ruleset.framework.plugin",
    "OTHER_PODS_AS_RESOURCES": "ruleset.framework.plugin",
    "OTHER_PODS_ANY": "ruleset.framework.plugin",
    "NodeColumns": "ruleset.framework.dependence",
    "NominatedRoom": "ruleset.framework.dependence",
    "ROOM_PODS": "ruleset.framework.dependence",
    "fast_paths": "ruleset.framework.dependence",
    "reference_path": "ruleset.framework.dependence",
    "ProfileView": "ruleset.framework.plugin",
    "Status": "ruleset.framework.status",
    "Code": "ruleset.framework.status",
    "FilterResult": "ruleset.framework.results",
    "PostFilterResult": "ruleset.framework.results",
    "PreFilterResult": "ruleset.framework.results",
    "NodeStatuses": "ruleset.framework.results",
    "CycleState": "ruleset.framework.cycle_state",
    "StateNotFound": "ruleset.framework.cycle_state",
    "QueuedPodInfo": "ruleset.framework.types",
    "WaitingPod": "ruleset.framework.waiting",
    "ArgError": "ruleset.framework.args",
    "arg_field": "ruleset.framework.args",
    "NodeSet": "ruleset.snapshot",
    "NodeInfo": "ruleset.snapshot",
    "Snapshot": "ruleset.snapshot",
    "KubeVersion": "ruleset.kversion",
    "Switch": "ruleset.kversion",
    "Target": "ruleset.kversion",
    "switch": "ruleset.kversion",
}

__all__ = [
    "MAX_NODE_SCORE", "MAX_TOTAL_SCORE", "MIN_NODE_SCORE", "OTHER_PODS_ANY", "OTHER_PODS_AS_RESOURCES",
    "OTHER_PODS_IGNORED", "PLUGIN_API_VERSION", "PRIORITY_ORDER", "ROOM_PODS", "ArgError", "Code",
    "CycleState", "FilterResult", "Handle", "KubeVersion", "NodeColumns", "NodeInfo", "NodeSet",
    "NodeStatuses", "NominatedRoom", "PerNodeFilter", "PerNodeScore", "Plugin", "PostFilterResult",
    "PreFilterResult", "ProfileView", "QueuedPodInfo", "Snapshot", "StateNotFound", "Status", "Switch",
    "Target", "WaitingPod", "arg_field", "fast_paths", "hookimpl", "hookspec", "reference_path", "switch"
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
