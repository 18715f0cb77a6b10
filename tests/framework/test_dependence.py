"""The what-if machinery of :mod:`ruleset.framework.dependence`: what each built-in Filter plugin
says of its dependence on other pods, the column views, the nominated-pods sums kept from the
nominator's log, the pod table's node-list order, and the switch to the reference path.

Its results are checked against the reference path in tests/plugins/test_preemption_paths_randomised.py
and by running every preemption table on both paths (tests/conftest.py).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from ruleset import OTHER_PODS_ANY, OTHER_PODS_AS_RESOURCES, OTHER_PODS_IGNORED, Plugin, hookimpl
from ruleset.framework import dependence
from ruleset.framework.dependence import NodeColumns, NominatedRoom, fast_paths, reference_path
from ruleset.framework.nominator import Nominator
from tests.factories import build_cluster, container, decode, make_node, make_pod
from tests.plugins.test_default_preemption import FIT, HIGH, LOW, Preemption, node, pod

ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "hostname"}]}}
SPREAD = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {"matchLabels": {"app": "web"}}}]
SOFT_SPREAD = [{**SPREAD[0], "whenUnsatisfiable": "ScheduleAnyway"}]
PORT = [{"name": "c", "image": "i", "ports": [{"containerPort": 80, "hostPort": 8080}]}]
CLAIM = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]


def answer(plugin: str, spec: dict[str, Any], labels: dict[str, str] | None = None,
           others: tuple[dict, ...] = (), nominated: dict | None = None) -> str:
    h = Preemption([plugin], [node("node1"), *others])
    if nominated is not None:
        h.framework.handle.nominator.add(h.pod(nominated), "node1")
    p = h.pod(pod("p", priority=HIGH, labels=labels, **spec))
    state = h.pre_filter(p)
    instance = next(s.function.__self__ for s in h.framework.tables["ruleset_filter"]
                    if s.plugin == plugin)
    return instance.other_pods(state, p)


@pytest.mark.parametrize(("plugin", "spec", "others", "nominated", "expected"), [
    ("NodeResourcesFit", {}, (), None, OTHER_PODS_AS_RESOURCES),
    ("NodeAffinity", {}, (), None, OTHER_PODS_IGNORED),
    ("TaintToleration", {}, (), None, OTHER_PODS_IGNORED),
    ("NodeName", {}, (), None, OTHER_PODS_IGNORED),
    ("NodeUnschedulable", {}, (), None, OTHER_PODS_IGNORED),
    ("NodePorts", {}, (), None, OTHER_PODS_IGNORED),
    ("NodePorts", {"containers": PORT}, (), None, OTHER_PODS_ANY),
    ("InterPodAffinity", {}, (), None, OTHER_PODS_IGNORED),
    ("InterPodAffinity", {"affinity": ANTI}, (), None, OTHER_PODS_ANY),
    ("InterPodAffinity", {}, (pod("db", "node1", LOW, labels={"app": "x"}, affinity=ANTI),), None,
     OTHER_PODS_ANY),
    ("InterPodAffinity", {}, (), pod("n", priority=HIGH, affinity=ANTI), OTHER_PODS_ANY),
    ("PodTopologySpread", {"topology_spread_constraints": SOFT_SPREAD}, (), None, OTHER_PODS_IGNORED),
    ("PodTopologySpread", {"topology_spread_constraints": SPREAD}, (), None, OTHER_PODS_ANY),
    ("VolumeRestrictions", {}, (), None, OTHER_PODS_IGNORED),
    ("VolumeRestrictions", {"volumes": CLAIM}, (), None, OTHER_PODS_ANY),
], ids=["fit", "node-affinity", "taints", "node-name", "unschedulable", "ports-none", "ports-host-port",
        "ipa-none", "ipa-own-anti-affinity", "ipa-existing-anti-affinity-matches", "ipa-nominated-anti-affinity",
        "spread-soft", "spread-hard", "volume-restrictions-none", "volume-restrictions-claim"])
def test_builtin_answers(plugin, spec, others, nominated, expected):
    labels = {"app": "db"} if plugin == "InterPodAffinity" else {"app": "web"}
    assert answer(plugin, spec, labels, others, nominated) == expected


class Opaque(Plugin):
    """A third-party Filter that says nothing about other pods."""

    name = "Opaque"

    @hookimpl
    def ruleset_filter(self, nodes: Any) -> None:
        return None


def test_a_plugin_that_says_nothing_keeps_every_what_if_on_the_reference_path(monkeypatch):
    from ruleset.plugins import default_preemption_bulk as bulk
    from tests.factories import framework_for, registry_with

    h = Preemption([FIT], [node("node1", {"cpu": "4", "memory": "4Gi"}), pod("low", "node1", LOW, {"cpu": "4"})])
    p = h.pod(pod("p", priority=HIGH, requests={"cpu": "1"}))
    assert h.framework.what_if_steps(h.pre_filter(p), p) is not None
    opaque = framework_for([FIT, "Opaque", ("DefaultPreemption", {})], registry_with(Opaque),
                           snapshot=h.snapshot)
    h.framework = opaque
    h.plugin = opaque.plugins["DefaultPreemption"]  # type: ignore[assignment]
    assert opaque.what_if_steps(h.pre_filter(p), p) is None
    monkeypatch.setattr(bulk, "walk", lambda *a, **k: pytest.fail("bulk path taken"))
    assert [c.node for c in h.dry_run(p)] == ["node1"]


def test_node_columns_apply_the_delta_wrapping_as_int64():
    state = build_cluster([make_node("a", cpu="2"), make_node("b", cpu="2"),
                           make_pod("x", node_name="a", containers=[container({"cpu": "500m", "memory": "1Mi"})])])
    snapshot = state.snapshot
    nodes = np.array([1, 0])
    columns = NodeColumns(snapshot, nodes, {"cpu": np.array([7, -500]), "memory": np.array([0, 2**63 - 1])},
                          np.array([2, -1]))
    assert columns.requested("cpu").tolist() == [7, 0]
    assert columns.requested("memory").tolist() == [0, 2**20 + 2**63 - 1 - 2**64]
    assert columns.pod_count.tolist() == [2, 0]
    assert columns.allocatable("cpu").tolist() == [2000, 2000]
    assert columns.subset(np.array([False, True])).requested("cpu").tolist() == [0]


def _room_by_hand(nominator: Nominator, snapshot: Any, pod: Any) -> tuple[list[bool], dict[str, list[int]]]:
    mask, sums = [], {"cpu": [], "memory": []}
    for name in snapshot.node_names:
        pods = nominator.pods_for(pod, name)
        mask.append(bool(pods))
        for resource in sums:
            sums[resource].append(sum(p.requests.get(resource, 0) for p in pods) if pods else 0)
    return mask, sums


@pytest.mark.parametrize("seed", range(6))
def test_nominated_room_equals_summing_pods_for_each_node(seed):
    """Random nominations and withdrawals (more than the log keeps, for some seeds), pods of every
    priority including the asking pod itself: the kept sums answer as pods_for does."""
    rng = random.Random(seed)
    state = build_cluster([make_node(f"n{i}") for i in range(8)])
    snapshot = state.snapshot
    nominator = Nominator()
    pods = [decode(make_pod(f"p{k}", priority=rng.choice([1, 5, 9]),
                            containers=[container({"cpu": f"{rng.randrange(1, 900)}m",
                                                   "memory": f"{rng.randrange(1, 90)}Mi"})]))
            for k in range(30)]
    for p in pods:
        p.priority = p.spec_priority or 0
    steps = rng.choice([40, 3000])
    for step in range(steps):
        p = rng.choice(pods)
        if rng.random() < 0.6:
            nominator.add(p, f"n{rng.randrange(8)}")
        else:
            nominator.delete(p)
        if step % 97 == 0 or step == steps - 1:
            for asking in rng.sample(pods, 4):
                room = NominatedRoom(snapshot, nominator, asking)
                mask, sums = _room_by_hand(nominator, snapshot, asking)
                assert room.mask.tolist() == mask
                delta, count = room.delta(np.arange(8))
                assert {r: delta.get(r, np.zeros(8)).tolist() for r in sums} == sums
                assert count.tolist() == [len(nominator.pods_for(asking, n)) for n in snapshot.node_names]
                assert sorted(nominator.nodes_for(asking)) == sorted(
                    n for n in snapshot.node_names if nominator.pods_for(asking, n))


def test_pod_table_order_follows_each_node_list_through_what_if_blocks():
    rng = random.Random(3)
    state = build_cluster([make_node(f"n{i}") for i in range(3)]
                          + [make_pod(f"p{k}", node_name=f"n{k % 3}") for k in range(12)])
    snapshot = state.snapshot
    for _ in range(30):
        with snapshot.what_if():
            for _ in range(4):
                victim = rng.choice([p for i in range(3) for p in snapshot.pods_on(i)])
                where = snapshot.remove_pod(victim)
                if rng.random() < 0.7:
                    snapshot.add_pod(victim, rng.choice([where, rng.randrange(3)]))
        table = snapshot.pod_table
        for i in range(3):
            rows = [table.row_of[p] for p in snapshot.pods_on(i)]
            assert table.seq[rows].tolist() == sorted(table.seq[rows].tolist())


def test_reference_path_switch(monkeypatch):
    assert fast_paths()
    with reference_path():
        assert not fast_paths()
        with reference_path(False):
            assert fast_paths()
        assert not fast_paths()
    assert fast_paths()
    assert dependence.REFERENCE_ENV == "RULESET_REFERENCE_PATH"


def _fit_on_random_nodes(rng: random.Random, nodes: int, pods: int, version: str) -> tuple[Any, Any]:
    """A snapshot of ``nodes`` random nodes running ``pods`` pods, and NodeResourcesFit over it."""
    from ruleset.config import PluginConfig, Profile
    from ruleset.framework.plugin import Handle
    from ruleset.framework.runtime import Framework
    from ruleset.pluginmanager import load_registry

    made = [make_node(f"n{i}", cpu=rng.choice(["1", "2", "4"]), memory=rng.choice(["1Gi", "4Gi"]),
                      pods=rng.choice(["2", "3", "110"])) for i in range(nodes)]
    running = [make_pod(f"r{k}", node_name=f"n{rng.randrange(nodes)}",
                        containers=[container({"cpu": rng.choice(["100m", "900m"]), "memory": "256Mi"})])
               for k in range(pods)]
    snapshot = build_cluster([*made, *running]).snapshot
    framework = Framework(Profile(name="t", plugins=[PluginConfig(name="NodeResourcesFit")],
                                  kubernetes_version=version), load_registry(), Handle(snapshot))
    return snapshot, framework.plugins["NodeResourcesFit"]


@pytest.mark.parametrize("version", ["1.20", "1.34"])  # 1.34: some failures UnschedulableAndUnresolvable
@pytest.mark.parametrize("seed", range(6))
def test_fit_passes_with_columns_is_filter_with_columns_passing(seed: int, version: str) -> None:
    """NodeResourcesFit's ``passes_with_columns`` (used where only pass or fail is asked) says a
    node passes exactly where ``filter_with_columns`` gives it Success, deltas wrapping included."""
    from ruleset.framework.cycle_state import CycleState
    from ruleset.snapshot import NodeSet

    rng = random.Random(seed)
    snapshot, fit = _fit_on_random_nodes(rng, 12, 20, version)
    indices = np.array(rng.sample(range(12), 9))
    for _ in range(10):
        p = decode(make_pod("p", containers=[container({"cpu": rng.choice(["500m", "1", "3"]),
                                                         "memory": rng.choice(["512Mi", "2Gi", "8Gi"])})]))
        state = CycleState()
        fit.ruleset_pre_filter(state, p, snapshot)
        delta = {"cpu": np.array([rng.choice([-900, 0, 500, 2**63 - 1]) for _ in indices]),
                 "memory": np.array([rng.choice([-2**28, 0, 2**30]) for _ in indices])}
        columns = NodeColumns(snapshot, indices, delta, np.array([rng.choice([-1, 0, 1]) for _ in indices]))
        result = fit.filter_with_columns(state, p, NodeSet(snapshot, indices), columns)
        expected = [True] * len(indices) if result is None else (result.codes == 0).tolist()
        assert fit.passes_with_columns(state, p, NodeSet(snapshot, indices), columns).tolist() == expected
    assert fit.passes_with_columns(CycleState(), p, NodeSet(snapshot, indices), columns).tolist() == [False] * 9


class BrokenPasses(Plugin):
    """Reads other pods as resources, and answers pass-or-fail questions with a list."""

    name = "BrokenPasses"

    def other_pods(self, state: Any, pod: Any) -> str:
        return OTHER_PODS_AS_RESOURCES

    @hookimpl
    def ruleset_filter(self, nodes: Any) -> None:
        return None

    def filter_with_columns(self, state: Any, pod: Any, nodes: Any, columns: Any) -> None:
        return None

    def passes_with_columns(self, state: Any, pod: Any, nodes: Any, columns: Any) -> list[bool]:
        return [True] * len(nodes)


def test_a_malformed_passes_with_columns_is_the_plugins_fault() -> None:
    from ruleset.framework.cycle_state import CycleState
    from tests.factories import framework_for, registry_with

    snapshot = build_cluster([make_node("a"), make_node("b")]).snapshot
    framework = framework_for(["BrokenPasses"], registry_with(BrokenPasses), snapshot=snapshot)
    p = decode(make_pod("p"))
    state = CycleState()
    steps = framework.what_if_steps(state, p)
    assert steps is not None and steps[0].passes is not None
    nodes = np.array([0, 1])
    passing, failed = framework.filter_what_if(state, p, steps, snapshot, nodes, NodeColumns(snapshot, nodes),
                                               with_reasons=False)
    assert passing.tolist() == [False, False]
    assert (failed[0].fault, failed[0].plugin, failed[0].reasons) == (
        True, "BrokenPasses", ('running "BrokenPasses" filter plugin for pod "p": passes_with_columns returned '
                               "[True, True], not one bool per node (2)",))
    # With reasons asked for, filter_with_columns answers (every node passes).
    assert framework.filter_what_if(state, p, steps, snapshot, nodes, NodeColumns(snapshot, nodes))[0].tolist() \
        == [True, True]


@pytest.mark.parametrize("seed", range(8))
def test_fit_room_with_columns_agrees_with_passes(seed: int) -> None:
    """A node passes NodeResourcesFit with ``added`` more requested (and ``k`` more pods) exactly
    when every added amount stays within ``room_with_columns``' room; huge sums decline (None)."""
    from ruleset import ROOM_PODS
    from ruleset.framework.cycle_state import CycleState
    from ruleset.snapshot import NodeSet

    rng = random.Random(seed)
    snapshot, fit = _fit_on_random_nodes(rng, 10, 15, "1.34")
    indices = np.arange(10)
    p = decode(make_pod("p", containers=[container({"cpu": "1", "memory": "1Gi"})]))
    state = CycleState()
    fit.ruleset_pre_filter(state, p, snapshot)
    base = NodeColumns(snapshot, indices, {"cpu": np.array([-rng.choice([0, 900]) for _ in indices])},
                       np.zeros(10, dtype=np.int64))
    rooms = fit.room_with_columns(state, p, NodeSet(snapshot, indices), base)
    # (from 1.28 a resource asked at 0, here ephemeral-storage, is not checked)
    assert rooms is not None and set(rooms) == {ROOM_PODS, "cpu", "memory"}
    for _ in range(20):
        added = {"cpu": np.array([rng.choice([0, 100, 900, 2000]) for _ in indices]),
                 "memory": np.array([rng.choice([0, 2**28, 2**31]) for _ in indices])}
        more = np.array([rng.choice([0, 1, 2]) for _ in indices])
        after = NodeColumns(snapshot, indices, {"cpu": base.requested("cpu") - snapshot.requested("cpu")
                                                + added["cpu"], "memory": added["memory"]}, more)
        expected = fit.passes_with_columns(state, p, NodeSet(snapshot, indices), after).tolist()
        within = ((added["cpu"] <= rooms["cpu"]) & (added["memory"] <= rooms["memory"])
                  & (more <= rooms[ROOM_PODS]))
        assert within.tolist() == expected
    huge = NodeColumns(snapshot, indices, {"memory": np.full(10, 2**62)}, np.zeros(10, dtype=np.int64))
    assert fit.room_with_columns(state, p, NodeSet(snapshot, indices), huge) is None


@pytest.mark.parametrize(("answer", "expected"), [
    (RuntimeError("no room"), None),
    ({"cpu": [1, 2]}, None),                                    # not an int64 array
    ({"cpu": np.array([1, 2, 3])}, None),                       # not one per node
    ("cpu", None),                                              # not a mapping
    ({"cpu": np.array([5, 6]), ":pods": np.array([1, 0])}, {"cpu": [5, 6], ":pods": [1, 0]}),
], ids=["raises", "list", "length", "not-a-dict", "well-formed"])
def test_room_what_if_declines_what_it_cannot_use(answer: Any, expected: Any) -> None:
    from ruleset.framework.cycle_state import CycleState
    from tests.factories import framework_for, registry_with

    class Room(BrokenPasses):
        name = "Room"

        def room_with_columns(self, state: Any, pod: Any, nodes: Any, columns: Any) -> Any:
            if isinstance(answer, Exception):
                raise answer
            return answer

    snapshot = build_cluster([make_node("a"), make_node("b")]).snapshot
    framework = framework_for(["Room"], registry_with(Room), snapshot=snapshot)
    p = decode(make_pod("p"))
    state = CycleState()
    steps = framework.what_if_steps(state, p)
    assert steps is not None
    nodes = np.array([0, 1])
    rooms = framework.room_what_if(state, p, steps, snapshot, nodes, NodeColumns(snapshot, nodes))
    assert (None if rooms is None else {k: v.tolist() for k, v in rooms.items()}) == expected
