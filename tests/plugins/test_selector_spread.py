"""Ported from ``pkg/scheduler/framework/plugins/selectorspread/selector_spread_test.go`` (v1.20).

* TestSelectorSpreadScore: 23 cases. The stored sources hold this table as it was just
  before v1.20 (``defaultpodtopologyspread``, 22 cases, "machines") and as it is today
  (``selectorspread``, 23 cases, "nodes"); the v1.20 file itself was not available. The
  port takes the 22 older names, machine1/machine2, plus the case the newer table adds
  with ``skipSelectorSpread`` ("Another statefulset with TopologySpreadConstraints set in
  pod"; v1.20's plugin already skips such pods). Cases 11-13 carry the newer table's
  second, non-matching controller (rc2/rs2/ss2 ``bar=foo``); it does not change the result.
* TestZoneSelectorSpreadPriority: 10 cases, each run with the zone in
  ``failure-domain.beta.kubernetes.io/zone`` (v1.20's test) and in
  ``topology.kubernetes.io/zone`` (later versions' test). Upstream v1.19/v1.20 lists
  "four pods, 3 matching (z1=1, z2=1, z3=1)" twice, the second time with the pods in
  another order; later versions replaced that duplicate with "five pods, 4 matching (z1=1,
  z2=2, z3=1)". Both are ported.

Adaptation, namespaces: upstream pods and objects without a namespace have namespace "",
and a pod in "" lists the Services, RCs, ReplicaSets and StatefulSets of *every* namespace
(``NamespaceAll``) while counting only pods whose namespace is exactly "". Here a missing
namespace reads as "default", so each case spells its namespaces out: upstream's "" is
"default" unless the case also uses "default" for something that must not match, in which
case the other one is renamed "other". Owner references are left out: v1.20's listers
select controllers by their selectors only.

The seed-000 walkthrough's four worked examples, the ``zoneWeighting`` arg, terminating
pods and the ``ServiceSpreading`` alias are ruleset's own checks.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import pytest

from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.plugins.selector_spread import ZONE_WEIGHTING, SelectorSpread
from ruleset.profile.loader import check_profile
from ruleset.scheduler import Scheduler
from tests.factories import Harness, build_cluster, decode, make_node, make_object, make_pod

LABELS1 = {"foo": "bar", "baz": "blah"}
LABELS2 = {"bar": "foo", "baz": "blah"}
MAX = 100


def svc(selector: Mapping[str, str] | None, namespace: str = "default", name: str = "s1") -> dict:
    spec = {} if selector is None else {"selector": dict(selector)}
    return make_object("Service", name, namespace, spec=spec)


def rc(selector: Mapping[str, str], name: str = "rc1", namespace: str = "default") -> dict:
    return make_object("ReplicationController", name, namespace, spec={"selector": dict(selector)})


def rs(match_labels: Mapping[str, str], name: str = "rs1", namespace: str = "default") -> dict:
    return make_object("ReplicaSet", name, namespace, api_version="apps/v1",
                       spec={"selector": {"matchLabels": dict(match_labels)}})


def ss(match_labels: Mapping[str, str], name: str = "ss1", namespace: str = "default") -> dict:
    return make_object("StatefulSet", name, namespace, api_version="apps/v1",
                       spec={"selector": {"matchLabels": dict(match_labels)}})


Placement = tuple[str, Mapping[str, str] | None] | tuple[str, Mapping[str, str] | None, str]


def pods_on(placements: Sequence[Placement]) -> list[dict]:
    """Assigned pods p0, p1, ... from (node, labels[, namespace])."""
    out = []
    for i, placement in enumerate(placements):
        node, labels = placement[0], placement[1]
        namespace = placement[2] if len(placement) > 2 else "default"
        out.append(make_pod(f"p{i}", namespace, labels, node_name=node))
    return out


def scores(pod: dict, nodes: Sequence[dict], objects: Sequence[dict], plugin: str = "SelectorSpread",
           args: Mapping | None = None) -> dict[str, int]:
    harness = Harness([(plugin, dict(args or {}))], [*nodes, *objects])
    return harness.score(pod, plugin)


# ---------------------------------------------------------------------------------------------------
# TestSelectorSpreadScore
# ---------------------------------------------------------------------------------------------------

TWO = ("machine1", "machine2")
TSC = [{"maxSkew": 1, "topologyKey": "foo", "whenUnsatisfiable": "DoNotSchedule"}]

SPREAD_CASES = [
    pytest.param(make_pod("pod"), [], [], {"machine1": MAX, "machine2": MAX}, id="nothing scheduled"),
    pytest.param(make_pod("pod", labels=LABELS1), pods_on([("machine1", None)]), [],
                 {"machine1": MAX, "machine2": MAX}, id="no services"),
    pytest.param(make_pod("pod", labels=LABELS1), pods_on([("machine1", LABELS2)]), [svc({"key": "value"})],
                 {"machine1": MAX, "machine2": MAX}, id="different services"),
    pytest.param(make_pod("pod", labels=LABELS1), pods_on([("machine1", LABELS2), ("machine2", LABELS1)]),
                 [svc(LABELS1)], {"machine1": MAX, "machine2": 0}, id="two pods, one service pod"),
    pytest.param(
        make_pod("pod", labels=LABELS1),
        pods_on([("machine1", LABELS2), ("machine1", LABELS1, "other"), ("machine1", LABELS1, "ns1"),
                 ("machine2", LABELS1), ("machine2", LABELS2)]),
        [svc(LABELS1)], {"machine1": MAX, "machine2": 0}, id="five pods, one service pod in no namespace"),
    pytest.param(
        make_pod("pod", labels=LABELS1),
        pods_on([("machine1", LABELS1, "other"), ("machine1", LABELS1, "ns1"), ("machine2", LABELS1),
                 ("machine2", LABELS2, "other")]),
        [svc(LABELS1)], {"machine1": MAX, "machine2": 0},
        id="four pods, one service pod in default namespace"),
    pytest.param(
        make_pod("pod", "ns1", LABELS1),
        pods_on([("machine1", LABELS1), ("machine1", LABELS1, "other"), ("machine1", LABELS1, "ns2"),
                 ("machine2", LABELS1, "ns1"), ("machine2", LABELS2)]),
        [svc(LABELS1, "ns1")], {"machine1": MAX, "machine2": 0},
        id="five pods, one service pod in specific namespace"),
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [svc(LABELS1)], {"machine1": 0, "machine2": 0},
                 id="three pods, two service pods on different machines"),
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1),
                          ("machine2", LABELS1)]),
                 [svc(LABELS1)], {"machine1": 50, "machine2": 0}, id="four pods, three service pods"),
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [svc({"baz": "blah"})], {"machine1": 0, "machine2": 50},
                 id="service with partial pod label matches"),
    # "baz=blah" matches both labels1 and labels2, and "foo=bar" matches only labels1: spread pod2 and pod3.
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [rc({"foo": "bar"}), rc({"bar": "foo"}, "rc2"), svc({"baz": "blah"})],
                 {"machine1": 0, "machine2": 0},
                 id="service with partial pod label matches with service and replication controller"),
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [svc({"baz": "blah"}), rs({"foo": "bar"}), rs({"bar": "foo"}, "rs2")],
                 {"machine1": 0, "machine2": 0},
                 id="service with partial pod label matches with service and replica set"),
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [svc({"baz": "blah"}), ss({"foo": "bar"}), ss({"bar": "foo"}, "ss2")],
                 {"machine1": 0, "machine2": 0},
                 id="service with partial pod label matches with service and stateful set"),
    # Taken together the Service and the controller match no pods.
    pytest.param(make_pod("pod", labels={"foo": "bar", "bar": "foo"}),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [rc({"foo": "bar"}), svc({"bar": "foo"})], {"machine1": MAX, "machine2": MAX},
                 id="disjoined service and replication controller matches no pods"),
    pytest.param(make_pod("pod", labels={"foo": "bar", "bar": "foo"}),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [svc({"bar": "foo"}), rs({"foo": "bar"})], {"machine1": MAX, "machine2": MAX},
                 id="disjoined service and replica set matches no pods"),
    pytest.param(make_pod("pod", labels={"foo": "bar", "bar": "foo"}),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [svc({"bar": "foo"}), ss({"foo": "bar"})], {"machine1": MAX, "machine2": MAX},
                 id="disjoined service and stateful set matches no pods"),
    # Both nodes have one pod of the controller, hence both score 0.
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [rc({"foo": "bar"})], {"machine1": 0, "machine2": 0},
                 id="Replication controller with partial pod label matches"),
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [rs({"foo": "bar"})], {"machine1": 0, "machine2": 0},
                 id="Replica set with partial pod label matches"),
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [ss({"foo": "bar"})], {"machine1": 0, "machine2": 0},
                 id="StatefulSet with partial pod label matches"),
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [rc({"baz": "blah"})], {"machine1": 0, "machine2": 50},
                 id="Another replication controller with partial pod label matches"),
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [rs({"baz": "blah"})], {"machine1": 0, "machine2": 50},
                 id="Another replication set with partial pod label matches"),
    pytest.param(make_pod("pod", labels=LABELS1),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [ss({"baz": "blah"})], {"machine1": 0, "machine2": 50},
                 id="Another stateful set with partial pod label matches"),
    pytest.param(make_pod("pod", labels=LABELS1, topology_spread_constraints=TSC),
                 pods_on([("machine1", LABELS2), ("machine1", LABELS1), ("machine2", LABELS1)]),
                 [ss({"baz": "blah"})], {"machine1": 0, "machine2": 0},
                 id="Another statefulset with TopologySpreadConstraints set in pod"),
]


@pytest.mark.parametrize(("pod", "pods", "objects", "expected"), SPREAD_CASES)
def test_selector_spread_score(pod: dict, pods: list[dict], objects: list[dict],
                               expected: dict[str, int]) -> None:
    nodes = [make_node(name) for name in TWO]
    assert scores(pod, nodes, [*pods, *objects]) == expected


# ---------------------------------------------------------------------------------------------------
# TestZoneSelectorSpreadPriority
# ---------------------------------------------------------------------------------------------------

ZL1 = {"label1": "l1", "baz": "blah"}
ZL2 = {"label2": "l2", "baz": "blah"}
M1Z1, M1Z2, M2Z2, M1Z3, M2Z3, M3Z3 = ("machine1.zone1", "machine1.zone2", "machine2.zone2", "machine1.zone3",
                                      "machine2.zone3", "machine3.zone3")
ZONE_OF = {M1Z1: "zone1", M1Z2: "zone2", M2Z2: "zone2", M1Z3: "zone3", M2Z3: "zone3", M3Z3: "zone3"}


def all_max() -> dict[str, int]:
    return dict.fromkeys(ZONE_OF, MAX)


ZONE_CASES = [
    pytest.param(make_pod("pod"), [], [], all_max(), id="nothing scheduled"),
    pytest.param(make_pod("pod", labels=ZL1), pods_on([(M1Z1, None)]), [], all_max(), id="no services"),
    pytest.param(make_pod("pod", labels=ZL1), pods_on([(M1Z1, ZL2)]), [svc({"key": "value"})], all_max(),
                 id="different services"),
    pytest.param(make_pod("pod", labels=ZL1), pods_on([(M1Z1, ZL2), (M1Z2, ZL2)]), [svc(ZL1)], all_max(),
                 id="two pods, 0 matching"),
    pytest.param(make_pod("pod", labels=ZL1), pods_on([(M1Z1, ZL2), (M1Z2, ZL1)]), [svc(ZL1)],
                 {M1Z1: MAX, M1Z2: 0, M2Z2: 33, M1Z3: MAX, M2Z3: MAX, M3Z3: MAX},
                 id="two pods, 1 matching (in z2)"),
    pytest.param(make_pod("pod", labels=ZL1),
                 pods_on([(M1Z1, ZL2), (M1Z2, ZL1), (M2Z2, ZL1), (M1Z3, ZL2), (M2Z3, ZL1)]), [svc(ZL1)],
                 {M1Z1: MAX, M1Z2: 0, M2Z2: 0, M1Z3: 66, M2Z3: 33, M3Z3: 66},
                 id="five pods, 3 matching (z2=2, z3=1)"),
    pytest.param(make_pod("pod", labels=ZL1),
                 pods_on([(M1Z1, ZL1), (M1Z2, ZL1), (M2Z2, ZL2), (M1Z3, ZL1)]), [svc(ZL1)],
                 {M1Z1: 0, M1Z2: 0, M2Z2: 33, M1Z3: 0, M2Z3: 33, M3Z3: 33},
                 id="four pods, 3 matching (z1=1, z2=1, z3=1)"),
    pytest.param(make_pod("pod", labels=ZL1),
                 pods_on([(M1Z1, ZL1), (M1Z2, ZL1), (M1Z3, ZL1), (M2Z2, ZL2)]), [svc(ZL1)],
                 {M1Z1: 0, M1Z2: 0, M2Z2: 33, M1Z3: 0, M2Z3: 33, M3Z3: 33},
                 id="four pods, 3 matching (z1=1, z2=1, z3=1), pods reordered (v1.20 duplicate)"),
    pytest.param(make_pod("pod", labels=ZL1),
                 pods_on([(M1Z1, ZL1), (M1Z2, ZL1), (M2Z2, ZL1), (M2Z2, ZL2), (M1Z3, ZL1)]), [svc(ZL1)],
                 {M1Z1: 33, M1Z2: 0, M2Z2: 0, M1Z3: 33, M2Z3: 66, M3Z3: 66},
                 id="five pods, 4 matching (z1=1, z2=2, z3=1)"),
    # Two pods on machine1.zone3 make the zone2 values questionable, but the ordering is right.
    pytest.param(make_pod("pod", labels=ZL1), pods_on([(M1Z3, ZL1), (M1Z2, ZL1), (M1Z3, ZL1)]), [rc(ZL1)],
                 {M1Z1: MAX, M1Z2: 50, M2Z2: 66, M1Z3: 0, M2Z3: 33, M3Z3: 33},
                 id="Replication controller spreading (z1=0, z2=1, z3=2)"),
]


ZONE_LABELS = ["failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"]


@pytest.mark.parametrize("zone_label", ZONE_LABELS)
@pytest.mark.parametrize(("pod", "pods", "objects", "expected"), ZONE_CASES)
def test_zone_selector_spread_priority(zone_label: str, pod: dict, pods: list[dict], objects: list[dict],
                                       expected: dict[str, int]) -> None:
    nodes = [make_node(name, {zone_label: zone}) for name, zone in ZONE_OF.items()]
    assert scores(pod, nodes, [*pods, *objects]) == expected


# ---------------------------------------------------------------------------------------------------
# The seed-000 walkthrough's examples
# ---------------------------------------------------------------------------------------------------

SEED_LABELS1 = {"foo": "bar", "baz": "blah"}
SEED_LABELS2 = {"bar": "foo", "baz": "blah"}
SEED_ZONES = {"n1": "z1", "n2": "z2", "n3": "z2", "n4": "z3", "n5": "z3", "n6": "z3"}


def test_seed_example_1_one_service_no_zones() -> None:
    nodes = [make_node("n1"), make_node("n2")]
    placed = [("n1", SEED_LABELS1), ("n1", SEED_LABELS2), ("n2", SEED_LABELS1), ("n2", SEED_LABELS1)]
    objects = [*pods_on(placed), svc(SEED_LABELS1)]
    pod = make_pod("pod", labels=SEED_LABELS1)
    harness = Harness(["SelectorSpread"], [*nodes, *objects])
    assert harness.score(pod, raw=True) == {"n1": 1, "n2": 2}
    assert harness.score(pod) == {"n1": 50, "n2": 0}


def test_seed_example_2_service_and_rc_selectors_intersect() -> None:
    nodes = [make_node("n1"), make_node("n2")]
    objects = [*pods_on([("n1", SEED_LABELS1), ("n1", SEED_LABELS2), ("n2", SEED_LABELS1)]),
               svc({"baz": "blah"}), rc({"foo": "bar"})]
    pod = make_pod("pod", labels=SEED_LABELS1)
    harness = Harness(["SelectorSpread"], [*nodes, *objects])
    assert harness.score(pod, raw=True) == {"n1": 1, "n2": 1}
    assert harness.score(pod) == {"n1": 0, "n2": 0}


@pytest.mark.parametrize(("placed", "raw", "expected"), [
    pytest.param([("n1", SEED_LABELS2), ("n2", SEED_LABELS1), ("n3", SEED_LABELS1), ("n4", SEED_LABELS2),
                  ("n5", SEED_LABELS1)],
                 {"n1": 0, "n2": 1, "n3": 1, "n4": 0, "n5": 1, "n6": 0},
                 {"n1": 100, "n2": 0, "n3": 0, "n4": 66, "n5": 33, "n6": 66}, id="example 3"),
    pytest.param([("n1", SEED_LABELS1), ("n2", SEED_LABELS1), ("n3", SEED_LABELS2), ("n4", SEED_LABELS1)],
                 {"n1": 1, "n2": 1, "n3": 0, "n4": 1, "n5": 0, "n6": 0},
                 {"n1": 0, "n2": 0, "n3": 33, "n4": 0, "n5": 33, "n6": 33}, id="example 4"),
])
def test_seed_examples_with_zones(placed: list, raw: dict[str, int], expected: dict[str, int]) -> None:
    nodes = [make_node(name, {"topology.kubernetes.io/zone": zone}) for name, zone in SEED_ZONES.items()]
    harness = Harness(["SelectorSpread"], [*nodes, *pods_on(placed), svc(SEED_LABELS1)])
    pod = make_pod("pod", labels=SEED_LABELS1)
    assert harness.score(pod, raw=True) == raw
    assert harness.score(pod) == expected


# ---------------------------------------------------------------------------------------------------
# ruleset's checks
# ---------------------------------------------------------------------------------------------------


def test_terminating_pods_are_not_counted() -> None:
    nodes = [make_node("n1"), make_node("n2")]
    objects = [make_pod("gone", labels=LABELS1, node_name="n1", deletion_timestamp="2024-01-01T00:00:00Z"),
               make_pod("live", labels=LABELS1, node_name="n2"), svc(LABELS1)]
    harness = Harness(["SelectorSpread"], [*nodes, *objects])
    assert harness.score(make_pod("pod", labels=LABELS1), raw=True) == {"n1": 0, "n2": 1}


def test_nodes_without_zone_keep_the_node_score_when_others_have_zones() -> None:
    """Only nodes with a zone key blend in the zone score; a zone-less node keeps its node score."""
    nodes = [make_node("a", {"topology.kubernetes.io/zone": "z1"}), make_node("b"), make_node("c")]
    objects = [*pods_on([("a", LABELS1), ("b", LABELS1), ("b", LABELS1)]), svc(LABELS1)]
    # counts a=1 b=2 c=0; node scores 50, 0, 100; zone z1 holds 1 = the max, so a's zone score is 0.
    assert scores(make_pod("pod", labels=LABELS1), nodes, objects) == {"a": 16, "b": 0, "c": 100}


def test_region_alone_is_a_zone_key() -> None:
    """``GetZoneKey`` is non-empty with only a region label, so such nodes take part in zone spreading."""
    nodes = [make_node("a", {"topology.kubernetes.io/region": "r1"}),
             make_node("b", {"topology.kubernetes.io/region": "r2"})]
    objects = [*pods_on([("a", LABELS1)]), svc(LABELS1)]
    assert scores(make_pod("pod", labels=LABELS1), nodes, objects) == {"a": 0, "b": 100}


@pytest.mark.parametrize(("weighting", "expected"), [
    pytest.param(0, {"n1": 100, "n2": 0, "n3": 0, "n4": 100, "n5": 0, "n6": 100}, id="0: nodes only"),
    pytest.param(1, {"n1": 100, "n2": 0, "n3": 0, "n4": 50, "n5": 50, "n6": 50}, id="1: zones only"),
    pytest.param(0.5, {"n1": 100, "n2": 0, "n3": 0, "n4": 75, "n5": 25, "n6": 75}, id="0.5"),
])
def test_zone_weighting_arg(weighting: float, expected: dict[str, int]) -> None:
    nodes = [make_node(name, {"topology.kubernetes.io/zone": zone}) for name, zone in SEED_ZONES.items()]
    placed = [("n1", SEED_LABELS2), ("n2", SEED_LABELS1), ("n3", SEED_LABELS1), ("n4", SEED_LABELS2),
              ("n5", SEED_LABELS1)]
    got = scores(make_pod("pod", labels=SEED_LABELS1), nodes, [*pods_on(placed), svc(SEED_LABELS1)],
                 args={"zoneWeighting": weighting})
    assert got == expected


def test_zone_weighting_default_is_the_float_two_thirds() -> None:
    args = SelectorSpread.parse_args({})
    assert args.zone_weighting == 2.0 / 3.0 == ZONE_WEIGHTING
    assert SelectorSpread.args_to_dict(args) == {"zoneWeighting": 2.0 / 3.0}
    assert SelectorSpread.args_schema["properties"]["zoneWeighting"]["default"] == 2.0 / 3.0


@pytest.mark.parametrize(("value", "message"), [
    (1.5, "zoneWeighting: Invalid value: 1.5: not in valid range [0, 1]"),
    (-0.25, "zoneWeighting: Invalid value: -0.25: not in valid range [0, 1]"),
    (2, "zoneWeighting: Invalid value: 2: not in valid range [0, 1]"),
    (1e6, "zoneWeighting: Invalid value: 1e+06: not in valid range [0, 1]"),
    (float("nan"), "zoneWeighting: Invalid value: NaN: not in valid range [0, 1]"),
    (float("inf"), "zoneWeighting: Invalid value: +Inf: not in valid range [0, 1]"),
])
def test_zone_weighting_out_of_range(value: float, message: str) -> None:
    errors = SelectorSpread.validate_args(SelectorSpread.parse_args({"zoneWeighting": value}))
    assert [(e.path, e.message) for e in errors] == [(("zoneWeighting",), message)]


@pytest.mark.parametrize("value", [0, 1, 0.0, 1.0, 0.25])
def test_zone_weighting_in_range(value: float) -> None:
    assert SelectorSpread.validate_args(SelectorSpread.parse_args({"zoneWeighting": value})) == []


def test_score_without_pre_score_state_is_an_error() -> None:
    state = build_cluster([make_node("n1"), svc(LABELS1)])
    pod = decode(make_pod("pod", labels=LABELS1), state)
    message = 'Error reading "PreScoreSelectorSpread" from cycleState: not found'
    with pytest.raises(LookupError, match=message):
        SelectorSpread().ruleset_score(CycleState(), pod, state.snapshot.all_nodes())


def test_service_spreading_alias_scores_like_selector_spread(tmp_path) -> None:
    """A profile naming the legacy ``ServiceSpreading`` gets SelectorSpread, with a deprecation warning."""
    nodes = [make_node(name, {"topology.kubernetes.io/zone": zone}) for name, zone in SEED_ZONES.items()]
    placed = [("n1", SEED_LABELS2), ("n2", SEED_LABELS1), ("n3", SEED_LABELS1), ("n4", SEED_LABELS2),
              ("n5", SEED_LABELS1)]
    cluster = [*nodes, *pods_on(placed), svc(SEED_LABELS1)]
    results = {}
    for name in ("SelectorSpread", "ServiceSpreading"):
        path = tmp_path / f"{name}.toml"
        path.write_text(textwrap.dedent(f"""\
            name = "spread"
            percentageOfNodesToScore = 100
            [plugins.{name}]
            """))
        profile, problems = check_profile(path)
        assert profile is not None
        assert [p for p in problems if p.severity == "error"] == []
        warnings = [(p.code, p.message) for p in problems if p.severity == "warning"]
        if name == "ServiceSpreading":
            message = "'ServiceSpreading' is a deprecated name for 'SelectorSpread'"
            assert warnings == [("deprecated-name", message)]
        else:
            assert warnings == []
        assert [c.name for c in profile.plugins] == ["SelectorSpread"]
        state = build_cluster(cluster)
        scheduler = Scheduler(Framework(profile, load_registry(), Handle(state.snapshot)))
        result = scheduler.schedule(decode(make_pod("pod", labels=SEED_LABELS1), state), always_score=True)
        assert result.scores is not None
        names = state.snapshot.node_names
        normalized = result.scores.normalized[0]
        results[name] = {names[int(n)]: int(normalized[i]) for i, n in enumerate(result.feasible)}
    assert results["ServiceSpreading"] == results["SelectorSpread"] == {
        "n1": 100, "n2": 0, "n3": 0, "n4": 66, "n5": 33, "n6": 66}
