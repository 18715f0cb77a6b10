"""The API server's checks of the fields the scheduler reads (``ruleset.api.validation``).

Each case decodes one object as read from a file (``DecodeContext(file=...)``) and compares
the problems, path and message, with Kubernetes' wording. Objects built in code (no file,
or a ``<placeholder>``) skip the API server's checks but keep the type ranges.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from ruleset.api.decode import DecodeContext
from ruleset.api.node import decode_node
from ruleset.api.pod import decode_pod
from ruleset.api.validation import validating
from ruleset.api.workloads import decode_pod_disruption_budget, decode_priority_class, decode_replica_set

QUALIFIED = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
             "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
               "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
               "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
EFFECTS = 'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'
INT32_RANGE = "must be between -2147483648 and 2147483647, inclusive (an int32 field)"
INT64_RANGE = "must be between -9223372036854775808 and 9223372036854775807, inclusive (an int64 field)"
CPU_RANGE = ("out of range: Kubernetes reads cpu in int64 millicores (Quantity.MilliValue()), "
             "at most 9223372036854775807m")


def problems(decoder, raw: dict, file: str = "c.yaml", api_checks: bool = True) -> list[str]:
    ctx = DecodeContext(file=file, api_checks=api_checks)
    start = time.perf_counter()
    decoder(ctx, raw)
    assert time.perf_counter() - start < 1.0
    return [f"{p.path}: {p.message}" for p in ctx.problems]


def node(spec: dict | None = None, status: dict | None = None, labels: dict | None = None) -> dict:
    return {"kind": "Node", "metadata": {"name": "n1", "labels": labels or {}}, "spec": spec or {},
            "status": status if status is not None else {"allocatable": {"cpu": "1"}}}


def pod(spec: dict | None = None, labels: dict | None = None) -> dict:
    return {"kind": "Pod", "metadata": {"name": "p", "namespace": "d", "labels": labels or {}},
            "spec": {"containers": [{"name": "c"}], **(spec or {})}}


def ports(*port: dict) -> dict:
    return {"containers": [{"name": "c", "ports": list(port)}]}


def test_objects_get_the_api_servers_checks_unless_built_as_upstream_tests_build_them():
    assert [validating(DecodeContext(file=f)) for f in ("c.yaml", None, "<test>")] == [True, True, True]
    assert validating(DecodeContext(file="c.yaml", api_checks=False)) is False


# --- nodes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "expected"), [
    pytest.param(node({"taints": [{"key": "a", "effect": "Sometimes"}]}),
                 [f'Node n1: spec.taints[0].effect: Unsupported value: "Sometimes": {EFFECTS}'], id="taint-effect"),
    pytest.param(node({"taints": [{"key": "a", "effect": "noschedule"}]}),
                 [f'Node n1: spec.taints[0].effect: Unsupported value: "noschedule": {EFFECTS}'], id="effect-case"),
    pytest.param(node({"taints": [{"key": "a"}]}), ["Node n1: spec.taints[0].effect: Required value"],
                 id="taint-effect-required"),
    pytest.param(node({"taints": [{"key": "a b", "value": "c d", "effect": "NoExecute"}]}),
                 [f'Node n1: spec.taints[0].key: Invalid value: "a b": name part {QUALIFIED}',
                  f'Node n1: spec.taints[0].value: Invalid value: "c d": {LABEL_VALUE}'], id="taint-key-and-value"),
    pytest.param(node({"taints": [{"effect": "NoSchedule"}]}),
                 ['Node n1: spec.taints[0].key: Invalid value: "": name part must be non-empty',
                  f'Node n1: spec.taints[0].key: Invalid value: "": name part {QUALIFIED}'], id="taint-key-required"),
    pytest.param(node({"taints": [{"key": "a", "effect": e} for e in ("NoSchedule", "PreferNoSchedule", "NoExecute")]}),
                 [], id="every-effect"),
    pytest.param(node(labels={"a b": "x", "ok": "y z", "example.com/k": "", "k": 1}),
                 [f'Node n1: metadata.labels: Invalid value: "a b": name part {QUALIFIED}',
                  f'Node n1: metadata.labels: Invalid value: "y z": {LABEL_VALUE}'], id="labels"),
    pytest.param(node(status={"allocatable": {"cpu": "-1", "memory": "-1Gi", "pods": "-3"}}),
                 ['Node n1: status.allocatable.cpu: Invalid value: "-1": must be greater than or equal to 0',
                  'Node n1: status.allocatable.memory: Invalid value: "-1Gi": must be greater than or equal to 0',
                  'Node n1: status.allocatable.pods: Invalid value: "-3": must be greater than or equal to 0'],
                 id="negative-allocatable"),
    pytest.param(node(status={"capacity": {"cpu": "-500m"}, "allocatable": {"cpu": "1"}}),
                 ['Node n1: status.capacity.cpu: Invalid value: "-500m": must be greater than or equal to 0'],
                 id="negative-capacity"),
    pytest.param(node(status={"allocatable": {"pods": "1.5", "example.com/gpu": "500m", "cpu": "0.5",
                                              "memory": "0.5"}}),
                 ['Node n1: status.allocatable.pods: Invalid value: "1.5": must be an integer',
                  'Node n1: status.allocatable.example.com/gpu: Invalid value: "500m": must be an integer'],
                 id="integer-resources"),
    pytest.param(node(status={"allocatable": {"pods": -1.5}}),
                 ['Node n1: status.allocatable.pods: Invalid value: "-1.5": must be greater than or equal to 0',
                  'Node n1: status.allocatable.pods: Invalid value: "-1.5": must be an integer'], id="both"),
    pytest.param(node(status={"allocatable": {"cpu": "1e999999999"}}),
                 [f"Node n1: status.allocatable.cpu: '1e999999999': {CPU_RANGE}"], id="issue-reproducer"),
    pytest.param(node(status={"allocatable": {"cpu": "9223372036854775807", "memory": "9223372036854775807",
                                              "pods": 2**63, "ephemeral-storage": "9Ei"}}),
                 [f"Node n1: status.allocatable.cpu: '9223372036854775807': {CPU_RANGE}",
                  "Node n1: status.allocatable.pods: 9223372036854775808: out of range: Kubernetes reads pods as "
                  "an int64 (Quantity.Value()), at most 9223372036854775807"], id="int64-bounds"),
    pytest.param(node(status={"allocatable": {"cpu": "9223372036854775807m", "memory": -(2**63)}}),
                 ['Node n1: status.allocatable.memory: Invalid value: "-9223372036854775808": '
                  'must be greater than or equal to 0'], id="int64-edges-fit"),
    pytest.param(node(status={"allocatable": {"memory": "1" * 5000}}),
                 ["Node n1: status.allocatable.memory: '" + "1" * 63 + "… (5000 characters): out of range: "
                  "Kubernetes reads memory as an int64 (Quantity.Value()), at most 9223372036854775807"],
                 id="more-than-4300-digits"),
    pytest.param(node(status={"allocatable": {"cpu": "1"}, "images": [{"names": ["i"], "sizeBytes": 2**63}]}),
                 [f"Node n1: status.images[0].sizeBytes: Invalid value: 9223372036854775808: {INT64_RANGE}"],
                 id="image-size-int64"),
])
def test_node(raw: dict, expected: list[str]):
    assert problems(decode_node, raw) == expected


def test_a_refused_quantity_is_left_out():
    ctx = DecodeContext(file="c.yaml")
    n = decode_node(ctx, node(status={"allocatable": {"cpu": "-1", "memory": "1Gi", "pods": "1e30"}}))
    assert n.allocatable == {"memory": 2**30} and n.allowed_pod_number == 0


# --- pods ----------------------------------------------------------------------------------


PROTOCOLS = 'supported values: "SCTP", "TCP", "UDP"'


@pytest.mark.parametrize(("spec", "expected"), [
    pytest.param(ports({"containerPort": 80, "hostPort": 70000}),
                 ["Pod d/p: spec.containers[0].ports[0].hostPort: Invalid value: 70000: "
                  "must be between 1 and 65535, inclusive"], id="host-port"),
    pytest.param(ports({"containerPort": 80, "hostPort": -1}),
                 ["Pod d/p: spec.containers[0].ports[0].hostPort: Invalid value: -1: "
                  "must be between 1 and 65535, inclusive"], id="negative-host-port"),
    pytest.param(ports({"containerPort": 65536}),
                 ["Pod d/p: spec.containers[0].ports[0].containerPort: Invalid value: 65536: "
                  "must be between 1 and 65535, inclusive"], id="container-port"),
    pytest.param(ports({"hostPort": 80}), ["Pod d/p: spec.containers[0].ports[0].containerPort: Required value"],
                 id="container-port-required"),
    pytest.param(ports({"containerPort": 80, "protocol": "tcp"}),
                 [f'Pod d/p: spec.containers[0].ports[0].protocol: Unsupported value: "tcp": {PROTOCOLS}'],
                 id="protocol-case"),
    pytest.param(ports({"containerPort": 80, "protocol": "HTTP"}),
                 [f'Pod d/p: spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": {PROTOCOLS}'],
                 id="protocol"),
    pytest.param(ports(*({"containerPort": 1, "hostPort": 65535, "protocol": p} for p in ("TCP", "UDP", "SCTP"))),
                 [], id="valid-ports"),
    pytest.param(ports({"containerPort": 2**31, "protocol": "tcp"}),
                 [f"Pod d/p: spec.containers[0].ports[0].containerPort: Invalid value: 2147483648: {INT32_RANGE}"],
                 id="decoding-stops-validation"),
    pytest.param({"initContainers": [{"name": "i", "ports": [{"containerPort": 80, "protocol": "udp"}]}]},
                 [f'Pod d/p: spec.initContainers[0].ports[0].protocol: Unsupported value: "udp": {PROTOCOLS}'],
                 id="init-container-port"),
    pytest.param({"priority": 2**31}, [f"Pod d/p: spec.priority: Invalid value: 2147483648: {INT32_RANGE}"],
                 id="priority-int32"),
    pytest.param({"priority": 2**63}, [f"Pod d/p: spec.priority: Invalid value: 9223372036854775808: {INT32_RANGE}"],
                 id="priority-2^63"),
    pytest.param({"priority": -(2**31)}, [], id="priority-min-int32"),
    pytest.param({"containers": [{"name": "c", "resources": {"requests": {"cpu": "-1m"}, "limits": {"memory": -1}}}],
                  "overhead": {"cpu": "-0.5"}},
                 ['Pod d/p: spec.containers[0].resources.requests.cpu: Invalid value: "-1m": '
                  'must be greater than or equal to 0',
                  'Pod d/p: spec.containers[0].resources.limits.memory: Invalid value: "-1": '
                  'must be greater than or equal to 0',
                  'Pod d/p: spec.overhead.cpu: Invalid value: "-0.5": must be greater than or equal to 0'],
                 id="negative-requests-limits-overhead"),
    pytest.param({"containers": [{"name": "c", "resources": {"requests": {"cpu": "1e1000", "memory": 2**63}}}]},
                 [f"Pod d/p: spec.containers[0].resources.requests.cpu: '1e1000': {CPU_RANGE}",
                  "Pod d/p: spec.containers[0].resources.requests.memory: 9223372036854775808: out of range: "
                  "Kubernetes reads memory as an int64 (Quantity.Value()), at most 9223372036854775807"],
                 id="requests-beyond-int64"),
    pytest.param({"containers": [{"name": "c", "resources": {"requests": {"example.com/gpu": "1.5"}}}]},
                 ['Pod d/p: spec.containers[0].resources.requests.example.com/gpu: Invalid value: "1.5": '
                  'must be an integer'], id="extended-resource-integer"),
    pytest.param({"nodeSelector": {"disk type": "s s d"}},
                 [f'Pod d/p: spec.nodeSelector: Invalid value: "disk type": name part {QUALIFIED}',
                  f'Pod d/p: spec.nodeSelector: Invalid value: "s s d": {LABEL_VALUE}'], id="node-selector"),
])
def test_pod(spec: dict, expected: list[str]):
    assert problems(decode_pod, pod(spec)) == expected


def test_pod_labels():
    assert problems(decode_pod, pod(labels={"app": "-web"})) == [
        f'Pod d/p: metadata.labels: Invalid value: "-web": {LABEL_VALUE}']


OPERATORS = 'supported values: "Equal", "Exists"'
EXISTS_VALUE = "value must be empty when `operator` is 'Exists'"


@pytest.mark.parametrize(("toleration", "expected"), [
    pytest.param({"key": "a", "operator": "Exists", "effect": "Sometimes"},
                 [f'spec.tolerations[0].effect: Unsupported value: "Sometimes": {EFFECTS}'], id="effect"),
    pytest.param({"operator": "Exists"}, [], id="empty-effect-and-key-match-all"),
    pytest.param({"key": "a", "value": "b"}, [], id="empty-operator-is-equal"),
    pytest.param({"key": "a", "operator": "Gt", "value": "1"},
                 [f'spec.tolerations[0].operator: Unsupported value: "Gt": {OPERATORS}'], id="operator"),
    pytest.param({"key": "a", "operator": "Exists", "value": "b"},
                 ['spec.tolerations[0].operator: Invalid value: core.Toleration{Key:"a", Operator:"Exists", '
                  f'Value:"b", Effect:""}}: {EXISTS_VALUE}'], id="exists-with-value"),
    pytest.param({"value": "b", "effect": "NoSchedule"},
                 ['spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty, '
                  'which means "match all values and all keys"'], id="empty-key-needs-exists"),
    pytest.param({"key": "a", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5},
                 ['spec.tolerations[0].effect: Invalid value: "NoSchedule": '
                  "effect must be 'NoExecute' when `tolerationSeconds` is set"], id="seconds-need-no-execute"),
    pytest.param({"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 2**63},
                 [f"spec.tolerations[0].tolerationSeconds: Invalid value: 9223372036854775808: {INT64_RANGE}"],
                 id="seconds-int64"),
    pytest.param({"key": "a b", "value": "c d"},
                 [f'spec.tolerations[0].key: Invalid value: "a b": name part {QUALIFIED}',
                  f'spec.tolerations[0].operator: Invalid value: "c d": {LABEL_VALUE}'], id="key-and-value"),
])
def test_tolerations(toleration: dict, expected: list[str]):
    assert problems(decode_pod, pod({"tolerations": [toleration]})) == [f"Pod d/p: {e}" for e in expected]


PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def weighted(kind: str, weight: Any) -> dict:
    term: dict[str, Any] = {"preference": {}} if kind == "nodeAffinity" else {"podAffinityTerm": {"topologyKey": "z"}}
    if weight is not None:
        term["weight"] = weight
    return {"affinity": {kind: {PREFERRED: [term]}}}


@pytest.mark.parametrize("kind", ["nodeAffinity", "podAffinity", "podAntiAffinity"])
@pytest.mark.parametrize(("weight", "message"), [
    (0, "Invalid value: 0: must be in the range 1-100"), (101, "Invalid value: 101: must be in the range 1-100"),
    (-1, "Invalid value: -1: must be in the range 1-100"), (None, "Invalid value: 0: must be in the range 1-100"),
    (1, None), (100, None), (2**31, f"Invalid value: 2147483648: {INT32_RANGE}"),
])
def test_preferred_term_weights(kind: str, weight: Any, message: str | None):
    expected = [f"Pod d/p: spec.affinity.{kind}.{PREFERRED}[0].weight: {message}"] if message else []
    assert problems(decode_pod, pod(weighted(kind, weight))) == expected


def test_objects_built_in_code_keep_the_type_ranges_only():
    raw = pod({**ports({"hostPort": 70000, "protocol": "tcp"}), "priority": 2**31,
               "tolerations": [{"key": "a", "operator": "Gt"}], **weighted("nodeAffinity", 0)},
              labels={"k": "any value"})
    assert problems(decode_pod, raw, file="<test>", api_checks=False) == [
        f"Pod d/p: spec.priority: Invalid value: 2147483648: {INT32_RANGE}"]
    assert problems(decode_node, node({"taints": [{"key": "a", "effect": "Sometimes"}]},
                                      {"allocatable": {"cpu": "-1", "memory": "1e999999999"}}), file="<test>",
                    api_checks=False) == [
        "Node n1: status.allocatable.memory: '1e999999999': out of range: Kubernetes reads memory as an int64 "
        "(Quantity.Value()), at most 9223372036854775807"]


def test_sums_of_int64_requests_wrap_around_as_gos_do():
    half = 2**62
    raw = pod({"containers": [{"name": f"c{i}", "resources": {"requests": {"memory": half, "cpu": "4611686018427387"}}}
                              for i in range(2)]})
    ctx = DecodeContext(file="c.yaml")
    p = decode_pod(ctx, raw)
    assert ctx.problems == []
    assert p.requests == {"memory": -(2**63), "cpu": 9223372036854774000}
    assert p.non_zero_requests == (9223372036854774000, -(2**63))
    assert p.scoring_request("memory") == -(2**63)


# --- other kinds ----------------------------------------------------------------------------


def priority_class(name: str, value: Any, **extra: Any) -> dict:
    out = {"kind": "PriorityClass", "metadata": {"name": name}, **extra}
    if value is not None:
        out["value"] = value
    return out


@pytest.mark.parametrize(("raw", "expected"), [
    pytest.param(priority_class("high", 2**31), [f"value: Invalid value: 2147483648: {INT32_RANGE}"], id="int32"),
    pytest.param(priority_class("high", None), ["value: Required value"], id="required"),
    pytest.param(priority_class("high", 1_000_000_000), [], id="highest-user-value"),
    pytest.param(priority_class("high", 1_000_000_001),
                 ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"], id="too-high"),
    pytest.param(priority_class("system-node-critical", 2000001000), [], id="system-node-critical"),
    pytest.param(priority_class("system-cluster-critical", 2000000000), [], id="system-cluster-critical"),
    pytest.param(priority_class("system-node-critical", 5),
                 ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use "
                  "only. error: value of system-node-critical PriorityClass must be 2000001000"], id="system-value"),
    pytest.param(priority_class("system-cluster-critical", 2000000000, globalDefault=True),
                 ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use "
                  "only. error: globalDefault of system-cluster-critical PriorityClass must be false"],
                 id="system-global-default"),
    pytest.param(priority_class("system-foo", 10),
                 ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use "
                  "only. error: system-foo is not a known system priority class"], id="system-unknown"),
])
def test_priority_class(raw: dict, expected: list[str]):
    name = raw["metadata"]["name"]
    assert problems(decode_priority_class, raw) == [f"PriorityClass {name}: {e}" for e in expected]


def test_other_int32_fields():
    rs = {"kind": "ReplicaSet", "metadata": {"name": "r"}, "spec": {"replicas": 2**31}}
    assert problems(decode_replica_set, rs) == [
        f"ReplicaSet default/r: spec.replicas: Invalid value: 2147483648: {INT32_RANGE}"]
    pdb = {"kind": "PodDisruptionBudget", "metadata": {"name": "b"},
           "spec": {"minAvailable": 2**31}, "status": {"disruptionsAllowed": 2**63, "expectedPods": -(2**31)}}
    assert problems(decode_pod_disruption_budget, pdb) == [
        f"PodDisruptionBudget default/b: spec.minAvailable: Invalid value: 2147483648: {INT32_RANGE}",
        f"PodDisruptionBudget default/b: status.disruptionsAllowed: Invalid value: 9223372036854775808: "
        f"{INT32_RANGE}"]
    huge = {"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": {"maxUnavailable": "9" * 5000 + "%"}}
    assert problems(decode_pod_disruption_budget, huge)[0].endswith("%: must not be greater than 100%")
