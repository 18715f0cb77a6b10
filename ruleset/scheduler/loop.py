"""The scheduling loop: every pending pod, in queue order, until the queue is empty.

Upstream's ``scheduleOne`` loop with its queue and nominator, over one snapshot: pop a
pod, run a scheduling cycle (:mod:`ruleset.scheduler.cycle`), commit a placement or park
the pod, and act on what preemption decided.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from ruleset.api.affinity import NAMESPACE_SELECTOR, satisfies_required_affinity
from ruleset.framework.status import Code, Status
from ruleset.framework.waiting import rejected_while_waiting, timeout_message
from ruleset.scheduler.cycle import Scheduler, ScheduleResult
from ruleset.scheduler.queue import SchedulingQueue
from ruleset.snapshot.pdb import record_eviction

if TYPE_CHECKING:
    from ruleset.api.pod import Pod
    from ruleset.config import Profile
    from ruleset.framework.nominator import Nominator
    from ruleset.framework.results import PostFilterResult
    from ruleset.framework.runtime import Framework
    from ruleset.framework.types import QueuedPodInfo
    from ruleset.framework.waiting import WaitingPod, WaitingPods
    from ruleset.snapshot.state import ClusterState

#: A pod that keeps failing after this many attempts is reported unschedulable for good.
MAX_ATTEMPTS = 32
#: What a waiting preemption victim is rejected with (v1.20's ``PrepareCandidate``).
_PREEMPTED = Status(Code.UNSCHEDULABLE, ("preempted",))


@dataclass
class Placement:
    """The final outcome for one pending pod."""

    pod: Pod
    node: str | None
    score: int | None = None
    reason: str = ""
    attempts: int = 1
    #: The plugin Error that ended the pod's attempts (``reason`` is its message), if one did.
    error: Status | None = None
    #: The name of the profile that scheduled the pod (None when no given profile serves it).
    profile: str | None = None
    #: Whether no given profile serves the pod's ``spec.schedulerName`` (it is left alone).
    unserved: bool = False
    #: Whether a PreEnqueue plugin kept the pod out of the queue (scheduling gates): it waits
    #: for something outside the scheduler, it is not unschedulable.
    gated: bool = False


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
    #: Every profile of the run, in the order given (the first is :attr:`profile`).
    profiles: list[Profile] = field(default_factory=list)


def nominate_pending(nominator: Nominator, state: ClusterState, exclude: Pod | None = None) -> None:
    """Register pending pods' ``status.nominatedNodeName`` with the nominator."""
    for pod in state.pending:
        node = pod.nominated_node_name
        if pod is exclude or not node or node not in state.snapshot.node_index or pod in state.pod_errors:
            continue
        if pod not in nominator.pods_on(node):
            nominator.add(pod, node)


def schedule_all(framework: Framework | Sequence[Framework], state: ClusterState, seed: int = 0,
                 on_settled: Callable[[int], None] | None = None, *,
                 record: Callable[[Pod, ScheduleResult], None] | None = None,
                 stop_before: Callable[[Pod, int, Scheduler], bool] | None = None) -> ScheduleRun:
    """Schedule every pending pod in queue order until the queue is empty.

    With several frameworks (profiles), each pod is scheduled by the one whose profile
    serves its ``spec.schedulerName``, as kube-scheduler runs its profiles: one queue (the
    profiles share their QueueSort), one nominator, one snapshot; each profile keeps its own
    pods waiting on Permit. A pod asking for a scheduler no profile serves is left alone,
    reported unserved (on a real cluster another scheduler, or none, would take it). Two
    frameworks serving one name are a ``ValueError`` (the caller checks profiles first).
    ``on_settled(n)`` is called with the number of pods whose fate was settled, as it grows
    (progress). ``record(pod, result)``, when given, is called after every scheduling cycle's
    algorithm part (:meth:`Scheduler.schedule`) with its result, score table included, for
    reports; without it nothing is kept.

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

    A pod a Permit plugin makes wait stays assumed on its node (placed in the snapshot,
    its resources held, its nomination dropped) among the handle's waiting pods; plugins
    allow or reject it through the handle. After each attempt the loop settles the waiting
    pods decided meanwhile, in the order they were decided: an allowed pod binds (PreBind,
    Bind, PostBind), so the pod whose Permit allowed others binds first, then they do, in
    the order they were allowed; a rejected pod is unreserved, taken off its node and
    parked, reported ``pod "p" rejected while waiting on permit: <message>``. Taking a
    waiting pod off its node wakes every parked pod (it freed room, as kube-scheduler
    treats it from v1.22). When the queue is empty while pods still wait, nothing left
    could allow them, and that is their timeout: the pod that started waiting last is
    rejected by the first plugin it waits on, with the message that plugin's Wait gave
    (upstream's timeout text when it gave none), its Unreserve runs (a plugin may reject
    others of its group there), and so on, newest first, until no pod waits; those pods
    are unschedulable for good, and the parked pods they woke are tried again. A waiting
    pod chosen as a preemption victim is deleted, whatever was decided for it: it leaves
    the waiting pods, is unreserved and taken off its node at once, and is reported
    rejected while waiting (``preempted``, v1.20's message); it is not tried again.

    Each framework's handle must hold ``state.snapshot`` and share one nominator.

    ``stop_before(pod, attempt, scheduler)`` (``explain --in-run``) is asked before each
    scheduling cycle (``attempt`` counts the pod's cycles from 1, ``scheduler`` is the one that
    would run it); when it returns true the run ends there, that cycle not run: the snapshot,
    nominator and queue stay as they were, and the result holds what was settled so far.
    """
    frameworks = [framework] if not isinstance(framework, Sequence) else list(framework)
    if not frameworks:
        raise ValueError("no framework to schedule with")
    for fw in frameworks:
        if fw.handle.snapshot is not state.snapshot:
            raise ValueError("the framework's handle holds another snapshot than the state to schedule")
        if fw.handle.nominator is not frameworks[0].handle.nominator:
            raise ValueError("the frameworks' handles must share one nominator")
    names = [fw.profile.scheduler_name for fw in frameworks]
    if len(set(names)) != len(names):
        raise ValueError(f"two profiles serve one schedulerName: {names}")
    loop = _Loop(frameworks, state, seed, on_settled)
    loop.record = record
    loop.stop_before = stop_before
    with _cluster_frozen():
        loop.run()
    return loop.result


@contextlib.contextmanager
def _cluster_frozen() -> Iterator[None]:
    """The objects alive when the run starts (the cluster: nodes, pods, their requests and
    terms) kept out of the cyclic collector's way during the run: it allocates enough for a
    full collection or two, each traversing every one of them (≈ 7 % of a SchedulingBasic run
    at 5,000 nodes) to free none. Thawed at the end, they stay collectable. Not when something
    else has frozen objects (``gc.unfreeze`` would thaw those too)."""
    if gc.get_freeze_count() != 0 or not gc.isenabled():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@dataclass
class _Waiting:
    """A pod waiting on Permit: its cycle's result (node, state, score) and its queue entry,
    kept on its entry among the handle's waiting pods (:attr:`WaitingPod.cycle`)."""

    result: ScheduleResult
    info: QueuedPodInfo
    #: When the pod started waiting, across profiles (the newest times out first).
    sequence: int = 0


def unserved_reason(scheduler_name: str) -> str:
    """Why a pod no given profile serves is not scheduled."""
    return f"no profile serves schedulerName {scheduler_name!r}"


class _Loop:
    """One run of :func:`schedule_all`."""

    def __init__(self, frameworks: list[Framework], state: ClusterState, seed: int,
                 on_settled: Callable[[int], None] | None):
        self.frameworks = {fw.profile.scheduler_name: fw for fw in frameworks}
        self.schedulers = {name: Scheduler(fw, seed=seed) for name, fw in self.frameworks.items()}
        # Whether each profile's release reads namespaceSelector when a landed pod wakes parked ones.
        self.namespace_selector = {name: fw.profile.target.has(NAMESPACE_SELECTOR)
                                   for name, fw in self.frameworks.items()}
        self.state = state
        self.queue = SchedulingQueue(frameworks[0].queue_less)
        self.result = ScheduleRun(profile=frameworks[0].profile, state=state,
                                  profiles=[fw.profile for fw in frameworks])
        self.nominator = frameworks[0].handle.nominator
        self.on_settled = on_settled
        self.record: Callable[[Pod, ScheduleResult], None] | None = None
        self.stop_before: Callable[[Pod, int, Scheduler], bool] | None = None
        self.started_waiting = 0
        # A logical clock for re-queued pods: later than every creation timestamp.
        self.clock = max((p.meta.creation_timestamp or 0.0 for p in state.pending), default=0.0)

    def framework(self, pod: Pod) -> Framework:
        return self.frameworks[pod.scheduler_name]

    def scheduler(self, pod: Pod) -> Scheduler:
        return self.schedulers[pod.scheduler_name]

    def waiting(self, pod: Pod) -> WaitingPods:
        """The pods waiting on Permit in ``pod``'s profile: its handle's, the one record of them
        (each entry's ``cycle`` is the loop's :class:`_Waiting`)."""
        return self.framework(pod).handle.waiting_pods

    def _any_waiting(self) -> bool:
        return any(len(fw.handle.waiting_pods) for fw in self.frameworks.values())

    def _place(self, placement: Placement) -> None:
        if placement.profile is None and not placement.unserved:
            placement.profile = self.frameworks[placement.pod.scheduler_name].profile.name
        self.result.placements.append(placement)
        if self.on_settled is not None:
            self.on_settled(len(self.result.placements))

    def run(self) -> None:
        state, run, queue = self.state, self.result, self.queue
        nominate_pending(self.nominator, state)
        for fw in self.frameworks.values():
            fw.handle.pending_pods = state.schedulable
        for pod in state.pending:
            error = state.pod_errors.get(pod)
            if pod.scheduler_name not in self.frameworks:
                self.nominator.delete(pod)  # upstream's queue never sees pods of other schedulers
                reason = unserved_reason(pod.scheduler_name)
                self._place(Placement(pod=pod, node=None, reason=reason, attempts=0, unserved=True))
                run.events.append(Event("unserved", pod.key, detail={"reason": reason,
                                                                     "schedulerName": pod.scheduler_name}))
                continue
            if error:
                self._place(Placement(pod=pod, node=None, reason=error, attempts=0))
                run.events.append(Event("error", pod.key, detail={"reason": error}))
                continue
            gate = self.framework(pod).run_pre_enqueue(pod)
            if not gate.is_success:
                # Never enters the active queue: nothing lifts a gate during a run.
                self.nominator.delete(pod)
                reason, failed = gate.message(), gate.code == Code.ERROR
                self._place(Placement(pod=pod, node=None, reason=reason, attempts=0, gated=not failed,
                                      error=gate if failed else None))
                run.events.append(Event("error" if failed else "gated", pod.key,
                                        detail={"reason": reason, "plugin": gate.plugin}))
                continue
            queue.add(pod, pod.meta.creation_timestamp)
        while True:
            info = queue.pop()
            if info is None:
                if not self._any_waiting():
                    break
                self._time_out()
                continue
            if self.stop_before is not None and self.stop_before(info.pod, info.attempts + 1,
                                                                 self.scheduler(info.pod)):
                return
            self._attempt(info)
            self._settle(final=False)
        for info in queue.unschedulable.values():
            self._place(Placement(info.pod, None, reason=info.last_failure, attempts=info.attempts))

    def _attempt(self, info: QueuedPodInfo) -> None:
        """One scheduling cycle of ``info``'s pod, and its binding cycle unless it waits."""
        run, queue, nominator = self.result, self.queue, self.nominator
        info.attempts += 1
        pod = info.pod
        scheduler = self.scheduler(pod)
        result = scheduler.schedule(pod)
        if self.record is not None:
            self.record(pod, result)
        if result.node is not None:
            status = scheduler.reserve_and_permit(result)
            if status.code == Code.WAIT:
                nominator.delete(pod)  # upstream's assume drops the nomination
                entry = self.waiting(pod).of(pod)
                assert entry is not None  # Permit's Wait added it
                self.started_waiting += 1
                entry.cycle = _Waiting(result, info, self.started_waiting)
                run.events.append(Event("waiting", pod.key, result.node, {
                    "plugins": entry.pending_plugins, "attempt": info.attempts}))
                return
            if status.is_success:
                assert result.state is not None
                status = scheduler.bind(result.state, pod, result.node)
            if status.is_success:
                self._scheduled(info, result)
                return
            reason = status.message()
        else:
            reason = result.message or result.status.message()
            status = result.status
        if status.code == Code.ERROR:  # of the cycle, or of Reserve … Bind: the pod fails, the run goes on
            nominator.delete(pod)
            self._place(Placement(pod, None, reason=reason, attempts=info.attempts, error=status))
            run.events.append(Event("error", pod.key, detail={"reason": reason, "attempt": info.attempts,
                                                              "error": status.to_json()}))
            return
        info.last_failure = reason
        run.events.append(Event("unschedulable", pod.key,
                                detail={"reason": reason, "attempt": info.attempts,
                                        **_post_filter_error(result.post_filter)}))
        post = result.post_filter
        self.clock += 1.0
        info.timestamp = self.clock
        if post is not None and post.nominated_node and info.attempts < MAX_ATTEMPTS:
            self._preempt(pod, post)
            queue.push(info)
            return
        if info.attempts >= MAX_ATTEMPTS or (post is not None and post.report.clear_nomination):
            nominator.delete(pod)
        queue.park(info)

    def _scheduled(self, info: QueuedPodInfo, result: ScheduleResult) -> None:
        pod = info.pod
        self.nominator.delete(pod)
        self._place(Placement(pod, result.node, result.score, attempts=info.attempts))
        self.result.events.append(Event("scheduled", pod.key, result.node,
                                        {"score": result.score, "attempt": info.attempts}))
        # Each parked pod is asked of by its own profile's queueing hints.
        self.queue.activate(partial(_worth_retrying, self.frameworks, self.namespace_selector, placed=pod))

    def _settle(self, final: bool) -> None:
        """Bind the waiting pods allowed since the last call, and unreserve and forget the
        rejected ones, in the order they were decided (settling one may decide others), profile
        by profile until none has a decided pod left."""
        while (decided := self._take_decided()) is not None:
            pod, waiting = decided.pod, decided.cycle
            assert isinstance(waiting, _Waiting)
            result, info = waiting.result, waiting.info
            assert result.node is not None and result.state is not None and decided.outcome is not None
            if decided.outcome.is_success:
                status = self.scheduler(pod).bind(result.state, pod, result.node)
                if status.is_success:
                    self._scheduled(info, result)
                    continue
            else:
                self.scheduler(pod).forget(result.state, pod, result.node)
                status = rejected_while_waiting(pod, decided.outcome)
            self.queue.activate()  # the pod held room on its node while it waited: it is free now
            self._not_bound(info, status, final)

    def _take_decided(self) -> WaitingPod | None:
        for fw in self.frameworks.values():
            decided = fw.handle.waiting_pods.take_decided()
            if decided is not None:
                return decided
        return None

    def _not_bound(self, info: QueuedPodInfo, status: Status, final: bool) -> None:
        """A waiting pod rejected, or failing to bind once allowed: reported now when the
        run is timing waiting pods out (or the pod has used up its attempts), else parked."""
        pod, run, reason = info.pod, self.result, status.message()
        if status.code == Code.ERROR:
            self._place(Placement(pod, None, reason=reason, attempts=info.attempts, error=status))
            run.events.append(Event("error", pod.key, detail={"reason": reason, "attempt": info.attempts,
                                                              "error": status.to_json()}))
            return
        run.events.append(Event("unschedulable", pod.key,
                                detail={"reason": reason, "attempt": info.attempts}))
        if final or info.attempts >= MAX_ATTEMPTS:
            self._place(Placement(pod, None, reason=reason, attempts=info.attempts))
            return
        info.last_failure = reason
        self.clock += 1.0
        info.timestamp = self.clock
        self.queue.park(info)

    def _time_out(self) -> None:
        """Nothing left in the queue could allow the waiting pods: reject them, newest first,
        each by the first plugin it waits on, settling after each (Unreserve may reject others)."""
        while True:
            undecided = [w for fw in self.frameworks.values() for w in fw.handle.waiting_pods
                         if not w.decided]
            if not undecided:
                return
            newest = max(undecided, key=lambda w: w.cycle.sequence if isinstance(w.cycle, _Waiting) else 0)
            plugin = newest.pending_plugins[0]
            newest.reject(plugin, newest.reasons[plugin] or timeout_message(plugin))
            self._settle(final=True)

    def _preempt(self, pod: Pod, post: PostFilterResult) -> None:
        """``PrepareCandidate``: evict the victims (spending the budgets of the PDBs covering
        them), clear lower-priority nominations on the node (waking those pods), and nominate
        the preemptor. A victim waiting on Permit is deleted whatever was decided for it (as
        upstream, where the deletion wins): it leaves the waiting pods, is unreserved, taken
        off its node and reported now. What is read of the plugin's report was checked in its
        boundary (:attr:`PostFilterResult.report`)."""
        run, scheduler, queue, nominator = self.result, self.scheduler(pod), self.queue, self.nominator
        node, report = post.nominated_node, post.report
        assert node is not None
        victims = report.victims
        detail = {"victims": [v.key for v in victims], "reason": report.why,
                  "candidateCount": report.candidate_count}
        if scheduler.framework.post_filter_details:
            detail["candidates"] = list(report.candidates)
        run.events.append(Event("preemption", pod.key, node, detail))
        for victim in victims:
            record_eviction(scheduler.snapshot, victim)
            run.events.append(Event("evicted", victim.key, node, {"by": pod.key}))
            entry = self.waiting(victim).remove(victim) if victim.scheduler_name in self.frameworks else None
            if entry is None:
                scheduler.snapshot.remove_pod(victim)
                continue
            waiting = entry.cycle
            assert isinstance(waiting, _Waiting) and waiting.result.state is not None
            self.scheduler(victim).forget(waiting.result.state, victim, entry.node)
            self._not_bound(waiting.info, rejected_while_waiting(victim, _PREEMPTED), final=True)
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


def _post_filter_error(post: PostFilterResult | None) -> dict[str, Any]:
    """``{"error": <the plugin's error object>}`` when PostFilter failed with an Error (the pod
    stays unschedulable, as upstream's does: the error is only reported), else nothing."""
    if post is None or post.status.code != Code.ERROR:
        return {}
    return {"error": post.status.to_json()}


def _worth_retrying(frameworks: dict[str, Framework], namespace_selector: dict[str, bool], waiting: Pod,
                    placed: Pod) -> bool:
    """``AssignedPodAdded``: v1.20's queue retries the parked pods whose required pod affinity
    the placed pod satisfies (reading namespaceSelector where the parked pod's release does),
    whatever the profile; a plugin's queueing hint (of the parked pod's profile) may add more."""
    name = waiting.scheduler_name
    return (satisfies_required_affinity(waiting, placed, namespace_selector[name])
            or frameworks[name].worth_retrying(waiting, placed))
