"""Coscheduling through ruleset's command line, as a user runs it once the package is installed.

Covers: the demo (a complete gang binds, an incomplete one is rejected and its room
freed); PreFilter's sibling check (scheduler-plugins v0.19 message); the annotation and
``defaultMinAvailable``; QueueSort keeping a group together; args validation. Needs the
package installed (its entry point is how ruleset finds the plugin).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruleset_coscheduling import MIN_AVAILABLE_ANNOTATION, POD_GROUP_LABEL, Coscheduling

from ruleset.cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "example"

PROFILE = """\
name = "gang"

[plugins.Coscheduling]
args = {args}

[plugins.NodeResourcesFit]
"""


def node(name: str, cpu: str = "4") -> dict:
    alloc = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": alloc, "capacity": alloc}}


def pod(name: str, group: str | None = None, min_available: str | None = None, cpu: str = "1",
        created: str | None = None) -> dict:
    meta: dict = {"name": name, "namespace": "ml"}
    if created is not None:
        meta["creationTimestamp"] = created
    if group:
        meta["labels"] = {POD_GROUP_LABEL: group}
    if min_available is not None:
        meta["annotations"] = {MIN_AVAILABLE_ANNOTATION: min_available}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}


def schedule(capsys, profile: Path, cluster: Path) -> dict:
    code = main(["schedule", "--profile", str(profile), "--cluster", str(cluster), "--output", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def run(tmp_path: Path, capsys, objects: list[dict], args: str = "{}") -> dict:
    profile = tmp_path / "profile.toml"
    profile.write_text(PROFILE.format(args=args), encoding="utf-8")
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}), encoding="utf-8")
    return schedule(capsys, profile, cluster)


def outcomes(report: dict) -> list[tuple[str, str | None]]:
    return [(p["pod"], p["node"] or p["reason"]) for p in report["placements"]]


def test_the_demo_binds_the_complete_gang_and_rejects_the_incomplete_one(capsys):
    report = schedule(capsys, EXAMPLE / "profile.toml", EXAMPLE / "cluster.yaml")
    rejected = 'rejected while waiting on permit: pod group "eval" has 2 of 3 pods ready'
    assert outcomes(report) == [
        ("ml/train-2", "n2"),
        ("ml/train-0", "n2"),
        ("ml/train-1", "n1"),
        ("ml/eval-1", f'pod "eval-1" {rejected}'),
        ("ml/eval-0", f'pod "eval-0" {rejected}'),
        ("ml/report", "n1"),  # did not fit while eval-0 and eval-1 held their room
        ("ml/eval-2", "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity."),
    ]
    assert [(e["type"], e["pod"]) for e in report["events"][:5]] == [
        ("waiting", "ml/train-0"), ("waiting", "ml/train-1"), ("scheduled", "ml/train-2"),
        ("scheduled", "ml/train-0"), ("scheduled", "ml/train-1")]
    assert [n["cpu"]["requested"] for n in report["nodes"]] == [3000, 2000]


@pytest.mark.parametrize("objects, args, expected", [
    ([node("n1"), pod("a", "g", "3"), pod("b", "g", "3")], "{}", [
        ("ml/a", "0/1 nodes are available: 1 pre-filter pod a cannot find enough sibling pods, "
                 "current pods number: 2, minMember of group: 3."),
        ("ml/b", "0/1 nodes are available: 1 pre-filter pod b cannot find enough sibling pods, "
                 "current pods number: 2, minMember of group: 3."),
    ]),
    ([node("n1"), pod("a", "g"), pod("b", "g")], "{ defaultMinAvailable = 2 }",
     [("ml/b", "n1"), ("ml/a", "n1")]),
    ([node("n1"), pod("a", "g"), pod("b", "g")], "{}", [("ml/a", "n1"), ("ml/b", "n1")]),
    ([node("n1"), pod("a", "g", "two")], "{}", [
        ("ml/a", '0/1 nodes are available: 1 annotation pod-group.scheduling.sigs.k8s.io/min-available '
                 'must be an integer of at least 1, got "two".')]),
    # a waits holding the node; b does not fit; a times out, b (woken by the room a freed) waits, times out.
    ([node("n1", cpu="2"), pod("a", "g", "2", cpu="2"), pod("b", "g", "2", cpu="2")], "{}", [
        ("ml/a", 'pod "a" rejected while waiting on permit: pod group "g" has 1 of 2 pods ready'),
        ("ml/b", 'pod "b" rejected while waiting on permit: pod group "g" has 1 of 2 pods ready')]),
], ids=["too-few-pods-in-the-group", "arg-default-makes-a-gang", "default-of-one-schedules-alone",
        "bad-annotation", "no-room-for-the-second"])
def test_groups(tmp_path, capsys, objects, args, expected):
    assert outcomes(run(tmp_path, capsys, objects, args)) == expected


def test_queue_sort_keeps_a_group_together_and_puts_pods_of_no_group_first(tmp_path, capsys):
    # One creation time for all (else the API server's stamps, in input order, would decide).
    at = "2026-01-01T00:00:00Z"
    objects = [node("n1", cpu="16"), pod("g2-a", "g2", "2", created=at), pod("g1-a", "g1", "2", created=at),
               pod("solo", created=at), pod("g2-b", "g2", "2", created=at),
               pod("g1-b", "g1", "2", created=at)]
    report = run(tmp_path, capsys, objects)
    assert [(e["type"], e["pod"]) for e in report["events"]] == [
        ("scheduled", "ml/solo"),
        ("waiting", "ml/g1-a"), ("scheduled", "ml/g1-b"), ("scheduled", "ml/g1-a"),
        ("waiting", "ml/g2-a"), ("scheduled", "ml/g2-b"), ("scheduled", "ml/g2-a"),
    ]


@pytest.mark.parametrize("raw, errors", [
    ({}, []),
    ({"defaultMinAvailable": 3, "permitWaitingTimeSeconds": 10}, []),
    ({"defaultMinAvailable": 0},
     [(("defaultMinAvailable",), "defaultMinAvailable must be at least 1, got 0")]),
    ({"permitWaitingTimeSeconds": -1},
     [(("permitWaitingTimeSeconds",), "permitWaitingTimeSeconds must not be negative, got -1")]),
], ids=["defaults", "valid", "min-available-zero", "negative-timeout"])
def test_args_validation(raw, errors):
    _, problems = Coscheduling.check_args(raw)
    assert [(p.path, p.message) for p in problems] == errors


def test_a_bad_arg_is_located_in_the_profile(tmp_path, capsys):
    profile = tmp_path / "gang.toml"
    profile.write_text(PROFILE.format(args='{ defaultMinAvailable = "3" }'), encoding="utf-8")
    assert main(["validate", str(profile)]) == 1
    assert "plugins.Coscheduling.args.defaultMinAvailable" in capsys.readouterr().out
