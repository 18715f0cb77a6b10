"""The engines: ``--engine dask`` on a ``LocalCluster`` of two worker processes gives the same table
(placements and metrics) as ``--engine local``; a worker killed mid-sweep loses no finished result
and a rerun completes the grid, every earlier result untouched.

The dask tests are skipped when dask.distributed is not installed, except under CI (``CI`` set),
where a missing dask is a failure, as for the Chromium report tests.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ruleset.cli import main
from ruleset.sweep.task import TIMING_COLUMNS
from tests.sweep.sweep_inputs import profile_with, small_cluster

HAVE_DASK = importlib.util.find_spec("distributed") is not None
needs_dask = pytest.mark.skipif(not HAVE_DASK and not os.environ.get("CI"),
                                reason="dask.distributed is not installed (pip install 'ruleset[dask]')")
PROFILES = ["default-1.20", "cluster-autoscaler", "default"]


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[str]:
    """A LocalCluster of two single-threaded worker processes; yields its scheduler's address."""
    from dask.distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def sweep(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["sweep", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def comparable(out: Path) -> tuple[list[dict[str, str]], dict[str, dict]]:
    """The table without its timing columns, and every task's placements and metrics without them."""
    with open(out / "results.csv", newline="") as handle:
        rows = [{k: v for k, v in row.items() if k not in TIMING_COLUMNS} for row in csv.DictReader(handle)]
    tasks = {}
    for path in sorted((out / "tasks").iterdir()):
        document = json.loads(path.read_text())
        document["metrics"] = {k: v for k, v in document["metrics"].items() if k not in TIMING_COLUMNS}
        tasks[path.name] = document
    return rows, tasks


def grid_argv(inputs: dict[str, Path], out: Path) -> list[str]:
    """3 profiles × 2 snapshots (the demo, a small one) × 2 scenarios."""
    argv = [arg for profile in PROFILES for arg in ("-p", profile)]
    return [*argv, "-c", str(Path("clusters/demo.yaml").resolve()), str(inputs["small"]),
            "--pods", str(inputs["pods_a"]), str(inputs["pods_b"]), "--out", str(out), "--no-summary"]


@needs_dask
def test_dask_and_local_give_the_same_table(tmp_path: Path, capsys, inputs, dask_cluster):
    local, dask = tmp_path / "local", tmp_path / "dask"
    code, stdout, _ = sweep(capsys, *grid_argv(inputs, local), "--engine", "local", "--workers", "2")
    assert (code, stdout.split(";")[0]) == (0, "12 tasks: 12 ran, 0 resumed, 0 failed")
    code, stdout, _ = sweep(capsys, *grid_argv(inputs, dask), "--engine", "dask", "--scheduler", dask_cluster)
    assert (code, stdout.split(";")[0]) == (0, "12 tasks: 12 ran, 0 resumed, 0 failed")
    rows, tasks = comparable(local)
    assert comparable(dask) == (rows, tasks)
    assert len(rows) == 12 and len(tasks) == 12
    assert {r["status"] for r in rows} == {"ok"}
    # The two snapshots really differ, and so do the profiles on the demo (the table is not trivially equal).
    assert len({(r["profile"], r["nodesUsed"]) for r in rows if r["snapshot"].endswith("demo.yaml")}) == 3
    assert {r["nodes"] for r in rows} == {"24", "4"}


def test_a_killed_worker_loses_no_finished_result(tmp_path: Path, capsys, inputs, plugin_env):
    kill = small_cluster(tmp_path / "in" / "kill.json", names=("kill-me", "k2"))
    profile = profile_with(tmp_path / "killer.toml", "Killer")
    out = tmp_path / "out"
    argv = ["-p", str(profile), "-c", str(inputs["small"]), str(kill), "--pods", str(inputs["pods_a"]),
            str(inputs["pods_b"]), "--out", str(out), "--workers", "2", "--no-summary"]
    code, stdout, err = sweep(capsys, *argv)
    assert (plugin_env / "killed").exists()
    lost = [line for line in err.splitlines() if "worker lost: BrokenProcessPool" in line]
    assert code == 1 and 1 <= len(lost) <= 2 and len(err.splitlines()) == len(lost)
    assert stdout.startswith(f"4 tasks: {4 - len(lost)} ran, 0 resumed, {len(lost)} failed;")
    documents = {p.name: json.loads(p.read_text()) for p in (out / "tasks").iterdir()}
    assert len(documents) == 4
    finished = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (out / "tasks").iterdir()
                if documents[p.name]["status"] == "ok"}
    assert len(finished) == 4 - len(lost)
    code, stdout, err = sweep(capsys, *argv)
    assert (code, err) == (0, "")
    assert stdout.startswith(f"4 tasks: {len(lost)} ran, {4 - len(lost)} resumed, 0 failed;")
    assert {name: (p.stat().st_mtime_ns, p.read_bytes()) for name, p in
            ((name, out / "tasks" / name) for name in finished)} == finished
    assert {json.loads(p.read_text())["status"] for p in (out / "tasks").iterdir()} == {"ok"}


@needs_dask
def test_dask_reruns_the_task_of_a_killed_worker(tmp_path: Path, capsys, inputs, plugin_env):
    from dask.distributed import LocalCluster

    kill = small_cluster(tmp_path / "in" / "kill.json", names=("kill-me", "k2"))
    profile = profile_with(tmp_path / "killer.toml", "Killer")
    out = tmp_path / "out"
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        code, stdout, _ = sweep(capsys, "-p", str(profile), "-c", str(inputs["small"]), str(kill), "--out",
                                  str(out), "--engine", "dask", "--scheduler", cluster.scheduler_address,
                                  "--no-summary")
    finally:
        cluster.close()
    assert (plugin_env / "killed").exists()  # a worker was killed; its task ran again on another
    assert (code, stdout.split(";")[0]) == (0, "2 tasks: 2 ran, 0 resumed, 0 failed")
