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

From 1.22 (:data:`STD_DEV`) the score is ``int((1 - std) * 100)``, the standard deviation of the
fractions (capped at 1) over ``args.resources`` (cpu and memory by default; with two,
``std = |f1 - f2| / 2``), resources a node does not have (and extended resources the pod does not
request) left out; the volume fraction is gone (the BalanceAttachedNodeVolumes gate went in 1.22).
From 1.23 (:data:`ACTUAL_REQUESTS`) the requests are the pods' own, without the 100m/200Mi
defaults; from 1.33 (:data:`SKIP_BEST_EFFORT`) a pod requesting none of the resources is not
scored: PreScore returns Skip, so the framework runs no Score for it (it is absent from the
pod's scores; 1.33 is past 1.27, where the framework learnt Skip). Score called without that
PreScore (its cycle state absent, as upstream's ``getBalancedAllocationPreScoreState`` error
path) gives every node 0 for such a pod. The plugin has a PreScore point from 1.27
(:attr:`NodeResourcesBalancedAllocation.points_since`, upstream's kubernetes#115655), which
does nothing observable before 1.33.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any, ClassVar

import numpy as np

from ruleset import (
    MAX_NODE_SCORE,
    ArgError,
    Code,
    Handle,
    NodeSet,
    Plugin,
    Status,
    Target,
    hookimpl,
    switch,
)
from ruleset.api.pod import Pod
from ruleset.plugins.noderesources import args as args_module
from ruleset.plugins.noderesources import scoring
from ruleset.plugins.noderesources.args import STD_DEV, NodeResourcesBalancedAllocationArgs
from ruleset.plugins.noderesources.resource_allocation import (
    DEFAULT_RESOURCE_SPECS,
    fraction_of_capacity,
    requested_and_allocatable,
)

_REF = "pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go"
ACTUAL_REQUESTS = switch("NodeResourcesBalancedAllocation.actual-requests", "1.23",
                         "pods' own requests, not the 100m/200Mi non-zero defaults",
                         "pkg/scheduler/framework/plugins/noderesources/resource_allocation.go")
SKIP_BEST_EFFORT = switch("NodeResourcesBalancedAllocation.skip-best-effort", "1.33",
                          "a pod requesting none of args.resources is not scored (PreScore Skip)", _REF)

_SKIP = Status(Code.SKIP)


class NodeResourcesBalancedAllocation(Plugin):
    """Favours nodes whose CPU and memory (and optionally volume) use stay balanced once the pod
    is placed (Score)."""

    name = "NodeResourcesBalancedAllocation"
    Args = NodeResourcesBalancedAllocationArgs
    points_since: ClassVar[Mapping[str, str]] = {"preScore": "1.27"}

    def __init__(self, args: NodeResourcesBalancedAllocationArgs | None = None, handle: Handle | None = None):
        super().__init__(args, handle)
        target = self.handle.target
        problems = self.validate_args_for(self.args, target)
        if problems:
            raise ValueError(problems[0].message)
        self._reader = None
        self._by_shape = scoring.ScoresByShape()
        if target.has(STD_DEV):
            names = [spec.name for spec in self.args.resources or DEFAULT_RESOURCE_SPECS]
            self._reader = scoring.ResourceReader.at(target, names, use_requested=target.has(ACTUAL_REQUESTS))
        self._skip_best_effort = target.has(SKIP_BEST_EFFORT)

    @classmethod
    def defaults_for(cls, target: Target) -> dict[str, Any]:
        """The release's defaults the v1.20 dataclass lacks (:mod:`.args`)."""
        return args_module.balanced_allocation_defaults_for(target)

    @classmethod
    def validate_args(cls, args: NodeResourcesBalancedAllocationArgs) -> list[ArgError]:
        """``ValidateNodeResourcesBalancedAllocationArgs`` (:mod:`.args`)."""
        return args_module.validate_balanced_allocation_args(args)

    @classmethod
    def args_not_in(cls, target: Target) -> frozenset[str]:
        """The args the target release does not have (:mod:`.args`)."""
        return args_module.balanced_allocation_args_not_in(target)

    @classmethod
    def validate_args_for(cls, args: NodeResourcesBalancedAllocationArgs, target: Target) -> list[ArgError]:
        """Args the target release does not have (:mod:`.args`)."""
        return args_module.validate_balanced_allocation_args_for(args, target)

    @hookimpl
    def ruleset_pre_score(self, pod: Pod) -> Status | None:
        """``PreScore`` (1.27 on): from 1.33 Skip for a pod requesting none of ``args.resources``."""
        if self._skip_best_effort and self._reader is not None and not any(self._reader.pod_requests(pod)):
            return _SKIP
        return None

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        if self._reader is not None:
            requests = self._reader.pod_requests(pod)
            if self._skip_best_effort and not any(requests):
                return np.zeros(len(nodes), dtype=np.int64)
            return self._by_shape.scores(tuple(requests), nodes, partial(_balanced, self._reader, requests))
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


def _balanced(reader: scoring.ResourceReader, requests: list[int], nodes: NodeSet) -> np.ndarray:
    """The 1.22+ score of ``nodes``; one node (a kept shape catching up with the node the last pod
    took) in plain floats, the same operations."""
    if len(nodes) == 1:
        one = reader.read_one(requests, nodes.snapshot, nodes.indices.item(0))
        if one is not None:
            return np.array([scoring.balanced_one(one)], dtype=np.int64)
    return scoring.balanced_std_dev(reader.read(requests, nodes))
