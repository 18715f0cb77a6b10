"""The scheduling loop: every pending pod, in queue order, until the queue is empty.

Upstream's ``scheduleOne`` loop with its queue and nominator, over one snapshot: pop a
pod, run a scheduling cycle (:mod:`ruleset.scheduler.cycle`), commit a placement or park
the pod, and act on what preemption decided.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from ruleset.api.affinity import satisfies_required_affinity
from ruleset.framework.status import Code
from ruleset.scheduler.cycle import Scheduler
from ruleset.scheduler.queue import SchedulingQueue
from ruleset.snapshot.pdb import record_eviction

if TYPE_CHECKING:
    from ruleset.api.pod import Pod
    from ruleset.config import Profile
    from ruleset.framework.nominator import Nominator
    from ruleset.framework.results import PostFilterResult
    from ruleset.framework.runtime import Framework
    from ruleset.snapshot.state import ClusterState

#: A pod that keeps failing after this many attempts is reported unschedulable for good.
MAX_ATTEMPTS = 32


@dataclass
class Placement:
    """The final outcome for one pending pod."""

    pod: Pod
    node: str | None
    score: int | None = None
    reason: str = ""
    attempts: int = 1


@dataclass
class Event:
    """Something that happened during a run, in order."""

    kind: str
    pod: str
    node: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "pod": self.pod, "node": self.node, **self.detail}


@dataclass
class ScheduleRun:
    """``ruleset schedule``: where every pending pod went, and everything that happened."""

    profile: Profile
    state: ClusterState
    placements: list[Placement] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def nominate_pending(nominator: Nominator, state: ClusterState, exclude: Pod | None = None) -> None:
    """Register pending pods' ``status.nominatedNodeName`` with the nominator."""
    for pod in state.pending:
        node = pod.nominated_node_name
        if pod is exclude or not node or node not in state.snapshot.node_index or pod in state.pod_errors:
            continue
        if pod not in nominator.pods_on(node):
            nominator.add(pod, node)


def schedule_all(framework: Framework, state: ClusterState, seed: int = 0) -> ScheduleRun:
    """Schedule every pending pod in queue order until the queue is empty.

    As kube-scheduler does: a pod that does not fit is parked until a cluster event might
    change that — a pod leaving a node (a preemption victim) wakes every parked pod, a pod
    landing on a node wakes the parked pods whose required pod affinity it satisfies (as
    v1.20's queue does, whatever the profile) and those a plugin's queueing hint says it
    may help. A pod whose PostFilter (preemption) nominated a node goes back to the queue,
    its victims are evicted from the snapshot (and counted against the PDBs covering
    them), lower-priority pods nominated to that node lose their nomination (and are
    woken), and the pod keeps its nomination until it is placed, a later preemption
    nominates another node, or preemption finds that no node could help. A pod that goes
    back to the queue, at once or parked, re-enters it "now" (upstream refreshes its queue
    timestamp), so it queues behind the pods of its priority that were already waiting;
    there is no backoff clock. One placement per pending pod is reported, in the order the
    pods' fates were settled; parked pods left at the end are unschedulable.

    ``framework``'s handle must hold ``state.snapshot``.
    """
    if framework.handle.snapshot is not state.snapshot:
        raise ValueError("the framework's handle holds another snapshot than the state to schedule")
    scheduler = Scheduler(framework, seed=seed)
    queue = SchedulingQueue(framework.queue_less)
    run = ScheduleRun(profile=framework.profile, state=state)
    nominator = framework.handle.nominator
    nominate_pending(nominator, state)
    # A logical clock for re-queued pods: later than every creation timestamp.
    clock = max((p.meta.creation_timestamp or 0.0 for p in state.pending), default=0.0)
    for pod in state.pending:
        error = state.pod_errors.get(pod)
        if error:
            run.placements.append(Placement(pod=pod, node=None, reason=error, attempts=0))
            run.events.append(Event("error", pod.key, detail={"reason": error}))
            continue
        queue.add(pod, pod.meta.creation_timestamp)
    while True:
        info = queue.pop()
        if info is None:
            break
        info.attempts += 1
        pod = info.pod
        result = scheduler.schedule(pod)
        if result.node is not None:
            status = scheduler.commit(result)
            if status.is_success:
                nominator.delete(pod)
                run.placements.append(Placement(pod, result.node, result.score, attempts=info.attempts))
                run.events.append(Event("scheduled", pod.key, result.node,
                                        {"score": result.score, "attempt": info.attempts}))
                queue.activate(partial(_worth_retrying, framework, placed=pod))
                continue
            reason = status.message()
        else:
            reason = result.message or result.status.message()
        if result.status.code == Code.ERROR:
            nominator.delete(pod)
            run.placements.append(Placement(pod, None, reason=reason, attempts=info.attempts))
            run.events.append(Event("error", pod.key, detail={"reason": reason, "attempt": info.attempts}))
            continue
        info.last_failure = reason
        run.events.append(Event("unschedulable", pod.key,
                                detail={"reason": reason, "attempt": info.attempts}))
        post = result.post_filter
        clock += 1.0
        info.timestamp = clock
        if post is not None and post.nominated_node and info.attempts < MAX_ATTEMPTS:
            _preempt(run, scheduler, queue, pod, post)
            queue.push(info)
            continue
        if info.attempts >= MAX_ATTEMPTS or getattr(post and post.details, "clear_nomination", False):
            nominator.delete(pod)
        queue.park(info)
    for info in queue.unschedulable.values():
        run.placements.append(Placement(info.pod, None, reason=info.last_failure, attempts=info.attempts))
    return run


def _worth_retrying(framework: Framework, waiting: Pod, placed: Pod) -> bool:
    """``AssignedPodAdded``: v1.20's queue retries the parked pods whose required pod affinity
    the placed pod satisfies, whatever the profile; a plugin's queueing hint may add more."""
    return satisfies_required_affinity(waiting, placed) or framework.worth_retrying(waiting, placed)


def _preempt(run: ScheduleRun, scheduler: Scheduler, queue: SchedulingQueue, pod: Pod,
             post: PostFilterResult) -> None:
    """``PrepareCandidate``: evict the victims (spending the budgets of the PDBs covering
    them), clear lower-priority nominations on the node (waking those pods), and nominate
    the preemptor."""
    node = post.nominated_node
    assert node is not None
    report = post.details
    victims = list(getattr(report, "victims", []) or [])
    nominator = scheduler.framework.handle.nominator
    run.events.append(Event("preemption", pod.key, node, {
        "victims": [v.key for v in victims],
        "reason": getattr(report, "why", ""),
        "candidates": [c.to_json() for c in getattr(report, "candidates", [])],
    }))
    for victim in victims:
        record_eviction(scheduler.snapshot, victim)
        scheduler.snapshot.remove_pod(victim)
        run.events.append(Event("evicted", victim.key, node, {"by": pod.key}))
    cleared = []
    for other in nominator.pods_on(node):
        if other.priority < pod.priority and other is not pod:
            nominator.delete(other)
            cleared.append(other)
    nominator.add(pod, node)
    if victims:
        queue.activate()  # a pod left a node: anything parked may fit now
    elif cleared:
        queue.activate(lambda waiting: any(waiting is other for other in cleared))  # their status changed
