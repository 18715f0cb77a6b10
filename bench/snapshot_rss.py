"""Peak RSS and time of loading a large snapshot, YAML and JSON, each in a fresh process.

    python bench/snapshot_rss.py [--nodes 15000] [--pods 60000] [--format yaml --format json]
                                 [--no-native]

The snapshot is ``bench/workloads.py``'s snapshot-load cluster (default nodes, bound default
pods) at the given size, written once per format by a separate process, then loaded by
``load_manifests`` in another (read, parse, decode and build: what ``schedule --cluster`` does
first), which reports its own peak RSS. ``--no-native`` turns off the optional native parsers
(orjson, fastyaml-rs) in the loading process, to compare with the standard paths.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

HERE = Path(__file__).resolve()


def _peak_rss_mib() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def write(path: Path, nodes: int, pods: int) -> None:
    """Write the snapshot (JSON ``List`` or multi-document YAML, by the file's suffix)."""
    import workloads  # a script beside its module, run without installing bench

    kind = "load-json" if path.suffix == ".json" else "load-yaml"
    workload = workloads.Workload("SnapshotRSS", nodes, pods, 0, kind, workloads.snapshot)
    workloads.write_snapshot(workload, path)


def load(path: Path, native: bool) -> dict[str, float | int]:
    """Load the snapshot once; its figures."""
    from ruleset import native_yaml, reading
    from ruleset.manifests import load_manifests

    if not native:
        reading.USE_ORJSON = False
        native_yaml.USE_NATIVE = False
    start = time.perf_counter()
    cluster = load_manifests([path])
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "pods": len(cluster.pods), "nodes": len(cluster.nodes),
            "rss_mib": _peak_rss_mib(), "bytes": path.stat().st_size}


def _run(args: list[str]) -> str:
    proc = subprocess.run([sys.executable, str(HERE), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""


def main(argv: list[str] | None = None) -> int:
    """Write and load each format; print one line per format."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=15000)
    parser.add_argument("--pods", type=int, default=60000)
    parser.add_argument("--format", action="append", choices=["yaml", "json"])
    parser.add_argument("--no-native", action="store_true")
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--load", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.write:
        write(args.write, args.nodes, args.pods)
        return 0
    if args.load:
        print(json.dumps(load(args.load, not args.no_native)))
        return 0
    with tempfile.TemporaryDirectory() as folder:
        for fmt in args.format or ["yaml", "json"]:
            path = Path(folder) / f"snapshot.{fmt}"
            _run(["--write", str(path), "--nodes", str(args.nodes), "--pods", str(args.pods)])
            figures = json.loads(_run(["--load", str(path)] + (["--no-native"] if args.no_native else [])))
            print(f"{fmt}: {args.nodes:,} nodes + {args.pods:,} pods, {figures['bytes'] / 1e6:,.1f} MB: "
                  f"load {figures['seconds']:.2f} s, peak RSS {figures['rss_mib']:,.0f} MiB "
                  f"({figures['pods']:,} pods, {figures['nodes']:,} nodes read)"
                  + (" [native parsers off]" if args.no_native else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
