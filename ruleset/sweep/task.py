"""One task of a sweep, run where the engine puts it (a pool process, a Dask worker): read the
snapshot with the scenario at the profile's release, schedule with the profile, measure what
``ruleset compare`` measures.

A task carries names, paths, content hashes and parameters, never cluster data. Each worker
process keeps what it read (:data:`_STATES`): the built cluster state, pickled, keyed by the
snapshot's content hash, the scenario, the release and the seed, so a snapshot is read once per
process and every task gets a fresh copy (scheduling changes the state). A task never raises:
what goes wrong (a plugin's error, a snapshot changed since the sweep was planned) is its
result's ``error``.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Result statuses.
OK, FAILED = "ok", "failed"
#: The columns of a task's metrics row that change from run to run (wall-clock measurements):
#: left out when two tables are compared.
TIMING_COLUMNS = ("seconds", "podsPerSecond")

_LOCK = threading.Lock()
#: Per process: pickled ClusterState by (snapshot hash, scenario hash, release, seed).
_STATES: dict[tuple[str, str, str, int], bytes] = {}
#: Per process: checked profiles by (profile argument, release, root, local plugins).
_PROFILES: dict[tuple[str, str | None, str | None, tuple[str, ...]], Any] = {}


@dataclass(frozen=True)
class SnapshotRef:
    """A snapshot by name: its files (empty: the bundled demo cluster) and their content hash."""

    name: str
    paths: tuple[str, ...]
    digest: str


@dataclass(frozen=True)
class TaskSpec:
    """Everything a worker needs to run one task; small, picklable, the same on every engine."""

    id: str
    profile: str
    profile_label: str
    snapshot: SnapshotRef
    scenario: str
    pods: tuple[str, ...]
    scale: tuple[str, ...]
    scenario_digest: str
    kubernetes_version: str | None
    seed: int = 0
    root: str | None = None
    #: The local plugin modules (``--plugin``, ``RULESET_PLUGINS``) and whether entry points load.
    plugins: tuple[str, ...] = ()
    autoload: bool = True

    def params(self) -> dict[str, Any]:
        """The task's parameters as written into its result and the table."""
        return {"task": self.id, "profile": self.profile_label, "snapshot": self.snapshot.name,
                "scenario": self.scenario, "kubernetesVersion": self.kubernetes_version or ""}


@dataclass
class TaskResult:
    """What a task gives back: its metrics row and placements, or its error."""

    id: str
    status: str
    metrics: dict[str, Any] = field(default_factory=dict)
    placements: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


def digest_files(paths: Sequence[str | Path]) -> str:
    """The content hash of manifest files (file names count only by their order)."""
    h = hashlib.sha256()
    for path in paths:
        data = Path(path).read_bytes()
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def run_task(spec: TaskSpec) -> TaskResult:
    """Run one task; never raises for the task's own failures (they are the result's ``error``)."""
    from ruleset.errors import RulesetError, describe_exception

    try:
        return _run(spec)
    except RulesetError as exc:
        return TaskResult(spec.id, FAILED, error="; ".join(str(p) for p in exc.problems))
    except Exception as exc:  # a plugin's bug must fail its task, not the sweep
        return TaskResult(spec.id, FAILED, error=describe_exception(exc))


def lost(spec: TaskSpec, exc: BaseException) -> TaskResult:
    """The result of a task whose worker went away (killed, out of memory, a lost connection)."""
    from ruleset.errors import describe_exception

    return TaskResult(spec.id, FAILED, error=f"worker lost: {describe_exception(exc)}")


def _run(spec: TaskSpec) -> TaskResult:
    from ruleset.analysis.capacity import count_fitting
    from ruleset.analysis.compare import Side, gate_numbers, largest_pod
    from ruleset.analysis.metrics import balance
    from ruleset.framework.nominator import Nominator
    from ruleset.framework.plugin import Handle
    from ruleset.framework.runtime import Framework
    from ruleset.pluginmanager import load_registry
    from ruleset.scheduler import schedule_all

    started = time.perf_counter()
    registry = load_registry(autoload=spec.autoload, local=spec.plugins)
    check = _profile(spec, registry)
    state = _state(spec, check.profile.target)
    framework = Framework(check.profile, registry, Handle(state.snapshot, Nominator()), checked=check.plugins)
    largest = largest_pod([p for p in state.pending if p not in state.pod_errors])
    scheduling = time.perf_counter()
    run = schedule_all([framework], state, seed=spec.seed)
    scheduled_in = time.perf_counter() - scheduling
    metrics = balance(state.snapshot, (p.node for p in run.placements))
    fragmentation = count_fitting(framework, largest, seed=spec.seed) if largest is not None else None
    side = Side(spec.profile_label, framework, run, metrics, fragmentation, largest)
    numbers = gate_numbers(side)
    row: dict[str, Any] = {
        **spec.params(),
        "status": OK,
        "error": "",
        "pods": len(run.placements),
        "scheduled": sum(1 for p in run.placements if p.node is not None),
        "unschedulable": numbers.pop("unschedulable"),
        "preemptions": numbers.pop("preemptions"),
        "evictions": sum(1 for e in run.events if e.kind == "evicted"),
        "nodesUsed": numbers.pop("nodesUsed"),
        "nodes": metrics["nodes"],
        "fragmentation": fragmentation,
        **numbers,
        "podsPerZone": _zones(metrics["podsPerZone"]),
        "placedPerZone": _zones(metrics["placedPerZone"]),
        "seconds": round(time.perf_counter() - started, 4),
        "podsPerSecond": round(len(run.placements) / scheduled_in, 1) if scheduled_in > 0 else None,
    }
    placements = [{"pod": p.pod.key, "node": p.node, "reason": p.reason} for p in run.placements]
    return TaskResult(spec.id, OK, metrics=row, placements=placements)


def _zones(counts: dict[str, int]) -> str:
    """Pods by zone as one cell: ``zone=n`` joined by spaces (``-`` for nodes without a zone)."""
    return " ".join(f"{zone or '-'}={n}" for zone, n in counts.items())


def _profile(spec: TaskSpec, registry: Any) -> Any:
    from ruleset.analysis.compare import SideSpec, load_side

    key = (spec.profile, spec.kubernetes_version, spec.root, spec.plugins)
    with _LOCK:
        check = _PROFILES.get(key)
    if check is None:
        root = Path(spec.root) if spec.root else None
        check = load_side(SideSpec(spec.profile, spec.kubernetes_version), registry, root)
        with _LOCK:
            _PROFILES[key] = check
    return check


def _state(spec: TaskSpec, target: Any) -> Any:
    """A fresh copy of the snapshot with the scenario applied, read once per process."""
    from ruleset.app import load_state
    from ruleset.errors import Problem, RulesetError
    from ruleset.manifests import ScaleRequest

    key = (spec.snapshot.digest, spec.scenario_digest, str(target.version), spec.seed)
    with _LOCK:
        cached = _STATES.get(key)
    if cached is None:
        if spec.snapshot.paths and digest_files(spec.snapshot.paths) != spec.snapshot.digest:
            raise RulesetError(Problem("the snapshot changed since the sweep started",
                                       file=spec.snapshot.name, code="changed"))
        scale = [scale_request(text, ScaleRequest) for text in spec.scale]
        state = load_state(list(spec.snapshot.paths) or None, list(spec.pods), seed=spec.seed, scale=scale,
                           target=target)
        cached = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        with _LOCK:
            _STATES[key] = cached
    return pickle.loads(cached)


def scale_request(text: str, cls: Any) -> Any:
    """A checked ``KIND/NAMESPACE/NAME=N`` text (see :mod:`ruleset.sweep.grid`) as a ``cls``
    (:class:`~ruleset.manifests.ScaleRequest`, passed in so that this module imports nothing heavy)."""
    target, _, count = text.rpartition("=")
    kind, namespace, name = target.split("/")
    return cls(kind=kind, namespace=namespace, name=name, replicas=int(count), text=text)


def worker_cache_size() -> int:
    """How many snapshot states this process holds (one per snapshot, scenario, release and seed)."""
    with _LOCK:
        return len(_STATES)

