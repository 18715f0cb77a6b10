"""PrioritySort (QueueSort): higher priority first, then the pod that entered the queue first."""

from __future__ import annotations

from ruleset.framework.plugin import Plugin
from ruleset.framework.types import QueuedPodInfo
from ruleset.hookspecs import hookimpl


class PrioritySort(Plugin):
    name = "PrioritySort"

    @hookimpl
    def ruleset_queue_sort(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1, p2 = a.pod.priority, b.pod.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)
