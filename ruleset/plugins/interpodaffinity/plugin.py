"""The InterPodAffinity plugin: its args and its hooks, which run :mod:`.filtering` and
:mod:`.scoring` on the pod's terms (see the package docstring for the algorithm)."""

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
    Target,
    hookimpl,
    switch,
)
from ruleset.api.affinity import NAMESPACE_SELECTOR
from ruleset.api.pod import Pod

# The args and their checks are apart (ruleset validate reads them without this module's numpy).
from ruleset.plugins.interpodaffinity import args as args_module
from ruleset.plugins.interpodaffinity.args import (  # noqa: F401 - re-exported
    IGNORE_PREFERRED,
    IGNORE_PREFERRED_SINCE,
    MAX_HARD_POD_AFFINITY_WEIGHT,
    MIN_HARD_POD_AFFINITY_WEIGHT,
    InterPodAffinityArgs,
)
from ruleset.plugins.interpodaffinity.filtering import (
    FILTER_REASONS,
    FILTER_REASONS_ONE,
    ONE_REASON,
    PRE_FILTER_STATE_KEY,
    PreFilterState,
    existing_anti_affinity_counts,
    filter_nodes,
    incoming_affinity_counts,
)
from ruleset.plugins.interpodaffinity.scoring import (
    PRE_SCORE_SKIP,
    PRE_SCORE_STATE_KEY,
    TRUE_MIN_MAX,
    PreScoreState,
    has_preferred_terms,
    normalize,
    nothing_counted,
    score_nodes,
    topology_scores,
)
from ruleset.plugins.interpodaffinity.terms import pod_info

#: From 1.27 PreFilter returns Skip when the pod has no required (anti-)affinity term and no
#: existing pod's required anti-affinity matches it: its Filter and PreFilter extensions are
#: then not run (so nominated pods and preemption victims are not counted either).
PRE_FILTER_SKIP = switch(
    "InterPodAffinity.prefilter-skip", "1.27",
    "PreFilter returns Skip for a pod with no required (anti-)affinity terms that no existing pod's "
    "required anti-affinity matches (Filter, AddPod and RemovePod are then not run for it)",
    "pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (PreFilter)")
_SKIP = Status(Code.SKIP)

NAME = "InterPodAffinity"
_SKIP = Status(Code.SKIP)


def _state_error(key: str) -> str:
    return f'error reading "{key}" from cycleState: not found'


class InterPodAffinity(Plugin):
    """Keeps pods where their required pod affinity and anti-affinity, and existing pods'
    anti-affinity, hold (PreFilter, Filter) and favours nodes near the pods they prefer
    (PreScore, Score).
    """

    name = NAME
    Args = InterPodAffinityArgs

    def __init__(self, args: Any = None, handle: Any = None):
        super().__init__(args, handle)
        problems = self.validate_args_for(self.args, self.handle.target)
        if problems:  # a profile is refused first (validation); this guards direct construction
            raise ValueError(problems[0].message)
        # Read once from the profile's release: the hooks carry no version checks.
        self._true_min_max = self.handle.target.has(TRUE_MIN_MAX)
        self._namespace_selector = self.handle.target.has(NAMESPACE_SELECTOR)
        self._reasons = FILTER_REASONS_ONE if self.handle.target.has(ONE_REASON) else FILTER_REASONS
        self._pre_score_skip = self.handle.target.has(PRE_SCORE_SKIP)
        self._pre_filter_skip = self.handle.target.has(PRE_FILTER_SKIP)
        self._ignore_preferred = bool(self.args.ignore_preferred_terms_of_existing_pods)

    @classmethod
    def validate_args(cls, args: InterPodAffinityArgs) -> list[ArgError]:
        """``ValidateInterPodAffinityArgs`` (v1.20; :mod:`.args`)."""
        return args_module.validate_args(args)

    @classmethod
    def defaults_for(cls, target: Target) -> dict[str, Any]:
        """The release's defaults the v1.20 dataclass lacks (:mod:`.args`)."""
        return args_module.defaults_for(target)

    @classmethod
    def args_not_in(cls, target: Target) -> frozenset[str]:
        """The args the target release does not have (:mod:`.args`)."""
        return args_module.args_not_in(target)

    @classmethod
    def validate_args_for(cls, args: InterPodAffinityArgs, target: Target) -> list[ArgError]:
        """``ignorePreferredTermsOfExistingPods`` (either value) is refused before 1.27 (:mod:`.args`)."""
        return args_module.validate_args_for(args, target)

    # ------------------------------------------------------------------ PreFilter
    @hookimpl
    def ruleset_pre_filter(self, state: CycleState, pod: Pod, snapshot: Snapshot) -> Status | None:
        ns = self._namespace_selector
        info = pod_info(pod, ns)
        if info.parse_error is not None:
            return Status.unresolvable(f"parsing pod: {info.parse_error}")
        affinity, anti = incoming_affinity_counts(info, snapshot)
        existing = existing_anti_affinity_counts(pod, snapshot, ns)
        if (self._pre_filter_skip and not info.required_affinity and not info.required_anti_affinity
                and not any(counts.any() for counts in existing.arrays.values())):
            return _SKIP  # nothing to filter: no Filter, no AddPod/RemovePod for this pod
        state.write(PRE_FILTER_STATE_KEY,
                    PreFilterState(pod, info, existing, affinity, anti, namespace_selector=ns))
        return None

    def _update(self, state: CycleState, other: Pod, node: int, snapshot: Snapshot,
                multiplier: int) -> Status | None:
        pre_filter: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if pre_filter is None:
            return Status.error(_state_error(PRE_FILTER_STATE_KEY))
        pre_filter.update_with_pod(other, node, snapshot, multiplier)
        return None

    @hookimpl
    def ruleset_pre_filter_add_pod(self, state: CycleState, pod_to_add: Pod, node: int,
                                   snapshot: Snapshot) -> Status | None:
        return self._update(state, pod_to_add, node, snapshot, 1)

    @hookimpl
    def ruleset_pre_filter_remove_pod(self, state: CycleState, pod_to_remove: Pod, node: int,
                                      snapshot: Snapshot) -> Status | None:
        return self._update(state, pod_to_remove, node, snapshot, -1)

    # --------------------------------------------------------------------- Filter
    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """Other pods cannot matter when the pod has no required (anti-)affinity terms, no existing
        pod's required anti-affinity matches it and no nominated pod has required anti-affinity
        (AddPod would count it)."""
        pre_filter: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if pre_filter is None or pre_filter.info.required_affinity or pre_filter.info.required_anti_affinity:
            return OTHER_PODS_ANY
        if any(counts.any() for counts in pre_filter.existing_anti_affinity.arrays.values()):
            return OTHER_PODS_ANY
        for pods in self.handle.nominator.as_mapping().values():
            for other in pods:
                anti = other.affinity.pod_anti_affinity
                if anti is not None and anti.required:
                    return OTHER_PODS_ANY
        return OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, state: CycleState, nodes: NodeSet) -> FilterResult | None:
        pre_filter: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if pre_filter is None:
            return FilterResult.error(len(nodes), _state_error(PRE_FILTER_STATE_KEY))
        return filter_nodes(pre_filter, nodes, self._reasons)

    # ------------------------------------------------------------------- Scoring
    @hookimpl
    def ruleset_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> Status | None:
        if not len(nodes):
            return _SKIP if self._pre_score_skip else None
        if self._ignore_preferred and not has_preferred_terms(pod):
            # Upstream returns before looking at any existing pod: at 1.27 with an empty state
            # (every node 0, NormalizeScore leaves them), from 1.28 with Skip.
            if self._pre_score_skip:
                return _SKIP
            state.write(PRE_SCORE_STATE_KEY, nothing_counted())
            return None
        info = pod_info(pod, self._namespace_selector)
        if info.parse_error is not None:
            # Unreachable after PreFilter, which rejects the pod first.
            return Status.error(f"parsing pod: {info.parse_error}")
        pre_score = topology_scores(pod, info, nodes.snapshot, self.args.hard_pod_affinity_weight,
                                    self._namespace_selector)
        if self._pre_score_skip and not pre_score.counted:
            return _SKIP  # upstream: no node's topoScore got an entry (index == -1)
        state.write(PRE_SCORE_STATE_KEY, pre_score)
        return None

    @hookimpl
    def ruleset_score(self, state: CycleState, nodes: NodeSet) -> np.ndarray:
        pre_score: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if pre_score is None:
            raise LookupError(f'Error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        return score_nodes(pre_score, nodes)

    @hookimpl
    def ruleset_normalize_score(self, state: CycleState, scores: np.ndarray) -> np.ndarray | None:
        pre_score: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if pre_score is None:
            raise LookupError(f'Error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        if not pre_score.counted:
            return None
        return normalize(scores, self._true_min_max)
