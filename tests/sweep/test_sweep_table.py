"""The sweep's table (CSV; Parquet with pyarrow) and its summary page, from stored results."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from ruleset.sweep.summary import summary_blocks
from ruleset.sweep.table import csv_text, table_rows, write_tables

HAVE_PYARROW = importlib.util.find_spec("pyarrow") is not None
needs_pyarrow = pytest.mark.skipif(not HAVE_PYARROW and not os.environ.get("CI"),
                                   reason="pyarrow is not installed (pip install 'ruleset[dask]')")


def result(task: str, profile: str, status: str = "ok", **metrics) -> dict:
    params = {"task": task, "profile": profile, "snapshot": "s", "scenario": "as-is", "kubernetesVersion": ""}
    error = None if status == "ok" else "RuntimeError: boom"
    return {"task": params, "status": status, "error": error,
            "metrics": {**params, "status": status, "error": "", **metrics} if status == "ok" else {},
            "placements": []}


RESULTS = [result("b2", "p2", scheduled=3, nodesUsed=2, **{"cpu.stddev": 1.5, "seconds": 0.2}),
           result("a1", "p1", scheduled=4, nodesUsed=1, **{"cpu.stddev": 2.25, "nvidia.com/gpu.range": 0.0,
                                                           "podsPerSecond": 10.0}),
           result("c3", "p3", status="failed")]


def test_rows_by_task_id_and_columns():
    columns, rows = table_rows(RESULTS)
    assert columns == ["task", "profile", "snapshot", "scenario", "kubernetesVersion", "status", "error", "pods",
                       "scheduled", "unschedulable", "preemptions", "evictions", "nodesUsed", "nodes", "fragmentation",
                       "cpu.stddev", "nvidia.com/gpu.range", "podsPerZone", "placedPerZone", "seconds",
                       "podsPerSecond"]
    assert [r["task"] for r in rows] == ["a1", "b2", "c3"]
    assert csv_text(columns, rows).splitlines() == [
        ",".join(columns),
        "a1,p1,s,as-is,,ok,,,4,,,,1,,,2.25,0.0,,,,10.0",
        "b2,p2,s,as-is,,ok,,,3,,,,2,,,1.5,,,,0.2,",
        "c3,p3,s,as-is,,failed,RuntimeError: boom,,,,,,,,,,,,,,",
    ]


@needs_pyarrow
def test_parquet_holds_the_same_table(tmp_path: Path):
    import pyarrow.parquet as pq

    columns, rows = table_rows(RESULTS)
    assert write_tables(tmp_path, columns, rows) == [tmp_path / "results.csv", tmp_path / "results.parquet"]
    table = pq.read_table(tmp_path / "results.parquet")
    assert table.column_names == columns
    assert table.column("task").to_pylist() == ["a1", "b2", "c3"]
    assert table.column("scheduled").to_pylist() == [4.0, 3.0, None]
    assert table.column("error").to_pylist() == ["", "", "RuntimeError: boom"]


def test_summary_charts_each_metric_over_profiles_and_cells():
    columns, rows = table_rows(RESULTS)
    blocks = summary_blocks(columns, rows, {"tasks": 3, "ran": 2, "resumed": 0, "failed": 1})
    charts = [(b["title"], b["rows"], b["columns"], b["values"]) for b in blocks if b["type"] == "chart"]
    assert charts == [
        ("pods scheduled", ["p1", "p2", "p3"], ["s · as-is"], [[4.0], [3.0], [None]]),
        ("nodes holding pods", ["p1", "p2", "p3"], ["s · as-is"], [[1.0], [2.0], [None]]),
        ("cpu.stddev (utilisation, %)", ["p1", "p2", "p3"], ["s · as-is"], [[2.25], [1.5], [None]]),
        ("nvidia.com/gpu.range (utilisation, %)", ["p1", "p2", "p3"], ["s · as-is"], [[0.0], [None], [None]]),
        ("pods per second (scheduling, wall clock)", ["p1", "p2", "p3"], ["s · as-is"], [[10.0], [None], [None]]),
    ]
    failed = next(b for b in blocks if b["type"] == "table" and b["columns"][-1] == "error")
    assert failed["rows"] == [["c3", "p3", "s", "as-is", "RuntimeError: boom"]]
