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

import numpy as np

from ruleset import Snapshot
from ruleset.api.affinity import (
    AffinityTerm,
    SelectedNamespacesTerm,
    affinity_term,
    selected_namespaces_term,
)
from ruleset.api.pod import Pod, PodAffinityTerm, WeightedPodAffinityTerm
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
    info = cache[pod] = PodInfo(required, required_anti, preferred, preferred_anti, error)
    return info


def matches_all(pod: Pod, terms: Sequence[AffinityTerm]) -> bool:
    """``podMatchesAllAffinityTerms``: False for no terms."""
    return bool(terms) and all(t.matches(pod) for t in terms)


def table_matches(term: AffinityTerm, table: PodTable, rows: np.ndarray) -> np.ndarray:
    """``term.matches`` for the pods in ``rows`` at once."""
    codes = [c for c in (table.namespace_code(ns) for ns in term.namespaces) if c >= 0]
    if isinstance(term, SelectedNamespacesTerm):
        codes = [code for ns, code in table.namespaces.items() if term.selects_namespace(ns)]
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

    def sync(self, table: PodTable) -> ExistingTerms:
        size = len(table)
        if size == self.scanned:
            return self
        rows: list[int] = []
        term_ids: list[int] = []
        kinds: list[int] = []
        weights: list[int] = []
        for row in (np.flatnonzero(table.has_affinity[self.scanned:size]) + self.scanned).tolist():
            info = pod_info(table.pods[row], self.namespace_selector)
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


def existing_terms(snapshot: Snapshot, namespace_selector: bool = False) -> ExistingTerms:
    """The snapshot's :class:`ExistingTerms` (one per conversion), brought up to date with its pod table."""
    name = f"{__name__}.namespace_selector" if namespace_selector else __name__
    return snapshot.derive(name, lambda _: ExistingTerms(namespace_selector)).sync(snapshot.pod_table)

