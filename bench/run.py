"""The bench suite: scheduler_perf-shaped workloads, one table.

    python bench/run.py [--only NAME ...] [--scale small|full] [--repeat N]

Each workload runs in its own process (so its peak RSS is its own): the cluster is built
from manifests through the normal decoding path (not timed), then ``schedule_all`` is timed
over the measured (pending) pods only, best of ``--repeat``, with the bundled ``default``
profile and again with ``percentageOfNodesToScore = 100`` (every node scored), the two
alternating. The snapshot-load rows time ``load_manifests`` on a JSON and a YAML file
written beforehand by another process. ``--only`` keeps the workloads whose name starts
with NAME (``--only SchedulingBasic``, ``--only PreemptionBasic/500Nodes``). The workloads
are in ``bench/workloads.py``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import workloads  # a script beside its module, run without installing bench

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent


def _peak_rss_mib() -> float:
    # Linux reports ru_maxrss in KiB, macOS in bytes.
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def _find(name: str, scale: str) -> workloads.Workload:
    return next(w for w in workloads.suite(scale) if w.name == name)


# ------------------------------------------------------------------ worker side
def work_schedule(workload: workloads.Workload, repeat: int) -> dict[str, Any]:
    """Best of ``repeat`` for the default profile and for every node scored, alternating."""
    with tempfile.TemporaryDirectory() as folder:
        every_node = str(workloads.profile_file(Path(folder)))
        best: dict[str, float] = {}
        scheduled = 0
        for _ in range(repeat):
            for key, profile in (("default", workloads.PROFILE), ("all", every_node)):
                outcome = workloads.run_schedule(workload, profile)
                best[key] = min(best.get(key, float("inf")), outcome.seconds)
                if key == "default":
                    scheduled = sum(1 for pod, node in outcome.placements
                                    if node is not None and "/measured-" in pod)
    return {"seconds": best["default"], "seconds_all": best["all"], "scheduled": scheduled}


def work_load(path: Path, repeat: int) -> dict[str, Any]:
    """Best of ``repeat`` loads of ``path`` as ``ruleset schedule --cluster`` loads it: read,
    decode, admit and build the snapshot (``app.load_state``)."""
    from ruleset.app import load_state
    # A first load of a two-object file imports what loading needs (start-up is measured apart:
    # README, "ruleset --version" and "ruleset validate"), so the time is the load's own.
    warm = path.with_name("warm-up" + path.suffix)
    warm.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _warm_up_objects()}),
                    encoding="utf-8")
    load_state([str(warm)])
    best = float("inf")
    pods = 0
    for _ in range(repeat):
        start = time.perf_counter()
        state = load_state([str(path)])
        best = min(best, time.perf_counter() - start)
        pods = int(state.snapshot.pod_count.sum()) + len(state.pending)
        del state
    return {"seconds": best, "seconds_all": None, "scheduled": pods, "bytes": path.stat().st_size}


def _warm_up_objects() -> list[dict[str, Any]]:
    return [workloads.node(0), workloads.pod("warm-up", node_name="node-00000")]


def worker(name: str, scale: str, repeat: int, path: str | None) -> int:
    """Run one workload and print its figures as one JSON line."""
    workload = _find(name, scale)
    if workload.kind == "schedule":
        result = work_schedule(workload, repeat)
    else:
        assert path is not None
        result = work_load(Path(path), repeat)
    result["rss_mib"] = _peak_rss_mib()
    print(json.dumps(result))
    return 0


# ------------------------------------------------------------------ driver side
def _child(args: list[str]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, str(HERE), *args], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def measure(workload: workloads.Workload, scale: str, repeat: int) -> dict[str, Any]:
    """The workload's figures, measured in a fresh process (a load's file written by another)."""
    common = ["--scale", scale, "--repeat", str(repeat)]
    if workload.kind == "schedule":
        return _child(["--worker", workload.name, *common])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("snapshot.json" if workload.kind == "load-json" else "snapshot.yaml")
        written = _child(["--write", workload.name, "--path", str(path), *common])
        if "error" in written:
            return written
        return _child(["--worker", workload.name, "--path", str(path), *common])


def _commit() -> str:
    def git(*args: str) -> str:
        proc = subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT)
        return proc.stdout.strip() if proc.returncode == 0 else ""
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return f"{commit} (uncommitted changes)" if dirty else commit


def _rate(count: int, seconds: float | None) -> str:
    return f"{count / seconds:,.0f}" if seconds else "—"


def row(workload: workloads.Workload, result: dict[str, Any], notes: list[str]) -> list[str]:
    """One table row (its note, if any, appended to ``notes`` and marked)."""
    name = workload.name
    if workload.note:
        notes.append(workload.note)
        name += f" [{len(notes)}]"
    if "error" in result:
        return [name, f"{workload.nodes:,}", f"{workload.init_pods:,}", f"{workload.measure_pods:,}",
                f"error: {result['error']}", "", "", "", ""]
    if workload.kind == "schedule":
        placed = f"{result['scheduled']:,}"
        rates = (_rate(workload.measure_pods, result["seconds"]),
                 _rate(workload.measure_pods, result["seconds_all"]))
    else:
        placed = f"{result['bytes'] / 1e6:,.1f} MB"
        rates = (_rate(result["scheduled"], result["seconds"]), "—")
    return [name, f"{workload.nodes:,}", f"{workload.init_pods:,}",
            f"{workload.measure_pods:,}" if workload.kind == "schedule" else "—",
            placed, f"{result['seconds']:.2f}", *rates, f"{result['rss_mib']:,.0f}"]


HEADER = ["workload", "nodes", "initial pods", "measured pods", "placed / file", "seconds",
          "pods/s", "pods/s, every node scored", "peak RSS MiB"]


def _markdown(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join(" --- " if i == 0 else " ---: "
                                                              for i in range(len(HEADER))) + "|"]
    return "\n".join([*lines, *("| " + " | ".join(r) + " |" for r in rows)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="workloads whose name starts with NAME (repeatable)")
    parser.add_argument("--scale", choices=("small", "full"), default="small")
    parser.add_argument("--repeat", type=int, help="best of N (default: 3 at small scale, 1 at full)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--write", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat is None:
        args.repeat = 3 if args.scale == "small" else 1
    if args.worker:
        return worker(args.worker, args.scale, args.repeat, args.path)
    if args.write:
        workloads.write_snapshot(_find(args.write, args.scale), Path(args.path))
        print("{}")
        return 0
    chosen = [w for w in workloads.suite(args.scale)
              if not args.only or any(w.name.startswith(prefix) for prefix in args.only)]
    if not chosen:
        parser.error(f"no workload at scale {args.scale} matches {', '.join(args.only)}")
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"date {today}, commit {_commit()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"profile {workloads.PROFILE}, scale {args.scale}, best of {args.repeat}")
    print()
    rows: list[list[str]] = []
    notes: list[str] = []
    for workload in chosen:
        print(f"  {workload.name} ...", file=sys.stderr, flush=True)
        rows.append(row(workload, measure(workload, args.scale, args.repeat), notes))
    print(_markdown(rows))
    print()
    print("pods/s: measured pods over the time of `schedule_all` (initial pods are bound in the snapshot, "
          "not timed); for SnapshotLoad, pods loaded per second by `app.load_state` (read, decode, admit, "
          "build the snapshot). placed: measured pods scheduled (Unschedulable's large pods stay pending). "
          "Peak RSS: the workload's own process, cluster construction included.")
    for i, note in enumerate(notes, start=1):
        print(f"[{i}] {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
