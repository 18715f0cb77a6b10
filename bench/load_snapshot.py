"""Time and measure loading a snapshot file as ``ruleset schedule --cluster FILE`` does:
read, decode, create the pods and build the columnar snapshot (``app.load_state``), best of
``--repeat`` in one process (wall and CPU seconds: on a busy machine the CPU time is the
steadier figure), then the process's peak RSS.

    python bench/load_snapshot.py --write FILE --nodes 5000 --pods 50000   # the file (JSON or YAML by suffix)
    python bench/load_snapshot.py FILE [--repeat 3] [--profile OUT.prof]

The file is ``bench/workloads.snapshot``'s cluster (4-CPU nodes, bound default pods), the
SnapshotLoad rows' shape. A figure printed by a script, never a timed test.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import workloads  # noqa: E402  (a script beside its module, run without installing bench)


def write(path: Path, nodes: int, pods: int) -> None:
    """The snapshot-load cluster of ``nodes`` nodes and ``pods`` bound pods, at ``path``."""
    kind = "load-json" if path.suffix == ".json" else "load-yaml"
    workloads.write_snapshot(workloads.Workload("snapshot", nodes, pods, 0, kind, workloads.snapshot), path)


def main(argv: list[str] | None = None) -> int:
    """Write a snapshot file, or load one and print its figures as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=50000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", type=Path, help="write a cProfile of the last load here")
    args = parser.parse_args(argv)
    if args.write:
        write(args.file, args.nodes, args.pods)
        return 0
    from ruleset.app import load_state
    best = best_cpu = float("inf")
    pods = 0
    for i in range(args.repeat):
        profiler = None
        if args.profile and i == args.repeat - 1:
            import cProfile
            profiler = cProfile.Profile()
            profiler.enable()
        start, start_cpu = time.perf_counter(), time.process_time()
        state = load_state([str(args.file)])
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(args.profile))
        pods = int(state.snapshot.pod_count.sum()) + len(state.pending)
        del state
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": round(best, 3), "cpu_seconds": round(best_cpu, 3), "pods": pods,
                      "rss_mib": round(rss), "bytes": args.file.stat().st_size}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
