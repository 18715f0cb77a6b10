"""What the commands that run a profile share: reading inputs, building the framework, and
the ``score`` report. Scheduling itself lives in :mod:`ruleset.scheduler`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ruleset import bundled
from ruleset.api.pod import Pod
from ruleset.cluster import build_cluster_state, global_default, resolve_priority
from ruleset.config import Profile
from ruleset.errors import Problem, RulesetError
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.manifests import Cluster, load_manifests
from ruleset.pluginmanager import PluginRegistry, load_registry
from ruleset.profile.loader import ProfileCheck, check_profile_argument
from ruleset.scheduler import Scheduler, ScheduleResult, SchedulingQueue, nominate_pending
from ruleset.snapshot.state import ClusterState


def load_cluster(paths: list[str] | None, extra_pod_files: list[str] | None = None) -> Cluster:
    """Load cluster manifests (the bundled demo cluster when none are given)."""
    files = list(paths) if paths else [str(bundled.demo_cluster())]
    return load_manifests([*files, *(extra_pod_files or [])])


def load_state(cluster_files: list[str] | None, pod_files: list[str] | None = None) -> ClusterState:
    """The cluster state of the given manifests (the bundled demo when none are given)."""
    return build_cluster_state(load_cluster(cluster_files, pod_files))


def build_framework(profile_arg: str | None, state: ClusterState | None = None,
                    registry: PluginRegistry | None = None, root: Path | None = None) -> Framework:
    """Load a profile (path or bundled name; "default" when None) and build its framework over
    ``state``'s snapshot (without one, a framework to inspect, not to run). ``extends`` may
    not leave ``root`` (see :func:`~ruleset.profile.loader.check_profile_files`)."""
    registry = registry or load_registry()
    check = check_profile_argument(profile_arg or "default", registry, root)
    return _framework(check, registry, state)


def prepare_run(profile_arg: str | None, cluster_files: list[str] | None, pod_files: list[str] | None = None,
                root: Path | None = None) -> tuple[Framework, ClusterState]:
    """The profile's framework over the cluster's snapshot. The profile is read first, so its
    problems are the ones reported when both inputs have some."""
    registry = load_registry()
    check = check_profile_argument(profile_arg or "default", registry, root)
    state = load_state(cluster_files, pod_files)
    return _framework(check, registry, state), state


def _framework(check: ProfileCheck, registry: PluginRegistry, state: ClusterState | None) -> Framework:
    assert check.profile is not None  # check_profile_argument raised otherwise
    handle = Handle(state.snapshot if state is not None else None)
    return Framework(check.profile, registry, handle, checked=check.plugins)


@dataclass
class ScoreReport:
    """``ruleset score``: one pod's filter and score results on every node."""

    pod: Pod
    framework: Framework
    state: ClusterState
    result: ScheduleResult

    @property
    def profile(self) -> Profile:
        return self.framework.profile


def score_pod(framework: Framework, state: ClusterState, pod: Pod, seed: int = 0) -> ScoreReport:
    """Filter and score ``pod`` on every node, as the first cycle of a fresh scheduler would.

    Pending pods that carry ``status.nominatedNodeName`` hold room on their nodes, as the
    scheduler's nominator makes them do.
    """
    nominate_pending(framework.handle.nominator, state, exclude=pod)
    # As the loop's first cycle sees them (plugins such as Coscheduling count pending pods).
    framework.handle.pending_pods = state.schedulable
    scheduler = Scheduler(framework, seed=seed)
    result = scheduler.schedule(pod, always_score=True)
    return ScoreReport(pod=pod, framework=framework, state=state, result=result)


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
