"""What kube-scheduler's plugins are to ruleset: points, args fields, and what cannot cross.

Upstream plugin names map onto ruleset's catalogue by name (the registry decides what
ruleset implements, third-party packages included), with three exceptions:

* ``DefaultPodTopologySpread`` (1.18) is ``SelectorSpread`` (renamed in 1.19);
* ``NodeResourcesFit``'s Score (v1beta2+, ``scoringStrategy``) is one of ruleset's
  ``NodeResourcesLeastAllocated`` / ``NodeResourcesMostAllocated`` / ``RequestedToCapacityRatio``;
* plugins ruleset does not model are either *harmless to drop* (:data:`HARMLESS`) or
  *unsupported* (everything else), see :func:`unsupported_reason`.
"""

from __future__ import annotations

from typing import Any

from ruleset.kversion import KubeVersion

# --------------------------------------------------------------- upstream extension points
#: Points each in-tree plugin implements, v1.20 (framework/plugins/*, the interfaces each
#: plugin type asserts). Used to check a v1beta1 export.
POINTS_1_20: dict[str, frozenset[str]] = {
    "PrioritySort": frozenset({"queueSort"}),
    "NodeUnschedulable": frozenset({"filter"}),
    "NodeName": frozenset({"filter"}),
    "TaintToleration": frozenset({"filter", "preScore", "score"}),
    "NodeAffinity": frozenset({"filter", "score"}),
    "NodePorts": frozenset({"preFilter", "filter"}),
    "NodeResourcesFit": frozenset({"preFilter", "filter"}),
    "PodTopologySpread": frozenset({"preFilter", "filter", "preScore", "score"}),
    "InterPodAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "DefaultPreemption": frozenset({"postFilter"}),
    "NodeResourcesBalancedAllocation": frozenset({"score"}),
    "NodeResourcesLeastAllocated": frozenset({"score"}),
    "NodeResourcesMostAllocated": frozenset({"score"}),
    "RequestedToCapacityRatio": frozenset({"score"}),
    "ImageLocality": frozenset({"score"}),
    "NodePreferAvoidPods": frozenset({"score"}),
    "SelectorSpread": frozenset({"preScore", "score"}),
    "NodeLabel": frozenset({"filter", "score"}),
    "ServiceAffinity": frozenset({"preFilter", "filter", "score"}),
    "DefaultBinder": frozenset({"bind"}),
    "VolumeBinding": frozenset({"preFilter", "filter", "reserve", "preBind"}),
    "VolumeRestrictions": frozenset({"filter"}),
    "VolumeZone": frozenset({"filter"}),
    "NodeVolumeLimits": frozenset({"filter"}),
    "EBSLimits": frozenset({"filter"}),
    "GCEPDLimits": frozenset({"filter"}),
    "AzureDiskLimits": frozenset({"filter"}),
    "CinderLimits": frozenset({"filter"}),
}
POINTS_1_20["DefaultPodTopologySpread"] = POINTS_1_20["SelectorSpread"]
POINTS_1_20["NodeResourceLimits"] = frozenset({"preScore", "score"})

#: Points each in-tree plugin implements, v1.28: what ``multiPoint`` expands a plugin to.
POINTS_1_28: dict[str, frozenset[str]] = {
    **POINTS_1_20,
    "NodeAffinity": frozenset({"preFilter", "filter", "preScore", "score"}),
    "NodeResourcesFit": frozenset({"preFilter", "filter", "preScore", "score"}),
    "NodeResourcesBalancedAllocation": frozenset({"preScore", "score"}),
    "TaintToleration": frozenset({"filter", "preScore", "score"}),
    "VolumeBinding": frozenset({"preFilter", "filter", "reserve", "preBind", "preScore", "score"}),
    "VolumeRestrictions": frozenset({"preFilter", "filter"}),
    "VolumeZone": frozenset({"preFilter", "filter"}),
    "NodeVolumeLimits": frozenset({"preFilter", "filter"}),
    "SchedulingGates": frozenset({"preEnqueue"}),
    "DynamicResources": frozenset({"preEnqueue", "preFilter", "filter", "postFilter", "reserve", "preBind"}),
}


#: The first release the v1.28 tables serve.
_V1_22 = KubeVersion(1, 22)
#: Points an in-tree plugin gained in a release the two tables above do not mark: the v1.20
#: table serves 1.20 and 1.21, the v1.28 one every later release.
POINTS_SINCE: dict[str, dict[str, str]] = {
    # nodeaffinity: PreFilter and PreScore from 1.21 (kubernetes#99213; both methods in v1.21's
    # node_affinity.go).
    "NodeAffinity": {"preFilter": "1.21", "preScore": "1.21"},
    # noderesources: PreScore (Fit's and BalancedAllocation's) from 1.27, the methods first in
    # v1.27's fit.go and balanced_allocation.go.
    "NodeResourcesFit": {"preScore": "1.27"},
    "NodeResourcesBalancedAllocation": {"preScore": "1.27"},
    # volumebinding: PreScore (its Skip) from 1.30, first in v1.30's volume_binding.go.
    "VolumeBinding": {"preScore": "1.30"},
    # volumezone: PreFilter (a Skip for pods without claims) from 1.27, first in v1.27's volume_zone.go.
    "VolumeZone": {"preFilter": "1.27"},
    # nodevolumelimits: PreFilter (a Skip for pods without volumes) from 1.28 (kubernetes#115398).
    **{name: {"preFilter": "1.28"}
       for name in ("NodeVolumeLimits", "EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits")},
}


def upstream_points(name: str, release: str) -> frozenset[str] | None:
    """Points the in-tree plugin ``name`` implements in ``release`` (None: not in-tree)."""
    version = KubeVersion.parse(release)
    points = (POINTS_1_28 if version >= _V1_22 else POINTS_1_20).get(name)
    if points is None:
        return None
    for point, since in POINTS_SINCE.get(name, {}).items():
        points = points | {point} if version >= KubeVersion.parse(since) else points - {point}
    return points


# ------------------------------------------------------------------ what cannot cross
#: Upstream plugins ruleset leaves out on import without making it an error, and why:
#: what they decide never arises in a snapshot ruleset reads. Each is still reported. (Empty
#: since the volume plugins are modelled; kept for plugins of that kind to come.)
HARMLESS: dict[str, str] = {}

#: In-tree plugins ruleset does not implement and that change placements: never dropped silently.
UNSUPPORTED_IN_TREE: dict[str, str] = {
    "ServiceAffinity": "ruleset does not implement ServiceAffinity (deprecated upstream in 1.20, "
    "removed in v1beta2)",
    "DynamicResources": "ruleset does not implement dynamic resource allocation (ResourceClaims)",
    "NodeResourceLimits": "ruleset's NodeResourceLimits has no in-tree equivalent after 1.18",
}


def type_word(value: Any) -> str:
    """The YAML/JSON kind of a decoded value, as a message names it."""
    for kind, word in ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"),
                       (list, "a list"), (dict, "a mapping")):
        if isinstance(value, kind):
            return word
    return "null" if value is None else type(value).__name__


def extenders_reason(count: int) -> str:
    """Why a configuration's (or a Policy's) ``extenders`` do not cross."""
    return (f"{count} scheduler extender(s): ruleset does not call HTTP extenders, so their filters, "
            "scores and binds are left out")


#: The ruleset plugins that kube-scheduler v1beta2+ expresses as NodeResourcesFit's scoringStrategy.
SCORING_STRATEGIES = {
    "LeastAllocated": "NodeResourcesLeastAllocated",
    "MostAllocated": "NodeResourcesMostAllocated",
    "RequestedToCapacityRatio": "RequestedToCapacityRatio",
}
STRATEGY_OF = {plugin: strategy for strategy, plugin in SCORING_STRATEGIES.items()}

#: Upstream names of 1.18 that 1.19 renamed, to ruleset's names.
RENAMED = {"DefaultPodTopologySpread": "SelectorSpread"}

# ----------------------------------------------------------------------------- args
#: Args fields KubeSchedulerConfiguration has for each plugin (kind ``<Name>Args``), by the
#: first release that has them. A ruleset arg outside these is an extension: exported only
#: when it holds the default (what kube-scheduler does), refused otherwise.
ARGS_FIELDS_1_20: dict[str, tuple[str, ...]] = {
    "NodeLabel": ("presentLabels", "absentLabels", "presentLabelsPreference", "absentLabelsPreference"),
    "NodeResourcesFit": ("ignoredResources", "ignoredResourceGroups"),
    "NodeResourcesLeastAllocated": ("resources",),
    "NodeResourcesMostAllocated": ("resources",),
    "RequestedToCapacityRatio": ("shape", "resources"),
    "InterPodAffinity": ("hardPodAffinityWeight",),
    "NodeAffinity": ("addedAffinity",),
    "PodTopologySpread": ("defaultConstraints", "defaultingType"),
    "DefaultPreemption": ("minCandidateNodesPercentage", "minCandidateNodesAbsolute"),
    "ServiceAffinity": ("affinityLabels", "antiAffinityLabelsPreference"),
    "VolumeBinding": ("bindTimeoutSeconds",),
}
ARGS_FIELDS_1_28: dict[str, tuple[str, ...]] = {
    "NodeResourcesFit": ("ignoredResources", "ignoredResourceGroups", "scoringStrategy"),
    "NodeResourcesBalancedAllocation": ("resources",),
    "InterPodAffinity": ("hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"),
    "NodeAffinity": ("addedAffinity",),
    "PodTopologySpread": ("defaultConstraints", "defaultingType"),
    "DefaultPreemption": ("minCandidateNodesPercentage", "minCandidateNodesAbsolute"),
    "VolumeBinding": ("bindTimeoutSeconds", "shape"),
}
#: Upstream v1 arg values that ruleset's plugins behave as (their defaults); any other
#: value of these fields has no ruleset equivalent.
UPSTREAM_ONLY_DEFAULTS: dict[tuple[str, str], Any] = {
    ("NodeResourcesBalancedAllocation", "resources"): [
        {"name": "cpu", "weight": 1},
        {"name": "memory", "weight": 1},
    ],
    ("InterPodAffinity", "ignorePreferredTermsOfExistingPods"): False,
}

DEFAULT_RESOURCES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def args_fields(plugin: str, release: str) -> tuple[str, ...] | None:
    """The KubeSchedulerConfiguration args fields of ``plugin`` in ``release`` (None: no Args kind)."""
    table = ARGS_FIELDS_1_28 if KubeVersion.parse(release) >= _V1_22 else ARGS_FIELDS_1_20
    return table.get(plugin)
