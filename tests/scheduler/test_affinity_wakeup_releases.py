"""Waking parked pods when a pod lands: ``satisfies_required_affinity`` per release.

v1.20's queue (``scheduling_queue.go: getUnschedulablePodsWithMatchingAffinityTerm``) retries a
parked pod when the placed pod matches one of its required pod affinity terms, read with the
term's namespaces only. From 1.21 (PodAffinityNamespaceSelector: alpha 1.21, on from 1.22) the
terms are ``framework.AffinityTerm``s, which read ``namespaceSelector`` too (a ruleset namespace's
only label being ``kubernetes.io/metadata.name``); the loop passes
``target.has(NAMESPACE_SELECTOR)`` of the parked pod's profile. Cases are ruleset's own.
"""

from __future__ import annotations

from typing import Any

import pytest

from ruleset.api.affinity import NAMESPACE_SELECTOR, satisfies_required_affinity
from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.scheduler import schedule_all
from tests.factories import build_cluster, decode, make_node, make_pod

NAME_LABEL = "kubernetes.io/metadata.name"


def parked(namespace_selector: dict | None, namespaces: tuple[str, ...] = (), key: str = "app") -> Any:
    t: dict[str, Any] = {"labelSelector": {"matchLabels": {key: "db"}}, "topologyKey": "zone"}
    if namespace_selector is not None:
        t["namespaceSelector"] = namespace_selector
    if namespaces:
        t["namespaces"] = list(namespaces)
    return decode(make_pod("web", "ns1", {"app": "web"},
                           affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [t]}}))


def db(namespace: str) -> Any:
    return decode(make_pod("db", namespace, {"app": "db"}, node_name="n1"))


BY_NAME = {"matchLabels": {NAME_LABEL: "ns2"}}


@pytest.mark.parametrize(("selector", "namespaces", "placed_in", "at_120", "with_selector"), [
    pytest.param(BY_NAME, (), "ns2", False, True, id="selector picks the placed pod's namespace"),
    pytest.param(BY_NAME, (), "ns1", True, False, id="with a selector the own namespace is not implied"),
    pytest.param({}, (), "ns3", False, True, id="empty selector picks every namespace"),
    pytest.param({"matchLabels": {"team": "db"}}, (), "ns2", False, False, id="other labels pick none"),
    pytest.param(BY_NAME, ("ns3",), "ns3", True, True, id="namespaces still count"),
    pytest.param(BY_NAME, ("ns3",), "ns2", False, True, id="namespaces and selector are ORed"),
    pytest.param(None, (), "ns1", True, True, id="no selector: own namespace"),
    pytest.param(None, (), "ns2", False, False, id="no selector: other namespace"),
])
def test_namespace_selector(selector: dict | None, namespaces: tuple[str, ...], placed_in: str,
                            at_120: bool, with_selector: bool) -> None:
    pod, placed = parked(selector, namespaces), db(placed_in)
    assert satisfies_required_affinity(pod, placed) is at_120  # the default: v1.20
    assert satisfies_required_affinity(pod, placed, namespace_selector=False) is at_120
    assert satisfies_required_affinity(pod, placed, namespace_selector=True) is with_selector


def test_labels_must_match_too() -> None:
    pod = parked({}, key="tier")
    assert satisfies_required_affinity(pod, db("ns1"), namespace_selector=True) is False


def test_bad_selector_is_skipped() -> None:
    bad = {"matchExpressions": [{"key": NAME_LABEL, "operator": "In", "values": []}]}
    pod = parked(bad)
    assert satisfies_required_affinity(pod, db("ns1")) is True  # 1.20 never reads it
    assert satisfies_required_affinity(pod, db("ns1"), namespace_selector=True) is False


@pytest.mark.parametrize(("version", "gates", "want"), [
    (None, {}, False),
    ("1.21", {}, False),
    ("1.21", {"PodAffinityNamespaceSelector": True}, True),
    ("1.22", {}, True),
    ("1.23", {"PodAffinityNamespaceSelector": False}, False),
    ("1.34", {}, True),
])
def test_the_flag_the_loop_passes(version: str | None, gates: dict, want: bool) -> None:
    target = Profile(name="p", kubernetes_version=version, feature_gates=gates).target
    assert target.has(NAMESPACE_SELECTOR) is want


# --------------------------------------------------------------------------------------------
# Through the loop (needs ruleset/scheduler/loop.py: _worth_retrying to pass the flag)
# --------------------------------------------------------------------------------------------

SELECTOR_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
    "labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname",
    "namespaceSelector": BY_NAME}]}}


@pytest.mark.parametrize(("version", "web_events"), [
    # 1.20: web's term reads ns1 only; db (ns2) neither wakes nor satisfies it.
    (None, [("unschedulable", "ns1/web", None, 1)]),
    # 1.34: db landing in ns2 wakes web, which follows it.
    ("1.34", [("unschedulable", "ns1/web", None, 1), ("scheduled", "ns1/web", "n2", 2)]),
])
def test_a_placement_in_a_selected_namespace_wakes_the_parked_pod(version: str | None, web_events: list) -> None:
    state = build_cluster([
        make_node("n1", {"kubernetes.io/hostname": "n1"}),
        make_node("n2", {"kubernetes.io/hostname": "n2"}),
        # Higher priority, so it is tried first and parked: no db pod runs anywhere yet.
        make_pod("web", "ns1", {"app": "web"}, priority=10, affinity=SELECTOR_AFFINITY),
        make_pod("db", "ns2", {"app": "db"}, priority=1),
    ])
    profile = Profile(name="p", plugins=[PluginConfig(name="NodeResourcesFit"), PluginConfig(name="InterPodAffinity")],
                      percentage_of_nodes_to_score=100, kubernetes_version=version)
    run = schedule_all(Framework(profile, load_registry(), Handle(state.snapshot)), state)
    events = [(e.kind, e.pod, e.node, e.detail.get("attempt")) for e in run.events]
    assert [e for e in events if e[1] == "ns1/web"] == web_events
    assert ("scheduled", "ns2/db", "n2", 1) in events
