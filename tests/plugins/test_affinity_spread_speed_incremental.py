"""The counts InterPodAffinity and PodTopologySpread keep between cycles equal fresh ones.

- ``interpodaffinity.matched.MatchedPods`` (assigned pods matching the incoming pod's terms,
  counted per topology pair, moved as pods come, go and move): PreFilter's
  ``incoming_affinity_counts`` and PreScore's ``topology_scores`` against the computation
  that matches and counts every pod (``incoming_affinity_counts_from_scratch``; PreScore with
  no tuple of terms remembered), and against a snapshot built afresh with the same placements,
  through randomised sequences of pods added, removed, moved, dry runs and bulk additions.
- ``TermSums`` (existing pods' terms) after bulk moves, against a fresh snapshot.
- ``podtopologyspread.counting`` (matching pods per (selector, namespace), per value of each
  key over the nodes a constraint counts): ``pre_filter_state`` against the per-cycle count
  (no selector remembered) and against a fresh snapshot.
- The Python forms of small cases (critical paths of a few values) and the Filter rewrites,
  against the numpy forms they replaced (transcribed here).

ruleset's own optimisation, proved against its own reference: no upstream table.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from ruleset import Code, NodeSet, Snapshot
from ruleset.api.pod import Pod
from ruleset.plugins.interpodaffinity import matched as matched_module
from ruleset.plugins.interpodaffinity.filtering import (
    FILTER_REASONS,
    PreFilterState,
    existing_anti_affinity_counts,
    filter_nodes,
    incoming_affinity_counts,
    incoming_affinity_counts_from_scratch,
    satisfy_existing_pods_anti_affinity,
    satisfy_pod_affinity,
    satisfy_pod_anti_affinity,
)
from ruleset.plugins.interpodaffinity.scoring import topology_scores
from ruleset.plugins.interpodaffinity.terms import pod_info
from ruleset.plugins.podtopologyspread import counting as counting_module
from ruleset.plugins.podtopologyspread import filtering as spread_filtering
from ruleset.plugins.podtopologyspread.common import DO_NOT_SCHEDULE, filter_constraints
from ruleset.plugins.podtopologyspread.versions import Behaviour
from tests.factories import build_cluster, decode, make_node, make_pod

NODES = 8
ZONES = ["a", "b", "c"]
KEYS = ["zone", "kubernetes.io/hostname", "rack", "absent"]


def _nodes(rng: random.Random) -> list[dict]:
    out = []
    for i in range(NODES):
        labels = {"kubernetes.io/hostname": f"n{i}"}
        if rng.random() < 0.8:  # some nodes lack the zone key
            labels["zone"] = rng.choice(ZONES)
        if rng.random() < 0.5:
            labels["rack"] = rng.choice(["r1", "r2"])
        out.append(make_node(f"n{i}", labels))
    return out


def _term(rng: random.Random) -> dict:
    selector = rng.choice([{"matchLabels": {"app": "x"}}, {"matchLabels": {"app": "y"}},
                           {"matchExpressions": [{"key": "app", "operator": "Exists"}]}, {}])
    term: dict[str, Any] = {"labelSelector": selector, "topologyKey": rng.choice(KEYS)}
    if rng.random() < 0.4:
        term["namespaces"] = rng.choice([["ns0"], ["ns0", "ns1"], ["missing"]])
    return term


def _affinity(rng: random.Random) -> dict | None:
    if rng.random() < 0.3:
        return None
    out: dict[str, Any] = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        rule: dict[str, Any] = {}
        if rng.random() < 0.6:
            rule["requiredDuringSchedulingIgnoredDuringExecution"] = [_term(rng) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.6:
            rule["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "podAffinityTerm": _term(rng)} for _ in range(rng.randint(1, 2))]
        if rule:
            out[kind] = rule
    return out or None


def _spread(rng: random.Random) -> list[dict]:
    out = []
    for key in rng.sample(["zone", "kubernetes.io/hostname", "rack"], rng.randint(1, 2)):
        selector = rng.choice([{"matchLabels": {"app": "x"}}, {"matchLabels": {"app": "y"}},
                               {"matchExpressions": [{"key": "app", "operator": "Exists"}]}])
        out.append({"maxSkew": rng.randint(1, 3), "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": selector})
    return out


def _pod(rng: random.Random, name: str) -> Pod:
    labels = {"app": rng.choice(["x", "y"])} if rng.random() < 0.85 else {}
    return decode(make_pod(
        name, rng.choice(["ns0", "ns0", "ns1"]), labels, affinity=_affinity(rng),
        topology_spread_constraints=_spread(rng) if rng.random() < 0.5 else (),
        node_selector={"zone": "a"} if rng.random() < 0.1 else None,
        deletion_timestamp="2024-01-01T00:00:00Z" if rng.random() < 0.1 else None))


def _incoming(rng: random.Random, count: int) -> list[Pod]:
    out = []
    for i in range(count):
        raw = make_pod(f"in{i}", rng.choice(["ns0", "ns1"]), {"app": rng.choice(["x", "y"])},
                       affinity=_affinity(rng) or {"podAntiAffinity": {
                           "requiredDuringSchedulingIgnoredDuringExecution": [_term(rng)]}},
                       topology_spread_constraints=_spread(rng),
                       node_selector={"zone": "b"} if i % 3 == 2 else None)
        out.append(decode(raw))
    return out


def _steps(rng: random.Random, snapshot: Snapshot, count: int, check: Any) -> None:
    """Random changes to ``snapshot``, ``check()`` after each (and inside dry runs)."""
    pods: list[Pod] = []
    for step in range(count):
        placed = [p for p in pods if snapshot.node_of(p) >= 0]
        action = rng.random()
        if action < 0.45 or not placed:
            pod = _pod(rng, f"p{step}")
            pods.append(pod)
            snapshot.add_pod(pod, rng.randrange(NODES))
        elif action < 0.55:  # many at once (the numpy forms of the moves)
            batch = [_pod(rng, f"p{step}-{k}") for k in range(20)]
            pods += batch
            snapshot.add_pods(batch, [rng.randrange(NODES) for _ in batch])
        elif action < 0.7:
            snapshot.remove_pod(rng.choice(placed))
        elif action < 0.8:
            moved = rng.choice(placed)
            snapshot.remove_pod(moved)
            snapshot.add_pod(moved, rng.randrange(NODES))
        else:  # a dry run, undone when it ends; sometimes removing many, sometimes adding a pod
            with snapshot.what_if():
                for victim in rng.sample(placed, min(len(placed), rng.choice([0, 1, 2, 20]))):
                    snapshot.remove_pod(victim)
                if rng.random() < 0.5:
                    visitor = _pod(rng, f"p{step}-what-if")
                    pods.append(visitor)
                    snapshot.add_pod(visitor, rng.randrange(NODES))
                check()
        check()


def _fresh(snapshot: Snapshot, objects: list[dict]) -> Snapshot:
    """A snapshot built from scratch with ``snapshot``'s placements (nothing derived yet)."""
    fresh = build_cluster(objects).snapshot
    table = snapshot.pod_table
    for row in np.flatnonzero(table.alive).tolist():
        fresh.add_pod(table.pods[row], table.node_of_row(row))
    return fresh


def _arrays(counts: Any) -> dict[str, list[int]]:
    return {key: array.tolist() for key, array in counts.arrays.items()}


# ---------------------------------------------------------------------------------------------
# InterPodAffinity
# ---------------------------------------------------------------------------------------------

def _affinity_view(pod: Pod, snapshot: Snapshot) -> tuple:
    info = pod_info(pod)
    affinity, anti = incoming_affinity_counts(info, snapshot)
    score = topology_scores(pod, info, snapshot, 3)
    existing = existing_anti_affinity_counts(pod, snapshot)
    return (_arrays(affinity), _arrays(anti), _arrays(score.topology_score), score.counted, _arrays(existing))


@pytest.mark.parametrize("seed", range(8), ids=lambda s: f"seed{s}")
def test_kept_affinity_counts_equal_fresh_ones(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    objects = _nodes(rng)
    snapshot = build_cluster(objects).snapshot
    incoming = _incoming(rng, 4)

    def check() -> None:
        for pod in incoming:
            info = pod_info(pod)
            kept = _affinity_view(pod, snapshot)
            scratch_affinity, scratch_anti = incoming_affinity_counts_from_scratch(info, snapshot)
            assert (kept[0], kept[1]) == (_arrays(scratch_affinity), _arrays(scratch_anti))
            with monkeypatch.context() as patched:  # PreScore counting every pod, as before
                patched.setattr(matched_module, "MAX_REMEMBERED", 0)
                fresh_snapshot = _fresh(snapshot, objects)
                assert topology_scores(pod, info, fresh_snapshot, 3).counted == kept[3]
                assert _arrays(topology_scores(pod, info, fresh_snapshot, 3).topology_score) == kept[2]
            assert _affinity_view(pod, _fresh(snapshot, objects)) == kept

    _steps(rng, snapshot, 40, check)


def test_matched_pods_count_exact_values() -> None:
    objects = [make_node(f"n{i}", {"zone": z, "kubernetes.io/hostname": f"n{i}"})
               for i, z in enumerate(["a", "a", "b"])]
    snapshot = build_cluster(objects).snapshot
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "zone"}]}}
    pod = decode(make_pod("in", "ns0", {"app": "x"}, affinity=anti))
    others = [decode(make_pod(f"p{i}", "ns0", {"app": "x"})) for i in range(4)]
    for other, node in zip(others, [0, 1, 2, 2], strict=True):
        snapshot.add_pod(other, node)
    snapshot.add_pod(decode(make_pod("y", "ns0", {"app": "y"})), 0)
    _, counts = incoming_affinity_counts(pod_info(pod), snapshot)
    assert counts.pairs(snapshot) == {("zone", "a"): 2, ("zone", "b"): 2}
    snapshot.remove_pod(others[2])
    with snapshot.what_if():
        snapshot.remove_pod(others[0])
        _, counts = incoming_affinity_counts(pod_info(pod), snapshot)
        assert counts.pairs(snapshot) == {("zone", "a"): 1, ("zone", "b"): 1}
    _, counts = incoming_affinity_counts(pod_info(pod), snapshot)
    assert counts.pairs(snapshot) == {("zone", "a"): 2, ("zone", "b"): 1}
    entry = snapshot.derived[matched_module.__name__][(id(pod_info(pod).required_anti_affinity[0]),)]
    assert (entry.landed, entry.scanned) == ({"zone": 3}, 5)


def test_terms_beyond_the_limit_are_counted_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    objects = _nodes(rng)
    snapshot = build_cluster(objects).snapshot
    for i in range(30):
        snapshot.add_pod(_pod(rng, f"p{i}"), i % NODES)
    monkeypatch.setattr(matched_module, "MAX_REMEMBERED", 1)
    for pod in _incoming(rng, 6):
        info = pod_info(pod)
        affinity, anti = incoming_affinity_counts(info, snapshot)
        scratch = incoming_affinity_counts_from_scratch(info, snapshot)
        assert (_arrays(affinity), _arrays(anti)) == (_arrays(scratch[0]), _arrays(scratch[1]))
    assert len(snapshot.derived[matched_module.__name__]) == 1


def test_pod_info_is_shared_by_pods_of_one_shape() -> None:
    term = {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "zone"}
    affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    first, second = (decode(make_pod(name, "ns0", affinity=affinity)) for name in ("a", "b"))
    other_namespace = decode(make_pod("c", "ns1", affinity=affinity))
    assert pod_info(first) is pod_info(second)
    assert pod_info(other_namespace) is not pod_info(first)
    assert pod_info(other_namespace).required_anti_affinity[0].namespaces == frozenset({"ns1"})
    assert pod_info(first, True) is pod_info(second, True)


def _reference_filter(state: PreFilterState, nodes: NodeSet) -> tuple[list[int], list[int]] | None:
    """The Filter this package had before (transcribed): every check over every node."""
    info = state.info
    if not info.required_affinity and not info.required_anti_affinity and state.existing_anti_affinity.is_empty():
        return None
    slot = np.zeros(len(nodes), dtype=np.int32)
    for index, check in enumerate((satisfy_pod_affinity, satisfy_pod_anti_affinity,
                                   satisfy_existing_pods_anti_affinity), start=1):
        slot[(slot == 0) & ~check(state, nodes)] = index
    if not slot.any():
        return None
    codes = np.where(slot == 1, np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE), np.int8(Code.UNSCHEDULABLE))
    codes = np.where(slot == 0, np.int8(Code.SUCCESS), codes).astype(np.int8)
    return codes.tolist(), slot.tolist()


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed{s}")
def test_affinity_filter_equals_the_check_by_check_form(seed: int) -> None:
    rng = random.Random(seed)
    snapshot = build_cluster(_nodes(rng)).snapshot
    incoming = _incoming(rng, 5)
    incoming.append(decode(make_pod("plain", "ns0", {"app": "x"})))

    def check() -> None:
        nodes = NodeSet(snapshot, np.array(sorted(rng.sample(range(NODES), 5)), dtype=np.intp))
        for pod in incoming:
            info = pod_info(pod)
            affinity, anti = incoming_affinity_counts(info, snapshot)
            state = PreFilterState(pod, info, existing_anti_affinity_counts(pod, snapshot), affinity, anti)
            for chosen in (snapshot.all_nodes(), nodes):
                got = filter_nodes(state, chosen, FILTER_REASONS)
                expected = _reference_filter(state, chosen)
                if expected is None:
                    assert got is None
                else:
                    assert got is not None
                    assert (np.asarray(got.codes).tolist(), np.asarray(got.reason_index).tolist()) == expected

    _steps(rng, snapshot, 30, check)


# ---------------------------------------------------------------------------------------------
# PodTopologySpread
# ---------------------------------------------------------------------------------------------

BEHAVIOURS = {
    "1.24": Behaviour(filter_counts_affinity_nodes=True),
    "1.27": Behaviour(filter_counts_affinity_nodes=True, node_inclusion_policy=True, min_domains=True,
                      empty_selector_counts_nothing=True),
    "1.33": Behaviour(filter_counts_affinity_nodes=True, node_inclusion_policy=True, min_domains=True,
                      empty_selector_counts_nothing=True, per_constraint_counts=True),
}


def _spread_view(pod: Pod, snapshot: Snapshot, behaviour: Behaviour) -> tuple:
    constraints = filter_constraints(pod.topology_spread_constraints, DO_NOT_SCHEDULE)
    state = spread_filtering.pre_filter_state(pod, snapshot, constraints, behaviour)
    include = [None if mask is None else mask.tolist() for mask in state.include]
    return state.pair_counts(), state.critical_paths(), state.domains, include


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed{s}")
@pytest.mark.parametrize("release", list(BEHAVIOURS))
def test_kept_spread_counts_equal_fresh_ones(seed: int, release: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    behaviour = BEHAVIOURS[release]
    objects = _nodes(rng)
    snapshot = build_cluster(objects).snapshot
    incoming = _incoming(rng, 5)

    def check() -> None:
        for pod in incoming:
            kept = _spread_view(pod, snapshot, behaviour)
            assert _spread_view(pod, _fresh(snapshot, objects), behaviour) == kept
            with monkeypatch.context() as patched:  # counted node by node, as before
                patched.setattr(counting_module, "MAX_SELECTORS", 0)
                assert _spread_view(pod, _fresh(snapshot, objects), behaviour) == kept

    _steps(rng, snapshot, 40, check)


def test_spread_counts_exact_values() -> None:
    objects = [make_node(f"n{i}", {"zone": z, "kubernetes.io/hostname": f"n{i}"})
               for i, z in enumerate(["a", "a", "b", "c"])]
    snapshot = build_cluster(objects).snapshot
    constraint = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                  "labelSelector": {"matchLabels": {"app": "x"}}}
    pod = decode(make_pod("in", "ns0", {"app": "x"}, topology_spread_constraints=[constraint]))
    others = [decode(make_pod(f"p{i}", "ns0", {"app": "x"})) for i in range(4)]
    for other, node in zip(others, [0, 1, 2, 0], strict=True):
        snapshot.add_pod(other, node)
    snapshot.add_pod(decode(make_pod("dying", "ns0", {"app": "x"}, deletion_timestamp="2024-01-01T00:00:00Z")), 3)
    snapshot.add_pod(decode(make_pod("elsewhere", "ns1", {"app": "x"})), 3)
    behaviour = BEHAVIOURS["1.24"]
    assert _spread_view(pod, snapshot, behaviour)[:3] == (
        {("zone", "a"): 3, ("zone", "b"): 1, ("zone", "c"): 0}, {"zone": (("c", 0), ("b", 1))}, {"zone": 3})
    with snapshot.what_if():
        snapshot.remove_pod(others[2])
        assert _spread_view(pod, snapshot, behaviour)[0] == {("zone", "a"): 3, ("zone", "b"): 0, ("zone", "c"): 0}
    snapshot.remove_pod(others[0])
    assert _spread_view(pod, snapshot, behaviour)[:2] == (
        {("zone", "a"): 2, ("zone", "b"): 1, ("zone", "c"): 0}, {"zone": (("c", 0), ("b", 1))})


@pytest.mark.parametrize("seed", range(20), ids=lambda s: f"seed{s}")
def test_few_critical_paths_in_python_equal_numpy(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(0, 40))
    values = [f"v{i}" for i in rng.permutation(size)]
    exists = rng.random(size) < 0.7
    counts = rng.integers(0, 4, size).astype(np.int64)
    rank = np.empty(size, dtype=np.int64)
    rank[sorted(range(size), key=values.__getitem__)] = np.arange(size)
    small = spread_filtering.build_critical_paths(values, exists, counts, rank)
    monkeypatch.setattr(spread_filtering, "_FEW_VALUES", -1)
    assert small == spread_filtering.build_critical_paths(values, exists, counts, rank)


def _reference_spread_filter(current: Any, pod: Pod, nodes: NodeSet) -> tuple[list[int], list[int]] | None:
    """The Filter this package had before (transcribed)."""
    n = len(nodes)
    if not current.constraints:
        return None
    codes = np.zeros(n, dtype=np.int8)
    reason = np.zeros(n, dtype=np.int32)
    open_ = np.ones(n, dtype=bool)
    for i, c in enumerate(current.constraints):
        column = nodes.label_column(c.topology_key)
        missing = open_ & (column < 0)
        codes[missing] = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        reason[missing] = 1
        open_ &= ~missing
        if not open_.any():
            break
        slot = current.slots[i] if current.slots else c.topology_key
        counts = current.keys[slot]
        self_match = 1 if c.selector.matches(pod.labels) else 0
        minimum = 0 if current.domains.get(slot, 0) < c.min_domains else counts.paths[0][1]
        skew = counts.counts[np.where(open_, column, 0)] + self_match - minimum
        over = open_ & (skew > c.max_skew)
        codes[over] = Code.UNSCHEDULABLE
        reason[over] = 2
        open_ &= ~over
    if open_.all():
        return None
    return codes.tolist(), reason.tolist()


@pytest.mark.parametrize("seed", range(6), ids=lambda s: f"seed{s}")
def test_spread_filter_equals_the_former_form(seed: int) -> None:
    rng = random.Random(seed)
    snapshot = build_cluster(_nodes(rng)).snapshot
    incoming = _incoming(rng, 5)

    def check() -> None:
        nodes = NodeSet(snapshot, np.array(sorted(rng.sample(range(NODES), 5)), dtype=np.intp))
        for pod in incoming:
            constraints = filter_constraints(pod.topology_spread_constraints, DO_NOT_SCHEDULE)
            state = spread_filtering.pre_filter_state(pod, snapshot, constraints, BEHAVIOURS["1.33"])
            for chosen in (snapshot.all_nodes(), nodes):
                got = spread_filtering.filter_nodes(state, pod, chosen)
                expected = _reference_spread_filter(state, pod, chosen)
                if expected is None:
                    assert got is None
                else:
                    assert got is not None
                    assert (np.asarray(got.codes).tolist(), np.asarray(got.reason_index).tolist()) == expected

    _steps(rng, snapshot, 30, check)


def test_default_selector_is_kept_per_namespace_and_labels() -> None:
    from ruleset.plugins.helper.spread import default_selector
    from ruleset.plugins.podtopologyspread.common import pod_constraints
    from ruleset.plugins.podtopologyspread.plugin import SYSTEM_DEFAULT_CONSTRAINTS
    from tests.factories import make_object

    state = build_cluster([
        make_node("n1", {"zone": "a", "kubernetes.io/hostname": "n1"}),
        make_object("Service", "web", "ns0", spec={"selector": {"app": "web"}}),
        make_object("ReplicaSet", "rs", "ns0", api_version="apps/v1",
                    spec={"selector": {"matchLabels": {"tier": "front"}}}),
    ])
    snapshot = state.snapshot
    shapes = [("ns0", {"app": "web", "tier": "front"}), ("ns0", {"app": "web"}), ("ns0", {"tier": "front"}),
              ("ns1", {"app": "web"}), ("ns0", {}), ("ns0", {"app": "web", "tier": "front"})]
    got = []
    for i, (namespace, labels) in enumerate(shapes):
        pod = decode(make_pod(f"p{i}", namespace, labels), state)
        constraints = pod_constraints(pod, snapshot, "ScheduleAnyway", SYSTEM_DEFAULT_CONSTRAINTS)
        expected = default_selector(pod, snapshot)
        assert [c.selector for c in constraints] == ([] if expected.empty() else [expected, expected])
        got.append([c.topology_key for c in constraints])
    assert got == [["kubernetes.io/hostname", "topology.kubernetes.io/zone"]] * 3 + [[], [],
                   ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]]


def test_has_all_keys_is_kept_per_keys_and_read_only() -> None:
    from ruleset.plugins.podtopologyspread.common import SpreadConstraint, has_all_keys
    from ruleset.selector import Selector

    snapshot = build_cluster([make_node("n0", {"zone": "a", "rack": "r"}), make_node("n1", {"zone": "b"}),
                              make_node("n2", {"rack": "r"})]).snapshot

    def spread(*keys: str) -> list[SpreadConstraint]:
        return [SpreadConstraint(1, key, Selector.EVERYTHING) for key in keys]

    assert has_all_keys(snapshot, spread("zone")).tolist() == [True, True, False]
    assert has_all_keys(snapshot, spread("zone", "rack")).tolist() == [True, False, False]
    assert has_all_keys(snapshot, spread("zone", "absent")).tolist() == [False, False, False]
    assert has_all_keys(snapshot, spread("rack"), np.array([2, 1])).tolist() == [True, False]
    kept = has_all_keys(snapshot, spread("zone"))
    assert kept is has_all_keys(snapshot, spread("zone")) and not kept.flags.writeable
