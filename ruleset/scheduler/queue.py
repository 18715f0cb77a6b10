"""The scheduling queue: pending pods ordered by the profile's QueueSort plugin."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable

from ruleset.api.pod import Pod
from ruleset.framework.types import QueuedPodInfo

__all__ = ["QueuedPodInfo", "SchedulingQueue"]


class _Entry:
    __slots__ = ("info", "less")

    def __init__(self, info: QueuedPodInfo, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]):
        self.info = info
        self.less = less

    def __lt__(self, other: _Entry) -> bool:
        if self.less(self.info, other.info):
            return True
        if self.less(other.info, self.info):
            return False
        # Upstream's heap order between equal pods is arbitrary; input order keeps runs reproducible.
        return self.info.sequence < other.info.sequence


def _is_builtin_priority_sort(less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]) -> bool:
    """Whether ``less`` is a framework's ``queue_less`` over a QueueSort that declares PrioritySort's
    order (:attr:`ruleset.Plugin.queue_order`): then the order is a plain key."""
    from ruleset.framework.plugin import PRIORITY_ORDER
    from ruleset.framework.runtime import Framework

    framework = getattr(less, "__self__", None)
    if getattr(less, "__func__", None) is not Framework.queue_less or not isinstance(framework, Framework):
        return False
    return framework.queue_order() == PRIORITY_ORDER


#: A heap entry ordered by PrioritySort as a key: (-priority, timestamp, sequence, info).
_Keyed = tuple[int, float, int, QueuedPodInfo]


class SchedulingQueue:
    """An active heap ordered by ``less``, plus the pods parked as unschedulable.

    With the built-in PrioritySort the heap holds ``(-priority, timestamp, sequence, info)``
    tuples, compared in C: the same order as ``less`` then ``sequence`` (higher priority, then
    earlier timestamp, then input order; sequences are unique, so ``info`` is never compared),
    without two Python calls per comparison. Any other QueueSort plugin goes through ``less``.
    """

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]):
        self._less = less
        self._heap: list[_Entry] = []
        self._keyed_heap: list[_Keyed] | None = [] if _is_builtin_priority_sort(less) else None
        self._sequence = 0
        self.unschedulable: dict[Pod, QueuedPodInfo] = {}

    def add(self, pod: Pod, timestamp: float | None = None) -> QueuedPodInfo:
        info = QueuedPodInfo(pod=pod, timestamp=timestamp if timestamp is not None else 0.0,
                             sequence=self._sequence)
        self._sequence += 1
        self.push(info)
        return info

    def add_all(self, pods: Iterable[Pod]) -> None:
        for pod in pods:
            self.add(pod, pod.meta.creation_timestamp)

    def push(self, info: QueuedPodInfo) -> None:
        keyed = self._keyed_heap
        if keyed is not None:
            priority, timestamp = info.pod.priority, info.timestamp
            # A NaN timestamp (never decoded from a manifest) has no place in a key order.
            if type(priority) is int and type(timestamp) in (float, int) and timestamp == timestamp:
                heapq.heappush(keyed, (-priority, timestamp, info.sequence, info))
                return
            self._use_less()
        heapq.heappush(self._heap, _Entry(info, self._less))

    def _use_less(self) -> None:
        """Order by ``less`` from now on (the keyed entries move over; same order)."""
        assert self._keyed_heap is not None
        self._heap = [_Entry(entry[3], self._less) for entry in self._keyed_heap]
        heapq.heapify(self._heap)
        self._keyed_heap = None

    def pop(self) -> QueuedPodInfo | None:
        keyed = self._keyed_heap
        if keyed is not None:
            return heapq.heappop(keyed)[3] if keyed else None
        if not self._heap:
            return None
        return heapq.heappop(self._heap).info

    def __len__(self) -> int:
        return len(self._keyed_heap) if self._keyed_heap is not None else len(self._heap)

    def park(self, info: QueuedPodInfo) -> None:
        """Keep an unschedulable pod until a cluster event might make it fit."""
        self.unschedulable[info.pod] = info

    def activate(self, predicate: Callable[[Pod], bool] = lambda pod: True) -> int:
        """Move parked pods matching ``predicate`` back to the active heap; returns how many."""
        moved = [info for pod, info in self.unschedulable.items() if predicate(pod)]
        for info in moved:
            del self.unschedulable[info.pod]
            self.push(info)
        return len(moved)
