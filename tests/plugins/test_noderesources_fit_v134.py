"""NodeResourcesFit at Kubernetes 1.22+: the Score point per release, ``scoringStrategy`` args,
and the Filter changes of 1.28 and 1.34 (issue 13 rows 4 and 9).

Args: ``ValidateNodeResourcesFitArgs`` of v1.34 (``pkg/scheduler/apis/config/validation/
validation_pluginargs.go``) with its exact messages, and ``SetDefaults_NodeResourcesFitArgs``'s
defaulting. Filter: the cases of the two switches written from v1.34 ``fit.go`` ``fitsRequest``
(``> 0`` guards; ``Unresolvable: request > allocatable``); fit_test.go's own table at v1.34 was not
ported here (its sidecar and pod-level-resource cases belong to the pod-model work of issue 13;
the rest matches v1.20's table, which tests/plugins/test_node_resources_fit.py keeps).
"""

from __future__ import annotations

import pytest

from ruleset.kversion import KubeVersion, Target
from ruleset.plugins.noderesources import NodeResourcesFit
from tests.factories import make_node
from tests.plugins.noderesources_kit import VersionHarness, placed, pod


def target(version: str) -> Target:
    return Target(KubeVersion.parse(version), {}, explicit=True)


NODES = [make_node("node1", allocatable={"cpu": "4", "memory": "10000", "pods": "10"})]


@pytest.mark.parametrize(("version", "scorers"), [
    pytest.param(None, [], id="1.20 (unset): no Score point"),
    pytest.param("1.21", [], id="1.21: no Score point"),
    pytest.param("1.22", ["NodeResourcesFit"], id="1.22 scores"),
    pytest.param("1.34", ["NodeResourcesFit"], id="1.34 scores"),
])
def test_score_point_per_release(version: str | None, scorers: list) -> None:
    h = VersionHarness(["NodeResourcesFit"], NODES, version)
    assert h.framework.score_plugins == scorers


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", {}, id="1.20"),
    pytest.param("1.22", {"scoringStrategy": {"type": "LeastAllocated", "resources": [
        {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}, id="1.22"),
])
def test_defaults_for(version: str, expected: dict) -> None:
    assert NodeResourcesFit.defaults_for(target(version)) == expected


SUPPORTED = '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'
ARG_CASES = [
    pytest.param({"scoringStrategy": {"type": "MostAllocated"}}, [], id="type only"),
    pytest.param({"scoringStrategy": {"type": "Foo"}},
                 [(("scoringStrategy", "type"), f'scoringStrategy.type: Unsupported value: "Foo": supported values: '
                                                f'{SUPPORTED}')], id="unknown type"),
    pytest.param({"scoringStrategy": {}},
                 [(("scoringStrategy", "type"), f'scoringStrategy.type: Unsupported value: "": supported values: '
                                                f'{SUPPORTED}')], id="type left out"),
    pytest.param({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "memory", "weight": -1},
                                                                              {"name": "cpu", "weight": 101}]}},
                 [(("scoringStrategy", "resources", 0, "weight"),
                   "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not in valid "
                   "range (0, 100]"),
                  (("scoringStrategy", "resources", 1, "weight"),
                   "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not in valid "
                   "range (0, 100]")], id="weights out of range, every error"),
    pytest.param({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                                      "requestedToCapacityRatio": {"shape": []}}},
                 [(("scoringStrategy", "requestedToCapacityRatio", "shape"),
                   "scoringStrategy.shape: Required value: at least one point must be specified")], id="empty shape"),
    pytest.param({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": [
        {"utilization": 10, "score": 1}, {"utilization": 10, "score": 11}, {"utilization": 101, "score": -1}]}}},
                 [(("scoringStrategy", "requestedToCapacityRatio", "shape", 1, "utilization"),
                   "scoringStrategy.shape[1].utilization: Invalid value: 10: values must be sorted in increasing order"),
                  (("scoringStrategy", "requestedToCapacityRatio", "shape", 1, "score"),
                   "scoringStrategy.shape[1].score: Invalid value: 11: not in valid range [0, 10]"),
                  (("scoringStrategy", "requestedToCapacityRatio", "shape", 2, "utilization"),
                   "scoringStrategy.shape[2].utilization: Invalid value: 101: not in valid range [0, 100]"),
                  (("scoringStrategy", "requestedToCapacityRatio", "shape", 2, "score"),
                   "scoringStrategy.shape[2].score: Invalid value: -1: not in valid range [0, 10]")],
                 id="bad shape, every error"),
]


@pytest.mark.parametrize(("raw", "expected"), ARG_CASES)
def test_validate_args(raw: dict, expected: list) -> None:
    _, errors = NodeResourcesFit.check_args(raw)
    assert [(e.path, e.message) for e in errors] == expected


def test_scoring_strategy_refused_before_1_22() -> None:
    args = NodeResourcesFit.parse_args({"scoringStrategy": {"type": "MostAllocated"}})
    assert [e.message for e in NodeResourcesFit.validate_args_for(args, target("1.21"))] == [
        "scoringStrategy is not in Kubernetes 1.21: NodeResourcesFit scores from 1.22 on"]
    assert NodeResourcesFit.validate_args_for(args, target("1.22")) == []


def test_defaulting_of_resources() -> None:
    args = NodeResourcesFit.parse_args({"scoringStrategy": {"type": "MostAllocated",
                                                            "resources": [{"name": "cpu"}, {"name": "x/y", "weight": 0}]}})
    assert NodeResourcesFit.args_to_dict(args)["scoringStrategy"] == {
        "type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "x/y", "weight": 1}]}


GPU = "example.com/gpu"
FULL_NODE = [make_node("node1", allocatable={"cpu": "2", "memory": "1000", GPU: "1", "pods": "10"})]
# The node's cpu and memory are all requested already.
FULL = placed((({"cpu": "2", "memory": "1000", GPU: "1"},), "node1"))


# An over-committed node (requested 3 of 2 cpu, as a node whose allocatable shrank): a pod asking
# cpu 0 fails "Insufficient cpu" until 1.27 (0 > 2 - 3), passes from 1.28 (zero requests skipped).
OVER_NODE = [make_node("node1", allocatable={"cpu": "2", "memory": "1000", "pods": "10"})]
OVER = placed((({"cpu": "3", "memory": "10"},), "node1"))


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param(None, ("Unschedulable", ("Insufficient cpu",)), id="1.20"),
    pytest.param("1.27", ("Unschedulable", ("Insufficient cpu",)), id="1.27"),
    pytest.param("1.28", ("Success", ()), id="1.28 zero request not checked"),
    pytest.param("1.34", ("Success", ()), id="1.34"),
])
def test_zero_request_overcommitted(version: str | None, expected: tuple) -> None:
    h = VersionHarness(["NodeResourcesFit"], [*OVER_NODE, *OVER], version)
    assert h.filter(pod(({"cpu": "0", "memory": "1"},)))["node1"] == expected


# The same for a scalar resource: the node's one GPU is used twice over (its allocatable shrank);
# a pod asking 0 GPUs fails "Insufficient example.com/gpu" until 1.25, passes from 1.26 (a scalar
# requested at 0 is skipped, fitsRequest's rQuant == 0), while CPU at 0 is still checked until 1.28.
OVER_GPU_NODE = [make_node("node1", allocatable={"cpu": "2", "memory": "1000", GPU: "1", "pods": "10"})]
OVER_GPU = placed((({"cpu": "1", "memory": "10", GPU: "2"},), "node1"))


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param(None, ("Unschedulable", (f"Insufficient {GPU}",)), id="1.20"),
    pytest.param("1.25", ("Unschedulable", (f"Insufficient {GPU}",)), id="1.25"),
    pytest.param("1.26", ("Success", ()), id="1.26 zero scalar request not checked"),
    pytest.param("1.34", ("Success", ()), id="1.34"),
])
def test_zero_scalar_request_overcommitted(version: str | None, expected: tuple) -> None:
    h = VersionHarness(["NodeResourcesFit"], [*OVER_GPU_NODE, *OVER_GPU], version)
    assert h.filter(pod(({"cpu": "1", "memory": "1", GPU: "0"},)))["node1"] == expected


UNRESOLVABLE = [
    # cpu 3 > allocatable 2: preemption cannot help from 1.34.
    pytest.param(pod(({"cpu": "3", "memory": "1"},)), "1.33",
                 ("Unschedulable", ("Insufficient cpu", "Insufficient memory")), id="1.33 beyond allocatable"),
    pytest.param(pod(({"cpu": "3", "memory": "1"},)), "1.34",
                 ("UnschedulableAndUnresolvable", ("Insufficient cpu", "Insufficient memory")),
                 id="1.34 beyond allocatable"),
    # cpu 1 fits an empty node: evicting the pod there would help, so still Unschedulable.
    pytest.param(pod(({"cpu": "1", "memory": "1"},)), "1.34",
                 ("Unschedulable", ("Insufficient cpu", "Insufficient memory")), id="1.34 within allocatable"),
    # The pod count alone is never Unresolvable.
    pytest.param(pod(({"cpu": "0", "memory": "0", GPU: "2"},)), "1.34",
                 ("UnschedulableAndUnresolvable", (f"Insufficient {GPU}",)), id="1.34 scalar beyond allocatable"),
]


@pytest.mark.parametrize(("incoming", "version", "expected"), UNRESOLVABLE)
def test_unresolvable(incoming: dict, version: str, expected: tuple) -> None:
    h = VersionHarness(["NodeResourcesFit"], [*FULL_NODE, *FULL], version)
    assert h.filter(incoming)["node1"] == expected


# The same cases on three such nodes at once: Filter's array form, where one node takes a shortcut.
THREE_FULL = [make_node(f"node{i}", allocatable={"cpu": "2", "memory": "1000", GPU: "1", "pods": "10"})
              for i in (1, 2, 3)] + placed(*((({"cpu": "2", "memory": "1000", GPU: "1"},), f"node{i}")
                                              for i in (1, 2, 3)))


@pytest.mark.parametrize(("incoming", "version", "expected"), UNRESOLVABLE)
def test_unresolvable_on_several_nodes(incoming: dict, version: str, expected: tuple) -> None:
    h = VersionHarness(["NodeResourcesFit"], THREE_FULL, version)
    assert h.filter(incoming) == {"node1": expected, "node2": expected, "node3": expected}


def test_too_many_pods_is_resolvable_at_1_34() -> None:
    node = [make_node("node1", allocatable={"cpu": "2", "memory": "1000", "pods": "1"})]
    h = VersionHarness(["NodeResourcesFit"], [*node, *placed((({"cpu": "1", "memory": "1"},), "node1"))], "1.34")
    assert h.filter(pod(({"cpu": "1", "memory": "1"},)))["node1"] == ("Unschedulable", ("Too many pods",))
