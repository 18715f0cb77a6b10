"""NodeResourcesFit's ``scoringStrategy`` RequestedToCapacityRatio at Kubernetes 1.34.

Ported from ``pkg/scheduler/framework/plugins/noderesources/requested_to_capacity_ratio_test.go``
as stored for kubernetes/kubernetes at commit 8519d3399f10 (the ``backend/cache``/``ktesting`` era,
after v1.32; the stored index holds no v1.34.0 copy, and the tables did not change between that
copy and the older 00b9ead02c37 one, so they stand for v1.34): every case of
TestRequestedToCapacityRatioScoringStrategy, TestBrokenLinearFunction,
TestResourceBinPackingSingleExtended and TestResourceBinPackingMultipleExtended, with upstream's
exact scores. Each table runs as a 1.34 profile's ``scoringStrategy`` through PreScore and Score
only (upstream calls PreScore then Score directly; no Filter).

As upstream: node capacities written "4000" are whole cores; ``makeNode(name, milliCPU, memory,
extended)``; pods upstream builds without containers get one requesting ``cpu: 0, memory: 0``
(the same requests); upstream's unscheduled ``pods: {st.MakePod().Obj()}`` (on no node, counted
nowhere) are left out of the cluster. TestBrokenLinearFunction calls ``helper.BuildBrokenLinearFunction`` with
unscaled shape scores: here :func:`ruleset.plugins.noderesources.scoring.broken_linear` on the
same points.

Left out: nothing. (The shape validation errors of ``wantErrs``, empty in every case here, are
in test_noderesources_fit_v134.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from ruleset.plugins.noderesources.scoring import broken_linear
from tests.factories import make_node
from tests.plugins.noderesources_kit import node, placed, pod, scores

DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
DESCENDING = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
ASCENDING = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]
FOO, BAR = "intel.com/foo", "intel.com/bar"
MIB = 1024 * 1024


def rtcr(resources: list, shape: list) -> tuple[str, dict]:
    return ("NodeResourcesFit", {"scoringStrategy": {"type": "RequestedToCapacityRatio", "resources": resources,
                                                     "requestedToCapacityRatio": {"shape": shape}}})


def cap(name: str, cpu: str, memory: str) -> dict:
    """``st.MakeNode().Name(name).Capacity(...)``."""
    return make_node(name, allocatable={"cpu": cpu, "memory": memory})


EMPTY = ()
REQ = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})
STRATEGY = [
    pytest.param(pod(), [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")],
                 placed((EMPTY, "node1"), (EMPTY, "node1")), [100, 100],
                 id="nothing scheduled, nothing requested (default - least requested nodes have priority)"),
    pytest.param(pod(REQ), [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")],
                 placed((EMPTY, "node1"), (EMPTY, "node1")), [38, 50],
                 id="nothing scheduled, resources requested, differently sized nodes "
                    "(default - least requested nodes have priority)"),
    pytest.param(pod(), [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")],
                 placed((({"cpu": "3000", "memory": "5000"},), "node1"), (({"cpu": "3000", "memory": "5000"},), "node2")),
                 [38, 50], id="no resources requested, pods scheduled with resources "
                              "(default - least requested nodes have priority)"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "expected"), STRATEGY)
def test_requested_to_capacity_ratio_scoring_strategy(incoming: dict, nodes: list, existing: list,
                                                      expected: list) -> None:
    got = scores(rtcr(DEFAULT, DESCENDING), nodes, existing, incoming, "1.34", points=["score"])
    assert got == expected


@pytest.mark.parametrize(("points", "assertions"), [
    pytest.param([(10, 1), (90, 9)], [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8),
                                      (90, 9), (99, 9), (100, 9), (110, 9)], id="case_0"),
    pytest.param([(0, 2), (40, 10), (100, 0)], [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0),
                                                (110, 0)], id="case_1"),
    pytest.param([(0, 2), (40, 2), (100, 2)], [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2),
                                               (110, 2)], id="case_2"),
])
def test_broken_linear_function(points: list, assertions: list) -> None:
    xs = np.array([p for p, _ in points], dtype=np.int64)
    ys = np.array([s for _, s in points], dtype=np.int64)
    utilization = np.array([p for p, _ in assertions], dtype=np.int64)
    assert broken_linear(utilization, xs, ys).tolist() == [want for _, want in assertions]


FOO8_FOO4 = [node("node1", 4000, 10000 * MIB, {FOO: 8}), node("node2", 4000, 10000 * MIB, {FOO: 4})]
SINGLE = [
    pytest.param(pod(), FOO8_FOO4, [], [0, 0], id="nothing scheduled, nothing requested"),
    pytest.param(pod(({FOO: "2"},)), FOO8_FOO4, [], [2, 5],
                 id="resources requested, pods scheduled with less resources"),
    pytest.param(pod(({FOO: "2"},)), FOO8_FOO4, placed((({FOO: "2"},), "node2")), [2, 10],
                 id="resources requested, pods scheduled with resources, on node with existing pod running "),
    pytest.param(pod(({FOO: "4"},)), FOO8_FOO4, [], [5, 10],
                 id="resources requested, pods scheduled with more resources"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "expected"), SINGLE)
def test_resource_bin_packing_single_extended(incoming: dict, nodes: list, existing: list, expected: list) -> None:
    got = scores(rtcr([{"name": FOO, "weight": 1}], ASCENDING), nodes, existing, incoming, "1.34", points=["score"])
    assert got == expected


MULTI_NODES = [node("node1", 4000, 10000 * MIB, {FOO: 8, BAR: 4}), node("node2", 4000, 10000 * MIB, {FOO: 4, BAR: 8})]
POD1 = ({FOO: "2", BAR: "2"},)
POD2 = ({FOO: "4", BAR: "2"},)
MULTI = [
    pytest.param(pod(), MULTI_NODES, [], [0, 0], id="nothing scheduled, nothing requested"),
    pytest.param(pod(POD1), MULTI_NODES, [], [4, 3],
                 id="resources requested, pods scheduled with less resources"),
    pytest.param(pod(POD1), MULTI_NODES, placed((POD2, "node2")), [4, 7],
                 id="resources requested, pods scheduled with resources, on node with existing pod running "),
    pytest.param(pod(POD2), MULTI_NODES, [], [5, 5],
                 id="resources requested, pods scheduled with more resources"),
]


@pytest.mark.parametrize(("incoming", "nodes", "existing", "expected"), MULTI)
def test_resource_bin_packing_multiple_extended(incoming: dict, nodes: list, existing: list, expected: list) -> None:
    resources = [{"name": FOO, "weight": 3}, {"name": BAR, "weight": 5}]
    got = scores(rtcr(resources, ASCENDING), nodes, existing, incoming, "1.34", points=["score"])
    assert got == expected
