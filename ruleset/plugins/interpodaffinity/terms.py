"""Pod affinity terms as v1.20's ``framework.AffinityTerm`` and ``framework.PodInfo`` convert them,
and the index of every assigned pod's terms that PreFilter and PreScore read.

With PodAffinityNamespaceSelector (1.21 alpha, 1.22 beta) a term's ``namespaceSelector``
also selects namespaces: :class:`SelectedNamespacesTerm`. The snapshot holds no Namespace
objects, so a namespace's labels are taken to be ``{"kubernetes.io/metadata.name": <name>}``,
the label the API server gives every namespace since 1.21 (NamespaceDefaultLabelName): a
selector can pick namespaces by name (``{}`` picks them all), and any other label selects
none. Upstream unrolls an incoming pod's selector into the namespaces the lister finds; the
namespaces here are those of the pods, so the two agree.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ruleset import Snapshot
from ruleset.api.affinity import (
    AffinityTerm,
    SelectedNamespacesTerm,
    affinity_term,
    selected_namespaces_term,
)
from ruleset.api.pod import Pod, PodAffinityTerm, WeightedPodAffinityTerm
from ruleset.quantity import wrap_int64
from ruleset.selector import SelectorError
from ruleset.snapshot import PodTable


def convert_term(term: PodAffinityTerm, namespace: str, namespace_selector: bool) -> AffinityTerm:
    """The term as the target converts it (``namespace_selector``: PodAffinityNamespaceSelector)."""
    return selected_namespaces_term(term, namespace) if namespace_selector else affinity_term(term, namespace)


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


def _terms(pod: Pod, terms: Sequence[PodAffinityTerm], ns_selector: bool,
           ) -> tuple[tuple[AffinityTerm, ...], str | None]:
    out = []
    for term in terms:
        try:
            out.append(convert_term(term, pod.namespace, ns_selector))
        except SelectorError as exc:
            return (), exc.reason  # one bad selector drops the whole list, as getAffinityTerms
    return tuple(out), None


def _weighted(pod: Pod, terms: Sequence[WeightedPodAffinityTerm], ns_selector: bool,
              ) -> tuple[tuple[WeightedAffinityTerm, ...], str | None]:
    out = []
    for weighted in terms:
        try:
            term = convert_term(weighted.term, pod.namespace, ns_selector)
            out.append(WeightedAffinityTerm(term, weighted.weight))
        except SelectorError as exc:
            return (), exc.reason
    return tuple(out), None


_POD_INFOS: weakref.WeakKeyDictionary[Pod, PodInfo] = weakref.WeakKeyDictionary()
_POD_INFOS_NS: weakref.WeakKeyDictionary[Pod, PodInfo] = weakref.WeakKeyDictionary()


def pod_info(pod: Pod, namespace_selector: bool = False) -> PodInfo:
    """``framework.NewPodInfo`` (v1.20; with ``namespace_selector``, 1.22's terms), cached per
    pod object (one cache per conversion, as profiles of two releases may share pods)."""
    cache = _POD_INFOS_NS if namespace_selector else _POD_INFOS
    info = cache.get(pod)
    if info is not None:
        return info
    affinity, anti = pod.affinity.pod_affinity, pod.affinity.pod_anti_affinity
    # Pods of one template (equal terms, one namespace) get equal, interned terms: one PodInfo.
    shape = (affinity, anti, pod.namespace, namespace_selector)
    info = _SHAPES.get(shape)
    if info is None:
        if len(_SHAPES) >= MAX_SHAPES:
            _SHAPES.clear()
        info = _SHAPES[shape] = _convert(pod, namespace_selector)
    cache[pod] = info
    return info


_SHAPES: dict[tuple[object, ...], PodInfo] = {}
#: Distinct (terms, namespace) shapes remembered (the cache starts over when full).
MAX_SHAPES = 4096


def _convert(pod: Pod, namespace_selector: bool) -> PodInfo:
    affinity, anti = pod.affinity.pod_affinity, pod.affinity.pod_anti_affinity
    error = None
    required, err = _terms(pod, affinity.required if affinity else (), namespace_selector)
    if err:
        error = f"requiredAffinityTerms: {err}"
    required_anti, err = _terms(pod, anti.required if anti else (), namespace_selector)
    if err:
        error = f"requiredAntiAffinityTerms: {err}"
    preferred, err = _weighted(pod, affinity.preferred if affinity else (), namespace_selector)
    if err:
        error = f"preferredAffinityTerms: {err}"
    preferred_anti, err = _weighted(pod, anti.preferred if anti else (), namespace_selector)
    if err:
        error = f"preferredAntiAffinityTerms: {err}"
    return PodInfo(required, required_anti, preferred, preferred_anti, error)


def matches_all(pod: Pod, terms: Sequence[AffinityTerm]) -> bool:
    """``podMatchesAllAffinityTerms``: False for no terms."""
    return bool(terms) and all(t.matches(pod) for t in terms)


class _RowMatches:
    """One term's answers for the rows of one pod table: ``matched[r]`` is meaningful where
    ``known[r]``. A row's pod never changes (rows are not reused) and neither do its namespace
    and labels while it is alive, so an answer, once computed for a live row, stays true."""

    __slots__ = ("known", "matched", "term")

    def __init__(self, term: AffinityTerm) -> None:
        self.term = term  # held, so that the id keying this entry is never reused
        self.known = np.zeros(0, dtype=bool)
        self.matched = np.zeros(0, dtype=bool)

    def lookup(self, table: PodTable, rows: np.ndarray) -> np.ndarray:
        size = len(table)
        if len(self.known) < size:
            grown = max(size, 2 * len(self.known))
            self.known = np.concatenate((self.known, np.zeros(grown - len(self.known), dtype=bool)))
            self.matched = np.concatenate((self.matched, np.zeros(grown - len(self.matched), dtype=bool)))
        known = self.known[rows]
        if np.count_nonzero(known) == len(known):
            return self.matched[rows]
        unknown = rows[~known]
        answers = _table_matches(self.term, table, unknown)
        # Only live rows' answers are kept: a dead row's labels are cleared in the table.
        live = unknown[table.alive[unknown]]
        self.matched[live] = answers[table.alive[unknown]]
        self.known[live] = True
        out = self.matched[rows]
        out[~known] = answers
        return out


_ROW_MATCHES: weakref.WeakKeyDictionary[PodTable, dict[int, _RowMatches]] = weakref.WeakKeyDictionary()
#: Terms remembered per pod table (two bits per row each); others are evaluated every time.
MAX_REMEMBERED_TERMS = 64


def table_matches(term: AffinityTerm, table: PodTable, rows: np.ndarray) -> np.ndarray:
    """``term.matches`` for the pods in ``rows`` (live rows of ``table``) at once.

    Each row is evaluated once per term (up to :data:`MAX_REMEMBERED_TERMS` terms per table;
    terms are interned, so the pods of one template share theirs): PreFilter and PreScore of
    every cycle ask again about every assigned pod, and only new rows need an answer.
    """
    remembered = _ROW_MATCHES.get(table)
    if remembered is None:
        remembered = _ROW_MATCHES[table] = {}
    entry = remembered.get(id(term))
    if entry is None:
        if len(remembered) >= MAX_REMEMBERED_TERMS:
            return _table_matches(term, table, rows)
        entry = remembered[id(term)] = _RowMatches(term)
    return entry.lookup(table, rows)


def _table_matches(term: AffinityTerm, table: PodTable, rows: np.ndarray) -> np.ndarray:
    """:func:`table_matches`, evaluated (on the table's namespace and label columns)."""
    codes = [c for c in (table.namespace_code(ns) for ns in term.namespaces) if c >= 0]
    if isinstance(term, SelectedNamespacesTerm):
        codes = [code for ns, code in table.namespaces.items() if term.selects_namespace(ns)]
    if not codes or not len(rows):
        return np.zeros(len(rows), dtype=bool)
    namespaces = table.namespace[rows]
    if len(codes) > 8:
        in_namespace = np.isin(namespaces, codes)
    else:  # a few codes: comparisons cost less than np.isin's set machinery (same booleans)
        in_namespace = namespaces == codes[0]
        for code in codes[1:]:
            in_namespace |= namespaces == code
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


class _Growing:
    """An append-only int column with spare room (a pod's entries cost no copy of the others)."""

    __slots__ = ("data", "size", "view")

    def __init__(self, dtype: type) -> None:
        self.data: np.ndarray = np.zeros(16, dtype=dtype)
        self.size = 0
        self.view: np.ndarray = self.data[:0]

    def extend(self, values: list[int]) -> None:
        end = self.size + len(values)
        if end > len(self.data):
            grown = np.zeros(max(end, 2 * len(self.data)), dtype=self.data.dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.data[self.size: end] = values
        self.size = end
        self.view = self.data[:end]
        self.view.flags.writeable = False


class ExistingTerms:
    """Every term of every assigned pod that declares pod (anti-)affinity, as columns.

    One entry per (pod-table row, term): the row, the term's id, the kind of list it came
    from and its weight. Rows are never reused for another pod, so entries are only ever
    appended (for rows added since the last look); liveness and node are read from the pod
    table at use time, which also covers pods removed and put back by dry runs.
    """

    def __init__(self, namespace_selector: bool = False) -> None:
        #: Convert terms as PodAffinityNamespaceSelector does.
        self.namespace_selector = namespace_selector
        self.scanned = 0
        self.terms: list[AffinityTerm] = []
        self._ids: dict[int, int] = {}
        self._rows = _Growing(np.intp)
        self._term_ids = _Growing(np.intp)
        self._kinds = _Growing(np.int8)
        self._weights = _Growing(np.int64)
        self._last_match: tuple[Pod | None, np.ndarray] = (None, np.zeros(0, dtype=bool))
        #: The distinct topology keys, and per entry the index of its term's key.
        self.keys: list[str] = []
        self._key_index: dict[str, int] = {}
        self._key_of_term: list[int] = []
        self._key_ids = _Growing(np.intp)
        self._sums: dict[tuple[int | None, ...], TermSums] = {}
        #: Per PodInfo (by id, the info held so that the id is not reused): its entries' columns.
        self._entries_of: dict[int, tuple[PodInfo, list[int], list[int], list[int]]] = {}

    # The entries' columns (read-only views: entries are appended as pods are assigned).
    @property
    def rows(self) -> np.ndarray:
        return self._rows.view

    @property
    def term_ids(self) -> np.ndarray:
        return self._term_ids.view

    @property
    def kinds(self) -> np.ndarray:
        return self._kinds.view

    @property
    def weights(self) -> np.ndarray:
        return self._weights.view

    @property
    def key_ids(self) -> np.ndarray:
        return self._key_ids.view

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

    def sync(self, table: PodTable) -> ExistingTerms:
        size = len(table)
        if size == self.scanned:
            return self
        rows: list[int] = []
        term_ids: list[int] = []
        kinds: list[int] = []
        weights: list[int] = []
        pods, ns_selector, entries_of = table.pods, self.namespace_selector, self._entries_of
        for row in (np.flatnonzero(table.has_affinity[self.scanned:size]) + self.scanned).tolist():
            info = pod_info(pods[row], ns_selector)
            # Pods of one shape share their PodInfo: its entries are worked out once.
            found = entries_of.get(id(info))
            if found is None:
                if len(entries_of) >= MAX_SHAPES:
                    entries_of.clear()
                found = entries_of[id(info)] = (info, *self._entries(info))
            _, info_terms, info_kinds, info_weights = found
            rows.extend([row] * len(info_terms))
            term_ids.extend(info_terms)
            kinds.extend(info_kinds)
            weights.extend(info_weights)
        self.scanned = size
        if rows:
            self._rows.extend(rows)
            self._term_ids.extend(term_ids)
            self._kinds.extend(kinds)
            self._weights.extend(weights)
            self._key_ids.extend([self._key_of_term[t] for t in term_ids])
        return self

    def _entries(self, info: PodInfo) -> tuple[list[int], list[int], list[int]]:
        """The term ids, kinds and weights of a pod's entries (in the order of its lists)."""
        entries = [*((t, REQUIRED_AFFINITY, 0) for t in info.required_affinity),
                   *((t, REQUIRED_ANTI_AFFINITY, 0) for t in info.required_anti_affinity),
                   *((w.term, PREFERRED_AFFINITY, w.weight) for w in info.preferred_affinity),
                   *((w.term, PREFERRED_ANTI_AFFINITY, w.weight) for w in info.preferred_anti_affinity)]
        return ([self._term_id(term) for term, _, _ in entries], [kind for _, kind, _ in entries],
                [weight for _, _, weight in entries])

    def matched_by(self, pod: Pod) -> np.ndarray:
        """Per entry: does ``pod`` match the entry's term? (Each distinct term is evaluated once.)

        The answers for the last pod asked are kept, so PreFilter and PreScore of one cycle
        (and the cycles of a pod retried later) only evaluate terms added since.
        """
        return self.terms_matching(pod)[self.term_ids]

    def key_of(self, term: int) -> str:
        """The topology key of the term with id ``term``."""
        return self.keys[self._key_of_term[term]]

    def terms_matching(self, pod: Pod) -> np.ndarray:
        """Per distinct term (by id): does ``pod`` match it? (See :meth:`matched_by`.)"""
        cached_pod, known = self._last_match
        if cached_pod is not pod:
            known = np.zeros(0, dtype=bool)
        if len(known) < len(self.terms):
            new = self.terms[len(known):]
            answers = np.fromiter((t.matches(pod) for t in new), dtype=bool, count=len(new))
            known = np.concatenate((known, answers))
            self._last_match = (pod, known)
        return known

    def sums(self, values: tuple[int | None, int | None, int | None, int | None]) -> TermSums:
        """The :class:`TermSums` counting, per kind of list (index: REQUIRED_AFFINITY, ...), the value
        ``values[kind]`` (0 stands for the entry's weight, negative for minus it; None: not counted)."""
        found = self._sums.get(values)
        if found is None:
            found = self._sums[values] = TermSums(values)
        return found


#: Fewer moved entries than this are moved in Python integers, more with numpy.
_PYTHON_MOVE_BELOW = 16


class TermSums:
    """Per distinct term of an :class:`ExistingTerms`: the values of its entries whose pod is
    live, summed per value of the term's topology key (over the nodes carrying it), and how many
    such entries landed on a node with the key. Kept up to date incrementally: each entry
    remembers the node it was counted on, and only entries whose pod's node changed since (new
    pods, pods removed or moved, dry runs and their undo) are moved; int64 sums wrap, so the
    order of additions never matters.
    """

    def __init__(self, values: tuple[int | None, ...]) -> None:
        self.values = values
        self.done = 0
        #: The snapshot's generation and pod-table size at the last update (-1: never updated).
        self.generation = -1
        self.table_size = 0
        # Only the entries counted (their kind's value is not None): index, row, value, term, and
        # the node each was last counted on (-1: none).
        self._entry = _Growing(np.intp)
        self._row = _Growing(np.intp)
        self._value = _Growing(np.int64)
        self._term = _Growing(np.intp)
        self._node = _Growing(np.int32)
        #: Per term id: the sums over the term's key's vocabulary (None until an entry lands), landed count.
        self.arrays: list[np.ndarray | None] = []
        self.landed: list[int] = []

    def update(self, index: ExistingTerms, snapshot: Snapshot) -> TermSums:
        table = snapshot.pod_table
        # Each pod added, moved or removed advances the generation by at least one: when it
        # advanced by exactly the number of rows appended since, no other row changed and only
        # the new entries need counting.
        only_new = (self.generation >= 0
                    and snapshot.generation - self.generation == len(table) - self.table_size)
        first = self._row.size
        self.generation, self.table_size = snapshot.generation, len(table)
        total = len(index.rows)
        if total > self.done:
            kinds = index.kinds[self.done:total].tolist()
            weights = index.weights[self.done:total].tolist()
            entries: list[int] = []
            values: list[int] = []
            for entry, kind, weight in zip(range(self.done, total), kinds, weights, strict=True):
                spec = self.values[kind]
                if spec is not None:
                    entries.append(entry)
                    values.append(weight if spec == 0 else -weight if spec < 0 else spec)
            if entries:
                self._entry.extend(entries)
                self._row.extend(index.rows[entries].tolist())
                self._term.extend(index.term_ids[entries].tolist())
                self._value.extend(values)
                self._node.extend([-1] * len(entries))
            self.done = total
        while len(self.arrays) < len(index.terms):
            self.arrays.append(None)
            self.landed.append(0)
        start = first if only_new else 0
        if self._row.size <= start:
            return self
        now = table.node.take(self._row.view[start:])
        was = self._node.data[start: self._node.size]
        changed = np.flatnonzero(now != was)
        if len(changed):
            self._move(index, snapshot, changed + start, was[changed], now[changed])
            was[changed] = now[changed]
        return self

    def _move(self, index: ExistingTerms, snapshot: Snapshot, changed: np.ndarray, before: np.ndarray,
              after: np.ndarray) -> None:
        term_ids = self._term.view[changed]
        values = self._value.view[changed]
        if len(changed) < _PYTHON_MOVE_BELOW:
            # A few entries (a pod placed, one dry-run victim): in Python integers, wrapped to int64.
            for term, value, was, now in zip(term_ids.tolist(), values.tolist(), before.tolist(),
                                             after.tolist(), strict=True):
                key = index.key_of(term)
                column = snapshot.node_labels.column(key)
                if column is None:
                    continue  # no node carries the key: nothing ever lands
                array = self._array(term, key, snapshot)
                for node, sign in ((was, -1), (now, 1)):
                    code = column.item(node) if node >= 0 else -1
                    if code >= 0:
                        array[code] = wrap_int64(array.item(code) + sign * value)
                        self.landed[term] += sign
            return
        for term in np.flatnonzero(np.bincount(term_ids)).tolist():
            mine = term_ids == term
            key = index.key_of(term)
            column = snapshot.node_labels.column(key)
            if column is None:
                continue  # no node carries the key: nothing ever lands
            array = self._array(term, key, snapshot)
            for nodes, sign in ((before[mine], -1), (after[mine], 1)):
                codes = np.where(nodes >= 0, column[np.maximum(nodes, 0)], -1)
                present = codes >= 0
                if present.any():
                    np.add.at(array, codes[present], sign * values[mine][present])
                    self.landed[term] += sign * int(np.count_nonzero(present))

    def _array(self, term: int, key: str, snapshot: Snapshot) -> np.ndarray:
        array = self.arrays[term]
        if array is None:
            size = len(snapshot.node_labels.vocabulary(key))
            array = self.arrays[term] = np.zeros(size, dtype=np.int64)
        return array

    def add_matching(self, counts: TopologyCountsLike, index: ExistingTerms, pod: Pod,
                     snapshot: Snapshot) -> bool:
        """Add the sums of the terms ``pod`` matches into ``counts`` (one array per topology key);
        returns whether any entry landed (as adding the entries one by one would)."""
        matching = index.terms_matching(pod)
        landed = False
        for term, count in enumerate(self.landed):
            if count and matching[term]:
                array = self.arrays[term]
                assert array is not None
                counts.add_counts(snapshot, index.key_of(term), array)
                landed = True
        return landed


class TopologyCountsLike(Protocol):
    """What :meth:`TermSums.add_matching` writes into (filtering's ``TopologyCounts``)."""

    def add_counts(self, snapshot: Snapshot, key: str, values: np.ndarray) -> None: ...


def existing_terms(snapshot: Snapshot, namespace_selector: bool = False) -> ExistingTerms:
    """The snapshot's :class:`ExistingTerms` (one per conversion), brought up to date with its pod table."""
    name = f"{__name__}.namespace_selector" if namespace_selector else __name__
    return snapshot.derive(name, lambda _: ExistingTerms(namespace_selector)).sync(snapshot.pod_table)

