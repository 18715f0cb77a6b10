"""The scheduling queue's keyed heap (built-in PrioritySort) pops in exactly the order of the
generic heap that calls the QueueSort plugin through the framework; any other QueueSort plugin
(a subclass included) keeps the generic heap. ruleset's own optimisation: no upstream table.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from ruleset.api.pod import Pod
from ruleset.framework.types import QueuedPodInfo
from ruleset.scheduler import queue as queue_module
from ruleset.scheduler.queue import SchedulingQueue
from tests.factories import decode, make_framework, make_pod


def _pods(rng: random.Random, count: int) -> list[Pod]:
    return [decode(make_pod(f"p{i}", priority=rng.choice([None, -5, 0, 10, 10, 100, 2**31 - 1])))
            for i in range(count)]


def _drive(queue: SchedulingQueue, pods: list[Pod], rng: random.Random, timestamps: list[Any]) -> list[str]:
    """Adds, pops and re-pushes (as the loop re-queues a pod at a later clock), all seeded."""
    popped: list[str] = []
    infos: list[QueuedPodInfo] = []
    for pod in pods:
        infos.append(queue.add(pod, rng.choice(timestamps)))
        if rng.random() < 0.3:
            info = queue.pop()
            assert info is not None
            popped.append(info.pod.name)
            if rng.random() < 0.5:
                info.timestamp = rng.choice(timestamps)
                queue.push(info)
    while (info := queue.pop()) is not None:
        popped.append(info.pod.name)
    assert len(queue) == 0
    return popped


@pytest.mark.parametrize("seed", range(8), ids=lambda s: f"seed{s}")
def test_keyed_heap_pops_as_the_generic_one(seed: int) -> None:
    framework = make_framework([])
    timestamps = [0.0, 0, 1.5, 1.5, 2.0, 1_600_000_000.0]
    keyed = SchedulingQueue(framework.queue_less)
    assert keyed._keyed_heap is not None
    generic = SchedulingQueue(lambda a, b: framework.queue_less(a, b))  # not recognised: generic
    assert generic._keyed_heap is None
    pods = _pods(random.Random(seed), 60)
    assert _drive(keyed, pods, random.Random(seed), timestamps) == _drive(
        generic, pods, random.Random(seed), timestamps)


def test_a_nan_timestamp_moves_the_queue_to_the_generic_heap() -> None:
    framework = make_framework([])
    queue = SchedulingQueue(framework.queue_less)
    pods = _pods(random.Random(3), 5)
    for i, pod in enumerate(pods[:4]):
        queue.add(pod, float(i))
    queue.add(pods[4], float("nan"))
    assert queue._keyed_heap is None and len(queue) == 5
    first = queue.pop()
    assert first is not None


def test_a_subclassed_priority_sort_keeps_the_generic_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    from ruleset.plugins.priority_sort import PrioritySort

    class Reversed(PrioritySort):
        def ruleset_queue_sort(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
            return a.pod.priority < b.pod.priority

    framework = make_framework([])
    step = framework.tables["ruleset_queue_sort"][0]
    monkeypatch.setattr(step, "function", Reversed().ruleset_queue_sort)
    assert not queue_module._is_builtin_priority_sort(framework.queue_less)
    queue = SchedulingQueue(framework.queue_less)
    for name, priority in (("low", 1), ("high", 9)):
        queue.add(decode(make_pod(name, priority=priority)), 0.0)
    assert [queue.pop().pod.name for _ in range(2)] == ["low", "high"]  # type: ignore[union-attr]
