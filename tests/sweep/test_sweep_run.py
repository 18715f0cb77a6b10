"""``ruleset sweep`` on the local engine: inputs checked before any task, the results folder
(resume, another grid, --force), a failing task recorded while the others run, the table."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest

from ruleset.cli import main
from ruleset.sweep.grid import grid_from_flags
from ruleset.sweep.plan import plan_sweep, task_id
from ruleset.sweep.table import have_pyarrow
from tests.sweep.sweep_inputs import profile_with, small_cluster


def sweep(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["sweep", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def table(out: Path) -> list[dict[str, str]]:
    with open(out / "results.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def wrote(out: Path) -> str:
    files = [out / "results.csv", *([out / "results.parquet"] if have_pyarrow() else []), out / "summary.html"]
    return ", ".join(str(f) for f in files)


def test_bad_inputs_fail_before_any_task(tmp_path: Path, capsys, inputs):
    out = tmp_path / "out"
    code, stdout, err = sweep(capsys, "-p", "default", "-p", "no-such-profile", "-c", str(inputs["small"]),
                              str(tmp_path / "missing.yaml"), "--out", str(out))
    assert (code, stdout) == (2, "")
    assert err.splitlines() == [
        "error: no-such-profile: no such profile file, and no bundled profile of that name (bundled: "
        "cluster-autoscaler, cluster-autoscaler-1.35, default, default-1.20, legacy-policy)",
        f"error: {tmp_path / 'missing.yaml'}: cannot read: No such file or directory"]
    assert not out.exists()


def test_a_bad_profile_at_one_release_fails_the_sweep(tmp_path: Path, capsys):
    out = tmp_path / "out"
    code, stdout, err = sweep(capsys, "-p", "default", "--kubernetes-version", "1.20", "--out", str(out))
    assert (code, stdout) == (2, "")
    assert err.startswith("error: ") and "at Kubernetes 1.20: " in err
    assert not out.exists()


def test_run_then_resume(tmp_path: Path, capsys, inputs):
    out = tmp_path / "out"
    argv = ["-p", "default-1.20", "-p", "cluster-autoscaler", "-c", str(inputs["small"]), "--pods",
            str(inputs["pods_a"]), str(inputs["pods_b"]), "--out", str(out), "--workers", "2"]
    assert sweep(capsys, *argv) == (0, f"4 tasks: 4 ran, 0 resumed, 0 failed; wrote {wrote(out)}\n", "")
    rows = table(out)
    assert [(r["profile"], r["scenario"], r["pods"], r["scheduled"], r["nodes"], r["status"]) for r in rows] == sorted(
        [("default-1.20", "pods-a.json", "5", "5", "4", "ok"), ("default-1.20", "pods-b.json", "7", "7", "4", "ok"),
         ("cluster-autoscaler", "pods-a.json", "5", "5", "4", "ok"),
         ("cluster-autoscaler", "pods-b.json", "7", "7", "4", "ok")],
        key=lambda row: [r["task"] for r in rows][[(x["profile"], x["scenario"]) for x in rows].index(row[:2])])
    assert [r["task"] for r in rows] == sorted(r["task"] for r in rows)
    before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (out / "tasks").iterdir()}
    assert sweep(capsys, *argv) == (0, f"4 tasks: 0 ran, 4 resumed, 0 failed; wrote {wrote(out)}\n", "")
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (out / "tasks").iterdir()} == before


def test_a_missing_result_is_all_a_rerun_runs(tmp_path: Path, capsys, inputs):
    out = tmp_path / "out"
    argv = ["-p", "default-1.20", "-c", str(inputs["small"]), "--pods", str(inputs["pods_a"]), str(inputs["pods_b"]),
            "--out", str(out), "--workers", "1"]
    assert sweep(capsys, *argv)[0] == 0
    first, second = sorted((out / "tasks").iterdir())
    kept = (first.stat().st_mtime_ns, first.read_bytes())
    removed = second.read_bytes()
    second.unlink()
    assert sweep(capsys, *argv) == (0, f"2 tasks: 1 ran, 1 resumed, 0 failed; wrote {wrote(out)}\n", "")
    assert (first.stat().st_mtime_ns, first.read_bytes()) == kept
    assert second.read_bytes().replace(b" ", b"") != b""
    assert _without_timing(json.loads(second.read_bytes())) == _without_timing(json.loads(removed))


def _without_timing(document: dict) -> dict:
    return {**document, "metrics": {k: v for k, v in document["metrics"].items()
                                    if k not in ("seconds", "podsPerSecond")}}


def test_another_grid_needs_force(tmp_path: Path, capsys, inputs):
    out = tmp_path / "out"
    assert sweep(capsys, "-p", "default-1.20", "-c", str(inputs["small"]), "--out", str(out))[0] == 0
    code, stdout, err = sweep(capsys, "-p", "cluster-autoscaler", "-c", str(inputs["small"]), "--out", str(out))
    assert (code, stdout) == (2, "")
    assert err == (f"error: {out}: holds the results of another grid (1 tasks; this one has 1, or its inputs "
                   "changed); pass --force to start over, or name another folder\n")
    code, stdout, err = sweep(capsys, "-p", "cluster-autoscaler", "-c", str(inputs["small"]), "--out", str(out),
                              "--force")
    assert (code, stdout, err) == (0, f"1 tasks: 1 ran, 0 resumed, 0 failed; wrote {wrote(out)}\n", "")
    assert len(list((out / "tasks").iterdir())) == 1


def test_a_changed_snapshot_is_another_grid(tmp_path: Path, capsys, inputs):
    out = tmp_path / "out"
    argv = ["-p", "default-1.20", "-c", str(inputs["small"]), "--out", str(out)]
    assert sweep(capsys, *argv)[0] == 0
    small_cluster(inputs["small"], names=("m1", "m2", "m3", "m4"))
    assert sweep(capsys, *argv)[0] == 2


def test_a_folder_of_other_files_is_refused(tmp_path: Path, capsys, inputs):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    code, stdout, err = sweep(capsys, "-c", str(inputs["small"]), "--out", str(out))
    assert (code, stdout) == (2, "")
    assert err == (f"error: {out}: holds files but no sweep.json: not a sweep's results; name an empty or new "
                   "folder, or pass --force to write into it\n")


def test_a_failing_task_is_recorded_and_the_others_run(tmp_path: Path, capsys, inputs, plugin_env):
    boom = small_cluster(tmp_path / "in" / "boom.json", names=("boom", "n2"))
    profile = profile_with(tmp_path / "boom.toml", "Boom")
    out = tmp_path / "out"
    code, stdout, err = sweep(capsys, "-p", str(profile), "-c", str(inputs["small"]), str(boom), "--out", str(out),
                              "--workers", "2", "--no-summary")
    plan = plan_sweep(grid_from_flags([str(profile)], [str(inputs["small"]), str(boom)], None, None, None))
    failed = next(t for t in plan.tasks if t.snapshot.name == str(boom))
    assert (code, stdout) == (1, f"2 tasks: 1 ran, 0 resumed, 1 failed; wrote {out / 'results.csv'}"
                                 f"{', ' + str(out / 'results.parquet') if have_pyarrow() else ''}\n")
    error = f"{profile}:4:10: plugins.Boom: initializing plugin 'Boom': RuntimeError: boom: this snapshot breaks me"
    assert err == f"error: task {failed.id} (boom, {boom}, as-is): {error}\n"
    document = json.loads((out / "tasks" / f"{failed.id}.json").read_text())
    assert (document["status"], document["error"], document["metrics"], document["placements"]) == (
        "failed", error, {}, [])
    rows = {r["snapshot"]: r for r in table(out)}
    assert (rows[str(boom)]["status"], rows[str(boom)]["scheduled"]) == ("failed", "")
    assert (rows[str(inputs["small"])]["status"], rows[str(inputs["small"])]["scheduled"]) == ("ok", "2")


def test_task_ids_are_stable_and_distinct(inputs):
    grid = grid_from_flags(["default-1.20", "cluster-autoscaler"], [str(inputs["small"])],
                           [str(inputs["pods_a"]), str(inputs["pods_b"])], None, ["1.20", "1.22"])
    first, again = plan_sweep(grid), plan_sweep(grid)
    assert [t.id for t in first.tasks] == [t.id for t in again.tasks]
    assert len({t.id for t in first.tasks}) == 8
    assert task_id({"a": 1, "b": 2}) == task_id({"b": 2, "a": 1})


def test_unknown_engine(tmp_path: Path, capsys):
    code, stdout, err = sweep(capsys, "--engine", "ray", "--out", str(tmp_path / "o"))
    assert (code, stdout, err) == (2, "", "error: --engine ray: no such engine; expected one of dask, local\n")


@pytest.mark.parametrize(("argv", "message"), [
    (["--workers", "0"], "error: --workers 0: expected a number of workers ≥ 1\n"),
    (["--scheduler", "tcp://x:1"], "error: --scheduler tcp://x:1: --scheduler is for --engine dask\n"),
    (["--sweep", "s.toml", "-p", "default"],
     "error: --sweep s.toml: give the grid in the sweep file or with flags, not both (--profile)\n"),
], ids=["workers", "scheduler without dask", "file and flags"])
def test_usage_errors(tmp_path: Path, capsys, argv, message):
    assert sweep(capsys, *argv, "--out", str(tmp_path / "o")) == (2, "", message)


INLINE_ENGINE = """\
from ruleset import hookimpl
from ruleset.sweep.task import run_task


class Inline:
    def __init__(self, options):
        self.options = options

    def run(self, tasks, done):
        for spec in tasks:
            done(run_task(spec))


@hookimpl
def ruleset_sweep_engines(register):
    register("inline", Inline)
    register("local", Inline)  # taken by the built-in: ignored
"""


def test_a_plugin_package_adds_an_engine(tmp_path: Path, capsys, monkeypatch, inputs):
    (tmp_path / "inline_engine.py").write_text(INLINE_ENGINE)
    monkeypatch.setenv("RULESET_PLUGINS", str(tmp_path / "inline_engine.py"))
    out = tmp_path / "out"
    code, stdout, err = sweep(capsys, "-c", str(inputs["small"]), "--engine", "inline", "--out", str(out),
                              "--no-summary")
    assert (code, stdout.split(";")[0], err) == (0, "1 tasks: 1 ran, 0 resumed, 0 failed", "")
    from ruleset.sweep.engines import LocalEngine, engine_factories

    assert engine_factories()["local"] is LocalEngine
    assert sorted(engine_factories()) == ["dask", "inline", "local"]


def test_a_worker_reads_a_snapshot_once(inputs):
    from ruleset.sweep.task import run_task, worker_cache_size

    grid = grid_from_flags(["default-1.20", "cluster-autoscaler"], [str(inputs["small"])], None, None, ["1.20"])
    tasks = plan_sweep(grid).tasks
    before = worker_cache_size()
    results = [run_task(spec) for spec in (*tasks, tasks[0])]
    assert worker_cache_size() == before + 1
    assert [r.status for r in results] == ["ok", "ok", "ok"]
    assert [[p["node"] for p in r.placements] for r in results] == [["n3", "n4"], ["n1", "n1"], ["n3", "n4"]]
    assert results[0].placements == results[2].placements


def test_the_dask_engine_without_dask(tmp_path: Path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # what a missing package looks like
    assert sweep(capsys, "--engine", "dask", "--out", str(tmp_path / "o")) == (
        2, "", "error: --engine dask: the dask engine needs dask.distributed, which is not installed: "
               "pip install 'ruleset[dask]'\n")
    assert not (tmp_path / "o").exists()
