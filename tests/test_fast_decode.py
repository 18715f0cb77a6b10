"""The fast paths of snapshot loading (issue 16) give exactly what the checking paths give.

* ``decode_pod`` (``api/pod.py``'s ``_known_pod``, ``api/meta.known_meta``,
  ``api/validation.known_resource_list``) against ``decode_pod_checked``: the same pod, field
  by field and type by type, the same located problems in the same order, the same context
  subject; on randomised pods (well-formed ones, and each mutated in one or more places),
  read as JSON (plain dicts) and as YAML (located dicts, so problems carry lines), and on a
  table of edge cases.
* ``Admission.admit`` of stored pods (``_admit_stored``) against the ``Editor`` path: the same
  stored object, the same counts and names taken.
* ``newer_fields``' shortcut reads only the spec keys its tests read.
* ``Snapshot.add_pods`` against ``add_pod`` one pod at a time: every column, port table and
  pod table the same.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import pytest
import yaml

from ruleset import reading, yaml_reading
from ruleset.admission import admitter
from ruleset.admission.admitter import Admission
from ruleset.api import decode as api_decode
from ruleset.api import validation
from ruleset.api.decode import DecodeContext
from ruleset.api.node import decode_node
from ruleset.api.pod import Pod, decode_pod, decode_pod_checked
from ruleset.manifests import decode_documents
from ruleset.manifests import newer as newer_module
from ruleset.manifests.newer import NEWER_FIELDS, newer_fields
from ruleset.snapshot import Snapshot

# ------------------------------------------------------------------ comparing


def _plain(value: Any) -> Any:
    """A value with every dataclass turned into (type name, fields), recursively: compared with
    ``==`` and by ``repr`` (which tells ``1`` from ``Fraction(1)`` from ``True`` from ``"1"``)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,
                tuple((f.name, _plain(getattr(value, f.name))) for f in dataclasses.fields(value)))
    if isinstance(value, dict):
        return (type(value).__name__, tuple((_plain(k), _plain(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_plain(v) for v in value))
    return value


def _decoded(decoder: Callable[[DecodeContext, Any], Pod], raw: Any, api_checks: bool,
             fast: bool = True) -> tuple[Any, str]:
    api_decode.FAST_PATHS = fast
    try:
        ctx = DecodeContext(file="pods.yaml", document=3, subject="Pod", api_checks=api_checks)
        pod = decoder(ctx, copy.deepcopy(raw))
    finally:
        api_decode.FAST_PATHS = True
    outcome = (_plain(pod), [_plain(p) for p in ctx.problems], ctx.subject)
    return outcome, repr(outcome)


def assert_same_decode(raw: Any, api_checks: bool = True) -> None:
    """decode_pod with the fast paths == decode_pod_checked without any (the reference), and
    decode_pod without them too; before and after the checking path has remembered the pod's
    quantities."""
    fast = _decoded(decode_pod, raw, api_checks)
    checked = _decoded(decode_pod_checked, raw, api_checks, fast=False)
    assert fast == checked
    assert _decoded(decode_pod, raw, api_checks, fast=False) == checked
    assert _decoded(decode_pod, raw, api_checks) == checked
    assert _decoded(decode_pod_checked, raw, api_checks) == checked


@pytest.fixture(autouse=True)
def _fresh_memo(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with no remembered quantity (the fast path's memo is process-wide)."""
    monkeypatch.setattr(validation, "_ACCEPTED", ({}, {}))
    monkeypatch.setattr(validation, "_ACCEPTED_SIZE", [0])
    yield


# ------------------------------------------------------------------ random pods

QUANTITIES = ["100m", "1", "500Mi", "2Gi", "0", "1e3", " 250m ", "0.5", "1.5", "-1", "-100m", "abc", "",
              "9223372036854775807", "9223372036854775808", "1Ei", "12345678901234567890123456",
              1, 2, 0, -3, 0.5, 1.0, 2.5e3, True, None, [], {"a": 1}]
RESOURCE_NAMES = ["cpu", "memory", "pods", "example.com/gpu", "hugepages-2Mi", "ephemeral-storage",
                  "nvidia.com/gpu", "bad name/x/y"]
LABEL_KEYS = ["app", "tier", "kubernetes.io/hostname", "example.com/team", "bad key!", "-x", "a/b/c", ""]
LABEL_VALUES = ["web", "db", "", "v1.2", "x" * 64, "bad value!", "-start", 1, 2.5, True, None]
TEXTS = ["", "a", "web", "default-scheduler", "other", "node-1", 1, 2.5, True, None, [], {}]


def _maybe(rng: random.Random, p: float = 0.5) -> bool:
    return rng.random() < p


def _good_quantity(rng: random.Random, name: str) -> str:
    if name == "cpu":
        return rng.choice(["100m", "1", "250m", "2", "0"])
    if name == "memory":
        return rng.choice(["500Mi", "1Gi", "128974848", "1e3"])
    return rng.choice(["1", "2", "0"])


def _resources(rng: random.Random, good: bool) -> dict[str, Any]:
    out = {}
    for name in rng.sample(RESOURCE_NAMES[:6] if good else RESOURCE_NAMES, rng.randint(0, 3)):
        out[name] = _good_quantity(rng, name) if good else rng.choice(QUANTITIES)
    return out


def _labels(rng: random.Random, good: bool) -> dict[Any, Any]:
    keys = LABEL_KEYS[:4] if good else LABEL_KEYS
    values = LABEL_VALUES[:4] if good else LABEL_VALUES
    out: dict[Any, Any] = {rng.choice(keys): rng.choice(values) for _ in range(rng.randint(0, 3))}
    if not good and _maybe(rng, 0.1):
        out[7] = "seven"
    return out


def _container(rng: random.Random, good: bool, i: int) -> Any:
    if not good and _maybe(rng, 0.05):
        return rng.choice(["text", 3, None, []])
    c: dict[str, Any] = {"name": f"c{i}" if good else rng.choice(TEXTS), "image": "registry.k8s.io/pause:3.10"}
    if _maybe(rng, 0.8):
        resources: Any = {}
        if _maybe(rng, 0.9):
            resources["requests"] = _resources(rng, good)
        if _maybe(rng):
            resources["limits"] = _resources(rng, good)
        if not good and _maybe(rng, 0.1):
            resources = rng.choice([None, [], "x", {"requests": None}, {"requests": [1]}])
        c["resources"] = resources
    if _maybe(rng, 0.6):
        ports = []
        for _ in range(rng.randint(0, 2)):
            port: Any = {"containerPort": rng.choice([80, 8080, 443])}
            if _maybe(rng, 0.3):
                port["hostPort"] = rng.choice([0, 80, 8080])
            if _maybe(rng, 0.3):
                port["protocol"] = rng.choice(["TCP", "UDP", "SCTP"])
            if _maybe(rng, 0.1):
                port["hostIP"] = "10.0.0.1"
            if not good and _maybe(rng, 0.3):
                key = rng.choice(["containerPort", "hostPort", "protocol", "hostIP"])
                port[key] = rng.choice([0, -1, 70000, 2**31, "80", True, 80.0, 80.5, None, "tcp", "", "HTTP", 5])
            if not good and _maybe(rng, 0.05):
                port = rng.choice([None, "80", 80])
            ports.append(port)
        c["ports"] = ports if good or _maybe(rng, 0.9) else rng.choice([None, "x", {}])
    if _maybe(rng, 0.1):
        c["restartPolicy"] = "Always" if good else rng.choice(TEXTS)
    if not good and _maybe(rng, 0.05):
        c["name"] = rng.choice([1, None, True])
    return c


def _affinity(rng: random.Random) -> Any:
    term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
    return rng.choice([
        {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}},
        {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": rng.choice([1, 100, 0, 101]), "podAffinityTerm": term}]}},
        {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", 1]}]}]}}},
        {}, "bad",
    ])


def random_pod(rng: random.Random) -> dict[str, Any]:
    """A pod manifest: usually well-formed (the fast path's shapes), sometimes not at all."""
    good = _maybe(rng, 0.5)
    meta: dict[str, Any] = {"name": f"pod-{rng.randint(0, 999)}"}
    if _maybe(rng, 0.8):
        meta["namespace"] = rng.choice(["default", "sched-0", ""])
    if _maybe(rng, 0.7):
        meta["labels"] = _labels(rng, good)
    if _maybe(rng, 0.3):
        meta["annotations"] = {"a": "b"} if good else rng.choice([{"a": 1}, {"a": None}, "x", {1: "b"}])
    if _maybe(rng, 0.3):
        meta["uid"] = "0123-abc" if good else rng.choice(TEXTS)
    if _maybe(rng, 0.3):
        ref = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u-1",
               "controller": True, "blockOwnerDeletion": True}
        if not good:
            ref[rng.choice(["kind", "name", "uid", "controller"])] = rng.choice(TEXTS)
        meta["ownerReferences"] = [ref] if good or _maybe(rng) else rng.choice(["x", [None], None])
    if _maybe(rng, 0.3):
        meta["creationTimestamp"] = ("2024-01-02T03:04:05Z" if good
                                     else rng.choice(["yesterday", 5, "2024-01-02", "2024-01-02T03:04:05"]))
    if _maybe(rng, 0.1):
        meta["deletionTimestamp"] = "2024-01-02T03:04:06Z" if good else rng.choice(["x", 1.5])
    if not good and _maybe(rng, 0.1):
        meta[rng.choice(["name", "namespace"])] = rng.choice(TEXTS)
    spec: dict[str, Any] = {"containers": [_container(rng, good, i) for i in range(rng.randint(0, 3))]}
    if _maybe(rng, 0.15):
        spec["initContainers"] = [_container(rng, good, i) for i in range(rng.randint(0, 2))]
    if _maybe(rng, 0.5):
        spec["nodeName"] = f"node-{rng.randint(0, 3)}"
    if _maybe(rng, 0.3):
        spec["schedulerName"] = rng.choice(["default-scheduler", "other", ""])
    if _maybe(rng, 0.3):
        spec["priority"] = rng.choice([0, 10, -5, 2**31 - 1]) if good else rng.choice(
            [2**31, 1.0, 1.5, True, "10", None])
    if _maybe(rng, 0.2):
        spec["priorityClassName"] = "high"
    if _maybe(rng, 0.1):
        spec["preemptionPolicy"] = "Never"
    if _maybe(rng, 0.3):
        spec["nodeSelector"] = _labels(rng, good)
    if _maybe(rng, 0.2):
        spec["volumes"] = [{"name": "v", "emptyDir": {}}] if good else rng.choice([[1, {"name": "v"}], "x"])
    if _maybe(rng, 0.1):
        spec["overhead"] = _resources(rng, good)
    if _maybe(rng, 0.1):
        spec["resources"] = {"requests": _resources(rng, good), "limits": _resources(rng, good)}
    if _maybe(rng, 0.15):
        spec["affinity"] = _affinity(rng)
    if _maybe(rng, 0.2):
        spec["tolerations"] = [{"key": "k", "operator": "Exists", "effect": "NoExecute",
                                "tolerationSeconds": rng.choice([300, "300"])},
                               {"operator": rng.choice(["Exists", "Equal", "In"])}]
    if _maybe(rng, 0.1):
        spec["topologySpreadConstraints"] = [{"maxSkew": rng.choice([1, "1"]), "topologyKey": "zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": "web"}}}]
    if _maybe(rng, 0.05):
        spec["schedulingGates"] = [{"name": "g"}, rng.choice([{"name": "h"}, "x"])]
    if _maybe(rng, 0.05):
        spec["hostNetwork"] = rng.choice([True, False])
    status: dict[str, Any] = {}
    if _maybe(rng, 0.6):
        status["phase"] = rng.choice(["Running", "Pending"]) if good else rng.choice(TEXTS)
    if _maybe(rng, 0.1):
        status["nominatedNodeName"] = "node-2"
    if _maybe(rng, 0.1):
        status["startTime"] = "2024-01-02T03:04:05Z" if good else "then"
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    if status or _maybe(rng):
        pod["status"] = status
    if not good and _maybe(rng, 0.05):
        pod[rng.choice(["metadata", "spec", "status"])] = rng.choice([None, "x", [], 3])
    return pod


SEEDS = range(400)


@pytest.mark.parametrize("api_checks", [True, False], ids=["api-checks", "no-api-checks"])
def test_random_pods_decode_the_same(api_checks: bool) -> None:
    rng = random.Random(16)
    fast_taken = 0
    for _ in SEEDS:
        raw = random_pod(rng)
        assert_same_decode(raw, api_checks)
        ctx = DecodeContext(file="f", api_checks=api_checks)
        if decode_pod_checked(ctx, copy.deepcopy(raw)) is not None and not ctx.problems:
            fast_taken += 1
    # The table is a real test of both paths: many pods decode cleanly, many do not.
    assert 100 < fast_taken < 350


def _yaml_documents(manifests: list[dict[str, Any]]) -> list[Any]:
    text = yaml.safe_dump_all(manifests, sort_keys=False)
    return list(yaml_reading.load_yaml(text, "pods.yaml", reading.CLUSTER))


def test_random_pods_from_yaml_decode_the_same() -> None:
    """Located dicts (YAML): problems carry lines, and both paths give the same ones."""
    rng = random.Random(1600)
    documents = _yaml_documents([random_pod(rng) for _ in range(200)])
    assert isinstance(documents[0], reading.LocatedDict)
    for raw in documents:
        checked = _decoded(decode_pod_checked, raw, True, fast=False)
        assert _decoded(decode_pod, raw, True) == checked


# ------------------------------------------------------------------ edge cases

BASE: dict[str, Any] = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}],
                             "resources": {"requests": {"cpu": "100m", "memory": "500Mi"},
                                           "limits": {"cpu": "100m", "memory": "500Mi"}}}]},
    "status": {"phase": "Running"},
}


def _with(path: str, value: Any) -> dict[str, Any]:
    """BASE with the value at a dotted path (``[0]`` indexes lists) replaced (``...`` deletes it)."""
    pod = copy.deepcopy(BASE)
    parts = path.replace("[", ".[").split(".")
    node: Any = pod
    for part in parts[:-1]:
        node = node[int(part[1:-1])] if part.startswith("[") else node.setdefault(part, {})
    last = parts[-1]
    key: Any = int(last[1:-1]) if last.startswith("[") else last
    if value is ...:
        del node[key]
    else:
        node[key] = value
    return pod


EDGE_CASES = {
    "well-formed": BASE,
    "no-metadata": _with("metadata", ...),
    "no-name": _with("metadata.name", ...),
    "empty-name": _with("metadata.name", ""),
    "int-name": _with("metadata.name", 5),
    "empty-namespace": _with("metadata.namespace", ""),
    "null-namespace": _with("metadata.namespace", None),
    "int-namespace": _with("metadata.namespace", 3),
    "int-label-value": _with("metadata.labels", {"zone": 1}),
    "null-label-value": _with("metadata.labels", {"zone": None}),
    "bad-label-key": _with("metadata.labels", {"bad key": "x"}),
    "bad-label-value": _with("metadata.labels", {"k": "x" * 64}),
    "labels-not-a-map": _with("metadata.labels", ["a"]),
    "owner-controller-text": _with("metadata.ownerReferences", [{"kind": "ReplicaSet", "controller": "yes"}]),
    "owner-without-fields": _with("metadata.ownerReferences", [{}]),
    "owner-not-a-map": _with("metadata.ownerReferences", ["x"]),
    "created-timestamp": _with("metadata.creationTimestamp", "2024-05-06T07:08:09Z"),
    "created-local-time": _with("metadata.creationTimestamp", "2024-05-06T07:08:09"),
    "created-bad": _with("metadata.creationTimestamp", "May 6th"),
    "deleted-number": _with("metadata.deletionTimestamp", 17),
    "spec-null": _with("spec", None),
    "spec-list": _with("spec", []),
    "status-text": _with("status", "Running"),
    "containers-null": _with("spec.containers", None),
    "containers-map": _with("spec.containers", {"name": "c"}),
    "container-text": _with("spec.containers", ["c"]),
    "container-int-name": _with("spec.containers[0].name", 7),
    "resources-null": _with("spec.containers[0].resources", None),
    "resources-list": _with("spec.containers[0].resources", []),
    "requests-null": _with("spec.containers[0].resources.requests", None),
    "requests-list": _with("spec.containers[0].resources.requests", ["cpu"]),
    "cpu-number": _with("spec.containers[0].resources.requests.cpu", 1),
    "cpu-float": _with("spec.containers[0].resources.requests.cpu", 0.25),
    "cpu-negative": _with("spec.containers[0].resources.requests.cpu", "-100m"),
    "cpu-garbage": _with("spec.containers[0].resources.requests.cpu", "lots"),
    "cpu-too-big": _with("spec.containers[0].resources.requests.cpu", "9223372036854775807"),
    "cpu-spaces": _with("spec.containers[0].resources.requests.cpu", "  100m "),
    "pods-fraction": _with("spec.containers[0].resources.requests.pods", "1.5"),
    "gpu-fraction": _with("spec.containers[0].resources.limits", {"example.com/gpu": "500m"}),
    "int-resource-name": _with("spec.containers[0].resources.requests", {5: "1"}),
    "port-zero": _with("spec.containers[0].ports[0].containerPort", 0),
    "port-negative": _with("spec.containers[0].ports[0].containerPort", -1),
    "port-too-big": _with("spec.containers[0].ports[0].containerPort", 70000),
    "port-int64": _with("spec.containers[0].ports[0].containerPort", 2**40),
    "port-text": _with("spec.containers[0].ports[0].containerPort", "80"),
    "port-bool": _with("spec.containers[0].ports[0].containerPort", True),
    "port-float": _with("spec.containers[0].ports[0].containerPort", 80.0),
    "port-missing": _with("spec.containers[0].ports[0].containerPort", ...),
    "host-port": _with("spec.containers[0].ports[0].hostPort", 8080),
    "host-port-null": _with("spec.containers[0].ports[0].hostPort", None),
    "host-port-too-big": _with("spec.containers[0].ports[0].hostPort", 65536),
    "protocol-udp": _with("spec.containers[0].ports[0].protocol", "UDP"),
    "protocol-lowercase": _with("spec.containers[0].ports[0].protocol", "tcp"),
    "protocol-empty": _with("spec.containers[0].ports[0].protocol", ""),
    "protocol-int": _with("spec.containers[0].ports[0].protocol", 6),
    "host-ip-int": _with("spec.containers[0].ports[0].hostIP", 10),
    "port-not-a-map": _with("spec.containers[0].ports", [80]),
    "ports-map": _with("spec.containers[0].ports", {"containerPort": 80}),
    "priority": _with("spec.priority", 1000),
    "priority-max": _with("spec.priority", 2**31 - 1),
    "priority-over": _with("spec.priority", 2**31),
    "priority-float": _with("spec.priority", 10.0),
    "priority-bool": _with("spec.priority", False),
    "node-selector": _with("spec.nodeSelector", {"zone": "a"}),
    "node-selector-int": _with("spec.nodeSelector", {"zone": 1}),
    "node-selector-bad-key": _with("spec.nodeSelector", {"a b": "c"}),
    "volumes-mixed": _with("spec.volumes", [{"name": "v"}, 3, "x"]),
    "volumes-map": _with("spec.volumes", {"name": "v"}),
    "scheduler-empty": _with("spec.schedulerName", ""),
    "scheduler-int": _with("spec.schedulerName", 1),
    "node-name-float": _with("spec.nodeName", 1.5),
    "phase-null": _with("status.phase", None),
    "phase-int": _with("status.phase", 0),
    "start-time": _with("status.startTime", "2024-05-06T07:08:09Z"),
    "start-time-bad": _with("status.startTime", "soon"),
    "overhead": _with("spec.overhead", {"cpu": "250m"}),
    "overhead-negative": _with("spec.overhead", {"cpu": "-250m"}),
    "pod-resources": _with("spec.resources", {"requests": {"cpu": "1"}, "limits": {"memory": "1Gi"}}),
    "pod-resources-text": _with("spec.resources", "big"),
    "init-container": _with("spec.initContainers", [{"name": "i", "restartPolicy": "Always"}]),
    "init-containers-text": _with("spec.initContainers", "x"),
    "tolerations": _with("spec.tolerations", [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]),
    "tolerations-bad": _with("spec.tolerations", [{"operator": "In"}]),
    "affinity-empty": _with("spec.affinity", {}),
    "affinity-text": _with("spec.affinity", "x"),
    "anti-affinity": _with("spec.affinity", {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone"}]}}),
    "preferred-weight-bad": _with("spec.affinity", {"podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "podAffinityTerm": {}}]}}),
    "spread": _with("spec.topologySpreadConstraints", [{"maxSkew": 1, "topologyKey": "zone",
                                                         "whenUnsatisfiable": "DoNotSchedule"}]),
    "gates": _with("spec.schedulingGates", [{"name": "g"}]),
    "gates-bad": _with("spec.schedulingGates", ["g"]),
    "top-level-list": [1, 2],
    "top-level-null": None,
}


@pytest.mark.parametrize("raw", EDGE_CASES.values(), ids=EDGE_CASES.keys())
@pytest.mark.parametrize("api_checks", [True, False], ids=["api-checks", "no-api-checks"])
def test_edge_cases_decode_the_same(raw: Any, api_checks: bool) -> None:
    assert_same_decode(raw, api_checks)
    # and once more, now that the checking path has remembered this pod's quantities
    assert_same_decode(raw, api_checks)


def test_the_fast_path_is_taken_for_the_usual_pod(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pod of the usual shape never reaches the checking path once its quantities are known."""
    decode_pod(DecodeContext(file="f"), copy.deepcopy(BASE))  # remembers 100m and 500Mi
    calls: list[Any] = []
    monkeypatch.setattr("ruleset.api.pod.decode_pod_checked", lambda ctx, raw: calls.append(raw))
    pod = decode_pod(DecodeContext(file="f"), copy.deepcopy(BASE))
    assert calls == []
    assert pod.containers[0].requests == {"cpu": Fraction(1, 10), "memory": Fraction(500 * 2**20)}


def test_a_quantity_accepted_without_checks_is_still_checked_with_them() -> None:
    """``-1`` is accepted when objects are taken as built (no API checks): remembering it there
    must not let it through where the API server's checks apply."""
    raw = _with("spec.containers[0].resources.requests.cpu", "-1")
    lenient = DecodeContext(file="f", api_checks=False)
    assert decode_pod(lenient, copy.deepcopy(raw)).containers[0].requests["cpu"] == -1
    assert lenient.problems == []
    strict = DecodeContext(file="f")
    decode_pod(strict, copy.deepcopy(raw))
    assert [p.message for p in strict.problems] == [
        'Invalid value: "-1": must be greater than or equal to 0']


def test_remembered_quantities_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validation, "MAX_REMEMBERED_QUANTITIES", 3)
    for i in range(10):
        decode_pod(DecodeContext(file="f"), _with("spec.containers[0].resources.requests.cpu", f"{i + 1}"))
    assert validation._ACCEPTED_SIZE == [3]
    assert sum(len(texts) for texts in validation._ACCEPTED[True].values()) == 3


# ------------------------------------------------------------------ through admission and the cluster


def _load(manifests: list[dict[str, Any]], fast: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(api_decode, "FAST_PATHS", fast)
    monkeypatch.setattr(admitter, "STORED_FAST_PATH", fast)
    problems: list[Any] = []
    cluster = decode_documents([(0, {"kind": "List", "items": copy.deepcopy(manifests)})], "in.json",
                               problems)
    return repr((_plain(cluster.pods), [_plain(p) for p in problems], sorted(cluster.admission.items()),
                 sorted(cluster.newer_fields.items()), sorted((p.key, e) for p, e in cluster.refused.items()),
                 sorted(cluster.skipped.items()), sorted(cluster.warnings.items())))


def test_random_clusters_load_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stored and new pods (admission, then decoding) through both paths: the same pods,
    problems, admission counts, newer fields and refusals."""
    rng = random.Random(7)
    for _ in range(20):
        manifests = []
        for _ in range(15):
            pod = random_pod(rng)
            meta = pod.get("metadata")
            if _maybe(rng) and isinstance(meta, dict):
                meta["uid"] = f"uid-{rng.randint(0, 10**6)}"  # stored: defaulting only
            manifests.append(pod)
        assert _load(manifests, True, monkeypatch) == _load(manifests, False, monkeypatch)


STORED_CASES = {
    "usual": {"metadata": {"name": "a", "namespace": "ns", "uid": "u"},
              "spec": {"schedulerName": "s", "containers": [{"name": "c"}]}},
    "no-scheduler-name": {"metadata": {"name": "a", "namespace": "ns", "uid": "u"}, "spec": {}},
    "empty-scheduler-name": {"metadata": {"name": "a", "uid": "u"}, "spec": {"schedulerName": ""}},
    "no-spec": {"metadata": {"name": "a", "uid": "u"}},
    "null-spec": {"metadata": {"name": "a", "uid": "u"}, "spec": None},
    "spec-text": {"metadata": {"name": "a", "uid": "u"}, "spec": "x"},
    "no-metadata": {"spec": {"nodeName": "n"}},
    "null-metadata": {"metadata": None, "spec": {"nodeName": "n"}},
    "metadata-text": {"metadata": "x", "spec": {"nodeName": "n"}},
    "int-namespace": {"metadata": {"name": "a", "namespace": 5, "uid": "u"}, "spec": {"schedulerName": "s"}},
    "limits-requested": {"metadata": {"name": "a", "uid": "u"}, "spec": {"containers": [
        {"resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}}]}},
    "limits-unrequested": {"metadata": {"name": "a", "uid": "u"}, "spec": {"containers": [
        {"resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1"}}}]}},
    "limits-no-requests": {"metadata": {"name": "a", "uid": "u"}, "spec": {"initContainers": [
        {"resources": {"limits": {"cpu": "1"}}}]}},
    "limits-garbage": {"metadata": {"name": "a", "uid": "u"}, "spec": {"containers": [
        {"resources": {"limits": {"cpu": "lots"}}}]}},
    "host-network": {"metadata": {"name": "a", "uid": "u"}, "spec": {"hostNetwork": True, "containers": [
        {"ports": [{"containerPort": 80}]}]}},
}


@pytest.mark.parametrize("raw", STORED_CASES.values(), ids=STORED_CASES.keys())
def test_stored_pods_are_admitted_the_same(raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    def admit(fast: bool) -> tuple[Any, ...]:
        monkeypatch.setattr(admitter, "STORED_FAST_PATH", fast)
        admission = Admission(seed=3)
        given = copy.deepcopy(raw)
        admitted = admission.admit(given, created=True)
        assert given == raw  # the input is never changed
        return (repr(admitted.raw), admitted.raw == raw, admitted.error, sorted(admission.counts.items()),
                sorted(admission._names.taken))
    assert admit(True) == admit(False)


# ------------------------------------------------------------------ newer fields


class _Spy(dict):
    """A spec that records every key read from it."""

    read: ClassVar[set[str]] = set()

    def get(self, key: Any, default: Any = None) -> Any:
        _Spy.read.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        _Spy.read.add(str(key))
        return super().__contains__(key)

    def __getitem__(self, key: Any) -> Any:
        _Spy.read.add(key)
        return super().__getitem__(key)


def test_newer_fields_read_only_the_keys_of_its_shortcut() -> None:
    _Spy.read = set()
    for field in NEWER_FIELDS:
        field.found({"spec": _Spy()})
    assert _Spy.read <= newer_module._SPEC_KEYS
    assert _Spy.read == newer_module._SPEC_KEYS  # and the shortcut names no key that nothing reads


NEWER_CASES = {
    "none": ({"containers": [{"name": "c"}], "nodeName": "n"}, []),
    "sidecar": ({"initContainers": [{"restartPolicy": "Always"}]},
                ["initContainers[].restartPolicy: Always (native sidecar containers)"]),
    "plain-init": ({"initContainers": [{"name": "i"}]}, []),
    "gates": ({"schedulingGates": [{"name": "g"}]}, ["spec.schedulingGates"]),
    "pod-resources": ({"resources": {"requests": {"cpu": "1"}}}, ["spec.resources (pod-level resources)"]),
    "min-domains": ({"topologySpreadConstraints": [{"minDomains": 2}]},
                    ["topologySpreadConstraints[].minDomains"]),
    "namespace-selector": ({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"namespaceSelector": {}}]}}}, ["pod (anti-)affinity terms' namespaceSelector"]),
    "claims": ({"resourceClaims": [{"name": "c"}]}, ["spec.resourceClaims (dynamic resource allocation)"]),
}


@pytest.mark.parametrize(("spec", "expected"), NEWER_CASES.values(), ids=NEWER_CASES.keys())
def test_newer_fields(spec: dict[str, Any], expected: list[str]) -> None:
    assert newer_fields({"spec": spec}) == expected


# ------------------------------------------------------------------ the snapshot's bulk add


def _nodes(n: int) -> list[Any]:
    return [decode_node(DecodeContext(), {"metadata": {"name": f"n{i}", "labels": {"zone": f"z{i % 2}"}},
                                          "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
            for i in range(n)]


def _dump(value: Any) -> Any:
    """Everything a snapshot holds, as plain values: every attribute, recursively (numpy arrays
    with their dtype, pods by name), so that a column added later is compared too."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.tolist())
    if isinstance(value, Pod):
        return ("pod", value.key)
    if isinstance(value, dict):
        return (type(value).__name__, [(_dump(k), _dump(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return [_dump(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(repr(_dump(v)) for v in value)
    if isinstance(value, (int, float, str, bool, type(None))):
        return value
    slots = [name for cls in type(value).__mro__ for name in getattr(cls, "__slots__", ())]
    names = list(vars(value)) if hasattr(value, "__dict__") else slots
    return (type(value).__name__, [(name, _dump(getattr(value, name))) for name in names])


#: What placing pods never changes (the nodes, the objects beside them) or what is built on use.
_FIXED = {"nodes", "workloads", "storage", "derived", "_journals", "node_labels", "node_names", "node_index",
          "zone_codes", "evaluation_order", "_allocatable", "allowed_pods", "_zeros",
          # the change log behind changed_since (compared through it below, not entry by entry)
          "_log_generations", "_log_nodes", "_log_from"}


def _snapshot_state(s: Snapshot) -> str:
    state = {name: _dump(value) for name, value in vars(s).items() if name not in _FIXED}
    return repr((state, s.resource_names(), [s.requested_on(i) for i in range(s.num_nodes)]))


def test_bulk_add_builds_the_same_snapshot() -> None:
    rng = random.Random(5)
    pods = []
    for i in range(300):
        raw = random_pod(rng)
        ctx = DecodeContext(file="f")
        pod = decode_pod_checked(ctx, raw)
        if ctx.problems:
            continue
        pod.meta.name = f"p{i}"
        pod.priority = rng.choice([0, 5, -3])
        pods.append(pod)
    # huge requests, so that per-node sums wrap around int64 as Go's do
    big = decode_pod_checked(DecodeContext(), {"metadata": {"name": "big"}, "spec": {"containers": [
        {"resources": {"requests": {"memory": "9223372036854775807"}}}]}})
    pods += [big, copy.copy(big), copy.copy(big)]
    assert len(pods) > 100
    places = [rng.randrange(6) for _ in pods]
    one_by_one, bulk = Snapshot(_nodes(6)), Snapshot(_nodes(6))
    for pod, index in zip(pods, places, strict=True):
        one_by_one.add_pod(pod, index)
    bulk.add_pods(pods, places)
    assert _snapshot_state(bulk) == _snapshot_state(one_by_one)
    assert [bulk.changed_since(g).tolist() for g in range(bulk.generation + 1)] == [
        one_by_one.changed_since(g).tolist() for g in range(one_by_one.generation + 1)]
    assert np.array_equal(bulk.requested("memory"), one_by_one.requested("memory"))


def test_bulk_add_of_pods_already_placed_is_refused_as_one_by_one() -> None:
    pod = decode_pod_checked(DecodeContext(), {"metadata": {"name": "a"}})
    snapshot = Snapshot(_nodes(2))
    with pytest.raises(ValueError, match="already assigned"):
        snapshot.add_pods([pod, pod], [0, 1])


def _random_node(rng: random.Random) -> dict[str, Any]:
    good = _maybe(rng)
    meta: dict[str, Any] = {"name": f"node-{rng.randint(0, 99)}" if good or _maybe(rng) else rng.choice(TEXTS)}
    if _maybe(rng, 0.7):
        meta["labels"] = _labels(rng, good)
    if _maybe(rng, 0.2):
        meta["namespace"] = rng.choice(["x", 1])  # nodes have none: never read
    status: dict[str, Any] = {"capacity": _resources(rng, good)}
    if _maybe(rng, 0.8):
        status["allocatable"] = _resources(rng, good)
    node: dict[str, Any] = {"kind": "Node", "metadata": meta, "status": status}
    if _maybe(rng, 0.2):
        node["spec"] = {"taints": [{"key": "k", "effect": rng.choice(["NoSchedule", "Bad", ""])}]}
    return node


@pytest.mark.parametrize("api_checks", [True, False], ids=["api-checks", "no-api-checks"])
def test_random_nodes_decode_the_same(api_checks: bool) -> None:
    """Nodes take the fast metadata and remembered resource lists: the same nodes and problems."""
    rng = random.Random(11)
    for _ in range(300):
        raw = _random_node(rng)
        outcomes = []
        for fast in (False, True, True):
            api_decode.FAST_PATHS = fast
            try:
                ctx = DecodeContext(file="nodes.json", document=0, api_checks=api_checks)
                node = decode_node(ctx, copy.deepcopy(raw))
            finally:
                api_decode.FAST_PATHS = True
            outcomes.append(repr((_plain(node), [_plain(p) for p in ctx.problems], ctx.subject)))
        assert outcomes[0] == outcomes[1] == outcomes[2]


def test_units_of_quantities_are_those_of_the_quantity_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-quantity cache of ``scaled`` never answers for another quantity, even when a
    freed quantity's id is reused, and when it is full."""
    from ruleset.api import resources
    from ruleset.quantity import milli_value_of, value_of
    monkeypatch.setattr(resources, "_MAX_UNITS", 50)
    rng = random.Random(3)
    for _ in range(2000):
        quantity = Fraction(rng.randint(-10**6, 10**6), rng.choice([1, 3, 1000, 1024, 10**9]))
        name = rng.choice(["cpu", "memory", "example.com/gpu"])
        expected = milli_value_of(quantity) if name == "cpu" else value_of(quantity)
        assert resources.scaled(name, quantity) == expected
        assert resources.non_zero(name, {name: quantity}) == expected
        del quantity  # its id may be the next one's
    assert len(resources._UNITS) <= 50


# ------------------------------------------------------------------ the collector while loading


def test_loading_gc_pauses_and_ages_what_the_block_made() -> None:
    import gc
    import weakref

    from ruleset.manifests import loading_gc

    class Cycle:
        other: Any = None

    assert gc.isenabled()
    with loading_gc():
        assert not gc.isenabled()
        with loading_gc():  # nested: the outer block decides
            pass
        assert not gc.isenabled()
        a, b = Cycle(), Cycle()
        a.other, b.other = b, a
        gone = weakref.ref(a)
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    assert gc.get_count()[0] < 100  # nothing left young to traverse
    del a, b
    gc.collect()
    assert gone() is None  # aged, still collectable


def test_loading_gc_leaves_objects_someone_froze_frozen() -> None:
    import gc

    from ruleset.manifests import loading_gc

    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with loading_gc():
            pass
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
