"""Snapshot updates: add_pod/remove_pod accounting and what_if blocks undoing them exactly."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ruleset.api.pod import Pod
from ruleset.snapshot import Snapshot
from tests.factories import build_cluster, container, decode, make_node, make_pod

ANTI_AFFINITY = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}]}}


def _pod(rng: random.Random, name: str, node: str | None = None) -> dict:
    requests = {"cpu": rng.choice(["100m", "1"]), "memory": rng.choice(["1Gi", "2Gi"])}
    if rng.random() < 0.3:
        requests["example.com/gpu"] = "1"
    ports = [{"containerPort": 80, "hostPort": rng.choice([80, 443]), "hostIP": rng.choice(["", "10.0.0.1"])}]
    return make_pod(name, rng.choice(["default", "other"]), {"app": rng.choice("ab"), f"k{rng.randrange(3)}": "v"},
                    node_name=node,
                    containers=[container(requests, ports=ports if rng.random() < 0.4 else ())],
                    volumes=[{"name": "v"}] if rng.random() < 0.3 else (),
                    affinity=ANTI_AFFINITY if rng.random() < 0.2 else None, priority=rng.randrange(3))


def _cluster(seed: int) -> tuple[Snapshot, list[Pod]]:
    """A snapshot with assigned pods, and a few pods that were never assigned."""
    rng = random.Random(seed)
    nodes = [make_node(f"n{i}", {"kubernetes.io/hostname": f"n{i}"}) for i in range(4)]
    state = build_cluster([*nodes, *(_pod(rng, f"p{i}", f"n{rng.randrange(4)}") for i in range(12))])
    return state.snapshot, [decode(_pod(rng, f"new{i}")) for i in range(4)]


def _state(snapshot: Snapshot, rows: int | None = None) -> dict:
    """Everything add_pod/remove_pod change, in comparable form.

    Pod-table rows from ``rows`` on (pods placed for the first time since) must be dead and
    unlabelled, and are left out: rows are never taken back.
    """
    table = snapshot.pod_table
    rows = len(table) if rows is None else rows
    assert not table.alive[rows:].any() and (table.node[rows:] == -1).all()
    assert all(table.labels.row(i) == {} for i in range(rows, len(table)))
    return {
        "pods": [[p.key for p in snapshot.pods_on(i)] for i in range(snapshot.num_nodes)],
        # A resource first requested inside a block keeps its (zero) column afterwards.
        "requested": [snapshot.requested_on(i) for i in range(snapshot.num_nodes)],
        "non_zero": (snapshot.non_zero_cpu.tolist(), snapshot.non_zero_memory.tolist()),
        "counts": (snapshot.pod_count.tolist(), snapshot.volume_count.tolist()),
        "ports": [{key: dict(users) for key, users in ports.items()} for ports in snapshot.used_ports],
        "port_users": {key: sorted(nodes) for key, nodes in snapshot.port_users.items() if nodes},
        "rows": [column[:rows].tolist() for column in (table.node, table.alive, table.namespace, table.priority,
                                                       table.terminating, table.has_affinity)],
        "labels": [table.labels.row(i) for i in range(rows)],
    }


def _random_changes(rng: random.Random, snapshot: Snapshot, extra: list[Pod], steps: int) -> None:
    for _ in range(steps):
        placed = [p for i in range(snapshot.num_nodes) for p in snapshot.pods_on(i)]
        unplaced = [p for p in [*extra, *snapshot.pod_table.pods] if snapshot.node_of(p) < 0]
        if placed and (not unplaced or rng.random() < 0.5):
            snapshot.remove_pod(rng.choice(placed))
        elif unplaced:
            snapshot.add_pod(rng.choice(unplaced), rng.randrange(snapshot.num_nodes))


@pytest.mark.parametrize("seed", range(8))
def test_what_if_undoes_everything_exactly(seed: int) -> None:
    rng = random.Random(seed)
    snapshot, extra = _cluster(seed)
    rows = len(snapshot.pod_table)
    before = _state(snapshot)
    generation = snapshot.generation
    with snapshot.what_if():
        _random_changes(rng, snapshot, extra, 15)
        middle_rows = len(snapshot.pod_table)
        middle = _state(snapshot)
        with snapshot.what_if():  # a nested block undoes to the outer block's state
            _random_changes(rng, snapshot, extra, 15)
        assert _state(snapshot, middle_rows) == middle
        _random_changes(rng, snapshot, extra, 15)
    assert _state(snapshot, rows) == before
    assert snapshot.generation > generation


def test_a_pod_put_back_on_its_node_is_restored_in_its_place() -> None:
    snapshot, _ = _cluster(3)
    node = max(range(snapshot.num_nodes), key=lambda i: len(snapshot.pods_on(i)))
    before = _state(snapshot)
    with snapshot.what_if():
        first = snapshot.pods_on(node)[0]
        snapshot.remove_pod(first)
        snapshot.add_pod(first, node)  # now last on the node
        assert snapshot.pods_on(node)[-1] is first
    assert _state(snapshot) == before


def test_a_pod_moved_to_another_node_goes_back() -> None:
    snapshot, _ = _cluster(4)
    pod = snapshot.pods_on(0)[0] if snapshot.pods_on(0) else snapshot.pod_table.pods[0]
    home = snapshot.node_of(pod)
    before = _state(snapshot)
    with snapshot.what_if():
        snapshot.remove_pod(pod)
        snapshot.add_pod(pod, (home + 1) % snapshot.num_nodes)
    assert snapshot.node_of(pod) == home
    assert _state(snapshot) == before


def test_undo_runs_when_the_block_raises() -> None:
    snapshot, extra = _cluster(5)
    rows = len(snapshot.pod_table)
    before = _state(snapshot)
    with pytest.raises(RuntimeError), snapshot.what_if():
        snapshot.add_pod(extra[0], 1)
        raise RuntimeError("dry run failed")
    assert _state(snapshot, rows) == before


def test_adding_an_assigned_pod_fails_and_changes_nothing() -> None:
    snapshot, _ = _cluster(6)
    pod = snapshot.pod_table.pods[0]
    before = _state(snapshot)
    with snapshot.what_if():
        with pytest.raises(ValueError, match="already assigned"):
            snapshot.add_pod(pod, snapshot.node_of(pod))
        assert _state(snapshot) == before
    assert _state(snapshot) == before


def test_missing_resources_read_as_shared_read_only_zeros() -> None:
    snapshot, _ = _cluster(0)
    for column in (snapshot.allocatable("example.com/none"), snapshot.requested("example.com/none")):
        assert column.tolist() == [0] * snapshot.num_nodes
        assert not column.flags.writeable
        with pytest.raises(ValueError):
            column[0] = 1
    assert snapshot.requested("example.com/none").tolist() == [0] * snapshot.num_nodes


def test_derived_is_per_snapshot() -> None:
    first, _ = _cluster(0)
    second, _ = _cluster(0)
    first.derived["key"] = np.arange(3)
    assert "key" not in second.derived
