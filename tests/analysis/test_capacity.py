"""``ruleset.analysis.capacity``: copies scheduled one by one agree with scheduling the same
copies in one ``schedule`` run (on a cluster where nobody can be preempted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleset.analysis.capacity import capacity, capacity_json, copy_pod, count_fitting
from ruleset.app import prepare_run, take_pod_file

DATA = Path(__file__).parent / "data"
CLUSTER, POD = str(DATA / "capacity-cluster.yaml"), str(DATA / "capacity-pod.yaml")


def _setup():
    framework, state = prepare_run(None, [CLUSTER], [POD], replace=True)
    pod, refused = take_pod_file(POD, state)
    assert refused is None
    return framework, state, pod


def test_counts_placements_and_the_last_failure() -> None:
    framework, state, pod = _setup()
    found = capacity(framework, pod)
    document = capacity_json(found, state.snapshot)
    assert (document["count"], document["capped"]) == (9, False)
    assert document["perNode"] == {"node-a": 4, "node-b": 4, "node-c": 1}
    assert document["perZone"] == {"z1": 8, "z2": 1}
    assert [p["pod"] for p in document["placements"]][:2] == ["default/web-capacity-1", "default/web-capacity-2"]
    last = document["lastFailure"]
    assert last["pod"] == "default/web-capacity-10"
    assert last["message"].startswith("0/3 nodes are available: 3 Insufficient cpu.")
    assert last["groups"] == [{"plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"], "nodes": 3,
                               "examples": ["node-a", "node-b", "node-c"]}]
    assert document["balance"]["nodesUsed"] == 3


@pytest.mark.parametrize(("limit", "count", "capped"), [(1, 1, True), (8, 8, True), (9, 9, True),
                                                         (10, 9, False)], ids=["1", "8", "9", "10"])
def test_max_caps_the_count(limit: int, count: int, capped: bool) -> None:
    framework, _state, pod = _setup()
    found = capacity(framework, pod, limit=limit)
    assert (found.count, found.capped) == (count, capped)


def test_count_fitting_leaves_the_snapshot_as_it_was() -> None:
    framework, state, pod = _setup()
    before = state.snapshot.pod_count.copy().tolist()
    assert count_fitting(framework, pod) == 9
    assert state.snapshot.pod_count.tolist() == before


def test_copies_are_named_and_unbound() -> None:
    _framework, _state, pod = _setup()
    copy = copy_pod(pod, 3)
    assert (copy.key, copy.node_name, copy.requests) == ("default/web-capacity-3", "", pod.requests)
    assert copy.meta.labels is not pod.meta.labels
