"""Malformed workloads: located problems, no pods, never an exception."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from ruleset.workloads import expand, scale
from tests.workloads.kit import node, yaml_doc

BASE = """\
kind: {kind}
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels:
        app: web
    spec:
      containers: [{{name: c}}]
"""


def _doc(kind: str, old: str = "", new: str = "") -> Any:
    text = BASE.format(kind=kind)
    assert old in text
    return yaml_doc(text.replace(old, new, 1) if old else text, "w.yaml")


@pytest.mark.parametrize(("kind", "old", "new", "problems"), [
    ("Deployment", "  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n"
     "      containers: [{name: c}]\n", "",
     [(5, "Deployment default/web: spec.template", "Required value")]),
    ("Deployment", "  template:\n", "  template: nope\n  x:\n",
     [(8, "Deployment default/web: spec.template", "expected an object, got a string")]),
    ("Deployment", "  replicas: 2", "  replicas: -1",
     [(5, "Deployment default/web: spec.replicas", "Invalid value: -1: must be greater than or equal to 0")]),
    ("ReplicaSet", "  replicas: 2", "  replicas: '2'",
     [(5, "ReplicaSet default/web: spec.replicas", "expected an integer, got a string")]),
    ("StatefulSet", "  replicas: 2", "  replicas: 2147483648",
     [(5, "StatefulSet default/web: spec.replicas",
       "Invalid value: 2147483648: must be between -2147483648 and 2147483647, inclusive (an int32 field)")]),
    ("Deployment", "  replicas: 2", "  replicas: 150001",
     [(5, "Deployment default/web: spec.replicas", "Invalid value: 150001: more pods than ruleset expands from "
       "one workload (150,000, Kubernetes' limit of pods per cluster)")]),
    ("Deployment", "  name: web\n", "  namespace: x\n",
     [(3, "Deployment: metadata.name", "Required value")]),
    ("ReplicaSet", "spec:\n", "spec: 3\nx:\n",
     [(4, "ReplicaSet default/web: spec", "expected an object, got an integer")]),
    ("Deployment", "      labels:\n        app: web\n", "      labels: [app]\n",
     [(10, "Deployment default/web: spec.template.metadata.labels", "expected an object, got a list")]),
    ("Deployment", "        app: web\n", "        app: other\n",
     [(10, "Deployment default/web: spec.template.metadata.labels",
       'Invalid value: {"app":"other"}: `selector` does not match template `labels`')]),
    ("StatefulSet", "  selector:\n    matchLabels: {app: web}\n", "",
     [(5, "StatefulSet default/web: spec.selector", "Required value")]),
    ("DaemonSet", "    matchLabels: {app: web}\n", "    matchLabels: {}\n",
     [(6, "DaemonSet default/web: spec.selector", "Invalid value: {}: empty selector is not valid for daemonset.")]),
    ("ReplicaSet", "    matchLabels: {app: web}\n", "    matchExpressions: [{key: app, operator: Is}]\n",
     [(6, "ReplicaSet default/web: spec.selector",
       'Invalid value: {"matchExpressions":[{"key":"app","operator":"Is"}]}: invalid label selector: '
       '"Is" is not a valid pod selector operator')]),
    ("ReplicationController", "  selector:\n    matchLabels: {app: web}\n", "  selector: {app: other}\n",
     [(9, "ReplicationController default/web: spec.template.metadata.labels",
       'Invalid value: {"app":"web"}: `selector` does not match template `labels`')]),
    ("ReplicationController", "      labels:\n        app: web\n", "",
     [(6, "ReplicationController default/web: spec.selector", "expected an object, got a list")]),
    ("Job", "  replicas: 2", "  parallelism: -2\n  completions: x",
     [(5, "Job default/web: spec.parallelism", "Invalid value: -2: must be greater than or equal to 0"),
      (6, "Job default/web: spec.completions", "expected an integer, got a string")]),
    ("DaemonSet", "      containers: [{name: c}]\n", "      tolerations: [{key: a, operator: Exists, value: b}]\n",
     [(13, "DaemonSet default/web: spec.template.spec.tolerations[0].operator",
       'Invalid value: core.Toleration{Key:"a", Operator:"Exists", Value:"b", Effect:""}: '
       "value must be empty when `operator` is 'Exists'")]),
    ("DaemonSet", "      containers: [{name: c}]\n", "      affinity: {nodeAffinity: 3}\n",
     [(13, "DaemonSet default/web: spec.template.spec.affinity.nodeAffinity", "expected an object, got an integer")]),
], ids=["no-template", "template-string", "negative-replicas", "string-replicas", "int32-replicas", "too-many",
        "no-name", "spec-int", "labels-list", "selector-mismatch", "no-selector", "empty-selector", "bad-operator",
        "rc-mismatch", "rc-selector-list", "job-counts", "daemon-toleration", "daemon-affinity"])
def test_problems_are_located_and_nothing_is_expanded(kind: str, old: str, new: str,
                                                       problems: list[tuple[int, str, str]]) -> None:
    if kind == "ReplicationController" and "labels" in old:
        raw = yaml_doc(BASE.format(kind=kind).replace(old, new).replace(
            "  selector:\n    matchLabels: {app: web}\n", "  selector: [app]\n"), "w.yaml")
    else:
        raw = _doc(kind, old, new)
    expansion = expand(kind, raw, [node("n")], file="w.yaml")
    assert [(p.file, p.line, p.path, p.message, p.code) for p in expansion.problems] == [
        ("w.yaml", line, path, message, "invalid-object") for line, path, message in problems]
    assert (expansion.pods, expansion.objects) == ([], [])


def test_problem_without_lines_names_the_document() -> None:
    expansion = expand("Deployment", {"metadata": {"name": "web"}, "spec": {}}, [], file="w.json", document=2)
    assert [str(p) for p in expansion.problems] == [
        "w.json: document 3: Deployment default/web: spec.template: Required value"]


GARBAGE: list[Any] = [None, 0, -1, 2**70, 1.5, True, "x", [], [1, None], {}, {"a": None}, {1: 2}, [[{}]]]


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "Job",
                                  "DaemonSet"])
def test_garbage_anywhere_never_raises(kind: str) -> None:
    paths = [(), ("metadata",), ("metadata", "name"), ("metadata", "uid"), ("metadata", "annotations"),
             ("spec",), ("spec", "replicas"), ("spec", "selector"), ("spec", "selector", "matchLabels"),
             ("spec", "template"), ("spec", "template", "metadata"), ("spec", "template", "metadata", "labels"),
             ("spec", "template", "spec"), ("spec", "template", "spec", "tolerations"),
             ("spec", "template", "spec", "affinity"), ("spec", "template", "spec", "nodeSelector"),
             ("spec", "parallelism"), ("spec", "completions"), ("spec", "serviceName"), ("status",),
             ("spec", "strategy"), ("spec", "template", "spec", "hostNetwork")]
    nodes = [node("n", taints=[{"key": "k", "effect": "NoSchedule"}])]
    for path, value in itertools.product(paths, GARBAGE):
        raw = BASE.format(kind=kind)
        doc = yaml_doc(raw)
        if not path:
            doc = value
        else:
            target = doc
            for key in path[:-1]:
                target = target.setdefault(key, {}) if isinstance(target, dict) else {}
            if isinstance(target, dict):
                target[path[-1]] = value
        expansion = expand(kind, doc, nodes)
        scaled = scale(kind, doc, 3, [])
        for result in (expansion, scaled):
            assert isinstance(result.pods, list) and isinstance(result.problems, list)
            assert not (result.pods and result.problems)
