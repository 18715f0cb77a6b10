"""``--report FILE.html``: score records, page assembly, size and self-containment at 1,000
nodes, ``--force`` and the all-or-nothing write."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from ruleset.cli import main
from ruleset.framework.runtime import ScoreTable
from ruleset.report.html import render_page
from ruleset.report.record import ScoreRecorder
from ruleset.report.schedule import schedule_report
from ruleset.scheduler.cycle import ScheduleResult

# Drawing needs the optional extra; the records, the page's text and the missing-extra error do not.
needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                      reason="matplotlib is not installed (pip install 'ruleset[report]')")

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _cycle(pod: str, node: str | None, feasible: list[int], normalized: dict[str, list[int]],
           weights: dict[str, int]) -> tuple[SimpleNamespace, ScheduleResult]:
    plugins = list(normalized)
    arrays = [np.array(normalized[p], dtype=np.int64) for p in plugins]
    total = sum((a * weights[p] for p, a in zip(plugins, arrays, strict=True)), np.zeros(len(feasible), dtype=np.int64))
    table = ScoreTable(plugins=plugins, weights=[weights[p] for p in plugins], raw=arrays, normalized=arrays,
                       total=total) if plugins else None
    result = ScheduleResult(pod=None, node=node, feasible=np.array(feasible, dtype=np.intp),  # type: ignore[arg-type]
                            scores=table)
    return SimpleNamespace(key=pod), result


# (case, cycles, expected nodes, expected pods)
RECORDS = [
    ("two cycles on two of three nodes",
     [("ns/a", "n1", [0, 1], {"Fit": [10, 40], "Spread": [100, 0]}, {"Fit": 1, "Spread": 2}),
      ("ns/b", "n0", [1, 0], {"Fit": [20, 50], "Spread": [0, 100]}, {"Fit": 1, "Spread": 2})],
     [{"name": "n0", "chosen": 1, "scored": 2, "mean": [30.0, 200.0]},
      {"name": "n1", "chosen": 1, "scored": 2, "mean": [30.0, 0.0]},
      {"name": "n2", "chosen": 0, "scored": 0, "mean": [None, None]}],
     {"ns/a": {"node": "n1", "weighted": {"Fit": 40, "Spread": 0}, "margin": -170},
      "ns/b": {"node": "n0", "weighted": {"Fit": 50, "Spread": 200}, "margin": 230}}),
    ("single feasible node: chosen, not scored",
     [("ns/a", "n2", [2], {}, {})],
     [{"name": "n0", "chosen": 0, "scored": 0, "mean": []},
      {"name": "n1", "chosen": 0, "scored": 0, "mean": []},
      {"name": "n2", "chosen": 1, "scored": 0, "mean": []}],
     {"ns/a": {"node": "n2", "weighted": {}, "margin": None}}),
    ("unschedulable cycle adds nothing",
     [("ns/a", None, [], {}, {})],
     [{"name": n, "chosen": 0, "scored": 0, "mean": []} for n in ("n0", "n1", "n2")],
     {}),
]


@pytest.mark.parametrize(("cycles", "nodes", "pods"), [c[1:] for c in RECORDS], ids=[c[0] for c in RECORDS])
def test_score_recorder(cycles, nodes, pods):
    recorder = ScoreRecorder(["n0", "n1", "n2"])
    for cycle in cycles:
        recorder(*_cycle(*cycle))
    out = recorder.to_json()
    assert out["nodes"] == nodes
    assert out["pods"] == pods


def test_recorder_plugin_columns_follow_first_seen_order():
    recorder = ScoreRecorder(["n0", "n1"])
    recorder(*_cycle("ns/a", "n0", [0, 1], {"B": [1, 2]}, {"B": 3}))
    recorder(*_cycle("ns/b", "n0", [0, 1], {"A": [5, 5], "B": [3, 4]}, {"A": 1, "B": 3}))
    out = recorder.to_json()
    assert out["plugins"] == [{"name": "B", "weight": 3}, {"name": "A", "weight": 1}]
    assert [n["mean"] for n in out["nodes"]] == [[6.0, 5.0], [9.0, 5.0]]


# (case, block, expected fragment of the page)
BLOCKS = [
    ("text is escaped", {"type": "text", "text": "<b>&</b>"}, "<p>&lt;b&gt;&amp;&lt;/b&gt;</p>"),
    ("numeric cell keeps its value to sort by",
     {"type": "table", "columns": ["n"], "rows": [[1234]], "numeric": [True]},
     '<td class="n" data-v="1234">1,234</td>'),
    ("None is a blank cell", {"type": "table", "columns": ["a"], "rows": [[None]]}, "<tr><td></td></tr>"),
    ("header of a numeric column", {"type": "table", "columns": ["x"], "rows": [], "numeric": [True]},
     '<th class=n scope="col">x</th>'),
    ("facts", {"type": "facts", "items": [["nodes", 3]]}, "<dl><dt>nodes</dt><dd>3</dd></dl>"),
]


@pytest.mark.parametrize(("block", "fragment"), [b[1:] for b in BLOCKS], ids=[b[0] for b in BLOCKS])
def test_blocks(block, fragment):
    assert fragment in render_page("t", [block])


def test_unknown_block_type_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown report block type 'nope'"):
        render_page("t", [{"type": "nope"}])


@needs_matplotlib
def test_charts_have_unique_ids_and_no_namespace_urls():
    chart = {"type": "chart", "chart": "bars", "title": "x", "categories": ["a", "b"],
             "series": [{"name": "s", "values": [1, 2]}]}
    page = render_page("t", [chart, chart])
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)) > 0
    assert page.count("<svg") == 2
    assert "://" not in page


def _synthetic_report(nodes: int, pods: int) -> str:
    sys.path.insert(0, str(BENCH))
    try:
        from synthetic import cluster
    finally:
        sys.path.remove(str(BENCH))
    from ruleset.app import build_framework
    from ruleset.cli.schedule import schedule_json
    from ruleset.cli.usage import usage_json
    from ruleset.cluster import build_cluster_state
    from ruleset.manifests import decode_documents
    from ruleset.scheduler import schedule_all

    problems: list = []
    state = build_cluster_state(decode_documents([(0, {"kind": "List", "items": cluster(nodes, 3, pods)})],
                                                 "<test>", problems))
    assert problems == []
    framework = build_framework("default", state)
    before = usage_json(state.snapshot)
    recorder = ScoreRecorder(list(state.snapshot.node_names))
    run = schedule_all(framework, state, record=recorder)
    document = schedule_json(run, before=before, after=usage_json(state.snapshot))
    return schedule_report(document, recorder.to_json())


@needs_matplotlib
def test_thousand_nodes_is_small_and_self_contained():
    page = _synthetic_report(1000, 1000)
    size = len(page.encode("utf-8"))
    assert size < 5 * 1024 * 1024, size
    for forbidden in ("http://", "https://", "<script src", "<link", "@import", "url(http"):
        assert forbidden not in page, forbidden
    assert page.count("<svg") == 5  # heatmap, cpu, memory, pods per zone, cpu per zone
    assert page.count("<table") == 2  # nodes, placements (every pod placed: no "not scheduled" table)
    assert page.count("<tr>") == 1 + 1000 + 1 + 1000  # headers and rows
    assert "Every pod was scheduled." in page


DEMO_ARGS = ["schedule", "-o", "json"]


@needs_matplotlib
def test_report_written_with_stdout_unchanged(tmp_path, capsys):
    main(DEMO_ARGS)
    plain = capsys.readouterr().out
    target = tmp_path / "r.html"
    assert main([*DEMO_ARGS, "--report", str(target)]) == 0
    assert capsys.readouterr().out == plain
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "Not scheduled (1)" in page and "Placements (9)" in page


# (case, existing content or None, --force, expected exit, expected stderr fragment, expected content kept)
FORCE = [
    ("new file", None, False, 0, "", False),
    ("existing file without --force", "old", False, 2, "r.html: already exists; pass --force to overwrite", True),
    ("existing file with --force", "old", True, 0, "", False),
]


@needs_matplotlib
@pytest.mark.parametrize(("existing", "force", "code", "message", "kept"), [f[1:] for f in FORCE],
                         ids=[f[0] for f in FORCE])
def test_force(tmp_path, capsys, existing, force, code, message, kept):
    target = tmp_path / "r.html"
    if existing is not None:
        target.write_text(existing)
    assert main([*DEMO_ARGS, "--report", str(target), *(["--force"] if force else [])]) == code
    err = capsys.readouterr().err
    assert message in err
    assert (target.read_text() == "old") is kept
    if code == 2:  # refused before scheduling: no output at all
        assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


@needs_matplotlib
def test_missing_folder_is_refused(tmp_path, capsys):
    target = tmp_path / "nope" / "r.html"
    assert main([*DEMO_ARGS, "--report", str(target)]) == 2
    assert f"{target}: cannot write here: {target.parent} does not exist" in capsys.readouterr().err


@needs_matplotlib
def test_failed_write_leaves_no_file(tmp_path, capsys, monkeypatch):
    target = tmp_path / "r.html"

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    assert main([*DEMO_ARGS, "--report", str(target)]) == 2
    assert f"{target}: cannot write: No space left on device" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_missing_matplotlib_is_one_located_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    target = tmp_path / "r.html"
    assert main([*DEMO_ARGS, "--report", str(target)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines()[-1].endswith(
        "writing a report needs matplotlib, which is not installed: pip install 'ruleset[report]'")
    assert f"--report {target}" in captured.err
    assert list(tmp_path.iterdir()) == []
