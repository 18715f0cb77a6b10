"""The legacy scheduler ``Policy`` (``kind: Policy``, removed in 1.23) as kube-scheduler 1.20 read it.

``Configurator.createFromConfig`` and ``framework/plugins/legacy_registry.go`` @1.20:

* ``predicates`` absent → the default predicates; ``priorities`` absent → the default
  priorities with their weights (NodePreferAvoidPodsPriority 10000, EvenPodsSpreadPriority
  2, the others 1). An empty list means none. PodToleratesNodeTaints and
  CheckNodeUnschedulable are always added.
* Each predicate/priority appends plugins to extension points (``appendToPluginSet``: a
  plugin already there keeps its place and takes the larger weight). Predicates are applied
  in ``predicateOrdering``, then the rest sorted; priorities sorted by name.
* PrioritySort, DefaultPreemption and DefaultBinder are always added; the profile's own
  plugins are replaced, not merged with defaults.
* Argument forms: ``labelsPresence`` → NodeLabel present/absent labels; ``labelPreference``
  → NodeLabel preference labels, weight × number of labels; ``serviceAffinity`` /
  ``serviceAntiAffinity`` → ServiceAffinity (not implemented by ruleset: reported);
  ``requestedToCapacityRatioArguments`` → RequestedToCapacityRatio args;
  ``hardPodAffinitySymmetricWeight`` → InterPodAffinity ``hardPodAffinityWeight``.
* With the DefaultPodTopologySpread gate on (1.20), SelectorSpreadPriority (and its alias
  ServiceSpreadingPriority) is PodTopologySpread with ``defaultingType: System``;
  EvenPodsSpreadPriority alone gives ``List``. EqualPriority is skipped.

Two 1.18 priorities 1.20 no longer registered are accepted as 1.18 mapped them, with a
note: ResourceLimitsPriority (NodeResourceLimits) and RequestedToCapacityRatioPriority
without arguments (its default shape: utilization 0 → score 10, 100 → 0).
"""

from __future__ import annotations

from typing import Any

from ruleset.framework.runtime import POINT_HOOKS
from ruleset.kubeconfig.catalogue import extenders_reason
from ruleset.kubeconfig.model import INVALID, LOSSY, NOTE, Issue, UpstreamProfile
from ruleset.kubeconfig.versions import REGISTRY_1_20

#: 1.20's ``config.MaxWeight`` (MaxTotalScore / MaxCustomPriorityScore, which is 10), the bound
#: ``ValidatePolicy`` puts on priority weights; not the profile bound, which divides by MaxNodeScore.
MAX_WEIGHT = (2**63 - 1) // 10

PREDICATE_ORDERING = (
    "CheckNodeUnschedulable",
    "GeneralPredicates",
    "HostName",
    "PodFitsHostPorts",
    "MatchNodeSelector",
    "PodFitsResources",
    "NoDiskConflict",
    "PodToleratesNodeTaints",
    "CheckNodeLabelPresence",
    "CheckServiceAffinity",
    "MaxEBSVolumeCount",
    "MaxGCEPDVolumeCount",
    "MaxCSIVolumeCountPred",
    "MaxAzureDiskVolumeCount",
    "MaxCinderVolumeCount",
    "CheckVolumeBinding",
    "NoVolumeZoneConflict",
    "EvenPodsSpread",
    "MatchInterPodAffinity",
)
MANDATORY_PREDICATES = ("PodToleratesNodeTaints", "CheckNodeUnschedulable")
DEFAULT_PREDICATES = (
    "NoVolumeZoneConflict",
    "MaxEBSVolumeCount",
    "MaxGCEPDVolumeCount",
    "MaxAzureDiskVolumeCount",
    "MaxCSIVolumeCountPred",
    "MatchInterPodAffinity",
    "NoDiskConflict",
    "GeneralPredicates",
    "PodToleratesNodeTaints",
    "CheckVolumeBinding",
    "CheckNodeUnschedulable",
    "EvenPodsSpread",
)
DEFAULT_PRIORITIES = {
    "SelectorSpreadPriority": 1,
    "InterPodAffinityPriority": 1,
    "LeastRequestedPriority": 1,
    "BalancedResourceAllocation": 1,
    "NodePreferAvoidPodsPriority": 10000,
    "NodeAffinityPriority": 1,
    "TaintTolerationPriority": 1,
    "ImageLocalityPriority": 1,
    "EvenPodsSpreadPriority": 2,
}

#: Predicate → (point, plugin) appends, in the producer's order.
PREDICATES: dict[str, tuple[tuple[str, str], ...]] = {
    "GeneralPredicates": (
        ("filter", "NodeResourcesFit"),
        ("preFilter", "NodeResourcesFit"),
        ("filter", "NodeName"),
        ("filter", "NodePorts"),
        ("preFilter", "NodePorts"),
        ("filter", "NodeAffinity"),
    ),
    "PodToleratesNodeTaints": (("filter", "TaintToleration"),),
    "PodFitsResources": (("filter", "NodeResourcesFit"), ("preFilter", "NodeResourcesFit")),
    "HostName": (("filter", "NodeName"),),
    "PodFitsHostPorts": (("filter", "NodePorts"), ("preFilter", "NodePorts")),
    "MatchNodeSelector": (("filter", "NodeAffinity"),),
    "CheckNodeUnschedulable": (("filter", "NodeUnschedulable"),),
    "CheckVolumeBinding": (
        ("preFilter", "VolumeBinding"),
        ("filter", "VolumeBinding"),
        ("reserve", "VolumeBinding"),
        ("preBind", "VolumeBinding"),
    ),
    "NoDiskConflict": (("filter", "VolumeRestrictions"),),
    "NoVolumeZoneConflict": (("filter", "VolumeZone"),),
    "MaxCSIVolumeCountPred": (("filter", "NodeVolumeLimits"),),
    "MaxEBSVolumeCount": (("filter", "EBSLimits"),),
    "MaxGCEPDVolumeCount": (("filter", "GCEPDLimits"),),
    "MaxAzureDiskVolumeCount": (("filter", "AzureDiskLimits"),),
    "MaxCinderVolumeCount": (("filter", "CinderLimits"),),
    "MatchInterPodAffinity": (("filter", "InterPodAffinity"), ("preFilter", "InterPodAffinity")),
    "CheckNodeLabelPresence": (("filter", "NodeLabel"),),
    "CheckServiceAffinity": (("filter", "ServiceAffinity"), ("preFilter", "ServiceAffinity")),
    "EvenPodsSpread": (("preFilter", "PodTopologySpread"), ("filter", "PodTopologySpread")),
}

#: Priority key → (preScore plugin or None, score plugin).
PRIORITIES: dict[str, tuple[str | None, str]] = {
    "TaintTolerationPriority": ("TaintToleration", "TaintToleration"),
    "NodeAffinityPriority": (None, "NodeAffinity"),
    "ImageLocalityPriority": (None, "ImageLocality"),
    "InterPodAffinityPriority": ("InterPodAffinity", "InterPodAffinity"),
    "NodePreferAvoidPodsPriority": (None, "NodePreferAvoidPods"),
    "MostRequestedPriority": (None, "NodeResourcesMostAllocated"),
    "BalancedResourceAllocation": (None, "NodeResourcesBalancedAllocation"),
    "LeastRequestedPriority": (None, "NodeResourcesLeastAllocated"),
    "RequestedToCapacityRatio": (None, "RequestedToCapacityRatio"),
    "EvenPodsSpreadPriority": ("PodTopologySpread", "PodTopologySpread"),
    "SelectorSpreadPriority": ("PodTopologySpread", "PodTopologySpread"),
    "NodeLabel": (None, "NodeLabel"),
    "ServiceAffinity": (None, "ServiceAffinity"),
    # 1.18 only (see module docstring):
    "ResourceLimitsPriority": ("NodeResourceLimits", "NodeResourceLimits"),
}
RTCR_DEFAULT_SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]


class _Builder:
    def __init__(self, where: str):
        self.points: dict[str, list[list[Any]]] = {
            "queueSort": [["PrioritySort", None]],
            "postFilter": [["DefaultPreemption", None]],
            "bind": [["DefaultBinder", None]],
        }
        self.args: dict[str, dict[str, Any]] = {}
        self.issues: list[Issue] = []
        self.where = where

    def append(self, point: str, name: str, weight: int | None = None) -> None:
        """``appendToPluginSet``: keep the first place, raise to the larger weight."""
        items = self.points.setdefault(point, [])
        for entry in items:
            if entry[0] == name:
                if weight is not None and (entry[1] is None or weight > entry[1]):
                    entry[1] = weight
                return
        items.append([name, weight])

    def issue(self, severity: str, item: str, reason: str) -> None:
        self.issues.append(Issue(severity, item, reason, self.where))


def read_policy(doc: dict[str, Any], where: str) -> UpstreamProfile:
    """The profile kube-scheduler 1.20 builds from a Policy (every profile gets the same one)."""
    b = _Builder(where)
    labels: dict[str, list[str]] = {}
    anti_affinity_labels = 0
    rtcr_args: dict[str, Any] | None = None

    predicates = doc.get("predicates")
    keys: list[str] = []
    if predicates is None:
        keys = list(DEFAULT_PREDICATES)
    elif not isinstance(predicates, list):
        b.issue(INVALID, "predicates", "must be a list")
    else:
        for i, pred in enumerate(predicates):
            item = f"predicates[{i}]"
            if not isinstance(pred, dict) or not isinstance(pred.get("name"), str):
                b.issue(INVALID, item, "needs a 'name'")
                continue
            name = "PodFitsHostPorts" if pred["name"] == "PodFitsPorts" else pred["name"]
            arg = pred.get("argument")
            if arg is not None and (
                not isinstance(arg, dict)
                or sum(1 for k in ("serviceAffinity", "labelsPresence") if arg.get(k) is not None) != 1
            ):
                b.issue(INVALID, f"{item}: {pred['name']}", "exactly 1 predicate argument is required")
                continue
            if name in PREDICATES and not arg:
                keys.append(name)
                continue
            if not arg:
                b.issue(INVALID, f"{item}: {pred['name']}", f"predicate type not found for {name!r}")
                continue
            if arg.get("serviceAffinity") is not None:
                keys.append("CheckServiceAffinity")
            else:
                presence = arg["labelsPresence"] or {}
                field = "presentLabels" if presence.get("presence") else "absentLabels"
                labels.setdefault(field, []).extend(str(x) for x in presence.get("labels") or [])
                keys.append("CheckNodeLabelPresence")
    all_predicates = set(keys) | set(MANDATORY_PREDICATES)
    ordered = [k for k in PREDICATE_ORDERING if k in all_predicates]
    ordered += sorted(all_predicates - set(PREDICATE_ORDERING))
    for key in ordered:
        for point, plugin in PREDICATES[key]:
            b.append(point, plugin)

    priorities = doc.get("priorities")
    weights: dict[str, int] = {}
    if priorities is None:
        weights = dict(DEFAULT_PRIORITIES)
    elif not isinstance(priorities, list):
        b.issue(INVALID, "priorities", "must be a list")
    else:
        for i, prio in enumerate(priorities):
            item = f"priorities[{i}]"
            if not isinstance(prio, dict) or not isinstance(prio.get("name"), str):
                b.issue(INVALID, item, "needs a 'name'")
                continue
            name = prio["name"]
            weight = prio.get("weight", 0)
            if name == "EqualPriority":
                b.issue(
                    NOTE,
                    f"{item}: EqualPriority",
                    "skipped, as kube-scheduler skips it: it gives every node "
                    "the same score, so it never changes a placement",
                )
                continue
            if isinstance(weight, bool) or not isinstance(weight, int) or weight <= 0 or weight >= MAX_WEIGHT:
                b.issue(
                    INVALID,
                    f"{item}: {name}",
                    f"priority {name} should have a positive weight applied to it or it has overflown",
                )
                continue
            if name == "ServiceSpreadingPriority":
                name = "SelectorSpreadPriority"
            arg = prio.get("argument")
            forms = ("serviceAntiAffinity", "labelPreference", "requestedToCapacityRatioArguments")
            if arg is not None and (
                not isinstance(arg, dict) or sum(1 for k in forms if arg.get(k) is not None) != 1
            ):
                b.issue(INVALID, f"{item}: {name}", "exactly 1 priority argument is required")
                continue
            if name in PRIORITIES and name not in (
                "NodeLabel",
                "ServiceAffinity",
                "RequestedToCapacityRatio",
            ):
                if name == "ResourceLimitsPriority":
                    b.issue(
                        NOTE,
                        f"{item}: {name}",
                        "a 1.18 priority (removed in 1.19), mapped as 1.18 did to NodeResourceLimits",
                    )
                weights[name] = weight
                continue
            if name == "RequestedToCapacityRatioPriority" and not arg:
                b.issue(
                    NOTE,
                    f"{item}: {name}",
                    "a 1.18 priority (1.20 needs requestedToCapacityRatioArguments); "
                    "mapped as 1.18 did, with its default shape",
                )
                rtcr_args = {"shape": list(RTCR_DEFAULT_SHAPE)}
                weights["RequestedToCapacityRatio"] = weight
                continue
            if not arg:
                b.issue(INVALID, f"{item}: {name}", f"priority type not found for {name!r}")
                continue
            if arg.get("serviceAntiAffinity") is not None:
                anti_affinity_labels += 1
                weights["ServiceAffinity"] = weight
            elif arg.get("labelPreference") is not None:
                pref = arg["labelPreference"] or {}
                field = "presentLabelsPreference" if pref.get("presence") else "absentLabelsPreference"
                if pref.get("label") is not None:
                    labels.setdefault(field, []).append(str(pref["label"]))
                if "NodeLabel" in weights and weights["NodeLabel"] != weight:
                    b.issue(
                        INVALID,
                        f"{item}: {name}",
                        f"NodeLabel priority {name!r} has a different weight with other label preferences",
                    )
                weights["NodeLabel"] = weight
            else:
                r = arg["requestedToCapacityRatioArguments"] or {}
                rtcr_args = {
                    "shape": [
                        {"utilization": p.get("utilization", 0), "score": p.get("score", 0)}
                        for p in r.get("shape") or []
                        if isinstance(p, dict)
                    ]
                }
                if r.get("resources"):
                    rtcr_args["resources"] = [
                        {"name": x.get("name"), "weight": x.get("weight", 1)}
                        for x in r["resources"]
                        if isinstance(x, dict)
                    ]
                weights["RequestedToCapacityRatio"] = weight

    hard = doc.get("hardPodAffinitySymmetricWeight")
    if hard is not None and (isinstance(hard, bool) or not isinstance(hard, int) or not 0 <= hard <= 100):
        b.issue(
            INVALID, "hardPodAffinitySymmetricWeight", f"Invalid value: {hard!r}: not in valid range [0-100]"
        )
        hard = None
    for key in sorted(weights):
        weight = weights[key]
        pre, score = PRIORITIES[key]
        if key == "NodeLabel":
            weight *= len(labels.get("presentLabelsPreference", [])) + len(
                labels.get("absentLabelsPreference", [])
            )
        elif key == "ServiceAffinity":
            weight *= max(anti_affinity_labels, 1)
        if pre is not None:
            b.append("preScore", pre)
        b.append("score", score, weight)
        if key == "SelectorSpreadPriority":
            b.args["PodTopologySpread"] = {"defaultingType": "System"}
        elif key == "EvenPodsSpreadPriority":
            b.args.setdefault("PodTopologySpread", {"defaultingType": "List"})
        elif key == "InterPodAffinityPriority" and hard:
            b.args["InterPodAffinity"] = {"hardPodAffinityWeight": hard}
    if labels:
        b.args["NodeLabel"] = {k: v for k, v in labels.items() if v}
    if rtcr_args is not None:
        b.args["RequestedToCapacityRatio"] = rtcr_args
    if doc.get("alwaysCheckAllPredicates"):
        b.issue(
            LOSSY,
            "alwaysCheckAllPredicates",
            "ruleset stops at the first failing Filter plugin, as "
            "kube-scheduler does by default; running every predicate is not modelled",
        )
    if doc.get("extenders"):
        b.issue(LOSSY, "extenders", extenders_reason(len(doc["extenders"])))
    for key in doc:
        if key not in (
            "kind",
            "apiVersion",
            "predicates",
            "priorities",
            "hardPodAffinitySymmetricWeight",
            "alwaysCheckAllPredicates",
            "extenders",
        ):
            b.issue(NOTE, key, "field not read")
    profile = UpstreamProfile(
        name="default-scheduler",
        api_version="Policy (v1)",
        release="1.20",
        in_tree=REGISTRY_1_20,
        where=where,
        issues=b.issues,
    )
    for point in POINT_HOOKS:
        if point in b.points:
            profile.points[point] = [(n, w) for n, w in b.points[point]]
    profile.args = b.args
    return profile
