"""EqualPriority (Score, legacy): every node gets the same score, 1.

The legacy ``EqualPriorityMap`` (pkg/scheduler/core/generic_scheduler.go, up to v1.17)
returned ``Score: 1`` for every node, and v1.20's ``prioritizeNodes`` still gives every
node 1 when no score plugin is configured; this plugin returns that same 1, so a profile
that lists only EqualPriority ranks nodes exactly as one without score plugins. The
v1.18+ legacy Policy translation skips EqualPriority altogether ("Skip registering
priority"), so there is no framework plugin upstream; this is the legacy priority as a
plugin. No NormalizeScore: 1 is already within [0, 100]; the total is ``weight``.
"""

from __future__ import annotations

import numpy as np

from ruleset import NodeSet, Plugin, hookimpl

EQUAL_SCORE = 1


class EqualPriority(Plugin):
    """Gives every node the same score, 1, as the legacy EqualPriority did (Score)."""

    name = "EqualPriority"

    @hookimpl
    def ruleset_score(self, nodes: NodeSet) -> np.ndarray:
        return np.full(len(nodes), EQUAL_SCORE, dtype=np.int64)
