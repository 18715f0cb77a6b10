"""PreFilter's matching-pod counts per topology pair, kept up to date between cycles.

From 1.24 PreFilter counts, for each DoNotSchedule constraint, the live, non-terminating pods
in the incoming pod's namespace that the constraint's selector matches, over the nodes the
constraint counts (``chosen``: carrying every key, and the node inclusion policies), per value
of the constraint's topology key. Pods of one template share their constraints, so for each
(selector, namespace) the matching rows are kept with the node each was counted on, and for
each (key, chosen nodes) the counts per value: a cycle moves only the pods whose node changed
since the last look (pods placed, removed, dry runs and their undo) instead of counting every
node again.

Whether a row matches never changes (rows are not reused; a pod's namespace, labels and
deletion timestamp are fixed); int64 counts of +1/-1 never depend on the order of the moves.
"""

from __future__ import annotations

import numpy as np

from ruleset import Snapshot
from ruleset.plugins.helper.tracked_rows import TrackedRows
from ruleset.selector import Selector
from ruleset.snapshot import PodTable

#: Below this many new rows a row is matched in Python, above on the table's label columns.
_TABLE_FROM = 64
#: Below this many moved rows counts are moved in Python, above with numpy.
_NUMPY_FROM = 16
#: Node sets (projections) remembered per (selector, namespace); past it the caller counts afresh.
MAX_PROJECTIONS = 16
#: (selector, namespace) pairs remembered per snapshot.
MAX_SELECTORS = 64


class Projection:
    """Counts per value of one key over one set of nodes: ``node_code[n]`` is the code of node
    ``n``'s value, -1 for a node not counted. ``exists`` (the values of counted nodes) and
    ``domains`` (how many) never change; ``counts`` follows the pods."""

    __slots__ = ("counts", "domains", "exists", "node_code")

    def __init__(self, node_code: np.ndarray, size: int, per_node: np.ndarray) -> None:
        self.node_code = node_code
        counted = node_code >= 0
        self.exists = np.zeros(size, dtype=bool)
        self.exists[node_code[counted]] = True
        self.exists.flags.writeable = False  # shared by every state built from it
        self.domains = int(np.count_nonzero(self.exists))
        self.counts = np.zeros(size, dtype=np.int64)
        np.add.at(self.counts, node_code[counted], per_node[counted])


class MatchingPods(TrackedRows):
    """The rows of live, non-terminating pods in one namespace that one selector matches: the
    count per node, and per :class:`Projection` the count per value."""

    __slots__ = ("_by_id", "namespace", "per_node", "projections", "selector")

    def __init__(self, selector: Selector, namespace: int, num_nodes: int) -> None:
        super().__init__()
        self.selector = selector
        self.namespace = namespace
        self.per_node = np.zeros(num_nodes, dtype=np.int64)
        self.projections: dict[tuple[str, bytes], Projection] = {}
        self._by_id: dict[tuple[str, int], tuple[np.ndarray, Projection]] = {}

    def _new_rows(self, table: PodTable, start: int, end: int) -> np.ndarray | list[int]:
        if end - start < _NUMPY_FROM:  # a pod or a few placed since the last look: in Python
            pods, terminating, namespace = table.pods, table.terminating, table.namespace
            selector = self.selector
            return [row for row in range(start, end)
                    if not terminating.item(row) and namespace.item(row) == self.namespace
                    and (selector.empty() or selector.matches(pods[row].labels))]
        rows = np.arange(start, end)
        rows = rows[~table.terminating[start:end] & (table.namespace[start:end] == self.namespace)]
        if not len(rows) or self.selector.empty():
            return rows
        by_table = table.alive[rows] if len(rows) >= _TABLE_FROM else np.zeros(len(rows), dtype=bool)
        matched = np.empty(len(rows), dtype=bool)
        if by_table.any():
            matched[by_table] = self.selector.match_table(table.labels, rows[by_table])
        # A few rows, or dead ones (their labels are cleared in the table): the pod answers.
        pods = table.pods
        matched[~by_table] = [self.selector.matches(pods[row].labels) for row in rows[~by_table].tolist()]
        return rows[matched]

    def _move(self, snapshot: Snapshot, before: np.ndarray, after: np.ndarray) -> None:
        if len(before) < _NUMPY_FROM:
            for nodes, sign in ((before.tolist(), -1), (after.tolist(), 1)):
                for node in nodes:
                    if node < 0:
                        continue
                    self.per_node[node] += sign
                    for projection in self.projections.values():
                        code = projection.node_code.item(node)
                        if code >= 0:
                            projection.counts[code] += sign
            return
        for nodes, sign in ((before, -1), (after, 1)):
            nodes = nodes[nodes >= 0]
            if not len(nodes):
                continue
            np.add.at(self.per_node, nodes, sign)
            for projection in self.projections.values():
                codes = projection.node_code[nodes]
                codes = codes[codes >= 0]
                if len(codes):
                    np.add.at(projection.counts, codes, sign)

    def projection(self, snapshot: Snapshot, key: str, chosen: np.ndarray) -> Projection | None:
        """The :class:`Projection` of ``key`` over the nodes of ``chosen`` (every one carrying
        ``key``); None past :data:`MAX_PROJECTIONS`."""
        # A read-only mask (has_all_keys' shared answer) is the same object each cycle: known by
        # its id (held in the entry, so that the id is not reused); any other, by its bits.
        by_id = None if chosen.flags.writeable else (key, id(chosen))
        if by_id is not None:
            held = self._by_id.get(by_id)
            if held is not None:
                return held[1]
        name = (key, np.packbits(chosen).tobytes())
        found = self.projections.get(name)
        if found is None:
            if len(self.projections) >= MAX_PROJECTIONS:
                return None
            column = snapshot.node_labels.column(key)
            assert column is not None  # chosen nodes carry the key
            node_code = np.where(chosen, column, -1).astype(np.int64)
            found = self.projections[name] = Projection(
                node_code, len(snapshot.node_labels.vocabulary(key)), self.per_node)
        if by_id is not None:
            self._by_id[by_id] = (chosen, found)
        return found


def matching_pods(snapshot: Snapshot, selector: Selector, namespace: str) -> MatchingPods | None:
    """The up-to-date :class:`MatchingPods` of ``selector`` in ``namespace``; None when no pod
    ever lived in the namespace or past :data:`MAX_SELECTORS` (the caller counts afresh)."""
    code = snapshot.pod_table.namespace_code(namespace)
    if code < 0:
        return None
    remembered: dict[tuple[Selector, int], MatchingPods] = snapshot.derive(__name__, lambda _: {})
    found = remembered.get((selector, code))
    if found is None:
        if len(remembered) >= MAX_SELECTORS:
            return None
        found = remembered[(selector, code)] = MatchingPods(selector, code, snapshot.num_nodes)
    updated: MatchingPods = found.update(snapshot)
    return updated
