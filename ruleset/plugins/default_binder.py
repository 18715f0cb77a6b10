"""DefaultBinder (Bind): binds the pod to the chosen node.

In a snapshot run binding is recording ``spec.nodeName``; the scheduler does that once
Bind succeeds.
"""

from __future__ import annotations

from ruleset import CycleState, Plugin, Status, hookimpl
from ruleset.api.pod import Pod


class DefaultBinder(Plugin):
    """Binds the pod to the node the cycle chose, recording its spec.nodeName (Bind)."""

    name = "DefaultBinder"

    @hookimpl
    def ruleset_bind(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        return None
