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
4. The walk then takes the chunk's candidates in order, with the reference walk's stopping rule
   (:func:`_accepted`), all at once.

Candidates stay columns (:class:`Found`: victims as pod-table rows) through the pick
(:meth:`Found.pick`, ``pickOneNodeForPreemption`` on arrays); :class:`Candidate` objects are
only made for the chosen one and for whoever reads the list.

Nothing is changed on the snapshot. Identical results to the reference path are checked in
the tests on upstream's preemption tables and on randomised clusters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ruleset import ROOM_PODS, CycleState, NodeColumns, NominatedRoom, Snapshot, Status
from ruleset.api.pod import Pod
from ruleset.snapshot.chunks import first_chunk, next_chunk
from ruleset.snapshot.pdb import filter_pods_with_pdb_violation

#: ``pickOneNodeForPreemption`` offsets priorities by 2^31 so that negative ones add up.
MAX_INT32 = 2**31 - 1

if TYPE_CHECKING:
    from ruleset.framework.runtime import Framework, WhatIfFailures, WhatIfStep


@dataclass
class Found:
    """Candidates of the walk as columns, one entry per candidate: its node, PDB violations,
    ``pickOneNodeForPreemption``'s criteria after them, and its victims (rows of the pod table,
    which never change meaning: a row is one pod for good) in the reprieve's order."""

    nodes: np.ndarray
    violations: np.ndarray
    #: Its first victim's priority, the sum of its victims' priorities each offset by 2^31, their
    #: number, and the earliest start among its highest-priority ones (see ``Candidate.ranking``).
    first: np.ndarray
    total: np.ndarray
    count: np.ndarray
    earliest: np.ndarray
    #: Every candidate's victims one after the other; candidate ``c``'s end at ``ends[c]``.
    victim_rows: np.ndarray
    ends: np.ndarray

    def __len__(self) -> int:
        return len(self.nodes)

    def take(self, which: np.ndarray) -> Found:
        """The candidates ``which`` (indices, in that order)."""
        count = self.count[which]
        ends = np.cumsum(count)
        # Each kept victim's place in victim_rows: its candidate's old start, plus its rank.
        shift = np.repeat((self.ends - self.count)[which] - (ends - count), count)
        rows = self.victim_rows[shift + np.arange(len(shift))]
        return Found(self.nodes[which], self.violations[which], self.first[which], self.total[which], count,
                     self.earliest[which], rows, ends)

    @staticmethod
    def joined(parts: list[Found]) -> Found:
        if len(parts) == 1:
            return parts[0]
        count = np.concatenate([p.count for p in parts])
        nodes, violations, first, total, earliest, rows = (
            np.concatenate([getattr(p, name) for p in parts])
            for name in ("nodes", "violations", "first", "total", "earliest", "victim_rows"))
        return Found(nodes, violations, first, total, count, earliest, rows, np.cumsum(count))

    @staticmethod
    def empty() -> Found:
        none = np.zeros(0, dtype=np.int64)
        return Found(none, none, none, none, none, np.zeros(0), np.zeros(0, dtype=np.intp), none)

    def victims(self, c: int, pods: list[Pod]) -> list[Pod]:
        """Candidate ``c``'s victims (``pods``: the pod table's pods, by row)."""
        end = int(self.ends[c])
        return [pods[row] for row in self.victim_rows[end - int(self.count[c]): end].tolist()]

    def ranking(self, c: int) -> tuple[int, int, int, float] | None:
        if not self.count[c]:
            return None
        return (int(self.first[c]), int(self.total[c]), int(self.count[c]), float(self.earliest[c]))

    def pick(self) -> tuple[int, str]:
        """``pickOneNodeForPreemption`` over the candidates in order: exactly what
        :func:`~ruleset.plugins.default_preemption.pick_one_node_for_preemption` picks from their
        :class:`Candidate` objects, and the same reason; (-1, "") when there is none."""
        n = len(self.nodes)
        if not n:
            return -1, ""
        if n == 1:
            return 0, "the only candidate"
        has = self.count > 0
        every = bool(has.all())
        if every and not self.violations.any():
            alike = np.stack((self.first, self.total, self.count))
            if (alike.min(axis=1) == alike.max(axis=1)).all():  # all tie up to the start times
                return int(np.argmax(self.earliest)), "latest start time of its most important victims"
        # A candidate without victims ranks before every other on the criteria after the violations.
        keys = (self.violations, self.first if every else np.where(has, self.first, -MAX_INT32 - 1),
                self.total if every else np.where(has, self.total, 0), self.count)
        remaining: np.ndarray | None = None  # None: every candidate
        for key, why in zip(keys, PICK_STEPS, strict=True):
            values = key if remaining is None else key[remaining]
            best = values == values.min()
            tied = int(np.count_nonzero(best))
            if tied == 1:
                return int(np.argmax(best) if remaining is None else remaining[np.argmax(best)]), why
            if tied < len(values):
                remaining = np.flatnonzero(best) if remaining is None else remaining[best]
        if remaining is None:
            remaining = np.arange(n)
        if not has[remaining[0]]:
            return int(remaining[0]), "first of the tied candidates"
        # All remaining have victims (same count); the first with the latest start wins.
        return int(remaining[int(np.argmax(self.earliest[remaining]))]), \
            "latest start time of its most important victims"


#: ``pickOneNodeForPreemption``'s criteria, each with the reason it gives when it decides.
PICK_STEPS = ("fewest PDB violations", "lowest highest-victim priority", "smallest sum of victim priorities",
              "fewest victims")


@dataclass
class _Chunk:
    """What the walk learns of a chunk of nodes: per node (in walk order) whether it has
    lower-priority pods; those nodes' positions in the chunk (ascending) and, aligned with them,
    which failed with every lower-priority pod removed (reasons kept only for faults: ``reasons``
    works the others' out, when the walk finds no candidate and reports them); and its
    candidates: their positions in the chunk (ascending), what they cost (:class:`Found`) and the
    faults met while reprieving them (candidate -> status)."""

    has_lower: np.ndarray
    lower_at: np.ndarray
    failed: WhatIfFailures | None = None
    reasons: Callable[[], WhatIfFailures] | None = None
    positions: np.ndarray | None = None
    found: Found | None = None
    faults: dict[int, Status] = field(default_factory=dict)

    def first_fault(self) -> tuple[int, Status] | None:
        """The first node (position in the chunk) whose first pass or reprieve met a fault."""
        met: list[tuple[int, Status]] = []
        if self.failed is not None:
            for k, status in enumerate(self.failed.statuses):
                if status.fault:
                    r = int(np.flatnonzero(self.failed.which == k)[0])
                    met.append((int(self.lower_at[r]), status))
        if self.faults:
            assert self.positions is not None
            met += [(int(self.positions[c]), status) for c, status in self.faults.items()]
        return min(met, key=lambda item: item[0]) if met else None

    def failures(self, last: int, no_victims: tuple[str, ...]) -> list[tuple[str, ...]]:
        """The reasons of the chunk's first ``last`` nodes that are no candidate."""
        out = [no_victims] * int(np.count_nonzero(~self.has_lower[:last]))
        if self.reasons is not None:
            failed = self.reasons()
            rows = np.flatnonzero((failed.which >= 0) & (self.lower_at < last))
            out += [failed.statuses[k].reasons for k in failed.which[rows].tolist()]
        return out


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
        for name, values in requests.items():  # int64 arrays wrap (silently), as the snapshot's sums do
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
         fault: Callable[[Status], None], failures: list[tuple[str, ...]] | None,
         no_victims: tuple[str, ...], hint: list[float] | None = None) -> Found:
    """Visit the nodes of ``order`` in chunks, as the reference walk does, and return the
    candidates it keeps, in walk order: ``dryRunPreemption``'s rule (:func:`_accepted`) stops it
    once at least one candidate violates no PDB and ``wanted`` were kept, and keeps at most
    ``wanted`` of each kind (when there is no PDB, later candidates of a chunk are not worked
    out). A plugin's fault on a node the walk reaches goes to ``fault`` (which raises). When the
    walk finds no candidate, every node visited adds its reasons to ``failures`` (when given; the
    reference adds them in walk order, and only their counts are read; they are read only when
    there is no candidate): ``no_victims`` for a node without lower-priority pods.

    ``hint`` (one number, read and updated): the candidates per node visited in the plugin's last
    walk, which sizes the first chunk (results never depend on chunk sizes)."""
    n = len(order)
    # Filtering more nodes than needed costs little; the reprieve is limited to what the walk takes.
    position, chunk = 0, max(64, 2 * wanted)
    if hint:
        # A second chunk costs a first pass and a reprieve more; nodes past the walk's end cost
        # only their share of the first pass: 25% over the last walk's estimate (measured:
        # PreemptionBasic at 500 nodes walks 565 chunks for 500 pods, 627 with 10%).
        chunk = first_chunk(n, wanted, hint[0], slack=1.25)
    kept: list[Found] = []
    visited: list[tuple[_Chunk, int]] = []  # each chunk, and how many of its nodes the walk visited
    clean = violating = 0  # candidates kept so far, without and with PDB violations
    while position < n:
        part = order[position: position + chunk]
        limit = None if pdbs else wanted - clean
        seen = _chunk(framework, steps, state, pod, snapshot, part, pdbs, allowed, room, limit)
        stop = None
        if seen.found is not None:
            assert seen.positions is not None
            taken, end, clean, violating = _accepted(seen.found.violations > 0, clean, violating, wanted)
            if end is not None:
                stop = int(seen.positions[end])
        met = seen.first_fault()
        if met is not None and (stop is None or met[0] <= stop):
            fault(met[1])
        if failures is not None:
            visited.append((seen, len(part) if stop is None else stop))
        if seen.found is not None and len(taken):
            kept.append(seen.found if len(taken) == len(seen.found) else seen.found.take(taken))
        if stop is not None:
            position += stop + 1
            break
        position += len(part)
        chunk = next_chunk(chunk, position, clean + violating, wanted)
    if hint:
        hint[0] = (clean + violating) / max(position, 1)
    if kept:
        return Found.joined(kept)
    if failures is not None:  # read only when the walk found no candidate
        for seen, last in visited:
            failures.extend(seen.failures(last, no_victims))
    return Found.empty()


def _accepted(violates: np.ndarray, clean: int, violating: int,
              wanted: int) -> tuple[np.ndarray, int | None, int, int]:
    """``dryRunPreemption``'s bookkeeping over candidates found in order (``violates``: whether
    each violates a PDB), after ``clean`` and ``violating`` kept ones: each kind keeps at most
    ``wanted``; the walk stops after the first candidate at which at least one clean candidate
    and ``wanted`` in all are kept. Returns the indices kept, the one stopping the walk (or
    None), and the two counts after it."""
    if len(violates) and not violates.any():  # the usual case, no PDB: the same in plain integers
        found = len(violates)
        stopping = max(0, wanted - violating - clean - 1)  # the first reaching `wanted` in all
        end = stopping if stopping < found else None
        last = min(stopping, found - 1)
        return (np.arange(min(last + 1, max(0, wanted - clean))), end, min(clean + last + 1, wanted),
                min(violating, wanted))
    clean_after = clean + np.cumsum(~violates)
    violating_after = violating + np.cumsum(violates)
    keeps = np.where(violates, violating_after, clean_after) <= wanted
    clean_kept, violating_kept = np.minimum(clean_after, wanted), np.minimum(violating_after, wanted)
    stops = np.flatnonzero((clean_kept >= 1) & (clean_kept + violating_kept >= wanted))
    end = int(stops[0]) if len(stops) else None
    last = len(violates) - 1 if end is None else end
    if last < 0:
        return np.zeros(0, dtype=np.intp), None, clean, violating
    return (np.flatnonzero(keeps[: last + 1]), end, int(clean_kept[last]), int(violating_kept[last]))


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
    with_lower = np.flatnonzero(lower_count)
    seen = _Chunk(lower_count > 0, with_lower)
    if not len(with_lower):
        return seen
    nodes = part[with_lower]
    removed = _Sums({}, np.zeros(len(nodes), dtype=np.int64))
    # Rows grouped by node, then each group summed (int64, wrapping as the snapshot's sums do).
    order = np.argsort(at, kind="stable")
    sizes = lower_count[with_lower]
    starts = np.cumsum(sizes) - sizes
    grouped = rows[order]
    for name, column in requests.items():
        values = column[grouped]
        if values.any():
            removed.delta[name] = -np.add.reduceat(values, starts)
    removed.count -= lower_count[with_lower]
    with_nominated = removed.copy()
    added, added_count = room.delta(nodes)
    with_nominated.add(np.arange(len(nodes)), added, +1, added_count)
    nominated = added_count > 0
    everywhere = np.arange(len(nodes))
    # Reasons are read only when the walk finds no candidate at all: worked out again then (the
    # sums are as they are now: a chunk without candidates reprieves nothing).
    passing, seen.failed = _both_passes(framework, steps, state, pod, snapshot, nodes, everywhere,
                                        with_nominated, removed, nominated, with_reasons=False)
    seen.reasons = lambda: _both_passes(framework, steps, state, pod, snapshot, nodes, everywhere,
                                        with_nominated, removed, nominated, with_reasons=True)[1]
    candidates = np.flatnonzero(passing)[:limit]  # the walk stops at the limit-th (None: no limit)
    if len(candidates):
        on = _compact_of(at, with_lower)
        seen.positions = with_lower[candidates]
        seen.found, seen.faults = _reprieve(framework, steps, state, pod, snapshot, nodes, candidates, rows,
                                            on, removed, with_nominated, nominated, pdbs, allowed)
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
              removed: _Sums, with_nominated: _Sums, nominated: np.ndarray, pdbs: list,
              allowed: list[int]) -> tuple[Found, dict[int, Status]]:
    """Put each candidate's pods back in the reference order (most important first, equal ones in
    node order; PDB-violating ones first when there are PDBs), keeping those that still fit.
    ``rows``/``row_node``: the chunk's lower-priority pods, and which of ``nodes`` each is on.
    Returns the candidates (``candidates`` of ``nodes``, in order) and the faults met (candidate ->
    status)."""
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
    first = np.cumsum(lengths) - lengths
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
    faults: dict[int, Status] = {}
    resource_steps = [s for s in steps if s.with_columns is not None]
    if resource_steps:  # else every pod goes back: no victims
        # Without nominated pods on any candidate, the two passes' sums agree there: keep one.
        both = bool(nominated[candidates].any())
        if not both:
            removed = with_nominated
        rooms = _rooms(framework, resource_steps, state, pod, snapshot, nodes, candidates, with_nominated,
                       removed, both)
        if rooms is not None:
            _reprieve_by_room(rooms, nominated[candidates], requests, matrix, lengths, victim)
        else:
            faults = _reprieve_by_steps(framework, resource_steps, state, pod, snapshot, nodes, candidates,
                                        requests, matrix, lengths, victim, with_nominated, removed,
                                        nominated, both)
    if pdbs:
        violations = (victim & (np.arange(victim.shape[1]) < violates[:, None])).sum(axis=1)
    else:
        violations = np.zeros(len(candidates), dtype=np.int64)
    first, total, count, earliest = _rankings(table, matrix, victim, ordered=not violates.any())
    return Found(nodes[candidates], violations, first, total, count, earliest, matrix[victim],
                 np.cumsum(count)), faults


def _reprieve_by_steps(framework: Framework, steps: list[WhatIfStep], state: CycleState, pod: Pod,
                       snapshot: Snapshot, nodes: np.ndarray, candidates: np.ndarray,
                       requests: dict[str, np.ndarray], matrix: np.ndarray, lengths: np.ndarray,
                       victim: np.ndarray, with_nominated: _Sums, removed: _Sums, nominated: np.ndarray,
                       both: bool) -> dict[int, Status]:
    """The reprieve loop asking the resource ``steps`` whether each candidate passes with its
    ``j``-th pod put back (both passes where ``both``; else ``removed`` is ``with_nominated``),
    marking the pods that do not as victims. Returns the faults met (candidate -> status): a
    faulted candidate puts nothing more back."""
    faults: dict[int, Status] = {}
    faulted = np.zeros(len(candidates), dtype=bool)
    for j in range(matrix.shape[1]):
        active = np.flatnonzero((lengths > j) & ~faulted)
        if not len(active):
            break
        at = candidates[active]
        back = {name: column[matrix[active, j]] for name, column in requests.items()}
        if both:
            removed.add(at, back, +1)
        with_nominated.add(at, back, +1)
        ok, failed = _both_passes(framework, steps, state, pod, snapshot, nodes, at, with_nominated, removed,
                                  nominated, with_reasons=False)
        if any(status.fault for status in failed.statuses):
            for i in np.flatnonzero(~ok).tolist():
                if failed[i].fault:
                    faults[int(active[i])] = failed[i]
                    faulted[active[i]] = True
                    ok[i] = True  # not taken: the walk raises the fault if it gets here
        taken = np.flatnonzero(~ok)
        if not len(taken):
            continue
        taken_back = {name: values[taken] for name, values in back.items()}
        if both:
            removed.add(at[taken], taken_back, -1)
        with_nominated.add(at[taken], taken_back, -1)
        victim[active[taken], j] = True
    return faults


def _rooms(framework: Framework, steps: list[WhatIfStep], state: CycleState, pod: Pod, snapshot: Snapshot,
           nodes: np.ndarray, candidates: np.ndarray, with_nominated: _Sums, removed: _Sums,
           both: bool) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None] | None:
    """The candidates' rooms (:meth:`Framework.room_what_if`) with the nominated pods and, when
    some candidate holds nominated pods, without them; None when a resource step gives none."""
    at = nodes[candidates]
    with_them = framework.room_what_if(state, pod, steps, snapshot, at,
                                       with_nominated.columns(snapshot, at, candidates))
    if with_them is None or not both:
        return None if with_them is None else (with_them, None)
    without = framework.room_what_if(state, pod, steps, snapshot, at,
                                     removed.columns(snapshot, at, candidates))
    return None if without is None else (with_them, without)


def _reprieve_by_room(rooms: tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None],
                      nominated: np.ndarray, requests: dict[str, np.ndarray], matrix: np.ndarray,
                      lengths: np.ndarray, victim: np.ndarray) -> None:
    """The reprieve loop when the resource steps gave rooms: putting back each candidate's ``j``-th
    pod keeps it when what was put back, plus it, stays within every room (both rooms on a node
    holding nominated pods: the two passes); else it is a victim (marked in ``victim``).

    Every candidate takes step ``j`` at once, on arrays stacked by resource name, the pod count
    last; a name a room does not limit has no limit there. A candidate with fewer than ``j + 1``
    pods puts nothing back at ``j`` (its padding asks for nothing, and what it put back so far
    fits: it passed with every pod removed)."""
    with_them, without = rooms
    names = sorted({name for room in (with_them, without or {}) for name in room if name != ROOM_PODS})
    present = matrix >= 0
    back = np.zeros((len(names) + 1, *matrix.shape), dtype=np.int64)
    for k, name in enumerate(names):
        if name in requests:
            back[k] = requests[name][matrix]
    back[-1] = 1
    back *= present  # int64 arithmetic below wraps, as the sums the plugin reads do
    first = _stacked(with_them, names, len(lengths))
    second = None if without is None else _stacked(without, names, len(lengths))
    spared = ~nominated  # nodes with no second pass
    added = np.zeros(back.shape[:2], dtype=np.int64)
    for j in range(matrix.shape[1]):
        trial = added + back[:, :, j]
        ok = (trial <= first).all(axis=0)
        if second is not None:
            ok &= spared | (trial <= second).all(axis=0)
        added = np.where(ok, trial, added)
        victim[:, j] = present[:, j] & ~ok


def _stacked(room: dict[str, np.ndarray], names: list[str], n: int) -> np.ndarray:
    """A room as one row per name of ``names``, the pod count last; unlimited where it has none."""
    stacked = np.empty((len(names) + 1, n), dtype=np.int64)
    for k, name in enumerate((*names, ROOM_PODS)):
        stacked[k] = room[name] if name in room else np.iinfo(np.int64).max
    return stacked


def _rankings(table: Any, matrix: np.ndarray, victim: np.ndarray,
              ordered: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per candidate: its first victim's priority, the sum of its victims' priorities each offset
    by 2^31, their number, and the earliest start among its highest-priority ones (0, 0, 0 and
    inf for a candidate without victims). ``ordered``: each row of ``matrix`` runs from the most
    important pod down (no PDB put some first), so a row's first victim is also one of its
    highest priority and, among those, the earliest started."""
    count = victim.sum(axis=1)
    total = np.where(victim, table.priority[matrix], 0).sum(axis=1) + count * (MAX_INT32 + 1)
    has = count > 0
    leading = matrix[np.arange(len(matrix)), victim.argmax(axis=1)]
    first = np.where(has, table.priority[leading], 0)
    if ordered:
        return first, total, count, np.where(has, table.start[leading], np.inf)
    priority = np.where(victim, table.priority[matrix], 0)
    top = np.where(victim, priority, np.iinfo(np.int64).min).max(axis=1)
    earliest = np.where(victim & (priority == top[:, None]), table.start[matrix], np.inf).min(axis=1)
    return first, total, count, earliest
