"""matching_pods_per_node keeps each selector's matching rows across calls; the counts must
always equal a count made from scratch, whatever was added, removed or undone in between."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ruleset.plugins.helper.spread import matching_pods_per_node
from ruleset.selector import Selector, from_set, parse
from ruleset.snapshot import Snapshot
from tests.factories import build_cluster, decode, make_node, make_pod

SELECTORS = [from_set({"app": "a"}), parse("app in (a,b),tier!=db"), Selector.EVERYTHING, parse("!app")]


def _pod(rng: random.Random, name: str, node: str | None = None) -> dict:
    labels = {k: rng.choice(v) for k, v in (("app", "abc"), ("tier", ["db", "web"])) if rng.random() < 0.8}
    return make_pod(name, rng.choice(["default", "other"]), labels, node_name=node,
                    deletion_timestamp="2026-01-01T00:00:00Z" if rng.random() < 0.15 else None)


def _from_scratch(snapshot: Snapshot, selector: Selector, namespace: str) -> list[int]:
    counts = [0] * snapshot.num_nodes
    for i in range(snapshot.num_nodes):
        for pod in snapshot.pods_on(i):
            if pod.namespace == namespace and not pod.terminating and selector.matches(pod.labels):
                counts[i] += 1
    return counts


def _check(snapshot: Snapshot) -> None:
    for selector in SELECTORS:
        for namespace in ("default", "other"):
            counts = matching_pods_per_node(snapshot, selector, namespace)
            assert counts.dtype == np.int64
            assert counts.tolist() == _from_scratch(snapshot, selector, namespace)


@pytest.mark.parametrize("seed", range(6))
def test_counts_follow_every_change(seed: int) -> None:
    rng = random.Random(seed)
    nodes = [make_node(f"n{i}") for i in range(5)]
    # Enough pods that the first look matches rows in bulk, later ones one by one.
    state = build_cluster([*nodes, *(_pod(rng, f"p{i}", f"n{rng.randrange(5)}") for i in range(90))])
    snapshot = state.snapshot
    newcomers = [decode(_pod(rng, f"new{i}")) for i in range(10)]
    _check(snapshot)
    for step in range(40):
        placed = [p for p in snapshot.pod_table.pods if snapshot.node_of(p) >= 0]
        unplaced = [p for p in [*newcomers, *snapshot.pod_table.pods] if snapshot.node_of(p) < 0]
        if step % 7 == 0 and unplaced:
            with snapshot.what_if():  # changes seen, then undone
                snapshot.remove_pod(rng.choice(placed))
                snapshot.add_pod(rng.choice(unplaced), 0)
                _check(snapshot)
        elif unplaced and rng.random() < 0.5:
            snapshot.add_pod(rng.choice(unplaced), rng.randrange(5))
        else:
            snapshot.remove_pod(rng.choice(placed))
        _check(snapshot)


@pytest.mark.parametrize("bulk", [False, True])
def test_rows_of_removed_pods_are_classified_by_their_pod(bulk: bool) -> None:
    # A row seen for the first time after its pod left has no labels in the table.
    rng = random.Random(1)
    count = 90 if bulk else 3
    state = build_cluster([make_node("n0"), make_node("n1"),
                           *(_pod(rng, f"p{i}", f"n{i % 2}") for i in range(count))])
    snapshot = state.snapshot
    gone = snapshot.pod_table.pods[: count // 2]
    for pod in gone:
        snapshot.remove_pod(pod)
    _check(snapshot)
    for pod in gone:
        snapshot.add_pod(pod, 1)
    _check(snapshot)
