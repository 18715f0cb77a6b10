"""NodeResourcesMostAllocated (Score): favour nodes whose capacity is already in use (bin packing).

Per resource ``requested * 100 / allocatable`` (0 when nothing is allocatable or the node is
over-requested), then the weighted average over the configured resources, all in integer
arithmetic (v1.20 ``mostResourceScorer``). ``requested`` is the node's total plus the pod's
request, with the non-zero defaults for cpu and memory. Args and their validation are those
of NodeResourcesLeastAllocated.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ruleset import MAX_NODE_SCORE
from ruleset.plugins.noderesources import scoring
from ruleset.plugins.noderesources.resource_allocation import ResourceWeightScorer


def most_requested_score(requested: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``mostRequestedScore`` of v1.20: 0 if capacity is 0 or requested exceeds it."""
    bad = (capacity == 0) | (requested > capacity)
    safe = np.where(bad, 1, capacity)
    return np.where(bad, 0, requested * MAX_NODE_SCORE // safe)


class NodeResourcesMostAllocated(ResourceWeightScorer):
    """Favours nodes whose configured resources are already most in use, packing pods tightly (Score)."""

    name = "NodeResourcesMostAllocated"
    replaced_by = "NodeResourcesFit with scoringStrategy MostAllocated"

    @staticmethod
    def scorer_1_22(columns: scoring.Columns, weights: Sequence[int]) -> np.ndarray:
        return scoring.most_allocated(columns, weights)

    @staticmethod
    def resource_score(requested: np.ndarray, allocatable: np.ndarray) -> np.ndarray:
        return most_requested_score(requested, allocatable)
