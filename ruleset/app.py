"""What the commands that run a profile share: reading inputs, building the framework, and
the ``score`` report. Scheduling itself lives in :mod:`ruleset.scheduler`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ruleset import bundled
from ruleset.api.pod import Pod
from ruleset.cluster import build_cluster_state
from ruleset.config import Profile
from ruleset.errors import Problem, RulesetError
from ruleset.framework.nominator import Nominator
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.kversion import Target
from ruleset.manifests import Cluster, ScaleRequest, load_manifests, loading_gc, needs_lines
from ruleset.pluginmanager import PluginRegistry, load_registry
from ruleset.profile.loader import ProfileCheck, check_profile_argument, check_scheduler_names
from ruleset.scheduler import Scheduler, ScheduleResult, SchedulingQueue, nominate_pending
from ruleset.snapshot.state import ClusterState


def load_cluster(paths: Sequence[str] | None, extra_pod_files: Sequence[str] | None = None, *, seed: int = 0,
                 scale: Sequence[ScaleRequest] = (), on_file: Callable[[Path], None] | None = None,
                 target: Target | None = None, every_line: bool = False) -> Cluster:
    """Load cluster manifests (the bundled demo cluster when none are given), and the pods to
    create from ``extra_pod_files`` and ``scale`` (see :func:`~ruleset.manifests.load_manifests`)."""
    files = list(paths) if paths else [str(bundled.demo_cluster())]
    return load_manifests(files, list(extra_pod_files or []), seed=seed, scale=scale, on_file=on_file,
                          target=target, every_line=every_line)


def load_state(cluster_files: Sequence[str] | None, pod_files: Sequence[str] | None = None, *, seed: int = 0,
               scale: Sequence[ScaleRequest] = (), on_file: Callable[[Path], None] | None = None,
               replace: bool = False, target: Target | None = None) -> ClusterState:
    """The cluster state of the given manifests (the bundled demo when none are given). With
    ``replace``, a pod of ``pod_files`` replaces the cluster's pod of the same namespace and
    name (``score --pod`` on a copy of a pending pod), instead of being a duplicate.

    The cyclic garbage collector is paused meanwhile: reading builds a large graph of objects
    and no cycles, and its passes over that graph were a fifth of a big snapshot's load time
    (:func:`~ruleset.manifests.loading_gc`: what the load made is counted as old at the end)."""
    with loading_gc():
        cluster = load_cluster(cluster_files, pod_files, seed=seed, scale=scale, on_file=on_file,
                               target=target)
        try:
            return _build_state(cluster, pod_files, replace, target)
        except RulesetError as exc:
            if not needs_lines(exc.problems, cluster.unlocated):
                raise
        # Duplicates in files read without lines: read again with them, to say where.
        del cluster
        cluster = load_cluster(cluster_files, pod_files, seed=seed, scale=scale, target=target,
                               every_line=True)
        return _build_state(cluster, pod_files, replace, target)


def _build_state(cluster: Cluster, pod_files: Sequence[str] | None, replace: bool,
                 target: Target | None) -> ClusterState:
    if replace and pod_files:
        files = {str(Path(f)) for f in pod_files}
        mine = [p for p in cluster.pods if p.meta.origin is not None and p.meta.origin.file in files]
        keys = {p.key for p in mine}
        cluster.pods = [p for p in cluster.pods if p.key not in keys or any(p is m for m in mine)]
    return build_cluster_state(cluster, target)


def build_framework(profile_arg: str | None, state: ClusterState | None = None,
                    registry: PluginRegistry | None = None, root: Path | None = None) -> Framework:
    """Load a profile (path or bundled name; "default" when None) and build its framework over
    ``state``'s snapshot (without one, a framework to inspect, not to run). ``extends`` may
    not leave ``root`` (see :func:`~ruleset.profile.loader.check_profile_files`)."""
    registry = registry or load_registry()
    check = check_profile_argument(profile_arg or "default", registry, root)
    return _framework(check, registry, state)


def prepare_run(profile_arg: str | None, cluster_files: Sequence[str] | None,
                pod_files: Sequence[str] | None = None,
                root: Path | None = None, *, seed: int = 0, scale: Sequence[ScaleRequest] = (),
                on_file: Callable[[Path], None] | None = None,
                replace: bool = False) -> tuple[Framework, ClusterState]:
    """The profile's framework over the cluster's snapshot. The profile is read first, so its
    problems are the ones reported when both inputs have some. ``replace``: see :func:`load_state`."""
    profiles = [profile_arg] if profile_arg else None
    frameworks, state = prepare_profiles(profiles, cluster_files, pod_files, root, seed=seed, scale=scale,
                                         on_file=on_file, replace=replace)
    return frameworks[0], state


def prepare_profiles(profile_args: Sequence[str] | None, cluster_files: Sequence[str] | None,
                     pod_files: Sequence[str] | None = None, root: Path | None = None, *, seed: int = 0,
                     scale: Sequence[ScaleRequest] = (), on_file: Callable[[Path], None] | None = None,
                     replace: bool = False) -> tuple[list[Framework], ClusterState]:
    """Each profile's framework (the bundled "default" when none is given) over one snapshot,
    sharing one nominator, as kube-scheduler runs its profiles. The profiles are checked
    together first, as kube-scheduler checks its configuration: two serving one
    ``schedulerName``, or QueueSort plugins that differ, are errors."""
    registry = load_registry()
    checks = [check_profile_argument(arg, registry, root) for arg in (profile_args or ["default"])]
    problems = check_scheduler_names([c.profile for c in checks if c.profile is not None])
    problems += _one_release(checks)
    if problems:
        raise RulesetError(problems)
    target = checks[0].profile.target if checks[0].profile is not None else None
    state = load_state(cluster_files, pod_files, seed=seed, scale=scale, on_file=on_file, replace=replace,
                       target=target)
    nominator = Nominator()
    frameworks = [_framework(check, registry, state, nominator) for check in checks]
    problems = _queue_sort_problems(frameworks, checks)
    if problems:
        raise RulesetError(problems)
    return frameworks, state


def _one_release(checks: Sequence[ProfileCheck]) -> list[Problem]:
    """The profiles of one run are one kube-scheduler binary: one release."""
    first = checks[0].profile
    problems = []
    for i, check in enumerate(checks[1:], start=1):
        profile = check.profile
        if first is None or profile is None or profile.target.version == first.target.version:
            continue
        file = next(iter(check.files), None)
        problems.append(Problem(
            f"profiles[{i}]: kubernetesVersion {profile.target.version} differs from {first.target.version} "
            f"(profile {first.name!r}): profiles run together are one kube-scheduler, one release",
            file=str(file) if file is not None else None, path="kubernetesVersion", code="invalid-value"))
    return problems


def _queue_sort_problems(frameworks: Sequence[Framework], checks: Sequence[ProfileCheck]) -> list[Problem]:
    """v1.20's ``validateCommonQueueSort``: every profile sorts the one queue with the same plugin."""
    names = [fw.queue_sort_plugin for fw in frameworks]
    problems = []
    for i in range(1, len(frameworks)):
        if names[i] != names[0]:
            file = next(iter(checks[i].files), None)
            problems.append(Problem(
                f"profiles[{i}].plugins.queueSort: Invalid value: {names[i]!r}: has to match for all "
                f"profiles (profile {frameworks[0].profile.name!r} uses {names[0]!r})",
                file=str(file) if file is not None else None, code="invalid-value"))
    return problems


def _framework(check: ProfileCheck, registry: PluginRegistry, state: ClusterState | None,
               nominator: Nominator | None = None) -> Framework:
    assert check.profile is not None  # check_profile_argument raised otherwise
    handle = Handle(state.snapshot if state is not None else None, nominator)
    return Framework(check.profile, registry, handle, checked=check.plugins)


@dataclass
class ScoreReport:
    """``ruleset score``: one pod's filter and score results on every node."""

    pod: Pod
    framework: Framework
    state: ClusterState
    #: None when the pod is :attr:`refused`.
    result: ScheduleResult | None
    #: Why the pod can never be scheduled (admission's refusal, a missing PriorityClass), if so:
    #: then no node was tried, as in ``schedule``.
    refused: str | None = None

    @property
    def profile(self) -> Profile:
        return self.framework.profile


def score_pod(framework: Framework, state: ClusterState, pod: Pod, seed: int = 0,
              refused: str | None = None) -> ScoreReport:
    """Filter and score ``pod`` on every node, as the first cycle of a fresh scheduler would
    (unless it is ``refused``: see :attr:`ScoreReport.refused`).

    Pending pods that carry ``status.nominatedNodeName`` hold room on their nodes, as the
    scheduler's nominator makes them do.
    """
    if refused is not None:
        return ScoreReport(pod=pod, framework=framework, state=state, result=None, refused=refused)
    nominate_pending(framework.handle.nominator, state, exclude=pod)
    # As the loop's first cycle sees them (plugins such as Coscheduling count pending pods).
    framework.handle.pending_pods = state.schedulable
    scheduler = Scheduler(framework, seed=seed)
    result = scheduler.schedule(pod, always_score=True)
    return ScoreReport(pod=pod, framework=framework, state=state, result=result)


def take_pod_file(path: str, state: ClusterState) -> tuple[Pod, str | None]:
    """``score --pod FILE``: the first pod ``path`` yields (from one Pod, or one workload),
    loaded with the cluster (so that admission sees its LimitRanges and RuntimeClasses) and
    taken out of it again: it is the pod to score, not one the cluster holds. Returns the
    pod and why it can never be scheduled (admission's refusal, a missing PriorityClass),
    if it cannot: the pod's own problem, as ``schedule`` reports it, not the run's."""
    snapshot = state.snapshot
    placed = [p for i in range(snapshot.num_nodes) for p in snapshot.pods_on(i) if _read_from(p, path)]
    mine = [p for p in state.pending if _read_from(p, path)]
    owners = {ref.uid if (ref := p.meta.controller()) is not None else p.key for p in [*mine, *placed]}
    if len(owners) != 1:
        raise RulesetError(Problem(f"expected exactly one Pod or workload, found {len(owners)}", file=path,
                                   code="invalid-object"))
    for pod in placed:
        snapshot.remove_pod(pod)
    state.pending = [p for p in state.pending if not _read_from(p, path)]
    pod = (mine or placed)[0]
    return pod, state.pod_errors.pop(pod, None)


def _read_from(pod: Pod, path: str) -> bool:
    return pod.meta.origin is not None and pod.meta.origin.file == path


def first_pending(state: ClusterState, framework: Framework) -> Pod:
    """The pod a fresh queue would pop first (``ruleset score`` without ``--pod``): of the pods
    the profile serves, if any does, else of all."""
    candidates = [p for p in state.pending if p not in state.pod_errors]
    served = [p for p in candidates if p.scheduler_name == framework.profile.scheduler_name]
    candidates = served or candidates
    if not candidates:
        raise RulesetError(Problem("the cluster has no pending pod to score; pass --pod FILE", code="no-pod"))
    queue = SchedulingQueue(framework.queue_less)
    queue.add_all(candidates)
    info = queue.pop()
    assert info is not None
    return info.pod
