"""NodeUnschedulable (Filter): keeps pods off cordoned nodes (``spec.unschedulable``)
unless they tolerate the ``node.kubernetes.io/unschedulable:NoSchedule`` taint.

A rejected node gets UnschedulableAndUnresolvable "node(s) were unschedulable". Upstream's
other reason, "node(s) had unknown conditions", is for a NodeInfo without a Node, which a
snapshot never holds.
"""

from __future__ import annotations

import numpy as np

from ruleset import OTHER_PODS_IGNORED, Code, CycleState, FilterResult, NodeSet, Plugin, Snapshot, hookimpl
from ruleset.api.pod import Pod

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


def _cordoned(snapshot: Snapshot) -> np.ndarray | None:
    """Which nodes are cordoned, or None when none is."""
    column = np.fromiter((node.unschedulable for node in snapshot.nodes), dtype=bool,
                         count=snapshot.num_nodes)
    return column if column.any() else None


class NodeUnschedulable(Plugin):
    """Keeps pods off cordoned nodes unless they tolerate the unschedulable taint (Filter)."""

    name = "NodeUnschedulable"

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Its verdicts read the node and the pod only: other pods never change them."""
        return OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        column = nodes.snapshot.derive(__name__, _cordoned)
        if column is None:
            return None
        if any(t.tolerates(TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule") for t in pod.tolerations):
            return None
        cordoned = nodes.column(column)
        return FilterResult.reject(cordoned, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)
