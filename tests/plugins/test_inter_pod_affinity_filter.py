"""InterPodAffinity PreFilter, AddPod/RemovePod and Filter, ported from v1.20 ``filtering_test.go``.

Ported, case by case (ids are the upstream names; ``default`` stands for upstream's empty
namespace, which is what decoding gives a pod without one):

* TestRequiredAffinitySingleNode: the 19 v1.20 cases. v1.20 checks the incoming pod's
  affinity, then its anti-affinity, then the existing pods' anti-affinity, so the two
  "symmetry check b" cases expect the anti-affinity reason (v1.19 checked existing pods
  first and expected the existing-pods reason there). Every failure carries v1.20's
  ``node(s) didn't match pod affinity/anti-affinity`` first (dropped in v1.21). Plus the 2
  later "fails PreFilter with an invalid ... label syntax" cases, whose v1.20 behaviour
  exists (``PodInfo.ParseError``), with v1.20's selector message (``invalid label value:
  ...``, not v1.21's field error). The 5 later NamespaceSelector cases are dropped (v1.21+).
* TestRequiredAffinityMultipleNodes: all 17 cases.
* TestPreFilterDisabled: 1 case (Filter without PreFilter state).
* TestPreFilterStateAddRemovePod: all 4 cases, comparing all three pair counts with a
  PreFilter run over every pod, and with the original state after RemovePod.
* TestPreFilterStateClone: 1 case, plus independence of the copy.
* TestGetTPMapMatchingIncomingAffinityAntiAffinity: all 8 cases.

Plus ruleset checks: the v1.20 parse-error rules (last failing list wins, an existing pod's
broken list is ignored), AddPod through nominated pods, the preemption dry run through the
AddPod/RemovePod extensions with DefaultPreemption, and a randomized comparison of the
vectorised PreFilter/Filter with a per-pod, per-node transcription of the Go loops.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from ruleset.api.meta import ObjectMeta
from ruleset.api.node import Node
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.status import Code
from ruleset.plugins.interpodaffinity import (
    ERR_REASON_AFFINITY_NOT_MATCH,
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    PRE_FILTER_STATE_KEY,
    InterPodAffinity,
    PreFilterState,
    TopologyCounts,
    incoming_affinity_counts,
    pod_info,
)
from ruleset.snapshot import Snapshot
from tests.factories import Harness, decode, make_node, make_pod

NOT_MATCH = ERR_REASON_AFFINITY_NOT_MATCH
SUCCESS = ("Success", ())
AFFINITY = ("UnschedulableAndUnresolvable", (NOT_MATCH, ERR_REASON_AFFINITY_RULES_NOT_MATCH))
ANTI = ("Unschedulable", (NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH))
EXISTING = ("Unschedulable", (NOT_MATCH, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH))

BAD_VALUE_MESSAGE = (
    'invalid label value: "{{.bad-value.}}": at key: "service": a valid label must be an empty string or '
    "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

_names = itertools.count()


# ---------------------------------------------------------------------------------------------------
# Builders (upstream's createPodWithAffinityTerms and friends, as manifests)
# ---------------------------------------------------------------------------------------------------

def expr(key: str, operator: str, *values: str) -> dict:
    out: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def term(*exprs: dict, key: str = "", namespaces: Sequence[str] | None = None) -> dict:
    """A podAffinityTerm whose labelSelector has ``exprs`` as matchExpressions."""
    out: dict[str, Any] = {"labelSelector": {"matchExpressions": list(exprs)}, "topologyKey": key}
    if namespaces is not None:
        out["namespaces"] = list(namespaces)
    return out


def terms_affinity(affinity: Sequence[dict] | None = None, anti: Sequence[dict] | None = None) -> dict:
    """``createPodWithAffinityTerms``: both podAffinity and podAntiAffinity set (possibly empty)."""
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(affinity or [])},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(anti or [])}}


def incoming(labels: Mapping[str, str] | None = None, affinity: Sequence[dict] | None = None,
             anti: Sequence[dict] | None = None, namespace: str = "default") -> dict:
    """The pod to schedule; without terms it has no affinity at all (``&v1.Pod{}``)."""
    spec = terms_affinity(affinity, anti) if affinity is not None or anti is not None else None
    return make_pod("incoming", namespace, labels, affinity=spec)


def existing(node: str, labels: Mapping[str, str] | None = None, affinity: Sequence[dict] | None = None,
             anti: Sequence[dict] | None = None, namespace: str = "default") -> dict:
    """An assigned pod (a fresh name each time: manifests need unique names, upstream's have none)."""
    spec = terms_affinity(affinity, anti) if affinity is not None or anti is not None else None
    return make_pod(f"p{next(_names)}", namespace, labels, node_name=node, affinity=spec)


def run_filter(pod: dict, pods: Sequence[dict], nodes: Sequence[dict]) -> dict[str, tuple]:
    harness = Harness(["InterPodAffinity"], [*nodes, *pods], points={"InterPodAffinity": ["filter"]})
    return harness.filter(pod)


# ---------------------------------------------------------------------------------------------------
# TestRequiredAffinitySingleNode
# ---------------------------------------------------------------------------------------------------

POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = make_node("machine1", {"region": "r1", "zone": "z11"})

SINGLE_NODE_CASES = [
    pytest.param(incoming(), [], SUCCESS,
                 id="A pod that has no required pod affinity scheduling rules can schedule onto a node with "
                    "no existing pods"),
    pytest.param(
        incoming(POD_LABEL2, [term(expr("service", "In", "securityscan", "value2"), key="region")]),
        [existing("machine1", POD_LABEL)], SUCCESS,
        id="satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator "
           "that matches the existing pod"),
    pytest.param(
        incoming(POD_LABEL2, [term(expr("service", "NotIn", "securityscan3", "value3"), key="region")]),
        [existing("machine1", POD_LABEL)], SUCCESS,
        id="satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not "
           "in operator in labelSelector that matches the existing pod"),
    pytest.param(
        incoming(POD_LABEL2, [term(expr("service", "In", "securityscan", "value2"),
                                   namespaces=["DiffNameSpace"])]),
        [existing("machine1", POD_LABEL, namespace="ns")], AFFINITY,
        id="Does not satisfy the PodAffinity with labelSelector because of diff Namespace"),
    pytest.param(
        incoming(POD_LABEL, [term(expr("service", "In", "antivirusscan", "value2"))]),
        [existing("machine1", POD_LABEL)], AFFINITY,
        id="Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod"),
    pytest.param(
        incoming(POD_LABEL2, [
            term(expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), key="region"),
            term(expr("service", "In", "securityscan"), expr("service", "NotIn", "WrongValue"), key="region"),
        ]),
        [existing("machine1", POD_LABEL)], SUCCESS,
        id="satisfies the PodAffinity with different label Operators in multiple "
           "RequiredDuringSchedulingIgnoredDuringExecution "),
    pytest.param(
        incoming(POD_LABEL2, [
            term(expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), key="region"),
            term(expr("service", "In", "securityscan2"), expr("service", "NotIn", "WrongValue"),
                 key="region"),
        ]),
        [existing("machine1", POD_LABEL)], AFFINITY,
        id="The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule "
           "onto the node because one of the matchExpression item don't match."),
    pytest.param(
        incoming(POD_LABEL2, [term(expr("service", "In", "securityscan", "value2"), key="region")],
                 [term(expr("service", "In", "antivirusscan", "value2"), key="node")]),
        [existing("machine1", POD_LABEL)], SUCCESS,
        id="satisfies the PodAffinity and PodAntiAffinity with the existing pod"),
    pytest.param(
        incoming(POD_LABEL2, [term(expr("service", "In", "securityscan", "value2"), key="region")],
                 [term(expr("service", "In", "antivirusscan", "value2"), key="node")]),
        [existing("machine1", POD_LABEL, None,
                  [term(expr("service", "In", "antivirusscan", "value2"), key="node")])],
        SUCCESS,
        id="satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing "
           "pod"),
    pytest.param(
        incoming(POD_LABEL2, [term(expr("service", "In", "securityscan", "value2"), key="region")],
                 [term(expr("service", "In", "securityscan", "value2"), key="zone")]),
        [existing("machine1", POD_LABEL)], ANTI,
        id="satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod"),
    pytest.param(
        incoming(POD_LABEL, [term(expr("service", "In", "securityscan", "value2"), key="region")],
                 [term(expr("service", "In", "antivirusscan", "value2"), key="node")]),
        [existing("machine1", POD_LABEL, None,
                  [term(expr("service", "In", "securityscan", "value2"), key="zone")])],
        EXISTING,
        id="satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with "
           "the existing pod"),
    pytest.param(
        # The existing pod is on machine2, which is not in the snapshot: upstream skips it too.
        incoming(POD_LABEL, [term(expr("service", "NotIn", "securityscan", "value2"), key="region")]),
        [existing("machine2", POD_LABEL)], AFFINITY,
        id="pod matches its own Label in PodAffinity and that matches the existing pod Labels"),
    pytest.param(
        incoming(POD_LABEL),
        [existing("machine1", POD_LABEL, None,
                  [term(expr("service", "In", "securityscan", "value2"), key="zone")])],
        EXISTING,
        id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
           "constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod"),
    pytest.param(
        incoming(POD_LABEL),
        [existing("machine1", POD_LABEL, None,
                  [term(expr("service", "NotIn", "securityscan", "value2"), key="zone")])],
        SUCCESS,
        id="verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
           "constraints. satisfy PodAntiAffinity symmetry with the existing pod"),
    pytest.param(
        incoming(POD_LABEL, None, [term(expr("service", "Exists"), key="region"),
                                   term(expr("security", "Exists"), key="region")]),
        [existing("machine1", POD_LABEL2, None, [term(expr("security", "Exists"), key="zone")])],
        ANTI,
        id="satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry "
           "with incoming pod"),
    pytest.param(
        incoming(POD_LABEL, None, [term(expr("service", "Exists"), key="zone"),
                                   term(expr("security", "Exists"), key="zone")]),
        [existing("machine1", POD_LABEL2, None, [term(expr("security", "Exists"), key="zone")])],
        ANTI,
        id="PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on "
           "AffinityTerms"),
    pytest.param(
        incoming(POD_LABEL2, None, [term(expr("security", "Exists"), key="zone")]),
        [existing("machine1", POD_LABEL, None, [term(expr("service", "Exists"), key="zone"),
                                                term(expr("security", "Exists"), key="zone")])],
        EXISTING,
        id="PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on "
           "AffinityTerms"),
    pytest.param(
        # v1.20 checks the incoming pod's anti-affinity before the existing pods' (v1.19: the reverse).
        incoming({"abc": "", "xyz": ""}, None, [term(expr("abc", "Exists"), key="zone"),
                                                term(expr("def", "Exists"), key="zone")]),
        [existing("machine1", {"def": "", "xyz": ""}, None, [term(expr("abc", "Exists"), key="zone"),
                                                             term(expr("def", "Exists"), key="zone")])],
        ANTI,
        id="PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on "
           "AffinityTerms"),
    pytest.param(
        incoming({"def": "", "xyz": ""}, None, [term(expr("abc", "Exists"), key="zone"),
                                                term(expr("def", "Exists"), key="zone")]),
        [existing("machine1", {"abc": "", "xyz": ""}, None, [term(expr("abc", "Exists"), key="zone"),
                                                             term(expr("def", "Exists"), key="zone")])],
        ANTI,
        id="PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on "
           "AffinityTerms"),
    pytest.param(
        incoming(POD_LABEL, [term(expr("service", "In", "{{.bad-value.}}"), key="region"),
                             term(expr("service", "In", "antivirusscan", "value2"), key="node")]),
        [], ("UnschedulableAndUnresolvable", (f"parsing pod: requiredAffinityTerms: {BAD_VALUE_MESSAGE}",)),
        id="PodAffinity fails PreFilter with an invalid affinity label syntax"),
    pytest.param(
        # Upstream's case really puts the bad value in a second *affinity* term (and so expects
        # requiredAffinityTerms); ported as written. test_anti_affinity_parse_error covers anti-affinity.
        incoming(POD_LABEL, [term(expr("service", "In", "foo"), key="region"),
                             term(expr("service", "In", "{{.bad-value.}}"), key="node")]),
        [], ("UnschedulableAndUnresolvable", (f"parsing pod: requiredAffinityTerms: {BAD_VALUE_MESSAGE}",)),
        id="PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax"),
]


@pytest.mark.parametrize(("pod", "pods", "expected"), SINGLE_NODE_CASES)
def test_required_affinity_single_node(pod: dict, pods: list[dict], expected: tuple) -> None:
    assert run_filter(pod, pods, [NODE1]) == {"machine1": expected}


# ---------------------------------------------------------------------------------------------------
# TestRequiredAffinityMultipleNodes
# ---------------------------------------------------------------------------------------------------

RG_CHINA = {"region": "China"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
RG_INDIA = {"region": "India"}


def r1_nodes(*zones: str) -> list[dict]:
    """nodeA, nodeB, ... in region r1 with the given zones (and a hostname label)."""
    return [make_node(name, {"region": "r1", "zone": zone, "hostname": name})
            for name, zone in zip(("nodeA", "nodeB", "nodeC"), zones, strict=False)]


MULTIPLE_NODES_CASES = [
    pytest.param(
        incoming(None, [term(expr("foo", "In", "bar"), key="region")]),
        [existing("machine1", {"foo": "bar"})],
        [make_node("machine1", RG_CHINA), make_node("machine2", RG_CHINA_AZ1),
         make_node("machine3", RG_INDIA)],
        [SUCCESS, SUCCESS, AFFINITY],
        id="A pod can be scheduled onto all the nodes that have the same topology key & label value with one "
           "of them has an existing pod that matches the affinity rules"),
    pytest.param(
        incoming({"foo": "bar", "service": "securityscan"},
                 [term(expr("foo", "In", "bar"), key="zone"),
                  term(expr("service", "In", "securityscan"), key="zone")]),
        [existing("nodeA", {"foo": "bar"})],
        [make_node("nodeA", {"zone": "az1", "hostname": "h1"}),
         make_node("nodeB", {"zone": "az2", "hostname": "h2"})],
        [SUCCESS, SUCCESS],
        id="The affinity rule is to schedule all of the pods of this collection to the same zone. The first "
           "pod of the collection should not be blocked from being scheduled onto any node, even there's no "
           "existing pod that matches the rule anywhere."),
    pytest.param(
        incoming(None, None, [term(expr("foo", "In", "abc"), key="region")]),
        [existing("nodeA", {"foo": "abc"})],
        [make_node("nodeA", {"region": "r1", "hostname": "nodeA"}),
         make_node("nodeB", {"region": "r1", "hostname": "nodeB"})],
        [ANTI, ANTI],
        id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches "
           "the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB."),
    pytest.param(
        incoming(None, None, [term(expr("foo", "In", "abc"), key="region"),
                              term(expr("service", "In", "securityscan"), key="zone")]),
        [existing("nodeA", {"foo": "abc", "service": "securityscan"})],
        r1_nodes("z1", "z2"),
        [ANTI, ANTI],
        id="This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule "
           "matches a pod."),
    pytest.param(
        incoming(None, None, [term(expr("foo", "In", "abc"), key="region")]),
        [existing("nodeA", {"foo": "abc"})],
        [make_node("nodeA", RG_CHINA), make_node("nodeB", RG_CHINA_AZ1), make_node("nodeC", RG_INDIA)],
        [ANTI, ANTI, SUCCESS],
        id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches "
           "the inter "
           "pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto "
           "nodeC"),
    pytest.param(
        incoming({"foo": "123"}, None, [term(expr("foo", "In", "bar"), key="region")], namespace="NS1"),
        [existing("nodeA", {"foo": "bar"}, namespace="NS1"),
         existing("nodeC", None, None, [term(expr("foo", "In", "123"), key="region")], namespace="NS2")],
        [make_node("nodeA", RG_CHINA), make_node("nodeB", RG_CHINA_AZ1), make_node("nodeC", RG_INDIA)],
        [ANTI, ANTI, SUCCESS],
        id="NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches "
           "the inter "
           "pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto "
           "nodeC "
           "(NodeC has an existing pod that match the inter pod affinity rule but in different namespace)"),
    pytest.param(
        incoming({"foo": ""}),
        [existing("nodeA", None, None, [term(expr("foo", "Exists"), key="invalid-node-label")])],
        r1_nodes("z1", "z1"),
        [SUCCESS, SUCCESS],
        id="Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, "
           "labelSelector of the term is firstly checked, and then topologyKey of the term is also checked"),
    pytest.param(
        incoming(None, None, [term(expr("foo", "Exists"), key="invalid-node-label")]),
        [existing("nodeA", {"foo": ""})],
        r1_nodes("z1", "z1"),
        [SUCCESS, SUCCESS],
        id="Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey "
           "matches"),
    pytest.param(
        incoming({"foo": "", "bar": ""}),
        [existing("nodeA", None, None, [term(expr("foo", "Exists"), key="zone")]),
         existing("nodeA", None, None, [term(expr("bar", "Exists"), key="region")])],
        r1_nodes("z1", "z2"),
        [EXISTING, EXISTING],
        id="Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each "
           "existingPod's terms on all nodes"),
    pytest.param(
        incoming(None, None, [term(expr("foo", "Exists"), key="zone"),
                              term(expr("bar", "Exists"), key="region")]),
        [existing("nodeA", {"foo": ""}), existing("nodeB", {"bar": ""})],
        r1_nodes("z1", "z2"),
        [ANTI, ANTI],
        id="Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least "
           "violates one anti-affinity rule of existingPod"),
    pytest.param(
        incoming({"foo": "", "bar": ""}),
        [existing("nodeA", None, None, [term(expr("foo", "Exists"), key="invalid-node-label"),
                                        term(expr("bar", "Exists"), key="zone")])],
        r1_nodes("z1", "z2"),
        [EXISTING, SUCCESS],
        id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
           "counted as a single term match - case when one term has invalid topologyKey"),
    pytest.param(
        incoming(None, None, [term(expr("foo", "Exists"), key="invalid-node-label"),
                              term(expr("bar", "Exists"), key="zone")]),
        [existing("nodeA", {"foo": "", "bar": ""})],
        r1_nodes("z1", "z2"),
        [ANTI, SUCCESS],
        id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
           "counted as a single term match - case when one term has invalid topologyKey"),
    pytest.param(
        incoming({"foo": "", "bar": ""}),
        [existing("nodeA", None, None, [term(expr("foo", "Exists"), key="region"),
                                        term(expr("bar", "Exists"), key="zone")])],
        r1_nodes("z1", "z2"),
        [EXISTING, EXISTING],
        id="Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
           "counted as a single term match - case when all terms have valid topologyKey"),
    pytest.param(
        incoming(None, None, [term(expr("foo", "Exists"), key="region"),
                              term(expr("bar", "Exists"), key="zone")]),
        [existing("nodeA", {"foo": "", "bar": ""})],
        r1_nodes("z1", "z2"),
        [ANTI, ANTI],
        id="Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's "
           "counted as a single term match - case when all terms have valid topologyKey"),
    pytest.param(
        incoming({"foo": "", "bar": ""}),
        [existing("nodeA", None, None, [term(expr("foo", "Exists"), key="zone"),
                                        term(expr("labelA", "Exists"), key="zone")]),
         existing("nodeB", None, None, [term(expr("bar", "Exists"), key="zone"),
                                        term(expr("labelB", "Exists"), key="zone")])],
        r1_nodes("z1", "z2", "z3"),
        [EXISTING, EXISTING, SUCCESS],
        id="Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity "
           "term matches incoming pod, so incoming pod can only be scheduled to nodeC"),
    pytest.param(
        incoming(None, [term(expr("foo", "Exists"), key="region"), term(expr("bar", "Exists"), key="zone")]),
        [existing("nodeA", {"foo": "", "bar": ""})],
        r1_nodes("z1", "z1"),
        [SUCCESS, SUCCESS],
        id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
           "topologyKeys match"),
    pytest.param(
        incoming(None, [term(expr("foo", "Exists"), key="region"), term(expr("bar", "Exists"), key="zone")]),
        [existing("nodeA", {"foo": ""}), existing("nodeB", {"bar": ""})],
        r1_nodes("z1", "z2"),
        [AFFINITY, AFFINITY],
        id="Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all "
           "topologyKeys match, and the match logic should be satisfied on the same pod"),
]


@pytest.mark.parametrize(("pod", "pods", "nodes", "expected"), MULTIPLE_NODES_CASES)
def test_required_affinity_multiple_nodes(pod: dict, pods: list[dict], nodes: list[dict],
                                          expected: list[tuple]) -> None:
    got = run_filter(pod, pods, nodes)
    assert [got[n["metadata"]["name"]] for n in nodes] == expected


# ---------------------------------------------------------------------------------------------------
# TestPreFilterDisabled
# ---------------------------------------------------------------------------------------------------

def test_pre_filter_disabled() -> None:
    snapshot = Snapshot([Node(meta=ObjectMeta(name=""))])
    result = InterPodAffinity().ruleset_filter(CycleState(), snapshot.all_nodes())
    assert result is not None
    status = result.status(0)
    assert status.code == Code.ERROR
    assert status.reasons == ('error reading "PreFilterInterPodAffinity" from cycleState: not found',)


def test_add_pod_without_pre_filter_state_is_an_error() -> None:
    snapshot = Snapshot([Node(meta=ObjectMeta(name="n"))])
    pod = decode(make_pod("p"))
    status = InterPodAffinity().ruleset_pre_filter_add_pod(CycleState(), pod, 0, snapshot)
    assert status is not None and status.code == Code.ERROR
    assert status.reasons == ('error reading "PreFilterInterPodAffinity" from cycleState: not found',)


# ---------------------------------------------------------------------------------------------------
# TestPreFilterStateAddRemovePod
# ---------------------------------------------------------------------------------------------------

LABEL1 = {"region": "r1", "zone": "z11"}
LABEL2 = {"region": "r1", "zone": "z12"}
LABEL3 = {"region": "r2", "zone": "z21"}
SELECTOR1 = {"foo": "bar"}
ANTI_FOO_BAR = {"requiredDuringSchedulingIgnoredDuringExecution": [
    term(expr("foo", "In", "bar"), key="region")]}
COMPLEX_TERMS = [term(expr("foo", "In", "bar", "buzz"), key="region"),
                 term(expr("service", "NotIn", "bar", "security", "test"), key="zone")]
ANTI_COMPLEX = {"requiredDuringSchedulingIgnoredDuringExecution": COMPLEX_TERMS}
AFFINITY_COMPLEX = {"requiredDuringSchedulingIgnoredDuringExecution": COMPLEX_TERMS}
ADD_REMOVE_NODES = [make_node("nodeA", LABEL1), make_node("nodeB", LABEL2), make_node("nodeC", LABEL3)]


def named(name: str, labels: Mapping[str, str] | None = None, node: str | None = None,
          affinity: Mapping[str, Any] | None = None) -> dict:
    return make_pod(name, labels=labels, node_name=node, affinity=affinity)


ADD_REMOVE_CASES = [
    pytest.param(
        named("pending", SELECTOR1),
        [named("p1", SELECTOR1, "nodeA"), named("p2", None, "nodeC")],
        named("addedPod", SELECTOR1, "nodeB"),
        {}, {},
        id="no affinity exist"),
    pytest.param(
        named("pending", SELECTOR1, affinity={"podAntiAffinity": ANTI_FOO_BAR}),
        [named("p1", SELECTOR1, "nodeA"), named("p2", None, "nodeC", {"podAntiAffinity": ANTI_FOO_BAR})],
        named("addedPod", SELECTOR1, "nodeB", {"podAntiAffinity": ANTI_FOO_BAR}),
        {("region", "r1"): 2}, {},
        id="preFilterState anti-affinity terms are updated correctly after adding and removing a pod"),
    pytest.param(
        named("pending", SELECTOR1, affinity={"podAntiAffinity": ANTI_COMPLEX}),
        [named("p1", SELECTOR1, "nodeA"), named("p2", None, "nodeC", {"podAntiAffinity": ANTI_FOO_BAR})],
        named("addedPod", SELECTOR1, "nodeA", {"podAntiAffinity": ANTI_COMPLEX}),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1}, {},
        id="preFilterState anti-affinity terms are updated correctly after adding and removing a pod"),
    pytest.param(
        named("pending", SELECTOR1, affinity={"podAffinity": AFFINITY_COMPLEX}),
        [named("p1", SELECTOR1, "nodeA"),
         named("p2", None, "nodeC", {"podAntiAffinity": ANTI_FOO_BAR, "podAffinity": AFFINITY_COMPLEX})],
        named("addedPod", SELECTOR1, "nodeA", {"podAntiAffinity": ANTI_COMPLEX}),
        {}, {("region", "r1"): 2, ("zone", "z11"): 2},
        id="preFilterState matching pod affinity and anti-affinity are updated correctly after adding and "
           "removing a pod"),
]


def pre_filter_state(harness: Harness, pod: Any) -> PreFilterState:
    state = CycleState()
    plugin = harness.framework.plugins["InterPodAffinity"]
    assert plugin.ruleset_pre_filter(state, pod, harness.snapshot) is None
    return state.read(PRE_FILTER_STATE_KEY)


def all_pairs(state: PreFilterState, snapshot: Snapshot) -> tuple[dict, dict, dict]:
    return (state.existing_anti_affinity.pairs(snapshot), state.affinity.pairs(snapshot),
            state.anti_affinity.pairs(snapshot))


@pytest.mark.parametrize(("pending", "pods", "added", "expected_anti", "expected_affinity"), ADD_REMOVE_CASES)
def test_pre_filter_state_add_remove_pod(pending: dict, pods: list[dict], added: dict, expected_anti: dict,
                                         expected_affinity: dict) -> None:
    # All pods, the added one included, given to PreFilter at once.
    everything = Harness(["InterPodAffinity"], [*ADD_REMOVE_NODES, *pods, added])
    all_pods_pairs = all_pairs(pre_filter_state(everything, decode(pending)), everything.snapshot)

    harness = Harness(["InterPodAffinity"], [*ADD_REMOVE_NODES, *pods])
    snapshot = harness.snapshot
    pod = decode(pending)
    cycle = CycleState()
    plugin = harness.framework.plugins["InterPodAffinity"]
    plugin.ruleset_pre_filter(cycle, pod, snapshot)
    state: PreFilterState = cycle.read(PRE_FILTER_STATE_KEY)
    original = all_pairs(state, snapshot)

    added_pod = decode(added)
    index = snapshot.node_index[added_pod.node_name]
    snapshot.add_pod(added_pod, index)
    assert plugin.ruleset_pre_filter_add_pod(cycle, added_pod, index, snapshot) is None
    assert state.anti_affinity.pairs(snapshot) == expected_anti
    assert state.affinity.pairs(snapshot) == expected_affinity
    assert all_pairs(state, snapshot) == all_pods_pairs

    snapshot.remove_pod(added_pod)
    assert plugin.ruleset_pre_filter_remove_pod(cycle, added_pod, index, snapshot) is None
    assert all_pairs(state, snapshot) == original


# ---------------------------------------------------------------------------------------------------
# TestPreFilterStateClone
# ---------------------------------------------------------------------------------------------------

def test_pre_filter_state_clone() -> None:
    names = ("machine1", "machine2", "nodeA", "nodeC", "nodeN", "nodeM")
    nodes = [make_node(name, {"name": name}) for name in names]
    snapshot = Harness(["InterPodAffinity"], nodes).snapshot
    index = snapshot.node_index

    def counts(pairs: dict[str, int]) -> TopologyCounts:
        out = TopologyCounts()
        for node, count in pairs.items():
            out.add(snapshot, "name", np.array([index[node]]), count)
        return out

    pod = decode(make_pod("p"))
    source = PreFilterState(pod, pod_info(pod), counts({"machine1": 1, "machine2": 1}),
                            counts({"nodeA": 1, "nodeC": 2}), counts({"nodeN": 3, "nodeM": 1}))
    clone = source.clone()
    assert clone is not source
    assert all_pairs(clone, snapshot) == all_pairs(source, snapshot) == (
        {("name", "machine1"): 1, ("name", "machine2"): 1}, {("name", "nodeA"): 1, ("name", "nodeC"): 2},
        {("name", "nodeN"): 3, ("name", "nodeM"): 1})
    # ruleset: the copy is independent (preemption dry runs update it).
    clone.update_with_pod(decode(make_pod("x")), index["nodeA"], snapshot, 1)
    clone.anti_affinity.add(snapshot, "name", np.array([index["nodeN"]]), -3)
    assert source.anti_affinity.pairs(snapshot) == {("name", "nodeN"): 3, ("name", "nodeM"): 1}
    assert clone.anti_affinity.pairs(snapshot) == {("name", "nodeM"): 1}


# ---------------------------------------------------------------------------------------------------
# TestGetTPMapMatchingIncomingAffinityAntiAffinity
# ---------------------------------------------------------------------------------------------------

def exists_terms(*keys: str) -> list[dict]:
    return [term(expr(key, "Exists"), key="hostname") for key in keys]


def normal_pod(*labels: str) -> dict:
    return make_pod(f"normal-{next(_names)}", labels=dict.fromkeys(labels, ""), node_name="nodeA")


def with_terms(affinity_keys: Sequence[str], anti_keys: Sequence[str]) -> dict:
    return make_pod("affi-antiaffi", affinity={
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": exists_terms(*affinity_keys)},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": exists_terms(*anti_keys)}})


NODE_A = make_node("nodeA", {"hostname": "nodeA"})
ON_A = {("hostname", "nodeA"): 1}

TP_MAP_CASES = [
    pytest.param([], make_pod("aaa-normal"), {}, {}, id="nil test"),
    pytest.param([normal_pod("aaa")], make_pod("aaa-normal"), {}, {},
                 id="incoming pod without affinity/anti-affinity causes a no-op"),
    pytest.param([normal_pod("bbb")], with_terms(["aaa"], ["aaa"]), {}, {},
                 id="no pod has label that violates incoming pod's affinity and anti-affinity"),
    pytest.param([normal_pod("aaa")], with_terms(["aaa"], ["aaa"]), ON_A, ON_A,
                 id="existing pod matches incoming pod's affinity and anti-affinity - single term case"),
    pytest.param([normal_pod("aaa", "bbb")], with_terms(["aaa", "bbb"], ["aaa"]),
                 {("hostname", "nodeA"): 2}, ON_A,
                 id="existing pod matches incoming pod's affinity and anti-affinity - multiple terms case"),
    pytest.param([normal_pod("aaa")], with_terms(["aaa", "bbb"], ["aaa", "bbb"]), {}, ON_A,
                 id="existing pod not match incoming pod's affinity but matches anti-affinity"),
    pytest.param([normal_pod("aaa", "bbb")], with_terms(["aaa", "ccc"], ["aaa", "ccc"]), {}, ON_A,
                 id="incoming pod's anti-affinity has more than one term - existing pod violates partial "
                    "term - case 1"),
    pytest.param([normal_pod("bbb")], with_terms(["aaa", "bbb"], ["aaa", "bbb"]), {}, ON_A,
                 id="incoming pod's anti-affinity has more than one term - existing pod violates partial "
                    "term - case 2"),
]


@pytest.mark.parametrize(("pods", "pod", "want_affinity", "want_anti"), TP_MAP_CASES)
def test_get_tp_map_matching_incoming_affinity_anti_affinity(pods: list[dict], pod: dict, want_affinity: dict,
                                                             want_anti: dict) -> None:
    snapshot = Harness(["InterPodAffinity"], [NODE_A, *pods]).snapshot
    affinity, anti = incoming_affinity_counts(pod_info(decode(pod)), snapshot)
    assert affinity.pairs(snapshot) == want_affinity
    assert anti.pairs(snapshot) == want_anti


# ---------------------------------------------------------------------------------------------------
# ruleset: v1.20 parse errors, nominated pods, preemption
# ---------------------------------------------------------------------------------------------------

def test_anti_affinity_parse_error() -> None:
    pod = incoming(POD_LABEL, None, [term(expr("service", "In", "{{.bad-value.}}"), key="zone")])
    assert run_filter(pod, [], [NODE1]) == {"machine1": (
        "UnschedulableAndUnresolvable", (f"parsing pod: requiredAntiAffinityTerms: {BAD_VALUE_MESSAGE}",))}


def test_last_failing_list_names_the_parse_error() -> None:
    # v1.20 NewPodInfo overwrites the error list by list; the preferred anti-affinity list is last.
    bad = term(expr("service", "In", "{{.bad-value.}}"), key="zone")
    pod = make_pod("incoming", affinity={
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [bad]},
        "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "podAffinityTerm": bad}]}})
    assert run_filter(pod, [], [NODE1])["machine1"][1] == (
        f"parsing pod: preferredAntiAffinityTerms: {BAD_VALUE_MESSAGE}",)


def test_existing_pods_broken_list_is_ignored_but_its_other_lists_count() -> None:
    pods = [existing("machine1", None, [term(expr("service", "In", "{{.bad-value.}}"), key="zone")],
                     [term(expr("service", "Exists"), key="zone")])]
    assert run_filter(incoming(POD_LABEL), pods, [NODE1]) == {"machine1": EXISTING}
    pods = [existing("machine1", None, None, [term(expr("service", "Exists"), key="zone"),
                                              term(expr("service", "In", "{{.bad-value.}}"), key="zone")])]
    assert run_filter(incoming(POD_LABEL), pods, [NODE1]) == {"machine1": SUCCESS}


def test_nil_label_selector_matches_nothing_and_empty_matches_everything() -> None:
    nodes = [make_node("n1", {"zone": "a"})]
    pods = [existing("n1", {"app": "x"})]
    nil_term = {"topologyKey": "zone"}
    empty_term = {"labelSelector": {}, "topologyKey": "zone"}
    assert run_filter(incoming(None, None, [nil_term]), pods, nodes) == {"n1": SUCCESS}
    assert run_filter(incoming(None, None, [empty_term]), pods, nodes) == {"n1": ANTI}


def test_self_match_exception_only_when_no_pair_was_counted_anywhere() -> None:
    # The pod matches its own term, but a matching pod already runs in region r1: region r2
    # must not pass as "the first pod of the group".
    nodes = [make_node("n1", {"region": "r1"}), make_node("n2", {"region": "r2"})]
    pod = incoming({"app": "db"}, [term(expr("app", "In", "db"), key="region")])
    assert run_filter(pod, [existing("n1", {"app": "db"})], nodes) == {"n1": SUCCESS, "n2": AFFINITY}
    # A matching pod on a node without the key counts nowhere, so the exception applies.
    nodes = [make_node("n1", {"zone": "z"}), make_node("n2", {"region": "r2"})]
    assert run_filter(pod, [existing("n1", {"app": "db"})], nodes) == {"n1": AFFINITY, "n2": SUCCESS}


def test_nominated_pod_is_added_through_the_add_pod_extension() -> None:
    nodes = [make_node("n1", {"zone": "a"}), make_node("n2", {"zone": "b"})]
    harness = Harness(["InterPodAffinity"], nodes, points={"InterPodAffinity": ["filter"]})
    nominated = decode(make_pod("nominated", labels={"app": "x"}, priority=10))
    harness.framework.handle.nominator.add(nominated, "n1")
    pod = incoming(None, None, [term(expr("app", "In", "x"), key="zone")])
    assert harness.filter(pod) == {"n1": ANTI, "n2": SUCCESS}


def test_preemption_dry_run_evicts_the_pod_the_anti_affinity_rejects() -> None:
    objects = [make_node("node1", {"kubernetes.io/hostname": "node1"}),
               make_pod("low", labels={"app": "low"}, node_name="node1", priority=0),
               make_pod("bystander", labels={"app": "other"}, node_name="node1", priority=0)]
    harness = Harness(["InterPodAffinity", "DefaultPreemption"], objects)
    pod = make_pod("high", priority=100, affinity={"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            term(expr("app", "In", "low"), key="kubernetes.io/hostname")]}})
    result = harness.run(pod)
    assert result.node is None
    assert result.message == f"0/1 nodes are available: 1 {ERR_REASON_AFFINITY_NOT_MATCH}, " \
                             f"1 {ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH}."
    assert result.post_filter is not None
    report = result.post_filter.details
    assert report.chosen is not None and report.chosen.node == "node1"
    # RemovePod made the node fit; AddPod put the bystander back without breaking the fit.
    assert [v.name for v in report.chosen.victims] == ["low"]
    # The dry run worked on a clone: the cycle's own counts are untouched.
    state: PreFilterState = result.state.read(PRE_FILTER_STATE_KEY)
    assert state.anti_affinity.pairs(harness.snapshot) == {("kubernetes.io/hostname", "node1"): 1}
    assert [p.name for p in harness.snapshot.pods_on(0)] == ["low", "bystander"]


def test_preemption_does_not_help_a_missing_affinity() -> None:
    # Required affinity failures are UnschedulableAndUnresolvable: no node is a candidate.
    objects = [make_node("node1", {"zone": "a"}), make_pod("low", node_name="node1", priority=0)]
    harness = Harness(["InterPodAffinity", "DefaultPreemption"], objects)
    pod = make_pod("high", priority=100, affinity={"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [term(expr("app", "In", "db"), key="zone")]}})
    result = harness.run(pod)
    assert result.post_filter is not None
    assert result.post_filter.details.chosen is None
    assert result.post_filter.details.candidates == []


def test_existing_anti_affinity_victim_is_chosen_over_a_bystander() -> None:
    # The incoming pod violates an existing pod's anti-affinity: evicting that pod frees the node.
    objects = [make_node("node1", {"zone": "a"}),
               make_pod("guard", node_name="node1", priority=0, affinity={"podAntiAffinity": {
                   "requiredDuringSchedulingIgnoredDuringExecution": [
                       term(expr("app", "In", "web"), key="zone")]}}),
               make_pod("bystander", labels={"app": "db"}, node_name="node1", priority=0)]
    harness = Harness(["InterPodAffinity", "DefaultPreemption"], objects)
    result = harness.run(make_pod("web", labels={"app": "web"}, priority=100))
    assert [v.name for v in result.post_filter.details.chosen.victims] == ["guard"]


# ---------------------------------------------------------------------------------------------------
# ruleset: the vectorised PreFilter/Filter against a transcription of the Go loops
# ---------------------------------------------------------------------------------------------------

def _matches(term_obj: Any, pod: Any) -> bool:
    return term_obj.matches(pod)


def reference_filter(pod: Any, snapshot: Snapshot) -> list[tuple]:
    """filtering.go v1.20, one node and one pod at a time with (key, value) dictionaries."""
    info = pod_info(pod)
    existing_counts: dict[tuple[str, str], int] = {}
    affinity_counts: dict[tuple[str, str], int] = {}
    anti_counts: dict[tuple[str, str], int] = {}
    for index, node in enumerate(snapshot.nodes):
        for other in snapshot.pods_on(index):
            other_info = pod_info(other)
            for t in other_info.required_anti_affinity:
                if _matches(t, pod) and t.topology_key in node.labels:
                    pair = (t.topology_key, node.labels[t.topology_key])
                    existing_counts[pair] = existing_counts.get(pair, 0) + 1
            if info.required_affinity and all(_matches(t, other) for t in info.required_affinity):
                for t in info.required_affinity:
                    if t.topology_key in node.labels:
                        pair = (t.topology_key, node.labels[t.topology_key])
                        affinity_counts[pair] = affinity_counts.get(pair, 0) + 1
            for t in info.required_anti_affinity:
                if _matches(t, other) and t.topology_key in node.labels:
                    pair = (t.topology_key, node.labels[t.topology_key])
                    anti_counts[pair] = anti_counts.get(pair, 0) + 1
    out = []
    for node in snapshot.nodes:
        labels = node.labels
        ok = True
        pods_exist = True
        for t in info.required_affinity:
            if t.topology_key not in labels:
                ok = False
                break
            if affinity_counts.get((t.topology_key, labels[t.topology_key]), 0) <= 0:
                pods_exist = False
        if ok and not pods_exist:
            ok = not affinity_counts and bool(info.required_affinity) and all(
                _matches(t, pod) for t in info.required_affinity)
        if not ok:
            out.append(AFFINITY)
            continue
        if any(t.topology_key in labels and anti_counts.get((t.topology_key, labels[t.topology_key]), 0) > 0
               for t in info.required_anti_affinity):
            out.append(ANTI)
            continue
        if any(existing_counts.get(pair, 0) > 0 for pair in labels.items()):
            out.append(EXISTING)
            continue
        out.append(SUCCESS)
    return out


def random_term(rng: random.Random) -> dict:
    key = rng.choice(["app", "tier", "team"])
    operator = rng.choice(["In", "NotIn", "Exists", "DoesNotExist"])
    values = rng.sample(["a", "b", "c"], rng.randint(1, 2)) if operator in ("In", "NotIn") else []
    namespaces = rng.choice([None, None, ["ns1"], ["ns1", "ns2"]])
    return term(expr(key, operator, *values), key=rng.choice(["zone", "region", "host", "rack"]),
                namespaces=namespaces)


def random_labels(rng: random.Random) -> dict[str, str]:
    return {k: rng.choice(["a", "b", "c"]) for k in ("app", "tier", "team") if rng.random() < 0.6}


def random_affinity(rng: random.Random) -> dict | None:
    if rng.random() < 0.4:
        return None
    return terms_affinity([random_term(rng) for _ in range(rng.randint(0, 2))],
                          [random_term(rng) for _ in range(rng.randint(0, 2))])


@pytest.mark.parametrize("seed", range(25))
def test_filter_matches_a_per_node_transcription_of_upstream(seed: int) -> None:
    rng = random.Random(seed)
    nodes = []
    for i in range(rng.randint(1, 12)):
        labels = {"host": f"h{i}"}
        for key, values in (("zone", "zz"), ("region", "r"), ("rack", "k")):
            if rng.random() < 0.8:
                labels[key] = f"{values}{rng.randint(0, 2)}"
        nodes.append(make_node(f"n{i}", labels))
    pods = [make_pod(f"p{j}", rng.choice(["ns1", "ns2"]), random_labels(rng),
                     node_name=f"n{rng.randrange(len(nodes))}", affinity=random_affinity(rng))
            for j in range(rng.randint(0, 30))]
    harness = Harness(["InterPodAffinity"], [*nodes, *pods], points={"InterPodAffinity": ["filter"]})
    for k in range(5):
        pod = decode(make_pod(f"incoming{k}", rng.choice(["ns1", "ns2"]), random_labels(rng),
                              affinity=random_affinity(rng)))
        got = harness.filter(pod)
        assert [got[n["metadata"]["name"]] for n in nodes] == reference_filter(pod, harness.snapshot)
