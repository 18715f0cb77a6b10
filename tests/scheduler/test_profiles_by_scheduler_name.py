"""Several profiles in one run, as kube-scheduler runs them: each pending pod goes to the
profile serving its ``spec.schedulerName``; pods asking for a scheduler no profile serves are
left alone and reported; two profiles serving one name, or with different QueueSort plugins,
are errors (v1.20 ``ValidateKubeSchedulerConfiguration``: ``Duplicate value`` and
``validateCommonQueueSort``'s "has to match for all profiles")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ruleset.cli import main

CLUSTER = """\
kind: List
items:
- kind: Node
  metadata: {name: empty}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Node
  metadata: {name: busy}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Pod
  metadata: {name: running, namespace: d}
  spec: {nodeName: busy, containers: [{name: c, resources: {requests: {cpu: "2", memory: 4Gi}}}]}
- kind: Pod
  metadata: {name: spreads, namespace: d, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec: {containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
- kind: Pod
  metadata: {name: packs, namespace: d, creationTimestamp: "2026-01-01T00:00:01Z"}
  spec: {schedulerName: bin-packer, containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
- kind: Pod
  metadata: {name: elsewhere, namespace: d, creationTimestamp: "2026-01-01T00:00:02Z"}
  spec: {schedulerName: gpu-scheduler, containers: [{name: c}]}
"""

BIN_PACKER = """\
name = "bin-packer"
schedulerName = "bin-packer"
extends = "default-1.20"

[plugins.NodeResourcesLeastAllocated]
enabled = false

[plugins.NodeResourcesMostAllocated]
weight = 1
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "c.yaml").write_text(CLUSTER)
    (tmp_path / "packer.toml").write_text(BIN_PACKER)
    return {"cluster": str(tmp_path / "c.yaml"), "packer": str(tmp_path / "packer.toml")}


def test_each_pod_goes_to_the_profile_serving_its_scheduler_name(files, capsys):
    code = main(["schedule", "--cluster", files["cluster"], "--profile", "default-1.20", "--profile", files["packer"],
                 "-o", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["profile"] == "default-1.20"
    assert data["profiles"] == ["default-1.20", "bin-packer"]
    placements = [{k: v for k, v in p.items() if k != "score"} for p in data["placements"]]
    assert placements == [
        {"pod": "d/elsewhere", "node": None, "reason": "no profile serves schedulerName 'gpu-scheduler'",
         "unserved": True, "schedulerName": "gpu-scheduler"},
        # LeastAllocated spreads onto the empty node; MostAllocated packs onto the busy one.
        {"pod": "d/spreads", "node": "empty", "profile": "default-1.20"},
        {"pod": "d/packs", "node": "busy", "profile": "bin-packer"},
    ]
    assert [e["type"] for e in data["events"]] == ["unserved", "scheduled", "scheduled"]


def test_one_profile_leaves_the_other_schedulers_pods_alone(files, capsys):
    code = main(["schedule", "--cluster", files["cluster"], "--profile", "default-1.20", "-o", "json",
                 "--fail-on-unschedulable"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert {p["pod"]: p["node"] for p in data["placements"]} == {
        "d/elsewhere": None, "d/packs": None, "d/spreads": "empty"}
    assert [p["reason"] for p in data["placements"] if p["node"] is None] == [
        "no profile serves schedulerName 'bin-packer'", "no profile serves schedulerName 'gpu-scheduler'"]


def test_two_profiles_serving_one_name_are_an_error(files, capsys):
    code = main(["schedule", "--cluster", files["cluster"], "--profile", "default-1.20", "--profile",
                 "default-1.20"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith("error: ")
    assert "Duplicate value: \"default-scheduler\"" in err


FIFO_SORT = """\
from ruleset import Plugin, hookimpl


class FifoSort(Plugin):
    name = "FifoSort"

    @hookimpl
    def ruleset_queue_sort(self, a, b):
        return a.timestamp < b.timestamp


@hookimpl
def ruleset_register_plugins(register):
    register(FifoSort)
"""


def test_queue_sort_plugins_must_match(files, tmp_path, capsys):
    other = tmp_path / "other.toml"
    other.write_text('name = "other"\nschedulerName = "other"\n\n[plugins.FifoSort]\n')
    (tmp_path / "fifo_sort.py").write_text(FIFO_SORT)
    code = main(["schedule", "--plugin", str(tmp_path / "fifo_sort.py"), "--cluster", files["cluster"],
                 "--profile", "default-1.20", "--profile", str(other)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == (f"error: {other}: profiles[1].plugins.queueSort: Invalid value: 'FifoSort': has to "
                   "match for all profiles (profile 'default-1.20' uses 'PrioritySort')\n")
