"""RuntimeClass: ported from kubernetes v1.20 ``plugin/pkg/admission/runtimeclass/admission_test.go``
and ``pkg/util/tolerations/tolerations_test.go``.

Ported: ``TestSetOverhead``, ``TestSetScheduling``, ``TestAdmit`` (its lister and client
cases are one case here: the snapshot is the only source), ``TestValidate`` (upstream's
pods name no class, so its classes are unused there too) and ``TestValidateOverhead``; from
the tolerations package, ``TestIsSuperset`` (including upstream's ``foo-prenosched`` typo,
which makes that row test the zero toleration) and ``TestMergeTolerations``. Upstream
checks only whether an error occurs; here each message is checked. Left out:
``TestValidateInitialization`` (informers and clients), ``TestVerifyAgainstWhitelist`` and
``TestFuzzed`` (the PodTolerationRestriction plugin's, not run here).
"""

from __future__ import annotations

from typing import Any

import pytest

from ruleset.admission import Admission, RuntimeClass, Scheduling, decode_runtime_class
from ruleset.admission.goquantity import GoQuantity, go_quantity
from ruleset.admission.raw import Editor
from ruleset.admission.runtimeclass import OVERHEAD_MISMATCH, OVERHEAD_WITHOUT_CLASS, admit, validate
from ruleset.admission.tolerations import is_superset, merge_tolerations
from ruleset.api.decode import DecodeContext
from ruleset.api.meta import ObjectMeta
from ruleset.api.pod import Toleration
from ruleset.reading import CLUSTER
from ruleset.yaml_reading import load_yaml


def quantities(**values: str) -> dict[str, GoQuantity]:
    out = {}
    for k, v in values.items():
        q = go_quantity(v)
        assert q is not None
        out[k] = q
    return out


def runtime_class(overhead: dict | None = None, scheduling: Scheduling | None = None, name: str = "foo") -> RuntimeClass:
    return RuntimeClass(meta=ObjectMeta(name=name), handler="bar", overhead=overhead, scheduling=scheduling)


GUARANTEED = {"limits": {"cpu": "1", "memory": "10"}, "requests": {"cpu": "1", "memory": "10"}}


def overhead_pod(name: str, containers: int, resources: dict, set_overhead: bool) -> dict:
    """``newOverheadValidPod``."""
    pod: dict[str, Any] = {"metadata": {"name": name, "namespace": "test"}, "spec": {"containers": [
        {"image": f"foo:V{i}", "resources": dict(resources), "name": f"foo-{i}"} for i in range(containers)]}}
    if set_overhead:
        pod["spec"]["overhead"] = {"cpu": "100m", "memory": "1"}
    return pod


def scheduling_pod(name: str, node_selector: dict | None, tolerations: list | None) -> dict:
    """``newSchedulingValidPod``."""
    spec: dict[str, Any] = {}
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return {"metadata": {"name": name, "namespace": "test"}, "spec": spec}


SMALL = quantities(cpu="100m", memory="1")
LARGE = quantities(cpu="10", memory="10G")


@pytest.mark.parametrize(("rc", "pod", "error", "expected"), [
    pytest.param(runtime_class(SMALL), overhead_pod("no-resource-req-no-overhead", 1, {}, False), None,
                 overhead_pod("no-resource-req-no-overhead", 1, {}, True), id="overhead, no container requirements"),
    pytest.param(runtime_class(SMALL), overhead_pod("guaranteed", 1, GUARANTEED, False), None,
                 overhead_pod("guaranteed", 1, GUARANTEED, True), id="overhead, guaranteed pod"),
    pytest.param(runtime_class(LARGE), overhead_pod("empty-requiremennts-overhead", 1, {}, True), OVERHEAD_MISMATCH,
                 None, id="overhead, pod with differing overhead already set"),
    pytest.param(runtime_class(SMALL), overhead_pod("empty-requiremennts-overhead", 1, {}, True), None,
                 overhead_pod("empty-requiremennts-overhead", 1, {}, True), id="overhead, pod with same overhead already set"),
])
def test_set_overhead(rc, pod, error, expected):
    editor = Editor()
    own = editor.root(pod)
    outcome = admit(editor, own, rc)
    assert outcome.error == error
    if expected is not None:
        assert own == expected
        assert outcome.overhead_set is ("overhead" not in pod["spec"])


def tol(key: str, value: str, effect: str = "NoSchedule") -> dict:
    return {"key": key, "operator": "Equal", "value": value, "effect": effect}


@pytest.mark.parametrize(("scheduling", "pod", "error", "expected"), [
    pytest.param(None, scheduling_pod("pod-with-conflict-node-selector", {"foo": "bar"}, []), None,
                 scheduling_pod("pod-with-conflict-node-selector", {"foo": "bar"}, []), id="scheduling, nil scheduling"),
    pytest.param(Scheduling(node_selector={"foo": "conflict"}),
                 scheduling_pod("pod-with-conflict-node-selector", {"foo": "bar"}, []),
                 "conflict: runtimeClass.scheduling.nodeSelector[foo] = conflict; pod.spec.nodeSelector[foo] = bar",
                 None, id="scheduling, conflict node selector"),
    pytest.param(Scheduling(node_selector={"foo": "bar"}), scheduling_pod("pod-with-conflict-node-selector", None, None),
                 None, scheduling_pod("pod-with-conflict-node-selector", {"foo": "bar"}, None),
                 id="scheduling, nil node selector"),
    pytest.param(Scheduling(node_selector={"foo": "bar"}),
                 scheduling_pod("pod-with-same-key-value-node-selector", {"foo": "bar"}, None), None,
                 scheduling_pod("pod-with-same-key-value-node-selector", {"foo": "bar"}, None),
                 id="scheduling, node selector with the same key value"),
    pytest.param(Scheduling(node_selector={"foo": "bar", "fizz": "buzz"}),
                 scheduling_pod("pod-with-different-key-value-node-selector", {"foo": "bar"}, None), None,
                 scheduling_pod("pod-with-different-key-value-node-selector", {"foo": "bar", "fizz": "buzz"}, None),
                 id="scheduling, node selector with different key value"),
    pytest.param(Scheduling(tolerations=(Toleration("foo", "Equal", "bar", "NoSchedule"),
                                         Toleration("fizz", "Equal", "buzz", "NoSchedule"))),
                 scheduling_pod("pod-with-tolerations", {"foo": "bar"}, [tol("foo", "bar")]), None,
                 scheduling_pod("pod-with-tolerations", {"foo": "bar"}, [tol("foo", "bar"), tol("fizz", "buzz")]),
                 id="scheduling, multiple tolerations"),
])
def test_set_scheduling(scheduling, pod, error, expected):
    editor = Editor()
    own = editor.root(pod)
    outcome = admit(editor, own, runtime_class(scheduling=scheduling))
    assert outcome.error == error
    if expected is not None:
        assert own == expected
        assert outcome.scheduling_set is (own != pod)


POD_WITH_CLASS = {"metadata": {"name": "podname"}, "spec": {"runtimeClassName": "runtimeClassName"}}


@pytest.mark.parametrize(("classes", "error"), [
    pytest.param([runtime_class(name="runtimeClassName")], None, id="runtimeClass found"),
    pytest.param([runtime_class(name="other")],
                 'pods "podname" is forbidden: pod rejected: RuntimeClass "runtimeClassName" not found',
                 id="runtimeClass not found"),
])
def test_admit(classes, error):
    assert Admission(runtime_classes=classes).admit(POD_WITH_CLASS).error == error


@pytest.mark.parametrize(("pod", "error"), [
    pytest.param(overhead_pod("no-resource-req-no-overhead", 1, GUARANTEED, True), OVERHEAD_WITHOUT_CLASS,
                 id="No Overhead in RunntimeClass, Overhead set in pod"),
    pytest.param(overhead_pod("no-resource-req-no-overhead", 1, {}, True), OVERHEAD_WITHOUT_CLASS,
                 id="Non-matching Overheads"),
    pytest.param(overhead_pod("no-resource-req-no-overhead", 1, {}, False), None, id="Matching Overheads"),
])
def test_validate(pod, error):
    assert validate(pod, None) == error


@pytest.mark.parametrize(("rc", "pod", "error"), [
    pytest.param(runtime_class(SMALL), overhead_pod("no-requirements", 1, {}, False), OVERHEAD_MISMATCH,
                 id="Overhead part of RuntimeClass, no Overhead defined in pod"),
    pytest.param(runtime_class(), overhead_pod("no-resource-req-no-overhead", 1, GUARANTEED, True),
                 OVERHEAD_WITHOUT_CLASS, id="No Overhead in RunntimeClass, Overhead set in pod"),
    pytest.param(None, overhead_pod("no-resource-req-no-overhead", 1, GUARANTEED, True), OVERHEAD_WITHOUT_CLASS,
                 id="No RunntimeClass, Overhead set in pod"),
    pytest.param(runtime_class(LARGE), overhead_pod("no-resource-req-no-overhead", 1, {}, True), OVERHEAD_MISMATCH,
                 id="Non-matching Overheads"),
    pytest.param(runtime_class(SMALL), overhead_pod("no-resource-req-no-overhead", 1, {}, True), None,
                 id="Matching Overheads"),
])
def test_validate_overhead(rc, pod, error):
    assert validate(pod, rc) == error


TOLERATIONS = {
    "all": Toleration(operator="Exists"),
    "all-nosched": Toleration(operator="Exists", effect="NoSchedule"),
    "all-noexec": Toleration(operator="Exists", effect="NoExecute"),
    "foo": Toleration("foo", "Exists"),
    "foo-bar": Toleration("foo", "Equal", "bar"),
    "foo-nosched": Toleration("foo", "Exists", effect="NoSchedule"),
    "foo-bar-nosched": Toleration("foo", "Equal", "bar", "NoSchedule"),
    "foo-baz-nosched": Toleration("foo", "Equal", "baz", "NoSchedule"),
    "faz-nosched": Toleration("faz", "Exists", effect="NoSchedule"),
    "faz-baz-nosched": Toleration("faz", "Equal", "baz", "NoSchedule"),
    "foo-prefnosched": Toleration("foo", "Exists", effect="PreferNoSchedule"),
    "foo-noexec": Toleration("foo", "Exists", effect="NoExecute"),
    "foo-bar-noexec": Toleration("foo", "Equal", "bar", "NoExecute"),
    "foo-noexec-10": Toleration("foo", "Exists", effect="NoExecute", toleration_seconds=10),
    "foo-noexec-0": Toleration("foo", "Exists", effect="NoExecute", toleration_seconds=0),
    "foo-bar-noexec-10": Toleration("foo", "Equal", "bar", "NoExecute", 10),
}

SUPERSETS = [
    ("all", ["all-nosched", "all-noexec", "foo", "foo-bar", "foo-nosched", "foo-bar-nosched", "foo-baz-nosched",
             "faz-nosched", "faz-baz-nosched", "foo-prefnosched", "foo-noexec", "foo-bar-noexec", "foo-noexec-10",
             "foo-noexec-0", "foo-bar-noexec-10"]),
    ("all-nosched", ["foo-nosched", "foo-bar-nosched", "foo-baz-nosched", "faz-nosched", "faz-baz-nosched"]),
    ("all-noexec", ["foo-noexec", "foo-bar-noexec", "foo-noexec-10", "foo-noexec-0", "foo-bar-noexec-10"]),
    ("foo", ["foo-bar", "foo-nosched", "foo-bar-nosched", "foo-baz-nosched", "foo-prefnosched", "foo-noexec",
             "foo-bar-noexec", "foo-noexec-10", "foo-noexec-0", "foo-bar-noexec-10"]),
    ("foo-bar", ["foo-bar-nosched", "foo-bar-noexec", "foo-bar-noexec-10"]),
    ("foo-nosched", ["foo-bar-nosched", "foo-baz-nosched"]),
    ("foo-bar-nosched", []),
    ("faz-nosched", ["faz-baz-nosched"]),
    ("faz-baz-nosched", []),
    ("foo-prenosched", []),
    ("foo-noexec", ["foo-noexec", "foo-bar-noexec", "foo-noexec-10", "foo-noexec-0", "foo-bar-noexec-10"]),
    ("foo-bar-noexec", ["foo-bar-noexec-10"]),
    ("foo-noexec-10", ["foo-noexec-0", "foo-bar-noexec-10"]),
    ("foo-noexec-0", []),
    ("foo-bar-noexec-10", []),
]


@pytest.mark.parametrize(("toleration", "subsets"), [pytest.param(t, ss, id=t) for t, ss in SUPERSETS])
def test_is_superset(toleration, subsets):
    ss = TOLERATIONS.get(toleration, Toleration())  # Go's map gives the zero value for the typo
    got = {name for name, t in TOLERATIONS.items() if is_superset(ss, t)}
    assert got == ({toleration} & TOLERATIONS.keys()) | set(subsets)


@pytest.mark.parametrize(("a", "b", "expected"), [
    pytest.param(["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"], ["foo-prefnosched", "foo-baz-nosched"],
                 ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10", "foo-prefnosched", "foo-baz-nosched"],
                 id="disjoint"),
    pytest.param(["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
                 ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
                 ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"], id="duplicate"),
    pytest.param(["foo-bar-nosched", "foo-baz-nosched"], ["foo-nosched", "faz-baz-nosched"],
                 ["foo-nosched", "faz-baz-nosched"], id="merge redundant"),
    pytest.param(["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"], ["all"], ["all"], id="merge all"),
    pytest.param(["all"], ["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"], ["all"], id="merge into all"),
])
def test_merge_tolerations(a, b, expected):
    first, second = [TOLERATIONS[n] for n in a], [TOLERATIONS[n] for n in b]
    both = [*first, *second]
    assert [both[i] for i in merge_tolerations(first, second)] == [TOLERATIONS[n] for n in expected]


# --- through the admitter, and the decoder (ruleset's) --------------------------------------

KATA = """\
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: kata
handler: kata
overhead:
  podFixed:
    cpu: 250m
    memory: 120Mi
scheduling:
  nodeSelector:
    sandbox: kata
  tolerations:
  - key: sandbox
    operator: Exists
    effect: NoSchedule
"""


def decoded(text: str) -> tuple[RuntimeClass, list]:
    ctx = DecodeContext(file="classes.yaml")
    return decode_runtime_class(ctx, next(load_yaml(text, "classes.yaml", CLUSTER))), ctx.problems


@pytest.mark.parametrize("text", [
    pytest.param(KATA, id="node.k8s.io/v1"),
    pytest.param(KATA.replace("/v1", "/v1beta1"), id="node.k8s.io/v1beta1"),
    pytest.param("apiVersion: node.k8s.io/v1alpha1\nkind: RuntimeClass\nmetadata:\n  name: kata\nspec:\n"
                 "  runtimeHandler: kata\n" + "\n".join("  " + line for line in KATA.splitlines()[5:]) + "\n",
                 id="node.k8s.io/v1alpha1 (under spec)"),
])
def test_decode_runtime_class(text):
    rc, problems = decoded(text)
    assert problems == []
    assert (rc.name, rc.handler) == ("kata", "kata")
    assert {k: str(v) for k, v in (rc.overhead or {}).items()} == {"cpu": "250m", "memory": "120Mi"}
    assert rc.scheduling == Scheduling({"sandbox": "kata"}, (Toleration("sandbox", "Exists", "", "NoSchedule"),))


def test_decode_runtime_class_without_overhead_or_scheduling():
    rc, problems = decoded("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: runc\nhandler: runc\n")
    assert (problems, rc.overhead, rc.scheduling) == ([], None, None)


def test_decode_runtime_class_problems_are_located():
    _, problems = decoded(KATA.replace("memory: 120Mi", "memory: -1"))
    assert [(p.line, p.path, p.message) for p in problems] == [
        (9, "RuntimeClass kata: overhead.podFixed.memory", "Invalid value: \"-1\": must be greater than or equal to 0")]


def kata_pod(**spec: Any) -> dict:
    return {"metadata": {"name": "sandboxed", "namespace": "default"},
            "spec": {"runtimeClassName": "kata", "containers": [{"name": "c"}], **spec}}


def test_admission_applies_the_class():
    rc, _ = decoded(KATA)
    admission = Admission(runtime_classes=[rc])
    result = admission.admit(kata_pod(nodeSelector={"zone": "a"}))
    assert result.error is None
    assert result.raw["spec"] == {
        "runtimeClassName": "kata", "containers": [{"name": "c"}], "schedulerName": "default-scheduler",
        "nodeSelector": {"zone": "a", "sandbox": "kata"},
        "overhead": {"cpu": "250m", "memory": "120Mi"},
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300},
            {"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]}
    assert admission.counts == {"schedulerName defaulted": 1, "DefaultTolerationSeconds tolerations added": 1,
                                "RuntimeClass overhead": 1, "RuntimeClass scheduling": 1}


@pytest.mark.parametrize(("spec", "error"), [
    pytest.param({"nodeSelector": {"sandbox": "gvisor"}},
                 'pods "sandboxed" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; '
                 "pod.spec.nodeSelector[sandbox] = gvisor", id="conflicting selector"),
    pytest.param({"overhead": {"cpu": "1"}}, f'pods "sandboxed" is forbidden: {OVERHEAD_MISMATCH}',
                 id="different overhead"),
    pytest.param({"runtimeClassName": "gvisor"},
                 'pods "sandboxed" is forbidden: pod rejected: RuntimeClass "gvisor" not found', id="unknown class"),
    pytest.param({"runtimeClassName": None, "overhead": {"cpu": "1"}},
                 f'pods "sandboxed" is forbidden: {OVERHEAD_WITHOUT_CLASS}', id="overhead without a class"),
])
def test_admission_refusals(spec, error):
    rc, _ = decoded(KATA)
    admission = Admission(runtime_classes=[rc])
    assert admission.admit(kata_pod(**spec)).error == error
    assert admission.counts == {"refused": 1}


def test_refused_before_naming_draws_no_name():
    rc, _ = decoded(KATA)
    generated = {"metadata": {"generateName": "job-"}, "spec": {}}
    expected = Admission(seed=3).admit(generated).raw["metadata"]["name"]
    admission = Admission(runtime_classes=[rc], seed=3)
    refused = admission.admit({"metadata": {"generateName": "job-"}, "spec": {"runtimeClassName": "gvisor"}})
    assert refused.error == 'pods "job-" is forbidden: pod rejected: RuntimeClass "gvisor" not found'
    assert admission.admit(generated).raw["metadata"]["name"] == expected


def test_no_runtime_class_in_the_snapshot_leaves_the_pod():
    admission = Admission()
    pod = kata_pod(overhead={"cpu": "1"}, schedulerName="default-scheduler",
                   tolerations=[{"operator": "Exists"}])
    result = admission.admit(pod)
    assert (result.error, result.raw) == (None, pod)
    assert admission.counts == {"RuntimeClass not in snapshot": 1}
