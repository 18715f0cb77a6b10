"""InterPodAffinity's per-cycle shortcuts give what evaluating from scratch gives.

- ``table_matches`` remembers each term's answer per pod-table row (rows are never reused and
  a live row's namespace and labels never change): checked against ``_table_matches`` through
  randomised sequences of pods added, removed (rows dead, labels cleared) and put back.
- ``TopologyCounts.add`` counts one value per entry with ``np.bincount``: checked against
  ``np.add.at``, the general form, with keys missing on some nodes, negative and huge values.
- ``ExistingTerms`` keeps its columns in growing arrays: the same entries as built at once.

ruleset's own optimisation, proved against its own reference: no upstream table.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from ruleset.api.affinity import affinity_term
from ruleset.api.pod import PodAffinityTerm
from ruleset.plugins.interpodaffinity import terms as terms_module
from ruleset.plugins.interpodaffinity.filtering import TopologyCounts, add_by_key
from ruleset.plugins.interpodaffinity.terms import existing_terms
from tests.factories import build_cluster, decode, make_node, make_pod

ZONES = ["a", "b", "c"]


def _cluster(rng: random.Random, nodes: int) -> list[dict]:
    objects = []
    for i in range(nodes):
        labels = {"kubernetes.io/hostname": f"n{i}"}
        if rng.random() < 0.8:  # some nodes lack the zone key
            labels["zone"] = rng.choice(ZONES)
        objects.append(make_node(f"n{i}", labels))
    return objects


def _terms() -> list:
    selectors = [{"matchLabels": {"app": "x"}},
                 {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["x"]}]},
                 {"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]},
                 {}]
    out = []
    for selector in selectors:
        for namespaces in ((), ("ns1",), ("ns0", "ns2", "missing")):
            raw = make_pod("t", "ns0", affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": selector, "topologyKey": "zone", "namespaces": list(namespaces)}]}})
            term: PodAffinityTerm = decode(raw).affinity.pod_affinity.required[0]  # type: ignore[union-attr]
            out.append(affinity_term(term, "ns0"))
    return out


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed{s}")
def test_remembered_row_matches_equal_fresh_ones(seed: int) -> None:
    rng = random.Random(seed)
    state = build_cluster(_cluster(rng, 6))
    snapshot = state.snapshot
    table = snapshot.pod_table
    terms = _terms()
    pods = []
    for step in range(60):
        action = rng.random()
        placed = [p for p in pods if snapshot.node_of(p) >= 0]
        if action < 0.6 or not pods:
            labels = {k: v for k, v in (("app", rng.choice(["x", "y"])), ("tier", "t")) if rng.random() < 0.7}
            pod = decode(make_pod(f"p{step}", rng.choice(["ns0", "ns1", "ns2"]), labels))
            pods.append(pod)
            snapshot.add_pod(pod, rng.randrange(6))
        elif action < 0.8 and placed:
            snapshot.remove_pod(rng.choice(placed))
        else:
            gone = [p for p in pods if snapshot.node_of(p) < 0]
            if gone:
                snapshot.add_pod(rng.choice(gone), rng.randrange(6))
        alive = np.flatnonzero(table.alive)
        for term in rng.sample(terms, 4):  # the callers ask about live rows only
            assert table_rows(term, table, alive) == fresh(term, table, alive)
            some = alive[: len(alive) // 2]
            assert table_rows(term, table, some) == fresh(term, table, some)


def table_rows(term, table, rows) -> list[bool]:  # type: ignore[no-untyped-def]
    return terms_module.table_matches(term, table, rows).tolist()


def fresh(term, table, rows) -> list[bool]:  # type: ignore[no-untyped-def]
    return terms_module._table_matches(term, table, rows).tolist()


def test_terms_beyond_the_limit_are_evaluated_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    state = build_cluster([*_cluster(random.Random(1), 3)])
    snapshot = state.snapshot
    snapshot.add_pod(decode(make_pod("p", "ns0", {"app": "x"})), 0)
    monkeypatch.setattr(terms_module, "MAX_REMEMBERED_TERMS", 2)
    rows = np.flatnonzero(snapshot.pod_table.alive)
    answers = [terms_module.table_matches(t, snapshot.pod_table, rows).tolist() for t in _terms()]
    assert len(terms_module._ROW_MATCHES[snapshot.pod_table]) == 2
    assert answers == [fresh(t, snapshot.pod_table, rows) for t in _terms()]


def _reference_add(counts: TopologyCounts, snapshot, key: str, nodes: np.ndarray, values) -> bool:  # type: ignore[no-untyped-def]
    column = snapshot.node_labels.column(key)
    if column is None or not len(nodes):
        return False
    codes = column[nodes]
    present = codes >= 0
    if not present.any():
        return False
    array = counts.array(snapshot, key)
    np.add.at(array, codes[present], values[present] if isinstance(values, np.ndarray) else values)
    return True


@pytest.mark.parametrize("seed", range(5), ids=lambda s: f"seed{s}")
@pytest.mark.parametrize("values", ["one", "minus-one", "same-array", "mixed-array", "huge"])
def test_counts_add_matches_add_at(seed: int, values: str) -> None:
    rng = np.random.default_rng(seed)
    snapshot = build_cluster(_cluster(random.Random(seed), 12)).snapshot
    fast, slow = TopologyCounts(), TopologyCounts()
    for _ in range(6):
        nodes = rng.integers(0, 12, int(rng.integers(0, 30)))
        given: int | np.ndarray = {
            "one": 1, "minus-one": -1, "same-array": np.full(len(nodes), 7, dtype=np.int64),
            "mixed-array": rng.integers(-5, 5, len(nodes)), "huge": np.full(len(nodes), 2**62, dtype=np.int64),
        }[values]
        for key in ("zone", "kubernetes.io/hostname", "absent"):
            assert fast.add(snapshot, key, nodes, given) == _reference_add(slow, snapshot, key, nodes, given)
    assert fast.arrays.keys() == slow.arrays.keys()
    for key in fast.arrays:
        assert fast.arrays[key].tolist() == slow.arrays[key].tolist()


def test_add_by_key_groups_as_before() -> None:
    snapshot = build_cluster(_cluster(random.Random(3), 8)).snapshot
    keys = ["zone", "kubernetes.io/hostname"]
    key_of_entry = np.array([1, 0, 1, 1, 0])
    nodes = np.array([0, 1, 2, 2, 7])
    fast, slow = TopologyCounts(), TopologyCounts()
    assert add_by_key(fast, snapshot, keys, key_of_entry, nodes, 2)
    for k in (0, 1):
        _reference_add(slow, snapshot, keys[k], nodes[key_of_entry == k], 2)
    assert {k: v.tolist() for k, v in fast.arrays.items()} == {k: v.tolist() for k, v in slow.arrays.items()}
    one = TopologyCounts()
    assert not add_by_key(one, snapshot, ["zone"], np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp))


def test_existing_terms_grow_as_pods_arrive() -> None:
    state = build_cluster(_cluster(random.Random(2), 4))
    snapshot = state.snapshot
    term = {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "zone"}
    expected_rows = []
    for i in range(40):  # past the columns' first capacities
        kind = "podAffinity" if i % 3 else "podAntiAffinity"
        affinity = {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": i % 7 + 1, "podAffinityTerm": term}]}} if i % 2 else None
        pod = decode(make_pod(f"p{i}", "ns0", {"app": "x"}, affinity=affinity))
        snapshot.add_pod(pod, i % 4)
        index = existing_terms(snapshot)
        if affinity:
            expected_rows.append((snapshot.pod_table.row_of[pod], i % 7 + 1, kind))
        assert index.rows.tolist() == [r for r, _, _ in expected_rows]
        assert index.weights.tolist() == [w for _, w, _ in expected_rows]
        assert index.kinds.tolist() == [2 if k == "podAffinity" else 3 for _, _, k in expected_rows]
        assert len(index.term_ids) == len(index.key_ids) == len(expected_rows)
        assert not index.rows.flags.writeable or not len(index.rows)


# ---------------------------------------------------------------------------------------------
# TermSums: the existing pods' terms summed per term, kept up to date between cycles, against
# the per-entry computation it replaced (transcribed below).
# ---------------------------------------------------------------------------------------------

def _reference_existing(pod, snapshot, hard_weight: int, anti_only: bool) -> dict:  # type: ignore[no-untyped-def]
    from ruleset.plugins.interpodaffinity.terms import (
        PREFERRED_ANTI_AFFINITY,
        REQUIRED_AFFINITY,
        REQUIRED_ANTI_AFFINITY,
    )
    counts = TopologyCounts()
    table = snapshot.pod_table
    index = existing_terms(snapshot)
    landed = False
    if len(index.rows):
        chosen = table.alive[index.rows].copy()
        if anti_only:
            chosen &= index.kinds == REQUIRED_ANTI_AFFINITY
            values: np.ndarray | int = 1
        else:
            if hard_weight <= 0:
                chosen &= index.kinds != REQUIRED_AFFINITY
            chosen &= index.kinds != REQUIRED_ANTI_AFFINITY
        chosen &= index.matched_by(pod)
        if chosen.any():
            if not anti_only:
                kinds = index.kinds[chosen]
                values = np.where(kinds == REQUIRED_AFFINITY, hard_weight, index.weights[chosen])
                values = np.where(kinds == PREFERRED_ANTI_AFFINITY, -values, values)
            landed = add_by_key(counts, snapshot, index.keys, index.key_ids[chosen],
                                table.node[index.rows[chosen]], values)
    return {"landed": landed, **{k: v.tolist() for k, v in counts.arrays.items() if v.any()}}


def _fast_existing(pod, snapshot, hard_weight: int, anti_only: bool) -> dict:  # type: ignore[no-untyped-def]
    from ruleset.plugins.interpodaffinity.filtering import existing_anti_affinity_counts
    from ruleset.plugins.interpodaffinity.scoring import topology_scores
    if anti_only:
        counts = existing_anti_affinity_counts(pod, snapshot)
        landed = any(v.any() for v in counts.arrays.values())
        return {"landed": landed, **{k: v.tolist() for k, v in counts.arrays.items() if v.any()}}
    info = terms_module.PodInfo()  # no preferred terms of its own: only the existing pods' part
    state = topology_scores(pod, info, snapshot, hard_weight)
    return {"landed": state.counted, **{k: v.tolist() for k, v in state.topology_score.arrays.items() if v.any()}}


def _affinity(rng: random.Random) -> dict | None:
    term = {"labelSelector": {"matchLabels": {"app": rng.choice(["x", "y"])}},
            "topologyKey": rng.choice(["zone", "kubernetes.io/hostname", "absent"])}
    kind = rng.choice(["podAffinity", "podAntiAffinity"])
    if rng.random() < 0.2:
        return None
    if rng.random() < 0.5:
        return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": rng.randint(1, 100), "podAffinityTerm": term}]}}


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed{s}")
@pytest.mark.parametrize("hard_weight", [0, 1, 7])
def test_term_sums_equal_the_per_entry_sums(seed: int, hard_weight: int) -> None:
    rng = random.Random(seed)
    snapshot = build_cluster(_cluster(rng, 6)).snapshot
    pods = []
    incoming = [decode(make_pod(f"in{i}", "ns0", {"app": app})) for i, app in enumerate(["x", "y", "z"])]
    for step in range(50):
        placed = [p for p in pods if snapshot.node_of(p) >= 0]
        action = rng.random()
        if action < 0.55 or not placed:
            pod = decode(make_pod(f"p{step}", "ns0", {"app": rng.choice(["x", "y"])}, affinity=_affinity(rng)))
            pods.append(pod)
            snapshot.add_pod(pod, rng.randrange(6))
        elif action < 0.7:
            snapshot.remove_pod(rng.choice(placed))
        elif action < 0.85:
            moved = rng.choice(placed)
            snapshot.remove_pod(moved)
            snapshot.add_pod(moved, rng.randrange(6))
        else:  # a dry run: changes undone when it ends
            with snapshot.what_if():
                snapshot.remove_pod(rng.choice(placed))
                for pod in incoming:
                    for anti_only in (False, True):
                        assert _fast_existing(pod, snapshot, hard_weight, anti_only) == _reference_existing(
                            pod, snapshot, hard_weight, anti_only)
        for pod in incoming:
            for anti_only in (False, True):
                assert _fast_existing(pod, snapshot, hard_weight, anti_only) == _reference_existing(
                    pod, snapshot, hard_weight, anti_only)
