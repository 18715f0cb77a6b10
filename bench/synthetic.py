"""Synthetic clusters for benchmarks: zones, node pools, workloads, as real manifests."""

from __future__ import annotations

import random
from typing import Any

ZONES = ("zone-a", "zone-b", "zone-c")
POOLS = (("general", "8", "32Gi"), ("compute", "32", "64Gi"), ("memory", "16", "128Gi"))


def nodes(count: int, seed: int = 1) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        pool, cpu, memory = POOLS[i % len(POOLS)]
        labels = {"kubernetes.io/hostname": f"node-{i:05d}", "topology.kubernetes.io/region": "region-1",
                  "topology.kubernetes.io/zone": ZONES[i % len(ZONES)], "pool": pool}
        if rng.random() < 0.3:
            labels["disktype"] = "ssd"
        spec: dict[str, Any] = {}
        if rng.random() < 0.05:
            spec["taints"] = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
        out.append({"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": f"node-{i:05d}", "labels": labels},
                    "spec": spec,
                    "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
                               "images": [{"names": [f"registry.example.com/app-{i % 20}:1.0"],
                                           "sizeBytes": 200_000_000}]}})
    return out


def pod(name: str, app: str, cpu: str, memory: str, node: str | None = None, *, namespace: str = "default",
        priority: int = 0, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": f"registry.example.com/{app}:1.0",
                                            "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
                            "priority": priority}
    if node:
        spec["nodeName"] = node
    spec.update(extra or {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace,
                                                            "labels": {"app": app}},
            "spec": spec, "status": {"phase": "Running" if node else "Pending"}}


def cluster(node_count: int, running_per_node: int, pending: int, seed: int = 1) -> list[dict[str, Any]]:
    """Nodes, ``running_per_node`` placed pods each, ``pending`` pods of ten Deployment-like apps."""
    rng = random.Random(seed)
    objects = nodes(node_count, seed)
    for i in range(node_count):
        for j in range(running_per_node):
            objects.append(pod(f"run-{i}-{j}", f"app-{(i + j) % 10}", "250m", "512Mi", f"node-{i:05d}"))
    for app in range(10):
        objects.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": f"app-{app}",
                                                                            "namespace": "default"},
                        "spec": {"selector": {"app": f"app-{app}"}}})
    for k in range(pending):
        cpu = rng.choice(("100m", "250m", "500m", "1"))
        memory = rng.choice(("128Mi", "256Mi", "1Gi"))
        objects.append(pod(f"pending-{k:05d}", f"app-{k % 10}", cpu, memory))
    return objects
