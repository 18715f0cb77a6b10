"""Pod-table rows of interest, each with the node it was last counted on, kept up to date.

InterPodAffinity (:mod:`ruleset.plugins.interpodaffinity.matched`) and PodTopologySpread
(:mod:`ruleset.plugins.podtopologyspread.counting`) keep counts of the assigned pods matching
something fixed (terms, a selector in a namespace) between cycles. Whether a row matches never
changes (rows are never reused for another pod, and a pod's namespace and labels are fixed), so
a row is looked at once, when the table grows past it; at each use, only the rows whose node
changed since are moved in the counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ruleset import Snapshot
from ruleset.snapshot import PodTable


class TrackedRows:
    """The rows of interest and the node each was counted on; :meth:`update` finds new rows
    (:meth:`_new_rows`) and moves the counts of rows whose node changed (:meth:`_move`)."""

    __slots__ = ("_members", "_node", "_size", "generation", "scanned")

    def __init__(self) -> None:
        self.scanned = 0
        self.generation = -1
        self._size = 0
        self._members = np.zeros(0, dtype=np.intp)
        self._node = np.zeros(0, dtype=np.int32)

    def _new_rows(self, table: PodTable, start: int, end: int) -> Sequence[int] | np.ndarray:
        """The rows of interest among ``start``..``end`` (rows never seen before)."""
        raise NotImplementedError

    def _move(self, snapshot: Snapshot, before: np.ndarray, after: np.ndarray) -> None:
        """Move the counts of rows from nodes ``before`` to nodes ``after`` (-1: on no node)."""
        raise NotImplementedError

    def update(self, snapshot: Snapshot) -> Any:
        """Bring the counts up to date with ``snapshot``'s pod table; returns ``self``."""
        table = snapshot.pod_table
        size = len(table)
        if snapshot.generation == self.generation and size == self.scanned:
            return self
        # Each pod added, moved or removed advances the generation by at least one: when it
        # advanced by exactly the number of rows appended since, no other row changed and only
        # the new members need counting.
        only_new = self.generation >= 0 and snapshot.generation - self.generation == size - self.scanned
        first = self._size
        if size > self.scanned:
            new = self._new_rows(table, self.scanned, size)
            if len(new):
                self._grow(new)
            self.scanned = size
        start = first if only_new else 0
        if self._size > start:
            members, counted = self._members[start: self._size], self._node[start: self._size]
            now = table.node.take(members)
            changed = np.flatnonzero(now != counted)
            if len(changed):
                self._move(snapshot, counted[changed], now[changed])
                counted[changed] = now[changed]
        self.generation = snapshot.generation
        return self

    def _grow(self, new: Sequence[int] | np.ndarray) -> None:
        end = self._size + len(new)
        if end > len(self._members):  # room to spare: a cycle's pod costs no copy of the others
            room = max(end, 2 * len(self._members), 16)
            members = np.zeros(room, dtype=np.intp)
            members[: self._size] = self._members[: self._size]
            node = np.full(room, -1, dtype=np.int32)
            node[: self._size] = self._node[: self._size]
            self._members, self._node = members, node
        self._members[self._size: end] = new
        self._size = end
