"""Inline ``[[nodes]]`` and ``[[pods]]`` of a test file as the manifests a cluster dump would hold.

The same shapes as :func:`ruleset.testing.builders.node_manifest` and ``pod_manifest``
(which sit above this layer and cannot be imported here); the manifests are then read by the
code behind ``--cluster`` and ``--pods``, so an inline object means what a file would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Quantity = str | int


def node_manifest(name: str, *, cpu: Quantity = "4", memory: Quantity = "8Gi", pods: int = 110,
                  labels: Mapping[str, str] | None = None, resources: Mapping[str, Quantity] | None = None,
                  taints: Sequence[Mapping[str, Any]] | None = None,
                  unschedulable: bool = False) -> dict[str, Any]:
    """A Node manifest with that allocatable (and capacity); ``kubernetes.io/hostname`` is ``name``
    unless ``labels`` say otherwise."""
    allocatable: dict[str, Any] = {"cpu": cpu, "memory": memory, "pods": pods, **(resources or {})}
    meta: dict[str, Any] = {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}}
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
            "status": {"allocatable": allocatable, "capacity": dict(allocatable)}}


def pod_manifest(name: str, *, namespace: str = "default", cpu: Quantity | None = None,
                 memory: Quantity | None = None, resources: Mapping[str, Quantity] | None = None,
                 labels: Mapping[str, str] | None = None, priority: int | None = None,
                 tolerations: Sequence[Mapping[str, Any]] | None = None,
                 node_selector: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A Pod manifest with one container requesting ``cpu``, ``memory`` and ``resources``."""
    requests: dict[str, Any] = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    requests.update(resources or {})
    container: dict[str, Any] = {"name": "main", "image": "registry.example/app:1"}
    if requests:
        container["resources"] = {"requests": requests}
    meta = {"name": name, "namespace": namespace, "labels": dict(labels or {})}
    spec: dict[str, Any] = {"containers": [container]}
    if priority is not None:
        spec["priority"] = priority
    if tolerations:
        spec["tolerations"] = [dict(t) for t in tolerations]
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
