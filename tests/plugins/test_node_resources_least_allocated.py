"""Ported from ``pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go`` and the
LeastAllocated part of ``pkg/scheduler/apis/config/validation/validation_pluginargs_test.go`` (v1.20).

* TestNodeResourcesLeastAllocated: 15 cases. The 12 of v1.19/v1.20 (9 scores, 3 bad args
  with v1.20's exact messages), plus 3 added upstream later and adapted to v1.20:
  - "Resources not set, ...": later versions score 0 when no resource is configured;
    v1.20's v1beta1 defaulting turns an empty list into cpu and memory (weight 1), so the
    expected scores are those of the default case, 37 and 50.
  - "bypass extended resource if the pod does not request": later versions skip resources
    the pod does not request; v1.20 scores abc.com/xyz anyway: machine1 has none (0),
    machine2 has 4 free of 4 (100), so (50 + 50 + 0) / 3 = 33 and (50 + 50 + 100) / 3 = 66
    instead of upstream's 50 and 50.
  - "honor extended resource if the pod requests": same scores in v1.20 (50 and 60).
* TestValidateNodeResourcesLeastAllocatedArgs: all 3 cases.

Pods upstream leaves without containers become one container requesting ``cpu: 0,
memory: 0`` (explicit zeros stay 0; the non-zero defaults apply only to absent keys).

Plus ruleset checks: a resource listed twice keeps its last weight (upstream's map), the
non-zero defaults for containers without requests, and ephemeral storage.
"""

import pytest

from ruleset.framework.plugin import check_plugin_args
from ruleset.plugins.noderesources import NodeResourcesLeastAllocated
from tests.factories import Harness, container, make_node, make_pod

LABELS1 = {"foo": "bar", "baz": "blah"}
LABELS2 = {"bar": "foo", "baz": "blah"}
NOTHING = {"cpu": "0", "memory": "0"}
CPU_ONLY = ({"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"})
CPU_AND_MEMORY = ({"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"})
EXTENDED = "abc.com/xyz"
CPU_MEMORY_AND_EXTENDED = ({"cpu": "1000m", "memory": "2000", EXTENDED: "2"},
                           {"cpu": "2000m", "memory": "3000"})
DEFAULT_SET = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
EXTENDED_SET = [*DEFAULT_SET, {"name": EXTENDED, "weight": 1}]


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


SCHEDULED_NO_RESOURCES = placed(((NOTHING,), "machine1", LABELS2), ((NOTHING,), "machine1", LABELS1),
                                ((NOTHING,), "machine2", LABELS1), ((NOTHING,), "machine2", LABELS1))
SCHEDULED_WITH_RESOURCES = placed((CPU_ONLY, "machine1", LABELS2), (CPU_ONLY, "machine1", LABELS1),
                                  (CPU_ONLY, "machine2", LABELS1), (CPU_AND_MEMORY, "machine2", LABELS1))
CPU_ONLY_AND_CPU_AND_MEMORY = placed((CPU_ONLY, "machine1"), (CPU_AND_MEMORY, "machine2"))

SCORE_CASES = [
    pytest.param(pod(), [node("machine1", 4000, 10000), node("machine2", 4000, 10000)], [], DEFAULT_SET,
                 [100, 100], id="nothing scheduled, nothing requested"),
    # (25 + 50) / 2 = 37; (50 + 50) / 2 = 50
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 4000, 10000), node("machine2", 6000, 10000)], [],
                 DEFAULT_SET, [37, 50],
                 id="nothing scheduled, resources requested, differently sized machines"),
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 4000, 10000), node("machine2", 6000, 10000)], [],
                 [], [37, 50],
                 id="Resources not set, nothing scheduled, resources requested, differently sized machines"),
    pytest.param(pod(), [node("machine1", 4000, 10000), node("machine2", 4000, 10000)],
                 SCHEDULED_NO_RESOURCES,
                 DEFAULT_SET, [100, 100], id="no resources requested, pods scheduled"),
    # (40 + 100) / 2 = 70; (40 + 75) / 2 = 57
    pytest.param(pod(), [node("machine1", 10000, 20000), node("machine2", 10000, 20000)],
                 SCHEDULED_WITH_RESOURCES,
                 DEFAULT_SET, [70, 57], id="no resources requested, pods scheduled with resources"),
    # (40 + 75) / 2 = 57; (40 + 50) / 2 = 45
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 10000, 20000), node("machine2", 10000, 20000)],
                 CPU_ONLY_AND_CPU_AND_MEMORY, DEFAULT_SET, [57, 45],
                 id="resources requested, pods scheduled with resources"),
    # (40 + 75) / 2 = 57; (40 + 80) / 2 = 60
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 10000, 20000), node("machine2", 10000, 50000)],
                 CPU_ONLY_AND_CPU_AND_MEMORY, DEFAULT_SET, [57, 60],
                 id="resources requested, pods scheduled with resources, differently sized machines"),
    # cpu 6000 > 4000 -> 0: (0 + 100) / 2 = 50; (0 + 50) / 2 = 25
    pytest.param(pod(CPU_ONLY), [node("machine1", 4000, 10000), node("machine2", 4000, 10000)],
                 CPU_ONLY_AND_CPU_AND_MEMORY, DEFAULT_SET, [50, 25],
                 id="requested resources exceed node capacity"),
    pytest.param(pod(), [node("machine1", 0, 0), node("machine2", 0, 0)], CPU_ONLY_AND_CPU_AND_MEMORY,
                 DEFAULT_SET,
                 [0, 0], id="zero node resources, pods scheduled with resources"),
    # (25 * 1 + 50 * 2) / 3 = 41; (50 + 100) / 3 = 50
    pytest.param(pod(CPU_AND_MEMORY), [node("machine1", 4000, 10000), node("machine2", 6000, 10000)], [],
                 [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [41, 50],
                 id="nothing scheduled, resources requested with different weight on CPU and memory, "
                    "differently sized machines"),
    # v1.20 scores the extended resource the pod does not request (upstream, later: 50, 50).
    pytest.param(pod(CPU_AND_MEMORY),
                 [node("machine1", 6000, 10000), node("machine2", 6000, 10000, {EXTENDED: 4})],
                 [], EXTENDED_SET, [33, 66], id="bypass extended resource if the pod does not request"),
    # (50 + 50 + 50) / 3 = 50; (50 + 50 + 80) / 3 = 60
    pytest.param(pod(CPU_MEMORY_AND_EXTENDED),
                 [node("machine1", 6000, 10000, {EXTENDED: 4}),
                  node("machine2", 6000, 10000, {EXTENDED: 10})],
                 [], EXTENDED_SET, [50, 60], id="honor extended resource if the pod requests"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "resources", "expected"), SCORE_CASES)
def test_node_resources_least_allocated(incoming: dict, nodes: list, existing: list, resources: list,
                                        expected: list) -> None:
    h = Harness([("NodeResourcesLeastAllocated", {"resources": resources})], [*nodes, *existing])
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
def test_node_resources_least_allocated_bad_args(resources: list, expected: list) -> None:
    _, problems = check_plugin_args(NodeResourcesLeastAllocated, {"resources": resources})
    assert problems == expected


@pytest.mark.parametrize(("resources", "expected"), [
    pytest.param([{"name": "cpu", "weight": 50}, {"name": "memory", "weight": 30}], [], id="valid config"),
    pytest.param([{"name": "cpu", "weight": 0}],
                 [(("resources", 0, "weight"), "resource Weight of cpu should be a positive value, got 0")],
                 id="weight less than min"),
    pytest.param([{"name": "memory", "weight": 101}],
                 [(("resources", 0, "weight"), "resource Weight of memory should be less than 100, got 101")],
                 id="weight more than max"),
])
def test_validate_node_resources_least_allocated_args(resources: list, expected: list) -> None:
    _, problems = check_plugin_args(NodeResourcesLeastAllocated, {"resources": resources})
    assert problems == expected


# ---------------------------------------------------------------------------------------------------
# ruleset checks
# ---------------------------------------------------------------------------------------------------

def test_weight_100_is_accepted_and_omitted_weight_is_zero() -> None:
    assert check_plugin_args(NodeResourcesLeastAllocated,
                             {"resources": [{"name": "cpu", "weight": 100}]})[1] == []
    assert check_plugin_args(NodeResourcesLeastAllocated, {"resources": [{"name": "cpu"}]})[1] == [
        (("resources", 0, "weight"), "resource Weight of cpu should be a positive value, got 0")]


def test_defaults_fill_an_empty_args_table() -> None:
    args, problems = check_plugin_args(NodeResourcesLeastAllocated, {})
    assert problems == []
    assert NodeResourcesLeastAllocated.args_to_dict(args) == {
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}


def test_repeated_resource_keeps_its_last_weight() -> None:
    # resourceToWeightMap{cpu: 3, memory: 1}: (25 * 3 + 50) / 4 = 31 (not (25 + 50 + 25 * 3) / 5 = 30).
    resources = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": "cpu", "weight": 3}]
    h = Harness([("NodeResourcesLeastAllocated", {"resources": resources})], [node("machine1", 4000, 10000)])
    assert h.score(pod(CPU_AND_MEMORY)) == {"machine1": 31}


def test_non_zero_defaults_for_containers_without_requests() -> None:
    # Existing and incoming pods without requests count 100m and 200Mi each:
    # cpu (1000 - 200) * 100 / 1000 = 80; memory (1Gi - 400Mi) * 100 / 1Gi = 60 -> 70.
    nodes = [make_node("n", allocatable={"cpu": "1000m", "memory": "1Gi"})]
    existing = make_pod("existing", node_name="n", containers=[container()])
    h = Harness(["NodeResourcesLeastAllocated"], [*nodes, existing])
    assert h.score(make_pod(containers=[container()])) == {"n": 70}


def test_ephemeral_storage_uses_plain_requests() -> None:
    # No defaults for ephemeral-storage: (100 - 30 - 20) * 100 / 100 = 50.
    nodes = [make_node("n", allocatable={"cpu": "1000m", "memory": "1Gi", "ephemeral-storage": "100"})]
    existing = make_pod("existing", node_name="n", requests={"ephemeral-storage": "30"})
    args = {"resources": [{"name": "ephemeral-storage", "weight": 1}]}
    h = Harness([("NodeResourcesLeastAllocated", args)], [*nodes, existing])
    assert h.score(make_pod(requests={"ephemeral-storage": "20"})) == {"n": 50}
