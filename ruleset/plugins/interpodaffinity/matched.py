"""Assigned pods matching a tuple of terms, counted per topology pair and kept up to date.

PreFilter (the incoming pod's required affinity and anti-affinity) and PreScore (its preferred
terms) count, per topology pair, the assigned pods matching the incoming pod's terms. The pods
of one template share their (interned) terms, so the counts for a tuple of terms are kept
between cycles and only the pods whose node changed since the last look are moved: a cycle
costs a comparison of the matching rows' nodes instead of matching and counting every pod.

Whether a row's pod matches never changes: rows are never reused for another pod, and a pod's
namespace and labels are fixed (a removed pod put back takes its old row). A row is evaluated
once, when first seen; the node each matching row was counted on is remembered and compared
with the pod table's at each use. Counts are int64 and wrap, as Go's do, so the order in which
pods are added and removed never changes them.
"""

from __future__ import annotations

import numpy as np

from ruleset import Snapshot
from ruleset.api.affinity import AffinityTerm
from ruleset.plugins.helper.tracked_rows import TrackedRows
from ruleset.plugins.interpodaffinity.terms import _table_matches
from ruleset.snapshot import PodTable

#: Below this many new rows a row is matched in Python (``term.matches``), above on the table's columns.
_TABLE_FROM = 32
#: Below this many moved rows the counts are moved in Python, above with numpy.
_NUMPY_FROM = 16


def _rows_matching(terms: tuple[AffinityTerm, ...], table: PodTable, start: int, end: int) -> list[int]:
    """Rows ``start``..``end`` whose pod matches every one of ``terms``."""
    pods = table.pods
    if end - start < _TABLE_FROM:
        return [row for row in range(start, end) if all(t.matches(pods[row]) for t in terms)]
    rows = np.arange(start, end)
    alive = table.alive[start:end]
    live = rows[alive]
    matched = np.ones(len(live), dtype=bool)
    for term in terms:
        matched &= _table_matches(term, table, live)
    out = set(live[matched].tolist())
    # A dead row's labels are cleared in the table: its pod answers.
    out.update(row for row in rows[~alive].tolist() if all(t.matches(pods[row]) for t in terms))
    return sorted(out)


class MatchedPods(TrackedRows):
    """Live assigned pods matching every one of ``terms``: per topology key of the terms, the count
    per node label value (``counts``, over the key's vocabulary) and the number of such pods on a
    node carrying the key (``landed``)."""

    __slots__ = ("counts", "keys", "landed", "terms")

    def __init__(self, terms: tuple[AffinityTerm, ...]) -> None:
        super().__init__()
        self.terms = terms  # held, so that the ids keying this entry are never reused
        self.keys: list[str] = list(dict.fromkeys(t.topology_key for t in terms))
        self.counts: dict[str, np.ndarray] = {}
        self.landed: dict[str, int] = dict.fromkeys(self.keys, 0)

    def _new_rows(self, table: PodTable, start: int, end: int) -> list[int]:
        return _rows_matching(self.terms, table, start, end)

    def _move(self, snapshot: Snapshot, before: np.ndarray, after: np.ndarray) -> None:
        for key in self.keys:
            column = snapshot.node_labels.column(key)
            if column is None:
                continue  # no node carries the key: nothing ever lands
            array = self.counts.get(key)
            if array is None:
                array = self.counts[key] = np.zeros(len(snapshot.node_labels.vocabulary(key)), dtype=np.int64)
            landed = self.landed[key]
            if len(before) < _NUMPY_FROM:
                for node in before.tolist():
                    code = column.item(node) if node >= 0 else -1
                    if code >= 0:
                        array[code] -= 1
                        landed -= 1
                for node in after.tolist():
                    code = column.item(node) if node >= 0 else -1
                    if code >= 0:
                        array[code] += 1
                        landed += 1
            else:
                for nodes, sign in ((before, -1), (after, 1)):
                    codes = np.where(nodes >= 0, column[np.maximum(nodes, 0)], -1)
                    codes = codes[codes >= 0]
                    if len(codes):
                        np.add.at(array, codes, sign)
                        landed += sign * len(codes)
            self.landed[key] = landed


#: Tuples of terms remembered per snapshot; others are counted from scratch each time (None).
MAX_REMEMBERED = 64


def matched_pods(snapshot: Snapshot, terms: tuple[AffinityTerm, ...]) -> MatchedPods | None:
    """The up-to-date :class:`MatchedPods` of ``terms`` on ``snapshot`` (None past
    :data:`MAX_REMEMBERED` distinct tuples: the caller counts from scratch)."""
    remembered: dict[tuple[int, ...], MatchedPods] = snapshot.derive(__name__, lambda _: {})
    key = tuple(id(t) for t in terms)
    entry: MatchedPods | None = remembered.get(key)
    if entry is None:
        if len(remembered) >= MAX_REMEMBERED:
            return None
        entry = remembered[key] = MatchedPods(terms)
    updated: MatchedPods = entry.update(snapshot)
    return updated
