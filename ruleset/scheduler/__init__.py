"""Scheduling: the cycle for one pod, the queue, and the loop that runs them over a snapshot.

* :mod:`ruleset.scheduler.cycle` — one scheduling cycle (:class:`Scheduler`);
* :mod:`ruleset.scheduler.queue` — the scheduling queue, ordered by the QueueSort plugin;
* :mod:`ruleset.scheduler.loop` — every pending pod to completion (:func:`schedule_all`).
"""

from ruleset.scheduler.cycle import (
    MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
    MIN_FEASIBLE_NODES_TO_FIND,
    NO_NODES_AVAILABLE,
    Scheduler,
    ScheduleResult,
    num_feasible_nodes_to_find,
)
from ruleset.scheduler.loop import MAX_ATTEMPTS, Event, Placement, ScheduleRun, nominate_pending, schedule_all
from ruleset.scheduler.queue import SchedulingQueue

__all__ = [
    "MAX_ATTEMPTS",
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "NO_NODES_AVAILABLE",
    "Event",
    "Placement",
    "ScheduleResult",
    "ScheduleRun",
    "Scheduler",
    "SchedulingQueue",
    "nominate_pending",
    "num_feasible_nodes_to_find",
    "schedule_all",
]
