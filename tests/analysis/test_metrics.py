"""``ruleset.analysis.metrics``: utilisation spread, nodes used and pods per zone, exact values."""

from __future__ import annotations

import pytest

from ruleset.analysis.metrics import balance, flat_metrics, placed_per_zone, spread, zone_of
from tests.factories import build_cluster, make_node, make_pod

ZONE = "topology.kubernetes.io/zone"


def _snapshot():
    return build_cluster([
        make_node("a", {ZONE: "z1"}, cpu="4", memory="8Gi"),
        make_node("b", {ZONE: "z1"}, cpu="4", memory="8Gi", allocatable={"cpu": "4", "memory": "8Gi",
                                                                       "pods": "110", "nvidia.com/gpu": "2"}),
        make_node("c", {"failure-domain.beta.kubernetes.io/zone": "z2"}, cpu="2", memory="4Gi"),
        make_node("d", cpu="2", memory="4Gi"),
        make_pod("p1", node_name="a", requests={"cpu": "2", "memory": "2Gi"}),
        make_pod("p2", node_name="b", requests={"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}),
        make_pod("p3", node_name="c", requests={"cpu": "2", "memory": "1Gi"}),
    ]).snapshot


@pytest.mark.parametrize(("resource", "expected"), [
    # a 50%, b 25%, c 100%, d 0%
    ("cpu", {"nodes": 4, "mean": 43.75, "stddev": 36.98, "min": 0.0, "max": 100.0, "range": 100.0}),
    # a 25%, b 12.5%, c 25%, d 0%
    ("memory", {"nodes": 4, "mean": 15.62, "stddev": 10.36, "min": 0.0, "max": 25.0, "range": 25.0}),
    ("nvidia.com/gpu", {"nodes": 1, "mean": 50.0, "stddev": 0.0, "min": 50.0, "max": 50.0, "range": 0.0}),
    ("example.com/none", {"nodes": 0, "mean": 0.0, "stddev": 0.0, "min": 0.0, "max": 0.0, "range": 0.0}),
], ids=["cpu", "memory", "gpu-only-where-allocatable", "absent"])
def test_spread(resource: str, expected: dict) -> None:
    assert spread(_snapshot(), resource) == expected


def test_balance() -> None:
    metrics = balance(_snapshot(), ["a", None, "c", "c"])
    assert list(metrics["utilisation"]) == ["cpu", "memory", "nvidia.com/gpu"]
    assert (metrics["nodesUsed"], metrics["nodes"]) == (3, 4)
    assert metrics["podsPerZone"] == {"": 0, "z1": 2, "z2": 1}
    assert metrics["placedPerZone"] == {"z1": 1, "z2": 2}
    assert flat_metrics(metrics) == {"cpu.stddev": 36.98, "cpu.range": 100.0, "memory.stddev": 10.36,
                                     "memory.range": 25.0, "nvidia.com/gpu.stddev": 0.0,
                                     "nvidia.com/gpu.range": 0.0, "nodesUsed": 3}


@pytest.mark.parametrize(("labels", "zone"), [
    ({ZONE: "z1"}, "z1"),
    ({"failure-domain.beta.kubernetes.io/zone": "z2"}, "z2"),
    ({ZONE: "z1", "failure-domain.beta.kubernetes.io/zone": "z2"}, "z1"),
    ({ZONE: "", "failure-domain.beta.kubernetes.io/zone": "z2"}, "z2"),
    ({}, ""),
], ids=["ga", "beta", "ga-wins", "empty-ga", "none"])
def test_zone_of(labels: dict, zone: str) -> None:
    assert zone_of(labels) == zone


def test_placed_per_zone_skips_unscheduled() -> None:
    assert placed_per_zone(_snapshot(), [None, "d"]) == {"": 1}
