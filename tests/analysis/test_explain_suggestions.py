"""``ruleset.analysis.explain``: the verified suggestions for NodeUnschedulable, NodePorts,
PodTopologySpread, InterPodAffinity's required affinity, NodeAffinity's other operators and
NodeName.

As in test_explain.py, each case is checked twice: the plugin and reason on every node with the
suggestions' text and change, and then each change applied to the pod manifest as a user would
and ``ruleset score`` run on it: the pod must then fit exactly the promised nodes. No upstream
table is ported: kube-scheduler has no explain.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from ruleset.analysis.explain import Explanation, explain_pod
from ruleset.app import prepare_run, take_pod_file
from tests.analysis.explain_cases import GPU, apply, fitting_after, node, pod

UNRESOLVABLE = "UnschedulableAndUnresolvable"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


def cordoned(name: str, **kwargs: Any) -> dict[str, Any]:
    out = node(name, **kwargs)
    out["spec"]["unschedulable"] = True
    return out


def with_ports(manifest: dict[str, Any], *host_ports: int) -> dict[str, Any]:
    manifest["spec"]["containers"][0]["ports"] = [{"containerPort": 80 + k, "hostPort": p}
                                                  for k, p in enumerate(host_ports)]
    return manifest


def spread(key: str, max_skew: int = 1) -> list[dict[str, Any]]:
    return [{"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "web"}}}]


def pod_affinity(labels: dict[str, str], key: str) -> dict[str, Any]:
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": labels}, "topologyKey": key}]}}


def node_affinity(*expressions: dict[str, Any]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": list(expressions)}]}}}


WEB = {"app": "web"}
#: id → (cluster objects, the pod to explain).
CASES: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {
    "cordoned": (
        [cordoned("c-1"), cordoned("c-2"), node("t-1", taints=[GPU])],
        pod("web")),
    "host-ports": (
        [node("p-1"), node("p-2"), node("p-3", taints=[GPU]),
         with_ports(pod("a", node_name="p-1"), 8080), with_ports(pod("b", node_name="p-2"), 8080, 8081)],
        with_ports(pod("web"), 8080)),
    "spread-skew": (
        [node("a-1", labels={"zone": "a"}), node("b-1", labels={"zone": "b"}, taints=[GPU]),
         pod("w-1", labels=WEB, node_name="a-1"), pod("w-2", labels=WEB, node_name="a-1")],
        pod("web", labels=WEB, topologySpreadConstraints=spread("zone"))),
    "spread-missing-label": (
        [node("n-1"), node("n-2")],
        pod("web", labels=WEB, topologySpreadConstraints=spread("rack"))),
    "pod-affinity-elsewhere": (
        [node("a-1", labels={"zone": "a"}, taints=[GPU]), node("a-2", labels={"zone": "a"}, taints=[GPU]),
         node("b-1", labels={"zone": "b"}), pod("cache-1", labels={"app": "cache"}, node_name="a-1")],
        pod("web", affinity=pod_affinity({"app": "cache"}, "zone"))),
    "pod-affinity-nowhere": (
        [node("n-1"), node("n-2")],
        pod("web", affinity=pod_affinity({"app": "cache"}, "kubernetes.io/hostname"))),
    "node-affinity-together": (
        [node("x-1", labels={"gpu": "yes", "zone": "a", "cores": "32"}),
         node("x-2", labels={"zone": "b", "cores": "16"}), node("x-3", labels={"zone": "c", "cores": "16"}),
         node("x-4", labels={"gpu": "yes", "zone": "b", "cores": "4"})],
        pod("web", affinity=node_affinity({"key": "gpu", "operator": "Exists"},
                                          {"key": "zone", "operator": "NotIn", "values": ["a"]},
                                          {"key": "cores", "operator": "Gt", "values": ["8"]}))),
    "node-affinity-does-not-exist": (
        [node("y-1", labels={"ssd": "1"}), node("y-2", labels={"ssd": "1"})],
        pod("web", affinity=node_affinity({"key": "ssd", "operator": "DoesNotExist"}))),
    "node-selector-together": (
        [node("s-1", labels={"disk": "ssd", "zone": "a"}), node("s-2", labels={"disk": "hdd", "zone": "b"}),
         node("s-3", labels={"disk": "hdd", "zone": "b"})],
        pod("web", nodeSelector={"disk": "ssd", "zone": "b"})),
    "node-affinity-two-terms": (
        [node("x-1", labels={"gpu": "yes", "zone": "a"}), node("x-2", labels={"zone": "b"})],
        pod("web", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "gpu", "operator": "Exists"},
                                      {"key": "zone", "operator": "NotIn", "values": ["a"]}]},
                {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["64"]}]}]}}})),
    "node-name": (
        [node("n-1", cpu="1"), node("n-2"), node("n-3")],
        pod("web", cpu="2", node_name="n-1")),
}

TAINT_REASON = "node(s) had untolerated taint(s)"
GPU_TOLERATION = {"kind": "toleration", "key": "dedicated", "operator": "Equal", "value": "gpu",
                  "effect": "NoSchedule"}
GPU_TEXT = "tolerating dedicated=gpu:NoSchedule opens {} (the taint is on 1 rejected node)"
PORTS = "node(s) didn't have free ports for the requested pod ports"
SPREAD = "node(s) didn't match pod topology spread constraints"
AFFINITY = ["node(s) didn't match pod affinity rules"]
NODE_AFFINITY = "node(s) didn't match Pod's node affinity"

#: case → (groups as (plugin, code, reasons, count, examples), suggestions as (plugin, text, change,
#: nodes, examples)).
EXPECTED: dict[str, tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]] = {
    "cordoned": (
        [("NodeUnschedulable", UNRESOLVABLE, ["node(s) were unschedulable"], 2, ["c-1", "c-2"]),
         ("TaintToleration", UNRESOLVABLE, [TAINT_REASON], 1, ["t-1"])],
        [("NodeUnschedulable",
          f"2 nodes cordoned (spec.unschedulable); tolerating {UNSCHEDULABLE_TAINT}:NoSchedule opens 2 nodes",
          {"kind": "toleration", "key": UNSCHEDULABLE_TAINT, "operator": "Exists", "value": "",
           "effect": "NoSchedule"}, 2, ["c-1", "c-2"]),
         ("TaintToleration", GPU_TEXT.format("1 node"), GPU_TOLERATION, 1, ["t-1"])]),
    "host-ports": (
        [("NodePorts", "Unschedulable", [PORTS], 2, ["p-1", "p-2"]),
         ("TaintToleration", UNRESOLVABLE, [TAINT_REASON], 1, ["p-3"])],
        [("NodePorts", "hostPort 8080/TCP (container c) is in use on 2 nodes: without it the pod fits 2 nodes",
          {"kind": "dropHostPort", "container": "c", "containerPort": 80, "protocol": "TCP", "hostPort": 8080},
          2, ["p-1", "p-2"]),
         ("NodePorts", "with hostPort 8081 instead of 8080 (the smallest free on a rejected node) the pod fits "
          "1 node",
          {"kind": "hostPort", "container": "c", "containerPort": 80, "protocol": "TCP", "hostPort": 8080,
           "suggested": 8081}, 1, ["p-1"]),
         ("TaintToleration", GPU_TEXT.format("1 node"), GPU_TOLERATION, 1, ["p-3"])]),
    "spread-skew": (
        [("PodTopologySpread", "Unschedulable", [SPREAD], 1, ["a-1"]),
         ("TaintToleration", UNRESOLVABLE, [TAINT_REASON], 1, ["b-1"])],
        [("PodTopologySpread", "topology spread constraint 0 (topologyKey zone, maxSkew 1): with maxSkew 3 "
          "the pod fits 1 node",
          {"kind": "topologySpread", "constraint": 0, "topologyKey": "zone", "maxSkew": 1, "suggested": 3},
          1, ["a-1"]),
         ("TaintToleration", GPU_TEXT.format("1 node"), GPU_TOLERATION, 1, ["b-1"])]),
    "spread-missing-label": (
        [("PodTopologySpread", UNRESOLVABLE, [SPREAD + " (missing required label)"], 2, ["n-1", "n-2"])],
        [("PodTopologySpread", "topology spread constraint 0 (topologyKey rack, maxSkew 1): no maxSkew admits "
          "a node; with whenUnsatisfiable ScheduleAnyway the pod fits 2 nodes",
          {"kind": "topologySpread", "constraint": 0, "topologyKey": "rack", "maxSkew": 1,
           "whenUnsatisfiable": "ScheduleAnyway"}, 2, ["n-1", "n-2"])]),
    "pod-affinity-elsewhere": (
        [("TaintToleration", UNRESOLVABLE, [TAINT_REASON], 2, ["a-1", "a-2"]),
         ("InterPodAffinity", UNRESOLVABLE, AFFINITY, 1, ["b-1"])],
        [("TaintToleration", "tolerating dedicated=gpu:NoSchedule opens 2 nodes (the taint is on 2 rejected "
          "nodes)", GPU_TOLERATION, 2, ["a-1", "a-2"]),
         ("InterPodAffinity", "required pod affinity term 0 (app=cache, topologyKey zone) matches pods only in "
          "zone=a: without it the pod fits 1 node",
          {"kind": "dropPodAffinityTerm", "term": 0, "topologyKey": "zone", "domains": ["a"]}, 1, ["b-1"])]),
    "pod-affinity-nowhere": (
        [("InterPodAffinity", UNRESOLVABLE, AFFINITY, 2, ["n-1", "n-2"])],
        [("InterPodAffinity", "required pod affinity term 0 (app=cache, topologyKey kubernetes.io/hostname) "
          "matches no pod in the cluster: without it the pod fits 2 nodes",
          {"kind": "dropPodAffinityTerm", "term": 0, "topologyKey": "kubernetes.io/hostname", "domains": []},
          2, ["n-1", "n-2"])]),
    "node-affinity-together": (
        [("NodeAffinity", UNRESOLVABLE, [NODE_AFFINITY], 4, ["x-1", "x-2", "x-3", "x-4"])],
        [("NodeAffinity", "the pod's node requirements exclude 4 nodes; without gpu Exists the pod fits 2 nodes",
          {"kind": "dropNodeAffinityExpression", "term": 0, "expression": 0, "key": "gpu", "operator": "Exists",
           "values": []}, 2, ["x-2", "x-3"])]),
    "node-affinity-does-not-exist": (
        [("NodeAffinity", UNRESOLVABLE, [NODE_AFFINITY], 2, ["y-1", "y-2"])],
        [("NodeAffinity", "the pod's node requirements exclude 2 nodes; without ssd DoesNotExist the pod fits "
          "2 nodes",
          {"kind": "dropNodeAffinityExpression", "term": 0, "expression": 0, "key": "ssd",
           "operator": "DoesNotExist", "values": []}, 2, ["y-1", "y-2"])]),
    "node-selector-together": (
        [("NodeAffinity", UNRESOLVABLE, [NODE_AFFINITY], 3, ["s-1", "s-2", "s-3"])],
        [("NodeAffinity", "the pod's node requirements exclude 3 nodes; without nodeSelector disk=ssd the pod "
          "fits 2 nodes", {"kind": "dropNodeSelector", "key": "disk", "value": "ssd"}, 2, ["s-2", "s-3"])]),
    "node-affinity-two-terms": (
        [("NodeAffinity", UNRESOLVABLE, [NODE_AFFINITY], 2, ["x-1", "x-2"])],
        [("NodeAffinity", "the pod's node requirements exclude 2 nodes; without gpu Exists (term 0) the pod "
          "fits 1 node",
          {"kind": "dropNodeAffinityExpression", "term": 0, "expression": 0, "key": "gpu", "operator": "Exists",
           "values": []}, 1, ["x-2"])]),
    "node-name": (
        [("NodeName", UNRESOLVABLE, ["node(s) didn't match the requested node name"], 2, ["n-2", "n-3"]),
         ("NodeResourcesFit", UNRESOLVABLE, ["Insufficient cpu"], 1, ["n-1"])],
        [("NodeResourcesFit", "1 node would fit with 1 less cpu requested",
          {"kind": "request", "resource": "cpu", "less": 1000, "quantity": "1", "requested": 2000,
           "newRequest": 1000}, 1, ["n-1"]),
         ("NodeName", "the pod is pinned to node n-1 (spec.nodeName); without spec.nodeName it fits 2 nodes",
          {"kind": "dropNodeName", "nodeName": "n-1"}, 2, ["n-2", "n-3"])]),
}


def write_case(tmp_path: Path, case: str) -> tuple[str, str, dict[str, Any]]:
    objects, the_pod = CASES[case]
    cluster, pod_file = tmp_path / "cluster.yaml", tmp_path / "pod.yaml"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    pod_file.write_text(json.dumps(the_pod))
    return str(cluster), str(pod_file), the_pod


def explain_file(cluster: str, pod_file: str) -> Explanation:
    framework, state = prepare_run(None, [cluster], [pod_file], replace=True)
    the_pod, refused = take_pod_file(pod_file, state)
    return explain_pod(framework, state, the_pod, refused=refused)


def apply_more(manifest: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with a suggestion's ``change`` made as a user would edit it (the kinds
    explain_cases.apply does not know)."""
    out = copy.deepcopy(manifest)
    spec = out["spec"]
    kind = change["kind"]
    if kind in ("dropHostPort", "hostPort"):
        container = next(c for c in spec["containers"] if c["name"] == change["container"])
        port = next(p for p in container["ports"] if p.get("hostPort") == change["hostPort"])
        if kind == "dropHostPort":
            del port["hostPort"]
        else:
            port["hostPort"] = change["suggested"]
    elif kind == "topologySpread":
        constraint = spec["topologySpreadConstraints"][change["constraint"]]
        if "suggested" in change:
            constraint["maxSkew"] = change["suggested"]
        else:
            constraint["whenUnsatisfiable"] = change["whenUnsatisfiable"]
    elif kind == "dropPodAffinityTerm":
        terms = spec["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        del terms[change["term"]]
    elif kind == "dropNodeAffinityExpression":
        affinity = spec["affinity"]["nodeAffinity"]
        terms = affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        expressions = terms[change["term"]]["matchExpressions"]
        assert expressions[change["expression"]]["key"] == change["key"]
        del expressions[change["expression"]]
        if not expressions:
            del terms[change["term"]]
        if not terms:
            del affinity["requiredDuringSchedulingIgnoredDuringExecution"]
    elif kind == "dropNodeSelector":
        assert spec["nodeSelector"].pop(change["key"]) == change["value"]
    elif kind == "dropNodeName":
        assert spec.pop("nodeName") == change["nodeName"]
    else:
        return apply(manifest, change)
    return out


@pytest.mark.parametrize("case", list(EXPECTED), ids=list(EXPECTED))
def test_a_blocked_pod_names_plugin_and_reason_per_node_and_a_verified_change(tmp_path, case):
    cluster, pod_file, _ = write_case(tmp_path, case)
    explanation = explain_file(cluster, pod_file)
    groups, suggestions = EXPECTED[case]
    assert explanation.outcome == "unschedulable"
    assert [(g.plugin, g.code, g.reasons, g.count, g.examples) for g in explanation.rejected] == groups
    assert [(s.plugin, s.text, s.change, s.nodes, s.examples) for s in explanation.suggestions] == suggestions
    assert explanation.blockers == []  # no pod blocks by anti-affinity, not even on the pod-affinity nodes


@pytest.mark.parametrize("case", list(EXPECTED), ids=list(EXPECTED))
def test_applying_each_suggestion_to_the_manifest_fits_the_promised_nodes(tmp_path, capsys, case):
    cluster, pod_file, manifest = write_case(tmp_path, case)
    suggestions = explain_file(cluster, pod_file).suggestions
    assert suggestions
    for suggestion in suggestions:
        fits = fitting_after(capsys, tmp_path, cluster, apply_more(manifest, suggestion.change))
        assert (len(fits), fits[:5]) == (suggestion.nodes, suggestion.examples)


def test_every_case_has_expectations():
    assert set(CASES) == set(EXPECTED)
