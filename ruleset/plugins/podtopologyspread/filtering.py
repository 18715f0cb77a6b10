"""PodTopologySpread's PreFilter, its AddPod/RemovePod extensions and Filter (upstream's
``podtopologyspread/filtering.go``): the matching pods per topology pair of the pod's
``DoNotSchedule`` constraints, each key's critical paths, and the skew check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ruleset import Code, FilterResult, NodeSet, Snapshot
from ruleset.api.pod import Pod
from ruleset.plugins.podtopologyspread.common import (
    MAX_INT32,
    CountCache,
    SpreadConstraint,
    has_all_keys,
)
from ruleset.plugins.podtopologyspread.counting import matching_pods
from ruleset.plugins.podtopologyspread.helpers import NodeInclusion
from ruleset.plugins.podtopologyspread.versions import V120, Behaviour

PRE_FILTER_STATE_KEY = "PreFilterPodTopologySpread"

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"


CriticalPaths = list[tuple[str, int]]


def new_critical_paths() -> CriticalPaths:
    """``newCriticalPaths``: two empty slots (value "", count MaxInt32)."""
    return [("", MAX_INT32), ("", MAX_INT32)]


def update_critical_paths(paths: CriticalPaths, value: str, num: int) -> None:
    """``criticalPaths.update``: keep ``paths[0]`` the minimum; ``paths[1]`` is only >= it.

    As upstream this is exact when building from scratch but may lose the true minimum
    after several updates (the "[2]criticalPath" caveat); it is reproduced, not fixed.
    Note that a value "" matches an empty slot, as in Go.
    """
    if value == paths[0][0]:
        i = 0
    elif value == paths[1][0]:
        i = 1
    else:
        i = -1
    if i >= 0:
        paths[i] = (paths[i][0], num)
        if paths[0][1] > paths[1][1]:
            paths[0], paths[1] = paths[1], paths[0]
    elif num < paths[0][1]:
        paths[1] = paths[0]
        paths[0] = (value, num)
    elif num < paths[1][1]:
        paths[1] = (value, num)


#: Up to this many pairs, the critical paths are found in Python (numpy calls cost more).
_FEW_VALUES = 32


def build_critical_paths(values: list[str], exists: np.ndarray, counts: np.ndarray,
                         rank: np.ndarray) -> CriticalPaths:
    """Critical paths of a key from scratch, vectorised.

    Upstream calls :func:`update_critical_paths` for every pair, in Go's random map order.
    Here the pairs are taken in ascending order of their value (``rank``), and that loop
    then yields exactly the two smallest counts, ties going to the smaller value (an
    initial value "" only ever fills the first slot, as it would first in that order); so
    this computes that result directly with numpy instead of a Python loop over the
    pairs.
    """
    paths = new_critical_paths()
    codes = np.flatnonzero(exists)
    if not len(codes):
        return paths
    if len(codes) <= _FEW_VALUES:  # (count, rank) is the order below: the two smallest, in Python
        order_of = [(counts.item(code), rank.item(code), code) for code in codes.tolist()]
        order_of.sort()
        for i, (count, _, code) in enumerate(order_of[:2]):
            paths[i] = (values[code], count)
        return paths
    order = counts[codes] * (len(rank) + 1) + rank[codes]  # count first, then value order
    best = int(np.argmin(order))
    paths[0] = (values[codes[best]], int(counts[codes[best]]))
    if len(codes) > 1:
        order[best] = np.iinfo(np.int64).max
        second = int(np.argmin(order))
        paths[1] = (values[codes[second]], int(counts[codes[second]]))
    return paths


def value_rank(snapshot: Snapshot, key: str) -> np.ndarray:
    """Per code of a node label ``key``: the position of its value in sorted order (cached;
    node labels do not change during a run)."""
    ranks: dict[str, np.ndarray] = snapshot.derive(f"{__name__}.value_rank", lambda _: {})
    rank = ranks.get(key)
    if rank is None:
        values = snapshot.node_labels.vocabulary(key)
        rank = np.empty(len(values), dtype=np.int64)
        rank[sorted(range(len(values)), key=values.__getitem__)] = np.arange(len(values))
        ranks[key] = rank
    return rank


@dataclass
class TopologyCounts:
    """One topology key's part of ``TpPairToMatchNum`` and its ``TpKeyToCriticalPaths`` entry.

    ``counts`` and ``exists`` are indexed by the code of the value in the snapshot's node
    label vocabulary of the key (node labels never change during a run).
    """

    values: list[str]
    exists: np.ndarray
    counts: np.ndarray
    paths: CriticalPaths

    def clone(self) -> TopologyCounts:
        # ``exists`` (which pairs there are) never changes after PreFilter; it is shared.
        return TopologyCounts(self.values, self.exists, self.counts.copy(), list(self.paths))


Slot = str | int


@dataclass
class PreFilterState:
    """``preFilterState``: the DoNotSchedule constraints and the counts per topology pair.

    ``slots[i]`` names constraint i's entry of ``keys``: its topology key (constraints sharing
    a key add into one count per value, as before 1.33) or, from 1.33
    (PodTopologySpread.per-constraint-counts), its index. ``include[i]`` is the nodes whose
    pods AddPod/RemovePod may count for constraint i (None: no check, as v1.20).
    """

    constraints: tuple[SpreadConstraint, ...] = ()
    keys: dict[Slot, TopologyCounts] = field(default_factory=dict)
    slots: tuple[Slot, ...] = ()
    include: tuple[np.ndarray | None, ...] = ()
    #: Per slot: the number of eligible domains (pairs), which minDomains compares to.
    domains: dict[Slot, int] = field(default_factory=dict)

    def clone(self) -> PreFilterState:
        return PreFilterState(self.constraints, {k: v.clone() for k, v in self.keys.items()}, self.slots,
                              self.include, self.domains)

    def pair_counts(self) -> dict[tuple[Slot, str], int]:
        """``TpPairToMatchNum`` as a mapping, for reports and tests."""
        return {(key, t.values[code]): int(t.counts[code])
                for key, t in self.keys.items() for code in np.flatnonzero(t.exists)}

    def critical_paths(self) -> dict[Slot, tuple[tuple[str, int], tuple[str, int]]]:
        """``TpKeyToCriticalPaths`` as a mapping, for reports and tests."""
        return {key: (t.paths[0], t.paths[1]) for key, t in self.keys.items()}

    def update_with_pod(self, updated: Pod, preemptor: Pod, snapshot: Snapshot, node: int,
                        delta: int) -> None:
        """``preFilterState.updateWithPod``: v1.20 checks no node affinity; later releases skip a
        node the constraint does not count (``include``); terminating pods count."""
        if not self.constraints or updated.namespace != preemptor.namespace:
            return
        labels = snapshot.nodes[node].labels
        if any(c.topology_key not in labels for c in self.constraints):
            return
        for i, c in enumerate(self.constraints):
            if not c.selector.matches(updated.labels):
                continue
            include = self.include[i] if i < len(self.include) else None
            if include is not None and not include[node]:
                continue
            key = c.topology_key
            counts = self.keys[self.slots[i] if self.slots else key]
            value = labels[key]
            code = snapshot.node_labels.code_of(key, value)
            if code < 0 or code >= len(counts.exists) or not counts.exists[code]:
                continue  # upstream panics on the nil counter here; see the package docstring
            counts.counts[code] += delta
            update_critical_paths(counts.paths, value, int(counts.counts[code]))


def pre_filter_state(pod: Pod, snapshot: Snapshot, constraints: list[SpreadConstraint],
                     behaviour: Behaviour = V120) -> PreFilterState:
    """``calPreFilterState`` once the constraints are known, as ``behaviour``'s release counts."""
    if not constraints:
        return PreFilterState()
    slots: list[Slot] = [i if behaviour.per_constraint_counts else c.topology_key
                         for i, c in enumerate(constraints)]
    if behaviour.filter_counts_affinity_nodes:
        keys, include = _count_single_pass(pod, snapshot, constraints, slots, behaviour)
    else:
        keys, include = _count_v120(pod, snapshot, constraints, behaviour)
    for slot, counts in keys.items():
        key = constraints[slots.index(slot)].topology_key
        counts.paths = build_critical_paths(counts.values, counts.exists, counts.counts,
                                            value_rank(snapshot, key))
    domains = {slot: int(np.count_nonzero(counts.exists)) for slot, counts in keys.items()}
    return PreFilterState(tuple(constraints), keys, tuple(slots), tuple(include), domains)


def _new_counts(snapshot: Snapshot, key: str) -> TopologyCounts:
    values = snapshot.node_labels.vocabulary(key)
    return TopologyCounts(values, np.zeros(len(values), dtype=bool), np.zeros(len(values), dtype=np.int64),
                          new_critical_paths())


def _count_v120(pod: Pod, snapshot: Snapshot, constraints: list[SpreadConstraint], behaviour: Behaviour,
                ) -> tuple[dict[Slot, TopologyCounts], list[np.ndarray | None]]:
    """v1.20 to 1.23: pairs come from the nodes that match the pod's node affinity and carry
    every key; then every node whose pair exists counts, each constraint adding its matches."""
    eligible = has_all_keys(snapshot, constraints)
    affinity = NodeInclusion(pod, snapshot).affinity
    if affinity is not None:
        eligible = eligible & affinity  # not in place: has_all_keys's answer is shared
    per_node = CountCache(snapshot, pod.namespace, behaviour.empty_selector_counts_nothing)
    keys: dict[Slot, TopologyCounts] = {}
    for c in constraints:
        key = c.topology_key
        column = snapshot.node_labels.column(key)
        counts = keys.get(key)
        if counts is None:
            counts = keys[key] = _new_counts(snapshot, key)
            if column is not None:
                counts.exists[column[eligible]] = True
        if column is None or not counts.exists.any():
            continue
        # A node without the key reads as value "" (Go's missing map entry), which exists
        # only if an eligible node carries the key with an empty value.
        codes = np.where(column >= 0, column, snapshot.node_labels.code_of(key, ""))
        counted = codes >= 0
        counted[counted] = counts.exists[codes[counted]]
        counts.counts += np.bincount(codes[counted], weights=per_node(c.selector)[counted],
                                     minlength=len(counts.values)).astype(np.int64)
    return keys, [None] * len(constraints)


def _count_single_pass(pod: Pod, snapshot: Snapshot, constraints: list[SpreadConstraint], slots: list[Slot],
                       behaviour: Behaviour) -> tuple[dict[Slot, TopologyCounts], list[np.ndarray | None]]:
    """From 1.24: one pass over the nodes carrying every key and matching the pod's node
    affinity (kubernetes#107009), or from 1.25 with NodeInclusionPolicyInPodTopologySpread
    those each constraint's policies include; a node counted makes its pair. Per node a
    pair holds one count (``tpCountsByNode``, kubernetes#107623): of constraints sharing a
    slot, the last that counts the node wins."""
    has_keys = has_all_keys(snapshot, constraints)
    inclusion = NodeInclusion(pod, snapshot)
    affinity = inclusion.affinity
    eligible = has_keys if affinity is None else has_keys & affinity
    kept = _count_kept(pod, snapshot, constraints, slots, behaviour, has_keys, inclusion)
    if kept is not None:
        return kept
    per_node = CountCache(snapshot, pod.namespace, behaviour.empty_selector_counts_nothing)
    include: list[np.ndarray | None] = []
    node_value: dict[Slot, np.ndarray] = {}
    node_in: dict[Slot, np.ndarray] = {}
    keys: dict[Slot, TopologyCounts] = {}
    for slot, c in zip(slots, constraints, strict=True):
        if slot not in keys:
            keys[slot] = _new_counts(snapshot, c.topology_key)
            node_value[slot] = np.zeros(snapshot.num_nodes, dtype=np.int64)
            node_in[slot] = np.zeros(snapshot.num_nodes, dtype=bool)
        if behaviour.node_inclusion_policy:
            mask = inclusion.mask(c.node_affinity_policy, c.node_taints_policy)
            chosen = has_keys if mask is None else has_keys & mask
            include.append(mask)
        else:
            chosen = eligible
            include.append(affinity)
        node_value[slot][chosen] = per_node(c.selector)[chosen]
        node_in[slot] |= chosen
    for slot, counts in keys.items():
        column = snapshot.node_labels.column(constraints[slots.index(slot)].topology_key)
        if column is None:
            continue  # no node carries the key: nothing is counted
        codes = column[node_in[slot]]
        counts.exists[codes] = True
        counts.counts += np.bincount(codes, weights=node_value[slot][node_in[slot]],
                                     minlength=len(counts.values)).astype(np.int64)
    return keys, include


def _count_kept(pod: Pod, snapshot: Snapshot, constraints: list[SpreadConstraint], slots: list[Slot],
                behaviour: Behaviour, has_keys: np.ndarray, inclusion: NodeInclusion,
                ) -> tuple[dict[Slot, TopologyCounts], list[np.ndarray | None]] | None:
    """:func:`_count_single_pass` read from the counts kept between cycles (:mod:`.counting`),
    when each slot has one constraint and each selector counts pods; None otherwise."""
    if len(set(slots)) != len(slots):
        return None  # constraints sharing a slot: the last one counting a node wins
    include: list[np.ndarray | None] = []
    keys: dict[Slot, TopologyCounts] = {}
    for slot, c in zip(slots, constraints, strict=True):
        if c.selector.is_nothing or (behaviour.empty_selector_counts_nothing and c.selector.empty()):
            return None
        if behaviour.node_inclusion_policy:
            mask = inclusion.mask(c.node_affinity_policy, c.node_taints_policy)
            chosen = has_keys if mask is None else has_keys & mask
            include.append(mask)
        else:
            chosen = has_keys if inclusion.affinity is None else has_keys & inclusion.affinity
            include.append(inclusion.affinity)
        values = snapshot.node_labels.vocabulary(c.topology_key)
        if snapshot.node_labels.column(c.topology_key) is None:
            keys[slot] = _new_counts(snapshot, c.topology_key)  # no node carries the key
            continue
        matching = matching_pods(snapshot, c.selector, pod.namespace)
        projection = None if matching is None else matching.projection(snapshot, c.topology_key, chosen)
        if projection is None:
            return None
        keys[slot] = TopologyCounts(values, projection.exists, projection.counts.copy(), new_critical_paths())
    return keys, include


def _every_node_carries(snapshot: Snapshot, key: str) -> bool:
    """Whether every node of the snapshot has label ``key`` (kept: node labels do not change)."""
    kept: dict[str, bool] = snapshot.derive(f"{__name__}.every_node_carries", lambda _: {})
    found = kept.get(key)
    if found is None:
        column = snapshot.node_labels.column(key)
        found = kept[key] = column is not None and bool((column >= 0).all())
    return found


#: The status code of each reason (0: success).
_CODE_OF_REASON = np.array([Code.SUCCESS, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.UNSCHEDULABLE],
                           dtype=np.int8)


def filter_nodes(current: PreFilterState, pod: Pod, nodes: NodeSet) -> FilterResult | None:
    """Filter once PreFilter's state is at hand: the constraints in order, the first failure deciding."""
    if not current.constraints:
        return None
    reason: np.ndarray | None = None  # per node: 0 passes, 1 missing a key, 2 too much skew
    open_: np.ndarray | None = None  # nodes no earlier constraint has rejected (None: all)
    for i, c in enumerate(current.constraints):
        column = nodes.label_column(c.topology_key)
        missing = None if _every_node_carries(nodes.snapshot, c.topology_key) else column < 0
        if missing is not None and open_ is not None:
            missing &= open_
        if missing is not None and missing.any():
            if reason is None:
                reason = np.zeros(len(nodes), dtype=np.int32)
            reason[missing] = 1
            open_ = ~missing if open_ is None else open_ & ~missing
            if not open_.any():
                break
        slot = current.slots[i] if current.slots else c.topology_key
        counts = current.keys[slot]
        self_match = 1 if c.selector.matches(pod.labels) else 0
        # minMatchNum: with fewer eligible domains than minDomains the global minimum is 0.
        minimum = 0 if current.domains.get(slot, 0) < c.min_domains else counts.paths[0][1]
        # The skew per value, then per node (a node without the key, -1, reads the False
        # appended past the values; it is not open anyway).
        over = np.append(counts.counts + self_match - minimum > c.max_skew, False)[column]
        if open_ is not None:
            over &= open_
        if over.any():
            if reason is None:
                reason = np.zeros(len(nodes), dtype=np.int32)
            reason[over] = 2
            open_ = ~over if open_ is None else open_ & ~over
    if reason is None:
        return None
    codes = _CODE_OF_REASON[reason]
    reasons = [(), (ERR_REASON_NODE_LABEL_NOT_MATCH,), (ERR_REASON_CONSTRAINTS_NOT_MATCH,)]
    return FilterResult(codes, reasons, reason)
