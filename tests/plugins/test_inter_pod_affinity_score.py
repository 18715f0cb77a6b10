"""InterPodAffinity PreScore, Score and NormalizeScore (``scoring_test.go``) and its args.

Ported case by case (ids are the upstream names), with v1.20's expected values: v1.20
normalizes anchored at 0 (``min(0, scores)``, ``max(0, scores)``), later versions use the
true minimum, so wherever every score is positive the lowest node gets more than 0 here.

* TestPreferredAffinity: 16 cases.
  - 12 have the same expected values in v1.20 and later.
  - 3 are adapted to v1.20 normalization: "Affinity: nodes in one region has more matching
    pods ..." (India 50, not 0), "Affinity and Anti Affinity: considering both affinity and
    anti-affinity ..." (India 40, not 0) and "Avoid panic when partial nodes in a topology
    don't have pods with affinity" (both 100, not 0).
  - "all nodes are same priority as Affinity is nil": later versions Skip in PreScore; v1.20
    counts nothing and leaves every score 0.
  - "invalid Affinity fails PreScore" / "invalid AntiAffinity fails PreScore" (2 more): v1.20
    fails PreScore with Error ``parsing pod: ...`` and its own selector message.
  - "Do not ignore preferred terms of existing pods" is plain v1.20 behaviour and is ported;
    "Ignore preferred terms of existing pods" (the 1.27 arg: see
    test_inter_pod_affinity_ignore_preferred.py), the 6 NamespaceSelector cases (v1.21+) are dropped. "No nodes to score" (later: Skip) is ported as a direct PreScore
    call with no nodes, which v1.20 answers with success and no state.
* TestPreferredAffinityWithHardPodAffinitySymmetricWeight: "with default weight", "with zero
  weight" (v1.20: nothing counted, all 0; later: Skip), "with no matching namespace" (same)
  and "with matching Namespaces"; the term's namespace ``""`` is the pods' ``default``.
  "with matching NamespaceSelector" (v1.21+) is dropped.
* ValidateInterPodAffinityArgs (``validation_pluginargs_test.go``): its 3 cases.

Plus: the float order of the normalization, raw scores, and a randomized comparison of
the vectorised PreScore/Score with a per-pod, per-term transcription of ``scoring.go``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from ruleset.framework.cycle_state import CycleState
from ruleset.framework.status import Code
from ruleset.plugins.interpodaffinity import (
    PRE_SCORE_STATE_KEY,
    InterPodAffinity,
    InterPodAffinityArgs,
    normalize,
    pod_info,
)
from ruleset.snapshot import NodeSet, Snapshot
from tests.factories import Harness, decode, make_node, make_pod

_names = itertools.count()

LABEL_RG_CHINA = {"region": "China"}
LABEL_RG_INDIA = {"region": "India"}
LABEL_AZ_AZ1 = {"az": "az1"}
LABEL_AZ_AZ2 = {"az": "az2"}
LABEL_RG_CHINA_AZ_AZ1 = {"region": "China", "az": "az1"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}

BAD_VALUE_MESSAGE = (
    'invalid label value: "{{.bad-value.}}": at key: "security": a valid label must be an empty string or '
    "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def expr(key: str, operator: str, *values: str) -> dict:
    out: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def term(*exprs: dict, key: str, namespaces: Sequence[str] | None = None) -> dict:
    out: dict[str, Any] = {"labelSelector": {"matchExpressions": list(exprs)}, "topologyKey": key}
    if namespaces is not None:
        out["namespaces"] = list(namespaces)
    return out


def weighted(weight: int, pod_affinity_term: dict) -> dict:
    return {"weight": weight, "podAffinityTerm": pod_affinity_term}


def preferred(affinity: Sequence[dict] = (), anti: Sequence[dict] = ()) -> dict:
    out = {}
    if affinity:
        out["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": list(affinity)}
    if anti:
        out["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": list(anti)}
    return out


STAY_WITH_S1_IN_REGION = preferred([weighted(5, term(expr("security", "In", "S1"), key="region"))])
STAY_WITH_S2_IN_REGION = preferred([weighted(6, term(expr("security", "In", "S2"), key="region"))])
AFFINITY3 = preferred([
    weighted(8, term(expr("security", "NotIn", "S1"), expr("security", "In", "S2"), key="region")),
    weighted(2, term(expr("security", "Exists"), expr("wrongkey", "DoesNotExist"), key="region")),
])
HARD_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    term(expr("security", "In", "S1", "value2"), key="region"),
    term(expr("security", "Exists"), expr("wrongkey", "DoesNotExist"), key="region"),
]}}
AWAY_FROM_S1_IN_AZ = preferred(anti=[weighted(5, term(expr("security", "In", "S1"), key="az"))])
AWAY_FROM_S2_IN_AZ = preferred(anti=[weighted(5, term(expr("security", "In", "S2"), key="az"))])
STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ = preferred(
    [weighted(8, term(expr("security", "In", "S1"), key="region"))],
    [weighted(5, term(expr("security", "In", "S2"), key="az"))])
BAD = expr("security", "In", "{{.bad-value.}}")
INVALID_AFFINITY_LABELS = preferred([weighted(8, term(BAD, key="region"))])
INVALID_ANTI_AFFINITY_LABELS = preferred(anti=[weighted(5, term(BAD, key="az"))])


def incoming(labels: Mapping[str, str] | None = None, affinity: Mapping[str, Any] | None = None,
             namespace: str = "default") -> dict:
    return make_pod("incoming", namespace, labels, affinity=dict(affinity) if affinity else None)


def existing(node: str, labels: Mapping[str, str] | None = None,
             affinity: Mapping[str, Any] | None = None) -> dict:
    return make_pod(f"p{next(_names)}", labels=labels, node_name=node,
                    affinity=dict(affinity) if affinity else None)


def nodes(*labels: Mapping[str, str]) -> list[dict]:
    return [make_node(f"node{i}", lbl) for i, lbl in enumerate(labels, start=1)]


def run_score(pod: dict, pods: Sequence[dict], node_list: Sequence[dict], hard_weight: int = 1,
              *, raw: bool = False) -> list[int]:
    harness = Harness([("InterPodAffinity", {"hardPodAffinityWeight": hard_weight})], [*node_list, *pods],
                      points={"InterPodAffinity": ["score"]})
    scores = harness.score(pod, raw=raw)
    return [scores[n["metadata"]["name"]] for n in node_list]


# ---------------------------------------------------------------------------------------------------
# TestPreferredAffinity
# ---------------------------------------------------------------------------------------------------

PREFERRED_AFFINITY_CASES = [
    pytest.param(
        # v1.20: nothing is counted, the scores stay 0 (later versions Skip the plugin).
        incoming(S1), [], nodes(LABEL_RG_CHINA, LABEL_RG_INDIA, LABEL_AZ_AZ1), [0, 0, 0],
        id="all nodes are same priority as Affinity is nil"),
    pytest.param(
        incoming(S1, STAY_WITH_S1_IN_REGION),
        [existing("node1", S1), existing("node2", S2), existing("node3", S1)],
        nodes(LABEL_RG_CHINA, LABEL_RG_INDIA, LABEL_AZ_AZ1), [100, 0, 0],
        id="Affinity: pod that matches topology key & pods in nodes will get high score comparing to "
           "otherswhich doesn't match either pods in nodes or in topology key"),
    pytest.param(
        incoming(None, STAY_WITH_S1_IN_REGION), [existing("node1", S1)],
        nodes(LABEL_RG_CHINA, LABEL_RG_CHINA_AZ_AZ1, LABEL_RG_INDIA), [100, 100, 0],
        id="All the nodes that have the same topology key & label value with one of them has an existing pod "
           "that match the affinity rules, have the same score"),
    pytest.param(
        # Raw 24, 12, 24, 24, 12: v1.20 anchors at 0, so India gets 100*12/24 = 50 (v1.21+: 0).
        incoming(S1, STAY_WITH_S2_IN_REGION),
        [existing("node1", S2), existing("node1", S2), existing("node2", S2), existing("node3", S2),
         existing("node4", S2), existing("node5", S2)],
        nodes(LABEL_RG_CHINA, LABEL_RG_INDIA, LABEL_RG_CHINA, LABEL_RG_CHINA, LABEL_RG_INDIA),
        [100, 50, 100, 100, 50],
        id="Affinity: nodes in one region has more matching pods comparing to other region, so the region "
           "which has more matches will get high score"),
    pytest.param(
        incoming(S1, AFFINITY3), [existing("node1", S1), existing("node2", S2), existing("node3", S1)],
        nodes(LABEL_RG_CHINA, LABEL_RG_INDIA, LABEL_AZ_AZ1), [20, 100, 0],
        id="Affinity: different Label operators and values for pod affinity scheduling preference, including "
           "some match failures "),
    pytest.param(
        incoming(S2),
        [existing("node1", S1, STAY_WITH_S1_IN_REGION), existing("node2", S2, STAY_WITH_S2_IN_REGION)],
        nodes(LABEL_RG_CHINA, LABEL_RG_INDIA, LABEL_AZ_AZ1), [0, 100, 0],
        id="Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod "
           "affinity symmetry"),
    pytest.param(
        incoming(S1), [existing("node1", S1, HARD_AFFINITY), existing("node2", S2, HARD_AFFINITY)],
        nodes(LABEL_RG_CHINA, LABEL_RG_INDIA, LABEL_AZ_AZ1), [100, 100, 0],
        id="Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity "
           "symmetry"),
    pytest.param(
        incoming(S1, AWAY_FROM_S1_IN_AZ), [existing("node1", S1), existing("node2", S2)],
        nodes(LABEL_AZ_AZ1, LABEL_RG_CHINA), [0, 100],
        id="Anti Affinity: pod that does not match existing pods in node will get high score "),
    pytest.param(
        incoming(S1, AWAY_FROM_S1_IN_AZ), [existing("node1", S1), existing("node2", S1)],
        nodes(LABEL_AZ_AZ1, LABEL_RG_CHINA), [0, 100],
        id="Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher "
           "score comparing to others "),
    pytest.param(
        incoming(S1, AWAY_FROM_S1_IN_AZ),
        [existing("node1", S1), existing("node1", S1), existing("node2", S2)],
        nodes(LABEL_AZ_AZ1, LABEL_RG_INDIA), [0, 100],
        id="Anti Affinity: one node has more matching pods comparing to other node, so the node which has "
           "more unmatches will get high score"),
    pytest.param(
        incoming(S2), [existing("node1", S1, AWAY_FROM_S2_IN_AZ), existing("node2", S2, AWAY_FROM_S1_IN_AZ)],
        nodes(LABEL_AZ_AZ1, LABEL_AZ_AZ2), [0, 100],
        id="Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high "
           "score"),
    pytest.param(
        incoming(S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [existing("node1", S1), existing("node2", S1)],
        nodes(LABEL_RG_CHINA, LABEL_AZ_AZ1), [100, 0],
        id="Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in "
           "both pod affinity & anti affinity"),
    pytest.param(
        # Raw 40, 16, 40, 40, 16: v1.20 gives India 100*16/40 = 40 (v1.21+: 0).
        incoming(S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [existing("node1", S1), existing("node1", S1), existing("node2", S1), existing("node3", S1),
         existing("node3", S1), existing("node4", S1), existing("node5", S1)],
        nodes(LABEL_RG_CHINA_AZ_AZ1, LABEL_RG_INDIA, LABEL_RG_CHINA, LABEL_RG_CHINA, LABEL_RG_INDIA),
        [100, 40, 100, 100, 40],
        id="Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and "
           "existing pods have the same labels"),
    pytest.param(
        # Weights 8, -5, 8, -5: min -5, max 8.
        incoming(S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
        [existing("node1", S1), existing("node2", S2),
         existing("node3", None, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
         existing("node4", None, AWAY_FROM_S1_IN_AZ)],
        nodes(LABEL_RG_CHINA, LABEL_AZ_AZ1, LABEL_RG_INDIA, LABEL_AZ_AZ2), [100, 0, 100, 0],
        id="Affinity and Anti Affinity and symmetry: considered only "
           "preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry"),
    pytest.param(
        # Raw 8, 8: v1.20's min is 0, so both get 100 (v1.21+: max == min, both 0).
        incoming(S1),
        [existing("node1", S1), existing("node2", None, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ)],
        nodes(LABEL_RG_CHINA, LABEL_RG_CHINA), [100, 100],
        id="Avoid panic when partial nodes in a topology don't have pods with affinity"),
    pytest.param(
        incoming(S2), [existing("node1", S1, STAY_WITH_S1_IN_REGION_AWAY_FROM_S2_IN_AZ),
                       existing("node2", S2, STAY_WITH_S2_IN_REGION)],
        nodes(LABEL_RG_CHINA, LABEL_RG_INDIA), [0, 100],
        id="Do not ignore preferred terms of existing pods"),
]


@pytest.mark.parametrize(("pod", "pods", "node_list", "expected"), PREFERRED_AFFINITY_CASES)
def test_preferred_affinity(pod: dict, pods: list[dict], node_list: list[dict], expected: list[int]) -> None:
    assert run_score(pod, pods, node_list) == expected


@pytest.mark.parametrize(("affinity", "message"), [
    pytest.param(INVALID_AFFINITY_LABELS, f"preferredAffinityTerms: {BAD_VALUE_MESSAGE}",
                 id="invalid Affinity fails PreScore"),
    pytest.param(INVALID_ANTI_AFFINITY_LABELS, f"preferredAntiAffinityTerms: {BAD_VALUE_MESSAGE}",
                 id="invalid AntiAffinity fails PreScore"),
])
def test_invalid_affinity_fails_pre_score(affinity: dict, message: str) -> None:
    harness = Harness(["InterPodAffinity"], nodes(LABEL_RG_CHINA, LABEL_RG_CHINA),
                      points={"InterPodAffinity": ["score"]})
    result = harness.run(incoming(None, affinity))
    assert result.status.code == Code.ERROR
    assert result.status.reasons == (f'running PreScore plugin "InterPodAffinity": parsing pod: {message}',)


def test_no_nodes_to_score() -> None:
    snapshot = Snapshot([])
    state = CycleState()
    plugin = InterPodAffinity()
    assert plugin.ruleset_pre_score(state, decode(incoming(S2)), NodeSet(snapshot, np.zeros(0))) is None
    assert PRE_SCORE_STATE_KEY not in state


# ---------------------------------------------------------------------------------------------------
# TestPreferredAffinityWithHardPodAffinitySymmetricWeight
# ---------------------------------------------------------------------------------------------------

HARD_POD_AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    term(expr("service", "In", "S1"), key="region", namespaces=["default", "subteam2.team2"])]}}
HARD_NODES = nodes(LABEL_RG_CHINA, LABEL_RG_INDIA, LABEL_AZ_AZ1)

HARD_WEIGHT_CASES = [
    pytest.param("default", 1, [100, 100, 0], id="with default weight"),
    pytest.param("default", 0, [0, 0, 0], id="with zero weight"),
    pytest.param("subteam1.team2", 1, [0, 0, 0], id="with no matching namespace"),
    pytest.param("subteam2.team2", 1, [100, 100, 0], id="with matching Namespaces"),
]


@pytest.mark.parametrize(("namespace", "hard_weight", "expected"), HARD_WEIGHT_CASES)
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(namespace: str, hard_weight: int,
                                                                     expected: list[int]) -> None:
    pods = [existing("node1", None, HARD_POD_AFFINITY), existing("node2", None, HARD_POD_AFFINITY)]
    pod = incoming({"service": "S1"}, namespace=namespace)
    assert run_score(pod, pods, HARD_NODES, hard_weight) == expected


def test_hard_weight_multiplies_each_matching_required_term() -> None:
    pods = [existing("node1", None, HARD_POD_AFFINITY), existing("node1", None, HARD_POD_AFFINITY)]
    assert run_score(incoming({"service": "S1"}), pods, HARD_NODES, 7, raw=True) == [14, 0, 0]


# ---------------------------------------------------------------------------------------------------
# ValidateInterPodAffinityArgs
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("weight", "errors"), [
    pytest.param(10, [], id="valid args"),
    pytest.param(-1, ["hardPodAffinityWeight: Invalid value: -1: not in valid range [0-100]"],
                 id="hardPodAffinityWeight less than min"),
    pytest.param(101, ["hardPodAffinityWeight: Invalid value: 101: not in valid range [0-100]"],
                 id="hardPodAffinityWeight more than max"),
])
def test_validate_inter_pod_affinity_args(weight: int, errors: list[str]) -> None:
    problems = InterPodAffinity.validate_args(InterPodAffinityArgs(hard_pod_affinity_weight=weight))
    assert [p.message for p in problems] == errors
    assert all(p.path == ("hardPodAffinityWeight",) for p in problems)


def test_args_default_and_round_trip() -> None:
    args = InterPodAffinity.parse_args({})
    assert args.hard_pod_affinity_weight == 1
    assert InterPodAffinity.args_to_dict(args) == {"hardPodAffinityWeight": 1}
    assert InterPodAffinity.parse_args({"hardPodAffinityWeight": 0}).hard_pod_affinity_weight == 0


def test_invalid_weight_fails_the_profile() -> None:
    from ruleset.framework.runtime import FrameworkError

    with pytest.raises(FrameworkError, match=r"not in valid range \[0-100\]"):
        Harness([("InterPodAffinity", {"hardPodAffinityWeight": 101})], nodes(LABEL_RG_CHINA))


# ---------------------------------------------------------------------------------------------------
# ruleset: normalization arithmetic, raw scores
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("scores", "expected"), [
    # 100 * (29/100) is 28.999999999999996 in float64, so Go's int64() gives 28.
    pytest.param([29, 100], [28, 100], id="float order: 100*(s/diff), truncated"),
    pytest.param([57, 100], [56, 100], id="float order again: 57/100*100 = 56.99..."),
    pytest.param([5, 10, 15], [33, 66, 100], id="anchored at 0: min is 0, not 5"),
    pytest.param([-5, -10], [50, 0], id="all negative: max is 0"),
    pytest.param([-5, 8], [0, 100], id="both signs"),
    pytest.param([0, 0], [0, 0], id="max == min"),
])
def test_normalize(scores: list[int], expected: list[int]) -> None:
    assert normalize(np.array(scores)).tolist() == expected


def test_normalize_float_order_through_the_plugin() -> None:
    # 29 matching pods in one region, 100 in the other: raw 29 and 100, normalized 28 and 100.
    pods = [existing("node1", S1) for _ in range(29)] + [existing("node2", S1) for _ in range(100)]
    pod = incoming(None, preferred([weighted(1, term(expr("security", "In", "S1"), key="region"))]))
    node_list = nodes(LABEL_RG_CHINA, LABEL_RG_INDIA)
    assert run_score(pod, pods, node_list, raw=True) == [29, 100]
    assert run_score(pod, pods, node_list) == [28, 100]


def test_negative_scores_normalize_with_max_anchored_at_zero() -> None:
    # The incoming pod (S2) is what node2's pod wants to avoid in az1: raw 0 and -5.
    node_list = nodes(LABEL_RG_CHINA, {"region": "India", "az": "az1"})
    pods = [existing("node1", S1), existing("node2", S1, AWAY_FROM_S2_IN_AZ)]
    assert run_score(incoming(S2), pods, node_list, raw=True) == [0, -5]
    assert run_score(incoming(S2), pods, node_list) == [100, 0]


def test_pairs_cover_the_whole_cluster_not_only_feasible_nodes() -> None:
    # node2 is filtered out by NodeName, yet its matching pod still scores its region.
    node_list = nodes(LABEL_RG_CHINA, LABEL_RG_CHINA, LABEL_RG_INDIA)
    pods = [existing("node2", S1)]
    harness = Harness(["NodeName", ("InterPodAffinity", {})], [*node_list, *pods])
    pod = make_pod("incoming", node_name=None, affinity=STAY_WITH_S1_IN_REGION)
    assert harness.score(pod, "InterPodAffinity") == {"node1": 100, "node2": 100, "node3": 0}


# ---------------------------------------------------------------------------------------------------
# ruleset: the vectorised PreScore/Score against a transcription of scoring.go
# ---------------------------------------------------------------------------------------------------

def reference_scores(pod: Any, snapshot: Snapshot, hard_weight: int) -> tuple[list[int], bool]:
    """scoring.go v1.20: processExistingPod for every pod on every node, then Score per node."""
    info = pod_info(pod)
    topology: dict[str, dict[str, int]] = {}

    def process(term_obj: Any, weight: int, pod_to_check: Any, node_labels: Mapping[str, str]) -> None:
        if not node_labels:
            return
        if term_obj.matches(pod_to_check) and term_obj.topology_key in node_labels:
            values = topology.setdefault(term_obj.topology_key, {})
            value = node_labels[term_obj.topology_key]
            values[value] = values.get(value, 0) + weight

    for index, node in enumerate(snapshot.nodes):
        for other in snapshot.pods_on(index):
            other_info = pod_info(other)
            for w in info.preferred_affinity:
                process(w.term, w.weight, other, node.labels)
            for w in info.preferred_anti_affinity:
                process(w.term, -w.weight, other, node.labels)
            if hard_weight > 0:
                for t in other_info.required_affinity:
                    process(t, hard_weight, pod, node.labels)
            for w in other_info.preferred_affinity:
                process(w.term, w.weight, pod, node.labels)
            for w in other_info.preferred_anti_affinity:
                process(w.term, -w.weight, pod, node.labels)
    scores = []
    for node in snapshot.nodes:
        scores.append(sum(values.get(node.labels[key], 0) for key, values in topology.items()
                          if key in node.labels))
    return scores, bool(topology)


def random_term(rng: random.Random) -> dict:
    key = rng.choice(["app", "tier"])
    operator = rng.choice(["In", "NotIn", "Exists", "DoesNotExist"])
    values = rng.sample(["a", "b", "c"], rng.randint(1, 2)) if operator in ("In", "NotIn") else []
    return term(expr(key, operator, *values), key=rng.choice(["zone", "region", "host"]),
                namespaces=rng.choice([None, None, ["ns1"], ["ns1", "ns2"]]))


def random_affinity(rng: random.Random) -> dict | None:
    if rng.random() < 0.3:
        return None

    def terms() -> list[dict]:
        return [weighted(rng.randint(1, 100), random_term(rng)) for _ in range(rng.randint(0, 2))]

    out = preferred(terms(), terms())
    if rng.random() < 0.5:
        required = out.setdefault("podAffinity", {})
        required["requiredDuringSchedulingIgnoredDuringExecution"] = [random_term(rng)]
    return out


@pytest.mark.parametrize("seed", range(25))
def test_score_matches_a_per_pod_transcription_of_upstream(seed: int) -> None:
    rng = random.Random(seed)
    node_list = []
    for i in range(rng.randint(1, 10)):
        labels = {"host": f"h{i}"}
        for key in ("zone", "region"):
            if rng.random() < 0.7:
                labels[key] = f"{key}{rng.randint(0, 2)}"
        node_list.append(make_node(f"n{i}", labels))
    pods = [make_pod(f"p{j}", rng.choice(["ns1", "ns2"]),
                     {k: rng.choice("abc") for k in ("app", "tier") if rng.random() < 0.7},
                     node_name=f"n{rng.randrange(len(node_list))}", affinity=random_affinity(rng))
            for j in range(rng.randint(0, 30))]
    hard_weight = rng.choice([0, 1, 5])
    harness = Harness([("InterPodAffinity", {"hardPodAffinityWeight": hard_weight})], [*node_list, *pods],
                      points={"InterPodAffinity": ["score"]})
    for k in range(4):
        pod = decode(make_pod(f"incoming{k}", rng.choice(["ns1", "ns2"]),
                              {k: rng.choice("abc") for k in ("app", "tier") if rng.random() < 0.7},
                              affinity=random_affinity(rng)))
        expected_raw, counted = reference_scores(pod, harness.snapshot, hard_weight)
        names = [n["metadata"]["name"] for n in node_list]
        raw = harness.score(pod, raw=True)
        assert [raw[n] for n in names] == expected_raw
        normalized = harness.score(pod)
        expected = normalize(np.array(expected_raw)).tolist() if counted else expected_raw
        assert [normalized[n] for n in names] == expected
