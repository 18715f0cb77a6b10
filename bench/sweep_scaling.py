"""How ``ruleset sweep`` scales: tasks/s on the local engine and on a Dask LocalCluster, with one
and with two workers, for a grid whose tasks take about a second each, and the per-task overhead
of each engine (wall time × workers, less the time the tasks spent inside ``run_task``, per task).

    python bench/sweep_scaling.py [--tasks 12] [--nodes 150] [--pending 400] [--skip-dask]

The grid: bundled profiles × synthetic snapshots (``bench/synthetic.py``), written to a temporary
folder; each configuration runs the whole grid into a fresh results folder. The Dask cluster is
started before the clock starts (its start-up is printed on its own); the local engine's process
pool starts inside the measured time, as it does in ``ruleset sweep``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import synthetic
from ruleset.sweep.engines import DaskEngine, Engine, EngineOptions, LocalEngine
from ruleset.sweep.grid import grid_from_flags
from ruleset.sweep.plan import Plan, plan_sweep
from ruleset.sweep.runner import run_sweep
from ruleset.sweep.store import ResultStore

PROFILES = ("default-1.20", "cluster-autoscaler", "default", "cluster-autoscaler-1.35")


def make_plan(folder: Path, tasks: int, nodes: int, pending: int) -> Plan:
    snapshots = []
    for seed in range(max(1, -(-tasks // len(PROFILES)))):
        path = folder / f"snapshot-{seed}.json"
        items = synthetic.cluster(nodes, 3, pending, seed=seed + 1)
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}), encoding="utf-8")
        snapshots.append(str(path))
    plan = plan_sweep(grid_from_flags(list(PROFILES), snapshots, None, None, None))
    return Plan(grid=plan.grid, tasks=plan.tasks[:tasks])


def tiny_plan(folder: Path, tasks: int) -> Plan:
    """``tasks`` tasks of a few milliseconds each (two nodes, two pods): what they cost is the engine's."""
    snapshots = []
    for seed in range(-(-tasks // len(PROFILES))):
        path = folder / f"tiny-{seed}.json"
        items = synthetic.cluster(2, 0, 2, seed=seed + 1)
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}), encoding="utf-8")
        snapshots.append(str(path))
    plan = plan_sweep(grid_from_flags(list(PROFILES), snapshots, None, None, None))
    return Plan(grid=plan.grid, tasks=plan.tasks[:tasks])


def measure(engine: Engine, plan: Plan, out: Path) -> dict[str, float]:
    started = time.perf_counter()
    outcome = run_sweep(plan, out, engine, summary=False)
    wall = time.perf_counter() - started
    inside = sum(float(d["metrics"].get("seconds") or 0) for d in ResultStore(out).results(plan))
    assert outcome.failed == 0, outcome.failures
    return {"wall": wall, "inside": inside, "tasks": len(plan.tasks)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=12)
    parser.add_argument("--nodes", type=int, default=150)
    parser.add_argument("--pending", type=int, default=400)
    parser.add_argument("--overhead-tasks", type=int, default=40,
                        help="tiny tasks measuring each engine's own cost per task (one worker)")
    parser.add_argument("--skip-dask", action="store_true")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        plan = make_plan(folder, args.tasks, args.nodes, args.pending)
        results: dict[str, tuple[int, dict[str, float]]] = {}
        overheads: dict[str, dict[str, float]] = {}
        for workers in (1, 2):
            engine = LocalEngine(EngineOptions(workers))
            results[f"local, {workers} worker(s)"] = (workers, measure(engine, plan, folder / f"l{workers}"))
        if not args.skip_dask:
            from dask.distributed import LocalCluster

            for workers in (1, 2):
                started = time.perf_counter()
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
                print(f"dask LocalCluster of {workers} worker(s) started in "
                      f"{time.perf_counter() - started:.2f} s")
                try:
                    dask = DaskEngine(EngineOptions(scheduler=cluster.scheduler_address))
                    measured = measure(dask, plan, folder / f"d{workers}")
                    results[f"dask, {workers} worker(s)"] = (workers, measured)
                finally:
                    cluster.close()
            # Each engine's own cost per task: the marginal wall time of N more tiny tasks on one worker
            # (pool and cluster start-up cancel out).
            small, large = tiny_plan(folder, args.overhead_tasks), tiny_plan(folder, 2 * args.overhead_tasks)
            local = [measure(LocalEngine(EngineOptions(1)), plan_, folder / f"tl{i}")
                     for i, plan_ in enumerate((small, large))]
            cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0")
            try:
                dask = DaskEngine(EngineOptions(scheduler=cluster.scheduler_address))
                remote = [measure(dask, plan_, folder / f"td{i}") for i, plan_ in enumerate((small, large))]
            finally:
                cluster.close()
            for name, (a, b) in (("local", local), ("dask", remote)):
                overheads[name] = {"wall": (b["wall"] - a["wall"]) / (b["tasks"] - a["tasks"]),
                                   "inside": (b["inside"] - a["inside"]) / (b["tasks"] - a["tasks"])}
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{len(plan.tasks)} tasks ({args.nodes} nodes, {args.pending} pending pods each)")
    print(f"{'engine':<22}{'wall s':>8}{'tasks/s':>9}{'task s':>8}{'overhead/task s':>17}")
    for name, (workers, r) in results.items():
        per_task = r["inside"] / r["tasks"]
        overhead = (r["wall"] * workers - r["inside"]) / r["tasks"]
        print(f"{name:<22}{r['wall']:>8.2f}{r['tasks'] / r['wall']:>9.3f}{per_task:>8.2f}{overhead:>17.3f}")
    for engine in ("local", "dask"):
        one, two = results.get(f"{engine}, 1 worker(s)"), results.get(f"{engine}, 2 worker(s)")
        if one and two:
            print(f"{engine}: 2 workers / 1 worker = {one[1]['wall'] / two[1]['wall']:.2f}x")
    for engine, r in overheads.items():
        print(f"{engine}: one more tiny task costs {1000 * r['wall']:.1f} ms of wall time on 1 worker "
              f"({1000 * r['inside']:.1f} ms of it inside the task)")
    if len(overheads) == 2:
        extra = overheads["dask"]["wall"] - overheads["local"]["wall"]
        print(f"dask's overhead per task beyond local's: {1000 * extra:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
