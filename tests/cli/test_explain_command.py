"""``ruleset explain``: text and JSON through the command line, ``--in-run`` on the bundled demo,
and input errors (exit 2, one line each, never a traceback)."""

from __future__ import annotations

import json

import pytest

from ruleset.cli import main
from tests.analysis.explain_cases import write_case


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "-o", "json")
    assert (code, err) == (0, "")
    return json.loads(out)


TAINTS_TEXT = """\
default/web fits no node: 0 of 3 nodes pass the filters
profile default  seed 0

unschedulable: 0/3 nodes are available: 3 node(s) had untolerated taint(s). preemption: 0/3 nodes
               are available: 3 Preemption is not helpful for scheduling.

rejected: 3 of 3 nodes
NODES  REJECTED BY      REASON                                                         FOR EXAMPLE
    3  TaintToleration  node(s) had untolerated taint(s)                               g-1, g-2, t-1
                        (UnschedulableAndUnresolvable)

what would make it fit (each change checked by filtering again):
  TaintToleration: tolerating dedicated=gpu:NoSchedule opens 2 nodes (the taint is on 2 rejected
                   nodes): g-1, g-2

preemption: none — preemption will not help: every node is unschedulable and unresolvable for this
            pod
"""


def test_text_of_an_unschedulable_pod_from_a_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    cluster, pod = write_case(tmp_path, "taints")
    assert run(capsys, "explain", pod, "--cluster", cluster) == (0, TAINTS_TEXT, "")


def test_the_json_document_has_stable_keys(tmp_path, capsys):
    cluster, pod = write_case(tmp_path, "anti-affinity")
    doc = as_json(capsys, "explain", pod, "--cluster", cluster)
    assert list(doc) == ["schemaVersion", "pod", "profile", "outcome", "summary", "nodes", "seed", "decision",
                         "message", "rejected", "suggestions", "blockers", "preemption", "placedOn", "inRun"]
    assert (doc["schemaVersion"], doc["pod"], doc["outcome"], doc["decision"]) == (1, "default/db-c",
                                                                                   "unschedulable", None)
    assert doc["rejected"] == [{"plugin": "InterPodAffinity", "code": "Unschedulable", "count": 3,
                                "reasons": ["node(s) didn't match pod anti-affinity rules"],
                                "examples": ["a-1", "a-2", "b-1"]}]
    assert doc["suggestions"] == [{
        "plugin": "InterPodAffinity", "reason": "node(s) didn't match pod anti-affinity rules",
        "text": "without its required pod anti-affinity the pod fits 3 nodes",
        "change": {"kind": "dropPodAntiAffinity", "terms": 1}, "nodes": 3, "examples": ["a-1", "a-2", "b-1"]}]
    assert doc["blockers"] == [{"node": "a-1", "pods": ["default/db-a"]}, {"node": "a-2", "pods": ["default/db-a"]},
                               {"node": "b-1", "pods": ["default/db-b"]}]


def test_a_pod_of_the_demo_by_name_names_its_decision(capsys):
    doc = as_json(capsys, "explain", "shop/postgres-2")
    d = doc["decision"]
    assert doc["summary"] == "shop/postgres-2 → node cpu-c-0: rank 1 of 4 feasible nodes, 1 point ahead of cpu-c-1"
    assert (d["node"], d["runnerUp"], d["margin"], d["decisivePlugin"], d["decisiveDifference"]) == \
        ("cpu-c-0", "cpu-c-1", 1, "ImageLocality", 1)
    assert [(n["node"], n["total"]) for n in d["top"]] == [("cpu-c-0", 612), ("cpu-c-1", 611), ("cpu-a-1", 561),
                                                          ("cpu-b-1", 561)]
    assert list(d["top"][0]["scores"][0]) == ["plugin", "weight", "raw", "score", "weighted"]


def test_top_limits_the_nodes_shown(capsys):
    doc = as_json(capsys, "explain", "shop/web-7d9f8c6b5-p0", "--top", "2")
    assert [n["node"] for n in doc["decision"]["top"]] == ["gp-c-4", "gp-c-2"]
    assert doc["decision"]["tie"] == {"nodes": ["gp-c-4", "gp-c-2"], "seed": 0, "chosen": "gp-c-4"}


def test_a_placed_pod_is_explained_as_if_pending(capsys):
    doc = as_json(capsys, "explain", "batch/crunch-6b8d-17z")
    assert (doc["placedOn"], doc["decision"]["node"], doc["inRun"]) == ("cpu-c-1", "cpu-c-1", None)


@pytest.mark.parametrize(("pod", "node", "attempt", "settled", "events"), [
    # The sixth pod to settle; nothing happened to it before.
    ("shop/api-5c4d7f-p1", "gp-c-3", 1, 6, []),
    # A tie drawn as the run drew it: the replayed scheduler's RNG has drawn web-p0's tie already.
    ("shop/web-7d9f8c6b5-p1", "gp-b-4", 1, 3, []),
    # Its first cycle found no room and preempted; the explained cycle is the second, where it lands.
    ("shop/payments-9f7c-p0", "cpu-c-1", 2, 0,
     [{"type": "unschedulable", "node": None, "attempt": 1},
      {"type": "preemption", "node": "cpu-c-1", "attempt": 1, "victims": ["batch/crunch-6b8d-17z"]}]),
], ids=["api", "tie", "payments-after-preemption"])
def test_in_run_explains_the_deciding_cycle_of_the_demos_schedule_run(capsys, pod, node, attempt, settled,
                                                                      events):
    doc = as_json(capsys, "explain", pod, "--in-run")
    placed = {p["pod"]: p["node"] for p in as_json(capsys, "schedule")["placements"]}
    assert (doc["decision"]["node"], placed[pod]) == (node, node)
    assert doc["inRun"] == {"attempt": attempt, "settledBefore": settled, "pending": 10, "node": node,
                            "events": events}


def test_in_run_differs_from_a_fresh_cycle_where_earlier_placements_matter(capsys):
    """A fresh cycle of shop/web-7d9f8c6b5-p2 sees none of the pods the run placed before it: a tie
    there, a clear winner in the run."""
    fresh = as_json(capsys, "explain", "shop/web-7d9f8c6b5-p2")
    replayed = as_json(capsys, "explain", "shop/web-7d9f8c6b5-p2", "--in-run")
    assert fresh["summary"] == ("shop/web-7d9f8c6b5-p2 → node gp-c-4: rank 1 of 22 feasible nodes, tied at 688 "
                                "points with 1 other node, drawn with seed 0")
    assert replayed["summary"] == ("shop/web-7d9f8c6b5-p2 → node gp-c-2: rank 1 of 21 feasible nodes, 2 points "
                                   "ahead of gp-c-3")


def test_in_run_sees_the_volumes_the_run_bound_before_the_pod(capsys):
    """The storage docs' StatefulSet (tests/e2e/storage): web-0 and web-1 took the two local PVs, so
    in the run web-2's claim finds none; a fresh cycle would still see both free."""
    storage = "tests/e2e/storage"
    doc = as_json(capsys, "explain", "default/web-2", "--cluster", f"{storage}/local-pvs.yaml",
                  "--pods", f"{storage}/web.yaml", "--in-run")
    assert [(g["plugin"], g["reasons"], g["count"]) for g in doc["rejected"]] == [
        ("VolumeBinding", ["node(s) didn't find available persistent volumes to bind"], 3)]
    assert [(s["text"], s["change"]) for s in doc["suggestions"]] == [(
        "volume www (claim default/www-web-2, unbound, class local-storage; its class has 2 PersistentVolumes, "
        "2 bound to other claims): without it the pod fits 3 nodes",
        {"kind": "dropVolume", "volume": "www", "claim": "www-web-2", "persistentVolume": ""})]
    assert doc["inRun"]["settledBefore"] == 2


@pytest.mark.parametrize(("argv", "error"), [
    (["nope"], "error: nope: expected NAMESPACE/NAME of a pod of the cluster, or a pod file"),
    (["shop/nope"], "error: shop/nope: no pod shop/nope in the cluster (pending or placed)"),
    (["batch/crunch-6b8d-17z", "--in-run"],
     "error: batch/crunch-6b8d-17z: --in-run explains a pending pod: this is none of the cluster's pending pods"),
    (["shop/postgres-2", "--top", "0"], "error: --top 0: --top: expected a positive number"),
], ids=["not-a-key", "unknown", "in-run-placed", "top-0"])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, error):
    assert run(capsys, "explain", *argv) == (2, "", error + "\n")
