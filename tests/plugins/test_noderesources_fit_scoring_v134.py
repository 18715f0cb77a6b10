"""NodeResourcesFit's Score by ``scoringStrategy`` (Kubernetes 1.22+; issue 13 rows 4-6).

Ported from ``pkg/scheduler/framework/plugins/noderesources/least_allocated_test.go``
(TestLeastAllocatedScoringStrategy) and ``most_allocated_test.go`` (TestMostAllocatedScoringStrategy)
as stored for v1.34 (``fwk``/``backend/cache`` era), run through a 1.34 profile's
``scoringStrategy`` with only the Score point (upstream calls PreScore/Score directly, no Filter).
Node capacities upstream writes in whole cores ("4000") are kept so. Left out, and why:

* "Resources not set, pods scheduled with error" (both): upstream builds the plugin from
  unvalidated, undefaulted args; from a configuration an empty ``resources`` is defaulted to cpu
  and memory (``SetDefaults_NodeResourcesFitArgs``), tested here as such.
* "resource with zero weight" (both): the same defaulting turns weight 0 into 1 before validation,
  so a configuration cannot produce it; tested here as weight 0 -> 1.
* The weight errors are checked with their full messages in test_noderesources_fit_args_v134.py.

requested_to_capacity_ratio_test.go was not ported (time); its formula is covered by the RTCR
switch cases below (utilization rounded down, zero scores out of the weight sum).
"""

from __future__ import annotations

import pytest

from tests.factories import make_node
from tests.plugins.noderesources_kit import placed, pod, scores

EXT = "abc.com/xyz"
DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
WITH_EXT = [*DEFAULT, {"name": EXT, "weight": 1}]
REQ = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})


def cap(name: str, **resources: str) -> dict:
    """``st.MakeNode().Name(name).Capacity(...)`` (allocatable = capacity)."""
    return make_node(name, allocatable={k.replace("_", "/"): v for k, v in resources.items()})


def ext(name: str, cpu: str, memory: str, count: str | None = None) -> dict:
    allocatable = {"cpu": cpu, "memory": memory}
    if count is not None:
        allocatable[EXT] = count
    return make_node(name, allocatable=allocatable)


def fit(strategy: str, resources: list) -> tuple[str, dict]:
    return ("NodeResourcesFit", {"scoringStrategy": {"type": strategy, "resources": resources}})


N4_4 = [cap("node1", cpu="4000", memory="10000"), cap("node2", cpu="4000", memory="10000")]
N4_6 = [cap("node1", cpu="4000", memory="10000"), cap("node2", cpu="6000", memory="10000")]
N10_10 = [cap("node1", cpu="10000", memory="20000"), cap("node2", cpu="10000", memory="20000")]
N10_50 = [cap("node1", cpu="10000", memory="20000"), cap("node2", cpu="10000", memory="50000")]
CPU3 = ({"cpu": "3000", "memory": "0"},)
CPU3_MEM5 = ({"cpu": "3000", "memory": "5000"},)
FOUR = placed((CPU3, "node1"), (CPU3, "node1"), (CPU3, "node2"), (CPU3_MEM5, "node2"))
TWO = placed((CPU3, "node1"), (CPU3_MEM5, "node2"))
EMPTY4 = placed(((), "node1"), ((), "node1"), ((), "node2"), ((), "node2"))

LEAST = [
    pytest.param(pod(), N4_4, [], DEFAULT, [100, 100], id="nothing scheduled, nothing requested"),
    pytest.param(pod(REQ), N4_6, [], DEFAULT, [37, 50],
                 id="nothing scheduled, resources requested, differently sized nodes"),
    pytest.param(pod(REQ), N4_6, [], [], [37, 50], id="resources empty: defaulted to cpu and memory"),
    pytest.param(pod(), N4_4, placed(((), "node1"), ((), "node1"), ((), "node2"), ((), "node2")), DEFAULT,
                 [100, 100], id="no resources requested, pods scheduled"),
    pytest.param(pod(), N10_10, FOUR, DEFAULT, [70, 57], id="no resources requested, pods scheduled with resources"),
    pytest.param(pod(REQ), N10_10, TWO, DEFAULT, [57, 45], id="resources requested, pods scheduled with resources"),
    pytest.param(pod(REQ), N10_50, TWO, DEFAULT, [57, 60],
                 id="resources requested, pods scheduled with resources, differently sized nodes"),
    pytest.param(pod(CPU3), N4_4, TWO, DEFAULT, [50, 25], id="requested resources exceed node capacity"),
    pytest.param(pod(), [make_node("node1", allocatable={}), make_node("node2", allocatable={})], TWO, DEFAULT,
                 [0, 0], id="zero node resources, pods scheduled with resources"),
    pytest.param(pod(REQ), N4_6, [], [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [41, 50],
                 id="nothing scheduled, resources requested with different weight on CPU and memory"),
    pytest.param(pod(REQ), N4_6, [], [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 0}], [37, 50],
                 id="zero weight defaults to 1"),
    pytest.param(pod(REQ), [ext("node1", "6000", "10000"), ext("node2", "6000", "10000", "4")], [], WITH_EXT,
                 [50, 50], id="bypass extended resource if the pod does not request"),
    pytest.param(pod(({"cpu": "3000", "memory": "5000", EXT: "2"},)),
                 [ext("node1", "6000", "10000", "4"), ext("node2", "6000", "10000", "10")], [], WITH_EXT,
                 [50, 60], id="honor extended resource if the pod requests"),
    pytest.param(pod(({"cpu": "3000", "memory": "4000"},)),
                 [ext("node1", "6000", "10000"), ext("node2", "6000", "10000", "4")], [],
                 [{"name": EXT, "weight": 2}, *DEFAULT], [55, 55], id="if the node doesn't have a resource"),
]

MOST = [
    pytest.param(pod(), N4_4, [], DEFAULT, [0, 0], id="nothing scheduled, nothing requested"),
    pytest.param(pod(REQ), N4_6, [], DEFAULT, [62, 50],
                 id="nothing scheduled, resources requested, differently sized nodes"),
    pytest.param(pod(), N10_10, FOUR, DEFAULT, [30, 42], id="no resources requested, pods scheduled with resources"),
    pytest.param(pod(REQ), N10_10, TWO, DEFAULT, [42, 55], id="resources requested, pods scheduled with resources"),
    pytest.param(pod(({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"})),
                 [cap("node1", cpu="5000", memory="10000"), cap("node2", cpu="10000", memory="9000")], [], DEFAULT,
                 [95, 75], id="resources requested equal node capacity"),
    pytest.param(pod(REQ), N4_6, [], [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [58, 50],
                 id="nothing scheduled, resources requested, different weights"),
    pytest.param(pod(({},)), [cap("node1", cpu="250m", memory="1000Mi"), cap("node2", cpu="250m", memory="1000Mi")],
                 placed((({},), "node1"), (({},), "node1")), DEFAULT, [80, 30],
                 id="no resources requested, pods scheduled, nonzero request for resource"),
    pytest.param(pod(REQ), [ext("node1", "6000", "10000"), ext("node2", "6000", "10000", "4")], [], WITH_EXT,
                 [50, 50], id="bypass extended resource if the pod does not request"),
    pytest.param(pod(({"cpu": "3000", "memory": "5000", EXT: "2"},)),
                 [ext("node1", "6000", "10000", "4"), ext("node2", "6000", "10000", "10")], [], WITH_EXT,
                 [50, 40], id="honor extended resource if the pod request"),
    pytest.param(pod(({"cpu": "3000", "memory": "4000"},)),
                 [ext("node1", "6000", "10000"), ext("node2", "6000", "10000", "4")], [],
                 [{"name": EXT, "weight": 2}, *DEFAULT], [45, 45], id="if the node doesn't have a resource"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "resources", "expected"), LEAST)
def test_least_allocated(incoming: dict, nodes: list, existing: list, resources: list, expected: list) -> None:
    got = scores(fit("LeastAllocated", resources), nodes, existing, incoming, "1.34", points=["score"])
    assert got == expected


@pytest.mark.parametrize(("incoming", "nodes", "existing", "resources", "expected"), MOST)
def test_most_allocated(incoming: dict, nodes: list, existing: list, resources: list, expected: list) -> None:
    got = scores(fit("MostAllocated", resources), nodes, existing, incoming, "1.34", points=["score"])
    assert got == expected


def test_default_strategy_is_least_allocated() -> None:
    """No scoringStrategy at 1.34: LeastAllocated over cpu and memory, weight 1."""
    assert scores("NodeResourcesFit", N4_6, [], pod(REQ), "1.34", points=["score"]) == [37, 50]


EMPTY_EXT_NODES = [ext("node1", "6000", "10000"), ext("node2", "6000", "10000", "4")]
RTCR_SHAPE = {"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]}

# Old plugin at 1.20 vs the same resources at 1.22 (the old plugin, still registered) and as
# NodeResourcesFit's strategy at 1.34.
SWITCH_CASES = [
    # SKIP_UNUSED: (50 + 50 + 0) / 3 = 33 and (50 + 50 + 100) / 3 = 66 at 1.20; 50, 50 from 1.22.
    pytest.param(("NodeResourcesLeastAllocated", {"resources": WITH_EXT}), None, [33, 66], id="least 1.20"),
    pytest.param(("NodeResourcesLeastAllocated", {"resources": WITH_EXT}), "1.22", [50, 50], id="least 1.22"),
    pytest.param(fit("LeastAllocated", WITH_EXT), "1.34", [50, 50], id="least as strategy 1.34"),
    pytest.param(("NodeResourcesMostAllocated", {"resources": WITH_EXT}), None, [33, 33], id="most 1.20"),
    pytest.param(("NodeResourcesMostAllocated", {"resources": WITH_EXT}), "1.22", [50, 50], id="most 1.22"),
]


@pytest.mark.parametrize(("plugin", "version", "expected"), SWITCH_CASES)
def test_skip_unused_switch(plugin: tuple, version: str | None, expected: list) -> None:
    points = ["score"] if plugin[0] == "NodeResourcesFit" else None
    assert scores(plugin, EMPTY_EXT_NODES, [], pod(REQ), version, points) == expected


# MOST_CLAMP: cpu 5000 of 4000 -> 0 at 1.20, 100 from 1.22; memory 5000/10000 = 50.
@pytest.mark.parametrize(("version", "expected"), [
    pytest.param(None, [25], id="1.20 over-commit scores 0"),
    pytest.param("1.21", [25], id="1.21"),
    pytest.param("1.22", [75], id="1.22 clamps to 100"),
])
def test_most_allocated_clamp(version: str | None, expected: list) -> None:
    existing = placed((({"cpu": "2000", "memory": "0"},), "node1"))
    got = scores("NodeResourcesMostAllocated", [cap("node1", cpu="4000", memory="10000")], existing,
                 pod(({"cpu": "3000", "memory": "5000"},)), version)
    assert got == expected


# RTCR_FLOOR: cpu 1/3 used: utilization 100 - 66 = 34 at 1.20 (rounds up), 33 from 1.22 (down);
# shape 0->0, 100->10: scores 34 and 33 (memory 0 requested -> score 0, out of the weight sum).
@pytest.mark.parametrize(("plugin", "version", "expected", "points"), [
    pytest.param(("RequestedToCapacityRatio", {**RTCR_SHAPE, "resources": DEFAULT}), None, [34], None, id="1.20"),
    pytest.param(("RequestedToCapacityRatio", {**RTCR_SHAPE, "resources": DEFAULT}), "1.22", [33], None, id="1.22"),
    pytest.param(("NodeResourcesFit", {"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": DEFAULT,
                                                           "requestedToCapacityRatio": RTCR_SHAPE}}),
                 "1.34", [33], ["score"], id="1.34 strategy"),
])
def test_rtcr_rounding(plugin: tuple, version: str | None, expected: list, points: list | None) -> None:
    got = scores(plugin, [cap("node1", cpu="3", memory="10000")], [], pod(({"cpu": "1", "memory": "0"},)),
                 version, points)
    assert got == expected


# OVERHEAD_MILLI: a 250m cpu overhead counted as 1 millicore (Value(), rounded up) until 1.26,
# 250 millicores from 1.27. cpu 1000m + overhead on 4000m; memory 0 of 10000.
# LeastAllocated: 1.26: ((4000 - 1001) * 100 / 4000 = 74 + 100) / 2 = 87; 1.27: (68 + 100) / 2 = 84.
@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.26", [87], id="1.26 Value()"),
    pytest.param("1.27", [84], id="1.27 millicores"),
    pytest.param("1.34", [84], id="1.34"),
])
def test_overhead_millicores(version: str, expected: list) -> None:
    incoming = pod(({"cpu": "1000m", "memory": "0"},), overhead={"cpu": "250m"})
    got = scores("NodeResourcesFit", [cap("node1", cpu="4000m", memory="10000")], [], incoming, version,
                 points=["score"])
    assert got == expected
