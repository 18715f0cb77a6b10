"""``--report FILE.html`` on ``explain``, ``compare`` and ``capacity`` (the demo cluster and the
default profile): each page's sections and table sizes, nothing external, stdout unchanged,
``--force``; and the blocks of hand-written documents for the cases the demo does not reach."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from ruleset.cli import main
from ruleset.report.capacity import capacity_blocks
from ruleset.report.compare import compare_blocks
from ruleset.report.explain import explain_blocks

needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                      reason="matplotlib is not installed (pip install 'ruleset[report]')")

# The README's capacity example: 2 cpu, 4Gi.
WEB_POD = """apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers:
  - name: web
    image: nginx
    resources: {requests: {cpu: "2", memory: 4Gi}}
"""
POD_FILE = "web-pod.yaml"  # written into the test's folder; arguments name it as this placeholder

# (case, arguments, section headings, rows of each table in page order, figures)
PAGES = [
    ("explain unschedulable", ["explain", "shop/payments-9f7c-p0"],
     ["Rejected nodes (24 of 24)", "What would make it fit", "Preemption"], [5, 4], 0),
    ("explain scheduled", ["explain", "shop/postgres-2"], ["Weighted scores on the top 4 nodes"], [], 1),
    ("explain in-run, --top 2", ["explain", "shop/web-7d9f8c6b5-p2", "--in-run", "--top", "2"],
     ["Weighted scores on the top 2 nodes"], [], 1),
    ("compare", ["compare", "--profile", "default-1.20", "--profile", "cluster-autoscaler"],
     ["Sides", "Placements that differ (5)", "Scheduled by one side only (0)", "Metrics",
      "Placed pods per zone", "CPU utilisation per node"], [5, 11], 2),
    ("capacity", ["capacity", "--pod", POD_FILE, "--max", "100"],
     ["Copies per zone", "Copies per node", "Why shop/web-capacity-34 does not fit"], [4], 2),
    ("capacity capped", ["capacity", "--pod", POD_FILE, "--max", "5"],
     ["Copies per zone", "Copies per node", "No failure"], [], 2),
]


def _argv(args: list[str], folder: Path) -> list[str]:
    (folder / POD_FILE).write_text(WEB_POD)
    return [str(folder / POD_FILE) if a == POD_FILE else a for a in args]


def _tables(page: str) -> list[int]:
    return [body.count("<tr>") for body in re.findall(r"<tbody>(.*?)</tbody>", page, re.DOTALL)]


@needs_matplotlib
@pytest.mark.parametrize(("args", "headings", "rows", "figures"), [p[1:] for p in PAGES],
                         ids=[p[0] for p in PAGES])
def test_page(tmp_path, capsys, args, headings, rows, figures):
    argv = [*_argv(args, tmp_path), "-o", "json"]
    assert main(argv) == 0
    plain = capsys.readouterr().out
    target = tmp_path / "r.html"
    assert main([*argv, "--report", str(target)]) == 0
    assert capsys.readouterr().out == plain  # the report changes nothing the command prints
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert re.findall(r"<h2>(.*?)</h2>", page) == headings
    assert _tables(page) == rows
    assert page.count("<svg") == figures
    for forbidden in ("http://", "https://", "<script src", "<link", "@import"):
        assert forbidden not in page, forbidden
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["r.html", POD_FILE])


# (case, arguments, --force, expected exit)
FORCE = [(f"{p[0]} {'with' if force else 'without'} --force", p[1], force, 0 if force else 2)
         for p in PAGES if p[0] in ("explain unschedulable", "compare", "capacity") for force in (False, True)]


@needs_matplotlib
@pytest.mark.parametrize(("args", "force", "code"), [f[1:] for f in FORCE], ids=[f[0] for f in FORCE])
def test_force(tmp_path, capsys, args, force, code):
    target = tmp_path / "r.html"
    target.write_text("old")
    argv = [*_argv(args, tmp_path), "--report", str(target), *(["--force"] if force else [])]
    assert main(argv) == code
    captured = capsys.readouterr()
    if code == 2:  # refused before any work: nothing printed, the file untouched
        assert captured.out == ""
        assert f"{target}: already exists; pass --force to overwrite" in captured.err
        assert "Traceback" not in captured.err
        assert target.read_text() == "old"
    else:
        assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["r.html", POD_FILE])


def test_compare_json_has_cpu_per_node(capsys):
    assert main(["compare", "--profile", "default-1.20", "--profile", "cluster-autoscaler", "-o", "json"]) == 0
    sides = json.loads(capsys.readouterr().out)["sides"]
    assert [len(s["cpuPerNode"]) for s in sides] == [24, 24]
    assert [sides[0]["cpuPerNode"][n] for n in ("gp-a-0", "gp-a-1", "cpu-c-1", "gp-c-cordoned")] == \
        [25.0, 37.5, 100.0, 0.0]


def _headings(blocks: list[dict]) -> list[str]:
    return [b["text"] for b in blocks if b["type"] == "heading"]


def _texts(blocks: list[dict]) -> list[str]:
    return [b["text"] for b in blocks if b["type"] == "text"]


EXPLAIN = {"pod": "ns/p", "profile": "x", "outcome": "unschedulable", "summary": "s", "nodes": 2, "seed": 0,
           "decision": None, "message": "0/2 nodes are available", "rejected": [], "suggestions": [],
           "blockers": [], "preemption": None, "placedOn": None, "inRun": None}
SIDE = {"label": "a", "profile": "a", "kubernetesVersion": "1.34", "pods": 1, "scheduled": 1, "unschedulable": 0,
        "preemptions": 0, "evictions": 0, "largestPendingPod": None, "fragmentation": None,
        "balance": {"nodesUsed": 1, "nodes": 1, "placedPerZone": {"": 1}}}
COMPARE = {"sides": [SIDE, {**SIDE, "label": "b"}], "placementsDiffer": [],
           "onlyScheduledBy": [{"pod": "ns/p", "scheduledBy": "a", "node": "n", "otherReason": "r"}],
           "metrics": [{"metric": "placements", "values": None, "difference": 1, "tolerance": 1, "exceeds": False},
                       {"metric": "nodesUsed", "values": [1, 1], "difference": 0, "tolerance": 0,
                        "exceeds": False},
                       {"metric": "cpu.range", "values": [1.0, 5.0], "difference": 4.0, "tolerance": 0,
                        "exceeds": True}],
           "differs": True}
CAPACITY = {"profile": "x", "pod": "ns/p", "count": 0, "limit": 1000, "capped": False, "perNode": {},
            "perZone": {}, "placements": [], "balance": {"nodesUsed": 0, "nodes": 1},
            "lastFailure": {"pod": "ns/p-capacity-1", "message": "0/1 nodes are available", "groups": [],
                            "preemption": {"node": "n", "victims": ["ns/v"]}}}

# (case, blocks, expected headings, expected paragraphs)
DOCUMENTS = [
    ("explain: no PostFilter plugin, no suggestion", explain_blocks(EXPLAIN),
     ["Rejected nodes (0 of 2)", "What would make it fit", "Preemption"],
     ["0/2 nodes are available", "No single change to the pod was found to admit a node.",
      "Not attempted: the profile has no PostFilter plugin."]),
    ("explain: preemption finds no node",
     explain_blocks({**EXPLAIN, "preemption": {"candidates": [], "nominatedNode": None, "reason": ""}}),
     ["Rejected nodes (0 of 2)", "What would make it fit", "Preemption"],
     ["0/2 nodes are available", "No single change to the pod was found to admit a node.",
      "None: no node where evicting pods would help."]),
    ("explain: refused", explain_blocks({**EXPLAIN, "outcome": "refused", "message": "bad"}), [], ["bad"]),
    ("compare: one-sided pod, no cpuPerNode", compare_blocks(COMPARE),
     ["Sides", "Placements that differ (0)", "Scheduled by one side only (1)", "Metrics", "Placed pods per zone"],
     ["Every pod both sides scheduled landed on the same node."]),
    ("capacity: nothing fits, no zone", capacity_blocks(CAPACITY), ["Why ns/p-capacity-1 does not fit"],
     ["0/1 nodes are available"]),
]


@pytest.mark.parametrize(("blocks", "headings", "texts"), [d[1:] for d in DOCUMENTS], ids=[d[0] for d in DOCUMENTS])
def test_blocks_of_documents(blocks, headings, texts):
    assert _headings(blocks) == headings
    assert _texts(blocks) == texts


def test_compare_metric_verdicts_and_zone_label():
    blocks = compare_blocks(COMPARE)
    metrics = next(b for b in blocks if b["type"] == "table" and b["columns"][0] == "metric")
    assert [row[-1] for row in metrics["rows"]] == ["within tolerance", "same", "differs"]
    assert metrics["rows"][0][1:3] == [None, None]  # placements has no per-side values
    chart = next(b for b in blocks if b["type"] == "chart")
    assert (chart["categories"], chart["series"]) == (["(no zone)"], [{"name": "a", "values": [1]},
                                                                      {"name": "b", "values": [1]}])


def test_capacity_preemption_facts():
    facts = [b for b in capacity_blocks(CAPACITY) if b["type"] == "facts"]
    assert facts[-1]["items"] == [["preemption would nominate", "n"],
                                  ["evicting (not evicted: capacity preempts nobody)", "ns/v"]]
