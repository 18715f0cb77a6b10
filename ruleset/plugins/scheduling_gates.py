"""SchedulingGates (PreEnqueue, Kubernetes 1.26+): a pod that still carries
``spec.schedulingGates`` is kept out of the scheduling queue.

Upstream ``pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go``: the status
is UnschedulableAndUnresolvable ``waiting for scheduling gates: [a b]`` (Go's ``%v`` of the
gate names). With the PodSchedulingReadiness gate off (1.26's default) the plugin lets every
pod through, as the API server would have dropped the field. The gates are removed by an
update to the pod, which a ruleset run never sees: a gated pod stays gated.
"""

from __future__ import annotations

from typing import Any

from ruleset import Handle, Plugin, Status, hookimpl, switch
from ruleset.api.pod import Pod

NAME = "SchedulingGates"

HONOURED = switch(
    "SchedulingGates.pre-enqueue", "1.26",
    "a pod with spec.schedulingGates is not scheduled: PreEnqueue keeps it out of the queue (gated)",
    "pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go", gate="PodSchedulingReadiness")


def gates_message(gates: tuple[str, ...]) -> str:
    """``fmt.Sprintf("waiting for scheduling gates: %v", gates)``."""
    return f"waiting for scheduling gates: [{' '.join(gates)}]"


def _pre_enqueue(pod: Pod) -> Status | None:
    if not pod.scheduling_gates:
        return None
    return Status.unresolvable(gates_message(pod.scheduling_gates))


def _let_through(pod: Pod) -> Status | None:
    return None


class SchedulingGates(Plugin):
    """Keeps pods that still have ``spec.schedulingGates`` out of scheduling (PreEnqueue)."""

    name = NAME
    introduced_in = "1.26"

    def __init__(self, args: Any = None, handle: Handle | None = None):
        super().__init__(args, handle)
        # Read once: the hook itself carries no version check.
        self._check = _pre_enqueue if self.handle.target.has(HONOURED) else _let_through

    @hookimpl
    def ruleset_pre_enqueue(self, pod: Pod) -> Status | None:
        return self._check(pod)
