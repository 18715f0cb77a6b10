"""DefaultBinder (Bind): binds the pod to the chosen node.

In a snapshot run binding is recording ``spec.nodeName``; the scheduler does that once
Bind succeeds.
"""

from __future__ import annotations

from ruleset.api.pod import Pod
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import Plugin
from ruleset.framework.status import Status
from ruleset.hookspecs import hookimpl


class DefaultBinder(Plugin):
    name = "DefaultBinder"

    @hookimpl
    def ruleset_bind(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        return None
