"""Cluster utilisation (requested against allocatable) for the cluster, each zone and each
node, from a snapshot: what ``ruleset schedule`` reports before and after scheduling, in
JSON and as text."""

from __future__ import annotations

from typing import Any

import numpy as np

from ruleset.analysis.metrics import zone_of
from ruleset.api.resources import is_extended_resource


def extended_resources(snapshot: Any) -> list[str]:
    """The extended resources (``nvidia.com/gpu``…) some node has allocatable, by name."""
    return [name for name in snapshot.resource_names()
            if is_extended_resource(name) and bool(np.any(snapshot.allocatable(name) > 0))]


def _pair(requested: int, allocatable: int) -> dict[str, int]:
    return {"requested": int(requested), "allocatable": int(allocatable)}


def _totals(columns: dict[str, tuple[np.ndarray, np.ndarray]], rows: Any) -> dict[str, dict[str, int]]:
    return {name: _pair(requested[rows].sum(), allocatable[rows].sum())
            for name, (requested, allocatable) in columns.items()}


def usage_json(snapshot: Any) -> dict[str, Any]:
    """Requested and allocatable of cpu (millicores), memory (bytes), pods and every extended
    resource some node has allocatable (:func:`extended_resources`):

    ``{"cluster": {resource: {"requested", "allocatable"}}, "zones": {zone: {resource: …}},
    "nodes": [{"name", "pods": {"count", "allocatable"}, "cpu": {"requested", "allocatable",
    "unit"}, "memory": {…}, "extended": {resource: {"requested", "allocatable"}}}]}``.

    Zones (:func:`zone_of`) are in name order, ``""`` (nodes without a zone) among them when
    there are such nodes. Each node lists every extended resource of the cluster.
    """
    extended = extended_resources(snapshot)
    columns = {
        "cpu": (snapshot.requested("cpu"), snapshot.allocatable("cpu")),
        "memory": (snapshot.requested("memory"), snapshot.allocatable("memory")),
        "pods": (snapshot.pod_count, snapshot.allowed_pods),
        **{name: (snapshot.requested(name), snapshot.allocatable(name)) for name in extended},
    }
    zones: dict[str, list[int]] = {}
    for index, node in enumerate(snapshot.nodes):
        zones.setdefault(zone_of(node.labels), []).append(index)
    nodes = []
    for i, name in enumerate(snapshot.node_names):
        nodes.append({
            "name": name,
            "pods": {"count": int(snapshot.pod_count[i]), "allocatable": int(snapshot.allowed_pods[i])},
            "cpu": {**_pair(columns["cpu"][0][i], columns["cpu"][1][i]), "unit": "millicores"},
            "memory": {**_pair(columns["memory"][0][i], columns["memory"][1][i]), "unit": "bytes"},
            "extended": {name: _pair(columns[name][0][i], columns[name][1][i]) for name in extended},
        })
    every = np.arange(len(snapshot.node_names))
    return {
        "cluster": _totals(columns, every),
        "zones": {zone: _totals(columns, np.array(rows, dtype=np.intp))
                  for zone, rows in sorted(zones.items())},
        "nodes": nodes,
    }
