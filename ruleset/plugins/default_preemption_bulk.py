"""DefaultPreemption's dry run for many nodes at once, when only resources can matter.

The reference dry run (:meth:`DefaultPreemption.select_victims_on_node`) is upstream's
``selectVictimsOnNode``: per node, remove every lower-priority pod on the live snapshot, re-run
every Filter plugin, add the pods back one by one re-running them each time, then undo. When
every Filter plugin's verdicts for the preemptor ignore the other pods or read them only as
summed requests and pod count (:meth:`ruleset.framework.runtime.Framework.what_if_steps`), the
same questions have the same answers computed on columns instead:

1. Walk the candidate nodes in chunks, in the reference walk's order.
2. Per chunk, one pass over the lower-priority pods of its nodes gives each node's requests
   with all of them removed (and the nominated pods of at least the preemptor's priority
   added, as ``addNominatedPods`` does); every Filter step runs once over the chunk, resource
   plugins reading those sums (:class:`~ruleset.framework.dependence.NodeColumns`).
3. The reprieve loop runs for all of the chunk's candidates at once: step ``j`` puts back each
   candidate's ``j``-th pod (PDB-violating ones first, then the rest, each group most important
   first) and keeps it where the resource plugins still pass, with the nominated pods and, on
   nodes that have some, without them (the reference path's two passes).
4. The walk then takes the chunk's outcomes in order, with the reference walk's stopping rule.

Nothing is changed on the snapshot. Identical results to the reference path are checked in
the tests on upstream's preemption tables and on randomised clusters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ruleset import CycleState, NodeColumns, NominatedRoom, Snapshot, Status
from ruleset.api.pod import Pod
from ruleset.snapshot.pdb import filter_pods_with_pdb_violation

#: ``pickOneNodeForPreemption`` offsets priorities by 2^31 so that negative ones add up.
MAX_INT32 = 2**31 - 1

if TYPE_CHECKING:
    from ruleset.framework.runtime import Framework, WhatIfFailures, WhatIfStep


@dataclass
class Outcome:
    """A candidate node of the walk: its victims once the reprieve has run."""

    index: int
    #: A fault of a plugin during the reprieve (the reference path would raise it here).
    status: Status | None = None
    victims: list[Pod] = field(default_factory=list)
    pdb_violations: int = 0
    #: ``pickOneNodeForPreemption``'s criteria after the PDB violations (see ``Candidate.ranking``).
    ranking: tuple[int, int, int, float] | None = None


@dataclass
class _Chunk:
    """What the walk learns of a chunk of nodes: per node (in walk order) whether it has
    lower-priority pods, the failing ones' statuses and the candidates' outcomes."""

    has_lower: list[bool]
    failed: dict[int, Status]
    candidates: dict[int, Outcome]


class _Sums:
    """Per-node request deltas of some nodes: resource name -> int64 array, and the pod count."""

    def __init__(self, delta: dict[str, np.ndarray], count: np.ndarray):
        self.delta = delta
        self.count = count

    def copy(self) -> _Sums:
        return _Sums({name: values.copy() for name, values in self.delta.items()}, self.count.copy())

    def add(self, at: np.ndarray, requests: dict[str, np.ndarray], sign: int,
            count: np.ndarray | int = 1) -> None:
        """Add (``sign`` 1) or take away ``requests`` (aligned with ``at``), and ``count`` pods,
        at positions ``at`` (each at most once)."""
        with np.errstate(over="ignore"):  # int64 sums wrap, as the snapshot's do
            for name, values in requests.items():
                column = self.delta.get(name)
                if column is None:
                    column = self.delta[name] = np.zeros(len(self.count), dtype=np.int64)
                column[at] += values if sign > 0 else -values
            self.count[at] += count if sign > 0 else -count

    def columns(self, snapshot: Snapshot, nodes: np.ndarray, at: np.ndarray | None = None) -> NodeColumns:
        if at is None:
            return NodeColumns(snapshot, nodes, self.delta, self.count)
        return NodeColumns(snapshot, nodes, {name: values[at] for name, values in self.delta.items()},
                           self.count[at])


def walk(framework: Framework, steps: list[WhatIfStep], state: CycleState, pod: Pod, snapshot: Snapshot,
         order: np.ndarray, pdbs: list, allowed: list[int], room: NominatedRoom, wanted: int,
         found: Callable[[Outcome], bool], fault: Callable[[Status], None],
         failures: list[tuple[str, ...]] | None, no_victims: tuple[str, ...]) -> None:
    """Visit the nodes of ``order`` in chunks, as the reference walk does: each candidate goes to
    ``found`` in order, which returns True to stop the walk (the reference's rule, which stops at
    the ``wanted``-th candidate when there is no PDB: later candidates of a chunk are then not
    worked out); a plugin's fault on a node the walk reaches goes to ``fault`` (which raises).
    Every node visited that is no candidate adds its reasons to ``failures`` (when given; the
    reference adds them in walk order, and only their counts are read): ``no_victims`` for a
    node without lower-priority pods."""
    n = len(order)
    # Filtering more nodes than needed costs little; the reprieve is limited to what the walk takes.
    position, chunk, taken = 0, max(64, 2 * wanted), 0
    while position < n:
        part = order[position: position + chunk]
        limit = None if pdbs else wanted - taken
        seen = _chunk(framework, steps, state, pod, snapshot, part, pdbs, allowed, room, limit)
        faults = [k for k, status in seen.failed.items() if status.fault]
        stop = None
        for k in sorted([*seen.candidates, *faults]):
            outcome = seen.candidates.get(k)
            if outcome is None:
                fault(seen.failed[k])
                continue
            if outcome.status is not None:
                fault(outcome.status)
            taken += 1
            if found(outcome):
                stop = k
                break
        if failures is not None:
            last = len(part) if stop is None else stop
            failures.extend(no_victims for k in range(last) if not seen.has_lower[k])
            failures.extend(status.reasons for k, status in seen.failed.items() if k < last)
        if stop is not None:
            return
        position += len(part)
        chunk *= 2


def _chunk(framework: Framework, steps: list[WhatIfStep], state: CycleState, pod: Pod, snapshot: Snapshot,
           part: np.ndarray, pdbs: list, allowed: list[int], room: NominatedRoom,
           limit: int | None) -> _Chunk:
    priority = pod.priority
    table = snapshot.pod_table
    requests = table.requests()
    # One pass over the lower-priority pods of the chunk's nodes: how many, and their requests.
    position = np.full(snapshot.num_nodes, -1, dtype=np.intp)
    position[part] = np.arange(len(part))
    rows = np.flatnonzero(table.alive & (table.priority < priority))
    at = position[table.node[rows]]
    rows, at = rows[at >= 0], at[at >= 0]
    lower_count = np.bincount(at, minlength=len(part))
    seen = _Chunk((lower_count > 0).tolist(), {}, {})
    with_lower = np.flatnonzero(lower_count)
    if not len(with_lower):
        return seen
    nodes = part[with_lower]
    removed = _Sums({}, np.zeros(len(nodes), dtype=np.int64))
    # Rows grouped by node, then each group summed (int64, wrapping as the snapshot's sums do).
    order = np.argsort(at, kind="stable")
    starts = np.flatnonzero(np.diff(at[order], prepend=-1))
    grouped = rows[order]
    with np.errstate(over="ignore"):
        for name, column in requests.items():
            values = column[grouped]
            if values.any():
                removed.delta[name] = -np.add.reduceat(values, starts)
    removed.count -= lower_count[with_lower]
    with_nominated = removed.copy()
    added, added_count = room.delta(nodes)
    with_nominated.add(np.arange(len(nodes)), added, +1, added_count)
    nominated = added_count > 0
    passing, failed = _both_passes(framework, steps, state, pod, snapshot, nodes, np.arange(len(nodes)),
                                   with_nominated, removed, nominated, with_reasons=True)
    positions = with_lower.tolist()
    for status, rows_of in failed.groups(np.flatnonzero(~passing)):
        for r in rows_of.tolist():
            seen.failed[positions[r]] = status
    candidates = np.flatnonzero(passing)[:limit]  # the walk stops at the limit-th (None: no limit)
    if len(candidates):
        on = _compact_of(at, with_lower)
        _reprieve(framework, steps, state, pod, snapshot, nodes, candidates, rows, on, removed,
                  with_nominated, nominated, pdbs, allowed, seen, positions)
    return seen


def _both_passes(framework: Framework, steps: list[WhatIfStep], state: CycleState, pod: Pod,
                 snapshot: Snapshot, nodes: np.ndarray, at: np.ndarray, with_nominated: _Sums, removed: _Sums,
                 nominated: np.ndarray, with_reasons: bool) -> tuple[np.ndarray, WhatIfFailures]:
    """``PodPassesFiltersOnNode`` for the nodes ``nodes[at]``: the steps with the nominated pods
    added and, where that passed and some are nominated (``nominated``, by position), without them;
    a node fits only if both pass, and one failing the first pass keeps that pass's status."""
    passing, failed = framework.filter_what_if(state, pod, steps, snapshot, nodes[at],
                                               with_nominated.columns(snapshot, nodes[at], at),
                                               with_reasons=with_reasons)
    second = np.flatnonzero(passing & nominated[at])
    if len(second):
        again_at = at[second]
        ok, again = framework.filter_what_if(state, pod, steps, snapshot, nodes[again_at],
                                             removed.columns(snapshot, nodes[again_at], again_at),
                                             with_reasons=with_reasons)
        for j in np.flatnonzero(~ok).tolist():
            passing[second[j]] = False
            failed[int(second[j])] = again[j]
    return passing, failed


def _compact_of(at: np.ndarray, with_lower: np.ndarray) -> np.ndarray:
    """``at`` (positions in the chunk) as positions among the chunk's nodes with lower-priority pods."""
    compact = np.full(int(with_lower.max()) + 1, -1, dtype=np.intp)
    compact[with_lower] = np.arange(len(with_lower))
    return compact[at]


def _reprieve(framework: Framework, steps: list[WhatIfStep], state: CycleState, pod: Pod, snapshot: Snapshot,
              nodes: np.ndarray, candidates: np.ndarray, rows: np.ndarray, row_node: np.ndarray,
              removed: _Sums, with_nominated: _Sums, nominated: np.ndarray, pdbs: list, allowed: list[int],
              seen: _Chunk, positions: list[int]) -> None:
    """Put each candidate's pods back in the reference order (most important first, equal ones in
    node order; PDB-violating ones first when there are PDBs), keeping those that still fit.
    ``rows``/``row_node``: the chunk's lower-priority pods, and which of ``nodes`` each is on."""
    table = snapshot.pod_table
    requests = table.requests()
    # The candidates' lower-priority pods, grouped by candidate in reprieve order.
    which = np.full(len(nodes), -1, dtype=np.intp)
    which[candidates] = np.arange(len(candidates))
    mine = which[row_node] >= 0
    pod_rows, owner = rows[mine], which[row_node[mine]]
    order = np.lexsort((table.seq[pod_rows], table.start[pod_rows], -table.priority[pod_rows], owner))
    pod_rows, owner = pod_rows[order], owner[order]
    lengths = np.bincount(owner, minlength=len(candidates))
    first = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    violates = np.zeros(len(candidates), dtype=np.intp)  # per candidate: its first pods violating a PDB
    if pdbs:
        pods = table.pods
        for c in range(len(candidates)):
            group = pod_rows[first[c]: first[c] + lengths[c]]
            violating, non_violating = filter_pods_with_pdb_violation([pods[r] for r in group], pdbs, allowed)
            row_of = table.row_of
            group[:] = [row_of[p] for p in violating + non_violating]
            violates[c] = len(violating)
    longest = int(lengths.max())
    matrix = np.full((len(candidates), longest), -1, dtype=np.intp)
    matrix[owner, np.arange(len(pod_rows)) - first[owner]] = pod_rows
    victim = np.zeros((len(candidates), longest), dtype=bool)
    resource_steps = [s for s in steps if s.with_columns is not None]
    faults: dict[int, Status] = {}
    faulted = np.zeros(len(candidates), dtype=bool)
    for j in range(longest):
        active = np.flatnonzero((lengths > j) & ~faulted)
        if not len(active):
            break
        at = candidates[active]
        back = {name: column[matrix[active, j]] for name, column in requests.items()}
        removed.add(at, back, +1)
        with_nominated.add(at, back, +1)
        if not resource_steps:
            continue
        ok, failed = _both_passes(framework, resource_steps, state, pod, snapshot, nodes, at, with_nominated,
                                  removed, nominated, with_reasons=False)
        if any(status.fault for status in failed.statuses):
            for i in np.flatnonzero(~ok).tolist():
                if failed[i].fault:
                    faults[int(active[i])] = failed[i]
                    faulted[active[i]] = True
                    ok[i] = True  # not taken: the walk raises the fault if it gets here
        taken = np.flatnonzero(~ok)
        if not len(taken):
            continue
        removed.add(at[taken], {name: values[taken] for name, values in back.items()}, -1)
        with_nominated.add(at[taken], {name: values[taken] for name, values in back.items()}, -1)
        victim[active[taken], j] = True
    pods = table.pods
    in_pdb = np.arange(longest) < violates[:, None]
    violations = (victim & in_pdb).sum(axis=1).tolist()
    rankings = _rankings(table, matrix, victim)
    every = [pods[row] for row in matrix[victim].tolist()]  # row by row: each candidate's in order
    ends = np.cumsum(victim.sum(axis=1)).tolist()
    start = 0
    for c, r in enumerate(candidates.tolist()):
        victims = every[start: ends[c]]
        start = ends[c]
        seen.candidates[positions[r]] = Outcome(int(nodes[r]), faults.get(c), victims, violations[c],
                                                rankings[c] if victims else None)


def _rankings(table: Any, matrix: np.ndarray, victim: np.ndarray) -> list[tuple[int, int, int, float]]:
    """Per candidate with victims: its first victim's priority, the sum of its victims' priorities
    each offset by 2^31, their number, and the earliest start among its highest-priority ones."""
    priority = np.where(victim, table.priority[matrix], 0)
    start = table.start[matrix]
    first = priority[np.arange(len(matrix)), victim.argmax(axis=1)]
    total = np.where(victim, priority + (MAX_INT32 + 1), 0).sum(axis=1)
    count = victim.sum(axis=1)
    top = np.where(victim, priority, np.iinfo(np.int64).min).max(axis=1)
    earliest = np.where(victim & (priority == top[:, None]), start, np.inf).min(axis=1)
    return list(zip(first.tolist(), total.tolist(), count.tolist(), earliest.tolist(), strict=True))
