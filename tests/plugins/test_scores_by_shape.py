"""Resource scores kept per pod shape (:class:`~ruleset.plugins.noderesources.scoring.ScoresByShape`)
against scores worked out afresh.

Not an upstream port. NodeResourcesFit (each scoring strategy) and BalancedAllocation score
from kept per-node scores, refreshed from the snapshot's per-node change stamps; on seeded
random clusters, through pods placed, pods removed, what-if blocks (scored inside, then
undone) and bulk loading, every
score must equal what a plugin without kept scores computes, exactly; and so must Fit's Filter
verdicts, which it answers from each node's kept "fails for some reason" when none fails. A
kept shape catches up one node at a time in Python numbers (``least_one``, ``most_one``,
``balanced_one``): those must give the array forms' integers.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from ruleset.config import PluginConfig, Profile
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.plugins.noderesources import scoring
from ruleset.snapshot import NodeSet
from tests.factories import build_cluster, decode, make_node, make_pod

STRATEGIES = {
    "least": {"scoringStrategy": {"type": "LeastAllocated",
                                  "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}},
    "most": {"scoringStrategy": {"type": "MostAllocated",
                                 "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 2}]}},
    "ratio": {"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                  "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                                  "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 0},
                                                                         {"utilization": 100, "score": 10}]}}},
}


def _pod(name: str, rng: random.Random) -> Any:
    return decode(make_pod(name, requests={"cpu": rng.choice(["100m", "500m", "2"]),
                                           "memory": rng.choice(["128Mi", "1Gi"])}))


def _plugins(snapshot: Any, strategy: str) -> tuple[Any, Any]:
    configs = [PluginConfig(name="NodeResourcesFit", args=STRATEGIES[strategy]),
               PluginConfig(name="NodeResourcesBalancedAllocation")]
    framework = Framework(Profile(name="t", plugins=configs, kubernetes_version="1.35"), load_registry(),
                          Handle(snapshot))
    return framework.plugins["NodeResourcesFit"], framework.plugins["NodeResourcesBalancedAllocation"]


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("seed", range(8))
def test_kept_scores_equal_fresh_ones(strategy: str, seed: int) -> None:
    rng = random.Random(seed)
    nodes = [make_node(f"n{i}", cpu=rng.choice(["2", "4", "8"]), memory=rng.choice(["4Gi", "8Gi"]))
             for i in range(rng.randrange(3, 12))]
    state = build_cluster(nodes)
    snapshot = state.snapshot
    kept_fit, kept_balanced = _plugins(snapshot, strategy)
    shapes = [_pod(f"shape-{k}", rng) for k in range(3)]
    placed: list[Any] = []
    for step in range(60):
        action = rng.random()
        if action < 0.5 or not placed:
            pod = _pod(f"p{step}", rng)
            index = rng.randrange(snapshot.num_nodes)
            snapshot.add_pod(pod, index)
            placed.append(pod)
        elif action < 0.7:
            snapshot.remove_pod(placed.pop(rng.randrange(len(placed))))
        elif action < 0.85:
            victim = rng.choice(placed)
            with snapshot.what_if():
                index = snapshot.remove_pod(victim)
                inside = NodeSet(snapshot, np.arange(snapshot.num_nodes))
                _check(snapshot, kept_fit, kept_balanced, shapes, inside, strategy)
                snapshot.add_pod(victim, index)
        else:
            more = [_pod(f"bulk{step}-{k}", rng) for k in range(3)]
            snapshot.add_pods(more, [rng.randrange(snapshot.num_nodes) for _ in more])
            placed += more
        some = np.array(sorted(rng.sample(range(snapshot.num_nodes), rng.randrange(1, snapshot.num_nodes + 1))))
        _check(snapshot, kept_fit, kept_balanced, shapes, NodeSet(snapshot, some), strategy)


def _check(snapshot: Any, kept_fit: Any, kept_balanced: Any, shapes: list[Any], nodes: NodeSet,
           strategy: str) -> None:
    fresh_fit, fresh_balanced = _plugins(snapshot, strategy)  # nothing kept yet: computed afresh
    for pod in shapes:
        assert kept_fit.ruleset_score(pod, nodes).tolist() == fresh_fit.ruleset_score(pod, nodes).tolist()
        assert (kept_balanced.ruleset_score(pod, nodes).tolist()
                == fresh_balanced.ruleset_score(pod, nodes).tolist())
        assert _verdicts(kept_fit, pod, nodes) == _verdicts(fresh_fit, pod, nodes)


def _verdicts(fit: Any, pod: Any, nodes: NodeSet) -> list[tuple[int, tuple[str, ...]]]:
    """Fit's Filter on ``nodes``, as (code, reasons) per node."""
    state = CycleState()
    fit.ruleset_pre_filter(state, pod, nodes.snapshot)
    result = fit.ruleset_filter(state, pod, nodes)
    if result is None:
        return [(0, ())] * len(nodes)
    return [(int(result.codes[i]), result.reasons[int(result.reason_index[i])]) for i in range(len(nodes))]


def test_a_shape_is_kept_from_its_second_pod() -> None:
    state = build_cluster([make_node(f"n{i}") for i in range(4)])
    fit, _ = _plugins(state.snapshot, "least")
    pod = decode(make_pod("p", requests={"cpu": "1", "memory": "1Gi"}))
    nodes = NodeSet(state.snapshot, np.array([1, 2]))
    assert fit.ruleset_score(pod, nodes).tolist() == [81, 81]
    assert fit._by_shape._kept == {}
    assert fit.ruleset_score(pod, nodes).tolist() == [81, 81]
    (kept,) = fit._by_shape._kept.values()
    assert kept[2].tolist() == [81, 81, 81, 81]  # (4000-1000)*100/4000=75, (8-1)*100/8=87: 81


def test_changed_since_reads_the_log_or_every_stamp() -> None:
    """``Snapshot.changed_since`` answers from its log of recent stamps (4,096 kept, the older
    half dropped when full) and from every node's stamp for older generations: the same nodes."""
    state = build_cluster([make_node(f"n{i}") for i in range(7)])
    snapshot = state.snapshot
    rng = random.Random(3)
    start = snapshot.generation
    for k in range(5000):
        snapshot.add_pod(decode(make_pod(f"p{k}", requests={"cpu": "1m"})), rng.randrange(7))
    assert snapshot._log_from > start  # the log no longer reaches back to the start
    for generation in [start, start + 1, snapshot._log_from - 1, snapshot._log_from, snapshot.generation - 3,
                       snapshot.generation - 1, snapshot.generation]:
        expected = np.flatnonzero(snapshot.changed_at > generation).tolist()
        assert snapshot.changed_since(generation).tolist() == expected
    assert snapshot.changed_since(snapshot.generation).tolist() == []


@pytest.mark.parametrize("seed", range(40))
def test_one_node_scores_are_the_array_scores(seed: int) -> None:
    """The one-node forms (Python integers and floats) against the array forms, on nodes with
    resources missing (allocatable 0), over-committed, and one to four resources."""
    rng = random.Random(seed)
    k = rng.randrange(1, 5)
    weights = [rng.randrange(1, 4) for _ in range(k)]
    for _ in range(50):
        one = [(rng.choice([0, 1, 250, 999, 4000, 9000, 3 * 2**30]), rng.choice([0, 1000, 4000, 8 * 2**30]))
               for _ in range(k)]
        one = [(0 if allocatable == 0 else requested, allocatable) for requested, allocatable in one]
        columns = [(np.array([r], dtype=np.int64), np.array([a], dtype=np.int64)) for r, a in one]
        assert scoring.least_one(one, weights) == scoring.least_allocated(columns, weights)[0]
        assert scoring.most_one(one, weights) == scoring.most_allocated(columns, weights)[0]
        assert scoring.balanced_one(one) == scoring.balanced_std_dev(columns)[0]
