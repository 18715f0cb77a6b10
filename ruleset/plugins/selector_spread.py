"""SelectorSpread (PreScore, Score, NormalizeScore): spread the pods of a Service or controller.

``selectorspread/selector_spread.go`` of v1.20. Also answers to its legacy name
``ServiceSpreading`` (ServiceSpreadingPriority, "same as SelectorSpreadPriority, replaced").

* PreScore: :func:`~ruleset.plugins.helper.spread.default_selector` of the pod (its
  Services' and RCs' selectors merged, ANDed with its ReplicaSets' and StatefulSets').
* Score: per node, the pods of the pod's namespace that are not being deleted and match
  that selector; 0 everywhere when the selector is empty.
* NormalizeScore, over the scored nodes, in Go's float64 arithmetic::

      maxNode = max(0, counts);  countsByZone[z] = Σ counts of the nodes in zone z
      maxZone = max(0, countsByZone)
      f  = 100 if maxNode == 0 else 100 * (float(maxNode - count) / float(maxNode))
      if any scored node has a zone key and this node has one:
          zs = 100 if maxZone == 0 else 100 * (float(maxZone - countsByZone[z]) / float(maxZone))
          f  = f * (1.0 - zoneWeighting) + zoneWeighting * zs
      score = int64(f)          # truncation

  The zone key is ``utilnode.GetZoneKey`` (region and zone from the failure-domain or
  topology labels; :func:`ruleset.snapshot.snapshot.zone_key`), as the snapshot's
  ``zone_codes`` hold it.

Everything is skipped when the pod has ``topologySpreadConstraints``: Score gives 0 and
NormalizeScore leaves the zeros alone (the pod's own constraints are PodTopologySpread's).

``zoneWeighting`` is an arg of ruleset's (upstream has the constant ``2.0 / 3.0``): a
number in [0, 1], by default exactly the float64 ``2.0 / 3.0``. Go iterates
``countsByZone`` (a map) only to find its maximum, so its order cannot matter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ruleset import MAX_NODE_SCORE, ArgError, CycleState, NodeSet, Plugin, arg_field, hookimpl
from ruleset.api.pod import Pod
from ruleset.plugins.helper.spread import default_selector, matching_pods_per_node
from ruleset.selector import Selector

NAME = "SelectorSpread"
PRE_SCORE_STATE_KEY = "PreScore" + NAME
#: Upstream's ``zoneWeighting float64 = 2.0 / 3.0``: 2/3 of the score from zone spreading.
ZONE_WEIGHTING = 2.0 / 3.0


def _go_float(value: float) -> str:
    """Go's ``%v`` of a float64 (``strconv.FormatFloat(v, 'g', -1, 64)``): 1.5, 2, 1e+06, NaN, +Inf.

    Shortest round-trip digits (Python's ``repr`` finds the same ones), in exponent form when
    the decimal exponent is below -4 or at least 6, as Go does for the shortest precision.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exp_text) if exp_text else 0)  # digits before the decimal point
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if len(digits) <= point:
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


@dataclass(frozen=True, slots=True)
class SelectorSpreadArgs:
    """ruleset's SelectorSpread args (v1.20 has no SelectorSpreadArgs kind)."""

    zone_weighting: float = arg_field(
        "zoneWeighting", ZONE_WEIGHTING, parse=float, schema={"type": "number"},
        description="Share of the score that comes from spreading across zones, in [0, 1] (the rest from "
                    "spreading across nodes); 2/3 as in kube-scheduler.")


def skip_selector_spread(pod: Pod) -> bool:
    """``skipSelectorSpread``: the pod spreads itself with topologySpreadConstraints."""
    return len(pod.topology_spread_constraints) != 0


def count_matching_pods(pod: Pod, selector: Selector, nodes: NodeSet) -> np.ndarray:
    """``countMatchingPods`` for every node of ``nodes`` at once.

    Counts the assigned pods of ``pod``'s namespace, not being deleted, whose labels match
    ``selector``; all zero when the selector is empty.
    """
    if selector.empty() or len(nodes) == 0:
        return np.zeros(len(nodes), dtype=np.int64)
    return matching_pods_per_node(nodes.snapshot, selector, pod.namespace)[nodes.indices]


def normalize(scores: np.ndarray, zones: np.ndarray, zone_weighting: float) -> np.ndarray:
    """SelectorSpread's NormalizeScore over raw counts, with each node's zone code (-1: none)."""
    counts = np.asarray(scores, dtype=np.int64)
    if counts.size == 0:
        return counts.copy()
    max_node = max(0, int(counts.max()))
    if max_node > 0:
        # float64(max-count) / float64(max), then * 100.0: Go's order of operations.
        f_score = MAX_NODE_SCORE * ((max_node - counts).astype(np.float64) / np.float64(max_node))
    else:
        f_score = np.full(counts.shape, float(MAX_NODE_SCORE))
    zoned = zones >= 0
    if zoned.any():
        # Only the zones of scored nodes are in countsByZone; a zone's count is ≥ 0, so zones
        # that no scored node has cannot raise the maximum.
        by_zone = np.zeros(int(zones.max()) + 1, dtype=np.int64)
        np.add.at(by_zone, zones[zoned], counts[zoned])
        max_zone = max(0, int(by_zone.max()))
        zone_count = by_zone[np.where(zoned, zones, 0)]
        if max_zone > 0:
            zone_score = MAX_NODE_SCORE * ((max_zone - zone_count).astype(np.float64) / np.float64(max_zone))
        else:
            zone_score = np.full(counts.shape, float(MAX_NODE_SCORE))
        blended = f_score * (1.0 - zone_weighting) + zone_weighting * zone_score
        f_score = np.where(zoned, blended, f_score)
    return f_score.astype(np.int64)  # int64(fScore) truncates toward zero


class SelectorSpread(Plugin):
    """Spreads the pods of a Service or controller over nodes and zones (PreScore, Score)."""

    name = NAME
    aliases = ("ServiceSpreading",)
    # Refused by kubescheduler.config.k8s.io/v1 (1.25) but allowed by v1beta3 until the plugin was
    # removed (PR #117720, 1.29).
    removed_in = "1.29"
    replaced_by = "PodTopologySpread (its system default constraints spread the same pods)"
    Args = SelectorSpreadArgs

    @classmethod
    def validate_args(cls, args: SelectorSpreadArgs) -> list[ArgError]:
        weighting = args.zone_weighting
        if not 0.0 <= weighting <= 1.0:  # NaN fails too
            message = f"zoneWeighting: Invalid value: {_go_float(weighting)}: not in valid range [0, 1]"
            return [ArgError(("zoneWeighting",), message)]
        return []

    @hookimpl
    def ruleset_pre_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> None:
        if skip_selector_spread(pod):
            return
        state.write(PRE_SCORE_STATE_KEY, default_selector(pod, nodes.snapshot))

    @hookimpl
    def ruleset_score(self, state: CycleState, pod: Pod, nodes: NodeSet) -> np.ndarray:
        if skip_selector_spread(pod):
            return np.zeros(len(nodes), dtype=np.int64)
        if PRE_SCORE_STATE_KEY not in state:
            raise LookupError(f'Error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        selector: Selector = state.read(PRE_SCORE_STATE_KEY)
        return count_matching_pods(pod, selector, nodes)

    @hookimpl
    def ruleset_normalize_score(self, pod: Pod, nodes: NodeSet, scores: np.ndarray) -> np.ndarray | None:
        if skip_selector_spread(pod):
            return None
        zones = nodes.snapshot.zone_codes[nodes.indices]
        return normalize(scores, zones, self.args.zone_weighting)
