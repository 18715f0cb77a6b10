"""InterPodAffinity at ``kubernetesVersion = "1.34"``: upstream's scoring and filtering tables.

**Scoring** — ``pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go`` as stored for
kubernetes/kubernetes at commit 030880a5dc5449403c6d1f0aa146a7dc21d6c6dc (the v1.34 layout: ``fwk``
statuses, ``IgnorePreferredTermsOfExistingPods``): ``TestPreferredAffinity`` and
``TestPreferredAffinityWithHardPodAffinitySymmetricWeight``. Upstream calls PreScore, Score and
NormalizeScore directly; here the pod goes through a profile of InterPodAffinity alone, and a
PreScore Skip is the plugin named in the score table's ``skipped`` (``None`` below).
Adapted: upstream's namespace ``""`` is ``default``; its Namespace objects carry ``team`` labels, a
ruleset namespace only ``kubernetes.io/metadata.name``, so ``namespaceSelector: team In [team1]``
is written as the equivalent ``kubernetes.io/metadata.name In [subteam1.team1, subteam2.team1]``
(the two namespaces upstream labels team1). Left out: "invalid Affinity/AntiAffinity fails PreScore"
(in a cycle PreFilter rejects the pod first; tests/plugins/test_inter_pod_affinity_score.py covers
parse errors), "No nodes to score" (the cycle does not score when nothing fits), "Ignore preferred
terms of existing pods" (the ``ignorePreferredTermsOfExistingPods`` arg, 1.27: ported with its twin in
tests/plugins/test_inter_pod_affinity_ignore_preferred.py; the ``false`` twin is also kept here).

**Filtering** — the stored ``filtering_test.go`` of kubernetes/kubernetes is an older revision
(commit 007f7ae7dc217d27dad994dce003cfe1c5bc6706, v1.18 era); its ``TestRequiredAffinitySingleNode``
cases are the ones v1.34 still runs, where a rejected node carries one reason since 1.22
(kubernetes#102518: ``InterPodAffinity.one-filter-reason``). The rejecting cases are ported with
both answers (two reasons at 1.20, one at 1.34); the accepting ones do not depend on a switch.
Not ported: PreFilter's Skip (1.27, kubernetes#114889) needs the framework to honour a PreFilter
Skip, which ruleset's runtime does not yet (reported to the lead).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories import make_node, make_pod
from tests.plugins.noderesources_kit import VersionHarness

NAME = "InterPodAffinity"
NS_LABEL = "kubernetes.io/metadata.name"
TEAM1 = {"matchExpressions": [{"key": NS_LABEL, "operator": "In", "values": ["subteam1.team1", "subteam2.team1"]}]}

CHINA, INDIA = {"region": "China"}, {"region": "India"}
AZ1, AZ2 = {"az": "az1"}, {"az": "az2"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
S1, S2 = {"security": "S1"}, {"security": "S2"}


def expr(key: str, op: str, *values: str) -> dict:
    out: dict[str, Any] = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def term(exprs: list[dict], key: str, namespaces: list[str] | None = None, ns_selector: dict | None = None) -> dict:
    out: dict[str, Any] = {"labelSelector": {"matchExpressions": exprs}, "topologyKey": key}
    if namespaces is not None:
        out["namespaces"] = namespaces
    if ns_selector is not None:
        out["namespaceSelector"] = ns_selector
    return out


def weighted(weight: int, t: dict) -> dict:
    return {"weight": weight, "podAffinityTerm": t}


def preferred(affinity: list[dict] = (), anti: list[dict] = ()) -> dict:  # type: ignore[assignment]
    out: dict[str, Any] = {}
    if affinity:
        out["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": list(affinity)}
    if anti:
        out["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": list(anti)}
    return out


STAY_S1_REGION = preferred([weighted(5, term([expr("security", "In", "S1")], "region"))])
STAY_S2_REGION = preferred([weighted(6, term([expr("security", "In", "S2")], "region"))])
AFFINITY3 = preferred([
    weighted(8, term([expr("security", "NotIn", "S1"), expr("security", "In", "S2")], "region")),
    weighted(2, term([expr("security", "Exists"), expr("wrongkey", "DoesNotExist")], "region"))])
HARD_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    term([expr("security", "In", "S1", "value2")], "region"),
    term([expr("security", "Exists"), expr("wrongkey", "DoesNotExist")], "region")]}}
AWAY_S1_AZ = preferred(anti=[weighted(5, term([expr("security", "In", "S1")], "az"))])
AWAY_S2_AZ = preferred(anti=[weighted(5, term([expr("security", "In", "S2")], "az"))])
STAY_S1_REGION_AWAY_S2_AZ = preferred([weighted(8, term([expr("security", "In", "S1")], "region"))],
                                      [weighted(5, term([expr("security", "In", "S2")], "az"))])
NS_SELECTOR_TERM = term([expr("security", "In", "S1")], "region", ["subteam2.team2"], TEAM1)
AFFINITY_NS_SELECTOR = preferred([weighted(5, NS_SELECTOR_TERM)])
ANTI_AFFINITY_NS_SELECTOR = preferred(anti=[weighted(5, NS_SELECTOR_TERM)])


def nodes(*labels: dict) -> list[dict]:
    return [make_node(f"node{i}", lab) for i, lab in enumerate(labels, start=1)]


def placed(*specs: tuple[str, dict | None, dict | None] | tuple[str, dict | None, dict | None, str]) -> list[dict]:
    """Existing pods from (node, labels, affinity[, namespace])."""
    out = []
    for i, spec in enumerate(specs):
        namespace = spec[3] if len(spec) > 3 else "default"
        out.append(make_pod(f"existing{i}", namespace, spec[1], node_name=spec[0], affinity=spec[2]))
    return out


def incoming(labels: dict | None, affinity: dict | None = None, namespace: str = "default") -> dict:
    return make_pod("incoming", namespace, labels, affinity=affinity)


def normalized(node_list: list[dict], existing: list[dict], pod: dict, version: str | None,
               hard_weight: int = 1) -> list[int] | None:
    """InterPodAffinity's normalized scores in node order; None when its PreScore returned Skip."""
    h = VersionHarness([(NAME, {"hardPodAffinityWeight": hard_weight})], [*node_list, *existing], version)
    result = h.run(pod)
    assert result.scores is not None
    if NAME in result.scores.skipped:
        return None
    got = h.score(pod, NAME)
    return [got[n["metadata"]["name"]] for n in node_list]


SKIP = None
PREFERRED_CASES = [
    pytest.param(nodes(CHINA, INDIA, AZ1), [], incoming(S1), SKIP,
                 id="all nodes are same priority as Affinity is nil"),
    pytest.param(nodes(CHINA, INDIA, AZ1),
                 placed(("node1", S1, None), ("node2", S2, None), ("node3", S1, None)),
                 incoming(S1, STAY_S1_REGION), [100, 0, 0],
                 id="Affinity: pod that matches topology key & pods in nodes will get high score"),
    pytest.param(nodes(CHINA, CHINA_AZ1, INDIA), placed(("node1", S1, None)), incoming(None, STAY_S1_REGION),
                 [100, 100, 0], id="nodes sharing a topology value with a matching pod score alike"),
    pytest.param(nodes(CHINA, INDIA, CHINA, CHINA, INDIA),
                 placed(("node1", S2, None), ("node1", S2, None), ("node2", S2, None), ("node3", S2, None),
                        ("node4", S2, None), ("node5", S2, None)),
                 incoming(S1, STAY_S2_REGION), [100, 0, 100, 100, 0],
                 id="Affinity: the region with more matches gets the high score"),
    pytest.param(nodes(CHINA, INDIA, AZ1),
                 placed(("node1", S1, None), ("node2", S2, None), ("node3", S1, None)),
                 incoming(S1, AFFINITY3), [20, 100, 0], id="Affinity: different label operators and values"),
    pytest.param(nodes(CHINA, INDIA, AZ1),
                 placed(("node1", S1, STAY_S1_REGION), ("node2", S2, STAY_S2_REGION)),
                 incoming(S2), [0, 100, 0], id="Affinity symmetry: preferred terms"),
    pytest.param(nodes(CHINA, INDIA, AZ1),
                 placed(("node1", S1, AFFINITY_NS_SELECTOR), ("node2", S2, STAY_S2_REGION)),
                 incoming(S1, namespace="subteam1.team1"), [100, 0, 0],
                 id="Affinity symmetry with namespace selector"),
    pytest.param(nodes(CHINA, INDIA, AZ1),
                 placed(("node1", S1, ANTI_AFFINITY_NS_SELECTOR), ("node2", S2, STAY_S2_REGION)),
                 incoming(S1, namespace="subteam1.team1"), [0, 100, 100],
                 id="AntiAffinity symmetry with namespace selector"),
    pytest.param(nodes(CHINA, INDIA, AZ1),
                 placed(("node1", S1, HARD_AFFINITY), ("node2", S2, HARD_AFFINITY)),
                 incoming(S1), [100, 100, 0], id="Affinity symmetry: required terms"),
    pytest.param(nodes(AZ1, CHINA), placed(("node1", S1, None), ("node2", S2, None)),
                 incoming(S1, AWAY_S1_AZ), [0, 100], id="Anti Affinity: pod not matching existing pods scores high"),
    pytest.param(nodes(AZ1, CHINA), placed(("node1", S1, None), ("node2", S1, None)),
                 incoming(S1, AWAY_S1_AZ), [0, 100], id="Anti Affinity: node without the topology key scores high"),
    pytest.param(nodes(AZ1, INDIA), placed(("node1", S1, None), ("node1", S1, None), ("node2", S2, None)),
                 incoming(S1, AWAY_S1_AZ), [0, 100], id="Anti Affinity: the node with more unmatches scores high"),
    pytest.param(nodes(AZ1, AZ2), placed(("node1", S1, AWAY_S2_AZ), ("node2", S2, AWAY_S1_AZ)),
                 incoming(S2), [0, 100], id="Anti Affinity symmetry"),
    pytest.param(nodes(CHINA, AZ1), placed(("node1", S1, None), ("node2", S1, None)),
                 incoming(S1, STAY_S1_REGION_AWAY_S2_AZ), [100, 0], id="Affinity and Anti Affinity: preferred"),
    pytest.param(nodes(CHINA_AZ1, INDIA, CHINA, CHINA, INDIA),
                 placed(("node1", S1, None), ("node1", S1, None), ("node2", S1, None), ("node3", S1, None),
                        ("node3", S1, None), ("node4", S1, None), ("node5", S1, None)),
                 incoming(S1, STAY_S1_REGION_AWAY_S2_AZ), [100, 0, 100, 100, 0],
                 id="Affinity and Anti Affinity: same labels as the existing pods"),
    pytest.param(nodes(CHINA, AZ1, INDIA, AZ2),
                 placed(("node1", S1, None), ("node2", S2, None), ("node3", None, STAY_S1_REGION_AWAY_S2_AZ),
                        ("node4", None, AWAY_S1_AZ)),
                 incoming(S1, STAY_S1_REGION_AWAY_S2_AZ), [100, 0, 100, 0],
                 id="Affinity and Anti Affinity and symmetry"),
    pytest.param(nodes(CHINA, CHINA), placed(("node1", S1, None), ("node2", None, STAY_S1_REGION_AWAY_S2_AZ)),
                 incoming(S1), [0, 0], id="Avoid panic when partial nodes in a topology don't have pods with affinity"),
    pytest.param(nodes(CHINA, INDIA),
                 placed(("node1", S1, None, "subteam1.team1"), ("node1", S1, None, "subteam1.team1"),
                        ("node1", S1, None, "subteam1.team2"), ("node2", S1, None, "subteam2.team1")),
                 incoming(S1, AFFINITY_NS_SELECTOR, "subteam1.team1"), [100, 0],
                 id="Affinity with pods matching NamespaceSelector"),
    pytest.param(nodes(CHINA, INDIA),
                 placed(("node1", S1, None, "subteam1.team1"), ("node1", S1, None, "subteam1.team1"),
                        ("node1", S1, None, "subteam2.team2"), ("node2", S1, None, "subteam2.team1")),
                 incoming(S1, AFFINITY_NS_SELECTOR, "subteam1.team1"), [100, 0],
                 id="Affinity with pods matching both NamespaceSelector and Namespaces fields"),
    pytest.param(nodes(CHINA, INDIA),
                 placed(("node1", S1, None, "subteam1.team1"), ("node1", S1, None, "subteam1.team1"),
                        ("node1", S1, None, "subteam1.team2"), ("node2", S1, None, "subteam2.team1")),
                 incoming(S1, ANTI_AFFINITY_NS_SELECTOR, "subteam1.team1"), [0, 100],
                 id="AntiAffinity with pods matching NamespaceSelector"),
    pytest.param(nodes(CHINA, INDIA),
                 placed(("node1", S1, None, "subteam1.team1"), ("node1", S1, None, "subteam1.team1"),
                        ("node1", S1, None, "subteam2.team2"), ("node2", S1, None, "subteam2.team1")),
                 incoming(S1, ANTI_AFFINITY_NS_SELECTOR, "subteam1.team1"), [0, 100],
                 id="AntiAffinity with pods matching both NamespaceSelector and Namespaces fields"),
    pytest.param(nodes(CHINA, INDIA),
                 placed(("node1", S1, STAY_S1_REGION_AWAY_S2_AZ), ("node2", S2, STAY_S2_REGION)),
                 incoming(S2), [0, 100], id="Do not ignore preferred terms of existing pods"),
]


@pytest.mark.parametrize(("node_list", "existing", "pod", "want"), PREFERRED_CASES)
def test_preferred_affinity_at_1_34(node_list: list, existing: list, pod: dict, want: list | None) -> None:
    assert normalized(node_list, existing, pod, "1.34") == want


SERVICE_S1 = {"service": "S1"}
HARD_POD_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    term([expr("service", "In", "S1")], "region", ["default", "subteam2.team2"], TEAM1)]}}
HARD_NODES = nodes(CHINA, INDIA, AZ1)
HARD_EXISTING = placed(("node1", None, HARD_POD_AFFINITY), ("node2", None, HARD_POD_AFFINITY))


@pytest.mark.parametrize(("namespace", "weight", "want"), [
    pytest.param("default", 1, [100, 100, 0], id="with default weight"),
    pytest.param("default", 0, SKIP, id="with zero weight"),
    pytest.param("subteam1.team2", 1, SKIP, id="with no matching namespace"),
    pytest.param("subteam1.team1", 1, [100, 100, 0], id="with matching NamespaceSelector"),
    pytest.param("subteam2.team2", 1, [100, 100, 0], id="with matching Namespaces"),
])
def test_hard_pod_affinity_symmetric_weight_at_1_34(namespace: str, weight: int, want: list | None) -> None:
    pod = incoming(SERVICE_S1, namespace=namespace)
    assert normalized(HARD_NODES, HARD_EXISTING, pod, "1.34", hard_weight=weight) == want


# --------------------------------------------------------------------------------------------
# The switches: the same input before and after
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("version", "want"), [
    (None, [0, 0, 0]),       # 1.20: scored, every node 0
    ("1.27", [0, 0, 0]),     # the framework takes Skip, the plugin does not return it yet
    ("1.28", SKIP),          # InterPodAffinity.prescore-skip
    ("1.34", SKIP),
])
def test_pre_score_skip_when_nothing_counted(version: str | None, want: list | None) -> None:
    assert normalized(nodes(CHINA, INDIA, AZ1), [], incoming(S1), version) == want


def test_pre_score_not_skipped_when_a_pair_nets_zero() -> None:
    # +5 and -5 at (region, China): the pair is in upstream's map, so PreScore does not Skip.
    both = preferred([weighted(5, term([expr("security", "In", "S1")], "region"))],
                     [weighted(5, term([expr("security", "In", "S1")], "region"))])
    assert normalized(nodes(CHINA, INDIA), placed(("node1", S1, None)), incoming(S1, both), "1.34") == [0, 0]


# --------------------------------------------------------------------------------------------
# Filtering: TestRequiredAffinitySingleNode's rejections, one reason from 1.22
# --------------------------------------------------------------------------------------------

SERVICE = {"service": "securityscan"}
MACHINE1 = make_node("machine1", {"region": "r1", "zone": "z11"})
U, UU = "Unschedulable", "UnschedulableAndUnresolvable"
AFFINITY_NOT_MATCH = "node(s) didn't match pod affinity/anti-affinity"
RULES = "node(s) didn't match pod affinity rules"
ANTI_RULES = "node(s) didn't match pod anti-affinity rules"
EXISTING_ANTI = "node(s) didn't satisfy existing pods anti-affinity rules"


def required(affinity: list[dict] = (), anti: list[dict] = ()) -> dict:  # type: ignore[assignment]
    """``createPodWithAffinityTerms``'s affinity (both lists always present)."""
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(affinity)},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(anti)}}


IN_SECURITYSCAN_REGION = term([expr("service", "In", "securityscan", "value2")], "region")
FILTER_CASES = [
    pytest.param(
        make_pod("in", "default", S1, affinity=required([{
            "labelSelector": {"matchExpressions": [expr("service", "In", "securityscan", "value2")]},
            "namespaces": ["DiffNameSpace"]}])),
        [make_pod("e", "ns", SERVICE, node_name="machine1")], UU, RULES,
        id="Does not satisfy the PodAffinity with labelSelector because of diff Namespace"),
    pytest.param(
        make_pod("in", "default", SERVICE, affinity=required([{
            "labelSelector": {"matchExpressions": [expr("service", "In", "antivirusscan", "value2")]}}])),
        [make_pod("e", "default", SERVICE, node_name="machine1")], UU, RULES,
        id="Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod"),
    pytest.param(
        make_pod("in", "default", S1, affinity=required([
            term([expr("service", "Exists"), expr("wrongkey", "DoesNotExist")], "region"),
            term([expr("service", "In", "securityscan2"), expr("service", "NotIn", "WrongValue")], "region")])),
        [make_pod("e", "default", SERVICE, node_name="machine1")], UU, RULES,
        id="The labelSelector requirements are ANDed"),
    pytest.param(
        make_pod("in", "default", S1, affinity=required(
            [IN_SECURITYSCAN_REGION], [term([expr("service", "In", "securityscan", "value2")], "zone")])),
        [make_pod("e", "default", SERVICE, node_name="machine1")], U, ANTI_RULES,
        id="satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod"),
    pytest.param(
        make_pod("in", "default", SERVICE, affinity=required(
            [IN_SECURITYSCAN_REGION], [term([expr("service", "In", "antivirusscan", "value2")], "node")])),
        [make_pod("e", "default", SERVICE, node_name="machine1",
                  affinity=required(anti=[term([expr("service", "In", "securityscan", "value2")], "zone")]))],
        U, EXISTING_ANTI,
        id="satisfies PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry"),
    pytest.param(
        make_pod("in", "default", SERVICE),
        [make_pod("e", "default", SERVICE, node_name="machine1",
                  affinity=required(anti=[term([expr("service", "In", "securityscan", "value2")], "zone")]))],
        U, EXISTING_ANTI,
        id="PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints"),
]


@pytest.mark.parametrize(("pod", "existing", "code", "reason"), FILTER_CASES)
@pytest.mark.parametrize(("version", "two_reasons"), [(None, True), ("1.21", True), ("1.22", False), ("1.34", False)])
def test_required_affinity_single_node_reasons(pod: dict, existing: list, code: str, reason: str,
                                               version: str | None, two_reasons: bool) -> None:
    h = VersionHarness([NAME], [MACHINE1, *existing], version)
    want = (AFFINITY_NOT_MATCH, reason) if two_reasons else (reason,)
    assert h.filter(pod) == {"machine1": (code, want)}
