"""NodeName (Filter): a pod with ``spec.nodeName`` fits only that node.

Other nodes get UnschedulableAndUnresolvable "node(s) didn't match the requested hostname".
"""

from __future__ import annotations

from ruleset import Code, FilterResult, NodeSet, Plugin, hookimpl
from ruleset.api.pod import Pod

ERR_REASON = "node(s) didn't match the requested hostname"


class NodeName(Plugin):
    """Lets a pod that names a node in spec.nodeName fit only that node (Filter)."""

    name = "NodeName"

    @hookimpl
    def ruleset_filter(self, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        if not pod.node_name:
            return None
        wanted = nodes.snapshot.node_index.get(pod.node_name, -1)
        return FilterResult.reject(nodes.indices != wanted, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)
