"""Helpers of PodTopologySpread that are not about spreading itself.

* :func:`go_log` is Go's ``math.Log`` bit for bit (the FreeBSD ``e_log.c`` algorithm that
  both Go's pure-Go version and its amd64 assembly evaluate in the same order), so the
  ``log(size + 2)`` topology weights, and the scores truncated from them, are those of a
  kube-scheduler binary and not of the C library's ``log``.
* :func:`node_affinity_mask` is v1.20's ``helper.PodMatchesNodeSelectorAndAffinityTerms``
  over every node of a snapshot (NodeAffinity's implementation), skipped for the common
  pod that constrains nothing.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ruleset.plugins.node_affinity import pod_matches_node_selector_and_affinity

if TYPE_CHECKING:
    from ruleset.api.pod import Pod
    from ruleset.snapshot import Snapshot

# Constants of Go's src/math/log.go (and log_amd64.s).
_HALF_SQRT2 = 7.07106781186547524401e-01
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_L1 = 6.666666666666735130e-01
_L2 = 3.999999999940941908e-01
_L3 = 2.857142874366239149e-01
_L4 = 2.222219843214978396e-01
_L5 = 1.818357216161805012e-01
_L6 = 1.531383769920937332e-01
_L7 = 1.479819860511658591e-01


def go_log(x: float) -> float:
    """Go's ``math.Log(x)``, evaluated in Go's order (Python floats are IEEE doubles, no FMA).

    The C library's ``log`` is usually correctly rounded while Go's is within one ulp, so
    the two can differ in the last bit; a score truncated to an integer must use Go's.
    """
    if math.isnan(x) or x == math.inf:
        return x
    if x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    f1, ki = math.frexp(x)
    if f1 < _HALF_SQRT2:
        f1 *= 2
        ki -= 1
    f = f1 - 1
    k = float(ki)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_L1 + s4 * (_L3 + s4 * (_L5 + s4 * _L7)))
    t2 = s4 * (_L2 + s4 * (_L4 + s4 * _L6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


@lru_cache(maxsize=4096)
def topology_normalizing_weight(size: int) -> float:
    """``topologyNormalizingWeight``: ``math.Log(float64(size + 2))``."""
    return go_log(float(size + 2))


def node_affinity_mask(pod: Pod, snapshot: Snapshot) -> np.ndarray | None:
    """``PodMatchesNodeSelectorAndAffinityTerms`` for every snapshot node; None when the pod
    has neither a ``nodeSelector`` nor a required node affinity (every node matches)."""
    affinity = pod.affinity.node_affinity
    if not pod.node_selector and (affinity is None or affinity.required is None):
        return None
    return pod_matches_node_selector_and_affinity(pod, snapshot.all_nodes())


def tolerated_mask(pod: Pod, snapshot: Snapshot) -> np.ndarray:
    """Per snapshot node: the pod tolerates every NoSchedule and NoExecute taint of it
    (``FindMatchingUntoleratedTaint`` with ``DoNotScheduleTaintsFilterFunc`` finds none)."""
    out = np.ones(snapshot.num_nodes, dtype=bool)
    for i, node in enumerate(snapshot.nodes):
        for taint in node.taints:
            if taint.effect not in ("NoSchedule", "NoExecute"):
                continue
            if not any(t.tolerates(taint.key, taint.value, taint.effect) for t in pod.tolerations):
                out[i] = False
                break
    return out


class NodeInclusion:
    """``matchNodeInclusionPolicies`` over every snapshot node, for one pod (the masks are
    computed on first use and shared by its constraints)."""

    def __init__(self, pod: Pod, snapshot: Snapshot):
        self.pod = pod
        self.snapshot = snapshot
        self.affinity = node_affinity_mask(pod, snapshot)
        self._tolerated: np.ndarray | None = None

    def mask(self, affinity_policy: str, taints_policy: str) -> np.ndarray | None:
        """The nodes a constraint with these policies counts; None for every node."""
        out = self.affinity if affinity_policy == "Honor" else None
        if taints_policy == "Honor":
            if self._tolerated is None:
                self._tolerated = tolerated_mask(self.pod, self.snapshot)
            out = self._tolerated if out is None else out & self._tolerated
        return out
