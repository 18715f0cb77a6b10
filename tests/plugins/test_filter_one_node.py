"""Filter plugins answer a one-node set (preemption dry runs) as they answer for that node in a batch.

NodeResourcesFit has a fast path for one node and TaintToleration looks only at the tainted
nodes of a batch; both must agree, status for status, with the other way of asking.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from ruleset.framework.cycle_state import CycleState
from ruleset.framework.results import FilterResult
from ruleset.framework.status import SUCCESS, Status
from ruleset.plugins.noderesources import NodeResourcesFit
from ruleset.plugins.taint_toleration import TaintToleration
from ruleset.snapshot import NodeSet, Snapshot
from tests.factories import build_cluster, container, decode, make_node, make_pod


def _status(result: FilterResult | None, i: int) -> Status:
    return SUCCESS if result is None else result.status(i)


def _one_by_one(filter_nodes, snapshot: Snapshot) -> None:
    """Filter every node alone and all nodes at once; the statuses must be the same."""
    nodes = snapshot.all_nodes()
    batch = filter_nodes(nodes)
    for i in range(len(nodes)):
        assert _status(filter_nodes(NodeSet(snapshot, np.array([i]))), 0) == _status(batch, i)


@pytest.mark.parametrize("seed", range(10))
def test_node_resources_fit(seed: int) -> None:
    rng = random.Random(seed)
    nodes = [make_node(f"n{i}", allocatable={"cpu": rng.choice(["1", "2", "4"]), "memory": rng.choice(["1Gi", "4Gi"]),
                                             "pods": rng.choice(["1", "2", "110"]),
                                             **({"example.com/gpu": "1"} if rng.random() < 0.5 else {})})
             for i in range(12)]
    running = [make_pod(f"r{i}", node_name=f"n{rng.randrange(12)}",
                        requests={"cpu": rng.choice(["500m", "1"]), "memory": "1Gi",
                                  **({"ephemeral-storage": "1Gi"} if rng.random() < 0.2 else {})})
               for i in range(14)]
    snapshot = build_cluster([*nodes, *running]).snapshot
    plugin = NodeResourcesFit(NodeResourcesFit.parse_args({"ignoredResources": ["example.com/ignored"]}))
    for requests in ({}, {"cpu": "1"}, {"cpu": "2", "memory": "3Gi"}, {"example.com/gpu": "1", "cpu": "500m"},
                     {"example.com/ignored": "5"}, {"cpu": "100m", "ephemeral-storage": "1Gi"}):
        pod = decode(make_pod("p", containers=[container(requests)]))
        state = CycleState()
        plugin.ruleset_pre_filter(state, pod, snapshot)
        _one_by_one(lambda nodes, s=state, p=pod: plugin.ruleset_filter(s, p, nodes), snapshot)


@pytest.mark.parametrize("seed", range(10))
def test_taint_toleration(seed: int) -> None:
    rng = random.Random(seed)
    taints = [{"key": k, "value": v, "effect": e} for k in ("a", "b") for v in ("1", "2")
              for e in ("NoSchedule", "NoExecute", "PreferNoSchedule")]
    nodes = [make_node(f"n{i}", taints=rng.sample(taints, rng.choice([0, 0, 1, 2, 3]))) for i in range(16)]
    snapshot = build_cluster(nodes).snapshot
    plugin = TaintToleration()
    for _ in range(6):
        tolerations = [{"key": rng.choice(["a", "b", ""]), "operator": rng.choice(["Equal", "Exists"]),
                        "value": rng.choice(["1", "2"]), "effect": rng.choice(["", "NoSchedule", "NoExecute"])}
                       for _ in range(rng.randrange(3))]
        tolerations = [t if t["key"] or t["operator"] == "Exists" else {**t, "operator": "Exists"}
                       for t in tolerations]
        pod = decode(make_pod("p", tolerations=tolerations))
        _one_by_one(lambda nodes, p=pod: plugin.ruleset_filter(p, nodes), snapshot)
