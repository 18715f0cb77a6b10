"""InterPodAffinity's PreScore, Score and NormalizeScore (upstream's ``interpodaffinity/scoring.go``):
the weights of matching preferred and required terms summed per topology pair, and v1.20's
normalization anchored at 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ruleset import MAX_NODE_SCORE, NodeSet, Snapshot, switch
from ruleset.api.pod import Pod
from ruleset.plugins.interpodaffinity.filtering import TopologyCounts
from ruleset.plugins.interpodaffinity.matched import matched_pods
from ruleset.plugins.interpodaffinity.terms import (
    PodInfo,
    existing_terms,
    table_matches,
)

PRE_SCORE_STATE_KEY = "PreScoreInterPodAffinity"

TRUE_MIN_MAX = switch(
    "InterPodAffinity.normalize-true-min-max", "1.21",
    "NormalizeScore scales between the true minimum and maximum scores, not anchored at 0",
    "pkg/scheduler/framework/plugins/interpodaffinity/scoring.go (NormalizeScore, kubernetes#98096)")
PRE_SCORE_SKIP = switch(
    "InterPodAffinity.prescore-skip", "1.28",
    "PreScore returns Skip (InterPodAffinity is left out of the node's scores) when there is no node to "
    "score, no (pod, term) pair lands on a node carrying the term's topology key, or "
    "ignorePreferredTermsOfExistingPods leaves a pod without preferred terms unscored (before: every node 0)",
    "pkg/scheduler/framework/plugins/interpodaffinity/scoring.go (PreScore, kubernetes#117794)")


@dataclass
class PreScoreState:
    """``preScoreState``: per topology key, the summed weights per node label value.

    Shared, not copied, by ``CycleState.clone`` (upstream's Clone returns itself).
    """

    topology_score: TopologyCounts
    #: Whether any (pod, term) pair landed on a node with the term's key: upstream's map is
    #: non-empty exactly then, and NormalizeScore leaves the scores alone otherwise (they are
    #: all 0 in that case, so this only spares the arithmetic).
    counted: bool


def has_preferred_terms(pod: Pod) -> bool:
    """Whether ``pod`` has preferred pod affinity or anti-affinity terms (upstream's
    ``hasPreferredAffinityConstraints || hasPreferredAntiAffinityConstraints``, read on the spec)."""
    affinity, anti = pod.affinity.pod_affinity, pod.affinity.pod_anti_affinity
    return bool((affinity and affinity.preferred) or (anti and anti.preferred))


def nothing_counted() -> PreScoreState:
    """The empty state 1.27's PreScore writes under ``ignorePreferredTermsOfExistingPods``."""
    return PreScoreState(TopologyCounts(), counted=False)


def topology_scores(pod: Pod, info: PodInfo, snapshot: Snapshot, hard_weight: int,
                    namespace_selector: bool = False) -> PreScoreState:
    """PreScore's ``topologyScore`` over every assigned pod of the snapshot (``namespace_selector``:
    the terms of assigned pods converted as PodAffinityNamespaceSelector does)."""
    scores = TopologyCounts()
    counted = False
    table = snapshot.pod_table
    # The incoming pod's preferred terms, against every assigned pod: the counts of the pods
    # matching each term are kept between cycles (MatchedPods), times the term's signed weight.
    signed = [(w, 1) for w in info.preferred_affinity] + [(w, -1) for w in info.preferred_anti_affinity]
    found = [matched_pods(snapshot, (weighted.term,)) for weighted, _ in signed]
    if None not in found:
        for (weighted, sign), matched in zip(signed, found, strict=True):
            assert matched is not None
            key = weighted.term.topology_key
            if matched.landed[key]:
                scores.add_counts(snapshot, key, matched.counts[key] * (weighted.weight * sign))
                counted = True
    elif info.preferred_affinity or info.preferred_anti_affinity:
        rows = np.flatnonzero(table.alive)
        nodes = table.node[rows]
        for weighted, sign in signed:  # past MatchedPods' limit: every pod matched and counted
            hits = table_matches(weighted.term, table, rows)
            if hits.any():
                value = weighted.weight * sign
                counted |= scores.add(snapshot, weighted.term.topology_key, nodes[hits], value)
    # The terms of assigned pods that declare affinity, against the incoming pod.
    # Per kind of list (REQUIRED_AFFINITY, REQUIRED_ANTI_AFFINITY, PREFERRED_AFFINITY,
    # PREFERRED_ANTI_AFFINITY): the hard weight (when positive), not counted, +weight, -weight.
    # The sums per term are kept up to date between cycles (TermSums): only the terms the
    # incoming pod matches are added, not every entry again.
    index = existing_terms(snapshot, namespace_selector)
    if len(index.rows):
        spec = (hard_weight if hard_weight > 0 else None, None, 0, -1)
        counted |= index.sums(spec).update(index, snapshot).add_matching(scores, index, pod, snapshot)
    return PreScoreState(scores, counted)


def normalize(scores: np.ndarray, true_min_max: bool = False) -> np.ndarray:
    """v1.20 NormalizeScore arithmetic, anchored at 0 (see the package docstring); with
    ``true_min_max`` (1.21), between the scores' own minimum and maximum."""
    scores = np.asarray(scores, dtype=np.int64)
    if not len(scores):
        return scores.copy()
    max_count = int(scores.max())
    min_count = int(scores.min())
    if not true_min_max:
        max_count, min_count = max(0, max_count), min(0, min_count)
    diff = max_count - min_count
    if diff <= 0:
        return np.zeros(len(scores), dtype=np.int64)
    # Go: float64(MaxNodeScore) * (float64(s-min) / float64(max-min)), then int64() truncates.
    fraction = (scores - min_count).astype(np.float64) / np.float64(diff)
    return (np.float64(MAX_NODE_SCORE) * fraction).astype(np.int64)


def score_nodes(pre_score: PreScoreState, nodes: NodeSet) -> np.ndarray:
    """Score once PreScore's state is at hand: per node, the sum over the counted keys of the
    value at its own label."""
    total = np.zeros(len(nodes), dtype=np.int64)
    for key in pre_score.topology_score.arrays:
        total += pre_score.topology_score.lookup(key, nodes.label_column(key))
    return total
