"""PodDisruptionBudgets for preemption: how many disruptions each allows, and which victims
would break one.

Preemption reads ``status.disruptionsAllowed``, as upstream does. Evictions made earlier in
the same run (:func:`record_eviction`) are taken off it, one per evicted pod the budget
covers that was healthy and not already in ``status.disruptedPods``: that is what the
disruption controller does when a covered pod goes away, before the next preemption reads
the status. (Pods placed during the run are not added back: the status value never grows.)

Hand-written snapshots often have no status; then the disruption controller's arithmetic
(v1.20 ``pkg/controller/disruption``) is applied to the snapshot as it is now. Healthy pods
are the covered, non-terminating pods placed on a node (a snapshot does not say which pods
are Ready), and

* ``minAvailable: N`` wants N healthy pods;
* ``minAvailable: P%`` wants ceil(P% × expected), and ``maxUnavailable: M`` (or ``M%``,
  rounded up) wants expected − M (at least 0), where "expected" is the summed
  ``spec.replicas`` (default 1) of the covered pods' controllers: ReplicaSet (for a
  Deployment's pods, its ReplicaSet's replicas: Deployments are not part of a snapshot),
  StatefulSet or ReplicationController. A covered pod without a controller reference
  makes the controller fail safe: 0 disruptions. A controller that is not in the snapshot
  counts the covered pods instead (the snapshot is incomplete, not the cluster);
* neither set means ``minAvailable: 1`` (the policy/v1beta1 default).

``disruptionsAllowed = healthy − wanted``, and 0 when that is negative or "expected" is 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ruleset.api.pod import Pod
from ruleset.api.workloads import (
    PodDisruptionBudget,
    ReplicaSet,
    ReplicationController,
    StatefulSet,
    label_selector_of,
)
from ruleset.snapshot import Snapshot

#: Controller codes of a covered pod: no controller reference, or one the snapshot lacks.
_NO_CONTROLLER = -1
_UNKNOWN_CONTROLLER = -2


def selects(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """Whether a PDB covers ``pod`` for preemption: same namespace, a non-empty selector that matches.

    A nil selector converts to Nothing and an empty one to Everything; ``Empty()`` is true for
    the latter, and upstream skips both.
    """
    if pdb.meta.namespace != pod.namespace:
        return False
    selector = label_selector_of(pdb)  # None: upstream skips a PDB whose selector does not convert
    if selector is None or selector.empty():
        return False
    return selector.matches(pod.labels)


def _scaled(value: int | str, total: int) -> int:
    """``GetScaledValueFromIntOrPercent(value, total, roundUp=true)``."""
    if isinstance(value, int):
        return value
    return math.ceil(int(value[:-1]) * total / 100)


@dataclass
class _Tracker:
    """Per-snapshot bookkeeping: which pod-table rows each PDB covers, and the evictions."""

    pdbs: list[PodDisruptionBudget]
    rows_seen: int = 0
    #: Per PDB, a boolean per pod-table row (rows are stable handles, never reused).
    covers: list[np.ndarray] = field(default_factory=list)
    #: Per row, the code of the pod's controller (index into ``scales``) or a negative code.
    controller: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: ``spec.replicas`` of each controller code, and the codes by (kind, namespace, name).
    scales: list[int] = field(default_factory=list)
    codes: dict[tuple[str, str, str], int] = field(default_factory=dict)
    #: Per PDB, the covered healthy pods evicted by this run (see :func:`record_eviction`).
    evicted: list[int] = field(default_factory=list)
    #: ``(snapshot.generation, budgets)`` of the last computation.
    cached: tuple[int, list[int]] | None = None

    def sync(self, snapshot: Snapshot) -> None:
        """Classify the pod-table rows added since the last call."""
        table = snapshot.pod_table
        size = len(table)
        if size == self.rows_seen:
            return
        new = table.pods[self.rows_seen: size]
        self.covers = [np.concatenate([mask, np.fromiter((selects(pdb, p) for p in new), dtype=bool,
                                                         count=len(new))])
                       for pdb, mask in zip(self.pdbs, self.covers, strict=True)]
        self.controller = np.concatenate([self.controller, np.fromiter(
            (self._controller_code(p, snapshot) for p in new), dtype=np.int64, count=len(new))])
        self.rows_seen = size

    def _controller_code(self, pod: Pod, snapshot: Snapshot) -> int:
        ref = pod.controller()
        if ref is None:
            return _NO_CONTROLLER
        key = (ref.kind, pod.namespace, ref.name)
        code = self.codes.get(key)
        if code is not None:
            return code
        workloads = snapshot.workloads
        by_kind: dict[str, Sequence[ReplicaSet | StatefulSet | ReplicationController]] = {
            "ReplicaSet": workloads.replica_sets, "StatefulSet": workloads.stateful_sets,
            "ReplicationController": workloads.replication_controllers}
        candidates = by_kind.get(ref.kind, ())
        owner = next((o for o in candidates if o.meta.name == ref.name and o.meta.namespace == pod.namespace),
                     None)
        if owner is None:
            code = _UNKNOWN_CONTROLLER
        else:
            code = len(self.scales)
            self.scales.append(owner.replicas if owner.replicas is not None else 1)
        self.codes[key] = code
        return code

    def budget(self, i: int, snapshot: Snapshot) -> int:
        pdb = self.pdbs[i]
        if pdb.disruptions_allowed is not None:
            return max(0, pdb.disruptions_allowed - self.evicted[i])
        table = snapshot.pod_table
        healthy_rows = np.flatnonzero(self.covers[i] & table.alive & ~table.terminating)
        healthy = len(healthy_rows)
        if pdb.max_unavailable is None and not isinstance(pdb.min_available, str):
            wanted = pdb.min_available if pdb.min_available is not None else 1
            expected = healthy
        else:
            codes = np.unique(self.controller[healthy_rows])
            if _NO_CONTROLLER in codes:
                return 0  # "found no controller ref for pod": the controller fails safe
            # A controller the snapshot lacks: count the covered pods instead.
            expected = healthy if _UNKNOWN_CONTROLLER in codes else sum(self.scales[int(c)] for c in codes)
            if pdb.max_unavailable is not None:
                wanted = max(0, expected - _scaled(pdb.max_unavailable, expected))
            else:
                assert pdb.min_available is not None
                wanted = _scaled(pdb.min_available, expected)
        allowed = healthy - wanted
        return allowed if expected > 0 and allowed > 0 else 0


def _tracker(snapshot: Snapshot) -> _Tracker:
    tracker = snapshot.derived.get(__name__)
    pdbs = snapshot.workloads.pod_disruption_budgets
    if tracker is None or tracker.pdbs is not pdbs:
        tracker = _Tracker(pdbs=pdbs, covers=[np.zeros(0, dtype=bool) for _ in pdbs], evicted=[0] * len(pdbs))
        snapshot.derived[__name__] = tracker
    tracker.sync(snapshot)
    return tracker


def budgets(snapshot: Snapshot) -> list[int]:
    """``disruptionsAllowed`` of every PDB of the snapshot, in order (cached per snapshot state)."""
    tracker = _tracker(snapshot)
    if tracker.cached is not None and tracker.cached[0] == snapshot.generation:
        return list(tracker.cached[1])
    values = [tracker.budget(i, snapshot) for i in range(len(tracker.pdbs))]
    tracker.cached = (snapshot.generation, values)
    return list(values)


def disruptions_allowed(pdb: PodDisruptionBudget, snapshot: Snapshot) -> int:
    """``status.disruptionsAllowed`` less this run's evictions, or the controller's value without a status."""
    tracker = _tracker(snapshot)
    for i, known in enumerate(tracker.pdbs):
        if known is pdb:
            return budgets(snapshot)[i]
    raise ValueError(f"PodDisruptionBudget {pdb.meta.namespace}/{pdb.meta.name} is not in the snapshot")


def record_eviction(snapshot: Snapshot, pod: Pod) -> None:
    """Note that ``pod`` (still on its node) is being evicted by a preemption of this run.

    Status-backed budgets lose one disruption for each PDB that covers the pod, if the pod
    was healthy (not terminating) and not already counted in ``status.disruptedPods``.
    Call it before taking the pod off the snapshot.
    """
    tracker = _tracker(snapshot)
    if pod.terminating:
        return
    for i, pdb in enumerate(tracker.pdbs):
        if pdb.disruptions_allowed is not None and pod.name not in pdb.disrupted_pods and selects(pdb, pod):
            tracker.evicted[i] += 1
    tracker.cached = None


def covering(pod: Pod, pdbs: Sequence[PodDisruptionBudget]) -> tuple[int, ...]:
    """Indices of the PDBs in ``pdbs`` that cover ``pod`` (cached on the pod for that list)."""
    cache = pod.__dict__.get("_pdb_cover")
    if cache is not None and cache[0] is pdbs:
        cached: tuple[int, ...] = cache[1]
        return cached
    indices = tuple(i for i, pdb in enumerate(pdbs) if selects(pdb, pod)) if pod.labels else ()
    pod.__dict__["_pdb_cover"] = (pdbs, indices)
    return indices


def filter_pods_with_pdb_violation(pods: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget],
                                   allowed: Sequence[int]) -> tuple[list[Pod], list[Pod]]:
    """``filterPodsWithPDBViolation``: split ``pods`` (in order) into (violating, non-violating).

    Each PDB's budget is spent in the order the pods come; a pod violates when some PDB
    that selects it has gone below zero. Pods already in a PDB's ``disruptedPods`` do not
    spend its budget. A pod without labels matches no PDB.
    """
    budget = list(allowed)
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = False
        for i in covering(pod, pdbs):
            if pod.name in pdbs[i].disrupted_pods:
                continue
            budget[i] -= 1
            if budget[i] < 0:
                violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating
