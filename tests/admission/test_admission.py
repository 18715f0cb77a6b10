"""The admitter as the loader calls it: raw pod in, stored pod (or refusal) out.

Not ported from upstream: these pin ruleset's contract (the NVIDIA pod of issue 12, the
input never changed, dumps unchanged, determinism of generated names, malformed input).
"""

from __future__ import annotations

import copy
import pickle

import pytest

from ruleset.admission import Admission, located_copy
from ruleset.api.decode import DecodeContext
from ruleset.api.pod import decode_pod
from ruleset.reading import CLUSTER, LocatedDict, LocatedList
from ruleset.yaml_reading import load_yaml

NOT_READY = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300}
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
               "tolerationSeconds": 300}


def yaml_doc(text: str):
    return next(load_yaml(text, "pods.yaml", CLUSTER))


GPU_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: cuda
spec:
  containers:
  - name: cuda
    image: nvidia/cuda
    resources:
      limits:
        nvidia.com/gpu: 1
"""


def test_nvidia_pod_requests_its_gpu_limit():
    raw = yaml_doc(GPU_POD)
    admission = Admission()
    result = admission.admit(raw)
    assert result.error is None
    assert result.raw == {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "cuda", "namespace": "default"},
        "spec": {
            "containers": [{"name": "cuda", "image": "nvidia/cuda",
                            "resources": {"limits": {"nvidia.com/gpu": 1}, "requests": {"nvidia.com/gpu": 1}}}],
            "schedulerName": "default-scheduler",
            "tolerations": [NOT_READY, UNREACHABLE],
        },
    }
    pod = decode_pod(DecodeContext(file="pods.yaml"), result.raw)
    assert pod.containers[0].requests == {"nvidia.com/gpu": 1}
    assert admission.counts == {"requests defaulted from limits": 1, "namespace defaulted": 1,
                                "schedulerName defaulted": 1, "DefaultTolerationSeconds tolerations added": 1}


DUMPED_POD = """\
apiVersion: v1
kind: Pod
metadata:
  annotations:
    kubernetes.io/limit-ranger: 'LimitRanger plugin set: memory request for container web'
  creationTimestamp: "2021-01-05T10:00:00Z"
  generateName: web-7d4b9c-
  name: web-7d4b9c-x2kqp
  namespace: shop
  uid: 0b6a1f9e-1111-2222-3333-444455556666
spec:
  containers:
  - image: nginx
    name: web
    ports:
    - containerPort: 80
      hostPort: 80
      protocol: TCP
    resources:
      limits:
        cpu: 500m
      requests:
        cpu: 500m
        memory: 64Mi
  hostNetwork: true
  nodeName: node-1
  overhead:
    cpu: 250m
  runtimeClassName: kata
  schedulerName: default-scheduler
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
  - effect: NoExecute
    key: node.kubernetes.io/unreachable
    operator: Exists
    tolerationSeconds: 300
status:
  phase: Running
"""


@pytest.mark.parametrize("created", [True, False], ids=["read from a dump", "created again"])
def test_dumped_pod_comes_out_equal(created):
    raw = yaml_doc(DUMPED_POD)
    admission = Admission(seed=7)
    result = admission.admit(raw, created=created)
    assert result.error is None
    assert result.raw == raw
    assert result.raw is not raw
    assert admission.counts == ({} if created else {"RuntimeClass not in snapshot": 1})


def test_input_is_never_changed_and_lines_are_kept():
    raw = yaml_doc(GPU_POD)
    before = pickle.dumps(raw)
    lines_before = (raw.key_lines, raw["spec"]["containers"].item_lines)
    result = Admission().admit(raw)
    assert pickle.dumps(raw) == before
    assert (raw.key_lines, raw["spec"]["containers"].item_lines) == lines_before
    out = result.raw
    assert isinstance(out, LocatedDict) and out is not raw
    assert out.key_lines == {"apiVersion": 1, "kind": 2, "metadata": 3, "spec": 5}
    container = out["spec"]["containers"][0]
    assert isinstance(out["spec"]["containers"], LocatedList)
    assert out["spec"]["containers"].item_lines == [7]
    assert container is not raw["spec"]["containers"][0]
    assert container["resources"].key_lines == {"limits": 10}
    assert container["resources"]["limits"] is raw["spec"]["containers"][0]["resources"]["limits"]  # unchanged: shared
    assert out["metadata"].key_lines == {"name": 4}  # the added namespace has no line


def test_a_decode_error_in_the_result_points_at_the_users_line():
    raw = yaml_doc(GPU_POD.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 1\n        cpu: lots"))
    ctx = DecodeContext(file="pods.yaml")
    decode_pod(ctx, Admission().admit(raw).raw)
    assert [(p.line, p.path) for p in ctx.problems] == [(12, "Pod default/cuda: spec.containers[0].resources.limits.cpu")]


GENERATED = """\
apiVersion: v1
kind: Pod
metadata:
  generateName: web-
spec:
  containers:
  - name: web
"""


def _names(seed, count=3, taken=()):
    admission = Admission(seed=seed, taken=taken)
    return [admission.admit(yaml_doc(GENERATED)).raw["metadata"]["name"] for _ in range(count)]


def test_generated_names_are_deterministic():
    assert _names(1) == _names(1)
    assert _names(1) != _names(2)
    assert len(set(_names(1, 50))) == 50
    for name in _names(3):
        assert name.startswith("web-") and len(name) == 9
        assert set(name[4:]) <= set("bcdfghjklmnpqrstvwxz2456789")


def test_generated_name_is_never_a_taken_one():
    first = _names(5, 1)[0]
    assert _names(5, 1, taken=[f"default/{first}"])[0] != first
    assert _names(5, 1, taken=[f"other/{first}"])[0] == first  # taken in another namespace only


def test_admitted_names_are_taken():
    admission = Admission(seed=5)
    first = _names(5, 1)[0]
    explicit = yaml_doc(GENERATED.replace("generateName: web-", f"name: {first}"))
    assert admission.admit(explicit).error is None
    assert admission.admit(yaml_doc(GENERATED)).raw["metadata"]["name"] != first


def test_generate_name_prefix_is_cut_to_58_bytes():
    long = "a" * 70
    admission = Admission()
    name = admission.admit({"metadata": {"generateName": long}, "spec": {}}).raw["metadata"]["name"]
    assert name[:58] == "a" * 58 and len(name) == 63


def test_created_pod_gets_defaulting_only():
    raw = {"metadata": {"name": "p"},
           "spec": {"runtimeClassName": "missing",
                    "containers": [{"name": "c", "resources": {"limits": {"cpu": "1"}}}]}}
    admission = Admission(runtime_classes=(), seed=0)
    result = admission.admit(raw, created=True)
    assert result.raw == {"metadata": {"name": "p", "namespace": "default"},
                          "spec": {"runtimeClassName": "missing", "schedulerName": "default-scheduler",
                                   "containers": [{"name": "c", "resources": {"limits": {"cpu": "1"},
                                                                              "requests": {"cpu": "1"}}}]}}


MALFORMED = [
    pytest.param("not a pod", id="a string"),
    pytest.param(None, id="null"),
    pytest.param([], id="a list"),
    pytest.param({}, id="empty"),
    pytest.param({"metadata": "x", "spec": "y"}, id="metadata and spec strings"),
    pytest.param({"metadata": {"annotations": "x", "generateName": 5}, "spec": {"containers": "x"}}, id="odd types"),
    pytest.param({"spec": {"containers": ["x", None, {"resources": "r"}, {"resources": {"limits": "l"}},
                                          {"resources": {"limits": {"cpu": [1]}, "requests": "r"}},
                                          {"resources": {"limits": {"cpu": "bad", "memory": {}}}}],
                           "initContainers": {"a": 1}, "tolerations": "t", "nodeSelector": [1],
                           "overhead": "o", "hostNetwork": True, "runtimeClassName": {"a": 1}}}, id="odd spec"),
    pytest.param({"spec": {"hostNetwork": True, "tolerations": [None, 1, {"key": []}],
                           "containers": [{"ports": [None, {"containerPort": "80"}, {"containerPort": True},
                                                     {"containerPort": 80, "hostPort": "x"}]}]}},
                 id="odd ports and tolerations"),
]


@pytest.mark.parametrize("raw", MALFORMED)
def test_malformed_input_never_raises(raw, limit_range_defaults, runtime_classes):
    before = copy.deepcopy(raw)
    admission = Admission(limit_ranges=[limit_range_defaults], runtime_classes=runtime_classes)
    for created in (False, True):
        result = admission.admit(raw, created=created)
        assert raw == before
        if not isinstance(raw, dict):
            assert result.raw is raw and result.error is None


def test_malformed_parts_are_left_alone():
    raw = {"metadata": {"name": "p", "namespace": "ns"},
           "spec": {"schedulerName": "s", "tolerations": "t",
                    "containers": [{"name": "c", "resources": {"limits": {"cpu": "bad", "memory": "1Gi"}}}]}}
    result = Admission().admit(raw)
    assert result.raw == {"metadata": {"name": "p", "namespace": "ns"},
                          "spec": {"schedulerName": "s", "tolerations": "t",
                                   "containers": [{"name": "c", "resources": {
                                       "limits": {"cpu": "bad", "memory": "1Gi"},
                                       "requests": {"memory": "1Gi"}}}]}}


def test_located_copy_keeps_line_maps():
    raw = yaml_doc(GPU_POD)
    copied = located_copy(raw)
    assert copied == raw and copied is not raw and copied.key_lines == raw.key_lines
    assert copied.key_lines is not raw.key_lines and copied.line == raw.line
    items = located_copy(raw["spec"]["containers"])
    assert items.item_lines == [7] and items.item_lines is not raw["spec"]["containers"].item_lines
    assert located_copy({"a": 1}) == {"a": 1} and located_copy(3) == 3
