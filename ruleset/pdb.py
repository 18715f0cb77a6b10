"""PodDisruptionBudgets for preemption: how many disruptions each allows, and which victims
would break one.

Preemption reads ``status.disruptionsAllowed``, as upstream does. Hand-written snapshots
often have no status; then the disruption controller's arithmetic is applied to the
snapshot: healthy pods are the matching, non-terminating pods placed on a node, and

* ``minAvailable: N`` wants N healthy of the matching pods;
* ``minAvailable: P%`` wants ceil(P% × expected) and ``maxUnavailable: M`` (or ``M%``,
  rounded up) wants expected − M, where "expected" is the summed ``spec.replicas`` of the
  pods' controllers (ReplicaSet, StatefulSet, ReplicationController), or the number of
  matching pods when a controller is unknown;
* neither set means ``minAvailable: 1`` (the policy/v1beta1 default).

``disruptionsAllowed = max(0, healthy − wanted)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ruleset.api.pod import Pod
from ruleset.api.workloads import PodDisruptionBudget
from ruleset.snapshot import Snapshot


def _selector(pdb: PodDisruptionBudget):
    from ruleset.selector import SelectorError, from_label_selector

    cached = pdb.__dict__.get("_selector", False)
    if cached is not False:
        return cached
    try:
        selector = from_label_selector(pdb.selector)
    except SelectorError:
        selector = None  # upstream skips a PDB whose selector does not convert
    pdb.__dict__["_selector"] = selector
    return selector


def selects(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """Whether a PDB covers ``pod`` for preemption: same namespace, a non-empty selector that matches.

    A nil selector converts to Nothing and an empty one to Everything; ``Empty()`` is true for
    the latter, and upstream skips both.
    """
    if pdb.meta.namespace != pod.namespace:
        return False
    selector = _selector(pdb)
    if selector is None or selector.empty():
        return False
    return selector.matches(pod.labels)


def _scaled(value: int | str, total: int) -> int:
    """``GetScaledValueFromIntOrPercent(value, total, roundUp=true)``."""
    if isinstance(value, int):
        return value
    return math.ceil(int(value[:-1]) * total / 100)


def _expected_count(pods: list[Pod], snapshot: Snapshot) -> int:
    workloads = snapshot.workloads
    scales: dict[tuple[str, str], int] = {}
    for pod in pods:
        ref = pod.controller()
        if ref is None:
            return len(pods)
        kind_list = {"ReplicaSet": workloads.replica_sets, "StatefulSet": workloads.stateful_sets,
                     "ReplicationController": workloads.replication_controllers}.get(ref.kind)
        owner = next((o for o in kind_list or () if o.meta.name == ref.name
                      and o.meta.namespace == pod.namespace), None)
        if owner is None or owner.replicas is None:
            return len(pods)
        scales[(ref.kind, ref.name)] = owner.replicas
    return sum(scales.values())


def disruptions_allowed(pdb: PodDisruptionBudget, snapshot: Snapshot) -> int:
    """``status.disruptionsAllowed``, or the disruption controller's value when there is no status."""
    if pdb.disruptions_allowed is not None:
        return pdb.disruptions_allowed
    table = snapshot.pod_table
    pods = [p for p, row in table.row_of.items()
            if table.alive[row] and not p.terminating and selects(pdb, p)]
    healthy = len(pods)
    if pdb.max_unavailable is not None:
        expected = _expected_count(pods, snapshot)
        wanted = max(0, expected - _scaled(pdb.max_unavailable, expected))
    elif isinstance(pdb.min_available, str):
        wanted = _scaled(pdb.min_available, _expected_count(pods, snapshot))
    else:
        wanted = pdb.min_available if pdb.min_available is not None else 1
    return max(0, healthy - wanted)


def filter_pods_with_pdb_violation(pods: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget],
                                   allowed: Sequence[int]) -> tuple[list[Pod], list[Pod]]:
    """``filterPodsWithPDBViolation``: split ``pods`` (in order) into (violating, non-violating).

    Each PDB's budget is spent in the order the pods come; a pod violates when some PDB
    that selects it has gone below zero. Pods already in a PDB's ``disruptedPods`` do not
    spend its budget.
    """
    budget = list(allowed)
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = False
        if pod.labels:
            for i, pdb in enumerate(pdbs):
                if not selects(pdb, pod) or pod.name in pdb.disrupted_pods:
                    continue
                budget[i] -= 1
                if budget[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating
