"""Ported from ``pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio_test.go``
and the RequestedToCapacityRatio part of
``pkg/scheduler/apis/config/validation/validation_pluginargs_test.go`` (v1.20).

* TestRequestedToCapacityRatio: all 3 cases (shape (0, 10), (100, 0); memory and cpu, weight 1).
* TestBrokenLinearFunction: all 3 shapes with their 28 assertions, on the unscaled points as
  upstream calls the function.
* TestResourceBinPackingSingleExtended: all 4 cases (shape (0, 0), (100, 1); intel.com/foo).
* TestResourceBinPackingMultipleExtended: all 4 cases (intel.com/foo weight 3, intel.com/bar
  weight 5).
* TestValidateRequestedToCapacityRatioArgs: all 9 cases, exact v1.20 messages.

Pods upstream leaves without containers become one container requesting ``cpu: 0,
memory: 0``; pods it lists without a node are pending and play no part, so they are left out.

Plus ruleset checks: utilization rounded up (v1.20), Go's truncating division on a falling
segment, ``math.Round`` rounding halves away from zero, default resources, and a resource
listed twice.
"""

import numpy as np
import pytest

from ruleset.framework.plugin import check_plugin_args
from ruleset.framework.runtime import FrameworkError
from ruleset.plugins.noderesources.requested_to_capacity_ratio import RequestedToCapacityRatio
from ruleset.plugins.noderesources.scoring import broken_linear
from tests.factories import Harness, container, make_node, make_pod

MIB = 1024 * 1024
FOO = "intel.com/foo"
BAR = "intel.com/bar"


def shape(*points: tuple[int, int]) -> list[dict]:
    return [{"utilization": u, "score": s} for u, s in points]


def node(name: str, milli_cpu: int, memory: int, extended: dict[str, int] | None = None) -> dict:
    """``makeNode`` / ``makeNodeWithExtendedResource``."""
    allocatable = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    allocatable.update({k: str(v) for k, v in (extended or {}).items()})
    return make_node(name, allocatable=allocatable)


def pod(requests: dict | None = None, name: str = "pod", node_name: str | None = None) -> dict:
    requests = requests or {"cpu": "0", "memory": "0"}
    return make_pod(name, node_name=node_name, containers=[container(requests)])


def make_pod_cpu_mem(node_name: str | None, milli_cpu: int, memory: int, name: str = "pod") -> dict:
    """``makePod(node, milliCPU, memory)``: explicit cpu and memory requests, zeros included."""
    return pod({"cpu": f"{milli_cpu}m", "memory": str(memory)}, name, node_name)


LEAST_REQUESTED_SHAPE = shape((0, 10), (100, 0))
MEMORY_AND_CPU = [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 1}]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "expected"), [
    pytest.param(make_pod_cpu_mem(None, 0, 0), [node("node1", 4000, 10000), node("node2", 4000, 10000)],
                 [make_pod_cpu_mem("node1", 0, 0, "e1"), make_pod_cpu_mem("node2", 0, 0, "e2")], [100, 100],
                 id="nothing scheduled, nothing requested (default - least requested nodes have priority)"),
    # node1: cpu utilization 75 -> 25, memory 50 -> 50: round(37.5) = 38; node2: 50, 50 -> 50
    pytest.param(make_pod_cpu_mem(None, 3000, 5000),
                 [node("node1", 4000, 10000), node("node2", 6000, 10000)],
                 [make_pod_cpu_mem("node1", 0, 0, "e1"), make_pod_cpu_mem("node2", 0, 0, "e2")], [38, 50],
                 id="nothing scheduled, resources requested, differently sized machines (default - least "
                    "requested nodes have priority)"),
    pytest.param(make_pod_cpu_mem(None, 0, 0), [node("node1", 4000, 10000), node("node2", 6000, 10000)],
                 [make_pod_cpu_mem("node1", 3000, 5000, "e1"), make_pod_cpu_mem("node2", 3000, 5000, "e2")],
                 [38, 50],
                 id="no resources requested, pods scheduled with resources (default - least requested nodes "
                    "have priority)"),
])
def test_requested_to_capacity_ratio(incoming: dict, nodes: list, existing: list, expected: list) -> None:
    args = {"shape": LEAST_REQUESTED_SHAPE, "resources": MEMORY_AND_CPU}
    h = Harness([("RequestedToCapacityRatio", args)], [*nodes, *existing])
    assert h.score(incoming) == {"node1": expected[0], "node2": expected[1]}


@pytest.mark.parametrize(("points", "assertions"), [
    pytest.param([(10, 1), (90, 9)],
                 [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9),
                  (100, 9), (110, 9)], id="case_0"),
    pytest.param([(0, 2), (40, 10), (100, 0)],
                 [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)], id="case_1"),
    pytest.param([(0, 2), (40, 2), (100, 2)],
                 [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)], id="case_2"),
])
def test_broken_linear_function(points: list, assertions: list) -> None:
    utilization = np.array([p for p, _ in assertions], dtype=np.int64)
    got = broken_linear(utilization, np.array([u for u, _ in points]), np.array([s for _, s in points]))
    assert got.tolist() == [expected for _, expected in assertions]


BIN_PACKING_SHAPE = shape((0, 0), (100, 1))
FOO_ONLY = [{"name": FOO, "weight": 1}]
FOO_NODES = [node("machine1", 4000, 10000 * MIB, {FOO: 8}), node("machine2", 4000, 10000 * MIB, {FOO: 4})]
FOO_2 = {"cpu": "0", "memory": "0", FOO: "2"}
FOO_4 = {"cpu": "0", "memory": "0", FOO: "4"}


@pytest.mark.parametrize(("incoming", "existing", "expected"), [
    # utilization 0 scores 0, which does not count: no weight, so 0
    pytest.param(pod(), [], [0, 0], id="nothing scheduled, nothing requested"),
    # machine1: 2/8 -> 25 -> 2; machine2: 2/4 -> 50 -> 5
    pytest.param(pod(FOO_2), [], [2, 5], id="resources requested, pods scheduled with less resources"),
    # machine2: (2 + 2)/4 -> 100 -> 10
    pytest.param(pod(FOO_2), [pod(FOO_2, "existing", "machine2")], [2, 10],
                 id="resources requested, pods scheduled with resources, on node with existing pod running "),
    # machine1: 4/8 -> 50 -> 5; machine2: 4/4 -> 100 -> 10
    pytest.param(pod(FOO_4), [], [5, 10], id="resources requested, pods scheduled with more resources"),
])
def test_resource_bin_packing_single_extended(incoming: dict, existing: list, expected: list) -> None:
    args = {"shape": BIN_PACKING_SHAPE, "resources": FOO_ONLY}
    h = Harness([("RequestedToCapacityRatio", args)], [*FOO_NODES, *existing])
    assert h.score(incoming) == {"machine1": expected[0], "machine2": expected[1]}


FOO_3_BAR_5 = [{"name": FOO, "weight": 3}, {"name": BAR, "weight": 5}]
FOO_BAR_NODES = [node("machine1", 4000, 10000 * MIB, {FOO: 8, BAR: 4}),
                 node("machine2", 4000, 10000 * MIB, {FOO: 4, BAR: 8})]
FOO_2_BAR_2 = {"cpu": "0", "memory": "0", FOO: "2", BAR: "2"}
FOO_4_BAR_2 = {"cpu": "0", "memory": "0", FOO: "4", BAR: "2"}


@pytest.mark.parametrize(("incoming", "existing", "expected"), [
    pytest.param(pod(), [], [0, 0], id="nothing scheduled, nothing requested"),
    # machine1: foo 25 -> 2, bar 50 -> 5: round((2*3 + 5*5) / 8) = round(3.875) = 4
    # machine2: foo 50 -> 5, bar 25 -> 2: round((5*3 + 2*5) / 8) = round(3.125) = 3
    pytest.param(pod(FOO_2_BAR_2), [], [4, 3], id="resources requested, pods scheduled with less resources"),
    # machine2: foo 100 -> 10, bar 50 -> 5: round((10*3 + 5*5) / 8) = round(6.875) = 7
    pytest.param(pod(FOO_2_BAR_2), [pod(FOO_2_BAR_2, "existing", "machine2")], [4, 7],
                 id="resources requested, pods scheduled with resources, on node with existing pod running "),
    # machine1: foo 50 -> 5, bar 50 -> 5 -> 5; machine2: foo 100 -> 10, bar 25 -> 2: (30 + 10) / 8 = 5
    pytest.param(pod(FOO_4_BAR_2), [], [5, 5], id="resources requested, pods scheduled with more resources"),
])
def test_resource_bin_packing_multiple_extended(incoming: dict, existing: list, expected: list) -> None:
    args = {"shape": BIN_PACKING_SHAPE, "resources": FOO_3_BAR_5}
    h = Harness([("RequestedToCapacityRatio", args)], [*FOO_BAR_NODES, *existing])
    assert h.score(incoming) == {"machine1": expected[0], "machine2": expected[1]}


@pytest.mark.parametrize(("args", "expected"), [
    pytest.param({"shape": shape((20, 5), (30, 3), (50, 2)),
                  "resources": [{"name": "custom-resource", "weight": 5}]},
                 [], id="valid config"),
    pytest.param({"shape": [], "resources": [{"name": "custom", "weight": 5}]},
                 [(("shape",), "at least one point must be specified")], id="no shape points"),
    pytest.param({"shape": shape((-10, 3), (10, 2))},
                 [(("shape", 0, "utilization"),
                   "utilization values must not be less than 0. Utilization[0]==-10")],
                 id="utilization less than min"),
    pytest.param({"shape": shape((10, 3), (110, 2))},
                 [(("shape", 1, "utilization"),
                   "utilization values must not be greater than 100. Utilization[1]==110")],
                 id="utilization greater than max"),
    pytest.param({"shape": shape((30, 3), (20, 2), (10, 1))},
                 [(("shape", 1, "utilization"),
                   "utilization values must be sorted. Utilization[0]==30 >= Utilization[1]==20")],
                 id="Utilization values in non-increasing order"),
    pytest.param({"shape": shape((10, 3), (20, 2), (20, 1))},
                 [(("shape", 2, "utilization"),
                   "utilization values must be sorted. Utilization[1]==20 >= Utilization[2]==20")],
                 id="duplicated utilization values"),
    pytest.param({"shape": shape((10, -1), (20, 2))},
                 [(("shape", 0, "score"), "score values must not be less than 0. Score[0]==-1")],
                 id="score less than min"),
    pytest.param({"shape": shape((10, 3), (20, 11))},
                 [(("shape", 1, "score"), "score values must not be greater than 10. Score[1]==11")],
                 id="score greater than max"),
    pytest.param({"shape": shape((10, 1)), "resources": [{"name": "custom", "weight": 0}]},
                 [(("resources", 0, "weight"), "resource custom weight 0 must not be less than 1")],
                 id="resources weight less than 1"),
])
def test_validate_requested_to_capacity_ratio_args(args: dict, expected: list) -> None:
    _, problems = check_plugin_args(RequestedToCapacityRatio, args)
    assert problems == expected


# ---------------------------------------------------------------------------------------------------
# ruleset checks
# ---------------------------------------------------------------------------------------------------

def single(resource_nodes: dict[str, int], request: int, points: list[dict]) -> dict[str, int]:
    """Score a pod requesting ``request`` intel.com/foo on nodes with the given allocatable."""
    nodes = [node(name, 1000, 1000, {FOO: allocatable}) for name, allocatable in resource_nodes.items()]
    h = Harness([("RequestedToCapacityRatio", {"shape": points, "resources": FOO_ONLY})], nodes)
    return h.score(pod({"cpu": "0", "memory": "0", FOO: str(request)}))


def test_utilization_is_rounded_up() -> None:
    # 1 of 3: 100 - (2 * 100 / 3) = 100 - 66 = 34 (v1.28 would say 33); shape (0, 0), (100, 10).
    assert single({"n": 3}, 1, shape((0, 0), (100, 10))) == {"n": 34}


def test_over_requested_and_zero_capacity_score_f_of_100() -> None:
    # f(100) = 3 * 10; a node with no foo at all, and one with less than requested.
    nodes = [node("none", 1000, 1000), node("short", 1000, 1000, {FOO: 1}),
             node("fits", 1000, 1000, {FOO: 4})]
    args = {"shape": shape((0, 10), (100, 3)), "resources": FOO_ONLY}
    h = Harness([("RequestedToCapacityRatio", args)], nodes)
    # fits: 2 of 4 -> 50 -> 100 + (30 - 100) * 50 / 100 = 65
    assert h.score(pod({"cpu": "0", "memory": "0", FOO: "2"})) == {"none": 30, "short": 30, "fits": 65}


def test_falling_segment_truncates_toward_zero() -> None:
    # 1 of 10 -> utilization 10; shape (0, 10), (30, 0) scaled to (0, 100), (30, 0):
    # 100 + (0 - 100) * 10 / 30 = 100 + (-1000 / 30) = 100 - 33 = 67 (flooring would give 66).
    assert single({"n": 10}, 1, shape((0, 10), (30, 0))) == {"n": 67}


def test_half_rounds_away_from_zero() -> None:
    # foo 2 of 8 -> 25 -> 2; bar 3 of 10 -> 30 -> 3; weights 1, 1: round(2.5) = 3 (to-even would give 2).
    nodes = [node("n", 1000, 1000, {FOO: 8, BAR: 10})]
    args = {"shape": BIN_PACKING_SHAPE, "resources": [{"name": FOO, "weight": 1}, {"name": BAR, "weight": 1}]}
    h = Harness([("RequestedToCapacityRatio", args)], nodes)
    assert h.score(pod({"cpu": "0", "memory": "0", FOO: "2", BAR: "3"})) == {"n": 3}


def test_default_resources_are_cpu_and_memory() -> None:
    args, problems = check_plugin_args(RequestedToCapacityRatio, {"shape": shape((0, 0), (100, 10))})
    assert problems == []
    assert RequestedToCapacityRatio.args_to_dict(args) == {
        "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}],
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    # cpu 1000 of 4000 -> 25 -> 25; memory 5000 of 10000 -> 50 -> 50: round(37.5) = 38.
    h = Harness([("RequestedToCapacityRatio", {"shape": shape((0, 0), (100, 10))})], [node("n", 4000, 10000)])
    assert h.score(pod({"cpu": "1000m", "memory": "5000"})) == {"n": 38}


def test_repeated_resource_keeps_its_last_weight() -> None:
    # foo 2 of 8 -> 2, bar 3 of 10 -> 3. The map keeps {foo: 1, bar: 1}: round(2.5) = 3.
    # (First weight wins: (6 + 3) / 4 -> 2; every entry summed: (6 + 3 + 2) / 5 -> 2.)
    nodes = [node("n", 1000, 1000, {FOO: 8, BAR: 10})]
    resources = [{"name": FOO, "weight": 3}, {"name": BAR, "weight": 1}, {"name": FOO, "weight": 1}]
    h = Harness([("RequestedToCapacityRatio", {"shape": BIN_PACKING_SHAPE, "resources": resources})], nodes)
    assert h.score(pod({"cpu": "0", "memory": "0", FOO: "2", BAR: "3"})) == {"n": 3}


def test_missing_shape_fails_the_profile() -> None:
    with pytest.raises(FrameworkError) as info:
        Harness(["RequestedToCapacityRatio"], [])
    [problem] = info.value.problems
    assert (problem.path, problem.message) == ("plugins.RequestedToCapacityRatio.args.shape",
                                               "at least one point must be specified")
