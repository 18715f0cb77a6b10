"""Benchmark: pods scheduled per second with a bundled profile at 1,000 and 5,000 nodes.

Each run builds a fresh cluster (nodes with a few running pods each, ten Service-backed
apps) and times only ``schedule_all`` over the pending pods: PreFilter, Filter,
PreScore, Score, NormalizeScore, selection and binding, snapshot updates included.

    python bench/schedule_throughput.py [--profile default] [--nodes 1000 5000] [--pods 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import cluster

from ruleset.app import build_framework
from ruleset.cluster import build_cluster_state
from ruleset.errors import Problem
from ruleset.manifests import decode_documents
from ruleset.scheduler import schedule_all


def run_once(profile: str, nodes: int, pods: int) -> tuple[float, int]:
    problems: list[Problem] = []
    objects = cluster(nodes, running_per_node=3, pending=pods)
    documents = [(0, {"kind": "List", "items": objects})]
    state = build_cluster_state(decode_documents(documents, "<bench>", problems))
    assert not problems, problems
    framework = build_framework(profile, state)
    start = time.perf_counter()
    run = schedule_all(framework, state)
    elapsed = time.perf_counter() - start
    return elapsed, sum(1 for p in run.placements if p.node)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="default")
    parser.add_argument("--nodes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"profile {args.profile}, {args.pods} pending pods, best of {args.repeat}")
    print(f"{'nodes':>7}  {'seconds':>8}  {'pods/s':>8}  scheduled")
    for n in args.nodes:
        best, scheduled = min(run_once(args.profile, n, args.pods) for _ in range(args.repeat))
        print(f"{n:>7}  {best:>8.3f}  {args.pods / best:>8.1f}  {scheduled}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
