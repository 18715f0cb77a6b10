"""``ruleset schedule``: placements in queue order, utilisation, JSON contract."""

import json

from ruleset.cli import main

CLUSTER = """\
kind: List
items:
- kind: Node
  metadata: {name: small}
  status: {allocatable: {cpu: "1", memory: 2Gi, pods: "110"}}
- kind: Node
  metadata: {name: big}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Pod
  metadata: {name: low, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec: {priority: 1, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}
- kind: Pod
  metadata: {name: high, namespace: default, creationTimestamp: "2026-01-01T00:00:05Z"}
  spec: {priority: 100, containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
- kind: Pod
  metadata: {name: huge, namespace: default}
  spec: {priority: 1, containers: [{name: c, resources: {requests: {cpu: "64"}}}]}
- kind: Pod
  metadata: {name: running, namespace: default}
  spec: {nodeName: small, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
"""


def test_json(tmp_path, capsys):
    (tmp_path / "c.yaml").write_text(CLUSTER)
    code = main(["schedule", "--cluster", str(tmp_path / "c.yaml"), "-o", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["schemaVersion"] == 1
    assert data["profile"] == "default"
    # Higher priority first; equal priority by creation time (huge has none: the API server
    # creates it now, after low). Only
    # "big" fits "high", and upstream skips scoring when a single node fits: no score.
    # Pods that never fit are reported last, once nothing else could wake them up.
    assert data["placements"] == [
        {"pod": "default/high", "node": "big", "score": None},
        {"pod": "default/low", "node": "big", "score": None},
        # The bundled default is 1.35's: from 1.24 the message says why preemption did not help.
        {"pod": "default/huge", "node": None,
         "reason": "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: "
                   "2 Preemption is not helpful for scheduling."},
    ]
    assert data["nodes"] == [
        {"name": "small", "pods": {"count": 1, "allocatable": 110},
         "cpu": {"requested": 100, "allocatable": 1000, "unit": "millicores"},
         "memory": {"requested": 0, "allocatable": 2 * 1024**3, "unit": "bytes"}},
        {"name": "big", "pods": {"count": 2, "allocatable": 110},
         "cpu": {"requested": 4000, "allocatable": 4000, "unit": "millicores"},
         "memory": {"requested": 1024**3, "allocatable": 8 * 1024**3, "unit": "bytes"}},
    ]
    assert [e["type"] for e in data["events"]] == ["scheduled", "scheduled", "unschedulable"]


def test_fail_on_unschedulable(tmp_path, capsys):
    (tmp_path / "c.yaml").write_text(CLUSTER)
    assert main(["schedule", "--cluster", str(tmp_path / "c.yaml"), "--fail-on-unschedulable"]) == 1
    assert "scheduled 2, unschedulable 1" in capsys.readouterr().out


def test_bundled_demo_runs(capsys):
    assert main(["schedule", "-o", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["nodes"]) == 24
    assert len(data["placements"]) == 10


def _preemptions(capsys, *more):
    assert main(["schedule", "-o", "json", *more]) == 0
    return [e for e in json.loads(capsys.readouterr().out)["events"] if e["type"] == "preemption"]


def test_preemption_events_count_candidates_and_list_them_under_verbose(capsys):
    """Each preemption says how many candidate nodes there were; only --verbose lists them (a
    long run's output would otherwise carry every candidate of every preemption)."""
    plain = _preemptions(capsys)
    assert [(e["pod"], e["node"], e["victims"], e["candidateCount"], "candidates" in e) for e in plain] == [
        ("shop/payments-9f7c-p0", "cpu-c-1", ["batch/crunch-6b8d-17z"], 6, False),
        ("shop/payments-9f7c-p1", "cpu-c-1", ["batch/crunch-6b8d-16z"], 6, False),
    ]
    verbose = _preemptions(capsys, "--verbose")
    assert [{k: v for k, v in e.items() if k != "candidates"} for e in verbose] == plain
    assert [len(e["candidates"]) for e in verbose] == [6, 6]
    assert verbose[0]["candidates"][0] == {"node": "cpu-a-0", "victims": ["batch/crunch-6b8d-02z"],
                                           "pdbViolations": 0}


def test_reference_path_environment_variable_gives_the_same_schedule():
    """RULESET_REFERENCE_PATH=1 runs every what-if node by node: the demo's output is unchanged."""
    import os
    import subprocess
    import sys

    def run(**env):
        done = subprocess.run([sys.executable, "-m", "ruleset", "schedule", "-o", "json", "--verbose"],
                              capture_output=True, text=True, env={**os.environ, **env}, check=True)
        return json.loads(done.stdout)

    fast, reference = run(), run(RULESET_REFERENCE_PATH="1")
    assert fast == reference
    assert sum(1 for e in fast["events"] if e["type"] == "preemption") == 2
