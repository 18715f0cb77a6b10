"""Benchmark: preemptions per second — 1,000 full nodes, 500 high-priority arrivals.

Every node is filled with low-priority pods of ten ReplicaSet-owned apps (priorities 0-3,
so victims are ranked and reprieved); two apps are covered by PodDisruptionBudgets
without a status (so their budgets are computed from the snapshot on every preemption).
Then 500 high-priority pods arrive, each needing two low-priority pods evicted. Only
``schedule_all`` is timed: filtering, the failed cycle's PostFilter (DefaultPreemption's
dry runs over the candidate nodes, PDB accounting, node picking), the evictions, and the
retried cycle that binds the preemptor.

The profile is the bundled ``default`` (v1.20's default plugins); ``--profile`` takes any
profile file or bundled name instead.

    python bench/preemption_throughput.py [--nodes 1000] [--pods 500] [--repeat 3] [--profile default]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ruleset.app import build_framework
from ruleset.cluster import build_cluster_state
from ruleset.errors import Problem
from ruleset.manifests import decode_documents
from ruleset.scheduler import schedule_all

APPS = 10
PODS_PER_NODE = 8


def objects(node_count: int, arrivals: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for app in range(APPS):
        out.append(
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {"name": f"app-{app}", "namespace": "default"},
                "spec": {
                    "replicas": node_count * PODS_PER_NODE // APPS,
                    "selector": {"matchLabels": {"app": f"app-{app}"}},
                },
            }
        )
    for app, spec in ((0, {"minAvailable": "90%"}), (1, {"maxUnavailable": 3})):
        out.append(
            {
                "apiVersion": "policy/v1beta1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": f"app-{app}", "namespace": "default"},
                "spec": {**spec, "selector": {"matchLabels": {"app": f"app-{app}"}}},
            }
        )
    for i in range(node_count):
        name = f"node-{i:05d}"
        zone = f"zone-{'abc'[i % 3]}"
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": name,
                    "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone},
                },
                "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}},
            }
        )
        for j in range(PODS_PER_NODE):
            app = (i * PODS_PER_NODE + j) % APPS
            out.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"low-{i}-{j}",
                        "namespace": "default",
                        "labels": {"app": f"app-{app}"},
                        "ownerReferences": [
                            {
                                "apiVersion": "apps/v1",
                                "kind": "ReplicaSet",
                                "name": f"app-{app}",
                                "uid": f"rs-{app}",
                                "controller": True,
                            }
                        ],
                    },
                    "spec": {
                        "nodeName": name,
                        "priority": (i + j) % 4,
                        "containers": [
                            {"name": "c", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}
                        ],
                    },
                    "status": {"phase": "Running", "startTime": f"2026-01-01T00:{j:02d}:00Z"},
                }
            )
    for k in range(arrivals):
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"high-{k:04d}", "namespace": "default", "labels": {"app": "urgent"}},
                "spec": {
                    "priority": 1000,
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
                },
                "status": {"phase": "Pending"},
            }
        )
    return out


def run_once(profile: str, nodes: int, arrivals: int) -> tuple[float, int, int]:
    problems: list[Problem] = []
    state = build_cluster_state(
        decode_documents([(0, {"kind": "List", "items": objects(nodes, arrivals)})], "<bench>", problems)
    )
    assert not problems, problems
    fw = build_framework(profile, state)
    start = time.perf_counter()
    run = schedule_all(fw, state)
    elapsed = time.perf_counter() - start
    placed = sum(1 for p in run.placements if p.node)
    preemptions = sum(1 for e in run.events if e.kind == "preemption")
    return elapsed, placed, preemptions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=500, help="high-priority arrivals")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", default="default", help="profile file or bundled name")
    args = parser.parse_args()
    plugins = [c.name for c in build_framework(args.profile).profile.plugins]
    print(f"profile {args.profile}: {', '.join(plugins)}")
    print(
        f"{args.nodes} nodes x {PODS_PER_NODE} low-priority pods, {args.pods} high-priority arrivals, "
        f"best of {args.repeat}"
    )
    results = [run_once(args.profile, args.nodes, args.pods) for _ in range(args.repeat)]
    best, placed, preemptions = min(results)
    print(f"{'seconds':>8}  {'pods/s':>8}  {'placed':>6}  {'preemptions':>11}")
    print(f"{best:>8.3f}  {args.pods / best:>8.1f}  {placed:>6}  {preemptions:>11}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
