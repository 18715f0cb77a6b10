"""NodeResourcesFit's Filter tables at Kubernetes 1.34, with the pod counted as 1.34 counts it.

Ported from ``pkg/scheduler/framework/plugins/noderesources/fit_test.go`` as stored for
kubernetes/kubernetes (file id 789199930 of the stored index: the ``fwk``/``resource/v1`` copy,
just after v1.34.0 — it already runs the table under ``testing/synctest``; the cases below are
the v1.34 ones): TestEnoughRequests, TestNotEnoughRequests, TestStorageRequests and
TestRestartableInitContainers, each case with upstream's exact Filter status (code and reasons).
Each runs NodeResourcesFit alone (PreFilter and Filter) on one node, through a 1.34 profile
whose release also decides how pods are counted (``apply_target``: native sidecars, pod-level
``spec.resources``), so the sidecar and pod-level-resources cases exercise the pod model.

As upstream: ``newResourcePod`` containers request cpu (millicores), memory and
ephemeral-storage even at 0, and the node's allocatable is ``makeAllocatableResources``. Left
out, and why:

* ``newResourcePod`` also writes ``pods: 0`` into every container's requests; a pod request of
  "pods" is not a resource NodeResourcesFit compares (``Resource.Add`` counts it apart), so it
  is not written here.
* The ``wantInsufficientResources`` half of each TestEnoughRequests case (``fitsRequest``'s
  Requested/Used/Capacity detail): ruleset exposes only the Filter status; the status carries
  the same reasons and the Unresolvable flag as its code.
* The DRAExtendedResource cases with the gate enabled ("extended resource backed by device
  plugin", "backed by DRA", "backed by DRA, nil draManager", "NOT backed by DRA", and both
  "was backed by Device Plugin (Allocatable: 0)"): ruleset has no DeviceClasses or DRA
  manager (the gate is alpha and off at 1.34). "extended resource backed by DRA not enabled"
  is kept: with the gate off it is an ordinary unknown extended resource.
* TestRestartableInitContainers' "SidecarContainers disabled" cases run at 1.28 (the gate's
  alpha, off by default) and at 1.29 with ``featureGates = { SidecarContainers = false }``:
  from 1.33 the gate is GA and cannot be turned off.
* TestPreFilterDisabled is test_node_resources_fit.py's "Filter without PreFilter" case.
* TestFitScore is ported below except its two DRA cases ("LeastAllocated with Extended
  resources", with and without PreScore: DeviceClasses and ResourceSlices are not modelled) and
  the three "if PreScore is not called" repeats (ruleset's Score reads no PreScore state, and
  Score always runs after PreScore here; the same inputs give the same scores as the cases
  kept). Its sidecar cases count the existing pod's native sidecar on its node (1.34's
  accounting). The other score tables (least/most/requested_to_capacity_ratio) are in
  test_noderesources_fit_scoring_v134.py and test_noderesources_rtcr_v134.py; the
  queueing-hint and events tests are out of scope.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from ruleset.api.pod import apply_target
from ruleset.cluster import build_cluster_state
from ruleset.config import PluginConfig, Profile
from ruleset.errors import Problem, RulesetError
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.manifests import decode_documents
from ruleset.pluginmanager import load_registry
from ruleset.scheduler import Scheduler, ScheduleResult
from tests.factories import Harness, decode, make_node, make_pod

A, B = "example.com/aaa", "example.com/bbb"
K8S_A, K8S_B = "kubernetes.io/something", "subdomain.kubernetes.io/something"
HUGE = "hugepages-2Mi"
DRA = "extended.resource.dra.io/something"
OK = ("Success", ())
U, UU = "Unschedulable", "UnschedulableAndUnresolvable"


class TargetHarness(Harness):
    """:class:`Harness` whose profile targets ``version`` (and ``gates``), its cluster's pods and
    the incoming pod counted as that release counts them (``apply_target``), as ``ruleset``
    commands count them."""

    def __init__(self, plugins: Sequence[PluginConfig], objects: Iterable[dict], version: str,
                 gates: dict[str, bool] | None = None):
        profile = Profile(name="test", plugins=list(plugins), percentage_of_nodes_to_score=100,
                          kubernetes_version=version, feature_gates=dict(gates or {}))
        problems: list[Problem] = []
        cluster = decode_documents([(0, {"apiVersion": "v1", "kind": "List", "items": list(objects)})],
                                   "<test>", problems, api_checks=False)
        if problems:
            raise RulesetError(problems)
        self.state = build_cluster_state(cluster, profile.target)
        self.snapshot = self.state.snapshot
        self.framework = Framework(profile, load_registry(), Handle(self.snapshot))
        self.scheduler = Scheduler(self.framework, seed=0)

    def run(self, pod: Any) -> ScheduleResult:
        decoded = decode(pod, self.state) if isinstance(pod, dict) else pod
        apply_target([decoded], self.framework.profile.target)
        return self.scheduler.schedule(decoded, always_score=True)


def res(cpu: int = 0, memory: int = 0, storage: int = 0, **scalars: int) -> dict[str, str]:
    """``framework.Resource{MilliCPU, Memory, EphemeralStorage, ScalarResources}`` as the requests
    ``newResourcePod`` writes (scalars named with ``_`` for ``/`` and ``.``: see :data:`NAMES`)."""
    out = {"cpu": f"{cpu}m", "memory": str(memory), "ephemeral-storage": str(storage)}
    out.update({NAMES[k]: str(v) for k, v in scalars.items()})
    return out


NAMES = {"a": A, "b": B, "k8s_a": K8S_A, "k8s_b": K8S_B, "huge": HUGE, "dra": DRA}


def containers(requests: Sequence[dict], prefix: str = "c", restart: str | None = None) -> list[dict]:
    out = []
    for i, r in enumerate(requests):
        c: dict[str, Any] = {"name": f"{prefix}{i}", "image": "", "resources": {"requests": dict(r)}}
        if restart:
            c["restartPolicy"] = restart
        out.append(c)
    return out


def new_pod(*usage: dict, init: Sequence[dict] = (), overhead: dict | None = None, pod_level: dict | None = None,
            name: str = "pod", node_name: str | None = None) -> dict:
    """``newResourcePod``/``newResourceInitPod``/``newResourceOverheadPod``/``newPodLevelResourcesPod``."""
    raw = make_pod(name, node_name=node_name, containers=containers(usage), init_containers=containers(init, "i"),
                   overhead=overhead)
    if pod_level is not None:
        raw["spec"]["resources"] = {"requests": dict(pod_level)}
    return raw


def node(cpu: int, memory: int, pods: int, a: int, storage: int, huge: int) -> dict:
    """``makeAllocatableResources(milliCPU, memory, pods, extendedA, storage, hugePageA)``."""
    return make_node("node", allocatable={"cpu": f"{cpu}m", "memory": str(memory), "pods": str(pods), A: str(a),
                                          "ephemeral-storage": str(storage), HUGE: str(huge)})


def filter_status(incoming: dict, existing: Sequence[dict], allocatable: dict, args: dict | None = None,
                  version: str = "1.34", gates: dict[str, bool] | None = None) -> tuple[str, tuple[str, ...]]:
    on_node = [new_pod(*e["containers"], init=e.get("init", ()), name=f"existing{i}", node_name="node")
               for i, e in enumerate(existing)]
    fit = PluginConfig(name="NodeResourcesFit", args=dict(args or {}), points=("filter",))
    h = TargetHarness([fit], [allocatable, *on_node], version, gates)
    return h.filter(incoming)["node"]


def on(*usage: dict, init: Sequence[dict] = ()) -> dict:
    """The pod ``framework.NewNodeInfo(newResourcePod(...))`` puts on the node."""
    return {"containers": usage, "init": init}


NODE = node(10, 20, 32, 5, 20, 5)
EMPTY_NODE: list = []

ENOUGH = [
    pytest.param(new_pod(), [on(res(10, 20))], {}, OK, id="no resources requested always fits"),
    pytest.param(new_pod(res(1, 1)), [on(res(10, 20))], {}, (U, ("Insufficient cpu", "Insufficient memory")),
                 id="too many resources fails"),
    pytest.param(new_pod(res(1, 1), init=[res(3, 1)]), [on(res(8, 19))], {}, (U, ("Insufficient cpu",)),
                 id="too many resources fails due to init container cpu"),
    pytest.param(new_pod(res(1, 1), init=[res(3, 1), res(2, 1)]), [on(res(8, 19))], {}, (U, ("Insufficient cpu",)),
                 id="too many resources fails due to highest init container cpu"),
    pytest.param(new_pod(res(1, 1), init=[res(1, 3)]), [on(res(9, 19))], {}, (U, ("Insufficient memory",)),
                 id="too many resources fails due to init container memory"),
    pytest.param(new_pod(res(1, 1), init=[res(1, 3), res(1, 2)]), [on(res(9, 19))], {},
                 (U, ("Insufficient memory",)), id="too many resources fails due to highest init container memory"),
    pytest.param(new_pod(res(1, 1), init=[res(1, 1)]), [on(res(9, 19))], {}, OK,
                 id="init container fits because it's the max, not sum, of containers and init containers"),
    pytest.param(new_pod(res(1, 1), init=[res(1, 1), res(1, 1)]), [on(res(9, 19))], {}, OK,
                 id="multiple init containers fit because it's the max, not sum, of containers and init containers"),
    pytest.param(new_pod(res(1, 1)), [on(res(5, 5))], {}, OK, id="both resources fit"),
    pytest.param(new_pod(res(2, 1)), [on(res(9, 5))], {}, (U, ("Insufficient cpu",)), id="one resource memory fits"),
    pytest.param(new_pod(res(1, 2)), [on(res(5, 19))], {}, (U, ("Insufficient memory",)),
                 id="one resource cpu fits"),
    pytest.param(new_pod(res(5, 1)), [on(res(5, 19))], {}, OK, id="equal edge case"),
    pytest.param(new_pod(res(4, 1), init=[res(5, 1)]), [on(res(5, 19))], {}, OK,
                 id="equal edge case for init container"),
    pytest.param(new_pod(res(a=1)), [on(res())], {}, OK, id="extended resource fits"),
    pytest.param(new_pod(res(), init=[res(a=1)]), [on(res())], {}, OK, id="extended resource fits for init container"),
    pytest.param(new_pod(res(1, 1, a=10)), [on(res(a=0))], {}, (UU, (f"Insufficient {A}",)),
                 id="extended resource capacity enforced"),
    pytest.param(new_pod(res(), init=[res(1, 1, a=10)]), [on(res(a=0))], {}, (UU, (f"Insufficient {A}",)),
                 id="extended resource capacity enforced for init container"),
    pytest.param(new_pod(res(1, 1, a=1)), [on(res(a=5))], {}, (U, (f"Insufficient {A}",)),
                 id="extended resource allocatable enforced"),
    pytest.param(new_pod(res(), init=[res(1, 1, a=1)]), [on(res(a=5))], {}, (U, (f"Insufficient {A}",)),
                 id="extended resource allocatable enforced for init container"),
    pytest.param(new_pod(res(1, 1, a=3), res(1, 1, a=3)), [on(res(a=2))], {}, (UU, (f"Insufficient {A}",)),
                 id="extended resource allocatable enforced for multiple containers"),
    pytest.param(new_pod(res(), init=[res(1, 1, a=3), res(1, 1, a=3)]), [on(res(a=2))], {}, OK,
                 id="extended resource allocatable admits multiple init containers"),
    pytest.param(new_pod(res(), init=[res(1, 1, a=6), res(1, 1, a=3)]), [on(res(a=2))], {},
                 (UU, (f"Insufficient {A}",)), id="extended resource allocatable enforced for multiple init containers"),
    pytest.param(new_pod(res(1, 1, b=1)), [on(res())], {}, (UU, (f"Insufficient {B}",)),
                 id="extended resource allocatable enforced for unknown resource"),
    pytest.param(new_pod(res(), init=[res(1, 1, b=1)]), [on(res())], {}, (UU, (f"Insufficient {B}",)),
                 id="extended resource allocatable enforced for unknown resource for init container"),
    pytest.param(new_pod(res(1, 1, k8s_a=10)), [on(res())], {}, (UU, (f"Insufficient {K8S_A}",)),
                 id="kubernetes.io resource capacity enforced"),
    pytest.param(new_pod(res(), init=[res(1, 1, k8s_b=10)]), [on(res())], {}, (UU, (f"Insufficient {K8S_B}",)),
                 id="kubernetes.io resource capacity enforced for init container"),
    pytest.param(new_pod(res(1, 1, huge=10)), [on(res(huge=0))], {}, (UU, (f"Insufficient {HUGE}",)),
                 id="hugepages resource capacity enforced"),
    pytest.param(new_pod(res(), init=[res(1, 1, huge=10)]), [on(res(huge=0))], {}, (UU, (f"Insufficient {HUGE}",)),
                 id="hugepages resource capacity enforced for init container"),
    pytest.param(new_pod(res(1, 1, huge=3), res(1, 1, huge=3)), [on(res(huge=2))], {}, (UU, (f"Insufficient {HUGE}",)),
                 id="hugepages resource allocatable enforced for multiple containers"),
    pytest.param(new_pod(res(1, 1, b=1)), [on(res())], {"ignoredResources": [B]}, OK,
                 id="skip checking ignored extended resource"),
    pytest.param(new_pod(res(1, 1), overhead={"cpu": "3m", "memory": "13"}), [on(res(5, 5))], {}, OK,
                 id="resources + pod overhead fits"),
    pytest.param(new_pod(res(1, 1), overhead={"cpu": "1m", "memory": "15"}), [on(res(5, 5))], {},
                 (U, ("Insufficient memory",)), id="requests + overhead does not fit for memory"),
    pytest.param(new_pod(res(1, 1, b=1, k8s_a=1)), [on(res())], {"ignoredResourceGroups": ["example.com"]},
                 (UU, (f"Insufficient {K8S_A}",)), id="skip checking ignored extended resource via resource groups"),
    pytest.param(new_pod(res(1, 1, a=0)), [on(res(a=6))], {}, OK,
                 id="skip checking extended resource request with quantity zero via resource groups"),
    pytest.param(new_pod(res(a=1)), [on(res(20, 30, a=1))], {}, OK,
                 id="skip checking resource request with quantity zero"),
    pytest.param(new_pod(res(1, 1), pod_level={"cpu": "1m", "memory": "2"}), [on(res(5, 5))], {}, OK,
                 id="both pod-level and container-level resources fit"),
    pytest.param(new_pod(res(1, 1), pod_level={"cpu": "7m", "memory": "2"}), [on(res(5, 5))], {},
                 (U, ("Insufficient cpu",)), id="pod-level cpu resource not fit"),
    pytest.param(new_pod(res(1, 1), pod_level={"cpu": "3m", "memory": "2"}), [on(res(5, 19))], {},
                 (U, ("Insufficient memory",)), id="pod-level memory resource not fit"),
    pytest.param(new_pod(pod_level={"cpu": "3m", "memory": "2", HUGE: "5"}), EMPTY_NODE, {}, OK,
                 id="pod-level hugepages resource fit"),
    pytest.param(new_pod(res(1, 1, huge=3), pod_level={"cpu": "3m", "memory": "2", HUGE: "5"}), EMPTY_NODE, {}, OK,
                 id="both pod-level and container-level hugepages resource fit"),
    pytest.param(new_pod(pod_level={"cpu": "3m", "memory": "2", HUGE: "10"}), EMPTY_NODE, {},
                 (UU, (f"Insufficient {HUGE}",)), id="pod-level hugepages resource not fit"),
    pytest.param(new_pod(res(1, 1), init=[res(1, 1)], pod_level={"cpu": "3m", "memory": "2"}), [on(res(5, 19))], {},
                 (U, ("Insufficient memory",)),
                 id="one pod-level cpu resource fits and all init and non-init containers resources fit"),
    pytest.param(new_pod(res(1, 1, dra=1)), [on(res())], {}, (UU, (f"Insufficient {DRA}",)),
                 id="extended resource backed by DRA not enabled"),
]


@pytest.mark.parametrize(("incoming", "existing", "args", "expected"), ENOUGH)
def test_enough_requests(incoming: dict, existing: list, args: dict, expected: tuple) -> None:
    assert filter_status(incoming, existing, NODE, args) == expected


def test_pod_level_resources_gate_off_counts_the_containers() -> None:
    """The same pod as "pod-level cpu resource not fit" with PodLevelResources off (upstream's
    ``podLevelResourcesEnabled: false``): the containers' 1m fits."""
    incoming = new_pod(res(1, 1), pod_level={"cpu": "7m", "memory": "2"})
    assert filter_status(incoming, [on(res(5, 5))], NODE, gates={"PodLevelResources": False}) == OK
    assert filter_status(incoming, [on(res(5, 5))], NODE, version="1.33") == OK


NOT_ENOUGH = [
    pytest.param(new_pod(), [on(res(10, 20))],
                 id="even without specified resources, predicate fails when there's no space for additional pod"),
    pytest.param(new_pod(res(1, 1)), [on(res(5, 5))],
                 id="even if both resources fit, predicate fails when there's no space for additional pod"),
    pytest.param(new_pod(res(5, 1)), [on(res(5, 19))],
                 id="even for equal edge case, predicate fails when there's no space for additional pod"),
    pytest.param(new_pod(res(5, 1), init=[res(5, 1)]), [on(res(5, 19))],
                 id="even for equal edge case, predicate fails when there's no space for additional pod due to "
                    "init container"),
]


@pytest.mark.parametrize(("incoming", "existing"), NOT_ENOUGH)
def test_not_enough_requests(incoming: dict, existing: list) -> None:
    assert filter_status(incoming, existing, node(10, 20, 1, 0, 0, 0)) == (U, ("Too many pods",))


STORAGE = [
    pytest.param(new_pod(res(1, 1)), [on(res(2, 10))], OK, id="empty storage requested, and pod fits"),
    pytest.param(new_pod(res(storage=25)), [on(res(2, 2))], (UU, ("Insufficient ephemeral-storage",)),
                 id="storage ephemeral local storage request exceeds allocatable"),
    pytest.param(new_pod(res(storage=5)), [on(res(2, 2, storage=10))], OK, id="ephemeral local storage is sufficient"),
    pytest.param(new_pod(res(storage=10)), [on(res(2, 2))], OK, id="pod fits"),
]


@pytest.mark.parametrize(("incoming", "existing", "expected"), STORAGE)
def test_storage_requests(incoming: dict, existing: list, expected: tuple) -> None:
    assert filter_status(incoming, existing, NODE) == expected


def sidecar_pod(request: dict | None = None, sidecar: dict | None = None) -> dict:
    """``newPodWithRestartableInitContainers``: a "regular" container and a restartable init one."""
    regular: dict[str, Any] = {"name": "regular", "image": ""}
    if request is not None:
        regular["resources"] = {"requests": request}
    init: dict[str, Any] = {"name": "restartable-init", "image": "", "restartPolicy": "Always"}
    if sidecar is not None:
        init["resources"] = {"requests": sidecar}
    return make_pod("pod", containers=[regular], init_containers=[init])


PLAIN = make_pod("pod", containers=[{"name": "regular", "image": ""}])
REFUSED = (UU, ("Pod has a restartable init container and the SidecarContainers feature is disabled",))
GATE_OFF = {"SidecarContainers": False}
RESTARTABLE = [
    pytest.param(PLAIN, "1.28", None, OK,
                 id="allow pod without restartable init containers if sidecar containers is disabled"),
    pytest.param(sidecar_pod(), "1.28", None, REFUSED,
                 id="not allow pod with restartable init containers if sidecar containers is disabled"),
    pytest.param(sidecar_pod(), "1.29", GATE_OFF, REFUSED, id="1.29 with the gate turned off"),
    pytest.param(PLAIN, "1.34", None, OK,
                 id="allow pod without restartable init containers if sidecar containers is enabled"),
    pytest.param(sidecar_pod(), "1.34", None, OK,
                 id="allow pod with restartable init containers if sidecar containers is enabled"),
    pytest.param(sidecar_pod({"cpu": "1m"}, {"cpu": "1m"}), "1.34", None, OK,
                 id="allow pod if the total requested resources do not exceed the node's allocatable resources"),
    pytest.param(sidecar_pod({"cpu": "1m"}, {"cpu": "2m"}), "1.34", None, (UU, ("Insufficient cpu",)),
                 id="not allow pod if the total requested resources do exceed the node's allocatable resources"),
    # Before 1.28 there is no such check (nor native sidecars): the init container is an ordinary
    # one, max(1m, 2m) = 2m fits.
    pytest.param(sidecar_pod({"cpu": "1m"}, {"cpu": "2m"}), "1.27", None, OK, id="1.27: an ordinary init container"),
    pytest.param(sidecar_pod(), "1.27", None, OK, id="1.27: not refused"),
]


@pytest.mark.parametrize(("incoming", "version", "gates", "expected"), RESTARTABLE)
def test_restartable_init_containers(incoming: dict, version: str, gates: dict | None, expected: tuple) -> None:
    assert filter_status(incoming, [], node(2, 0, 1, 0, 0, 0), version=version, gates=gates) == expected


def cores(name: str, cpu: str) -> dict:
    """``st.MakeNode().Name(name).Capacity({"cpu": cpu, "memory": "10000"})``."""
    return make_node(name, allocatable={"cpu": cpu, "memory": "10000"})


def st_pod(cpu: str, memory: str, name: str = "pod", node_name: str | None = None,
           sidecar: dict | None = None) -> dict:
    """``st.MakePod().Req(...)`` (and ``.SidecarReq(...)``: a restartable init container)."""
    init = [] if sidecar is None else [{"name": "sidecar", "image": "", "restartPolicy": "Always",
                                        "resources": {"requests": sidecar}}]
    return make_pod(name, node_name=node_name, init_containers=init,
                    containers=[{"name": "c", "image": "", "resources": {"requests": {"cpu": cpu, "memory": memory}}}])


DEFAULT_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
FIT_SCORE_EXISTING = [st_pod("2000", "4000", "e1", "node1"), st_pod("1000", "2000", "e2", "node2")]
SIDECAR_EXISTING = [st_pod("1000", "2000", "e1", "node1", sidecar={"cpu": "1000", "memory": "2000"}),
                    st_pod("1000", "2000", "e2", "node2")]


def strategy(kind: str, shape: list | None = None) -> dict:
    out: dict[str, Any] = {"type": kind, "resources": DEFAULT_SET}
    if shape is not None:
        out["requestedToCapacityRatio"] = {"shape": [{"utilization": u, "score": v} for u, v in shape]}
    return {"scoringStrategy": out}


FIT_SCORE = [
    pytest.param(st_pod("3000", "5000"), [cores("node1", "4000"), cores("node2", "6000")], FIT_SCORE_EXISTING,
                 strategy("RequestedToCapacityRatio", [(0, 10), (100, 0)]), [10, 32],
                 id="test case for ScoringStrategy RequestedToCapacityRatio case1"),
    pytest.param(st_pod("3000", "5000"), [cores("node1", "4000"), cores("node2", "6000")], FIT_SCORE_EXISTING,
                 strategy("RequestedToCapacityRatio", [(0, 0), (100, 10)]), [95, 68],
                 id="test case for ScoringStrategy RequestedToCapacityRatio case2"),
    pytest.param(st_pod("1000", "2000"), [cores("node1", "4000"), cores("node2", "6000")], FIT_SCORE_EXISTING,
                 strategy("MostAllocated"), [67, 36], id="test case for ScoringStrategy MostAllocated"),
    pytest.param(st_pod("1000", "2000"), [cores("node1", "4000"), cores("node2", "6000")], FIT_SCORE_EXISTING,
                 strategy("LeastAllocated"), [32, 63], id="test case for ScoringStrategy LeastAllocated"),
    pytest.param(st_pod("1000", "2000"), [cores("node1", "4000"), cores("node2", "4000")], SIDECAR_EXISTING,
                 strategy("MostAllocated"), [67, 45],
                 id="test case for ScoringStrategy MostAllocated with sidecar container"),
    pytest.param(st_pod("1000", "2000"), [cores("node1", "4000"), cores("node2", "4000")], SIDECAR_EXISTING,
                 strategy("LeastAllocated"), [32, 55],
                 id="test case for ScoringStrategy LeastAllocated with sidecar container"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "args", "expected"), FIT_SCORE)
def test_fit_score(incoming: dict, nodes: list, existing: list, args: dict, expected: list) -> None:
    fit = PluginConfig(name="NodeResourcesFit", args=args, points=("score",))
    h = TargetHarness([fit], [*nodes, *existing], "1.34")
    got = h.score(incoming, "NodeResourcesFit", raw=True)
    assert [got[n["metadata"]["name"]] for n in nodes] == expected


def test_sidecar_of_an_existing_pod_counts_from_1_29() -> None:
    """The MostAllocated sidecar case at 1.28 (SidecarContainers off: the sidecar is an ordinary
    init container, max(1000, 1000) adds nothing) and at 1.29 (on)."""
    nodes = [cores("node1", "4000"), cores("node2", "4000")]
    fit = PluginConfig(name="NodeResourcesFit", args=strategy("MostAllocated"), points=("score",))
    got = {version: TargetHarness([fit], [*nodes, *SIDECAR_EXISTING], version).score(
        st_pod("1000", "2000"), "NodeResourcesFit", raw=True) for version in ("1.28", "1.29")}
    assert got == {"1.28": {"node1": 45, "node2": 45}, "1.29": {"node1": 67, "node2": 45}}
