"""Node and Pod manifests from a few keyword arguments, shaped as a cluster dump holds them.

The plugin test kit (:mod:`ruleset.testing.builders`) decodes them into objects; ``ruleset test``
files' inline ``[[nodes]]`` and ``[[pods]]`` (:mod:`ruleset.behaviour.loader`) are written as
them: either way they are read by the code behind ``--cluster`` and ``--pods``, so what is
built can never mean something a manifest would not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Quantity = str | int


def node_manifest(name: str, *, cpu: Quantity = "4", memory: Quantity = "8Gi", pods: int = 110,
                  labels: Mapping[str, str] | None = None, annotations: Mapping[str, str] | None = None,
                  resources: Mapping[str, Quantity] | None = None,
                  taints: Sequence[Mapping[str, Any]] | None = None,
                  unschedulable: bool = False) -> dict[str, Any]:
    """The Node manifest :func:`node` decodes (``kubernetes.io/hostname`` defaults to ``name``)."""
    allocatable: dict[str, Any] = {"cpu": cpu, "memory": memory, "pods": pods, **(resources or {})}
    meta: dict[str, Any] = {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}}
    if annotations:
        meta["annotations"] = dict(annotations)
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
            "status": {"allocatable": allocatable, "capacity": dict(allocatable)}}


def pod_manifest(name: str, *, namespace: str = "default", cpu: Quantity | None = None,
                 memory: Quantity | None = None, resources: Mapping[str, Quantity] | None = None,
                 labels: Mapping[str, str] | None = None, annotations: Mapping[str, str] | None = None,
                 node_name: str | None = None, priority: int | None = None,
                 tolerations: Sequence[Mapping[str, Any]] | None = None,
                 affinity: Mapping[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    """The Pod manifest :func:`pod` decodes: one container requesting ``cpu``, ``memory`` and
    ``resources``. Further ``spec`` keys (camelCase, e.g. ``topologySpreadConstraints``) are
    copied into ``spec`` as given."""
    requests: dict[str, Any] = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    requests.update(resources or {})
    container: dict[str, Any] = {"name": "main", "image": "registry.example/app:1"}
    if requests:
        container["resources"] = {"requests": requests}
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": dict(labels or {})}
    if annotations:
        meta["annotations"] = dict(annotations)
    body: dict[str, Any] = {"containers": [container], **spec}
    if node_name:
        body["nodeName"] = node_name
    if priority is not None:
        body["priority"] = priority
    if tolerations:
        body["tolerations"] = [dict(t) for t in tolerations]
    if affinity:
        body["affinity"] = dict(affinity)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}
