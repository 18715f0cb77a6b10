"""How many nodes to look at per batch when a scan may stop early.

The Filter scan (``Scheduler.find_nodes_that_fit``) and preemption's walk over candidate nodes
(:mod:`ruleset.plugins.default_preemption_bulk`) both stop after finding enough nodes, as
upstream's node-by-node loops do, but look at nodes in batches. Results never depend on the
batch sizes (each cuts where the sequential loop stops); the sizes only trade the plugins'
fixed cost per batch against nodes looked at past the cut.
"""

from __future__ import annotations

#: "Every remaining node" (a slice end past any node count).
ALL = 1 << 62


def first_chunk(n: int, want: int, ratio: float, slack: float = 1.1) -> int:
    """The first batch for finding ``want`` of ``n`` nodes, when the last scan found ``ratio``
    per node looked at: all nodes when it found none, else about ``want / ratio`` and 10%
    (``slack``: a walk whose later batches cost more than its extra nodes asks for more)."""
    if not ratio:
        return n
    return min(n, max(64, int(want / ratio * slack) + 1))


def next_chunk(chunk: int, position: int, found: int, want: int) -> int:
    """The next batch after ``position`` nodes gave ``found`` of ``want``: double the last one,
    or more when the nodes seen so far say more are needed (all the rest when none was found)."""
    if not found:
        return ALL
    return max(2 * chunk, -(-(want - found) * position // found))
