"""Balance metrics of a cluster after a run, as plain dicts: how evenly the nodes are loaded,
how many hold pods, and where pods are by zone. Shared by ``compare``, ``capacity`` and the
HTML report; pure functions of a snapshot (and of a run's placements)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ruleset.api.resources import is_extended_resource
from ruleset.snapshot import Snapshot

#: The zone labels, the GA one first; a node with neither is in zone ``""`` (as ``schedule`` reports).
ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")


def zone_of(labels: dict[str, str]) -> str:
    """The node's zone: its ``topology.kubernetes.io/zone`` label, else its
    ``failure-domain.beta.kubernetes.io/zone`` label, else ``""``."""
    for key in ZONE_LABELS:
        zone = labels.get(key)
        if zone:
            return zone
    return ""


def balance_resources(snapshot: Snapshot) -> list[str]:
    """The resources the spread is measured on: cpu, memory, then every extended resource
    (``nvidia.com/gpu``…) some node has allocatable, by name."""
    extended = [name for name in snapshot.resource_names()
                if is_extended_resource(name) and bool(np.any(snapshot.allocatable(name) > 0))]
    return ["cpu", "memory", *extended]


def spread(snapshot: Snapshot, resource: str) -> dict[str, Any]:
    """The utilisation (requested / allocatable, in percent) of ``resource`` over the nodes
    that have some of it allocatable: ``{"nodes", "mean", "stddev", "min", "max", "range"}``,
    ``stddev`` the population standard deviation and ``range`` max−min, each rounded to
    2 decimals (all 0 when no node has the resource)."""
    allocatable = snapshot.allocatable(resource)
    having = allocatable > 0
    if not having.any():
        return {"nodes": 0, "mean": 0.0, "stddev": 0.0, "min": 0.0, "max": 0.0, "range": 0.0}
    used = 100.0 * snapshot.requested(resource)[having].astype(np.float64) / allocatable[having]
    low, high = float(used.min()), float(used.max())
    return {"nodes": int(having.sum()), "mean": _round(used.mean()), "stddev": _round(used.std()),
            "min": _round(low), "max": _round(high), "range": _round(high - low)}


def pods_per_zone(snapshot: Snapshot) -> dict[str, int]:
    """How many pods the nodes of each zone hold, zones in name order (``""``: no zone)."""
    counts: dict[str, int] = {}
    for i, node in enumerate(snapshot.nodes):
        zone = zone_of(node.labels)
        counts[zone] = counts.get(zone, 0) + int(snapshot.pod_count[i])
    return dict(sorted(counts.items()))


def placed_per_zone(snapshot: Snapshot, nodes: Iterable[str | None]) -> dict[str, int]:
    """How many of a run's placements (node names; None for a pod left unscheduled, skipped)
    went to each zone, zones in name order."""
    counts: dict[str, int] = {}
    for name in nodes:
        if name is None:
            continue
        zone = zone_of(snapshot.nodes[snapshot.node_index[name]].labels)
        counts[zone] = counts.get(zone, 0) + 1
    return dict(sorted(counts.items()))


def balance(snapshot: Snapshot, placed: Iterable[str | None] = ()) -> dict[str, Any]:
    """Every balance metric of the cluster as it stands:

    ``{"utilisation": {resource: spread}, "nodesUsed", "nodes", "podsPerZone", "placedPerZone"}``:
    the :func:`spread` of each :func:`balance_resources` resource, the nodes holding at least
    one pod (of all ``nodes``), :func:`pods_per_zone`, and :func:`placed_per_zone` of the
    ``placed`` node names (the run's placements)."""
    return {
        "utilisation": {resource: spread(snapshot, resource) for resource in balance_resources(snapshot)},
        "nodesUsed": int(np.count_nonzero(snapshot.pod_count[:snapshot.num_nodes] > 0)),
        "nodes": snapshot.num_nodes,
        "podsPerZone": pods_per_zone(snapshot),
        "placedPerZone": placed_per_zone(snapshot, placed),
    }


def flat_metrics(metrics: dict[str, Any]) -> dict[str, float]:
    """The numbers of :func:`balance` a gate compares, by name: ``RESOURCE.stddev`` and
    ``RESOURCE.range`` for each resource, and ``nodesUsed``."""
    out: dict[str, float] = {}
    for resource, values in metrics["utilisation"].items():
        out[f"{resource}.stddev"] = values["stddev"]
        out[f"{resource}.range"] = values["range"]
    out["nodesUsed"] = metrics["nodesUsed"]
    return out


def _round(value: float) -> float:
    return round(float(value), 2)
