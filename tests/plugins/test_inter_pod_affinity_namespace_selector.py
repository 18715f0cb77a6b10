"""InterPodAffinity's ``namespaceSelector`` (PodAffinityNamespaceSelector: alpha 1.21, beta and on 1.22,
GA 1.24): the same input at 1.20 (the field unread: a term selects its pod's own namespace) and
from the release that reads it.

Cases are ruleset's own: upstream's (interpodaffinity filtering_test.go and scoring_test.go, 1.22+)
select namespaces by labels of Namespace objects (``team: team1``), which a ruleset cluster does
not hold; here a namespace's only label is ``kubernetes.io/metadata.name: <name>`` (what the API
server gives every namespace), so selectors pick namespaces by name, ``{}`` picks them all, and any
other label picks none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.scheduler import Scheduler
from tests.factories import Harness, make_node, make_pod

HOST = "kubernetes.io/hostname"
NAME_LABEL = "kubernetes.io/metadata.name"
S, UU, U = "Success", "UnschedulableAndUnresolvable", "Unschedulable"


class VersionHarness(Harness):
    """A Harness whose profile targets ``version`` (``gates`` override its defaults)."""

    def __init__(self, objects: Iterable[dict], version: str, gates: Mapping[str, bool] | None = None):
        super().__init__([("InterPodAffinity", {})], objects)
        profile = Profile(name="test", plugins=[PluginConfig(name="InterPodAffinity", args={})],
                          percentage_of_nodes_to_score=100, kubernetes_version=version,
                          feature_gates=dict(gates or {}))
        self.framework = Framework(profile, load_registry(), Handle(self.snapshot))
        self.scheduler = Scheduler(self.framework, seed=0)


def term(namespace_selector: dict | None, namespaces: tuple[str, ...] = ()) -> dict:
    out: dict[str, Any] = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": HOST}
    if namespace_selector is not None:
        out["namespaceSelector"] = namespace_selector
    if namespaces:
        out["namespaces"] = list(namespaces)
    return out


def cluster() -> list[dict]:
    return [make_node(n, {HOST: n}) for n in ("node-a", "node-b", "node-c")] + [
        make_pod("db-2", "ns2", {"app": "db"}, node_name="node-a"),
        make_pod("db-3", "ns3", {"app": "db"}, node_name="node-b"),
    ]


def required(t: dict) -> dict:
    return make_pod("in", "ns1", {"app": "web"},
                    affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [t]}})


def codes(h: Harness, pod: dict) -> dict[str, str]:
    return {name: code for name, (code, _) in h.filter(pod).items()}


NONE_FIT = {"node-a": UU, "node-b": UU, "node-c": UU}
A_FITS = {"node-a": S, "node-b": UU, "node-c": UU}
A_B_FIT = {"node-a": S, "node-b": S, "node-c": UU}
BY_NAME = {"matchLabels": {NAME_LABEL: "ns2"}}

CASES = [
    # 1.20: the term selects ns1 only, where no db pod runs
    pytest.param(term(BY_NAME), NONE_FIT, A_FITS, id="selector by name picks ns2"),
    pytest.param(term({}), NONE_FIT, A_B_FIT, id="empty selector picks every namespace"),
    pytest.param(term({"matchExpressions": [{"key": NAME_LABEL, "operator": "In", "values": ["ns3", "nsx"]}]}),
                 NONE_FIT, {"node-a": UU, "node-b": S, "node-c": UU}, id="In over names"),
    pytest.param(term({"matchLabels": {"team": "db"}}), NONE_FIT, NONE_FIT,
                 id="other namespace labels select nothing"),
    # 1.20 reads namespaces only: ns3
    pytest.param(term(BY_NAME, ("ns3",)), {"node-a": UU, "node-b": S, "node-c": UU}, A_B_FIT,
                 id="namespaces and selector are ORed"),
    # 1.20 with namespaces given: ns3 only
    pytest.param(term(None, ("ns3",)), {"node-a": UU, "node-b": S, "node-c": UU},
                 {"node-a": UU, "node-b": S, "node-c": UU}, id="no selector: unchanged"),
]


@pytest.mark.parametrize(("t", "at_120", "at_134"), CASES)
def test_required_affinity_namespace_selector(t: dict, at_120: dict, at_134: dict) -> None:
    assert codes(VersionHarness(cluster(), "1.34"), required(t)) == at_134
    assert codes(VersionHarness(cluster(), "1.20"), required(t)) == at_120


@pytest.mark.parametrize(("version", "gates", "want"), [
    ("1.20", {}, NONE_FIT),
    ("1.21", {}, NONE_FIT),                                         # alpha, off
    ("1.21", {"PodAffinityNamespaceSelector": True}, A_FITS),
    ("1.22", {}, A_FITS),                                           # beta, on
    ("1.23", {"PodAffinityNamespaceSelector": False}, NONE_FIT),
    ("1.34", {}, A_FITS),                                           # GA, gate removed in 1.26
])
def test_namespace_selector_release_and_gate(version: str, gates: dict, want: dict) -> None:
    assert codes(VersionHarness(cluster(), version, gates), required(term(BY_NAME))) == want


def test_existing_pods_anti_affinity_namespace_selector() -> None:
    # db-2 (ns2) refuses, on its node, web pods of namespace ns1 picked by its namespaceSelector.
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST,
         "namespaceSelector": {"matchLabels": {NAME_LABEL: "ns1"}}}]}}
    objects = [make_node(n, {HOST: n}) for n in ("node-a", "node-b")] + [
        make_pod("db-2", "ns2", {"app": "db"}, node_name="node-a", affinity=anti)]
    pod = make_pod("in", "ns1", {"app": "web"})
    assert codes(VersionHarness(objects, "1.20"), pod) == {"node-a": S, "node-b": S}
    assert codes(VersionHarness(objects, "1.34"), pod) == {"node-a": U, "node-b": S}


def test_preferred_affinity_namespace_selector() -> None:
    pod = make_pod("in", "ns1", {"app": "web"}, affinity={"podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": term({})}]}})
    # 1.20: no db pod in ns1, nothing counted: every node scores 0
    assert VersionHarness(cluster(), "1.20").score(pod) == {"node-a": 0, "node-b": 0, "node-c": 0}
    # 1.34: db-2 and db-3 count 10 each on their nodes; min 0 max 10
    assert VersionHarness(cluster(), "1.34").score(pod) == {"node-a": 100, "node-b": 100, "node-c": 0}
