"""NodeResourcesBalancedAllocation (Score): favour nodes whose CPU and memory use stay even.

v1.20: with ``f = requested / allocatable`` per resource (non-zero requests, the pod
included), a node with any fraction at or above 1 scores 0; otherwise
``int((1 - |f_cpu - f_mem|) * 100)``.

With ``balanceAttachedNodeVolumes = true`` (upstream's alpha feature gate of that name) and
a pod that has volumes, the volume fraction joins in and the score is
``int((1 - variance(f_cpu, f_mem, f_vol)) * 100)``. The volume fraction is the pod's volume
count over the volumes the node can still attach: the sum of its
``attachable-volumes-*`` allocatable minus the volumes of the pods already on it; a volume
fraction at or above 1 scores 0. Nodes reporting no attachable volumes, or with none left,
fall back to the two-resource formula, as upstream does for an ``AllocatableVolumesCount``
of 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ruleset import MAX_NODE_SCORE, NodeSet, Plugin, arg_field, hookimpl
from ruleset.api.pod import Pod
from ruleset.plugins.noderesources.resource_allocation import fraction_of_capacity, requested_and_allocatable


@dataclass(frozen=True, slots=True)
class NodeResourcesBalancedAllocationArgs:
    """``balanceAttachedNodeVolumes``: upstream's BalanceAttachedNodeVolumes feature gate, as an arg."""

    balance_attached_node_volumes: bool = arg_field(
        "balanceAttachedNodeVolumes", False, schema={"type": "boolean"},
        description="Include the attachable-volume fraction (variance of three fractions).")


class NodeResourcesBalancedAllocation(Plugin):
    """Favours nodes whose CPU and memory (and optionally volume) use stay balanced once the pod
    is placed (Score)."""

    name = "NodeResourcesBalancedAllocation"
    Args = NodeResourcesBalancedAllocationArgs

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        cpu_req, cpu_alloc = requested_and_allocatable(pod, nodes, "cpu")
        mem_req, mem_alloc = requested_and_allocatable(pod, nodes, "memory")
        cpu = fraction_of_capacity(cpu_req, cpu_alloc)
        mem = fraction_of_capacity(mem_req, mem_alloc)
        score = ((1.0 - np.abs(cpu - mem)) * MAX_NODE_SCORE).astype(np.int64)
        if self.args.balance_attached_node_volumes and pod.volumes:
            allocatable_volumes = self._allocatable_volumes(nodes)
            use = allocatable_volumes > 0
            if use.any():
                with np.errstate(divide="ignore", invalid="ignore"):
                    vol = len(pod.volumes) / np.where(use, allocatable_volumes, 1).astype(np.float64)
                mean = (cpu + mem + vol) / 3.0
                variance = ((cpu - mean) * (cpu - mean) + (mem - mean) * (mem - mean)
                            + (vol - mean) * (vol - mean)) / 3.0
                with_volumes = np.where(vol >= 1, 0, ((1.0 - variance) * MAX_NODE_SCORE).astype(np.int64))
                score = np.where(use, with_volumes, score)
        return np.where((cpu >= 1) | (mem >= 1), 0, score)

    @staticmethod
    def _allocatable_volumes(nodes: NodeSet) -> np.ndarray:
        snapshot = nodes.snapshot
        limit = np.zeros(len(nodes), dtype=np.int64)
        for name in snapshot.resource_names():
            if name.startswith("attachable-volumes-"):
                limit += snapshot.allocatable(name)[nodes.indices]
        return np.where(limit > 0, limit - snapshot.volume_count[nodes.indices], 0)
