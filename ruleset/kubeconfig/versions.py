"""KubeSchedulerConfiguration API versions, their default plugin sets and in-tree registries.

Each version is read the way the kube-scheduler release that served it read it; the tables
below are upstream's, per release (sources in each comment). ``kubescheduler.config.k8s.io``:

======== ============ ===================================================================
version  defaults of  shape
======== ============ ===================================================================
v1alpha1 1.18         one implicit profile: ``schedulerName``, ``plugins``, ``pluginConfig``
                      at top level; ``algorithmSource.provider`` picks the default set
v1alpha2 1.18         ``profiles``; ``unreserve`` point; no ``postFilter`` point
v1beta1  1.20         per-point ``enabled``/``disabled`` merged: defaults minus disabled,
                      then the custom enabled appended (``mergePluginSets``)
v1beta2  1.22         a custom-enabled default plugin replaces the default in place
v1beta3  1.23         ``multiPoint`` (all defaults are enabled through it)
v1       1.28         ``multiPoint``; ``preEnqueue``
======== ============ ===================================================================

v1alpha1 (1.16-1.17) predates the framework's own default plugin set: the predicates and
priorities of the algorithm provider ran beside the plugins. ruleset reads it with the
1.18 set, which is those predicates and priorities expressed as plugins, and v1alpha1's
``postFilter`` point (informational, run after Filter) as ``preScore``, the name 1.18 gave it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ruleset.framework.points import POINT_KEYS
from ruleset.kversion import NEWEST, KubeVersion

GROUP = "kubescheduler.config.k8s.io"

#: Extension points in cycle order, as KubeSchedulerConfiguration spells them
#: (``preEnqueue``, v1 only, first; it is one of the framework's points too).
ALL_POINTS = tuple(dict.fromkeys(("preEnqueue", *POINT_KEYS)))

PluginSet = dict[str, list[tuple[str, int | None]]]

# --------------------------------------------------------------------- default sets
# pkg/scheduler/algorithmprovider/registry.go getDefaultConfig (1.18, the EvenPodsSpread
# gate on). Preemption was not a plugin before 1.19: ruleset adds DefaultPreemption as
# PostFilter unless ``disablePreemption`` is set (see merge).
_FILTERS_AFTER_AFFINITY_118 = [
    "VolumeRestrictions",
    "TaintToleration",
    "EBSLimits",
    "GCEPDLimits",
    "NodeVolumeLimits",
    "AzureDiskLimits",
    "VolumeBinding",
    "VolumeZone",
]
DEFAULTS_1_18: PluginSet = {
    "queueSort": [("PrioritySort", None)],
    "preFilter": [
        ("NodeResourcesFit", None),
        ("NodePorts", None),
        ("PodTopologySpread", None),
        ("InterPodAffinity", None),
    ],
    "filter": [
        ("NodeUnschedulable", None),
        ("NodeResourcesFit", None),
        ("NodeName", None),
        ("NodePorts", None),
        ("NodeAffinity", None),
        *((n, None) for n in _FILTERS_AFTER_AFFINITY_118),
        ("PodTopologySpread", None),
        ("InterPodAffinity", None),
    ],
    "preScore": [
        ("InterPodAffinity", None),
        ("PodTopologySpread", None),
        ("DefaultPodTopologySpread", None),
        ("TaintToleration", None),
    ],
    "score": [
        ("NodeResourcesBalancedAllocation", 1),
        ("ImageLocality", 1),
        ("InterPodAffinity", 1),
        ("NodeResourcesLeastAllocated", 1),
        ("NodeAffinity", 1),
        ("NodePreferAvoidPods", 10000),
        ("PodTopologySpread", 2),
        ("DefaultPodTopologySpread", 1),
        ("TaintToleration", 1),
    ],
    "reserve": [("VolumeBinding", None)],
    "unreserve": [("VolumeBinding", None)],
    "preBind": [("VolumeBinding", None)],
    "bind": [("DefaultBinder", None)],
    "postBind": [("VolumeBinding", None)],
}
#: 1.18's defaults as ruleset reads v1alpha1/v1alpha2 (as 1.20): without VolumeBinding at
#: postBind, where 1.18's plugin only cleared its cache (DeletePodBindings) and 1.20's has no
#: PostBind at all.
DEFAULTS_1_18_AS_1_20: PluginSet = {
    point: items for point, items in DEFAULTS_1_18.items() if point != "postBind"}

# pkg/scheduler/algorithmprovider/registry.go getDefaultConfig @1.20 (the
# DefaultPodTopologySpread gate on, so no SelectorSpread; VolumeCapacityPriority off).
DEFAULTS_1_20: PluginSet = {
    "queueSort": [("PrioritySort", None)],
    "preFilter": [
        ("NodeResourcesFit", None),
        ("NodePorts", None),
        ("PodTopologySpread", None),
        ("InterPodAffinity", None),
        ("VolumeBinding", None),
    ],
    "filter": [
        ("NodeUnschedulable", None),
        ("NodeName", None),
        ("TaintToleration", None),
        ("NodeAffinity", None),
        ("NodePorts", None),
        ("NodeResourcesFit", None),
        ("VolumeRestrictions", None),
        ("EBSLimits", None),
        ("GCEPDLimits", None),
        ("NodeVolumeLimits", None),
        ("AzureDiskLimits", None),
        ("VolumeBinding", None),
        ("VolumeZone", None),
        ("PodTopologySpread", None),
        ("InterPodAffinity", None),
    ],
    "postFilter": [("DefaultPreemption", None)],
    "preScore": [("InterPodAffinity", None), ("PodTopologySpread", None), ("TaintToleration", None)],
    "score": [
        ("NodeResourcesBalancedAllocation", 1),
        ("ImageLocality", 1),
        ("InterPodAffinity", 1),
        ("NodeResourcesLeastAllocated", 1),
        ("NodeAffinity", 1),
        ("NodePreferAvoidPods", 10000),
        ("PodTopologySpread", 2),
        ("TaintToleration", 1),
    ],
    "reserve": [("VolumeBinding", None)],
    "preBind": [("VolumeBinding", None)],
    "bind": [("DefaultBinder", None)],
}

# pkg/scheduler/apis/config/v1beta2/default_plugins.go getDefaultPlugins (gated additions
# left out: VolumeCapacityPriority, PodSchedulingReadiness).
DEFAULTS_1_22: PluginSet = {
    "queueSort": [("PrioritySort", None)],
    "preFilter": [
        ("NodeResourcesFit", None),
        ("NodePorts", None),
        ("VolumeRestrictions", None),
        ("PodTopologySpread", None),
        ("InterPodAffinity", None),
        ("VolumeBinding", None),
        ("VolumeZone", None),
        ("NodeAffinity", None),
        ("TaintToleration", None),
    ],
    "filter": DEFAULTS_1_20["filter"],
    "postFilter": [("DefaultPreemption", None)],
    "preScore": [
        ("InterPodAffinity", None),
        ("PodTopologySpread", None),
        ("TaintToleration", None),
        ("NodeAffinity", None),
    ],
    "score": [
        ("NodeResourcesBalancedAllocation", 1),
        ("ImageLocality", 1),
        ("InterPodAffinity", 1),
        ("NodeResourcesFit", 1),
        ("NodeAffinity", 1),
        ("PodTopologySpread", 2),
        ("TaintToleration", 1),
    ],
    "reserve": [("VolumeBinding", None)],
    "preBind": [("VolumeBinding", None)],
    "bind": [("DefaultBinder", None)],
}

# pkg/scheduler/apis/config/v1beta3/default_plugins.go (the DefaultPodTopologySpread gate on).
_MULTIPOINT_1_23 = [
    ("PrioritySort", None),
    ("NodeUnschedulable", None),
    ("NodeName", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", None),
    ("EBSLimits", None),
    ("GCEPDLimits", None),
    ("NodeVolumeLimits", None),
    ("AzureDiskLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
]
DEFAULTS_1_23: PluginSet = {"multiPoint": _MULTIPOINT_1_23}
# pkg/scheduler/apis/config/v1/default_plugins.go @1.28: the same list, and SchedulingGates
# appended by the PodSchedulingReadiness gate (beta, on), as `kube-scheduler` prints it.
DEFAULTS_1_28: PluginSet = {"multiPoint": [*_MULTIPOINT_1_23, ("SchedulingGates", None)]}


def cluster_autoscaler(defaults: PluginSet) -> PluginSet:
    """The ClusterAutoscalerProvider: LeastAllocated replaced by MostAllocated (copyAndReplace)."""
    return {
        point: [
            ("NodeResourcesMostAllocated" if n == "NodeResourcesLeastAllocated" else n, w) for n, w in items
        ]
        for point, items in defaults.items()
    }


# ------------------------------------------------------------------- in-tree registries
# pkg/scheduler/framework/plugins/registry.go NewInTreeRegistry, per release.
_VOLUME = {
    "VolumeBinding",
    "VolumeRestrictions",
    "VolumeZone",
    "NodeVolumeLimits",
    "EBSLimits",
    "GCEPDLimits",
    "AzureDiskLimits",
    "CinderLimits",
}
#: The in-tree (non-CSI) volume-limit plugins, gone from 1.32.
IN_TREE_LIMITS = frozenset({"EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits"})
REGISTRY_1_18 = frozenset(
    {
        "PrioritySort",
        "DefaultBinder",
        "DefaultPodTopologySpread",
        "ImageLocality",
        "TaintToleration",
        "NodeName",
        "NodePorts",
        "NodePreferAvoidPods",
        "NodeAffinity",
        "PodTopologySpread",
        "NodeUnschedulable",
        "NodeResourcesFit",
        "NodeResourcesBalancedAllocation",
        "NodeResourcesMostAllocated",
        "NodeResourcesLeastAllocated",
        "RequestedToCapacityRatio",
        "NodeResourceLimits",
        "InterPodAffinity",
        "NodeLabel",
        "ServiceAffinity",
        *_VOLUME,
    }
)
REGISTRY_1_20 = (REGISTRY_1_18 - {"DefaultPodTopologySpread", "NodeResourceLimits"}) | {
    "SelectorSpread",
    "DefaultPreemption",
}
#: Removed from the config API in v1beta2 (validation.go removedPluginsByVersion).
REMOVED_IN_V1BETA2 = frozenset(
    {
        "NodeLabel",
        "ServiceAffinity",
        "NodePreferAvoidPods",
        "NodeResourcesLeastAllocated",
        "NodeResourcesMostAllocated",
        "RequestedToCapacityRatio",
    }
)
REGISTRY_1_22 = REGISTRY_1_20 - REMOVED_IN_V1BETA2
REGISTRY_1_28 = (REGISTRY_1_22 - {"SelectorSpread"}) | {"SchedulingGates", "DynamicResources"}


@dataclass(frozen=True)
class APIVersion:
    """How one ``kubescheduler.config.k8s.io`` version is read."""

    name: str
    release: str
    points: tuple[str, ...]
    defaults: PluginSet
    registry: frozenset[str]
    #: "append": defaults minus disabled, custom enabled appended (1.18-1.21);
    #: "replace": a custom-enabled default replaces the default in place (1.22+).
    merge: str
    multipoint: bool = False
    single_profile: bool = False
    #: Point names of this version that ruleset reads as another point.
    renamed_points: dict[str, str] = field(default_factory=dict)

    @property
    def api_version(self) -> str:
        return f"{GROUP}/{self.name}"

    def for_release(self, release: str) -> APIVersion:
        """This version as kube-scheduler ``release`` reads it: v1 from 1.32 no longer has the
        in-tree volume-limit plugins (kubernetes#124003) in its registry or default set."""
        try:
            gone = self.name == "v1" and KubeVersion.parse(release) >= KubeVersion(1, 32)
        except ValueError:
            return self  # an unsupported release is refused by whoever asked for it
        if not gone:
            return self
        defaults = {point: [(n, w) for n, w in items if n not in IN_TREE_LIMITS]
                    for point, items in self.defaults.items()}
        return dataclasses.replace(self, release=str(KubeVersion.parse(release)), defaults=defaults,
                                   registry=self.registry - IN_TREE_LIMITS)


_POINTS_V1BETA1 = (
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)

VERSIONS: dict[str, APIVersion] = {
    "v1alpha1": APIVersion(
        "v1alpha1",
        "1.18",
        (
            "queueSort",
            "preFilter",
            "filter",
            "postFilter",
            "score",
            "reserve",
            "permit",
            "preBind",
            "bind",
            "postBind",
            "unreserve",
        ),
        DEFAULTS_1_18_AS_1_20,
        REGISTRY_1_18,
        "append",
        single_profile=True,
        renamed_points={"postFilter": "preScore"},
    ),
    "v1alpha2": APIVersion(
        "v1alpha2",
        "1.18",
        (
            "queueSort",
            "preFilter",
            "filter",
            "preScore",
            "score",
            "reserve",
            "permit",
            "preBind",
            "bind",
            "postBind",
            "unreserve",
        ),
        DEFAULTS_1_18_AS_1_20,
        REGISTRY_1_18,
        "append",
    ),
    "v1beta1": APIVersion("v1beta1", "1.20", _POINTS_V1BETA1, DEFAULTS_1_20, REGISTRY_1_20, "append"),
    "v1beta2": APIVersion("v1beta2", "1.22", _POINTS_V1BETA1, DEFAULTS_1_22, REGISTRY_1_22, "replace"),
    "v1beta3": APIVersion(
        "v1beta3",
        "1.23",
        ("multiPoint", *_POINTS_V1BETA1),
        DEFAULTS_1_23,
        REGISTRY_1_22,
        "replace",
        multipoint=True,
    ),
    "v1": APIVersion(
        "v1",
        "1.28",
        ("multiPoint", "preEnqueue", *_POINTS_V1BETA1),
        DEFAULTS_1_28,
        REGISTRY_1_28,
        "replace",
        multipoint=True,
    ),
}

#: The versions ``ruleset export`` writes.
EXPORT_VERSIONS = ("v1beta1", "v1")

#: The kube-scheduler releases that read each configuration API (first, last), clamped to the
#: releases ruleset models (1.20 to 1.35): v1alpha1 and v1alpha2 were gone by 1.20 and are read
#: as 1.20; v1beta1 1.19-1.22 (removed in 1.23, PR #104782); v1beta2 1.22-1.27 (removed in
#: 1.28, PR #117649); v1beta3 1.23-1.28 (removed in 1.29, PR #119994); v1 from 1.25; the
#: legacy Policy until 1.22 (removed with v1beta1 in 1.23).
SERVED: dict[str, tuple[str, str]] = {
    "v1alpha1": ("1.20", "1.20"),
    "v1alpha2": ("1.20", "1.20"),
    "v1beta1": ("1.20", "1.22"),
    "v1beta2": ("1.22", "1.27"),
    "v1beta3": ("1.23", "1.28"),
    "v1": ("1.25", str(NEWEST)),
    "Policy": ("1.20", "1.22"),
}


def served(api: str) -> tuple[KubeVersion, KubeVersion]:
    """The releases (first, last) that read configuration API ``api`` (a :data:`SERVED` key)."""
    first, last = SERVED[api]
    return KubeVersion.parse(first), KubeVersion.parse(last)


def import_release(api: str) -> str:
    """The release ``ruleset import`` gives a profile of configuration API ``api`` when not told
    one: the newest that read it."""
    return SERVED[api][1]


def version(name: str) -> APIVersion | None:
    """``v1beta1`` or ``kubescheduler.config.k8s.io/v1beta1`` → its :class:`APIVersion`."""
    if "/" in name:
        group, _, name = name.partition("/")
        if group != GROUP:
            return None
    return VERSIONS.get(name)
