"""The scheduling cycle of kube-scheduler v1.20, over a columnar snapshot.

PreFilter → Filter (first failing plugin per node decides) → PostFilter when nothing fits
→ PreScore → Score → NormalizeScore → weighted sum → host selection, then Reserve, Permit,
PreBind, Bind and PostBind, updating the snapshot as the pod lands. A pod Permit makes
wait stays assumed between :meth:`Scheduler.reserve_and_permit` and :meth:`Scheduler.bind`
(or :meth:`Scheduler.forget`); the loop decides when.

Where upstream is nondeterministic this module picks a rule and keeps to it:

* Filter runs node by node upstream, in parallel, from a start index that rotates across
  cycles, stopping once ``numFeasibleNodesToFind`` nodes fit. Here nodes are visited in the
  same circular order from the same rotating index and the first ``numFeasibleNodesToFind``
  feasible ones are kept, exactly as a sequential run would.
* From 1.22 (``PreferNominatedNode``, alpha in 1.21) a pod with a nominated node tries that
  node alone first and, if it passes, takes it without scoring. As upstream's
  ``findNodesThatPassFilters`` over that one node, this leaves the rotating start index at 0,
  and a nominated node that failed stays among the statuses the next scan counts as processed.
* From 1.30 a profile without Score plugins looks for one feasible node only
  (:data:`ONE_NODE_WITHOUT_SCORING`): the first that passes in that circular order.
* ``selectHost`` keeps one of the top-scoring nodes by reservoir sampling, i.e. uniformly at
  random. Here the choice is ``ties[rng.randrange(len(ties))]`` over the tied nodes in
  evaluation order, with ``rng = random.Random(seed)`` (``--seed``, default 0): the same
  distribution, and the same answer for the same seed, inputs and profile.

From 1.24 a PreFilter plugin may return a :class:`~ruleset.PreFilterResult` (NodeAffinity does
for a pod whose required terms all name nodes: a DaemonSet's). After the nominated node, only
the nodes named are filtered: upstream in a Go set's order, here in node-tree order (1.30.0's
order), from the rotating index taken modulo their number; ``numFeasibleNodesToFind`` counts
them alone. What becomes of the others changed release by release:

* 1.24-1.29: no status (not in the FitError; preemption dry-runs them); a name the snapshot
  lacks ends the cycle with an Error; the index advances modulo the nodes named.
* 1.30 (as 1.30.0): UnschedulableAndUnresolvable "node is filtered out by the prefilter result",
  counted as processed; names the snapshot lacks are left out (and when none is left, the
  index advances modulo all nodes, as 1.30.2 does: 1.30.0 crashed there).
* 1.31: no status again, but preemption leaves them out; the index advances modulo all nodes.
* 1.32 on: UnschedulableAndUnresolvable "node(s) didn't satisfy plugin(s) [X]" (the plugins that
  returned a result, sorted) in the FitError, without counting as processed.

A Score plugin whose PreScore returned Skip (1.27 on, see :mod:`ruleset.framework.runtime`)
is not run for the pod and adds nothing to the totals; when every one skipped, every node
totals 0 and the tie is drawn as above (upstream still counts the profile as scoring).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from ruleset.api.pod import Pod
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.dependence import NominatedRoom, fast_paths
from ruleset.framework.results import FitErrorText, NodeStatuses, PostFilterResult
from ruleset.framework.runtime import PRE_FILTER_NODES, Framework, ScoreTable, WhatIfFailures, WhatIfStep
from ruleset.framework.status import SUCCESS, Code, Status
from ruleset.gofmt import go_quote
from ruleset.kversion import switch
from ruleset.snapshot import NodeSet, Snapshot
from ruleset.snapshot.chunks import first_chunk, next_chunk

PREFER_NOMINATED_NODE = switch(
    "Scheduler.prefer-nominated-node", "1.21",
    "a pod with a nominated node (set by an earlier preemption) is filtered on that node alone first and, "
    "when it passes, scheduled there without scoring; the evaluation resets the rotating start index to 0",
    "pkg/scheduler/core/generic_scheduler.go, later pkg/scheduler/schedule_one.go (findNodesThatFitPod, "
    "evaluateNominatedNode, findNodesThatPassFilters), KEP-1923", gate="PreferNominatedNode")
PRE_FILTER_RESULT_MISSING_SKIPPED = switch(
    "Scheduler.prefilter-result-missing-skipped", "1.30",
    "a node a PreFilterResult names that the snapshot does not hold is left out (before: the cycle "
    "ends with the Error \"nodeinfo not found for node name\")",
    "pkg/scheduler/schedule_one.go (findNodesThatFitPod), kubernetes#119779")
PRE_FILTER_RESULT_FILTERED_OUT = switch(
    "Scheduler.prefilter-result-filtered-out-status", "1.30",
    "the nodes a PreFilterResult leaves out get UnschedulableAndUnresolvable \"node is filtered out by "
    "the prefilter result\" (counted in the FitError, processed for the rotating start index, no "
    "preemption candidates); 1.31 leaves them without a status again (patch releases 1.27.14, "
    "1.28.10 and 1.29.5 had it too)",
    "pkg/scheduler/schedule_one.go (findNodesThatFitPod), kubernetes#119779, kubernetes#125197",
    until="1.31")
PRE_FILTER_RESULT_ALL_NODES_INDEX = switch(
    "Scheduler.prefilter-result-start-index-all-nodes", "1.31",
    "after a scan of the nodes a PreFilterResult names, the rotating start index advances modulo the "
    "number of all nodes (before: of the nodes named; patch release 1.30.2 too)",
    "pkg/scheduler/schedule_one.go (findNodesThatFitPod), kubernetes#124933")
PRE_FILTER_RESULT_ABSENT_STATUS = switch(
    "Scheduler.prefilter-result-absent-status", "1.32",
    "the nodes a PreFilterResult leaves out count in the FitError as UnschedulableAndUnresolvable "
    "\"node(s) didn't satisfy plugin(s) [X]\" (the plugins that returned one, sorted), without being "
    "processed", "pkg/scheduler/schedule_one.go (findNodesThatFitPod: NodeToStatus.SetAbsentNodesStatus), "
    "pkg/scheduler/framework/types.go (FitError.Error)")
ONE_NODE_WITHOUT_SCORING = switch(
    "Scheduler.one-feasible-node-without-scoring", "1.30",
    "a profile with no Score plugin looks for one feasible node only (numFeasibleNodesToFind is 1), "
    "so the first node that passes from the rotating index is chosen",
    "pkg/scheduler/schedule_one.go (findNodesThatPassFilters: hasExtenderFilters, hasScoring)")
FILTERED_OUT = "node is filtered out by the prefilter result"
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
NO_NODES_AVAILABLE = "no nodes available to schedule pods"


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int | None) -> int:
    """``genericScheduler.numFeasibleNodesToFind``: how many feasible nodes to look for."""
    pct = percentage or 0
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND or pct >= 100:
        return num_all_nodes
    adaptive = pct
    if adaptive <= 0:
        adaptive = 50 - num_all_nodes // 125
        if adaptive < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            adaptive = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num = num_all_nodes * adaptive // 100
    return max(num, MIN_FEASIBLE_NODES_TO_FIND)


@dataclass
class ScheduleResult:
    """The outcome of one scheduling attempt of one pod."""

    pod: Pod
    #: The chosen node, or None.
    node: str | None = None
    #: The chosen node's total weighted score (None when scoring was skipped or nothing fit).
    score: int | None = None
    #: Why the pod was not scheduled (Success when it was).
    status: Status = SUCCESS
    statuses: NodeStatuses | None = None
    #: Feasible nodes considered for scoring, in evaluation order.
    feasible: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    scores: ScoreTable | None = None
    post_filter: PostFilterResult | None = None
    #: The "0/N nodes are available: ..." message when nothing fit.
    message: str = ""
    state: CycleState | None = None

    @property
    def scheduled(self) -> bool:
        return self.node is not None


class Scheduler:
    """Runs scheduling cycles of one profile over the snapshot its framework's handle holds."""

    def __init__(self, framework: Framework, *, seed: int = 0):
        snapshot = framework.handle.snapshot
        if snapshot is None:
            raise ValueError("the framework's handle has no snapshot: build it with Handle(snapshot)")
        self.framework = framework
        self.snapshot: Snapshot = snapshot
        self.rng = random.Random(seed)
        self.next_start_node_index = 0
        self.percentage = framework.profile.percentage_of_nodes_to_score
        #: Feasible nodes per node filtered in the last scan (sizes the next scan's first chunk).
        self._feasible_ratio = 1.0
        target = framework.profile.target
        self.fit_error = FitErrorText.of(target)
        self.prefer_nominated = target.has(PREFER_NOMINATED_NODE)
        self._missing_skipped = target.has(PRE_FILTER_RESULT_MISSING_SKIPPED)
        self._filtered_out_status = target.has(PRE_FILTER_RESULT_FILTERED_OUT)
        self._index_over_all_nodes = target.has(PRE_FILTER_RESULT_ALL_NODES_INDEX)
        self._absent_status = target.has(PRE_FILTER_RESULT_ABSENT_STATUS)
        self._one_without_scoring = (target.has(ONE_NODE_WITHOUT_SCORING)
                                     and not framework.has("ruleset_score"))

    # ------------------------------------------------------------- filtering
    def find_nodes_that_fit(self, state: CycleState, pod: Pod, statuses: NodeStatuses,
                            evaluate_all: bool = False) -> tuple[np.ndarray, Status]:
        """Feasible nodes in evaluation order, at most ``numFeasibleNodesToFind`` of them.

        With ``evaluate_all`` every node's filters run (so every status can be reported),
        but the feasible list is the same as a run that stopped early.
        """
        snapshot = self.snapshot
        n = snapshot.num_nodes
        failed_nominated = None
        if self.prefer_nominated and pod.nominated_node_name:
            nominated = snapshot.node_index.get(pod.nominated_node_name)
            if nominated is not None:  # upstream logs a missing node and goes on
                feasible, failed_nominated = self._evaluate_nominated_node(state, pod, statuses, nominated)
                if feasible is not None:
                    return feasible, SUCCESS
        nodes, extra, modulus = snapshot.evaluation_order, 0, n
        named = state.get(PRE_FILTER_NODES)
        if named is not None:  # a PreFilterResult: only the nodes it names are filtered
            narrowed = self._named_nodes(named, statuses, failed_nominated)
            if isinstance(narrowed, Status):
                return snapshot.evaluation_order[:0], narrowed
            nodes, extra = narrowed
            if not self._index_over_all_nodes and len(nodes):
                modulus = len(nodes)
        m = len(nodes)
        want = min(m, 1) if self._one_without_scoring else num_feasible_nodes_to_find(m, self.percentage)
        order = _rotated(nodes, self.next_start_node_index)
        if not self.framework.has("ruleset_filter"):
            # Upstream takes the first numFeasibleNodesToFind nodes when no Filter plugin is enabled.
            feasible = order[:want]
            statuses.evaluated[feasible] = True
            self.next_start_node_index = (self.next_start_node_index + len(feasible) + extra) % modulus
            return feasible, SUCCESS
        if evaluate_all:
            passing, status = self._filter(state, pod, order, statuses)
            if not status.is_success:
                return passing, status
            feasible = passing[:want]
            processed = m
            if len(passing) > want:
                processed = int(np.flatnonzero(order == feasible[-1])[0]) + 1
                processed += _still_counted(order[processed:], failed_nominated)
            self.next_start_node_index = (self.next_start_node_index + processed + extra) % modulus
            return feasible, SUCCESS
        feasible_parts: list[np.ndarray] = []
        found = 0
        position = 0
        # How many nodes the last scan needed per feasible node sizes the first chunk: the cut is
        # made where a sequential scan stops whatever the chunks, and each chunk costs every
        # Filter plugin's fixed overhead once more.
        chunk = first_chunk(m, want, self._feasible_ratio)
        processed = m
        while position < m:
            part = order[position: position + chunk]
            passing, status = self._filter(state, pod, part, statuses)
            if not status.is_success:
                return passing, status
            if found + len(passing) >= want:
                cut = passing[: want - found]
                feasible_parts.append(cut)
                # Nodes after the cut-off count as not processed, as in a sequential run.
                last = int(np.flatnonzero(part == cut[-1])[0])
                processed = position + last + 1
                tail = part[last + 1:]
                if failed_nominated is not None:
                    processed += _still_counted(order[processed:], failed_nominated)
                    tail = tail[tail != failed_nominated]  # its status stays, as in upstream's map
                statuses.evaluated[tail] = False
                statuses.codes[tail] = Code.SUCCESS
                break
            feasible_parts.append(passing)
            found += len(passing)
            position += len(part)
            chunk = next_chunk(chunk, position, found, want)
        self.next_start_node_index = (self.next_start_node_index + processed + extra) % modulus
        feasible = np.concatenate(feasible_parts) if feasible_parts else order[:0]
        if processed:
            self._feasible_ratio = len(feasible) / processed
        return feasible, SUCCESS

    def _named_nodes(self, named: tuple[frozenset[str], tuple[str, ...]], statuses: NodeStatuses,
                     failed_nominated: int | None) -> tuple[np.ndarray, int] | Status:
        """The nodes of a PreFilterResult's names in node-tree order, and how many nodes left out
        count as processed (those with a status of their own: the nominated node that failed
        before, or, in 1.30, all); the nodes left out get the release's status. An Error when a
        name is no node of the snapshot (before 1.30).

        Upstream walks the names in a Go set's order (random); ruleset walks them in node-tree
        order, as 1.30.0 did, so that a run is repeatable. The nominated node was evaluated
        before, named or not, as upstream does."""
        names, plugins = named
        snapshot = self.snapshot
        if not self._missing_skipped:
            missing = sorted(name for name in names if name not in snapshot.node_index)
            if missing:  # the first of a Go set's walk: the first name in order, here
                return Status(Code.ERROR, (f"nodeinfo not found for node name {go_quote(missing[0])}",))
        inside = _named_mask(snapshot, names)
        order = snapshot.evaluation_order
        nodes, left_out = order[inside[order]], order[~inside[order]]
        if self._filtered_out_status:  # (the failed nominated node's status too, as 1.30.0 wrote it)
            statuses.set_all(left_out, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (FILTERED_OUT,)))
            statuses.evaluated[left_out] = False  # a status, but no filter ran there
            return nodes, len(left_out)
        nominated_outside = failed_nominated is not None and not inside[failed_nominated]
        if self._absent_status:
            if nominated_outside:
                left_out = left_out[left_out != failed_nominated]  # its own status stays
            reason = f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(plugins))}]"
            statuses.set_all(left_out, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,)))
            statuses.evaluated[left_out] = False  # an absent node's status: not processed
        return nodes, int(nominated_outside)

    def _evaluate_nominated_node(self, state: CycleState, pod: Pod, statuses: NodeStatuses,
                                 index: int) -> tuple[np.ndarray | None, int | None]:
        """``evaluateNominatedNode``: the filters (nominated pods included) on the pod's nominated
        node alone. Returns the node as the feasible list when it passes (else None), and the node
        when it failed (its status recorded, as upstream's diagnosis keeps it), else None.

        Upstream's ``findNodesThatPassFilters`` over this one node sets the rotating start index
        to ``(index + processed) % 1``, i.e. 0, whatever the outcome; an Error there is only logged
        (the full scan that follows meets it again).
        """
        self.next_start_node_index = 0
        one = np.array([index], dtype=np.intp)
        if not self.framework.has("ruleset_filter"):
            statuses.evaluated[one] = True
            return one, None
        passing, status = self._filter(state, pod, one, statuses)
        if not status.is_success:
            statuses.evaluated[index] = False
            statuses.codes[index] = Code.SUCCESS
            return None, None
        if len(passing):
            return passing, None
        return None, index

    def _filter(self, state: CycleState, pod: Pod, part: np.ndarray,
                statuses: NodeStatuses) -> tuple[np.ndarray, Status]:
        """Filter ``part`` in one batch, then redo nodes holding nominated pods two-pass.

        Upstream's ``PodPassesFiltersOnNode``: on a node where pods of at least this pod's
        priority are nominated, the pod must fit both with them and without them, and a
        node failing with them reports that first pass's status. The batch is the pass
        without them, so every such node of ``part`` is redone, passing or not (a node the
        batch rejected keeps its batch status only if it passes with the nominated pods).
        """
        passing, status = self.framework.run_filter(state, pod, NodeSet(self.snapshot, part), statuses)
        if not status.is_success:
            return passing, status
        nominator = self.framework.handle.nominator
        if not nominator.any():
            return passing, status
        if len(part) == 1 and not nominator.pods_for(pod, self.snapshot.node_names[int(part[0])]):
            return passing, status  # one node (a nominated pod's own) holding none it must leave room for
        steps = self.framework.what_if_steps(state, pod) if fast_paths() else None
        if steps is not None:
            return self._with_nominated_in_bulk(state, pod, part, statuses, passing, steps)
        nominated = self.framework.nominated_nodes(pod, self.snapshot)
        if not nominated:
            return passing, status
        passed = set(passing.tolist())
        dropped: set[int] = set()
        for index in part.tolist():
            if index not in nominated:
                continue
            node_status = self.framework.run_filters_on_node(state, pod, index, self.snapshot)
            if node_status.code == Code.ERROR:
                return passing[:0], node_status
            if not node_status.is_success:
                statuses.set_status(index, node_status)
                if index in passed:
                    dropped.add(index)
        if not dropped:
            return passing, SUCCESS
        return passing[[int(i) not in dropped for i in passing]], SUCCESS

    def _with_nominated_in_bulk(self, state: CycleState, pod: Pod, part: np.ndarray, statuses: NodeStatuses,
                                passing: np.ndarray, steps: list[WhatIfStep]) -> tuple[np.ndarray, Status]:
        """:meth:`_filter`'s pass with the nominated pods, for all of ``part``'s nodes holding some at
        once, on columns (:meth:`Framework.what_if_steps` allows it): the same statuses. A node
        passing it keeps the batch's status (the pass without them)."""
        snapshot = self.snapshot
        room = NominatedRoom.of(state, snapshot, self.framework.handle.nominator, pod)
        holding = part[room.mask[part]]
        if not len(holding):
            return passing, SUCCESS
        holding, ok, failed = self._nominated_pass(state, pod, steps, holding, room, statuses)
        bad = np.flatnonzero(~ok)
        if not len(bad):
            return passing, SUCCESS
        groups = failed.groups(bad)
        errors = [int(positions[0]) for status, positions in groups if status.code == Code.ERROR]
        if errors:  # the first, in node order, ends the cycle
            return passing[:0], failed[min(errors)]
        for node_status, positions in groups:
            statuses.set_all(holding[positions], node_status)
        dropped = np.zeros(snapshot.num_nodes, dtype=bool)
        dropped[holding[bad]] = True
        return passing[~dropped[passing]], SUCCESS

    def _nominated_pass(self, state: CycleState, pod: Pod, steps: list[WhatIfStep], holding: np.ndarray,
                        room: NominatedRoom,
                        statuses: NodeStatuses) -> tuple[np.ndarray, np.ndarray, WhatIfFailures]:
        """The filters with the nominated pods on ``holding``, running only what can differ from the
        batch (the pass without them, in ``statuses``): the steps that read other pods. Returns the
        nodes run, which passed (or keep the batch's status), and the failures: what running every
        step on every node of ``holding`` would give, node by node.

        Per node, by the step ``k`` that rejected it in the batch (none: it passed):

        * ``k`` ignores other pods and no step before it reads them: rejected there again, with
          the same status; not run.
        * The first step reading other pods that fails with the nominated pods, ``j``, comes
          before ``k``: its status (every step before ``j`` passes, as in the batch).
        * Otherwise, ``k`` ignoring other pods: rejected there again (the batch's status stays).
        * Otherwise (``k`` reads other pods, and passes with more pods on the node: possible only
          for a plugin whose verdict is not monotone in the pods added): a later step the batch
          never ran may decide, so every step runs on that node.
        """
        snapshot = self.snapshot
        reading = [k for k, step in enumerate(steps) if step.with_columns is not None]
        if len(reading) == len(steps):
            return holding, *self.framework.filter_what_if(state, pod, steps, snapshot, holding,
                                                           room.columns(holding))
        step_of = {step.step.plugin: k for k, step in enumerate(steps)}
        never = len(steps)  # "passed every step"
        # Each recorded plugin's step, -1 for one that is none of them (a plugin index of -1: no plugin).
        where = np.array([step_of.get(name, -1) for name in statuses.plugins] + [-1], dtype=np.intp)
        batch = np.where(statuses.codes[holding] == Code.SUCCESS, never,
                         where[statuses.plugin_index[holding]])
        reads = np.zeros(never + 2, dtype=bool)  # by step, then "passed", then "unknown" (-1)
        reads[reading] = True
        known = (batch >= 0) & (batch < never)
        ignored = known & ~reads[batch]
        run = ~(ignored & (batch < (reading[0] if reading else never)))
        holding, batch, ignored, known = holding[run], batch[run], ignored[run], known[run]
        if not len(holding):
            return holding, np.zeros(0, dtype=bool), WhatIfFailures(0)
        ok, failed = self.framework.filter_what_if(state, pod, steps, snapshot, holding,
                                                   room.columns(holding),
                                                   only=lambda step: step.with_columns is not None)
        first = np.full(len(holding), never, dtype=np.intp)
        for status, positions in failed.groups(np.flatnonzero(~ok)):
            first[positions] = step_of.get(status.plugin or "", -1)
        settled = ignored & (first > batch)  # the batch's step rejects it again, first
        ok[settled] = True
        failed.which[settled] = -1
        redo = np.flatnonzero((batch < 0) | (first < 0) | (known & ~ignored & (first > batch)))
        if len(redo):
            again_ok, again = self.framework.filter_what_if(state, pod, steps, snapshot, holding[redo],
                                                            room.columns(holding[redo]))
            ok[redo] = again_ok
            failed.which[redo] = -1
            for status, positions in again.groups(np.arange(len(redo))):
                failed.set(redo[positions], status)
        return holding, ok, failed

    # --------------------------------------------------------------- scoring
    def select_host(self, nodes: np.ndarray, total: np.ndarray) -> int:
        """Index (into ``nodes``) of a top-scoring node; ties drawn uniformly from the seeded RNG."""
        best = total.max()
        ties = np.flatnonzero(total == best)
        if len(ties) == 1:
            return int(ties[0])
        return int(ties[self.rng.randrange(len(ties))])

    def schedule(self, pod: Pod, always_score: bool = False) -> ScheduleResult:
        """Find a node for ``pod`` (the algorithm part of a cycle; nothing is changed).

        ``always_score`` scores even a single feasible node, for reports; upstream skips
        scoring then, which cannot change the choice.
        """
        snapshot = self.snapshot
        n = snapshot.num_nodes
        state = CycleState()
        statuses = NodeStatuses(n)
        result = ScheduleResult(pod=pod, statuses=statuses, state=state)
        if n == 0:
            return _aborted(result, Status(Code.ERROR, (NO_NODES_AVAILABLE,)))
        status = self.framework.run_pre_filter(state, pod, snapshot)
        if status.code == Code.ERROR:
            return _aborted(result, status)
        if not status.is_success:
            statuses.reject_at_pre_filter(status)
            return self._no_fit(result)
        feasible, status = self.find_nodes_that_fit(state, pod, statuses, evaluate_all=always_score)
        if not status.is_success:
            return _aborted(result, status)
        result.feasible = feasible
        if len(feasible) == 0:
            return self._no_fit(result)
        if len(feasible) == 1 and not always_score:
            result.node = snapshot.node_names[int(feasible[0])]
            return result
        nodes = NodeSet(snapshot, feasible)
        status = self.framework.run_pre_score(state, pod, nodes)
        if not status.is_success:
            return _aborted(result, status)
        if self.framework.has("ruleset_score"):
            table, status = self.framework.run_score(state, pod, nodes)
            if table is None or not status.is_success:
                return _aborted(result, status)
            result.scores = table
            total = table.total
        else:
            total = np.ones(len(feasible), dtype=np.int64)
        chosen = self.select_host(feasible, total)
        result.node = snapshot.node_names[int(feasible[chosen])]
        result.score = int(total[chosen])
        return result

    def _no_fit(self, result: ScheduleResult) -> ScheduleResult:
        assert result.statuses is not None and result.state is not None
        if self.framework.has("ruleset_post_filter"):
            result.post_filter = self.framework.run_post_filter(result.state, result.pod, result.statuses)
        # From 1.24 the message ends with PostFilter's (why preemption did not help): built after it.
        result.message = self.fit_error.message(self.snapshot.num_nodes, result.statuses, result.post_filter)
        result.status = Status(Code.UNSCHEDULABLE, (result.message,))
        return result

    # --------------------------------------------------------------- binding
    def commit(self, result: ScheduleResult) -> Status:
        """Assume the pod on its node, then Reserve, Permit, PreBind, Bind and PostBind.

        On any failure the pod is taken off the node again and Unreserve runs. A Wait from
        Permit is returned as it is: the pod stays assumed and waiting (the loop settles it).
        """
        status = self.reserve_and_permit(result)
        if not status.is_success:
            return status
        assert result.node is not None and result.state is not None
        return self.bind(result.state, result.pod, result.node)

    def reserve_and_permit(self, result: ScheduleResult) -> Status:
        """Assume the pod on its node, then Reserve and Permit (the end of the scheduling cycle).

        On a failure the pod is forgotten (:meth:`forget`). On Wait it stays assumed (placed
        in the snapshot, its resources held) among the handle's waiting pods.
        """
        assert result.node is not None and result.state is not None
        fw, pod, node, state = self.framework, result.pod, result.node, result.state
        self.snapshot.add_pod(pod, self.snapshot.node_index[node])
        for run in (fw.run_reserve, fw.run_permit):
            status = run(state, pod, node)
            if status.code == Code.WAIT:
                return status
            if not status.is_success:
                self.forget(state, pod, node)
                return status
        return SUCCESS

    def bind(self, state: CycleState, pod: Pod, node: str) -> Status:
        """The binding cycle of a permitted pod: PreBind and Bind, then PostBind; on a failure
        the pod is forgotten (:meth:`forget`)."""
        fw = self.framework
        for run in (fw.run_pre_bind, fw.run_bind):
            status = run(state, pod, node)
            if not status.is_success:
                self.forget(state, pod, node)
                return status
        pod.node_name = node
        fw.run_post_bind(state, pod, node)
        return SUCCESS

    def forget(self, state: CycleState, pod: Pod, node: str) -> None:
        """Unreserve, then take the assumed pod off its node (upstream's ``ForgetPod``)."""
        self.framework.run_unreserve(state, pod, node)
        self.snapshot.remove_pod(pod)


def _aborted(result: ScheduleResult, status: Status) -> ScheduleResult:
    """``result`` ended by an Error ``status``: the cycle was aborted."""
    result.status = status
    result.message = status.message()
    return result


def _named_mask(snapshot: Snapshot, names: frozenset[str]) -> np.ndarray:
    """Which of the snapshot's nodes ``names`` names (names it does not hold are left out)."""
    index = snapshot.node_index
    inside = np.zeros(snapshot.num_nodes, dtype=bool)
    inside[[index[name] for name in names if name in index]] = True
    return inside


def scan_order(snapshot: Snapshot, state: CycleState | None, start: int) -> np.ndarray:
    """The order in which a cycle whose PreFilter wrote ``state`` filters nodes from rotating index
    ``start``: node-tree order, or that of the nodes a PreFilterResult named (see the module)."""
    named = state.get(PRE_FILTER_NODES) if state is not None else None
    order = snapshot.evaluation_order
    return _rotated(order if named is None else order[_named_mask(snapshot, named[0])[order]], start)


def _rotated(nodes: np.ndarray, start: int) -> np.ndarray:
    """``nodes`` from position ``start`` (modulo their number) round to the one before it."""
    start = start % len(nodes) if len(nodes) else 0
    return np.concatenate((nodes[start:], nodes[:start])) if start else nodes


def _still_counted(unvisited: np.ndarray, failed_nominated: int | None) -> int:
    """1 when the nominated node failed its own evaluation and the scan stopped before reaching
    it: upstream counts processed nodes as feasible ones plus the statuses recorded, and its
    status is still among them."""
    return int(failed_nominated is not None and bool(np.any(unvisited == failed_nominated)))
