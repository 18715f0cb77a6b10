"""NodeResourceLimits (PreScore, Score): a tie-breaker of 1 for nodes that can hold the pod's limits.

The legacy ``ResourceLimitsPriority`` (``resource_limits.go``, behind the
``ResourceLimitsPriorityFunction`` gate). PreScore computes the pod's limits as
``max(Σ containers, each init container)``; Score gives 1 when the cpu limit or the memory
limit is non-zero and at most the node's (non-zero) allocatable, else 0. No normalization.
Upstream registers it as ``NodeResourceLimits``; ``ResourceLimits`` is accepted as an alias.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ruleset import CycleState, NodeSet, Plugin, hookimpl
from ruleset.api import resources as res
from ruleset.api.pod import Pod

PRE_SCORE_STATE_KEY = "PreScoreNodeResourceLimits"


@dataclass(frozen=True, slots=True)
class PodLimits:
    """The part of ``getResourceLimits`` that Score reads: milli-CPU and memory."""

    milli_cpu: int
    memory: int


class PreScoreStateMissing(RuntimeError):
    """Score ran without PreScore, as upstream's ``getPodResource`` reports it."""


def compute_score(limit: int, allocatable: np.ndarray) -> np.ndarray:
    """``computeScore``: whether a non-zero limit fits a non-zero allocatable."""
    return (limit != 0) & (allocatable != 0) & (limit <= allocatable)


class NodeResourceLimits(Plugin):
    """Scores 1 the nodes whose allocatable CPU or memory can hold the pod's limits, a tie-breaker
    (PreScore, Score)."""

    name = "NodeResourceLimits"
    aliases = ("ResourceLimits",)

    @hookimpl
    def ruleset_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> None:
        if not len(nodes):
            return
        limits = pod.limits
        state.write(PRE_SCORE_STATE_KEY, PodLimits(limits.get(res.CPU, 0), limits.get(res.MEMORY, 0)))

    @hookimpl
    def ruleset_score(self, state: CycleState, nodes: NodeSet) -> np.ndarray:
        limits = state.get(PRE_SCORE_STATE_KEY)
        if limits is None:
            raise PreScoreStateMissing(f'Error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        snapshot = nodes.snapshot
        fits = (compute_score(limits.milli_cpu, snapshot.allocatable(res.CPU)[nodes.indices])
                | compute_score(limits.memory, snapshot.allocatable(res.MEMORY)[nodes.indices]))
        return fits.astype(np.int64)
