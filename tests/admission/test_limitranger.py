"""LimitRanger: ported from kubernetes v1.20 ``plugin/pkg/admission/limitranger/admission_test.go``.

Ported: ``TestDefaultContainerResourceRequirements``, ``TestMergePodResourceRequirements``
(upstream's first case compares the pod with maps the pod shares, so it only checks the
annotation; here the merged resources are checked too), ``TestPodLimitFunc`` (its cpu and
memory cases; each run as upstream runs them, ``PodMutateLimitFunc`` then
``PodValidateLimitFunc``, on LimitRanges built without API defaulting) with the exact
message each error case gets (upstream checks only that there is one), and
``TestPodLimitFuncApplyDefault``. Left out: the PersistentVolumeClaim, ephemeral-storage
and extended-resource cases (ruleset admits pods only; those resources are checked by the
same code), and the cache, informer and subresource tests (no API server here). The init
container cases are ruleset's, written the way v1.20's ``validPodInit`` cases are.
"""

from __future__ import annotations

from typing import Any

import pytest

from ruleset.admission import Admission, LimitRange, LimitRangeItem, decode_limit_range
from ruleset.admission.goquantity import GoQuantity, go_quantity
from ruleset.admission.limitranger import aggregate, default_requirements, mutate, validate
from ruleset.admission.raw import Editor
from ruleset.api.decode import DecodeContext
from ruleset.api.meta import ObjectMeta
from ruleset.reading import CLUSTER
from ruleset.yaml_reading import load_yaml


def rl(cpu: str = "", memory: str = "") -> dict[str, str]:
    """``getResourceList``."""
    return {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}


def quantities(raw: dict[str, str]) -> dict[str, GoQuantity]:
    out = {}
    for k, v in raw.items():
        q = go_quantity(v)
        assert q is not None
        out[k] = q
    return out


def limit_range(*items: LimitRangeItem) -> LimitRange:
    return LimitRange(meta=ObjectMeta(name="abc", namespace="test"), limits=items)


def create_limit_range(limit_type: str, min_: dict, max_: dict, default: dict, default_request: dict,
                       ratio: dict) -> LimitRange:
    """``createLimitRange``: one item, no API defaulting."""
    return limit_range(LimitRangeItem(limit_type, max=quantities(max_), min=quantities(min_),
                                      default=quantities(default), default_request=quantities(default_request),
                                      max_limit_request_ratio=quantities(ratio)))


def valid_limit_range() -> LimitRange:
    """``validLimitRange``."""
    return limit_range(
        LimitRangeItem("Pod", max=quantities(rl("200m", "4Gi")), min=quantities(rl("50m", "2Mi"))),
        LimitRangeItem("Container", max=quantities(rl("100m", "2Gi")), min=quantities(rl("25m", "1Mi")),
                       default=quantities(rl("75m", "10Mi")), default_request=quantities(rl("50m", "5Mi"))))


def valid_pod(name: str, containers: int, requests: dict, limits: dict, init: tuple[dict, dict] | None = None) -> dict:
    """``validPod`` (and ``validPodInit`` with ``init``: one init container)."""
    pod: dict[str, Any] = {"metadata": {"name": name, "namespace": "test"}, "spec": {"containers": [
        {"name": f"foo-{i}", "image": f"foo:V{i}", "resources": {"requests": dict(requests), "limits": dict(limits)}}
        for i in range(containers)]}}
    if init is not None:
        pod["spec"]["initContainers"] = [{"name": "foo-init", "resources": {"requests": dict(init[0]),
                                                                              "limits": dict(init[1])}}]
    return pod


def run(limit_range_: LimitRange, raw: dict) -> tuple[dict, str | None]:
    editor = Editor()
    pod = editor.root(raw)
    mutate(editor, pod, limit_range_)
    return pod, validate(pod, limit_range_)


def test_default_container_resource_requirements():
    requests, limits = default_requirements(valid_limit_range())
    assert {k: str(v) for k, v in requests.items()} == {"cpu": "50m", "memory": "5Mi"}
    assert {k: str(v) for k, v in limits.items()} == {"cpu": "75m", "memory": "10Mi"}


@pytest.mark.parametrize(("requests", "limits", "expected", "annotation"), [
    pytest.param({}, {}, {"requests": {"cpu": "50m", "memory": "5Mi"}, "limits": {"cpu": "75m", "memory": "10Mi"}},
                 "LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory limit for container foo-0",
                 id="no resources: each from the defaults"),
    pytest.param(rl("", "512Mi"), {}, {"requests": {"memory": "512Mi", "cpu": "50m"},
                                       "limits": {"cpu": "75m", "memory": "10Mi"}},
                 "LimitRanger plugin set: cpu request for container foo-0; cpu, memory limit for container foo-0",
                 id="some resources: only the missing merged"),
    pytest.param(rl("100m", "512Mi"), rl("200m", "1G"), {"requests": {"cpu": "100m", "memory": "512Mi"},
                                                         "limits": {"cpu": "200m", "memory": "1G"}},
                 None, id="all resources: nothing merged"),
])
def test_merge_pod_resource_requirements(requests, limits, expected, annotation):
    editor = Editor()
    pod = editor.root(valid_pod("p", 1, requests, limits))
    assert mutate(editor, pod, valid_limit_range()) is (annotation is not None)
    assert pod["spec"]["containers"][0]["resources"] == expected
    assert pod["metadata"].get("annotations", {}).get("kubernetes.io/limit-ranger") == annotation


def test_merge_init_container_resources():
    editor = Editor()
    pod = editor.root(valid_pod("p", 1, rl("100m", "512Mi"), rl("100m", "1Gi"), init=({}, rl("80m"))))
    assert mutate(editor, pod, valid_limit_range())
    assert pod["spec"]["initContainers"][0]["resources"] == {"requests": {"cpu": "50m", "memory": "5Mi"},
                                                            "limits": {"cpu": "80m", "memory": "10Mi"}}
    assert pod["metadata"]["annotations"] == {
        "kubernetes.io/limit-ranger":
            "LimitRanger plugin set: cpu, memory request for init container foo-init; memory limit for init container foo-init"}


NONE: dict = {}
C, P = "Container", "Pod"

SUCCESS = [
    ("ctr-min-cpu-request", 1, rl("100m"), NONE, (C, rl("50m"), NONE, NONE, NONE, NONE)),
    ("ctr-min-cpu-request-limit", 1, rl("100m"), rl("200m"), (C, rl("50m"), NONE, NONE, NONE, NONE)),
    ("ctr-min-memory-request", 1, rl("", "60Mi"), NONE, (C, rl("", "50Mi"), NONE, NONE, NONE, NONE)),
    ("ctr-min-memory-request-limit", 1, rl("", "60Mi"), rl("", "100Mi"), (C, rl("", "50Mi"), NONE, NONE, NONE, NONE)),
    ("ctr-max-cpu-request-limit", 1, rl("500m"), rl("1"), (C, NONE, rl("2"), NONE, NONE, NONE)),
    ("ctr-max-cpu-limit", 1, NONE, rl("1"), (C, NONE, rl("2"), NONE, NONE, NONE)),
    ("ctr-max-mem-request-limit", 1, rl("", "250Mi"), rl("", "500Mi"), (C, NONE, rl("", "1Gi"), NONE, NONE, NONE)),
    ("ctr-max-cpu-ratio", 1, rl("500m"), rl("750m"), (C, NONE, NONE, NONE, NONE, rl("1.5"))),
    ("ctr-max-mem-limit", 1, NONE, rl("", "500Mi"), (C, NONE, rl("", "1Gi"), NONE, NONE, NONE)),
    ("pod-min-cpu-request", 2, rl("75m"), NONE, (P, rl("100m"), NONE, NONE, NONE, NONE)),
    ("pod-min-cpu-request-limit", 2, rl("75m"), rl("200m"), (P, rl("100m"), NONE, NONE, NONE, NONE)),
    ("pod-min-memory-request", 2, rl("", "60Mi"), NONE, (P, rl("", "100Mi"), NONE, NONE, NONE, NONE)),
    ("pod-min-memory-request-limit", 2, rl("", "60Mi"), rl("", "100Mi"), (P, rl("", "100Mi"), NONE, NONE, NONE, NONE)),
    ("pod-max-cpu-request-limit", 2, rl("500m"), rl("1"), (P, NONE, rl("2"), NONE, NONE, NONE)),
    ("pod-max-cpu-limit", 2, NONE, rl("1"), (P, NONE, rl("2"), NONE, NONE, NONE)),
    ("pod-max-mem-request-limit", 2, rl("", "250Mi"), rl("", "500Mi"), (P, NONE, rl("", "1Gi"), NONE, NONE, NONE)),
    ("pod-max-mem-limit", 2, NONE, rl("", "500Mi"), (P, NONE, rl("", "1Gi"), NONE, NONE, NONE)),
    ("pod-max-mem-ratio", 3, rl("", "300Mi"), rl("", "450Mi"), (P, NONE, rl("", "2Gi"), NONE, NONE, rl("", "1.5"))),
]

ERRORS = [
    ("ctr-min-cpu-request", 1, rl("40m"), NONE, (C, rl("50m"), NONE, NONE, NONE, NONE),
     "minimum cpu usage per Container is 50m, but request is 40m"),
    ("ctr-min-cpu-request-limit", 1, rl("40m"), rl("200m"), (C, rl("50m"), NONE, NONE, NONE, NONE),
     "minimum cpu usage per Container is 50m, but request is 40m"),
    ("ctr-min-cpu-no-request-limit", 1, NONE, NONE, (C, rl("50m"), NONE, NONE, NONE, NONE),
     "minimum cpu usage per Container is 50m.  No request is specified"),
    ("ctr-min-memory-request", 1, rl("", "40Mi"), NONE, (C, rl("", "50Mi"), NONE, NONE, NONE, NONE),
     "minimum memory usage per Container is 50Mi, but request is 40Mi"),
    ("ctr-min-memory-request-limit", 1, rl("", "40Mi"), rl("", "100Mi"), (C, rl("", "50Mi"), NONE, NONE, NONE, NONE),
     "minimum memory usage per Container is 50Mi, but request is 40Mi"),
    ("ctr-min-memory-no-request-limit", 1, NONE, NONE, (C, rl("", "50Mi"), NONE, NONE, NONE, NONE),
     "minimum memory usage per Container is 50Mi.  No request is specified"),
    ("ctr-max-cpu-request-limit", 1, rl("500m"), rl("2500m"), (C, NONE, rl("2"), NONE, NONE, NONE),
     "maximum cpu usage per Container is 2, but limit is 2500m"),
    ("ctr-max-cpu-limit", 1, NONE, rl("2500m"), (C, NONE, rl("2"), NONE, NONE, NONE),
     "maximum cpu usage per Container is 2, but limit is 2500m"),
    ("ctr-max-cpu-no-request-limit", 1, NONE, NONE, (C, NONE, rl("2"), NONE, NONE, NONE),
     "maximum cpu usage per Container is 2.  No limit is specified"),
    ("ctr-max-cpu-ratio", 1, rl("1250m"), rl("2500m"), (C, NONE, NONE, NONE, NONE, rl("1")),
     "cpu max limit to request ratio per Container is 1, but provided ratio is 2.000000"),
    ("ctr-max-mem-request-limit", 1, rl("", "250Mi"), rl("", "2Gi"), (C, NONE, rl("", "1Gi"), NONE, NONE, NONE),
     "maximum memory usage per Container is 1Gi, but limit is 2Gi"),
    ("ctr-max-mem-limit", 1, NONE, rl("", "2Gi"), (C, NONE, rl("", "1Gi"), NONE, NONE, NONE),
     "maximum memory usage per Container is 1Gi, but limit is 2Gi"),
    ("ctr-max-mem-no-request-limit", 1, NONE, NONE, (C, NONE, rl("", "1Gi"), NONE, NONE, NONE),
     "maximum memory usage per Container is 1Gi.  No limit is specified"),
    ("pod-min-cpu-request", 1, rl("75m"), NONE, (P, rl("100m"), NONE, NONE, NONE, NONE),
     "minimum cpu usage per Pod is 100m, but request is 75m"),
    ("pod-min-cpu-request-limit", 1, rl("75m"), rl("200m"), (P, rl("100m"), NONE, NONE, NONE, NONE),
     "minimum cpu usage per Pod is 100m, but request is 75m"),
    ("pod-min-memory-request", 1, rl("", "60Mi"), NONE, (P, rl("", "100Mi"), NONE, NONE, NONE, NONE),
     "minimum memory usage per Pod is 100Mi, but request is 62914560"),
    ("pod-min-memory-request-limit", 1, rl("", "60Mi"), rl("", "100Mi"), (P, rl("", "100Mi"), NONE, NONE, NONE, NONE),
     "minimum memory usage per Pod is 100Mi, but request is 62914560"),
    ("pod-max-cpu-request-limit", 3, rl("500m"), rl("1"), (P, NONE, rl("2"), NONE, NONE, NONE),
     "maximum cpu usage per Pod is 2, but limit is 3"),
    ("pod-max-cpu-limit", 3, NONE, rl("1"), (P, NONE, rl("2"), NONE, NONE, NONE),
     "maximum cpu usage per Pod is 2, but limit is 3"),
    ("pod-max-mem-request-limit", 3, rl("", "250Mi"), rl("", "500Mi"), (P, NONE, rl("", "1Gi"), NONE, NONE, NONE),
     "maximum memory usage per Pod is 1Gi, but limit is 1572864k"),
    ("pod-max-mem-limit", 3, NONE, rl("", "500Mi"), (P, NONE, rl("", "1Gi"), NONE, NONE, NONE),
     "maximum memory usage per Pod is 1Gi, but limit is 1572864k"),
    ("pod-max-mem-ratio", 3, rl("", "250Mi"), rl("", "500Mi"), (P, NONE, rl("", "2Gi"), NONE, NONE, rl("", "1.5")),
     "memory max limit to request ratio per Pod is 1500m, but provided ratio is 2.000000"),
]


@pytest.mark.parametrize(("name", "count", "requests", "limits", "lr"), [pytest.param(*c, id=c[0]) for c in SUCCESS])
def test_pod_limit_func_success(name, count, requests, limits, lr):
    assert run(create_limit_range(*lr), valid_pod(name, count, requests, limits))[1] is None


@pytest.mark.parametrize(("name", "count", "requests", "limits", "lr", "message"),
                         [pytest.param(*c, id=c[0]) for c in ERRORS])
def test_pod_limit_func_errors(name, count, requests, limits, lr, message):
    assert run(create_limit_range(*lr), valid_pod(name, count, requests, limits))[1] == message


@pytest.mark.parametrize(("init", "lr", "message"), [
    pytest.param((rl("100m"), NONE), (C, rl("50m"), NONE, NONE, NONE, NONE), None, id="init-min-cpu-request"),
    pytest.param((rl("40m"), NONE), (C, rl("50m"), NONE, NONE, NONE, NONE),
                 "minimum cpu usage per Container is 50m, but request is 40m", id="init-min-cpu-request-too-low"),
    pytest.param((NONE, rl("3")), (C, NONE, rl("2"), NONE, NONE, NONE),
                 "maximum cpu usage per Container is 2, but limit is 3", id="init-max-cpu-limit"),
    pytest.param((rl("900m"), NONE), (P, NONE, NONE, NONE, NONE, NONE), None, id="pod-no-constraints"),
    pytest.param((rl("900m"), NONE), (P, rl("800m"), NONE, NONE, NONE, NONE), None,
                 id="pod-min-cpu-init-larger-than-sum"),
    pytest.param((NONE, rl("2500m")), (P, NONE, rl("2"), NONE, NONE, NONE),
                 "maximum cpu usage per Pod is 2, but limit is 2500m", id="pod-max-cpu-init-limit-wins"),
])
def test_pod_limit_func_init_containers(init, lr, message):
    pod = valid_pod("p", 2, rl("200m"), rl("1"), init=init)
    assert run(create_limit_range(*lr), pod)[1] == message


def test_pod_limit_func_apply_default():
    pod, err = run(valid_limit_range(), valid_pod("foo", 1, NONE, NONE))
    assert err is None
    assert pod["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "50m", "memory": "5Mi"},
                                                         "limits": {"cpu": "75m", "memory": "10Mi"}}


def test_pod_sum_keeps_only_resources_every_container_names():
    lr = create_limit_range(P, NONE, rl("1", "1Gi"), NONE, NONE, NONE)
    pod = valid_pod("p", 1, NONE, rl("500m", "512Mi"))
    pod["spec"]["containers"].append({"name": "b", "resources": {"limits": rl("700m")}})
    assert run(lr, pod)[1] == ("[maximum cpu usage per Pod is 1, but limit is 1200m, "
                               "maximum memory usage per Pod is 1Gi.  No limit is specified]")


@pytest.mark.parametrize(("errs", "message"), [
    pytest.param([], None, id="none"),
    pytest.param(["a"], "a", id="one"),
    pytest.param(["a", "b"], "[a, b]", id="two"),
    pytest.param(["a", "a"], "a", id="duplicates"),
    pytest.param(["a", "b", "a"], "[a, b]", id="duplicates among others"),
])
def test_aggregate(errs, message):
    assert aggregate(errs) == message


LIMITS_YAML = """\
apiVersion: v1
kind: LimitRange
metadata:
  name: cpu
  namespace: shop
spec:
  limits:
  - type: Container
    max:
      cpu: "2"
    min:
      memory: 16Mi
  - type: Pod
    max:
      cpu: 3
"""


def decoded(text: str) -> tuple[LimitRange, list]:
    ctx = DecodeContext(file="limits.yaml")
    return decode_limit_range(ctx, next(load_yaml(text, "limits.yaml", CLUSTER))), ctx.problems


def test_decode_limit_range_applies_api_defaults():
    lr, problems = decoded(LIMITS_YAML)
    assert problems == []
    assert (lr.namespace, lr.name) == ("shop", "cpu")
    container, pod = lr.limits
    shown = {k: {n: str(q) for n, q in getattr(container, k).items()}
             for k in ("max", "min", "default", "default_request", "max_limit_request_ratio")}
    assert shown == {"max": {"cpu": "2"}, "min": {"memory": "16Mi"}, "default": {"cpu": "2"},
                     "default_request": {"cpu": "2", "memory": "16Mi"}, "max_limit_request_ratio": {}}
    assert (pod.type, {n: str(q) for n, q in pod.max.items()}, pod.default, pod.default_request) == (
        "Pod", {"cpu": "3"}, {}, {})


def test_decode_limit_range_problems_are_located():
    _, problems = decoded(LIMITS_YAML.replace('cpu: "2"', "cpu: two"))
    assert [(p.line, p.path, p.message) for p in problems] == [
        (10, "LimitRange shop/cpu: spec.limits[0].max.cpu",
         "'two': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]


POD = {"metadata": {"name": "web", "namespace": "shop"},
       "spec": {"containers": [{"name": "web", "resources": {"limits": {"cpu": "4"}}}]}}


def test_admission_refuses_a_pod_over_the_maximum():
    lr, _ = decoded(LIMITS_YAML)
    admission = Admission(limit_ranges=[lr])
    result = admission.admit(POD)
    # The pod gets memory 16Mi from the range's min (defaultRequest defaults to min): no error for it.
    assert result.error == ('pods "web" is forbidden: [maximum cpu usage per Container is 2, but limit is 4, '
                            "maximum cpu usage per Pod is 3, but limit is 4]")
    assert admission.counts == {"refused": 1}


def test_admission_fills_defaults_and_annotates():
    lr, _ = decoded(LIMITS_YAML)
    pod = {"metadata": {"name": "web", "namespace": "shop"},
           "spec": {"containers": [{"name": "web", "resources": {"requests": {"memory": "32Mi"}}}]}}
    admission = Admission(limit_ranges=[lr])
    result = admission.admit(pod)
    assert result.error is None
    assert result.raw["spec"]["containers"][0]["resources"] == {"requests": {"memory": "32Mi", "cpu": "2"},
                                                                "limits": {"cpu": "2"}}
    assert result.raw["metadata"]["annotations"] == {
        "kubernetes.io/limit-ranger": "LimitRanger plugin set: cpu request for container web; cpu limit for container web"}
    assert admission.counts["LimitRanger defaults"] == 1


def test_limit_ranges_of_other_namespaces_and_running_pods_are_ignored():
    lr, _ = decoded(LIMITS_YAML)
    admission = Admission(limit_ranges=[lr])
    elsewhere = {**POD, "metadata": {"name": "web", "namespace": "other"}}
    assert admission.admit(elsewhere).error is None
    running = admission.admit(POD, created=True)
    assert running.error is None
    assert "annotations" not in running.raw["metadata"]
