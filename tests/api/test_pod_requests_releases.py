"""What a pod asks for, per release: native sidecars, pod-level resources, exact sums, host ports.

Ported from ``staging/src/k8s.io/component-helpers/resource/helpers_test.go`` (v1.34),
``TestPodResourceRequests``: the 8 cases whose pods have no status. Left out: the three
``resized, …`` cases (in-place resize reads container statuses, which ruleset does not model:
a dump's pending pods have none) and ``TestPodResourceRequestsReuse`` (Go map reuse). The
pod-level cases below are written from ``PodRequests`` / ``IsSupportedPodLevelResource``
and ``PodInfo.CalculateResource``'s ``getNonMissingContainerRequests`` at v1.34 (upstream's
``TestPodLevelResourceRequests`` was not in the stored index). Each switch also has a case
giving 1.20's answer at the release before it and the new one from its release on.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest

from ruleset.api import resources as res
from ruleset.api.decode import DecodeContext
from ruleset.api.pod import Pod, apply_target, decode_pod
from ruleset.kversion import KubeVersion, Target
from ruleset.snapshot import Snapshot
from tests.factories import container, decode, make_node, make_pod

GI = 1024 ** 3
MI = 1024 ** 2


def target(version: str, **gates: bool) -> Target:
    return Target(KubeVersion.parse(version), gates, explicit=True)


def init(cpu: str | None = None, *, always: bool = False, name: str = "i", **more: Any) -> dict:
    out = container({"cpu": cpu} if cpu is not None else None, name=name, **more)
    if always:
        out["restartPolicy"] = "Always"
    return out


def pod_of(containers: Sequence[dict], inits: Sequence[dict] = (), *, overhead: dict | None = None,
           pod_requests: dict | None = None, pod_limits: dict | None = None, gates: Sequence[str] = ()) -> Pod:
    raw = make_pod("p", containers=containers, init_containers=list(inits), overhead=overhead)
    if pod_requests is not None or pod_limits is not None:
        raw["spec"]["resources"] = {k: v for k, v in (("requests", pod_requests), ("limits", pod_limits))
                                    if v is not None}
    if gates:
        raw["spec"]["schedulingGates"] = [{"name": g} for g in gates]
    return decode(raw)


def at(pod: Pod, version: str, **gates: bool) -> Pod:
    apply_target([pod], target(version, **gates))
    return pod


def cpu(value: str) -> dict:
    return {"cpu": value}


# ---------------------------------------------------------------------------------------------------
# TestPodResourceRequests (v1.34), nil options unless said
# ---------------------------------------------------------------------------------------------------

UPSTREAM = [
    pytest.param([container(cpu("1"))], [init("4")], None, False, {"cpu": Fraction(4)},
                 id="nil options, larger init container"),
    pytest.param([container(cpu("2")), container(cpu("3"))], [init("2")], None, False, {"cpu": Fraction(5)},
                 id="nil options, larger containers"),
    pytest.param([container(cpu("2")), container(cpu("3"))], [init("2")], {"cpu": "1"}, True,
                 {"cpu": Fraction(5)}, id="pod overhead excluded"),
    pytest.param([container(cpu("2")), container(cpu("3"))],
                 [init("2", limits={"cpu": "2"})], {"cpu": "1", "memory": "1Gi"}, False,
                 {"cpu": Fraction(6), "memory": Fraction(GI)}, id="pod overhead included"),
    pytest.param([container(cpu("1"))], [init("1", always=True)], None, False, {"cpu": Fraction(2)},
                 id="restartable init container"),
    pytest.param([container(cpu("1"))],
                 [init("5", name="init-1"), init("1", always=True, name="r1"), init("2", always=True, name="r2"),
                  init("3", always=True, name="r3")], None, False, {"cpu": Fraction(7)},
                 id="multiple restartable init containers"),
    pytest.param([container(cpu("1"))],
                 [init("5", name="init-1"), init("1", always=True, name="r1"), init("2", always=True, name="r2"),
                  init("5", name="init-2"), init("3", always=True, name="r3")], None, False,
                 {"cpu": Fraction(8)}, id="multiple restartable and regular init containers"),
    pytest.param([container(cpu("100"))], [init("10", always=True, name="r1"), init("200", name="init-1")],
                 None, False, {"cpu": Fraction(210)}, id="restartable-init, init and regular"),
]


@pytest.mark.parametrize(("containers", "inits", "overhead", "exclude", "expected"), UPSTREAM)
def test_pod_requests_v134(containers: list[dict], inits: list[dict], overhead: dict | None, exclude: bool,
                           expected: dict[str, Fraction]) -> None:
    pod = pod_of(containers, inits, overhead=overhead)
    assert res.pod_requests(pod, sidecars=True, pod_level=True, exclude_overhead=exclude) == expected


@pytest.mark.parametrize(("containers", "inits", "overhead", "exclude", "expected"), UPSTREAM)
def test_requests_at_134_are_the_helpers_rounded(containers: list[dict], inits: list[dict], overhead: dict | None,
                                                 exclude: bool, expected: dict[str, Fraction]) -> None:
    pod = at(pod_of(containers, inits, overhead=None if exclude else overhead), "1.34")
    assert pod.requests == {name: res.scaled(name, q) for name, q in expected.items()}


# ---------------------------------------------------------------------------------------------------
# Each switch: the 1.20 answer before its release, the new one from it
# ---------------------------------------------------------------------------------------------------

SIDECAR_POD = ([container(cpu("1"))], [init("1", always=True)])


@pytest.mark.parametrize(("version", "gates", "expected"), [
    pytest.param("1.20", {}, 1000, id="1.20-init-container-max"),
    pytest.param("1.27", {}, 1000, id="1.27-before-sidecars"),
    pytest.param("1.28", {}, 1000, id="1.28-gate-off-by-default"),
    pytest.param("1.28", {"SidecarContainers": True}, 2000, id="1.28-gate-on"),
    pytest.param("1.29", {}, 2000, id="1.29-beta-on"),
    pytest.param("1.34", {}, 2000, id="1.34"),
])
def test_sidecar_requests_switch(version: str, gates: dict[str, bool], expected: int) -> None:
    assert at(pod_of(*SIDECAR_POD), version, **gates).requests == {"cpu": expected}


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", {"cpu": 2}, id="1.20-each-container-rounded"),
    pytest.param("1.26", {"cpu": 2}, id="1.26"),
    pytest.param("1.27", {"cpu": 1}, id="1.27-exact-sum-rounded-once"),
    pytest.param("1.34", {"cpu": 1}, id="1.34"),
])
def test_exact_sum_switch(version: str, expected: dict[str, int]) -> None:
    # Two containers of 0.5m: 1.20 rounds each up to 1m (2m); PodRequests adds 1m, then rounds.
    pod = pod_of([container(cpu("0.5m"), name="a"), container(cpu("0.5m"), name="b")])
    assert at(pod, version).requests == expected


POD_LEVEL = [
    pytest.param([container({"cpu": "1", "memory": "100Mi"})], {"cpu": "2", "memory": "1Gi"}, None,
                 {"cpu": 2000, "memory": GI}, id="pod-level cpu and memory replace the sum"),
    pytest.param([container({"cpu": "1", "memory": "100Mi"})], {"cpu": "2"}, None,
                 {"cpu": 2000, "memory": 100 * MI}, id="pod-level cpu only: memory from the containers"),
    pytest.param([container({"cpu": "1"})], {"ephemeral-storage": "1Gi"}, None,
                 {"cpu": 1000}, id="an unsupported pod-level resource is not pod-level resources"),
    pytest.param([container({"cpu": "1"})], {"cpu": "2"}, {"cpu": "250m"},
                 {"cpu": 2250}, id="overhead is added to the pod-level value"),
    pytest.param([container({"hugepages-2Mi": "2Mi"})], {"cpu": "1", "hugepages-2Mi": "4Mi"}, None,
                 {"cpu": 1000, "hugepages-2Mi": 4 * MI}, id="hugepages are pod-level resources"),
]


@pytest.mark.parametrize(("containers", "pod_requests", "overhead", "expected"), POD_LEVEL)
def test_pod_level_requests_v134(containers: list[dict], pod_requests: dict, overhead: dict | None,
                                 expected: dict[str, int]) -> None:
    pod = at(pod_of(containers, overhead=overhead, pod_requests=pod_requests), "1.34")
    assert pod.requests == expected


@pytest.mark.parametrize(("version", "gates", "expected"), [
    pytest.param("1.20", {}, {"cpu": 1000, "memory": 100 * MI}, id="1.20-containers"),
    pytest.param("1.32", {}, {"cpu": 1000, "memory": 100 * MI}, id="1.32-alpha-off"),
    pytest.param("1.32", {"PodLevelResources": True}, {"cpu": 2000, "memory": GI}, id="1.32-gate-on"),
    pytest.param("1.34", {}, {"cpu": 2000, "memory": GI}, id="1.34-beta-on"),
    pytest.param("1.34", {"PodLevelResources": False}, {"cpu": 1000, "memory": 100 * MI}, id="1.34-gate-off"),
])
def test_pod_level_switch(version: str, gates: dict[str, bool], expected: dict[str, int]) -> None:
    pod = pod_of([container({"cpu": "1", "memory": "100Mi"})], pod_requests={"cpu": "2", "memory": "1Gi"})
    assert at(pod, version, **gates).requests == expected


# ---------------------------------------------------------------------------------------------------
# Non-zero requests (NodeInfo.NonZeroRequested)
# ---------------------------------------------------------------------------------------------------

NON_ZERO = [
    pytest.param([container()], [], None, "1.20", (100, 200 * MI), id="1.20-no-requests-defaults"),
    pytest.param([container()], [], None, "1.34", (100, 200 * MI), id="1.34-no-requests-defaults"),
    pytest.param([container()], [init(always=True)], None, "1.20", (100, 200 * MI),
                 id="1.20-sidecar-is-an-init-container"),
    pytest.param([container()], [init(always=True)], None, "1.34", (200, 400 * MI),
                 id="1.34-sidecar-defaults-add"),
    pytest.param([container({"cpu": "0"})], [], None, "1.34", (0, 200 * MI), id="1.34-explicit-zero-stays"),
    pytest.param([container()], [], {"cpu": "2"}, "1.34", (2000, 200 * MI),
                 id="1.34-pod-level-cpu-memory-defaulted"),
    pytest.param([container({"memory": "1Gi"})], [], {"cpu": "2"}, "1.34", (2000, GI),
                 id="1.34-pod-level-cpu-container-memory"),
    pytest.param([container()], [], {"cpu": "2", "memory": "1Gi"}, "1.34", (2000, GI),
                 id="1.34-pod-level-both"),
    pytest.param([container()], [], {"cpu": "2"}, "1.20", (100, 200 * MI), id="1.20-pod-level-ignored"),
]


@pytest.mark.parametrize(("containers", "inits", "pod_requests", "version", "expected"), NON_ZERO)
def test_non_zero_requests(containers: list[dict], inits: list[dict], pod_requests: dict | None, version: str,
                           expected: tuple[int, int]) -> None:
    pod = at(pod_of(containers, inits, pod_requests=pod_requests), version)
    assert pod.non_zero_requests == expected


# ---------------------------------------------------------------------------------------------------
# Host ports (schedutil.GetHostPorts, 1.34) and the snapshot's used ports
# ---------------------------------------------------------------------------------------------------

def _ports_pod() -> Pod:
    return pod_of([container(ports=[{"containerPort": 80, "hostPort": 80}, {"containerPort": 81}])],
                  [init(always=True, name="sidecar", ports=[{"containerPort": 8080, "hostPort": 8080}]),
                   init(name="plain", ports=[{"containerPort": 9090, "hostPort": 9090}])])


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", [80], id="1.20"),
    pytest.param("1.33", [80], id="1.33"),
    pytest.param("1.34", [8080, 80], id="1.34-sidecar-first"),
])
def test_host_ports(version: str, expected: list[int]) -> None:
    assert [p.host_port for p in at(_ports_pod(), version).host_ports] == expected


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", {("TCP", 80)}, id="1.20"),
    pytest.param("1.34", {("TCP", 80), ("TCP", 8080)}, id="1.34"),
])
def test_snapshot_uses_the_releases_host_ports(version: str, expected: set[tuple[str, int]]) -> None:
    node = decode_node(make_node("n1"))
    snapshot = Snapshot([node])
    pod = at(_ports_pod(), version)
    snapshot.add_pod(pod, 0)
    assert set(snapshot.used_ports[0]) == expected
    snapshot.remove_pod(pod)
    assert snapshot.used_ports[0] == {}


def decode_node(raw: dict) -> Any:
    from ruleset.api.node import decode_node as decode

    ctx = DecodeContext(file="<test>", api_checks=False)
    node = decode(ctx, raw)
    assert ctx.problems == []
    return node


def test_snapshot_accounts_the_releases_requests() -> None:
    snapshot = Snapshot([decode_node(make_node("n1"))])
    pod = at(pod_of(*SIDECAR_POD), "1.34")
    snapshot.add_pod(pod, 0)
    assert (snapshot.requested("cpu")[0], snapshot.non_zero_cpu[0]) == (2000, 2000)


# ---------------------------------------------------------------------------------------------------
# apply_target, decoding, newer fields
# ---------------------------------------------------------------------------------------------------

def test_apply_target_recomputes_cached_values_and_1_20_is_the_default() -> None:
    pod = pod_of(*SIDECAR_POD)
    assert pod.requests == {"cpu": 1000}  # never applied: 1.20
    apply_target([pod], target("1.34"))
    assert pod.requests == {"cpu": 2000}
    apply_target([pod], target("1.20"))
    assert pod.requests == {"cpu": 1000}
    assert pod.accounting is res.V1_20 or pod.accounting == res.V1_20


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", res.Accounting(), id="1.20"),
    pytest.param("1.27", res.Accounting(helper=True), id="1.27"),
    pytest.param("1.29", res.Accounting(helper=True, sidecars=True), id="1.29"),
    pytest.param("1.33", res.Accounting(helper=True, sidecars=True), id="1.33"),
    pytest.param("1.34", res.Accounting(helper=True, sidecars=True, pod_level=True, sidecar_ports=True), id="1.34"),
])
def test_accounting_for_target(version: str, expected: res.Accounting) -> None:
    assert res.Accounting.for_target(target(version)) == expected


def test_new_fields_decode() -> None:
    pod = pod_of([container()], [init(always=True, name="s"), init(name="i")], gates=["a", "b"],
                 pod_requests={"cpu": "500m"}, pod_limits={"memory": "1Gi"})
    assert [c.restart_policy for c in pod.init_containers] == ["Always", ""]
    assert pod.scheduling_gates == ("a", "b")
    assert pod.pod_requests == {"cpu": Fraction(1, 2)}
    assert pod.pod_limits == {"memory": Fraction(GI)}


def test_a_pod_without_new_fields_has_none() -> None:
    pod = pod_of([container(cpu("1"))], [init("1")])
    assert ([c.restart_policy for c in pod.init_containers], pod.scheduling_gates, pod.pod_requests,
            pod.pod_limits) == ([""], (), {}, {})


@pytest.mark.parametrize(("spec", "message"), [
    pytest.param({"schedulingGates": ["a"]}, "spec.schedulingGates[0]", id="gate-not-an-object"),
    pytest.param({"resources": {"requests": {"cpu": "-1"}}}, "spec.resources.requests.cpu", id="negative-request"),
])
def test_new_fields_are_checked(spec: dict, message: str) -> None:
    raw = make_pod("p")
    raw["spec"].update(spec)
    ctx = DecodeContext(file="<test>")
    decode_pod(ctx, raw)
    assert [p.path for p in ctx.problems] == [f"Pod default/p: {message}"]
