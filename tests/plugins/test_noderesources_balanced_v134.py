"""NodeResourcesBalancedAllocation at Kubernetes 1.22+ (issue 13, rows 1-3).

Ported from ``pkg/scheduler/framework/plugins/noderesources/balanced_allocation_test.go``,
TestNodeResourcesBalancedAllocation, as stored just before v1.33 (the scorer, standard deviation
over ``args.resources``, is the same at v1.34.0; v1.33 added the best-effort PreScore Skip).
All 12 cases, run at 1.32 (where best-effort pods are still scored) and, for the cases whose
incoming pod requests something, again at 1.34. Left out: "if PreScore not called" (ruleset
computes the pod's requests in Score; the same case runs with PreScore). Pods upstream leaves
without containers get one container requesting ``cpu: 0, memory: 0``.

Plus, for each switch, one input giving the 1.20 answer at "1.20" and the new one from the release
that changed it: STD_DEV (1.22), ACTUAL_REQUESTS (1.23), SKIP_BEST_EFFORT (1.33); and the args
(defaults per release, validation messages of ``ValidateNodeResourcesBalancedAllocationArgs``).
"""

from __future__ import annotations

import pytest

from ruleset.kversion import KubeVersion, Target
from ruleset.plugins.noderesources import NodeResourcesBalancedAllocation
from tests.plugins.noderesources_kit import NOTHING, node, placed, pod, scores

GPU = "nvidia.com/gpu"
CPU_ONLY = ({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})
CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
CPU_MEMORY_GPU = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000", GPU: "3"})
DEFAULT_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
GPU8 = {GPU: 8}

CASES = [
    pytest.param(pod(), [node("node1", 4000, 10000), node("node2", 4000, 10000)], [], DEFAULT_SET,
                 [100, 100], id="nothing scheduled, nothing requested"),
    pytest.param(pod(CPU_AND_MEMORY), [node("node1", 4000, 10000), node("node2", 6000, 10000)], [], DEFAULT_SET,
                 [87, 100], id="nothing scheduled, resources requested, differently sized nodes"),
    pytest.param(pod(), [node("node1", 4000, 10000), node("node2", 4000, 10000)],
                 placed(((NOTHING,), "node1"), ((NOTHING,), "node1"), ((NOTHING,), "node2"), ((NOTHING,), "node2")),
                 DEFAULT_SET, [100, 100], id="no resources requested, pods without container scheduled"),
    pytest.param(pod(), [node("node1", 250, 1000 * 1024 * 1024), node("node2", 250, 1000 * 1024 * 1024)],
                 placed(((NOTHING,), "node1"), ((NOTHING,), "node1")),
                 DEFAULT_SET, [100, 100], id="no resources requested, pods with container scheduled"),
    pytest.param(pod(), [node("node1", 10000, 20000), node("node2", 10000, 20000)],
                 placed((CPU_ONLY, "node1"), (CPU_ONLY, "node1"), (CPU_ONLY, "node2"), (CPU_AND_MEMORY, "node2")),
                 DEFAULT_SET, [70, 82], id="no resources requested, pods scheduled with resources"),
    pytest.param(pod(CPU_AND_MEMORY), [node("node1", 10000, 20000), node("node2", 10000, 20000)],
                 placed((CPU_ONLY, "node1"), (CPU_AND_MEMORY, "node2")),
                 DEFAULT_SET, [82, 95], id="resources requested, pods scheduled with resources"),
    pytest.param(pod(CPU_AND_MEMORY), [node("node1", 10000, 20000), node("node2", 10000, 50000)],
                 placed((CPU_ONLY, "node1"), (CPU_AND_MEMORY, "node2")),
                 DEFAULT_SET, [82, 80], id="resources requested, pods scheduled with resources, differently sized nodes"),
    pytest.param(pod(CPU_ONLY), [node("node1", 6000, 10000), node("node2", 6000, 10000)],
                 placed((CPU_ONLY, "node1"), (CPU_AND_MEMORY, "node2")),
                 DEFAULT_SET, [50, 75], id="requested resources at node capacity"),
    pytest.param(pod(), [node("node1", 0, 0), node("node2", 0, 0)],
                 placed((CPU_ONLY, "node1"), (CPU_AND_MEMORY, "node2")),
                 DEFAULT_SET, [100, 100], id="zero node resources, pods scheduled with resources"),
    pytest.param(pod(({"memory": "0", GPU: "1"},)),
                 [node("node1", 3500, 40000, GPU8), node("node2", 3500, 40000, GPU8)],
                 placed((CPU_AND_MEMORY, "node2"), (CPU_MEMORY_GPU, "node1")),
                 [*DEFAULT_SET, {"name": GPU, "weight": 1}], [70, 65],
                 id="include scalar resource on a node for balanced resource allocation"),
    pytest.param(pod(), [node("node1", 3500, 40000, GPU8), node("node2", 3500, 40000)],
                 placed((CPU_ONLY, "node1"), (CPU_ONLY, "node2")),
                 [{"name": "cpu", "weight": 1}, {"name": GPU, "weight": 1}], [100, 100],
                 id="node without the scalar resource results to a higher score"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "resources", "expected"), CASES)
def test_upstream_table_at_1_32(incoming: dict, nodes: list, existing: list, resources: list,
                                expected: list) -> None:
    plugin = ("NodeResourcesBalancedAllocation", {"resources": resources})
    assert scores(plugin, nodes, existing, incoming, "1.32") == expected


@pytest.mark.parametrize(("incoming", "nodes", "existing", "resources", "expected"), CASES)
def test_upstream_table_at_1_34(incoming: dict, nodes: list, existing: list, resources: list,
                                expected: list) -> None:
    """At 1.34 a pod requesting none of the resources is skipped: PreScore returns Skip (None)."""
    plugin = ("NodeResourcesBalancedAllocation", {"resources": resources})
    best_effort = incoming["spec"]["containers"] == [{"name": "c0", "image": "", "resources": {"requests": NOTHING}}]
    want = None if best_effort else expected
    assert scores(plugin, nodes, existing, incoming, "1.34") == want


TWO_NODES = [node("node1", 4000, 10000), node("node2", 6000, 10000)]
# node1: cpu 3000/4000 = .75, memory 5000/10000 = .5
# v1.20: (1 - |.75 - .5|) * 100 = 75; 1.22: (1 - .25 / 2) * 100 = 87
SWITCH_CASES = [
    pytest.param(pod(CPU_AND_MEMORY), TWO_NODES, [], None, [75, 100], id="1.20 difference of fractions"),
    pytest.param(pod(CPU_AND_MEMORY), TWO_NODES, [], "1.21", [75, 100], id="1.21 still the difference"),
    pytest.param(pod(CPU_AND_MEMORY), TWO_NODES, [], "1.22", [87, 100], id="1.22 standard deviation"),
    pytest.param(pod(CPU_AND_MEMORY), TWO_NODES, [], "1.34", [87, 100], id="1.34 standard deviation"),
    # A fraction of 1 or more: v1.20 scores 0; from 1.22 capped at 1. cpu 6000/6000 = 1, memory .5.
    pytest.param(pod(CPU_ONLY), [node("node1", 6000, 10000)], placed((CPU_AND_MEMORY, "node1")), None, [0],
                 id="1.20 full node scores 0"),
    pytest.param(pod(CPU_ONLY), [node("node1", 6000, 10000)], placed((CPU_AND_MEMORY, "node1")), "1.22", [75],
                 id="1.22 fraction capped at 1"),
    # No requests at all: the 100m/200Mi defaults until 1.22 (cpu 100/1000, memory 200Mi/1000Mi
    # -> std .05 -> 95); actual requests (0 and 0 -> 100) from 1.23; not scored from 1.33.
    pytest.param(pod(({},)), [node("node1", 1000, 1000 * 1024 * 1024)], [], "1.22", [95],
                 id="1.22 non-zero defaults"),
    pytest.param(pod(({},)), [node("node1", 1000, 1000 * 1024 * 1024)], [], "1.23", [100],
                 id="1.23 actual requests"),
    pytest.param(pod(({},)), [node("node1", 1000, 1000 * 1024 * 1024)], [], "1.32", [100],
                 id="1.32 best-effort still scored"),
    pytest.param(pod(({},)), [node("node1", 1000, 1000 * 1024 * 1024)], [], "1.33", None,
                 id="1.33 best-effort skipped"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "version", "expected"), SWITCH_CASES)
def test_switches(incoming: dict, nodes: list, existing: list, version: str | None, expected: list | None) -> None:
    assert scores("NodeResourcesBalancedAllocation", nodes, existing, incoming, version) == expected


def target(version: str) -> Target:
    return Target(KubeVersion.parse(version), {}, explicit=True)


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", {}, id="1.20"),
    pytest.param("1.22", {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}, id="1.22"),
])
def test_defaults_for(version: str, expected: dict) -> None:
    assert NodeResourcesBalancedAllocation.defaults_for(target(version)) == expected


ARG_CASES = [
    pytest.param({"resources": [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}]},
                 [(("resources", 1, "name"), 'resources[1].name: Duplicate value: "cpu"')], id="duplicate"),
    pytest.param({"resources": [{"name": "cpu", "weight": 2}, {"name": "memory"}]},
                 [(("resources", 0, "weight"), "resources[0].weight: Invalid value: 2: must be 1")],
                 id="weight not 1 (an omitted weight defaults to 1)"),
    pytest.param({"resources": []}, [], id="empty means cpu and memory"),
]


@pytest.mark.parametrize(("raw", "expected"), ARG_CASES)
def test_validate_args(raw: dict, expected: list) -> None:
    _, errors = NodeResourcesBalancedAllocation.check_args(raw)
    assert [(e.path, e.message) for e in errors] == expected


@pytest.mark.parametrize(("raw", "version", "expected"), [
    pytest.param({"resources": []}, "1.20", ["resources is not in Kubernetes 1.20: it came in 1.22"], id="resources@1.20"),
    pytest.param({"resources": []}, "1.22", [], id="resources@1.22"),
    pytest.param({"balanceAttachedNodeVolumes": True}, "1.20", [], id="volumes@1.20"),
    pytest.param({"balanceAttachedNodeVolumes": True}, "1.22",
                 ["balanceAttachedNodeVolumes is not in Kubernetes 1.22: the BalanceAttachedNodeVolumes "
                  "feature gate was removed in 1.22"], id="volumes@1.22"),
])
def test_args_per_release(raw: dict, version: str, expected: list) -> None:
    args = NodeResourcesBalancedAllocation.parse_args(raw)
    got = NodeResourcesBalancedAllocation.validate_args_for(args, target(version))
    assert [e.message for e in got] == expected
