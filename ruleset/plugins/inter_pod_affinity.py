"""InterPodAffinity (PreFilter + AddPod/RemovePod, Filter, PreScore, Score, NormalizeScore), as v1.20.

**Terms.** Every ``podAffinityTerm`` becomes an :class:`AffinityTerm`: the namespaces it
selects (``namespaces``, or the owning pod's own namespace when that list is empty), its
selector (``LabelSelectorAsSelector``: a nil selector selects nothing, ``{}`` everything) and
its topology key. A pod *matches* a term when its namespace is one of the term's and its
labels satisfy the selector. As v1.20's ``framework.NewPodInfo``, a selector that does not
convert drops its whole list (required affinity, required anti-affinity, preferred
affinity, preferred anti-affinity: an assigned pod's broken list is silently ignored) and
records ``"<list>: <error>"``; when several lists fail, the last one in that order wins.

**PreFilter** (``filtering.go``) rejects a pod whose own terms do not convert with
UnschedulableAndUnresolvable ``parsing pod: <list>: <error>``. Otherwise it counts, per
topology pair (a label key and the value a node has for it), over every assigned pod E on a
node N that carries the term's key:

* existing anti-affinity: +1 at (key, N[key]) for each of E's required anti-affinity terms
  the incoming pod matches;
* affinity: if E matches *all* the incoming pod's required affinity terms, +1 at
  (key, N[key]) for each of those terms;
* anti-affinity: +1 at (key, N[key]) for each of the incoming pod's required anti-affinity
  terms that E matches.

AddPod/RemovePod (preemption dry runs, nominated pods) apply the same three rules to one pod
with +1/-1; a pair whose count reaches 0 is gone, as upstream deletes it from its map.

**Filter** checks, per node, in v1.20's order (the first failure decides):

1. affinity: the node lacks one of the terms' keys, or some term's pair on the node has no
   count; except that when *no* pair was counted at all and the pod matches all its own
   terms (the first pod of a group that wants to be together), a node carrying every key
   passes. Failure: UnschedulableAndUnresolvable, ``node(s) didn't match pod
   affinity/anti-affinity`` + ``node(s) didn't match pod affinity rules``;
2. anti-affinity: some term's pair on the node has a count. Unschedulable,
   ``...affinity/anti-affinity`` + ``node(s) didn't match pod anti-affinity rules``;
3. existing pods' anti-affinity: one of the node's own label pairs has a count.
   Unschedulable, ``...affinity/anti-affinity`` + ``node(s) didn't satisfy existing pods
   anti-affinity rules``.

**PreScore/Score** (``scoring.go``): over every assigned pod E on a node N carrying the
term's key, add at (key, N[key]): +w for each incoming preferred affinity term E matches,
-w for each incoming preferred anti-affinity term E matches, +hardPodAffinityWeight for
each of E's required affinity terms the incoming pod matches (only when the weight is > 0),
+w / -w for each of E's preferred affinity / anti-affinity terms the incoming pod matches.
A node's score is the sum, over the keys that received anything, of the value at its own
label for that key. The pairs cover the whole cluster, not just the feasible nodes.

**NormalizeScore** is v1.20's: when nothing was counted the scores stay as they are (all 0);
otherwise ``min = min(0, scores)``, ``max = max(0, scores)`` (anchored at 0; v1.21 uses the
true minimum) and a score becomes ``int64(100 * (float64(s-min) / float64(max-min)))``, or 0
when ``max == min``. The float expression is evaluated in Go's order, so 100*(29/100) gives
28 exactly where Go does.

**Args:** ``hardPodAffinityWeight`` (default 1), 0..100.

**How it is computed.** Pair counts are one int64 array per topology key, indexed by the
code of the node label value (the node label vocabulary is fixed for a run). The incoming
pod's terms are matched against every assigned pod at once (the pod table's label columns);
the terms of assigned pods that declare affinity are kept in an append-only index (pod
table rows are never reused), interned so that pods of one workload share a term, so a cycle
evaluates each distinct term once against the incoming pod (remembered for the last pod, which
PreScore reuses after PreFilter) and aggregates with numpy.

**Nondeterminism.** Upstream sums per-node maps built in parallel and iterates maps in
Filter and Score; every result is an integer sum or an "any", which does not depend on the
order, so there is nothing to choose.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from ruleset.api.pod import Pod, PodAffinityTerm, WeightedPodAffinityTerm
from ruleset.framework.args import ArgError, arg_field
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import MAX_NODE_SCORE, Plugin
from ruleset.framework.results import FilterResult
from ruleset.framework.status import Code, Status
from ruleset.hookspecs import hookimpl
from ruleset.selector import Selector, SelectorError, from_label_selector
from ruleset.snapshot import NodeSet, PodTable, Snapshot

NAME = "InterPodAffinity"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_NOT_MATCH = "node(s) didn't match pod affinity/anti-affinity"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"


# --------------------------------------------------------------------------------------------
# Args
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class InterPodAffinityArgs:
    """``InterPodAffinityArgs`` of kubescheduler.config.k8s.io/v1beta1."""

    hard_pod_affinity_weight: int = arg_field("hardPodAffinityWeight", 1)


# --------------------------------------------------------------------------------------------
# Terms (framework.AffinityTerm / PodInfo of v1.20)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """``framework.AffinityTerm``: a converted pod affinity term."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str

    def matches(self, pod: Pod) -> bool:
        """``PodMatchesTermsNamespaceAndSelector``."""
        return pod.namespace in self.namespaces and self.selector.matches(pod.labels)


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


@dataclass(frozen=True, slots=True)
class PodInfo:
    """``framework.PodInfo`` of v1.20: a pod's converted terms and its parse error, if any."""

    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[WeightedAffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[WeightedAffinityTerm, ...] = ()
    parse_error: str | None = None


@lru_cache(maxsize=65536)
def affinity_term(term: PodAffinityTerm, namespace: str) -> AffinityTerm:
    """``newAffinityTerm``; raises SelectorError. Cached, so the pods of a workload share one object."""
    namespaces = frozenset(term.namespaces) if term.namespaces else frozenset((namespace,))
    return AffinityTerm(namespaces, from_label_selector(term.label_selector), term.topology_key)


def _terms(pod: Pod, terms: Sequence[PodAffinityTerm]) -> tuple[tuple[AffinityTerm, ...], str | None]:
    out = []
    for term in terms:
        try:
            out.append(affinity_term(term, pod.namespace))
        except SelectorError as exc:
            return (), exc.reason  # one bad selector drops the whole list, as getAffinityTerms
    return tuple(out), None


def _weighted(pod: Pod, terms: Sequence[WeightedPodAffinityTerm],
              ) -> tuple[tuple[WeightedAffinityTerm, ...], str | None]:
    out = []
    for weighted in terms:
        try:
            out.append(WeightedAffinityTerm(affinity_term(weighted.term, pod.namespace), weighted.weight))
        except SelectorError as exc:
            return (), exc.reason
    return tuple(out), None


_POD_INFOS: weakref.WeakKeyDictionary[Pod, PodInfo] = weakref.WeakKeyDictionary()


def pod_info(pod: Pod) -> PodInfo:
    """``framework.NewPodInfo`` (v1.20), cached per pod object."""
    info = _POD_INFOS.get(pod)
    if info is not None:
        return info
    affinity, anti = pod.affinity.pod_affinity, pod.affinity.pod_anti_affinity
    error = None
    required, err = _terms(pod, affinity.required if affinity else ())
    if err:
        error = f"requiredAffinityTerms: {err}"
    required_anti, err = _terms(pod, anti.required if anti else ())
    if err:
        error = f"requiredAntiAffinityTerms: {err}"
    preferred, err = _weighted(pod, affinity.preferred if affinity else ())
    if err:
        error = f"preferredAffinityTerms: {err}"
    preferred_anti, err = _weighted(pod, anti.preferred if anti else ())
    if err:
        error = f"preferredAntiAffinityTerms: {err}"
    info = _POD_INFOS[pod] = PodInfo(required, required_anti, preferred, preferred_anti, error)
    return info


def matches_all(pod: Pod, terms: Sequence[AffinityTerm]) -> bool:
    """``podMatchesAllAffinityTerms``: False for no terms."""
    return bool(terms) and all(t.matches(pod) for t in terms)


def _table_matches(term: AffinityTerm, table: PodTable, rows: np.ndarray) -> np.ndarray:
    """``term.matches`` for the pods in ``rows`` at once."""
    codes = [c for c in (table.namespace_code(ns) for ns in term.namespaces) if c >= 0]
    if not codes or not len(rows):
        return np.zeros(len(rows), dtype=bool)
    in_namespace = np.isin(table.namespace[rows], codes)
    if not in_namespace.any():
        return in_namespace
    matched = np.zeros(len(rows), dtype=bool)
    candidates = rows[in_namespace]
    matched[in_namespace] = term.selector.match_table(table.labels, candidates)
    return matched


# --------------------------------------------------------------------------------------------
# Terms of assigned pods, indexed for a whole cycle at a time
# --------------------------------------------------------------------------------------------

REQUIRED_AFFINITY, REQUIRED_ANTI_AFFINITY, PREFERRED_AFFINITY, PREFERRED_ANTI_AFFINITY = range(4)


class _ExistingTerms:
    """Every term of every assigned pod that declares pod (anti-)affinity, as columns.

    One entry per (pod-table row, term): the row, the term's id, the kind of list it came
    from and its weight. Rows are never reused for another pod, so entries are only ever
    appended (for rows added since the last look); liveness and node are read from the pod
    table at use time, which also covers pods removed and put back by dry runs.
    """

    def __init__(self) -> None:
        self.scanned = 0
        self.terms: list[AffinityTerm] = []
        self._ids: dict[int, int] = {}
        self.rows = np.zeros(0, dtype=np.intp)
        self.term_ids = np.zeros(0, dtype=np.intp)
        self.kinds = np.zeros(0, dtype=np.int8)
        self.weights = np.zeros(0, dtype=np.int64)
        self._last_match: tuple[Pod | None, np.ndarray] = (None, np.zeros(0, dtype=bool))
        #: The distinct topology keys, and per entry the index of its term's key.
        self.keys: list[str] = []
        self._key_index: dict[str, int] = {}
        self._key_of_term: list[int] = []
        self.key_ids = np.zeros(0, dtype=np.intp)

    def _term_id(self, term: AffinityTerm) -> int:
        # Terms are interned by affinity_term's cache; equal terms missed by it only cost a
        # second (identical) evaluation per cycle.
        tid = self._ids.get(id(term))
        if tid is None:
            tid = self._ids[id(term)] = len(self.terms)
            self.terms.append(term)
            k = self._key_index.get(term.topology_key)
            if k is None:
                k = self._key_index[term.topology_key] = len(self.keys)
                self.keys.append(term.topology_key)
            self._key_of_term.append(k)
        return tid

    def sync(self, table: PodTable) -> _ExistingTerms:
        size = len(table)
        if size == self.scanned:
            return self
        rows: list[int] = []
        term_ids: list[int] = []
        kinds: list[int] = []
        weights: list[int] = []
        for row in (np.flatnonzero(table.has_affinity[self.scanned:size]) + self.scanned).tolist():
            info = pod_info(table.pods[row])
            entries = [*((t, REQUIRED_AFFINITY, 0) for t in info.required_affinity),
                       *((t, REQUIRED_ANTI_AFFINITY, 0) for t in info.required_anti_affinity),
                       *((w.term, PREFERRED_AFFINITY, w.weight) for w in info.preferred_affinity),
                       *((w.term, PREFERRED_ANTI_AFFINITY, w.weight) for w in info.preferred_anti_affinity)]
            for term, kind, weight in entries:
                rows.append(row)
                term_ids.append(self._term_id(term))
                kinds.append(kind)
                weights.append(weight)
        self.scanned = size
        if rows:
            self.rows = np.concatenate((self.rows, np.array(rows, dtype=np.intp)))
            self.term_ids = np.concatenate((self.term_ids, np.array(term_ids, dtype=np.intp)))
            self.kinds = np.concatenate((self.kinds, np.array(kinds, dtype=np.int8)))
            self.weights = np.concatenate((self.weights, np.array(weights, dtype=np.int64)))
            new_keys = np.array([self._key_of_term[t] for t in term_ids], dtype=np.intp)
            self.key_ids = np.concatenate((self.key_ids, new_keys))
        return self

    def matched_by(self, pod: Pod) -> np.ndarray:
        """Per entry: does ``pod`` match the entry's term? (Each distinct term is evaluated once.)

        The answers for the last pod asked are kept, so PreFilter and PreScore of one cycle
        (and the cycles of a pod retried later) only evaluate terms added since.
        """
        cached_pod, known = self._last_match
        if cached_pod is not pod:
            known = np.zeros(0, dtype=bool)
        if len(known) < len(self.terms):
            new = self.terms[len(known):]
            answers = np.fromiter((t.matches(pod) for t in new), dtype=bool, count=len(new))
            known = np.concatenate((known, answers))
            self._last_match = (pod, known)
        return known[self.term_ids]


def existing_terms(snapshot: Snapshot) -> _ExistingTerms:
    """The snapshot's :class:`_ExistingTerms`, brought up to date with its pod table."""
    return snapshot.derive(__name__, lambda _: _ExistingTerms()).sync(snapshot.pod_table)


# --------------------------------------------------------------------------------------------
# Topology pair counts
# --------------------------------------------------------------------------------------------

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
        present = codes >= 0
        if not present.any():
            return False
        array = self.array(snapshot, key)
        if isinstance(values, np.ndarray):
            np.add.at(array, codes[present], values[present])
        else:
            np.add.at(array, codes[present], values)
        return True

    def lookup(self, key: str, codes: np.ndarray) -> np.ndarray:
        """The count at (key, code) for each node label code (0 where the node lacks the key)."""
        array = self.arrays.get(key)
        if array is None or not len(array):
            return np.zeros(len(codes), dtype=np.int64)
        return np.where(codes >= 0, array[np.maximum(codes, 0)], 0)

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


def _add_by_key(counts: TopologyCounts, snapshot: Snapshot, keys: Sequence[str], key_of_entry: np.ndarray,
                nodes: np.ndarray, values: np.ndarray | int = 1) -> bool:
    """Add each entry's value at (its key, its node's value for that key); entries are grouped by key."""
    landed = False
    for k in np.unique(key_of_entry).tolist():
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

    def clone(self) -> PreFilterState:
        # The pod and its terms do not change, only the counts.
        return PreFilterState(self.pod, self.info, self.existing_anti_affinity.clone(), self.affinity.clone(),
                              self.anti_affinity.clone())

    def update_with_pod(self, other: Pod, node: int, snapshot: Snapshot, multiplier: int) -> None:
        """``updateWithPod``: count ``other``, on node index ``node``, in (``multiplier`` 1) or out (-1)."""
        hits: list[tuple[TopologyCounts, str]] = []
        anti = other.affinity.pod_anti_affinity
        if anti is not None and anti.required:  # else pod_info(other) has no such terms
            hits += [(self.existing_anti_affinity, term.topology_key)
                     for term in pod_info(other).required_anti_affinity if term.matches(self.pod)]
        if matches_all(other, self.info.required_affinity):
            hits += [(self.affinity, term.topology_key) for term in self.info.required_affinity]
        hits += [(self.anti_affinity, term.topology_key)
                 for term in self.info.required_anti_affinity if term.matches(other)]
        if hits:  # usually none: the node array is only worth building then
            one = np.array([node], dtype=np.intp)
            for counts, key in hits:
                counts.add(snapshot, key, one, multiplier)


def existing_anti_affinity_counts(pod: Pod, snapshot: Snapshot) -> TopologyCounts:
    """``getTPMapMatchingExistingAntiAffinity``."""
    counts = TopologyCounts()
    table = snapshot.pod_table
    index = existing_terms(snapshot)
    if not len(index.rows):
        return counts
    chosen = (index.kinds == REQUIRED_ANTI_AFFINITY) & table.alive[index.rows]
    if not chosen.any():
        return counts
    chosen &= index.matched_by(pod)
    if not chosen.any():
        return counts
    _add_by_key(counts, snapshot, index.keys, index.key_ids[chosen], table.node[index.rows[chosen]])
    return counts


def incoming_affinity_counts(info: PodInfo, snapshot: Snapshot) -> tuple[TopologyCounts, TopologyCounts]:
    """``getTPMapMatchingIncomingAffinityAntiAffinity``: (affinity counts, anti-affinity counts)."""
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
            all_match &= _table_matches(term, table, rows)
        if all_match.any():
            for term in info.required_affinity:
                affinity.add(snapshot, term.topology_key, nodes[all_match])
    for term in info.required_anti_affinity:
        matched = _table_matches(term, table, rows)
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


_FILTER_REASONS: list[tuple[str, ...]] = [
    (),
    (ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_AFFINITY_RULES_NOT_MATCH),
    (ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH),
    (ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH),
]


# --------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------

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


def topology_scores(pod: Pod, info: PodInfo, snapshot: Snapshot, hard_weight: int) -> PreScoreState:
    """PreScore's ``topologyScore`` over every assigned pod of the snapshot."""
    scores = TopologyCounts()
    counted = False
    table = snapshot.pod_table
    # The incoming pod's preferred terms, against every assigned pod.
    if info.preferred_affinity or info.preferred_anti_affinity:
        rows = np.flatnonzero(table.alive)
        nodes = table.node[rows]
        signed = [(w, 1) for w in info.preferred_affinity] + [(w, -1) for w in info.preferred_anti_affinity]
        for weighted, sign in signed:
            matched = _table_matches(weighted.term, table, rows)
            if matched.any():
                value = weighted.weight * sign
                counted |= scores.add(snapshot, weighted.term.topology_key, nodes[matched], value)
    # The terms of assigned pods that declare affinity, against the incoming pod.
    index = existing_terms(snapshot)
    if len(index.rows):
        chosen = table.alive[index.rows]
        if hard_weight <= 0:
            chosen &= index.kinds != REQUIRED_AFFINITY
        chosen &= index.kinds != REQUIRED_ANTI_AFFINITY
        if chosen.any():
            chosen &= index.matched_by(pod)
        if chosen.any():
            kinds = index.kinds[chosen]
            values = np.where(kinds == REQUIRED_AFFINITY, hard_weight, index.weights[chosen])
            values = np.where(kinds == PREFERRED_ANTI_AFFINITY, -values, values)
            counted |= _add_by_key(scores, snapshot, index.keys, index.key_ids[chosen],
                                   table.node[index.rows[chosen]], values)
    return PreScoreState(scores, counted)


def normalize(scores: np.ndarray) -> np.ndarray:
    """v1.20 NormalizeScore arithmetic, anchored at 0 (see the module docstring)."""
    scores = np.asarray(scores, dtype=np.int64)
    if not len(scores):
        return scores.copy()
    max_count = max(0, int(scores.max()))
    min_count = min(0, int(scores.min()))
    diff = max_count - min_count
    if diff <= 0:
        return np.zeros(len(scores), dtype=np.int64)
    # Go: float64(MaxNodeScore) * (float64(s-min) / float64(max-min)), then int64() truncates.
    fraction = (scores - min_count).astype(np.float64) / np.float64(diff)
    return (np.float64(MAX_NODE_SCORE) * fraction).astype(np.int64)


# --------------------------------------------------------------------------------------------
# The plugin
# --------------------------------------------------------------------------------------------

def _state_error(key: str) -> str:
    return f'error reading "{key}" from cycleState: not found'


class InterPodAffinity(Plugin):
    name = NAME
    Args = InterPodAffinityArgs
    args_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "hardPodAffinityWeight": {
                "type": "integer", "default": 1,
                "description": "Score weight of each required affinity term of an existing pod that the "
                               "incoming pod matches (0-100; 0 ignores those terms when scoring).",
            },
        },
    }

    @classmethod
    def validate_args(cls, args: InterPodAffinityArgs) -> list[ArgError]:
        """``ValidateInterPodAffinityArgs`` (v1.20)."""
        weight = args.hard_pod_affinity_weight
        if not MIN_HARD_POD_AFFINITY_WEIGHT <= weight <= MAX_HARD_POD_AFFINITY_WEIGHT:
            return [ArgError(("hardPodAffinityWeight",),
                             f"hardPodAffinityWeight: Invalid value: {weight}: not in valid range "
                             f"[{MIN_HARD_POD_AFFINITY_WEIGHT}-{MAX_HARD_POD_AFFINITY_WEIGHT}]")]
        return []

    # ------------------------------------------------------------------ PreFilter
    @hookimpl
    def ruleset_pre_filter(self, state: CycleState, pod: Pod, snapshot: Snapshot) -> Status | None:
        info = pod_info(pod)
        if info.parse_error is not None:
            return Status.unresolvable(f"parsing pod: {info.parse_error}")
        affinity, anti = incoming_affinity_counts(info, snapshot)
        state.write(PRE_FILTER_STATE_KEY,
                    PreFilterState(pod, info, existing_anti_affinity_counts(pod, snapshot), affinity, anti))
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
    @hookimpl
    def ruleset_filter(self, state: CycleState, nodes: NodeSet) -> FilterResult | None:
        pre_filter: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if pre_filter is None:
            return FilterResult.error(len(nodes), _state_error(PRE_FILTER_STATE_KEY))
        info = pre_filter.info
        if (not info.required_affinity and not info.required_anti_affinity
                and pre_filter.existing_anti_affinity.is_empty()):
            return None  # no term to satisfy: the three checks below pass every node
        # Later checks only decide nodes the earlier ones passed, as upstream returns early.
        slot = np.zeros(len(nodes), dtype=np.int32)
        for index, check in enumerate((satisfy_pod_affinity, satisfy_pod_anti_affinity,
                                       satisfy_existing_pods_anti_affinity), start=1):
            slot[(slot == 0) & ~check(pre_filter, nodes)] = index
        if not slot.any():
            return None
        codes = np.where(slot == 1, np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), np.int8(Code.UNSCHEDULABLE))
        codes = np.where(slot == 0, np.int8(Code.SUCCESS), codes).astype(np.int8)
        return FilterResult(codes, list(_FILTER_REASONS), slot)

    @hookimpl
    def ruleset_queueing_hint(self, pod: Pod, placed: Pod) -> bool:
        """Whether ``placed`` satisfies one of the parked ``pod``'s required pod affinity terms
        (v1.20's ``getUnschedulablePodsWithMatchingAffinityTerm``); a term whose selector does
        not parse is skipped."""
        affinity = pod.affinity.pod_affinity
        if affinity is None or not affinity.required:
            return False
        for term in affinity.required:
            try:
                if affinity_term(term, pod.namespace).matches(placed):
                    return True
            except SelectorError:
                continue
        return False

    # ------------------------------------------------------------------- Scoring
    @hookimpl
    def ruleset_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> Status | None:
        if not len(nodes):
            return None
        info = pod_info(pod)
        if info.parse_error is not None:
            # Unreachable after PreFilter, which rejects the pod first.
            return Status.error(f"parsing pod: {info.parse_error}")
        state.write(PRE_SCORE_STATE_KEY,
                    topology_scores(pod, info, nodes.snapshot, self.args.hard_pod_affinity_weight))
        return None

    @hookimpl
    def ruleset_score(self, state: CycleState, nodes: NodeSet) -> np.ndarray:
        pre_score: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if pre_score is None:
            raise LookupError(f'Error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        total = np.zeros(len(nodes), dtype=np.int64)
        for key in pre_score.topology_score.arrays:
            total += pre_score.topology_score.lookup(key, nodes.label_column(key))
        return total

    @hookimpl
    def ruleset_normalize_score(self, state: CycleState, scores: np.ndarray) -> np.ndarray | None:
        pre_score: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if pre_score is None:
            raise LookupError(f'Error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        if not pre_score.counted:
            return None
        return normalize(scores)
