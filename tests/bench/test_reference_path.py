"""The bench suite's placements never depend on how fast they are found.

Every workload of ``bench/workloads.py`` (shaped like kube-scheduler's
``test/integration/scheduler_perf/config/performance-config.yaml``) runs at its "tiny" size
twice: with the bundled ``default`` profile as ``bench/run.py`` times it, and on the
reference path: the same profile with ``percentageOfNodesToScore = 100``, and every what-if
(preemption's dry runs, the nominated-pods check) node by node, as upstream runs them
(:func:`ruleset.framework.dependence.reference_path`). Below 100 nodes
``numFeasibleNodesToFind`` already returns every node, so the two must place every pod on
the same node and preempt the same victims: a fast path that changed a result would show
here. Each run's outcome is pinned too, so a workload that stopped doing what its name says
(no preemption, nothing scheduled) fails.

The snapshot-load workloads are checked by loading one cluster written as JSON and as YAML
and comparing what was read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import workloads
from ruleset.framework.dependence import reference_path
from ruleset.manifests import load_manifests

TINY = {w.name: w for w in workloads.suite("tiny")}
SCHEDULING = [w for w in TINY.values() if w.kind == "schedule"]

#: name -> (placements reported, measured pods placed, preemptions, distinct nodes used).
EXPECTED = {
    "SchedulingBasic/500Nodes": (30, 30, 0, 30),
    "SchedulingPodAffinity": (30, 30, 0, 24),
    "SchedulingPodAntiAffinity": (30, 30, 0, 30),
    # weight-1 preferred affinity to the pods' own colour: InterPodAffinity's normalised score
    # outweighs LeastAllocated, so every measured pod joins the first one.
    "SchedulingPreferredPodAffinity": (30, 30, 0, 1),
    "SchedulingPreferredPodAntiAffinity": (30, 30, 0, 24),
    "SchedulingNodeAffinity": (30, 30, 0, 24),
    "TopologySpreading": (30, 30, 0, 30),
    "PreemptionBasic/500Nodes": (20, 20, 20, 20),
    # the 20 large pods are reported too, unschedulable.
    "Unschedulable": (50, 30, 0, 30),
    "SchedulingLocalVolumes": (30, 30, 0, 30),
}


@pytest.fixture(scope="module")
def every_node_profile(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(workloads.profile_file(tmp_path_factory.mktemp("profile")))


def test_every_family_has_a_tiny_size() -> None:
    families = {w.name.split("/")[0] for w in workloads.suite("full")}
    assert {name.split("/")[0] for name in TINY} == families
    assert set(EXPECTED) == {w.name for w in SCHEDULING}


@pytest.mark.parametrize("workload", SCHEDULING, ids=[w.name for w in SCHEDULING])
def test_reference_path_places_the_same(workload: workloads.Workload, every_node_profile: str) -> None:
    assert workload.nodes <= 50 and workload.measure_pods <= 30
    normal = workloads.run_schedule(workload)
    with reference_path():
        reference = workloads.run_schedule(workload, every_node_profile)
    assert normal.placements == reference.placements
    assert normal.preemptions == reference.preemptions
    measured = sum(1 for pod, node in normal.placements if node is not None and "/measured-" in pod)
    used = len({node for _, node in normal.placements if node is not None})
    assert (len(normal.placements), measured, len(normal.preemptions), used) == EXPECTED[workload.name]


def _read(path: Path) -> tuple[list[str], list[tuple[str, str, dict[str, int]]]]:
    cluster = load_manifests([path])
    return ([n.name for n in cluster.nodes],
            [(p.key, p.node_name, p.requests) for p in cluster.pods])


def test_snapshot_load_reads_json_and_yaml_alike(tmp_path: Path) -> None:
    json_path, yaml_path = tmp_path / "snapshot.json", tmp_path / "snapshot.yaml"
    workloads.write_snapshot(TINY["SnapshotLoad/JSON"], json_path)
    workloads.write_snapshot(TINY["SnapshotLoad/YAML"], yaml_path)
    nodes, pods = _read(json_path)
    assert (nodes, pods) == _read(yaml_path)
    assert (len(nodes), len(pods)) == (40, 100)
    assert pods[41] == ("default/init-00041", "node-00001", {"cpu": 100, "memory": 524_288_000})
