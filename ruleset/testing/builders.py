"""Nodes, pods and clusters for plugin tests, built the way real input is.

Each builder writes a Kubernetes-shaped manifest and decodes it with the decoders that read
cluster dumps (API server checks included), and :func:`cluster` assembles them with the code
behind ``--cluster``: what a test builds can never mean something a manifest would not.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ruleset.api.decode import DecodeContext
from ruleset.api.node import Node, decode_node
from ruleset.api.pod import Pod, decode_pod
from ruleset.cluster import build_cluster_state, resolve_priority
from ruleset.errors import RulesetError
from ruleset.kversion import Target
from ruleset.manifests import Cluster
from ruleset.manifests.builders import Quantity, node_manifest, pod_manifest
from ruleset.snapshot.state import ClusterState

__all__ = ["cluster", "node", "node_manifest", "pod", "pod_manifest"]


def node(name: str, *, cpu: Quantity = "4", memory: Quantity = "8Gi", pods: int = 110,
         labels: Mapping[str, str] | None = None, annotations: Mapping[str, str] | None = None,
         resources: Mapping[str, Quantity] | None = None, taints: Sequence[Mapping[str, Any]] | None = None,
         unschedulable: bool = False) -> Node:
    """A Node with that allocatable (``resources`` adds extended resources, e.g.
    ``{"nvidia.com/gpu": 4}``), labels (``kubernetes.io/hostname`` is ``name`` unless given),
    annotations, ``taints`` as in a manifest (``{"key", "value", "effect"}``) and
    ``spec.unschedulable``. Raises ValueError when the API server would refuse the manifest."""
    raw = node_manifest(name, cpu=cpu, memory=memory, pods=pods, labels=labels, annotations=annotations,
                        resources=resources, taints=taints, unschedulable=unschedulable)
    return _decoded(decode_node, raw)


def pod(name: str, *, namespace: str = "default", cpu: Quantity | None = None, memory: Quantity | None = None,
        resources: Mapping[str, Quantity] | None = None, labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None, node_name: str | None = None,
        priority: int | None = None, tolerations: Sequence[Mapping[str, Any]] | None = None,
        affinity: Mapping[str, Any] | None = None) -> Pod:
    """A Pod with one container requesting ``cpu``, ``memory`` and ``resources`` (extended
    resources, e.g. ``{"nvidia.com/gpu": 1}``); ``node_name`` makes it a running pod in
    :func:`cluster`; ``tolerations`` and ``affinity`` as in a manifest. Its priority is
    ``priority`` (0 when None), as admission resolves it. Raises ValueError when the API
    server would refuse the manifest."""
    raw = pod_manifest(name, namespace=namespace, cpu=cpu, memory=memory, resources=resources, labels=labels,
                       annotations=annotations, node_name=node_name, priority=priority,
                       tolerations=tolerations, affinity=affinity)
    return decode_pod_manifest(raw)


def decode_pod_manifest(raw: Mapping[str, Any]) -> Pod:
    """Decode a Pod manifest (priority resolved as admission would, without classes)."""
    decoded: Pod = _decoded(decode_pod, dict(raw))
    resolve_priority(decoded, {}, None)
    return decoded


def cluster(nodes: Iterable[Node], pods: Iterable[Pod] = (), *, target: Target | None = None) -> ClusterState:
    """The cluster state ``--cluster`` would build from these objects: pods with a ``node_name``
    run on that node, the others are pending (``state.pending``), their requests counted as
    ``target``'s release counts them (default 1.20). Raises ValueError for duplicate names or
    a pod on a node that is not there."""
    nodes, pods = list(nodes), list(pods)
    names = {n.name for n in nodes}
    stray = [p.key for p in pods if p.node_name and p.node_name not in names]
    if stray:
        raise ValueError(f"pods on nodes that are not in the cluster: {', '.join(stray)}")
    try:
        return build_cluster_state(Cluster(nodes=nodes, pods=pods), target)
    except RulesetError as exc:
        raise ValueError("; ".join(str(p) for p in exc.problems)) from None


def _decoded(decoder: Any, raw: dict[str, Any]) -> Any:
    ctx = DecodeContext(file="<ruleset.testing>")
    obj = decoder(ctx, raw)
    errors = [p for p in ctx.problems if p.severity == "error"]
    if errors:
        raise ValueError("; ".join(str(p) for p in errors))
    return obj
