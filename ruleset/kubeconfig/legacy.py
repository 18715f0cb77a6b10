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

from ruleset.framework.points import POINT_KEYS
from ruleset.kubeconfig.catalogue import extenders_reason, type_word
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
        # ``ConfigProducerArgs``: what the custom predicates and priorities collect for the
        # NodeLabel, ServiceAffinity and RequestedToCapacityRatio producers.
        self.labels: dict[str, list[str]] = {}
        self.anti_affinity_labels = 0
        self.rtcr_args: dict[str, Any] | None = None

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
    _append_predicates(b, _predicate_keys(b, doc.get("predicates")))
    weights = _priority_keys(b, doc.get("priorities"))
    hard = _hard_pod_affinity_weight(b, doc.get("hardPodAffinitySymmetricWeight"))
    _append_priorities(b, weights, hard)
    _always_check_all_predicates(b, doc.get("alwaysCheckAllPredicates"))
    _extenders(b, doc.get("extenders"))
    _unread_fields(b, doc)
    return _profile(b, where)


def _predicate_keys(b: _Builder, predicates: Any) -> list[str]:
    """The predicate keys of ``createFromConfig`` (``pkg/scheduler/factory.go``) @1.20.

    ``policy.Predicates == nil`` → the legacy registry's ``DefaultPredicates``; otherwise
    each entry through ``ProcessPredicatePolicy`` (``legacy_registry.go``).
    """
    if predicates is None:
        return list(DEFAULT_PREDICATES)
    if not isinstance(predicates, list):
        b.issue(INVALID, "predicates", "must be a list")
        return []
    keys: list[str] = []
    for i, pred in enumerate(predicates):
        key = _predicate_key(b, f"predicates[{i}]", pred)
        if key is not None:
            keys.append(key)
    return keys


def _predicate_key(b: _Builder, item: str, pred: Any) -> str | None:
    """``ProcessPredicatePolicy`` (with ``validatePredicate``) of ``legacy_registry.go`` @1.20.

    ``PodFitsPorts`` is ``PodFitsHostPorts``; a registered name without an argument is
    itself; ``serviceAffinity`` → CheckServiceAffinity; ``labelsPresence`` →
    CheckNodeLabelPresence, its labels added to NodeLabel's present/absent labels.
    """
    if not isinstance(pred, dict) or not isinstance(pred.get("name"), str):
        b.issue(INVALID, item, "needs a 'name'")
        return None
    name = "PodFitsHostPorts" if pred["name"] == "PodFitsPorts" else pred["name"]
    arg = pred.get("argument")
    if arg is not None and (
        not isinstance(arg, dict)
        or sum(1 for k in ("serviceAffinity", "labelsPresence") if arg.get(k) is not None) != 1
    ):
        b.issue(INVALID, f"{item}: {pred['name']}", "exactly 1 predicate argument is required")
        return None
    if name in PREDICATES and not arg:
        return name
    if not arg:
        b.issue(INVALID, f"{item}: {pred['name']}", f"predicate type not found for {name!r}")
        return None
    if arg.get("serviceAffinity") is not None:
        return "CheckServiceAffinity"
    presence = arg["labelsPresence"] or {}
    field = "presentLabels" if presence.get("presence") else "absentLabels"
    b.labels.setdefault(field, []).extend(str(x) for x in presence.get("labels") or [])
    return "CheckNodeLabelPresence"


def _append_predicates(b: _Builder, keys: list[str]) -> None:
    """``AppendPredicateConfigs`` of ``legacy_registry.go`` @1.20.

    The keys plus ``mandatoryPredicates``, produced in ``predicateOrdering``, then the
    rest sorted by name.
    """
    all_predicates = set(keys) | set(MANDATORY_PREDICATES)
    ordered = [k for k in PREDICATE_ORDERING if k in all_predicates]
    ordered += sorted(all_predicates - set(PREDICATE_ORDERING))
    for key in ordered:
        for point, plugin in PREDICATES[key]:
            b.append(point, plugin)


def _priority_keys(b: _Builder, priorities: Any) -> dict[str, int]:
    """The priority keys and weights of ``createFromConfig`` (``pkg/scheduler/factory.go``) @1.20.

    ``policy.Priorities == nil`` → the legacy registry's ``DefaultPriorities``; otherwise
    each entry through ``ProcessPriorityPolicy`` (``legacy_registry.go``).
    """
    if priorities is None:
        return dict(DEFAULT_PRIORITIES)
    weights: dict[str, int] = {}
    if not isinstance(priorities, list):
        b.issue(INVALID, "priorities", "must be a list")
        return weights
    for i, prio in enumerate(priorities):
        _priority_key(b, weights, f"priorities[{i}]", prio)
    return weights


def _checked_priority(b: _Builder, item: str, prio: Any) -> tuple[str, int, Any] | None:
    """A priority entry as ``createFromConfig`` and ``ValidatePolicy`` @1.20 accept it.

    ``EqualPriority`` is skipped (``createFromConfig``); the weight must be in
    ``(0, MaxWeight)`` (``ValidatePolicy``, ``apis/config/validation``);
    ``ServiceSpreadingPriority`` is ``SelectorSpreadPriority`` and at most one argument form
    is given (``ProcessPriorityPolicy`` / ``validatePriority``, ``legacy_registry.go``).
    Returns (name, weight, argument), or None when the entry is reported and dropped.
    """
    if not isinstance(prio, dict) or not isinstance(prio.get("name"), str):
        b.issue(INVALID, item, "needs a 'name'")
        return None
    name: str = prio["name"]
    weight = prio.get("weight", 0)
    if name == "EqualPriority":
        b.issue(
            NOTE,
            f"{item}: EqualPriority",
            "skipped, as kube-scheduler skips it: it gives every node "
            "the same score, so it never changes a placement",
        )
        return None
    if isinstance(weight, bool) or not isinstance(weight, int) or weight <= 0 or weight >= MAX_WEIGHT:
        b.issue(
            INVALID,
            f"{item}: {name}",
            f"priority {name} should have a positive weight applied to it or it has overflown",
        )
        return None
    if name == "ServiceSpreadingPriority":
        name = "SelectorSpreadPriority"
    arg = prio.get("argument")
    forms = ("serviceAntiAffinity", "labelPreference", "requestedToCapacityRatioArguments")
    if arg is not None and (
        not isinstance(arg, dict) or sum(1 for k in forms if arg.get(k) is not None) != 1
    ):
        b.issue(INVALID, f"{item}: {name}", "exactly 1 priority argument is required")
        return None
    return name, weight, arg


def _priority_key(b: _Builder, weights: dict[str, int], item: str, prio: Any) -> None:
    """``ProcessPriorityPolicy`` of ``legacy_registry.go`` @1.20, recording the key's weight.

    A registered priority without an argument is itself (two 1.18 forms accepted with a
    note, see the module docstring); otherwise the argument names the custom priority.
    """
    checked = _checked_priority(b, item, prio)
    if checked is None:
        return
    name, weight, arg = checked
    if name in PRIORITIES and name not in ("NodeLabel", "ServiceAffinity", "RequestedToCapacityRatio"):
        if name == "ResourceLimitsPriority":
            b.issue(
                NOTE,
                f"{item}: {name}",
                "a 1.18 priority (removed in 1.19), mapped as 1.18 did to NodeResourceLimits",
            )
        weights[name] = weight
        return
    if name == "RequestedToCapacityRatioPriority" and not arg:
        b.issue(
            NOTE,
            f"{item}: {name}",
            "a 1.18 priority (1.20 needs requestedToCapacityRatioArguments); "
            "mapped as 1.18 did, with its default shape",
        )
        b.rtcr_args = {"shape": list(RTCR_DEFAULT_SHAPE)}
        weights["RequestedToCapacityRatio"] = weight
        return
    if not arg:
        b.issue(INVALID, f"{item}: {name}", f"priority type not found for {name!r}")
        return
    _custom_priority(b, weights, f"{item}: {name}", name, weight, arg)


def _custom_priority(
    b: _Builder, weights: dict[str, int], item: str, name: str, weight: int, arg: dict[str, Any]
) -> None:
    """The custom priorities of ``ProcessPriorityPolicy`` (``legacy_registry.go``) @1.20.

    ``serviceAntiAffinity`` → ServiceAffinity, ``labelPreference`` → NodeLabel,
    ``requestedToCapacityRatioArguments`` → RequestedToCapacityRatio.
    """
    if arg.get("serviceAntiAffinity") is not None:
        b.anti_affinity_labels += 1
        weights["ServiceAffinity"] = weight
    elif arg.get("labelPreference") is not None:
        _label_preference(b, weights, item, name, weight, arg["labelPreference"] or {})
    else:
        b.rtcr_args = _rtcr_args(arg["requestedToCapacityRatioArguments"] or {})
        weights["RequestedToCapacityRatio"] = weight


def _label_preference(
    b: _Builder, weights: dict[str, int], item: str, name: str, weight: int, pref: dict[str, Any]
) -> None:
    """A ``labelPreference`` priority: ``ProcessPriorityPolicy`` (``legacy_registry.go``) @1.20.

    The label joins NodeLabel's present/absent labels preference; every label preference
    must share one weight (``validateCustomPriorities``, ``apis/config/validation``).
    """
    field = "presentLabelsPreference" if pref.get("presence") else "absentLabelsPreference"
    if pref.get("label") is not None:
        b.labels.setdefault(field, []).append(str(pref["label"]))
    if "NodeLabel" in weights and weights["NodeLabel"] != weight:
        b.issue(
            INVALID,
            item,
            f"NodeLabel priority {name!r} has a different weight with other label preferences",
        )
    weights["NodeLabel"] = weight


def _rtcr_args(r: dict[str, Any]) -> dict[str, Any]:
    """``requestedToCapacityRatioArguments`` → ``RequestedToCapacityRatioArgs``.

    The conversion in ``ProcessPriorityPolicy`` (``legacy_registry.go``) @1.20: the shape
    points and, when given, the resources with their weights.
    """
    args: dict[str, Any] = {
        "shape": [
            {"utilization": p.get("utilization", 0), "score": p.get("score", 0)}
            for p in r.get("shape") or []
            if isinstance(p, dict)
        ]
    }
    if r.get("resources"):
        args["resources"] = [
            {"name": x.get("name"), "weight": x.get("weight", 1)}
            for x in r["resources"]
            if isinstance(x, dict)
        ]
    return args


def _hard_pod_affinity_weight(b: _Builder, hard: Any) -> int | None:
    """``hardPodAffinitySymmetricWeight``, checked as ``ValidatePolicy`` @1.20 checks it.

    ``apis/config/validation``: an integer in [0, 100], else the Policy is invalid (reported,
    and the weight is not used).
    """
    if hard is not None and (isinstance(hard, bool) or not isinstance(hard, int) or not 0 <= hard <= 100):
        b.issue(
            INVALID, "hardPodAffinitySymmetricWeight", f"Invalid value: {hard!r}: not in valid range [0-100]"
        )
        return None
    return hard


def _append_priorities(b: _Builder, weights: dict[str, int], hard: int | None) -> None:
    """``AppendPriorityConfigs`` of ``legacy_registry.go`` @1.20, then the collected args.

    Priorities sorted by name, each producer appending its preScore/score plugins and args;
    a non-zero ``hardPodAffinitySymmetricWeight`` becomes InterPodAffinity's
    ``hardPodAffinityWeight`` (``createFromConfig``).
    """
    for key in sorted(weights):
        pre, score = PRIORITIES[key]
        if pre is not None:
            b.append("preScore", pre)
        b.append("score", score, _producer_weight(b, key, weights[key]))
        if key == "SelectorSpreadPriority":
            b.args["PodTopologySpread"] = {"defaultingType": "System"}
        elif key == "EvenPodsSpreadPriority":
            b.args.setdefault("PodTopologySpread", {"defaultingType": "List"})
        elif key == "InterPodAffinityPriority" and hard:
            b.args["InterPodAffinity"] = {"hardPodAffinityWeight": hard}
    if b.labels:
        b.args["NodeLabel"] = {k: v for k, v in b.labels.items() if v}
    if b.rtcr_args is not None:
        b.args["RequestedToCapacityRatio"] = b.rtcr_args


def _producer_weight(b: _Builder, key: str, weight: int) -> int:
    """The Score weight a priority producer of ``legacy_registry.go`` @1.20 gives its plugin.

    NodeLabel: the weight × the number of label preferences; ServiceAffinity: the weight ×
    the number of anti-affinity labels (at least 1); the others: the weight itself.
    """
    if key == "NodeLabel":
        return weight * (
            len(b.labels.get("presentLabelsPreference", [])) + len(b.labels.get("absentLabelsPreference", []))
        )
    if key == "ServiceAffinity":
        return weight * max(b.anti_affinity_labels, 1)
    return weight


def _always_check_all_predicates(b: _Builder, value: Any) -> None:
    """``alwaysCheckAllPredicates`` (``apis/config`` ``Policy``), not modelled by ruleset.

    ``createFromConfig`` @1.20 sets the scheduler to run every Filter plugin; reported.
    """
    if value:
        b.issue(
            LOSSY,
            "alwaysCheckAllPredicates",
            "ruleset stops at the first failing Filter plugin, as "
            "kube-scheduler does by default; running every predicate is not modelled",
        )


def _extenders(b: _Builder, extenders: Any) -> None:
    """The Policy's ``extenders`` (``apis/config`` ``Policy.Extenders``) @1.20: reported, not run."""
    if extenders and not isinstance(extenders, list):
        b.issue(INVALID, "extenders", f"expected a list of extenders, got {type_word(extenders)}")
    elif extenders:
        b.issue(LOSSY, "extenders", extenders_reason(len(extenders)))


def _unread_fields(b: _Builder, doc: dict[str, Any]) -> None:
    """Fields outside 1.20's ``Policy`` type (``apis/config``) as read here: noted, ignored."""
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


def _profile(b: _Builder, where: str) -> UpstreamProfile:
    """The framework profile ``createFromConfig`` @1.20 makes from the appended plugin sets."""
    profile = UpstreamProfile(
        name="default-scheduler",
        api_version="Policy (v1)",
        release="1.20",
        in_tree=REGISTRY_1_20,
        where=where,
        issues=b.issues,
    )
    for point in POINT_KEYS:
        if point in b.points:
            profile.points[point] = [(n, w) for n, w in b.points[point]]
    profile.args = b.args
    return profile
