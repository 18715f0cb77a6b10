"""Run a profile over a cluster: score one pod, or schedule every pending pod to completion."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruleset.api.pod import Pod
from ruleset.cluster import ClusterState, build_cluster_state, global_default, resolve_priority
from ruleset.errors import Problem, RulesetError
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.framework.status import Code
from ruleset.manifests import Cluster, load_manifests
from ruleset.pdb import record_eviction
from ruleset.pluginmanager import PluginRegistry, load_registry
from ruleset.plugins.inter_pod_affinity import affinity_term
from ruleset.profile.loader import load_profile, resolve_profile_argument
from ruleset.profile.model import Profile
from ruleset.queue import SchedulingQueue
from ruleset.scheduler import Scheduler, ScheduleResult
from ruleset.selector import SelectorError

#: A pod that keeps failing after this many attempts is reported unschedulable for good.
MAX_ATTEMPTS = 32


def load_cluster(paths: list[str] | None, extra_pod_files: list[str] | None = None) -> Cluster:
    """Load cluster manifests (the bundled demo cluster when none are given)."""
    from ruleset import resources

    files = list(paths) if paths else [str(resources.demo_cluster())]
    return load_manifests([*files, *(extra_pod_files or [])])


def build_framework(profile_arg: str | None, registry: PluginRegistry | None = None) -> Framework:
    """Load a profile (path or bundled name; "default" when None) and build its framework."""
    registry = registry or load_registry()
    profile = load_profile(resolve_profile_argument(profile_arg or "default"), registry)
    return Framework(profile, registry, Handle())


@dataclass
class ScoreReport:
    """``ruleset score``: one pod's filter and score results on every node."""

    pod: Pod
    profile: Profile
    state: ClusterState
    result: ScheduleResult


def score_pod(framework: Framework, state: ClusterState, pod: Pod, seed: int = 0) -> ScoreReport:
    """Filter and score ``pod`` on every node, as the first cycle of a fresh scheduler would.

    Pending pods that carry ``status.nominatedNodeName`` hold room on their nodes, as the
    scheduler's nominator makes them do.
    """
    nominate_pending(framework, state, exclude=pod)
    scheduler = Scheduler(framework, state.snapshot, seed=seed)
    result = scheduler.schedule(pod, always_score=True)
    return ScoreReport(pod=pod, profile=framework.profile, state=state, result=result)


def read_single_pod(path: str, state: ClusterState) -> Pod:
    """The one Pod in ``path`` (its priority resolved against the cluster's classes)."""
    part = load_manifests([path])
    if len(part.pods) != 1:
        raise RulesetError(Problem(f"expected exactly one Pod, found {len(part.pods)}", file=path,
                                   code="invalid-object"))
    pod = part.pods[0]
    classes = state.snapshot.priority_classes
    error = resolve_priority(pod, classes, global_default(classes.values()))
    if error:
        raise RulesetError(Problem(error, file=path, path=f"Pod {pod.key}: spec.priorityClassName",
                                   code="unknown-priority-class"))
    return pod


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


def schedule_all(framework: Framework, state: ClusterState, seed: int = 0) -> ScheduleRun:
    """Schedule every pending pod in queue order until the queue is empty.

    As kube-scheduler does: a pod that does not fit is parked until a cluster event might
    change that — a pod leaving a node (a preemption victim) wakes every parked pod, a pod
    landing on a node wakes the parked pods whose required pod affinity it satisfies. A pod
    whose PostFilter (preemption) nominated a node goes back to the queue, its victims are
    evicted from the snapshot (and counted against the PDBs covering them), lower-priority
    pods nominated to that node lose their nomination (and are woken), and the pod keeps
    its nomination until it is placed, a later preemption nominates another node, or
    preemption finds that no node could help. A pod that goes back to the queue, at once
    or parked, re-enters it "now" (upstream refreshes its queue timestamp), so it queues
    behind the pods of its priority that were already waiting; there is no backoff clock.
    One placement per pending pod is reported, in the order the pods' fates were settled;
    parked pods left at the end are unschedulable.
    """
    scheduler = Scheduler(framework, state.snapshot, seed=seed)
    queue = SchedulingQueue(framework.queue_less)
    run = ScheduleRun(profile=framework.profile, state=state)
    nominated = framework.handle.nominated
    nominate_pending(framework, state)
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
                _forget_nomination(nominated, pod)
                run.placements.append(Placement(pod, result.node, result.score, attempts=info.attempts))
                run.events.append(Event("scheduled", pod.key, result.node,
                                        {"score": result.score, "attempt": info.attempts}))
                queue.activate(lambda waiting, placed=pod: _affinity_wants(waiting, placed))
                continue
            reason = status.message()
        else:
            reason = result.message or result.status.message()
        if result.status.code == Code.ERROR:
            _forget_nomination(nominated, pod)
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
            _forget_nomination(nominated, pod)
        queue.park(info)
    for info in queue.unschedulable.values():
        run.placements.append(Placement(info.pod, None, reason=info.last_failure, attempts=info.attempts))
    return run


def nominate_pending(framework: Framework, state: ClusterState, exclude: Pod | None = None) -> None:
    """Register pending pods' ``status.nominatedNodeName`` with the framework's nominator."""
    nominated = framework.handle.nominated
    for pod in state.pending:
        node = pod.nominated_node_name
        if pod is exclude or not node or node not in state.snapshot.node_index or pod in state.pod_errors:
            continue
        if pod not in nominated.get(node, []):
            nominated.setdefault(node, []).append(pod)


def _forget_nomination(nominated: dict[str, list[Pod]], pod: Pod) -> None:
    """``DeleteNominatedPodIfExists``."""
    if pod.nominated_node_name:
        pods = nominated.get(pod.nominated_node_name, [])
        if pod in pods:
            pods.remove(pod)
        pod.nominated_node_name = ""


def _preempt(run: ScheduleRun, scheduler: Scheduler, queue: SchedulingQueue, pod: Pod, post: Any) -> None:
    """``PrepareCandidate``: evict the victims (spending the budgets of the PDBs covering
    them), clear lower-priority nominations on the node (waking those pods), and nominate
    the preemptor."""
    node = post.nominated_node
    report = post.details
    victims = list(getattr(report, "victims", []) or [])
    nominated = scheduler.framework.handle.nominated
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
    for other in list(nominated.get(node, [])):
        if other.priority < pod.priority and other is not pod:
            _forget_nomination(nominated, other)
            cleared.append(other)
    _forget_nomination(nominated, pod)
    pod.nominated_node_name = node
    nominated.setdefault(node, []).append(pod)
    if victims:
        queue.activate()  # a pod left a node: anything parked may fit now
    elif cleared:
        queue.activate(lambda waiting: any(waiting is other for other in cleared))  # their status changed


def _affinity_wants(waiting: Pod, placed: Pod) -> bool:
    """Would ``placed`` satisfy one of ``waiting``'s required pod affinity terms?

    Upstream moves exactly those parked pods back to the queue when a pod is assigned.
    """
    affinity = waiting.affinity.pod_affinity
    if affinity is None or not affinity.required:
        return False
    for term in affinity.required:
        try:
            if affinity_term(term, waiting.namespace).matches(placed):
                return True
        except SelectorError:
            continue
    return False


def load_state(cluster_files: list[str] | None, pod_files: list[str] | None = None) -> ClusterState:
    cluster = load_cluster(cluster_files, pod_files)
    return build_cluster_state(cluster)


def first_pending(state: ClusterState, framework: Framework) -> Pod:
    """The pod a fresh queue would pop first (``ruleset score`` without ``--pod``)."""
    candidates = [p for p in state.pending if p not in state.pod_errors]
    if not candidates:
        raise RulesetError(Problem("the cluster has no pending pod to score; pass --pod FILE", code="no-pod"))
    queue = SchedulingQueue(framework.queue_less)
    queue.add_all(candidates)
    info = queue.pop()
    assert info is not None
    return info.pod
