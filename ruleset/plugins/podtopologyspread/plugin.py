"""The PodTopologySpread plugin: its args and its hooks, which run :mod:`.filtering` and
:mod:`.scoring` on the pod's constraints (see the package docstring for the algorithm)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ruleset import (
    OTHER_PODS_ANY,
    OTHER_PODS_IGNORED,
    ArgError,
    Code,
    CycleState,
    FilterResult,
    NodeSet,
    Plugin,
    Snapshot,
    Status,
    hookimpl,
)
from ruleset.api.pod import Pod
from ruleset.plugins.podtopologyspread.args import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    SYSTEM_DEFAULTING,
    DefaultConstraint,
    PodTopologySpreadArgs,
    validate_pod_topology_spread_args,
)
from ruleset.plugins.podtopologyspread.common import (
    DO_NOT_SCHEDULE,
    SCHEDULE_ANYWAY,
    SpreadConstraint,
    pod_constraints,
)
from ruleset.plugins.podtopologyspread.filtering import (
    PRE_FILTER_STATE_KEY,
    PreFilterState,
    filter_nodes,
    pre_filter_state,
)
from ruleset.plugins.podtopologyspread.scoring import (
    PRE_SCORE_STATE_KEY,
    PreScoreState,
    normalize_scores,
    pre_score_state,
    score_nodes,
)
from ruleset.plugins.podtopologyspread.versions import Behaviour
from ruleset.selector import SelectorError

NAME = "PodTopologySpread"


class PodTopologySpread(Plugin):
    """Spreads matching pods evenly over topology domains: DoNotSchedule constraints filter
    (PreFilter, Filter), ScheduleAnyway constraints score (PreScore, Score).

    A pod without constraints of its own gets the plugin's default constraints, selecting
    the pods of its Services and controllers.
    """

    name = NAME
    Args = PodTopologySpreadArgs

    def __init__(self, args: Any = None, handle: Any = None):
        super().__init__(args, handle)
        chosen: PodTopologySpreadArgs = self.args
        system = chosen.defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints: tuple[DefaultConstraint, ...] = (
            SYSTEM_DEFAULT_CONSTRAINTS if system else chosen.default_constraints)
        self.system_defaulted = system
        #: What the profile's release changes (read once; the hooks carry no version checks).
        self.behaviour = Behaviour.of(self.handle.target)

    @classmethod
    def validate_args(cls, args: PodTopologySpreadArgs) -> list[ArgError]:
        return validate_pod_topology_spread_args(args)

    def constraints_for(self, pod: Pod, snapshot: Snapshot, action: str) -> list[SpreadConstraint]:
        """The pod's constraints with ``action``, or the plugin's defaults when it has none.

        Raises SelectorError for an invalid selector of the pod's own constraints.
        """
        b = self.behaviour
        return pod_constraints(pod, snapshot, action, self.default_constraints, b.match_label_keys,
                               b.min_domains, b.node_inclusion_policy)

    # ------------------------------------------------------------------- filter
    @hookimpl
    def ruleset_pre_filter(self, state: CycleState, pod: Pod, snapshot: Snapshot) -> Status | None:
        try:
            constraints = self.constraints_for(pod, snapshot, DO_NOT_SCHEDULE)
        except SelectorError as exc:
            return Status.error(f"obtaining pod's hard topology spread constraints: {exc}")
        if not constraints and self.behaviour.pre_filter_skip:
            # 1.28: Skip, so the framework runs neither Filter nor AddPod/RemovePod (1.20-1.27
            # write an empty state, with which Filter passes every node).
            return Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, pre_filter_state(pod, snapshot, constraints, self.behaviour))
        return None

    @hookimpl
    def ruleset_pre_filter_add_pod(self, state: CycleState, pod: Pod, pod_to_add: Pod, node: int,
                                   snapshot: Snapshot) -> Status | None:
        return self._update(state, pod, pod_to_add, node, snapshot, 1)

    @hookimpl
    def ruleset_pre_filter_remove_pod(self, state: CycleState, pod: Pod, pod_to_remove: Pod, node: int,
                                      snapshot: Snapshot) -> Status | None:
        return self._update(state, pod, pod_to_remove, node, snapshot, -1)

    @staticmethod
    def _update(state: CycleState, pod: Pod, other: Pod, node: int, snapshot: Snapshot,
                delta: int) -> Status | None:
        current: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if current is None:
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        current.update_with_pod(other, pod, snapshot, node, delta)
        return None

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Without DoNotSchedule constraints every node passes, whatever pods run there."""
        current: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        return OTHER_PODS_IGNORED if current is not None and not current.constraints else OTHER_PODS_ANY

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        current: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if current is None:
            return FilterResult.error(len(nodes),
                                      f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        return filter_nodes(current, pod, nodes)

    # -------------------------------------------------------------------- score
    @hookimpl
    def ruleset_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> Status | None:
        snapshot = nodes.snapshot
        if len(nodes) == 0 or snapshot.num_nodes == 0:
            return None  # nothing to score; upstream writes no state either
        try:
            constraints = self.constraints_for(pod, snapshot, SCHEDULE_ANYWAY)
        except SelectorError as exc:
            return Status.error("calculating preScoreState: obtaining pod's soft topology spread "
                                f"constraints: {exc}")
        if not constraints and self.behaviour.pre_score_skip:
            # 1.28: Skip, so the framework runs neither Score nor NormalizeScore and the plugin
            # is absent from the node's scores (1.20-1.27 score every node 100).
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, pre_score_state(pod, nodes, constraints, self.behaviour,
                                                             self.system_defaulted))
        return None

    @hookimpl
    def ruleset_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> np.ndarray:
        current: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if current is None:
            raise LookupError(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        return score_nodes(current, nodes)

    @hookimpl
    def ruleset_normalize_score(self, state: CycleState, nodes: NodeSet, scores: np.ndarray) -> np.ndarray:
        current: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if current is None:
            raise LookupError(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        return normalize_scores(current, nodes, scores)
