"""PrioritySort (QueueSort): higher priority first, then the pod that entered the queue first."""

from __future__ import annotations

from ruleset import PRIORITY_ORDER, Plugin, QueuedPodInfo, hookimpl


class PrioritySort(Plugin):
    """Orders the scheduling queue by pod priority, then by arrival (QueueSort)."""

    name = "PrioritySort"
    queue_order = PRIORITY_ORDER  # the queue may compare (-priority, timestamp) keys instead

    @hookimpl
    def ruleset_queue_sort(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1, p2 = a.pod.priority, b.pod.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)
