"""PodTopologySpread's PreScore, Score and NormalizeScore (upstream's ``podtopologyspread/scoring.go``):
the matching pods per topology pair of the pod's ``ScheduleAnyway`` constraints, weighted
by ``log(size + 2)``, and the normalization that favours the least crowded domains.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ruleset import MAX_NODE_SCORE, NodeSet
from ruleset.api.pod import Pod
from ruleset.plugins.helper.normalize import go_div
from ruleset.plugins.podtopologyspread.common import (
    LABEL_HOSTNAME,
    CountCache,
    SpreadConstraint,
    has_all_keys,
)
from ruleset.plugins.podtopologyspread.filtering import Slot
from ruleset.plugins.podtopologyspread.helpers import NodeInclusion, topology_normalizing_weight
from ruleset.plugins.podtopologyspread.versions import V120, Behaviour

PRE_SCORE_STATE_KEY = "PreScorePodTopologySpread"
#: NormalizeScore's marker for ignored nodes (``invalidScore``).
INVALID_SCORE = -1


@dataclass
class PreScoreState:
    """``preScoreState``: the ScheduleAnyway constraints, ignored nodes and pair counts.

    ``ignored`` is indexed by snapshot node (``IgnoredNodes``); ``pair_counts[key]`` by the
    code of a value of ``key`` (``TopologyPairToPodCounts``, zero where no pair exists);
    ``node_counts[i]`` is constraint i's matching pods per node, read for hostname.
    """

    constraints: tuple[SpreadConstraint, ...] = ()
    ignored: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    pair_exists: dict[Slot, np.ndarray] = field(default_factory=dict)
    pair_counts: dict[Slot, np.ndarray] = field(default_factory=dict)
    node_counts: list[np.ndarray] = field(default_factory=list)
    weights: tuple[float, ...] = ()
    values: dict[Slot, list[str]] = field(default_factory=dict)
    #: Per constraint: its entry of the pair dicts (its key, or from 1.33 its index).
    slots: tuple[Slot, ...] = ()
    #: Round the raw score (1.24) rather than truncate it.
    round_score: bool = False

    def topology_pair_counts(self) -> dict[tuple[Slot, str], int]:
        """``TopologyPairToPodCounts`` as a mapping, for reports and tests."""
        return {(key, self.values[key][code]): int(self.pair_counts[key][code])
                for key, exists in self.pair_exists.items() for code in np.flatnonzero(exists)}


def pre_score_state(pod: Pod, nodes: NodeSet, constraints: list[SpreadConstraint],
                    behaviour: Behaviour = V120, system_defaulted: bool = False) -> PreScoreState:
    """``initPreScoreState`` and PreScore's counting over all nodes.

    ``system_defaulted``: the plugin's defaults are the System ones; from 1.23 a pod they apply
    to (no constraints of its own) does not need every key on a node: nothing is ignored, a
    node lacking a key counts in the pair of value "" (Go's missing map entry), which Score
    never reads, and Score only adds the constraints whose key the node carries.
    """
    snapshot = nodes.snapshot
    ignored = np.zeros(snapshot.num_nodes, dtype=bool)
    if not constraints:
        return PreScoreState(ignored=ignored)
    require_all = (bool(pod.topology_spread_constraints) or not system_defaulted
                   or not behaviour.system_defaults_without_keys)
    if require_all:
        scored = has_all_keys(snapshot, constraints, nodes.indices)
        eligible = has_all_keys(snapshot, constraints)
    else:
        scored = np.ones(len(nodes), dtype=bool)
        eligible = np.ones(snapshot.num_nodes, dtype=bool)
    ignored[nodes.indices[~scored]] = True
    candidates = nodes.indices[scored]
    inclusion = NodeInclusion(pod, snapshot)
    eligible_all = eligible if inclusion.affinity is None else eligible & inclusion.affinity
    per_node = CountCache(snapshot, pod.namespace, behaviour.empty_selector_counts_nothing)
    state = PreScoreState(tuple(constraints), ignored, round_score=behaviour.score_round)
    weights = []
    for i, c in enumerate(constraints):
        key = c.topology_key
        slot: Slot = i if behaviour.per_constraint_counts else key
        state.slots += (slot,)
        if behaviour.node_inclusion_policy:
            # matchNodeInclusionPolicies per constraint, on the nodes with every key.
            mask = inclusion.mask(c.node_affinity_policy, c.node_taints_policy)
            eligible_i = eligible if mask is None else eligible & mask
        else:
            eligible_i = eligible_all
        state.node_counts.append(per_node(c.selector))
        if key == LABEL_HOSTNAME:
            weights.append(topology_normalizing_weight(len(candidates)))
            continue
        column = snapshot.node_labels.column(key)
        # A node without the key reads as value "" (only possible when not require_all).
        codes = (np.full(snapshot.num_nodes, -1, dtype=np.int64) if column is None
                 else np.asarray(column, dtype=np.int64))
        empty_code = snapshot.node_labels.code_of(key, "")
        size = 0
        exists = state.pair_exists.get(slot)
        if exists is None:
            # Pairs come from the scored nodes; only the first constraint of a slot (of a
            # key, before 1.33) creates them, so only it counts them into its topology size.
            values = state.values[slot] = snapshot.node_labels.vocabulary(key)
            exists = state.pair_exists[slot] = np.zeros(len(values), dtype=bool)
            mine = codes[candidates]
            exists[mine[mine >= 0]] = True
            size = int(exists.sum())
            if (mine < 0).any() and (empty_code < 0 or not exists[empty_code]):
                size += 1  # the "" pair of the nodes without the key; nothing reads its count
            state.pair_counts[slot] = np.zeros(len(values), dtype=np.int64)
        weights.append(topology_normalizing_weight(size))
        if column is None or not exists.any():
            continue
        # Every constraint adds its matching pods into the pairs of its key, on the nodes
        # that match the pod's node affinity (and, unless system-defaulted, carry every key).
        chosen = eligible_i & (codes >= 0)
        node_codes = codes[chosen]
        matches = state.node_counts[-1][chosen]
        keep = exists[node_codes]
        state.pair_counts[slot] += np.bincount(node_codes[keep], weights=matches[keep],
                                              minlength=len(exists)).astype(np.int64)
        if not require_all and empty_code >= 0 and exists[empty_code]:
            # Nodes without the key share the "" pair with nodes labelled key="".
            keyless = eligible_i & (codes < 0)
            state.pair_counts[slot][empty_code] += int(state.node_counts[-1][keyless].sum())
    state.weights = tuple(weights)
    return state


def go_round(values: np.ndarray) -> np.ndarray:
    """Go's ``math.Round``: half away from zero (numpy's ``round`` goes to even), exactly."""
    whole = np.trunc(values)
    up = np.abs(values - whole) >= 0.5
    return whole + np.where(up, np.sign(values), 0.0)


def score_nodes(current: PreScoreState, nodes: NodeSet) -> np.ndarray:
    """Score once PreScore's state is at hand: ``Σ cnt·log(size+2) + (maxSkew-1)``, truncated."""
    score = np.zeros(len(nodes), dtype=np.float64)
    if not current.constraints:
        return score.astype(np.int64)
    ignored = current.ignored[nodes.indices]
    for i, c in enumerate(current.constraints):
        column = nodes.label_column(c.topology_key)
        labelled = column >= 0  # every node that is not ignored, unless system-defaulted (1.23)
        if c.topology_key == LABEL_HOSTNAME:
            count = current.node_counts[i][nodes.indices]
        else:
            count = np.zeros(len(nodes), dtype=np.int64)
            slot = current.slots[i] if current.slots else c.topology_key
            count[labelled] = current.pair_counts[slot][column[labelled]]
        # scoreForCount, added in Go's order: (cnt*weight + (maxSkew-1)), then into the sum.
        term = count.astype(np.float64) * current.weights[i] + float(c.max_skew - 1)
        score = np.where(labelled, score + term, score)
    whole = go_round(score) if current.round_score else np.trunc(score)
    return np.where(ignored, 0, whole).astype(np.int64)


def normalize_scores(current: PreScoreState, nodes: NodeSet, scores: np.ndarray) -> np.ndarray:
    """NormalizeScore once PreScore's state is at hand (ignored nodes score 0)."""
    scores = np.array(scores, dtype=np.int64)
    ignored = current.ignored[nodes.indices] if len(current.ignored) else np.zeros(len(nodes), dtype=bool)
    scores[ignored] = INVALID_SCORE
    valid = scores[~ignored]
    # A node that is not ignored but scored -1 (maxSkew 0, no pods) still counts in
    # min/max and then reads as "invalid", exactly as upstream's sentinel does.
    min_score = int(valid.min()) if len(valid) else 2**63 - 1
    max_score = max(0, int(valid.max())) if len(valid) else 0
    if max_score == 0:
        out = np.full(len(scores), MAX_NODE_SCORE, dtype=np.int64)
    else:
        out = go_div(MAX_NODE_SCORE * (max_score + min_score - scores), max_score)
    out[scores == INVALID_SCORE] = 0
    return out
