"""NodeUnschedulable (Filter): keeps pods off cordoned nodes (``spec.unschedulable``)
unless they tolerate the ``node.kubernetes.io/unschedulable:NoSchedule`` taint."""

from __future__ import annotations

import numpy as np

from ruleset.api.pod import Pod
from ruleset.framework.plugin import Plugin
from ruleset.framework.results import FilterResult
from ruleset.framework.status import Code
from ruleset.hookspecs import hookimpl
from ruleset.snapshot import NodeSet

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


class NodeUnschedulable(Plugin):
    name = "NodeUnschedulable"

    @hookimpl
    def ruleset_filter(self, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        if any(t.tolerates(TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule") for t in pod.tolerations):
            return None
        cordoned = np.fromiter((node.unschedulable for node in nodes.nodes), dtype=bool, count=len(nodes))
        return FilterResult.reject(cordoned, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)
