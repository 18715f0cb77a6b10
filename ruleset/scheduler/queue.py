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


class SchedulingQueue:
    """An active heap ordered by ``less``, plus the pods parked as unschedulable."""

    def __init__(self, less: Callable[[QueuedPodInfo, QueuedPodInfo], bool]):
        self._less = less
        self._heap: list[_Entry] = []
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
        heapq.heappush(self._heap, _Entry(info, self._less))

    def pop(self) -> QueuedPodInfo | None:
        if not self._heap:
            return None
        return heapq.heappop(self._heap).info

    def __len__(self) -> int:
        return len(self._heap)

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
