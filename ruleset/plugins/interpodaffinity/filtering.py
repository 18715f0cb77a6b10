"""InterPodAffinity's PreFilter, its AddPod/RemovePod extensions and Filter (upstream's
``interpodaffinity/filtering.go``): the topology pairs counted for the pod's required
(anti-)affinity and for existing pods' required anti-affinity, and the three checks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ruleset import Code, FilterResult, NodeSet, Snapshot, switch
from ruleset.api.pod import Pod
from ruleset.plugins.interpodaffinity.matched import matched_pods
from ruleset.plugins.interpodaffinity.terms import (
    PodInfo,
    existing_terms,
    matches_all,
    pod_info,
    table_matches,
)

PRE_FILTER_STATE_KEY = "PreFilterInterPodAffinity"

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_NOT_MATCH = "node(s) didn't match pod affinity/anti-affinity"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

ONE_REASON = switch(
    "InterPodAffinity.one-filter-reason", "1.22",
    "a node Filter rejects has one reason, the precise one: \"node(s) didn't match pod "
    "affinity/anti-affinity\" is no longer given with it",
    "pkg/scheduler/framework/plugins/interpodaffinity/filtering.go (Filter, kubernetes#102518)")


class TopologyCounts:
    """``topologyToMatchedTermCount`` (Go's ``map[topologyPair]int64``).

    One int64 array per topology key, indexed by the code of the node label value; a zero
    entry is a pair that is not in the map.
    """

    __slots__ = ("arrays",)

    def __init__(self, arrays: dict[str, np.ndarray] | None = None):
        self.arrays: dict[str, np.ndarray] = arrays if arrays is not None else {}

    def array(self, snapshot: Snapshot, key: str) -> np.ndarray:
        array = self.arrays.get(key)
        if array is None:
            array = self.arrays[key] = np.zeros(len(snapshot.node_labels.vocabulary(key)), dtype=np.int64)
        return array

    def add(self, snapshot: Snapshot, key: str, nodes: np.ndarray, values: np.ndarray | int = 1) -> bool:
        """Add ``values`` at (key, value of ``key`` on each of ``nodes``); nodes without the key
        are skipped. Returns whether anything landed."""
        column = snapshot.node_labels.column(key)
        if column is None or not len(nodes):
            return False
        codes = column[nodes]
        same = values
        if isinstance(values, np.ndarray):
            if values.dtype.kind != "i" or np.minimum.reduce(values) != np.maximum.reduce(values):
                present = codes >= 0
                if not present.any():
                    return False
                np.add.at(self.array(snapshot, key), codes[present], values[present])
                return True
            same = int(values[0])
        # One value for every entry: counting each code (-1, no key, shifted to 0 and dropped),
        # then one multiplication, gives the same int64 sums as np.add.at adding it once per
        # entry (both wrap modulo 2**64).
        counts = np.bincount(codes + 1)
        if counts[0] == len(codes):
            return False
        array = self.array(snapshot, key)
        array[: len(counts) - 1] += counts[1:] * same
        return True

    def add_counts(self, snapshot: Snapshot, key: str, values: np.ndarray) -> None:
        """Add ``values`` (one per value of ``key``'s vocabulary) to the counts of ``key``."""
        array = self.arrays.get(key)
        if array is None:
            self.arrays[key] = values.copy()
        else:
            array += values

    def lookup(self, key: str, codes: np.ndarray) -> np.ndarray:
        """The count at (key, code) for each node label code (0 where the node lacks the key)."""
        array = self.arrays.get(key)
        if array is None or not len(array):
            return np.zeros(len(codes), dtype=np.int64)
        # Code -1 (no key) reads the 0 appended past the vocabulary: one gather.
        return np.append(array, 0)[codes]

    def is_empty(self) -> bool:
        return not any(np.count_nonzero(array) for array in self.arrays.values())

    def clone(self) -> TopologyCounts:
        return TopologyCounts({key: array.copy() for key, array in self.arrays.items()})

    def pairs(self, snapshot: Snapshot) -> dict[tuple[str, str], int]:
        """The non-zero counts as ``{(key, value): count}`` (what upstream's map holds)."""
        out = {}
        for key, array in self.arrays.items():
            vocabulary = snapshot.node_labels.vocabulary(key)
            for code in np.flatnonzero(array):
                out[(key, vocabulary[code])] = int(array[code])
        return out


def add_by_key(counts: TopologyCounts, snapshot: Snapshot, keys: Sequence[str], key_of_entry: np.ndarray,
               nodes: np.ndarray, values: np.ndarray | int = 1) -> bool:
    """Add each entry's value at (its key, its node's value for that key); entries are grouped by key."""
    if len(keys) == 1:  # every entry has the one key: no grouping
        return counts.add(snapshot, keys[0], nodes, values) if len(key_of_entry) else False
    landed = False
    # The keys present, ascending (as np.unique would list them, for less).
    for k in np.flatnonzero(np.bincount(key_of_entry, minlength=len(keys))).tolist():
        mine = key_of_entry == k
        entry_values = values[mine] if isinstance(values, np.ndarray) else values
        landed |= counts.add(snapshot, keys[k], nodes[mine], entry_values)
    return landed


# --------------------------------------------------------------------------------------------
# PreFilter state
# --------------------------------------------------------------------------------------------

@dataclass
class PreFilterState:
    """``preFilterState`` of v1.20; ``clone()`` copies the counts (dry runs change them)."""

    pod: Pod
    info: PodInfo
    #: Pairs where existing pods' required anti-affinity terms match the incoming pod.
    existing_anti_affinity: TopologyCounts = field(default_factory=TopologyCounts)
    #: Pairs of existing pods matching all the incoming pod's required affinity terms.
    affinity: TopologyCounts = field(default_factory=TopologyCounts)
    #: Pairs of existing pods matching the incoming pod's required anti-affinity terms.
    anti_affinity: TopologyCounts = field(default_factory=TopologyCounts)
    #: Terms are converted as PodAffinityNamespaceSelector does (see :mod:`.terms`).
    namespace_selector: bool = False

    def clone(self) -> PreFilterState:
        # The pod and its terms do not change, only the counts.
        return PreFilterState(self.pod, self.info, self.existing_anti_affinity.clone(), self.affinity.clone(),
                              self.anti_affinity.clone(), self.namespace_selector)

    def update_with_pod(self, other: Pod, node: int, snapshot: Snapshot, multiplier: int) -> None:
        """``updateWithPod``: count ``other``, on node index ``node``, in (``multiplier`` 1) or out (-1)."""
        hits: list[tuple[TopologyCounts, str]] = []
        anti = other.affinity.pod_anti_affinity
        if anti is not None and anti.required:  # else pod_info(other) has no such terms
            hits += [(self.existing_anti_affinity, term.topology_key)
                     for term in pod_info(other, self.namespace_selector).required_anti_affinity
                     if term.matches(self.pod)]
        if matches_all(other, self.info.required_affinity):
            hits += [(self.affinity, term.topology_key) for term in self.info.required_affinity]
        hits += [(self.anti_affinity, term.topology_key)
                 for term in self.info.required_anti_affinity if term.matches(other)]
        if hits:  # usually none: the node array is only worth building then
            one = np.array([node], dtype=np.intp)
            for counts, key in hits:
                counts.add(snapshot, key, one, multiplier)


def existing_anti_affinity_counts(pod: Pod, snapshot: Snapshot, namespace_selector: bool = False,
                                  ) -> TopologyCounts:
    """``getTPMapMatchingExistingAntiAffinity``."""
    counts = TopologyCounts()
    index = existing_terms(snapshot, namespace_selector)
    if len(index.rows):  # each live pod's required anti-affinity term the pod matches counts 1
        index.sums(_ANTI_AFFINITY_ONE).update(index, snapshot).add_matching(counts, index, pod, snapshot)
    return counts


#: :meth:`ExistingTerms.sums` of the required anti-affinity terms only, each counting 1.
_ANTI_AFFINITY_ONE = (None, 1, None, None)


def incoming_affinity_counts(info: PodInfo, snapshot: Snapshot) -> tuple[TopologyCounts, TopologyCounts]:
    """``getTPMapMatchingIncomingAffinityAntiAffinity``: (affinity counts, anti-affinity counts).

    Read from the :class:`~.matched.MatchedPods` of the pod's terms (kept between cycles); what
    :func:`incoming_affinity_counts_from_scratch` computes."""
    affinity, anti = TopologyCounts(), TopologyCounts()
    if not info.required_affinity and not info.required_anti_affinity:
        return affinity, anti
    if info.required_affinity:
        together = matched_pods(snapshot, info.required_affinity)
        if together is None:
            return incoming_affinity_counts_from_scratch(info, snapshot)
        for term in info.required_affinity:
            key = term.topology_key
            if together.landed[key]:
                affinity.add_counts(snapshot, key, together.counts[key])
    for term in info.required_anti_affinity:
        matched = matched_pods(snapshot, (term,))
        if matched is None:
            return incoming_affinity_counts_from_scratch(info, snapshot)
        key = term.topology_key
        if matched.landed[key]:
            anti.add_counts(snapshot, key, matched.counts[key])
    return affinity, anti


def incoming_affinity_counts_from_scratch(info: PodInfo, snapshot: Snapshot,
                                          ) -> tuple[TopologyCounts, TopologyCounts]:
    """:func:`incoming_affinity_counts`, matching and counting every assigned pod."""
    affinity, anti = TopologyCounts(), TopologyCounts()
    if not info.required_affinity and not info.required_anti_affinity:
        return affinity, anti
    table = snapshot.pod_table
    rows = np.flatnonzero(table.alive)
    if not len(rows):
        return affinity, anti
    nodes = table.node[rows]
    if info.required_affinity:
        all_match = np.ones(len(rows), dtype=bool)
        for term in info.required_affinity:
            all_match &= table_matches(term, table, rows)
        if all_match.any():
            for term in info.required_affinity:
                affinity.add(snapshot, term.topology_key, nodes[all_match])
    for term in info.required_anti_affinity:
        matched = table_matches(term, table, rows)
        if matched.any():
            anti.add(snapshot, term.topology_key, nodes[matched])
    return affinity, anti


# --------------------------------------------------------------------------------------------
# Filter
# --------------------------------------------------------------------------------------------

def satisfy_pod_affinity(state: PreFilterState, nodes: NodeSet) -> np.ndarray:
    """``satisfyPodAffinity`` for every node of ``nodes``."""
    terms = state.info.required_affinity
    if not terms:
        return np.ones(len(nodes), dtype=bool)
    has_keys = np.ones(len(nodes), dtype=bool)
    pods_exist = np.ones(len(nodes), dtype=bool)
    for term in terms:
        codes = nodes.label_column(term.topology_key)
        has_keys &= codes >= 0
        pods_exist &= state.affinity.lookup(term.topology_key, codes) > 0
    if not pods_exist.all() and state.affinity.is_empty() and matches_all(state.pod, terms):
        # The first pod of a series with affinity to itself: nothing to be near yet.
        pods_exist[:] = True
    return has_keys & pods_exist


def satisfy_pod_anti_affinity(state: PreFilterState, nodes: NodeSet) -> np.ndarray:
    """``satisfyPodAntiAffinity`` for every node of ``nodes``."""
    ok = np.ones(len(nodes), dtype=bool)
    for term in state.info.required_anti_affinity:
        ok &= state.anti_affinity.lookup(term.topology_key, nodes.label_column(term.topology_key)) <= 0
    return ok


def satisfy_existing_pods_anti_affinity(state: PreFilterState, nodes: NodeSet) -> np.ndarray:
    """``satisfyExistingPodsAntiAffinity``: no label pair of the node has a count."""
    ok = np.ones(len(nodes), dtype=bool)
    for key, array in state.existing_anti_affinity.arrays.items():
        if array.any():
            ok &= state.existing_anti_affinity.lookup(key, nodes.label_column(key)) <= 0
    return ok


#: The reasons of each failed check (by slot: 0 is success), v1.20's and from 1.22 (:data:`ONE_REASON`).
FILTER_REASONS: list[tuple[str, ...]] = [
    (),
    (ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_AFFINITY_RULES_NOT_MATCH),
    (ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH),
    (ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH),
]
FILTER_REASONS_ONE: list[tuple[str, ...]] = [
    (),
    (ERR_REASON_AFFINITY_RULES_NOT_MATCH,),
    (ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,),
    (ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,),
]


def filter_nodes(pre_filter: PreFilterState, nodes: NodeSet,
                 reasons: list[tuple[str, ...]] = FILTER_REASONS) -> FilterResult | None:
    """Filter once PreFilter's state is at hand: the three checks in order, the first failure deciding
    (``reasons``: per check, :data:`FILTER_REASONS` or, from 1.22, :data:`FILTER_REASONS_ONE`)."""
    info = pre_filter.info
    # A check without terms (or counts, for existing pods' anti-affinity) passes every node.
    checks: list[tuple[int, Callable[[PreFilterState, NodeSet], np.ndarray]]] = []
    if info.required_affinity:
        checks.append((1, _fails_pod_affinity))
    if info.required_anti_affinity:
        checks.append((2, _fails_pod_anti_affinity))
    if any(array.any() for array in pre_filter.existing_anti_affinity.arrays.values()):
        checks.append((3, _fails_existing_pods_anti_affinity))
    # The first failed check decides, as upstream returns early: the later ones are written first.
    slot: np.ndarray | None = None
    for index, check in reversed(checks):
        failed = check(pre_filter, nodes)
        if failed.any():
            if slot is None:
                slot = np.zeros(len(nodes), dtype=np.int32)
            slot[failed] = index
    if slot is None:
        return None
    return FilterResult(_CODE_OF_SLOT[slot], list(reasons), slot)


def _counted_at(counts: TopologyCounts, key: str, codes: np.ndarray) -> np.ndarray:
    """Per node label code: is the count at (key, code) positive? (False for -1, no key.)"""
    array = counts.arrays.get(key)
    if array is None or not len(array):
        return np.zeros(len(codes), dtype=bool)
    return np.append(array > 0, False)[codes]


def _fails_pod_affinity(state: PreFilterState, nodes: NodeSet) -> np.ndarray:
    """``~satisfy_pod_affinity``."""
    return ~satisfy_pod_affinity(state, nodes)


def _any_counted(counts: TopologyCounts, keys: Sequence[str], nodes: NodeSet) -> np.ndarray:
    """Per node: is the count positive at (key, the node's value) for one of ``keys``?"""
    failed: np.ndarray | None = None
    for key in keys:
        hit = _counted_at(counts, key, nodes.label_column(key))
        failed = hit if failed is None else failed | hit
    return np.zeros(len(nodes), dtype=bool) if failed is None else failed


def _fails_pod_anti_affinity(state: PreFilterState, nodes: NodeSet) -> np.ndarray:
    """``~satisfy_pod_anti_affinity``."""
    keys = [term.topology_key for term in state.info.required_anti_affinity]
    return _any_counted(state.anti_affinity, keys, nodes)


def _fails_existing_pods_anti_affinity(state: PreFilterState, nodes: NodeSet) -> np.ndarray:
    """``~satisfy_existing_pods_anti_affinity``."""
    counts = state.existing_anti_affinity
    return _any_counted(counts, [key for key, array in counts.arrays.items() if array.any()], nodes)


#: The status code of each slot (0: success; 1, the pod's affinity: unresolvable).
_CODE_OF_SLOT = np.array([Code.SUCCESS, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.UNSCHEDULABLE,
                          Code.UNSCHEDULABLE], dtype=np.int8)
