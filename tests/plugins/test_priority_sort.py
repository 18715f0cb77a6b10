"""Ported from ``pkg/scheduler/framework/plugins/queuesort/priority_sort_test.go`` (v1.20).

* TestLess: all 4 cases. Priorities come from ``spec.priority`` (``corev1helpers.PodPriority``);
  timestamps are the queue-entry times (zero in the first two cases, as upstream leaves them).

Plus ruleset checks: a pod without a priority counts as 0, PrioritySort is the QueueSort
a profile gets by default, and the scheduling queue pops pods in its order.
"""

import pytest

from ruleset.api.pod import Pod
from ruleset.plugins.priority_sort import PrioritySort
from ruleset.scheduler.queue import QueuedPodInfo, SchedulingQueue
from tests.factories import decode, make_framework, make_pod

LOW_PRIORITY, HIGH_PRIORITY = 10, 100
T1 = 1_600_000_000.0  # any instant; t2 is one second later, as upstream's t1.Add(time.Second)
T2 = T1 + 1.0


def pod(priority: int | None, name: str = "pod") -> Pod:
    return decode(make_pod(name, priority=priority))


def queued(priority: int | None, timestamp: float = 0.0, sequence: int = 0) -> QueuedPodInfo:
    return QueuedPodInfo(pod=pod(priority), timestamp=timestamp, sequence=sequence)


@pytest.mark.parametrize(("p1", "p2", "expected"), [
    pytest.param(queued(LOW_PRIORITY), queued(HIGH_PRIORITY), False, id="p1.priority less than p2.priority"),
    pytest.param(queued(HIGH_PRIORITY), queued(LOW_PRIORITY), True,
                 id="p1.priority greater than p2.priority"),
    pytest.param(queued(HIGH_PRIORITY, T1), queued(HIGH_PRIORITY, T2), True,
                 id="equal priority. p1 is added to schedulingQ earlier than p2"),
    pytest.param(queued(HIGH_PRIORITY, T2), queued(HIGH_PRIORITY, T1), False,
                 id="equal priority. p2 is added to schedulingQ earlier than p1"),
])
def test_less(p1: QueuedPodInfo, p2: QueuedPodInfo, expected: bool) -> None:
    assert PrioritySort().ruleset_queue_sort(p1, p2) is expected


def test_equal_priority_and_timestamp_is_not_less_either_way() -> None:
    a, b = queued(HIGH_PRIORITY, T1), queued(HIGH_PRIORITY, T1)
    assert PrioritySort().ruleset_queue_sort(a, b) is False
    assert PrioritySort().ruleset_queue_sort(b, a) is False


def test_missing_priority_is_zero() -> None:
    assert PrioritySort().ruleset_queue_sort(queued(None), queued(-1)) is True
    assert PrioritySort().ruleset_queue_sort(queued(None), queued(1)) is False


def test_default_queue_sort_orders_the_queue() -> None:
    framework = make_framework([])
    assert [s.plugin for s in framework.tables["ruleset_queue_sort"]] == ["PrioritySort"]
    queue = SchedulingQueue(framework.queue_less)
    pods = {name: decode(make_pod(name, priority=prio)) for name, prio in
            (("late-high", 100), ("early-low", 10), ("early-high", 100), ("none", None))}
    queue.add(pods["late-high"], T2)
    queue.add(pods["early-low"], T1)
    queue.add(pods["early-high"], T1)
    queue.add(pods["none"], T1)
    order = [queue.pop().pod.name for _ in range(4)]
    assert order == ["early-high", "late-high", "early-low", "none"]
