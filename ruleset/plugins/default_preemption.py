"""DefaultPreemption (PostFilter): make room for a pod by evicting lower-priority pods.

v1.20 ``defaultpreemption``, step by step:

1. Eligibility: a pod with ``preemptionPolicy: Never`` never preempts; a pod already
   nominated to a node waits while a lower-priority pod there is still terminating (unless
   that node is now UnschedulableAndUnresolvable for it).
2. Candidate nodes: every node whose filter status is not UnschedulableAndUnresolvable.
3. Dry run per node (``selectVictimsOnNode``): a node without lower-priority pods is no
   candidate; otherwise remove every lower-priority pod; if the pod then fits (filters
   re-run, nominated pods included), add the removed pods back one by one — PDB-violating
   ones first, then the rest, each group most important first (higher priority, then
   earlier start) — keeping each one that still lets the pod fit; the others are the
   victims, and the PDB violations are the violating pods among them.
4. The walk over candidate nodes stops once at least one candidate violates no PDB and
   ``max(minCandidateNodesAbsolute, N × minCandidateNodesPercentage / 100)`` (at most N)
   were found; each of the two lists (violating or not) keeps at most that many
   candidates, later ones are dropped, as upstream's fixed-size lists do.
5. One node is picked (``pickOneNodeForPreemption``): fewest PDB violations, then the
   lowest priority of its most important victim, then the smallest sum of victim
   priorities (each offset by 2^31 so negative priorities count), then the fewest victims,
   then the latest start time among its highest-priority victims, then the first.

Deterministic choices where upstream is not: the walk starts at an offset drawn from a
generator seeded with the pod's namespace and name (upstream: ``rand.Int31n``), or at 0 when it
visits every node anyway (:meth:`DefaultPreemption.offset`), and visits one node at a time
(upstream checks 16 in parallel, so a few more candidates may come back); candidates are
listed in the scheduler's node order, non-violating ones first, and ties go to the first of
them (upstream iterates a map); victims of equal priority and start time keep their order on
the node (upstream's sort is not stable); a pod without ``status.startTime`` counts as
started now, i.e. after every pod that has one, and two such pods tie (upstream reads the
clock for each). A candidate without victims (possible only when the pod fits with every
pod in place) ranks before any candidate with victims (upstream would index its empty
victim list).

A plugin that faults while a dry run re-runs it (raises, or returns what its hook cannot
return: the framework marks that Error ``Status.fault``) ends the attempt: the PostFilter
result is that plugin's Error, naming it, not DefaultPreemption. An Error a plugin reports
itself makes the node no candidate, as v1.20's ``selectVictimsOnNode`` does.

From 1.24 (``STATUS_MESSAGE``) an Unschedulable result says why, as upstream's PostFilter
status does: "preemption: " and the reason the pod may not preempt, or, when no node is a
candidate, the dry run's FitError: "0/N nodes are available: <histogram>." over "Preemption is
not helpful for scheduling" (nodes that are UnschedulableAndUnresolvable), "No preemption
victims found for incoming pod" (nodes without lower-priority pods) and the reasons of the
filter that still rejects the pod once every lower-priority pod is gone. The scheduler appends
it to the pod's FitError message. (1.21 to 1.23 built the same status but only logged it.)

When every Filter plugin's verdicts for the pod ignore other pods or read them only as summed
requests (:mod:`ruleset.framework.dependence`), the dry run runs for many nodes at once on
columns (:mod:`.default_preemption_bulk`), with the same results; otherwise, and under
``RULESET_REFERENCE_PATH=1``, node by node as upstream's code does.

The plugin only computes: the scheduler evicts the victims and nominates the pod, and
the pod is scheduled in a later cycle, as upstream does. When no node is a candidate at
step 2 the report says so (``clear_nomination``), and the scheduler clears the pod's
nominated node, as ``FindCandidates`` does.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ruleset import (
    ArgError,
    Code,
    CycleState,
    Handle,
    NodeStatuses,
    NominatedRoom,
    Plugin,
    PostFilterResult,
    Snapshot,
    Status,
    fast_paths,
    hookimpl,
    switch,
)
from ruleset.api.pod import Pod
from ruleset.plugins import default_preemption_args
from ruleset.plugins import default_preemption_bulk as bulk
from ruleset.plugins.default_preemption_args import DefaultPreemptionArgs
from ruleset.snapshot.pdb import budgets, filter_pods_with_pdb_violation

if TYPE_CHECKING:
    from ruleset.framework.runtime import Framework, WhatIfStep

MAX_INT32 = bulk.MAX_INT32

STATUS_MESSAGE = switch(
    "DefaultPreemption.status-message", "1.24",
    "an Unschedulable PostFilter status carries a message: \"preemption: \" and why the pod may not preempt, "
    "or the dry run's \"0/N nodes are available: ...\" (shown in the pod's FitError message)",
    "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (PostFilter, "
    "PodEligibleToPreemptOthers, SelectVictimsOnNode), pkg/scheduler/framework/preemption/preemption.go "
    "(Preempt, nodesWherePreemptionMightHelp), kubernetes#107775")
ONLY_UNSCHEDULABLE = switch(
    "DefaultPreemption.only-unschedulable-nodes", "1.31",
    "only nodes whose filter status is Unschedulable are dry-run (a node without a status, which "
    "ruleset writes as Success, counts as UnschedulableAndUnresolvable: \"not helpful\"); "
    "patch releases 1.27.16, 1.29.7 and 1.30.4 have it too (back-ports of kubernetes#125197)",
    "pkg/scheduler/framework/preemption/preemption.go (nodesWherePreemptionMightHelp), kubernetes#125197")
#: ``PodEligibleToPreemptOthers``' reasons, and the statuses ``Preempt``'s FitError counts.
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


# Moved out (with its validation) so that ``ruleset validate`` reads it without this module's imports.


@dataclass
class Candidate:
    """A node where preemption would make the pod fit, and what it would cost."""

    node: str
    index: int
    victims: list[Pod]
    pdb_violations: int
    #: The bulk dry run's precomputed criteria (see :func:`ranking`); None: worked out from the victims.
    precomputed: tuple[int, int, int, float] | None = field(default=None, repr=False, compare=False)

    def ranking(self) -> tuple[int, int, int, float]:
        """``pickOneNodeForPreemption``'s criteria after the PDB violations, for a candidate with
        victims: the first victim's priority, the sum of the victims' priorities each offset by
        2^31, their number, and the earliest start among the highest-priority ones."""
        if self.precomputed is not None:
            return self.precomputed
        victims = self.victims
        return (victims[0].priority, sum(v.priority + MAX_INT32 + 1 for v in victims), len(victims),
                earliest_start_of_most_important(victims))

    def to_json(self) -> dict[str, Any]:
        return {"node": self.node, "victims": [v.key for v in self.victims],
                "pdbViolations": self.pdb_violations}


class FoundCandidates(Sequence[Candidate]):
    """The bulk dry run's candidates (:class:`~.default_preemption_bulk.Found`) as a list of
    :class:`Candidate`, each made when read: a walk keeps hundreds, and a run without
    ``--verbose`` reads only how many there are and the chosen one."""

    def __init__(self, found: bulk.Found, names: list[str], pods: list[Pod]):
        self._found, self._names, self._pods = found, names, pods

    def __len__(self) -> int:
        return len(self._found)

    @overload
    def __getitem__(self, i: int) -> Candidate: ...

    @overload
    def __getitem__(self, i: slice) -> list[Candidate]: ...

    def __getitem__(self, i: int | slice) -> Candidate | list[Candidate]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        found = self._found
        if i < 0:
            i += len(found)
        if not 0 <= i < len(found):
            raise IndexError(i)
        index = int(found.nodes[i])
        return Candidate(node=self._names[index], index=index, victims=found.victims(i, self._pods),
                         pdb_violations=int(found.violations[i]), precomputed=found.ranking(i))

    def pick(self) -> tuple[Candidate, str]:
        """``pickOneNodeForPreemption`` over the list (:meth:`.default_preemption_bulk.Found.pick`):
        the chosen candidate and why (the list is not empty)."""
        index, why = self._found.pick()
        return self[index], why

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return repr(list(self))


@dataclass
class PreemptionReport:
    """Everything the preemption attempt found, for ``score``/``schedule`` reports."""

    candidates: Sequence[Candidate] = field(default_factory=list)
    chosen: Candidate | None = None
    #: Why the chosen node won (the first criterion that left one node), or why nothing happened.
    why: str = ""
    #: No node could be helped by preemption: the pod's nominated node is cleared.
    clear_nomination: bool = False

    @property
    def victims(self) -> list[Pod]:
        return self.chosen.victims if self.chosen else []

    def to_json(self) -> dict[str, Any]:
        return {"candidates": [c.to_json() for c in self.candidates],
                "nominatedNode": self.chosen.node if self.chosen else None,
                "reason": self.why}


def start_time(pod: Pod) -> float:
    """``GetPodStartTime``: the pod's start, or "now" (later than any recorded start) when unset."""
    return pod.start_time if pod.start_time is not None else math.inf


def importance_key(pod: Pod) -> tuple[int, float]:
    """Sort key for ``MoreImportantPod``: higher priority first, then earlier start."""
    return (-pod.priority, start_time(pod))


def earliest_start_of_most_important(victims: list[Pod]) -> float:
    """``GetEarliestPodStartTime``: the earliest start among the highest-priority victims."""
    top = max(v.priority for v in victims)
    return min(start_time(v) for v in victims if v.priority == top)


def pick_one_node_for_preemption(candidates: list[Candidate]) -> tuple[Candidate | None, str]:
    """``pickOneNodeForPreemption`` over candidates in order; also says which criterion decided."""
    if not candidates:
        return None, ""
    steps = ("fewest PDB violations", "lowest highest-victim priority", "smallest sum of victim priorities",
             "fewest victims")
    # Each candidate's criteria, worked out once (the last, the start time, only read at the end).
    keys = [(c.pdb_violations, *c.ranking()) if c.victims else (c.pdb_violations, -MAX_INT32 - 1, 0, 0, 0.0)
            for c in candidates]
    remaining = list(range(len(candidates)))
    for step, why in enumerate(steps):
        best = min(keys[i][step] for i in remaining)
        remaining = [i for i in remaining if keys[i][step] == best]
        if len(remaining) == 1:
            return candidates[remaining[0]], why if len(candidates) > 1 else "the only candidate"
    chosen = candidates[remaining[0]]
    if not chosen.victims:
        return chosen, "first of the tied candidates"
    latest = keys[remaining[0]][4]
    for i in remaining[1:]:
        if candidates[i].victims and keys[i][4] > latest:
            latest, chosen = keys[i][4], candidates[i]
    return chosen, "latest start time of its most important victims"


def preemption_fit_error(num_all_nodes: int, unhelpful: int, failures: list[tuple[str, ...]]) -> str:
    """``Preempt``'s FitError text (1.24 on): ``unhelpful`` nodes with ``NOT_HELPFUL`` and one
    entry of reasons per other node that is no candidate, as "0/N nodes are available:
    <count> <reason>, ..." sorted as strings (``sort.Strings``), then ".".

    Every release from 1.24 writes a non-empty histogram this way; a histogram can only be empty
    when every failing status has no reasons, and then 1.26's format (no ": .") is used.
    """
    counts: dict[str, int] = {NOT_HELPFUL: unhelpful} if unhelpful else {}
    for reasons in failures:
        for reason in reasons:
            counts[reason] = counts.get(reason, 0) + 1
    histogram = ", ".join(sorted(f"{count} {reason}" for reason, count in counts.items()))
    text = f"0/{num_all_nodes} nodes are available:"
    return f"{text} {histogram}." if histogram else text


def nodes_where_preemption_might_help(snapshot: Snapshot, statuses: NodeStatuses,
                                      only_unschedulable: bool = False) -> np.ndarray:
    """``nodesWherePreemptionMightHelp``: nodes (in node-tree order) not UnschedulableAndUnresolvable,
    or (``only_unschedulable``, 1.31 on) only the Unschedulable ones."""
    order = snapshot.evaluation_order
    if only_unschedulable:
        return order[statuses.codes[order] == Code.UNSCHEDULABLE]
    return order[statuses.codes[order] != Code.UNSCHEDULABLE_AND_UNRESOLVABLE]


class _Fault(Exception):
    """A plugin faulted during a dry run: ``status`` is its Error, reported as the PostFilter outcome."""

    def __init__(self, status: Status):
        super().__init__(status.message())
        self.status = status


def _fits(status: Status) -> bool:
    """Whether a dry-run step succeeded; a plugin's fault ends the dry run (:class:`_Fault`)."""
    if status.fault:
        raise _Fault(status)
    return status.is_success


class DefaultPreemption(Plugin):
    """When no node fits, picks a node where evicting lower-priority pods makes room and
    nominates the pod to it (PostFilter)."""

    name = "DefaultPreemption"
    Args = DefaultPreemptionArgs

    def __init__(self, args: Any = None, handle: Handle | None = None):
        super().__init__(args, handle)
        # Read once: the hook itself carries no version check.
        self._messages = self.handle.target.has(STATUS_MESSAGE)
        self._only_unschedulable = self.handle.target.has(ONLY_UNSCHEDULABLE)
        #: Candidates per node visited in the last bulk walk (sizes the next walk's first chunk).
        self._walk_hint = [0.5]

    @classmethod
    def validate_args(cls, args: DefaultPreemptionArgs) -> list[ArgError]:
        """``ValidateDefaultPreemptionArgs`` (:mod:`.default_preemption_args`)."""
        return default_preemption_args.validate_args(args)

    def num_candidates(self, num_nodes: int) -> int:
        """``calculateNumCandidates``."""
        n = num_nodes * self.args.min_candidate_nodes_percentage // 100
        n = max(n, self.args.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def _unschedulable(self, message: str) -> Status:
        """The Unschedulable outcome: with "preemption: <message>" from 1.24 on, bare before."""
        if not self._messages:
            return Status(Code.UNSCHEDULABLE)
        return Status(Code.UNSCHEDULABLE, (f"preemption: {message}",))

    @hookimpl
    def ruleset_post_filter(self, state: CycleState, pod: Pod, statuses: NodeStatuses) -> PostFilterResult:
        snapshot = self.handle.snapshot
        assert snapshot is not None
        report = PreemptionReport()
        if not self.eligible(pod, snapshot, statuses, report):
            never = pod.preemption_policy == "Never"
            message = NOT_ELIGIBLE_NEVER if never else NOT_ELIGIBLE_TERMINATING
            return PostFilterResult(status=self._unschedulable(message), details=report)
        potential = nodes_where_preemption_might_help(snapshot, statuses, self._only_unschedulable)
        # Every other node is "not helpful": an UnschedulableAndUnresolvable one (and from 1.31 one
        # without a status), as upstream's map, or its absent-nodes status (1.31), counts it.
        unhelpful = snapshot.num_nodes - len(potential)
        if not len(potential):
            report.why = "preemption will not help: every node is unschedulable and unresolvable for this pod"
            report.clear_nomination = True
            message = preemption_fit_error(snapshot.num_nodes, unhelpful, [])
            return PostFilterResult(status=self._unschedulable(message), details=report)
        failures: list[tuple[str, ...]] | None = [] if self._messages else None
        try:
            offset = self.offset(pod, len(potential))
            report.candidates = self.dry_run(state, pod, snapshot, potential, offset, failures=failures)
        except _Fault as fault:
            return PostFilterResult(status=fault.status, details=report)
        if not report.candidates:
            report.why = "no node would fit the pod even with every lower-priority pod removed"
            message = preemption_fit_error(snapshot.num_nodes, unhelpful, failures or [])
            return PostFilterResult(status=self._unschedulable(message), details=report)
        if isinstance(report.candidates, FoundCandidates):  # in node order already (see dry_run)
            report.chosen, report.why = report.candidates.pick()
            return PostFilterResult(nominated_node=report.chosen.node, details=report)
        candidates = list(report.candidates)
        if offset:  # candidates in node order whatever the offset: ties go to the first of them
            position = np.empty(snapshot.num_nodes, dtype=np.intp)
            position[potential] = np.arange(len(potential))
            candidates.sort(key=lambda c: (c.pdb_violations > 0, position.item(c.index)))
        report.candidates = candidates
        report.chosen, report.why = pick_one_node_for_preemption(candidates)
        assert report.chosen is not None
        return PostFilterResult(nominated_node=report.chosen.node, details=report)

    @staticmethod
    def eligible(pod: Pod, snapshot: Snapshot, statuses: NodeStatuses, report: PreemptionReport) -> bool:
        """``PodEligibleToPreemptOthers``."""
        if pod.preemption_policy == "Never":
            report.why = "the pod's preemptionPolicy is Never"
            return False
        nominated = pod.nominated_node_name
        index = snapshot.node_index.get(nominated) if nominated else None
        if index is not None:
            if statuses.codes[index] == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True
            if any(p.terminating and p.priority < pod.priority for p in snapshot.pods_on(index)):
                report.why = f"waiting for lower-priority pods terminating on its nominated node {nominated}"
                return False
        return True

    def offset(self, pod: Pod, num_potential: int) -> int:
        """Where the walk over the potential nodes starts (upstream: ``rand.Int31n(len)``).

        Drawn from a generator seeded with the pod's namespace and name, so a pod's walk is the
        same in ``schedule``, ``score`` and ``explain``, whatever else ran before it; 0 when the
        walk must visit every node anyway (upstream's draw then changes only the order, and
        ruleset lists candidates in node order).
        """
        if self.num_candidates(num_potential) >= num_potential:
            return 0
        return random.Random(f"ruleset.DefaultPreemption.offset:{pod.namespace}/{pod.name}").randrange(
            num_potential)

    def dry_run(self, state: CycleState, pod: Pod, snapshot: Snapshot, potential: np.ndarray,
                offset: int = 0, failures: list[tuple[str, ...]] | None = None) -> Sequence[Candidate]:
        """``dryRunPreemption``, walking from ``offset``: non-violating candidates first, then violating
        ones, each in the order found.

        Each list holds at most ``calculateNumCandidates`` candidates (upstream's
        fixed-size lists silently drop the rest). The reasons of each node that is no
        candidate are appended to ``failures`` (when given), for the 1.24 message. When every
        Filter plugin allows it, the dry run runs in bulk (:mod:`.default_preemption_bulk`),
        with identical results, and returns :class:`FoundCandidates` already in node order within
        each list (the order :meth:`ruleset_post_filter` puts them in).
        """
        pdbs = snapshot.workloads.pod_disruption_budgets
        allowed = budgets(snapshot)
        wanted = self.num_candidates(len(potential))
        framework = self.handle.framework
        assert framework is not None
        steps = framework.what_if_steps(state, pod) if fast_paths() else None
        if steps is not None:
            return self._walk_in_bulk(framework, steps, state, pod, snapshot, potential, offset, pdbs,
                                      allowed, failures, wanted)
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []

        def found(candidate: Candidate) -> bool:
            group = violating if candidate.pdb_violations else non_violating
            if len(group) < wanted:
                group.append(candidate)
            return bool(non_violating) and len(non_violating) + len(violating) >= wanted

        n = len(potential)
        for i in range(n):
            index = int(potential[(offset + i) % n])
            candidate = self.select_victims_on_node(state, pod, snapshot, index, pdbs, allowed, failures)
            if candidate is not None and found(candidate):
                break
        return non_violating + violating

    def _walk_in_bulk(self, framework: Framework, steps: list[WhatIfStep], state: CycleState, pod: Pod,
                      snapshot: Snapshot, potential: np.ndarray, offset: int, pdbs: list, allowed: list[int],
                      failures: list[tuple[str, ...]] | None, wanted: int) -> FoundCandidates:
        def fault(status: Status) -> None:
            raise _Fault(status)

        found = bulk.walk(framework, steps, state, pod, snapshot,
                          np.concatenate((potential[offset:], potential[:offset])), pdbs, allowed,
                          NominatedRoom.of(state, snapshot, self.handle.nominator, pod), wanted, fault,
                          failures, (NO_VICTIMS,), self._walk_hint)
        # Non-violating first, then violating, each in node order (the walk's order when offset is 0).
        position = np.empty(snapshot.num_nodes, dtype=np.intp)
        position[potential] = np.arange(len(potential))
        found = found.take(np.lexsort((position[found.nodes], found.violations > 0)))
        return FoundCandidates(found, snapshot.node_names, snapshot.pod_table.pods)

    def select_victims_on_node(self, state: CycleState, pod: Pod, snapshot: Snapshot, index: int,
                               pdbs: list, allowed: list[int],
                               failures: list[tuple[str, ...]] | None = None) -> Candidate | None:
        """``selectVictimsOnNode``, on the live snapshot inside a what-if block (undone after).

        When the node is no candidate, the reasons of its status are appended to ``failures``
        (if given): ``NO_VICTIMS``, or those of the step that failed.
        """
        framework = self.handle.framework
        assert framework is not None
        lower = [p for p in snapshot.pods_on(index) if p.priority < pod.priority]
        if not lower:
            if failures is not None:
                failures.append((NO_VICTIMS,))
            return None
        with snapshot.what_if():
            trial = state.clone()

            def passed(status: Status) -> bool:
                if _fits(status):
                    return True
                if failures is not None:
                    failures.append(status.reasons)
                return False

            def remove(victim: Pod) -> bool:
                snapshot.remove_pod(victim)
                return passed(framework.run_pre_filter_remove_pod(trial, pod, victim, index, snapshot))

            def add(victim: Pod) -> bool:
                snapshot.add_pod(victim, index)
                return passed(framework.run_pre_filter_add_pod(trial, pod, victim, index, snapshot))

            for victim in lower:
                if not remove(victim):
                    return None
            if not passed(framework.run_filters_on_node(trial, pod, index, snapshot)):
                return None
            ordered = sorted(lower, key=importance_key)  # stable: equal pods keep their node order
            violating, non_violating = filter_pods_with_pdb_violation(ordered, pdbs, allowed)
            victims: list[Pod] = []
            pdb_violations = 0
            for group, counts in ((violating, True), (non_violating, False)):
                for victim in group:
                    if not add(victim):
                        return None
                    if not _fits(framework.run_filters_on_node(trial, pod, index, snapshot)):
                        if not remove(victim):
                            return None
                        victims.append(victim)
                        pdb_violations += counts
        return Candidate(node=snapshot.node_names[index], index=index, victims=victims,
                         pdb_violations=pdb_violations)
