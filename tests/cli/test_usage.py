"""``ruleset.cli.usage``: cluster, zone and node utilisation from a snapshot."""

import pytest

from ruleset.cli.usage import extended_resources, usage_json, zone_of
from ruleset.testing import cluster, node, pod

GA, BETA = "topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"
GI = 1024**3


@pytest.mark.parametrize("labels, zone", [
    ({}, ""),
    ({GA: "a"}, "a"),
    ({BETA: "b"}, "b"),
    ({GA: "a", BETA: "b"}, "a"),  # the GA label first
    ({GA: "", BETA: "b"}, "b"),   # an empty label is no zone
    ({"zone": "a"}, ""),
], ids=["none", "ga", "beta", "ga-wins", "empty-ga", "other-label"])
def test_zone_of(labels, zone):
    assert zone_of(labels) == zone


def _state():
    nodes = [
        node("gpu-1", cpu="8", memory="32Gi", pods=10, labels={GA: "b"}, resources={"nvidia.com/gpu": 4}),
        node("cpu-1", cpu="4", memory="16Gi", pods=20, labels={BETA: "a"}),
        node("bare", cpu="2", memory="4Gi", pods=5),
    ]
    pods = [
        pod("train", cpu="2", memory="8Gi", resources={"nvidia.com/gpu": 3}, node_name="gpu-1"),
        pod("web", cpu="500m", memory="1Gi", node_name="cpu-1"),
        pod("api", cpu="1", node_name="cpu-1"),
        pod("pending", cpu="1"),
    ]
    return cluster(nodes, pods)


def test_usage_json():
    state = _state()
    assert extended_resources(state.snapshot) == ["nvidia.com/gpu"]
    assert usage_json(state.snapshot) == {
        "cluster": {
            "cpu": {"requested": 3500, "allocatable": 14000},
            "memory": {"requested": 9 * GI, "allocatable": 52 * GI},
            "pods": {"requested": 3, "allocatable": 35},
            "nvidia.com/gpu": {"requested": 3, "allocatable": 4},
        },
        "zones": {
            "": {"cpu": {"requested": 0, "allocatable": 2000}, "memory": {"requested": 0, "allocatable": 4 * GI},
                 "pods": {"requested": 0, "allocatable": 5}, "nvidia.com/gpu": {"requested": 0, "allocatable": 0}},
            "a": {"cpu": {"requested": 1500, "allocatable": 4000},
                  "memory": {"requested": GI, "allocatable": 16 * GI},
                  "pods": {"requested": 2, "allocatable": 20}, "nvidia.com/gpu": {"requested": 0, "allocatable": 0}},
            "b": {"cpu": {"requested": 2000, "allocatable": 8000},
                  "memory": {"requested": 8 * GI, "allocatable": 32 * GI},
                  "pods": {"requested": 1, "allocatable": 10}, "nvidia.com/gpu": {"requested": 3, "allocatable": 4}},
        },
        "nodes": [
            {"name": "gpu-1", "pods": {"count": 1, "allocatable": 10},
             "cpu": {"requested": 2000, "allocatable": 8000, "unit": "millicores"},
             "memory": {"requested": 8 * GI, "allocatable": 32 * GI, "unit": "bytes"},
             "extended": {"nvidia.com/gpu": {"requested": 3, "allocatable": 4}}},
            {"name": "cpu-1", "pods": {"count": 2, "allocatable": 20},
             "cpu": {"requested": 1500, "allocatable": 4000, "unit": "millicores"},
             "memory": {"requested": GI, "allocatable": 16 * GI, "unit": "bytes"},
             "extended": {"nvidia.com/gpu": {"requested": 0, "allocatable": 0}}},
            {"name": "bare", "pods": {"count": 0, "allocatable": 5},
             "cpu": {"requested": 0, "allocatable": 2000, "unit": "millicores"},
             "memory": {"requested": 0, "allocatable": 4 * GI, "unit": "bytes"},
             "extended": {"nvidia.com/gpu": {"requested": 0, "allocatable": 0}}},
        ],
    }


def test_node_entries_keep_the_shape_of_the_nodes_key():
    """Each node entry is what the schedule JSON's ``nodes`` key holds, plus ``extended``."""
    from ruleset.cli.schedule import utilisation

    state = _state()
    entries = usage_json(state.snapshot)["nodes"]
    assert [{k: v for k, v in e.items() if k != "extended"} for e in entries] == utilisation(state.snapshot)


def test_no_extended_resources_and_no_zones():
    state = cluster([node("n", cpu="1", memory="1Gi", pods=3)])
    assert usage_json(state.snapshot) == {
        "cluster": {"cpu": {"requested": 0, "allocatable": 1000}, "memory": {"requested": 0, "allocatable": GI},
                    "pods": {"requested": 0, "allocatable": 3}},
        "zones": {"": {"cpu": {"requested": 0, "allocatable": 1000}, "memory": {"requested": 0, "allocatable": GI},
                       "pods": {"requested": 0, "allocatable": 3}}},
        "nodes": [{"name": "n", "pods": {"count": 0, "allocatable": 3},
                   "cpu": {"requested": 0, "allocatable": 1000, "unit": "millicores"},
                   "memory": {"requested": 0, "allocatable": GI, "unit": "bytes"}, "extended": {}}],
    }


def test_an_extended_resource_no_node_has_is_left_out():
    """Requested by a pod bound to a node without it (the API server allows nodeName): not a
    resource of the cluster."""
    state = cluster([node("n")], [pod("p", resources={"example.com/fpga": 1}, node_name="n")])
    assert extended_resources(state.snapshot) == []
    assert list(usage_json(state.snapshot)["cluster"]) == ["cpu", "memory", "pods"]
