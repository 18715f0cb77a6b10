"""One plugin order for a profile, from kube-scheduler's order at each extension point.

A ruleset profile lists each plugin once, and every extension point runs its plugins in
that order. kube-scheduler keeps one list per point, and the lists need not agree (the 1.20
defaults run NodePorts before NodeResourcesFit at Filter, after it at PreFilter). The
profile order is a topological order of the points' orders:

* points whose order changes what happens (Filter: the first failing plugin decides a
  node's reasons; PostFilter, Reserve, Permit, PreBind, Bind, PostBind: the first answer
  wins) are constraints first, in that order; a constraint that contradicts an earlier one
  cannot be kept and is reported;
* PreFilter, PreScore and Score run every plugin whatever the order (a Score total is a
  sum), so their order is kept when it agrees with the above, and otherwise reported as a
  note and left to follow Filter's;
* among plugins free to go next, the one kube-scheduler lists first wins, reading the
  points in cycle order — the order a person reading the configuration would expect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ruleset.framework.points import POINT_KEYS

#: Points whose order changes the outcome, strongest first.
SIGNIFICANT = ("queueSort", "filter", "postFilter", "reserve", "permit", "preBind", "bind", "postBind")
#: Points every plugin of which runs whatever the order.
INSIGNIFICANT = ("preFilter", "preScore", "score")
READING_ORDER = POINT_KEYS


class _Graph:
    def __init__(self, nodes: Sequence[str]):
        self.after: dict[str, set[str]] = {n: set() for n in nodes}

    def reachable(self, start: str) -> set[str]:
        """``start`` and every node that must come after it."""
        seen, stack = {start}, [start]
        while stack:
            for nxt in self.after[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return seen

    def reaches(self, start: str, goal: str) -> bool:
        return goal in self.reachable(start)

    def add(self, a: str, b: str) -> bool:
        """Add ``a`` before ``b``; False (and nothing added) when that closes a cycle."""
        if a == b or self.reaches(b, a):
            return False
        self.after[a].add(b)
        return True


def global_order(points: Mapping[str, Sequence[str]]) -> tuple[list[str], dict[str, list[str]]]:
    """The profile order, and per point the pairs of its order that could not be kept.

    Returns ``(order, conflicts)``; ``conflicts[point]`` lists ``"A before B"`` strings.
    """
    reading: dict[str, int] = {}
    for point in (*READING_ORDER, *sorted(set(points) - set(READING_ORDER))):
        for name in points.get(point, ()):
            reading.setdefault(name, len(reading))
    graph = _Graph(list(reading))
    conflicts: dict[str, list[str]] = {}
    for point in (*SIGNIFICANT, *sorted(set(points) - set(SIGNIFICANT) - set(INSIGNIFICANT))):
        items = list(dict.fromkeys(points.get(point, ())))
        for i, a in enumerate(items):
            for b in items[i + 1 :]:
                if not graph.add(a, b):
                    conflicts.setdefault(point, []).append(f"{a} before {b}")
    for point in INSIGNIFICANT:
        items = list(dict.fromkeys(points.get(point, ())))
        pairs = [(a, b) for i, a in enumerate(items) for b in items[i + 1 :]]
        added = []
        for a, b in pairs:
            existed = b in graph.after[a]
            if graph.add(a, b):
                if not existed:
                    added.append((a, b))
                continue
            # Contradicts the significant order: roll this point back as a whole.
            for x, y in added:
                graph.after[x].discard(y)
            conflicts[point] = [f"{x} before {y}" for x, y in pairs if graph.reaches(y, x)]
            break
    # A plugin that must run before an early one is read as early as that one: NodeResourcesFit's
    # Score (a separate plugin in ruleset) goes next to NodeResourcesFit, not after PostFilter.
    key = {n: (min(reading[m] for m in graph.reachable(n)), reading[n]) for n in reading}
    indegree = {n: 0 for n in reading}
    for nexts in graph.after.values():
        for nxt in nexts:
            indegree[nxt] += 1
    ready = sorted((n for n, d in indegree.items() if d == 0), key=key.__getitem__)
    order: list[str] = []
    while ready:
        node = ready.pop(0)
        order.append(node)
        for nxt in graph.after[node]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                ready.append(nxt)
        ready.sort(key=key.__getitem__)
    return order, conflicts
