"""Ported from ``pkg/scheduler/framework/plugins/noderesources/most_allocated_test.go`` and the
MostAllocated part of ``pkg/scheduler/apis/config/validation/validation_pluginargs_test.go`` (v1.20).

* TestNodeResourcesMostAllocated: all 9 cases (6 scores, 3 bad args with v1.20's exact
  messages). Two upstream cases share the name "nothing scheduled, resources requested,
  differently sized machines"; the second (different weights) gets a " (weighted)" suffix.
* TestValidateNodeResourcesMostAllocatedArgs: all 3 cases.

Pods upstream leaves without containers become one container requesting ``cpu: 0,
memory: 0`` (explicit zeros stay 0; the non-zero defaults apply only to absent keys).

Plus ruleset checks: v1.20 scores an over-requested resource 0 (v1.28 caps it at 100), a
resource listed twice keeps its last weight, extended resources, and the non-zero defaults.
"""

import pytest

from ruleset.framework.plugin import check_plugin_args
from ruleset.plugins.noderesources import NodeResourcesMostAllocated
from tests.factories import Harness, container, make_node, make_pod

LABELS1 = {"foo": "bar", "baz": "blah"}
LABELS2 = {"bar": "foo", "baz": "blah"}
NOTHING = {"cpu": "0", "memory": "0"}
CPU_ONLY = ({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})
CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
BIG_CPU_AND_MEMORY = ({"cpu": "2000m", "memory": "4000"}, {"cpu": "3000m", "memory": "5000"})
DEFAULT_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def node(name: str, milli_cpu: int, memory: int, extended: dict[str, int] | None = None) -> dict:
    """``makeNode`` / ``makeNodeWithExtendedResource``: allocatable cpu, memory (and scalars)."""
    allocatable = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    allocatable.update({k: str(v) for k, v in (extended or {}).items()})
    return make_node(name, allocatable=allocatable)


def pod(requests: tuple[dict, ...] = (NOTHING,), name: str = "pod", node_name: str | None = None,
        labels: dict | None = None) -> dict:
    return make_pod(name, labels=labels, node_name=node_name,
                    containers=[container(r, name=f"c{i}") for i, r in enumerate(requests)])


def placed(*specs: tuple) -> list[dict]:
    """Existing pods from (requests, node[, labels]) tuples."""
    return [pod(requests, f"existing{i}", node_name, rest[0] if rest else None)
            for i, (requests, node_name, *rest) in enumerate(specs)]


SCHEDULED_WITH_RESOURCES = placed((CPU_ONLY, "machine1", LABELS2), (CPU_ONLY, "machine1", LABELS1),
                                  (CPU_ONLY, "machine2", LABELS1), (CPU_AND_MEMORY, "machine2", LABELS1))
CPU_ONLY_AND_CPU_AND_MEMORY = placed((CPU_ONLY, "machine1"), (CPU_AND_MEMORY, "machine2"))

SCORE_CASES = [
    pytest.param(pod(), [node("machine1", 4000, 10000), node("machine2", 4000, 10000)], [], DEFAULT_SET,
                 [0, 0], id="nothing scheduled, nothing requested"),
    # (75 + 50) / 2 = 62; (50 + 50) / 2 = 50
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 4000, 10000), node("machine2", 6000, 10000)], [],
                 DEFAULT_SET, [62, 50],
                 id="nothing scheduled, resources requested, differently sized machines"),
    # (60 + 0) / 2 = 30; (60 + 25) / 2 = 42
    pytest.param(pod(), [node("machine1", 10000, 20000), node("machine2", 10000, 20000)],
                 SCHEDULED_WITH_RESOURCES,
                 DEFAULT_SET, [30, 42], id="no resources requested, pods scheduled with resources"),
    # (60 + 25) / 2 = 42; (60 + 50) / 2 = 55
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 10000, 20000), node("machine2", 10000, 20000)],
                 CPU_ONLY_AND_CPU_AND_MEMORY, DEFAULT_SET, [42, 55],
                 id="resources requested, pods scheduled with resources"),
    # machine1: cpu 5000 > 4000 -> 0, memory 9000 * 100 / 10000 = 90 -> 45
    # machine2: cpu 5000 * 100 / 10000 = 50, memory 9000 > 8000 -> 0 -> 25
    pytest.param(pod(BIG_CPU_AND_MEMORY), [node("machine1", 4000, 10000), node("machine2", 10000, 8000)], [],
                 DEFAULT_SET, [45, 25],
                 id="resources requested with more than the node, pods scheduled with resources"),
    # (75 * 1 + 50 * 2) / 3 = 58; (50 + 100) / 3 = 50
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 4000, 10000), node("machine2", 6000, 10000)], [],
                 [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [58, 50],
                 id="nothing scheduled, resources requested, differently sized machines (weighted)"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "resources", "expected"), SCORE_CASES)
def test_node_resources_most_allocated(incoming: dict, nodes: list, existing: list, resources: list,
                                       expected: list) -> None:
    h = Harness([("NodeResourcesMostAllocated", {"resources": resources})], [*nodes, *existing])
    names = [n["metadata"]["name"] for n in nodes]
    assert h.score(incoming) == dict(zip(names, expected, strict=True))


@pytest.mark.parametrize(("resources", "expected"), [
    pytest.param([{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}],
                 [(("resources", 0, "weight"),
                   "resource Weight of memory should be a positive value, got -1")],
                 id="resource with negtive weight"),
    pytest.param([{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}],
                 [(("resources", 1, "weight"), "resource Weight of cpu should be a positive value, got 0")],
                 id="resource with zero weight"),
    pytest.param([{"name": "memory", "weight": 120}],
                 [(("resources", 0, "weight"), "resource Weight of memory should be less than 100, got 120")],
                 id="resource weight larger than MaxNodeScore"),
])
def test_node_resources_most_allocated_bad_args(resources: list, expected: list) -> None:
    _, problems = check_plugin_args(NodeResourcesMostAllocated, {"resources": resources})
    assert problems == expected


@pytest.mark.parametrize(("resources", "expected"), [
    pytest.param([{"name": "cpu", "weight": 70}, {"name": "memory", "weight": 40}], [], id="valid config"),
    pytest.param([{"name": "cpu", "weight": -1}],
                 [(("resources", 0, "weight"), "resource Weight of cpu should be a positive value, got -1")],
                 id="weight less than min"),
    pytest.param([{"name": "memory", "weight": 110}],
                 [(("resources", 0, "weight"), "resource Weight of memory should be less than 100, got 110")],
                 id="weight more than max"),
])
def test_validate_node_resources_most_allocated_args(resources: list, expected: list) -> None:
    _, problems = check_plugin_args(NodeResourcesMostAllocated, {"resources": resources})
    assert problems == expected


# ---------------------------------------------------------------------------------------------------
# ruleset checks
# ---------------------------------------------------------------------------------------------------

def test_defaults_fill_an_empty_args_table() -> None:
    args, problems = check_plugin_args(NodeResourcesMostAllocated, {"resources": []})
    assert problems == []
    assert NodeResourcesMostAllocated.args_to_dict(args) == {
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}


def test_exactly_full_scores_100_and_over_requested_scores_0() -> None:
    # cpu 4000/4000 -> 100, memory 5000/5000 -> 100; over by one millicore -> cpu 0 -> (0 + 100) / 2.
    nodes = [node("full", 4000, 5000), node("over", 3999, 5000)]
    h = Harness(["NodeResourcesMostAllocated"], nodes)
    incoming = pod(({"cpu": "4000m", "memory": "5000"},))
    assert h.score(incoming) == {"full": 100, "over": 50}


def test_repeated_resource_keeps_its_last_weight() -> None:
    # {cpu: 3, memory: 1}: (75 * 3 + 50) / 4 = 68 (summing every entry would give (75 + 50 + 225) / 5 = 70).
    resources = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": "cpu", "weight": 3}]
    h = Harness([("NodeResourcesMostAllocated", {"resources": resources})], [node("machine1", 4000, 10000)])
    assert h.score(pod(CPU_AND_MEMORY)) == {"machine1": 68}


def test_extended_resource() -> None:
    # intel.com/foo: (2 + 3) * 100 / 8 = 62; a node without it scores 0 for it.
    nodes = [node("gpu", 4000, 10000, {"intel.com/foo": 8}), node("plain", 4000, 10000)]
    existing = pod(({"cpu": "0", "memory": "0", "intel.com/foo": "2"},), "existing", "gpu")
    h = Harness([("NodeResourcesMostAllocated", {"resources": [{"name": "intel.com/foo", "weight": 1}]})],
                [*nodes, existing])
    assert h.score(pod(({"cpu": "0", "memory": "0", "intel.com/foo": "3"},))) == {"gpu": 62, "plain": 0}


def test_non_zero_defaults_for_containers_without_requests() -> None:
    # cpu (100 + 100) * 100 / 1000 = 20; memory 400Mi * 100 / 1Gi = 39 -> (20 + 39) / 2 = 29.
    nodes = [make_node("n", allocatable={"cpu": "1000m", "memory": "1Gi"})]
    existing = make_pod("existing", node_name="n", containers=[container()])
    h = Harness(["NodeResourcesMostAllocated"], [*nodes, existing])
    assert h.score(make_pod(containers=[container()])) == {"n": 29}
