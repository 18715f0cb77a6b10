"""PodTopologySpread and InterPodAffinity after v1.20 (issue 13, rows 11 and 12): each switch
shows the same input giving the 1.20 answer before its release and the new answer from it
(and at 1.34).

Cases are ruleset's own, computed by hand from upstream's code at the releases named by the
switches (``podtopologyspread/scoring.go`` and ``common.go``, ``interpodaffinity/scoring.go``);
upstream's minDomains and node-inclusion-policy cases (filtering_test.go, scoring_test.go) are
ported in test_pod_topology_spread_v134.py, namespaceSelector in
test_inter_pod_affinity_namespace_selector.py. The matchLabelKeys case stands in for the
pod field ``matchLabelKeys`` (not decoded by ``api/pod.py`` yet) with a constraint object that
carries it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.scheduler import Scheduler
from tests.factories import Harness, decode, make_node, make_object, make_pod

HOST = "kubernetes.io/hostname"


class VersionHarness(Harness):
    """A Harness whose profile targets ``version`` (with ``gates`` overriding its defaults)."""

    def __init__(self, plugin: str, args: Mapping[str, Any], objects: Iterable[dict], version: str,
                 gates: Mapping[str, bool] | None = None):
        super().__init__([(plugin, dict(args))], objects)
        profile = Profile(name="test", plugins=[PluginConfig(name=plugin, args=dict(args))],
                          percentage_of_nodes_to_score=100, kubernetes_version=version,
                          feature_gates=dict(gates or {}))
        self.framework = Framework(profile, load_registry(), Handle(self.snapshot))
        self.scheduler = Scheduler(self.framework, seed=0)


def host(name: str) -> dict:
    return make_node(name, {HOST: name})


# -------------------------------------------------------------------------- PodTopologySpread

def no_zone_cluster() -> list[dict]:
    rs = make_object("ReplicaSet", "rs", api_version="apps/v1",
                     spec={"selector": {"matchLabels": {"foo": ""}}})
    return [host("node-a"), host("node-b"), rs,
            make_pod("p1", labels={"foo": ""}, node_name="node-a"),
            make_pod("p2", labels={"foo": ""}, node_name="node-a")]


@pytest.mark.parametrize("version, want", [
    ("1.20", {"node-a": 0, "node-b": 0}),    # every node lacks the zone key: all ignored
    ("1.22", {"node-a": 0, "node-b": 0}),
    # hostname only: a = 2*log(4)+2 = 4.77 -> 4 (truncated), b = 2; 100*(4+2-s)/4
    ("1.23", {"node-a": 50, "node-b": 100}),
    # from 1.24 rounded: a = 5; 100*(5+2-s)/5
    ("1.24", {"node-a": 40, "node-b": 100}),
    ("1.34", {"node-a": 40, "node-b": 100}),
])
def test_system_defaults_score_nodes_without_zone_and_rounding(version: str, want: dict[str, int]) -> None:
    h = VersionHarness("PodTopologySpread", {}, no_zone_cluster(), version)
    assert h.score(make_pod("in", labels={"foo": ""})) == want


@pytest.mark.parametrize("version, want", [
    ("1.20", {"node-a": 100, "node-b": 100}),  # empty state: max 0 -> every node 100
    ("1.27", {"node-a": 100, "node-b": 100}),  # the framework could skip; the plugin does not yet
    ("1.28", None),                            # PreScore Skip: not scored, absent from the scores
    ("1.34", None),
])
def test_pre_score_skip_without_soft_constraints(version: str, want: dict[str, int] | None) -> None:
    h = VersionHarness("PodTopologySpread", {"defaultingType": "List"}, [host("node-a"), host("node-b")],
                       version)
    pod = make_pod("in", labels={"foo": ""})
    result = h.run(pod)
    assert result.scores is not None
    skipped = "PodTopologySpread" in result.scores.skipped
    assert skipped == (want is None)
    assert ("PodTopologySpread" in result.scores.plugins) == (want is not None)
    if want is not None:
        assert h.score(pod) == want


@pytest.mark.parametrize("version, skipped", [("1.27", False), ("1.28", True), ("1.34", True)])
def test_pre_score_skip_only_without_soft_constraints(version: str, skipped: bool) -> None:
    """A pod with only DoNotSchedule constraints is skipped from 1.28; one with a ScheduleAnyway
    constraint is scored at every release."""
    h = VersionHarness("PodTopologySpread", {"defaultingType": "List"}, [host("node-a"), host("node-b")],
                       version)
    hard = {"maxSkew": 1, "topologyKey": HOST, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"foo": ""}}}
    soft = {**hard, "whenUnsatisfiable": "ScheduleAnyway"}
    result = h.run(make_pod("in", labels={"foo": ""}, topology_spread_constraints=[hard]))
    assert result.scores is not None
    assert ("PodTopologySpread" in result.scores.skipped) == skipped
    result = h.run(make_pod("in", labels={"foo": ""}, topology_spread_constraints=[soft]))
    assert result.scores is not None and result.scores.skipped == []
    assert h.score(make_pod("in", labels={"foo": ""}, topology_spread_constraints=[soft])) == {
        "node-a": 100, "node-b": 100}


def hard_spread(selector: dict | None) -> dict:
    out: dict[str, Any] = {"maxSkew": 1, "topologyKey": HOST, "whenUnsatisfiable": "DoNotSchedule"}
    if selector is not None:
        out["labelSelector"] = selector
    return out


SKEWED = [host("node-a"), host("node-b"),
          make_pod("p1", labels={"app": "web", "rev": "1"}, node_name="node-a"),
          make_pod("p2", labels={"app": "web", "rev": "1"}, node_name="node-a")]
PASS = {"node-a": ("Success", ()), "node-b": ("Success", ())}
SKEW_FAILS = {"node-a": ("Unschedulable", ("node(s) didn't match pod topology spread constraints",)),
              "node-b": ("Success", ())}


@pytest.mark.parametrize("version, want", [
    ("1.20", SKEW_FAILS),  # {} matches the two pods on node-a: skew 2+1-0 > 1
    ("1.26", SKEW_FAILS),
    ("1.27", PASS),        # countPodsMatchSelector counts nothing for {} (upstream bug, kept)
    ("1.34", PASS),
])
def test_empty_selector_counts_nothing(version: str, want: dict) -> None:
    h = VersionHarness("PodTopologySpread", {}, SKEWED, version)
    incoming = make_pod("in", labels={"app": "web", "rev": "2"}, topology_spread_constraints=[hard_spread({})])
    assert h.filter(incoming) == want


@pytest.mark.parametrize("version, gates, want", [
    ("1.20", {}, SKEW_FAILS),   # app=web only: both rev=1 pods count
    ("1.24", {}, SKEW_FAILS),
    ("1.26", {"MatchLabelKeysInPodTopologySpread": True}, PASS),  # alpha, enabled
    ("1.27", {}, PASS),         # beta, on: app=web,rev=2 matches none of them
    ("1.34", {}, PASS),
    ("1.34", {"MatchLabelKeysInPodTopologySpread": False}, SKEW_FAILS),
])
def test_match_label_keys(version: str, gates: dict[str, bool], want: dict) -> None:
    h = VersionHarness("PodTopologySpread", {}, SKEWED, version, gates)
    incoming = decode(make_pod("in", labels={"app": "web", "rev": "2"},
                               topology_spread_constraints=[hard_spread({"matchLabels": {"app": "web"}})]))
    plain = incoming.topology_spread_constraints[0]
    incoming.topology_spread_constraints = (dataclasses.replace(plain, match_label_keys=("rev", "missing")),)
    assert h.filter(incoming) == want


# --------------------------------------------------------------------------- InterPodAffinity

def affinity_cluster() -> list[dict]:
    objects = [host("node-a"), host("node-b"), host("node-c")]
    for node, count in (("node-a", 1), ("node-b", 2), ("node-c", 3)):
        objects += [make_pod(f"{node}-{i}", labels={"app": "x"}, node_name=node) for i in range(count)]
    return objects


PREFERRED = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": HOST}}]}}


@pytest.mark.parametrize("version, want", [
    # raw 10, 20, 30; 1.20: int64(100*(s-0)/(30-0))
    ("1.20", {"node-a": 33, "node-b": 66, "node-c": 100}),
    # 1.21: between the true min 10 and max 30
    ("1.21", {"node-a": 0, "node-b": 50, "node-c": 100}),
    ("1.34", {"node-a": 0, "node-b": 50, "node-c": 100}),
])
def test_inter_pod_affinity_normalizes_over_true_min_max(version: str, want: dict[str, int]) -> None:
    h = VersionHarness("InterPodAffinity", {}, affinity_cluster(), version)
    assert h.score(make_pod("in", affinity=PREFERRED)) == want


NEGATIVE = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": HOST}}]}}


@pytest.mark.parametrize("version, want", [
    # raw -10, -20, -30; 1.20: max anchored at 0: 100*(s+30)/30
    ("1.20", {"node-a": 66, "node-b": 33, "node-c": 0}),
    # 1.21: max is the true -10
    ("1.34", {"node-a": 100, "node-b": 50, "node-c": 0}),
])
def test_inter_pod_affinity_negative_scores(version: str, want: dict[str, int]) -> None:
    h = VersionHarness("InterPodAffinity", {}, affinity_cluster(), version)
    assert h.score(make_pod("in", affinity=NEGATIVE)) == want
