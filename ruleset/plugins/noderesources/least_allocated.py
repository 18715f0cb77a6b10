"""NodeResourcesLeastAllocated (Score): favour nodes with more free capacity.

Per resource ``(allocatable - requested) * 100 / allocatable`` (0 when nothing is
allocatable or the node is over-requested), then the weighted average over the configured
resources, all in integer arithmetic (v1.20 ``leastResourceScorer``). ``requested`` is the
node's total plus the pod's request, with the non-zero defaults for cpu and memory.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ruleset import MAX_NODE_SCORE
from ruleset.plugins.noderesources import scoring
from ruleset.plugins.noderesources.resource_allocation import ResourceWeightScorer


def least_requested_score(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``leastRequestedScore`` of v1.20: 0 if capacity is 0 or requested exceeds it."""
    bad = (capacity == 0) | (requested > capacity)
    safe = np.where(bad, 1, capacity)
    return np.where(bad, 0, (capacity - requested) * MAX_NODE_SCORE // safe)


class NodeResourcesLeastAllocated(ResourceWeightScorer):
    """Favours nodes with more of the configured resources left free (Score)."""

    name = "NodeResourcesLeastAllocated"
    replaced_by = "NodeResourcesFit with scoringStrategy LeastAllocated"

    @staticmethod
    def scorer_1_22(columns: scoring.Columns, weights: Sequence[int]) -> np.ndarray:
        return scoring.least_allocated(columns, weights)

    @staticmethod
    def resource_score(requested: np.ndarray, allocatable: np.ndarray) -> np.ndarray:
        return least_requested_score(requested, allocatable)
