"""What PodTopologySpread does differently after v1.20: the switches, and the behaviour one
target selects (read once, when the plugin is built).

Not modelled: the ``PodsWithOwnerRef`` shortcut of some later scoring.go versions (counting
a pod's siblings by owner rather than by selector; not verified to be in any release).
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
FILTER_COUNTS_AFFINITY_NODES = switch(
    "PodTopologySpread.filter-counts-affinity-nodes-only", "1.24",
    "Filter counts only the pods of nodes that match the pod's nodeSelector/required node affinity "
    "(v1.20 counted every node whose topology value an eligible node has); of constraints sharing a "
    "topology key, a node's count is the last constraint's (v1.20 added them)",
    _DIR + "filtering.go (calPreFilterState, kubernetes#107009 and #107623)")
MIN_DOMAINS = switch(
    "PodTopologySpread.minDomains", "1.24",
    "minDomains: while fewer domains than minDomains are eligible, Filter's global minimum is 0",
    _DIR + "filtering.go (minMatchNum)", gate="MinDomainsInPodTopologySpread")
NODE_INCLUSION_POLICY = switch(
    "PodTopologySpread.node-inclusion-policy", "1.25",
    "nodeAffinityPolicy (default Honor) and nodeTaintsPolicy (default Ignore) choose, per constraint, "
    "which nodes count in Filter and Score",
    _DIR + "common.go (matchNodeInclusionPolicies), filtering.go, scoring.go",
    gate="NodeInclusionPolicyInPodTopologySpread")
PER_CONSTRAINT_COUNTS = switch(
    "PodTopologySpread.per-constraint-counts", "1.33",
    "constraints sharing a topology key count (and find their minimum and domains) separately, "
    "instead of adding into one count per topology value",
    _DIR + "filtering.go, scoring.go (kubernetes#129119)")
PRE_SCORE_SKIP = switch(
    "PodTopologySpread.prescore-skip", "1.28",
    "a pod without soft constraints is not scored by PodTopologySpread (PreScore Skip), instead of "
    "every node scoring 100",
    _DIR + "scoring.go (PreScore, kubernetes#118608)")
PRE_FILTER_SKIP = switch(
    "PodTopologySpread.prefilter-skip", "1.28",
    "a pod without hard (DoNotSchedule) constraints, its own or the defaults, is not filtered by "
    "PodTopologySpread (PreFilter Skip: Filter, AddPod and RemovePod are not run)",
    _DIR + "filtering.go (PreFilter, kubernetes#117683)")


@dataclass(frozen=True, slots=True)
class Behaviour:
    """The post-1.20 behaviours a target selects; the defaults are v1.20's."""

    system_defaults_without_keys: bool = False
    score_round: bool = False
    match_label_keys: bool = False
    empty_selector_counts_nothing: bool = False
    pre_score_skip: bool = False
    pre_filter_skip: bool = False
    filter_counts_affinity_nodes: bool = False
    min_domains: bool = False
    node_inclusion_policy: bool = False
    per_constraint_counts: bool = False

    @classmethod
    def of(cls, target: Target) -> Behaviour:
        # By name, not position: a new field cannot shift the others.
        return cls(system_defaults_without_keys=target.has(SYSTEM_DEFAULTS_WITHOUT_KEYS),
                   score_round=target.has(SCORE_ROUND), match_label_keys=target.has(MATCH_LABEL_KEYS),
                   empty_selector_counts_nothing=target.has(EMPTY_SELECTOR_COUNTS_NOTHING),
                   pre_score_skip=target.has(PRE_SCORE_SKIP),
                   pre_filter_skip=target.has(PRE_FILTER_SKIP),
                   filter_counts_affinity_nodes=target.has(FILTER_COUNTS_AFFINITY_NODES),
                   min_domains=target.has(MIN_DOMAINS),
                   node_inclusion_policy=target.has(NODE_INCLUSION_POLICY),
                   per_constraint_counts=target.has(PER_CONSTRAINT_COUNTS))


V120 = Behaviour()
