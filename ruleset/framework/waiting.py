"""Pods waiting on Permit: upstream's ``waitingPodsMap`` and ``waitingPod``, in logical time.

A Permit plugin that returns Wait leaves its pod *assumed* on the chosen node (placed in
the snapshot, its resources held) and waiting here until every plugin that asked it to
wait has allowed it, or one plugin rejects it (kube-scheduler v1.20,
``pkg/scheduler/framework/runtime/waiting_pods_map.go``; ``Reject`` takes the plugin's
name as from v1.22). Plugins reach waiting pods through the handle
(:meth:`~ruleset.framework.plugin.Handle.iterate_over_waiting_pods`,
:meth:`~ruleset.framework.plugin.Handle.get_waiting_pod`).

Upstream a waiting pod's binding goroutine blocks on a channel of size one that Allow and
Reject write to without blocking: the first decision wins and later ones are dropped. Here
the decision is recorded on the :class:`WaitingPod` and the scheduling loop acts on it
(binds, or unreserves and forgets the pod) after the hook that decided it returns, in the
order the decisions were made. There is no clock: a Permit timeout is the loop running out
of pods that could make progress (see :mod:`ruleset.scheduler.loop`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ruleset.framework.status import SUCCESS, Code, Status
from ruleset.gofmt import go_quote

if TYPE_CHECKING:
    from ruleset.api.pod import Pod

__all__ = ["WaitingPod", "WaitingPods", "rejected_while_waiting", "timeout_message"]


def timeout_message(plugin: str) -> str:
    """What a waiting pod is rejected with when nothing is left that could allow it and the
    plugin gave no reason with its Wait (upstream's timeout text, without a duration)."""
    return f"rejected due to timeout after waiting at plugin {plugin}"


def rejected_while_waiting(pod: Pod, status: Status) -> Status:
    """``WaitOnPermit``'s outcome for a rejected waiting pod: upstream's wording, the
    rejecting plugin kept."""
    return Status(status.code, (f"pod {go_quote(pod.name)} rejected while waiting on permit: "
                                f"{status.message()}",), status.plugin)


class WaitingPod:
    """A pod assumed on :attr:`node` and waiting on the Permit plugins in :attr:`pending_plugins`."""

    def __init__(self, pod: Pod, node: str, reasons: dict[str, str], owner: WaitingPods):
        self.pod = pod
        self.node = node
        #: Plugin -> the message its Wait status gave ("" for none), in profile order.
        self.reasons = dict(reasons)
        #: Success once every plugin allowed, Unschedulable once one rejected; None while waiting.
        self.outcome: Status | None = None
        #: The record of whoever made the pod wait (the scheduling loop keeps its cycle's result
        #: and queue entry here, so that it lives and dies with the entry); not for plugins.
        self.cycle: object = None
        self._pending = list(reasons)
        self._owner = owner

    def wait_status(self) -> Status:
        """What ``RunPermitPlugins`` returns for a pod it made wait (upstream's message)."""
        return Status(Code.WAIT, (f"one or more plugins asked to wait and no plugin rejected pod "
                                  f"{go_quote(self.pod.name)}",))

    def get_pod(self) -> Pod:
        """``WaitingPod.GetPod``."""
        return self.pod

    @property
    def pending_plugins(self) -> list[str]:
        """``GetPendingPlugins``: the plugins that asked the pod to wait and have not allowed it."""
        return list(self._pending)

    def get_pending_plugins(self) -> list[str]:
        """``WaitingPod.GetPendingPlugins``."""
        return self.pending_plugins

    @property
    def decided(self) -> bool:
        return self.outcome is not None

    def allow(self, plugin: str) -> None:
        """``Allow``: ``plugin`` lets the pod go; the last pending plugin to allow it decides.

        A pod already decided (allowed, or rejected) is left as it is. ``plugin`` must be a
        string: a TypeError is raised in the hook that calls it, which reports it as its error.
        """
        _check_str("allow", "plugin", plugin)
        if self.outcome is not None:
            return
        if plugin in self._pending:
            self._pending.remove(plugin)
        if not self._pending:
            self._decide(SUCCESS)

    def reject(self, plugin: str, message: str) -> None:
        """``Reject``: ``plugin`` declares the pod unschedulable, with ``message``.

        A pod already decided (allowed, or rejected) is left as it is. ``plugin`` and
        ``message`` must be strings: a TypeError is raised in the hook that calls it (which
        reports it as its error) rather than carried to where the loop reports the rejection.
        """
        _check_str("reject", "plugin", plugin)
        _check_str("reject", "message", message)
        if self.outcome is None:
            self._decide(Status(Code.UNSCHEDULABLE, (message,), plugin))

    def _decide(self, outcome: Status) -> None:
        self.outcome = outcome
        self._owner._decided.append(self)

    def __repr__(self) -> str:
        return f"<WaitingPod {self.pod.key} on {self.node}, pending {self._pending}>"


def _check_str(method: str, argument: str, value: object) -> None:
    if not isinstance(value, str):  # Python's own wording; the type's name never fails to print
        raise TypeError(f"WaitingPod.{method}: {argument} must be str, not {type(value).__name__}")


class WaitingPods:
    """The waiting pods of one framework, in the order they started waiting."""

    def __init__(self) -> None:
        self._pods: dict[Pod, WaitingPod] = {}
        self._decided: list[WaitingPod] = []

    def add(self, pod: Pod, node: str, reasons: dict[str, str]) -> WaitingPod:
        """``pod`` waits on ``reasons``' plugins (plugin -> its Wait message)."""
        waiting = WaitingPod(pod, node, reasons, self)
        self._pods[pod] = waiting
        return waiting

    def remove(self, pod: Pod) -> WaitingPod | None:
        """Take ``pod`` out of the waiting pods whatever it was decided (a preemption victim:
        deletion wins); its entry, or None when it was not waiting."""
        return self._pods.pop(pod, None)

    def get(self, uid: str) -> WaitingPod | None:
        """The waiting pod whose ``metadata.uid`` is ``uid``, or None."""
        for waiting in self._pods.values():
            if waiting.pod.meta.uid == uid:
                return waiting
        return None

    def of(self, pod: Pod) -> WaitingPod | None:
        """``pod``'s entry, or None when it is not waiting."""
        return self._pods.get(pod)

    def __iter__(self) -> Iterator[WaitingPod]:
        # A copy: callbacks allow and reject while the loop iterates.
        return iter(list(self._pods.values()))

    def __len__(self) -> int:
        return len(self._pods)

    def take_decided(self) -> WaitingPod | None:
        """The earliest decided pod not yet taken, removed from the map (None: nothing decided)."""
        while self._decided:
            waiting = self._decided.pop(0)
            if self._pods.get(waiting.pod) is waiting:
                del self._pods[waiting.pod]
                return waiting
        return None
