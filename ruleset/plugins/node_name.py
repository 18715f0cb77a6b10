"""NodeName (Filter): a pod with ``spec.nodeName`` fits only that node.

Other nodes get UnschedulableAndUnresolvable "node(s) didn't match the requested hostname"
(v1.20); from 1.21 the text says "node name" (upstream PR #97454: a node's name need not
be its host name).
"""

from __future__ import annotations

from ruleset import (
    OTHER_PODS_IGNORED,
    Code,
    CycleState,
    FilterResult,
    Handle,
    NodeSet,
    Plugin,
    hookimpl,
    switch,
)
from ruleset.api.pod import Pod

ERR_REASON = "node(s) didn't match the requested hostname"
#: The reason from 1.21 on.
ERR_REASON_NODE_NAME = "node(s) didn't match the requested node name"

REASON_NODE_NAME = switch(
    "NodeName.reason-node-name", "1.21",
    f"Filter reason \"{ERR_REASON_NODE_NAME}\" (was \"{ERR_REASON}\")",
    "pkg/scheduler/framework/plugins/nodename/node_name.go")


class NodeName(Plugin):
    """Lets a pod that names a node in spec.nodeName fit only that node (Filter)."""

    name = "NodeName"

    def __init__(self, args: object = None, handle: Handle | None = None):
        super().__init__(args, handle)
        self._reason = ERR_REASON_NODE_NAME if self.handle.target.has(REASON_NODE_NAME) else ERR_REASON

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Its verdicts read the node and the pod only: other pods never change them."""
        return OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        if not pod.node_name:
            return None
        wanted = nodes.snapshot.node_index.get(pod.node_name, -1)
        return FilterResult.reject(nodes.indices != wanted, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self._reason)
