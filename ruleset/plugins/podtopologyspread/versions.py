"""What PodTopologySpread does differently after v1.20: the switches, and the behaviour one
target selects (read once, when the plugin is built).

Not (yet) modelled, so a 1.34 profile still runs these as 1.20 does: ``minDomains``
(MinDomainsInPodTopologySpread), ``nodeAffinityPolicy``/``nodeTaintsPolicy``
(NodeInclusionPolicyInPodTopologySpread), v1.24's Filter counting only the nodes that match
the pod's node affinity, and the per-constraint (rather than per-key) pair counts of later
releases; see the report of issue 13.
"""

from __future__ import annotations

from dataclasses import dataclass

from ruleset import Target, switch

_DIR = "pkg/scheduler/framework/plugins/podtopologyspread/"

SYSTEM_DEFAULTS_WITHOUT_KEYS = switch(
    "PodTopologySpread.system-defaults-without-zone", "1.23",
    "system default constraints score nodes missing a topology label (only the constraints whose "
    "key the node carries add to its score)",
    _DIR + "scoring.go (PreScore requireAllTopologies, kubernetes#105046)")
SCORE_ROUND = switch(
    "PodTopologySpread.score-round", "1.24",
    "the raw score is rounded (math.Round), not truncated",
    _DIR + "scoring.go (Score, kubernetes#107384)")
MATCH_LABEL_KEYS = switch(
    "PodTopologySpread.matchLabelKeys", "1.25",
    "matchLabelKeys: the pod's values for those keys are ANDed into the constraint's selector",
    _DIR + "common.go (filterTopologySpreadConstraints)", gate="MatchLabelKeysInPodTopologySpread")
EMPTY_SELECTOR_COUNTS_NOTHING = switch(
    "PodTopologySpread.empty-selector-counts-nothing", "1.27",
    "a constraint with labelSelector {} counts no pods (upstream bug kubernetes#141339, kept)",
    _DIR + "common.go (countPodsMatchSelector, kubernetes#116607)")
PRE_SCORE_SKIP = switch(
    "PodTopologySpread.prescore-skip", "1.28",
    "a pod without soft constraints is not scored by PodTopologySpread (PreScore Skip), instead of "
    "every node scoring 100",
    _DIR + "scoring.go (PreScore, kubernetes#118608)")


@dataclass(frozen=True, slots=True)
class Behaviour:
    """The post-1.20 behaviours a target selects; the defaults are v1.20's."""

    system_defaults_without_keys: bool = False
    score_round: bool = False
    match_label_keys: bool = False
    empty_selector_counts_nothing: bool = False
    pre_score_skip: bool = False

    @classmethod
    def of(cls, target: Target) -> Behaviour:
        return cls(target.has(SYSTEM_DEFAULTS_WITHOUT_KEYS), target.has(SCORE_ROUND),
                   target.has(MATCH_LABEL_KEYS), target.has(EMPTY_SELECTOR_COUNTS_NOTHING),
                   target.has(PRE_SCORE_SKIP))


V120 = Behaviour()
