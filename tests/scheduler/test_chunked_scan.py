"""The feasible-node scan in chunks against a node-by-node scan.

Not an upstream port: upstream's ``findNodesThatPassFilters`` checks nodes from the rotating
start index and stops once ``numFeasibleNodesToFind`` fit. ruleset filters chunks of nodes at
once, sized from how many nodes the previous scan needed per feasible one, and cuts where a
sequential scan would have stopped. Whatever the chunk sizes, each scan must give the nodes, the
next start index and the evaluated/unevaluated statuses of a sequential scan, here over a run of
pods whose feasible nodes are drawn at random (from almost none to almost all).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from ruleset import FilterResult, Plugin, hookimpl
from ruleset.framework.status import Code
from ruleset.scheduler import Scheduler, num_feasible_nodes_to_find
from tests.factories import build_cluster, decode, framework_for, make_node, make_pod, registry_with

#: pod name -> the node indices it may not use
BLOCKED: dict[str, set[int]] = {}


class Blocked(Plugin):
    """Rejects the nodes :data:`BLOCKED` lists for the pod."""

    name = "Blocked"

    @hookimpl
    def ruleset_filter(self, pod: Any, nodes: Any) -> FilterResult:
        blocked = BLOCKED[pod.name]
        return FilterResult.reject(np.array([i in blocked for i in nodes.indices.tolist()], dtype=bool),
                                   Code.UNSCHEDULABLE, "blocked")


def _sequential(order: list[int], start: int, blocked: set[int], want: int) -> tuple[list[int], int, list[int]]:
    """Upstream's scan: the feasible nodes, the next start index, and the nodes checked."""
    n = len(order)
    feasible, checked = [], []
    for i in range(n):
        node = order[(start + i) % n]
        checked.append(node)
        if node not in blocked:
            feasible.append(node)
            if len(feasible) == want:
                break
    return feasible, (start + len(checked)) % n, checked


@pytest.mark.parametrize("seed", range(10))
def test_chunks_cut_where_a_sequential_scan_stops(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([150, 300, 700])
    state = build_cluster([make_node(f"n{i:03d}") for i in range(n)])
    framework = framework_for(["Blocked"], registry_with(Blocked), percentage=0, snapshot=state.snapshot)
    scheduler = Scheduler(framework)
    order = state.snapshot.evaluation_order.tolist()
    want = num_feasible_nodes_to_find(n, 0)
    for k in range(25):
        density = rng.choice([0.0, 0.01, 0.2, 0.5, 0.9, 1.0])
        pod = decode(make_pod(f"p{seed}-{k}"))
        BLOCKED[pod.name] = {i for i in range(n) if rng.random() >= density}
        expected, next_start, checked = _sequential(order, scheduler.next_start_node_index, BLOCKED[pod.name], want)
        result = scheduler.schedule(pod, always_score=False)
        assert result.statuses is not None
        assert (result.feasible.tolist(), scheduler.next_start_node_index) == (expected, next_start)
        assert np.flatnonzero(result.statuses.evaluated).tolist() == sorted(checked)
