"""The sweep's table: one row per task (by task id), as CSV always and as Parquet when pyarrow
is installed (``pip install 'ruleset[dask]'`` or ``ruleset[parquet]``).

Columns: the task's parameters, ``status`` and ``error``, then compare's numbers (pods,
scheduled, unschedulable, preemptions, evictions, nodes used, fragmentation, each resource's
utilisation ``.stddev`` and ``.range``), pods per zone, and last the two timing columns
(:data:`~ruleset.sweep.task.TIMING_COLUMNS`), the only ones that differ between two runs of the
same grid. A failed task has its parameters, status and error, and blanks elsewhere.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ruleset.sweep.store import write_atomic
from ruleset.sweep.task import TIMING_COLUMNS

PARAMS = ("task", "profile", "snapshot", "scenario", "kubernetesVersion", "status", "error")
COUNTS = ("pods", "scheduled", "unschedulable", "preemptions", "evictions", "nodesUsed", "nodes",
          "fragmentation")
ZONES = ("podsPerZone", "placedPerZone")


def table_rows(results: Sequence[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """The columns and the rows (sorted by task id) of stored results."""
    rows = []
    for document in sorted(results, key=lambda d: d["task"]["task"]):
        task = document["task"]
        row = {key: task.get(key, "") for key in PARAMS[:5]}
        row.update(document.get("metrics") or {})
        row["status"], row["error"] = document["status"], document.get("error") or ""
        rows.append(row)
    fixed = {*PARAMS, *COUNTS, *ZONES, *TIMING_COLUMNS}
    numbers = sorted({key for row in rows for key in row if key not in fixed})
    return [*PARAMS, *COUNTS, *numbers, *ZONES, *TIMING_COLUMNS], rows


def csv_text(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """The table as CSV (a blank cell for a missing value)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: "" if row.get(key) is None else row.get(key) for key in columns})
    return buffer.getvalue()


def have_pyarrow() -> bool:
    """Whether Parquet can be written."""
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


def write_tables(out: Path, columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> list[Path]:
    """Write ``results.csv`` (and ``results.parquet`` when pyarrow is installed) atomically; return
    the files written."""
    written = [out / "results.csv"]
    write_atomic(written[0], csv_text(columns, rows))
    if have_pyarrow():
        written.append(out / "results.parquet")
        write_atomic(written[1], parquet_bytes(columns, rows))
    return written


def parquet_bytes(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> bytes:
    """The table as Parquet: text columns as strings, the rest as float64 (blank: null)."""
    import pyarrow as pa  # type: ignore[import-untyped,unused-ignore]
    import pyarrow.parquet as pq  # type: ignore[import-untyped,unused-ignore]

    text = {*PARAMS, *ZONES}
    arrays = {}
    for key in columns:
        values = [row.get(key) for row in rows]
        if key in text:
            arrays[key] = pa.array(["" if v is None else str(v) for v in values], type=pa.string())
        else:
            numbers = [None if v is None or v == "" else float(v) for v in values]
            arrays[key] = pa.array(numbers, type=pa.float64())
    buffer = pa.BufferOutputStream()
    pq.write_table(pa.table(arrays), buffer)
    return bytes(buffer.getvalue().to_pybytes())
