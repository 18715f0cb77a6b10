"""ruleset profiles → a KubeSchedulerConfiguration (``v1beta1`` or ``v1``).

What each extension point runs is computed as the engine computes it (the profile's order,
``points``, the PrioritySort/DefaultBinder defaults), translated to upstream names, and then
written as the *smallest difference from that version's defaults* that kube-scheduler
merges back into exactly that:

* ``v1beta1`` (1.19-1.21 merge: defaults minus ``disabled``, then ``enabled`` appended):
  per point, the longest run of the profile's plugins that the defaults already have in
  that order (with the same Score weight) is kept; every other default is disabled and the
  rest of the profile's plugins are enabled after it. That reproduces the order exactly and
  reads like a hand-written configuration (the bundled ``default`` leaves Filter,
  PostFilter, QueueSort and Bind as they are; PreFilter, PreScore and Score are re-ordered
  to the profile's one order, which changes no result but is what ruleset runs).
* ``v1`` (``multiPoint``, 1.28 merge): the same on the ``multiPoint`` list, where a
  default re-enabled with another weight keeps its place; a plugin is disabled at the
  points it implements upstream but does not run at here; and a point whose order still
  differs (Score, when NodeResourcesFit's strategy sits elsewhere) lists its plugins
  explicitly, which kube-scheduler runs first and in that order.

Plugins ruleset does not model (the volume plugins) are left as kube-scheduler's defaults have
them: neither disabled nor moved. A plugin that runs only at PreEnqueue (SchedulingGates) has
no order that matters: it is kept, enabled or disabled wherever it stands. Every result is
checked by merging it back with :mod:`ruleset.kubeconfig.merge`.

Each version is read by a range of releases (:data:`~ruleset.kubeconfig.versions.SERVED`:
v1beta1 1.19-1.22, v1 1.25 on); a profile targeting a release outside it is refused whatever
``allow_lossy`` says, since kube-scheduler would run it with another release's formulas: a
1.20 profile exports to v1beta1, a 1.34 profile to v1, faithfully (NodeResourcesFit's
``scoringStrategy``, the weights, every args field v1 has).

Third-party plugins (registered by an installed package) are refused like the rest below,
unless ``allow_third_party``: for a kube-scheduler built with them (scheduler-plugins' image,
say), each is enabled at the points the profile runs it at, explicitly per point (in ``v1``
too: kube-scheduler expands ``multiPoint`` by the Go plugin's interfaces, which ruleset
cannot know), with its weight and all its args, defaults filled in, as a ``pluginConfig``
entry without ``apiVersion``/``kind`` (as scheduler-plugins' own configurations write them:
the args type is the plugin's, not ``kubescheduler.config.k8s.io``'s).

Refused (``--allow-lossy`` drops each with a warning): ``[[rules]]``; plugins outside the
version's in-tree registry (third-party plugins, EqualPriority, NodeResourceLimits; in
``v1`` also NodeLabel, SelectorSpread, NodePreferAvoidPods); args kube-scheduler has no
field for, unless they hold the value kube-scheduler behaves as (SelectorSpread
``zoneWeighting`` 2/3, NodeResourcesBalancedAllocation ``balanceAttachedNodeVolumes`` false);
in ``v1``, more than one of NodeResourcesLeast/MostAllocated and RequestedToCapacityRatio
(NodeResourcesFit has one ``scoringStrategy``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from ruleset.config import Profile
from ruleset.errors import RulesetError
from ruleset.framework.defaults import RULES_PLUGIN
from ruleset.framework.points import EXTENSION_POINTS, POINT_KEYS
from ruleset.framework.runtime import Framework
from ruleset.kubeconfig.catalogue import (
    DEFAULT_RESOURCES,
    HARMLESS,
    STRATEGY_OF,
    args_fields,
    upstream_points,
)
from ruleset.kubeconfig.merge import read_profiles
from ruleset.kubeconfig.model import INVALID, LOSSY, Issue, RefusedError
from ruleset.kubeconfig.versions import EXPORT_VERSIONS, REMOVED_IN_V1BETA2, VERSIONS, APIVersion, served
from ruleset.pluginmanager import PluginRegistry, load_registry
from ruleset.profile.loader import check_scheduler_names

#: Each main point and the point that only prepares it (Filter's PreFilter, Score's PreScore).
HELPERS = {point.key: helper for point in EXTENSION_POINTS for helper in point.implied}
SCORE_POINTS = ("preScore", "score")
_ALL = POINT_KEYS

#: Why a ruleset plugin is not in a version's in-tree registry.
NOT_IN_TREE = {
    "EqualPriority": "EqualPriority was never a framework plugin: the legacy Policy's EqualPriority gave "
    "every node the same score and kube-scheduler skipped it",
    "NodeResourceLimits": "the ResourceLimits priority was removed from kube-scheduler in 1.19",
    "Rules": "the plugin behind [[rules]]",
}
REMOVED_HINT = {
    "NodeLabel": "use NodeAffinity",
    "NodePreferAvoidPods": "use node taints; it scored down the nodes whose "
    "scheduler.alpha.kubernetes.io/preferAvoidPods annotation names the pod's controller, so dropping it "
    "changes placements only on nodes that carry that annotation",
    "SelectorSpread": "use PodTopologySpread",
    "ServiceAffinity": "use InterPodAffinity",
    "NodeResourcesLeastAllocated": "NodeResourcesFit's scoringStrategy",
    "NodeResourcesMostAllocated": "NodeResourcesFit's scoringStrategy",
    "RequestedToCapacityRatio": "NodeResourcesFit's scoringStrategy",
}


@dataclass
class _Entry:
    """One upstream plugin of the exported profile."""

    name: str
    points: list[str]
    weight: int | None = None
    args: dict[str, Any] = field(default_factory=dict)
    #: Position in the profile; PreScore/Score use ``score_pos`` (NodeResourcesFit's Score is
    #: where the scoring strategy plugin was).
    pos: int = 0
    score_pos: int = 0
    #: The package of a third-party plugin (None: in-tree).
    package: str | None = None


@dataclass
class Exported:
    document: dict[str, Any]
    issues: list[Issue]
    #: Third-party plugins kept (``allow_third_party``): name -> package and version.
    third_party: dict[str, str] = field(default_factory=dict)

    def third_party_lines(self) -> list[str]:
        """One header line per third-party plugin kept: a stock kube-scheduler refuses it."""
        return [
            f"Third-party plugin {name} ({package}): needs a kube-scheduler built with it."
            for name, package in self.third_party.items()
        ]

    def yaml(self, header: list[str] | tuple[str, ...] = ()) -> str:
        text = yaml.safe_dump(self.document, sort_keys=False, default_flow_style=False, allow_unicode=True)
        return "".join(f"# {line}\n" for line in header) + text


def export_profiles(
    profiles: list[Profile],
    api_version: str = "v1beta1",
    registry: PluginRegistry | None = None,
    allow_lossy: bool = False,
    allow_third_party: bool = False,
) -> Exported:
    """One KubeSchedulerConfiguration holding ``profiles``; raises RefusedError unless ``allow_lossy``.

    ``allow_third_party`` keeps third-party plugins (see the module docstring) instead of refusing them.
    Two profiles serving one ``schedulerName`` raise :class:`~ruleset.errors.RulesetError` (kube-scheduler
    would refuse the configuration; see :func:`~ruleset.profile.loader.check_scheduler_names`).
    """
    if api_version not in EXPORT_VERSIONS:
        raise ValueError(f"cannot export {api_version!r} (choose from {', '.join(EXPORT_VERSIONS)})")
    duplicates = check_scheduler_names(profiles)
    if duplicates:
        raise RulesetError(duplicates)
    registry = registry or load_registry()
    version = VERSIONS[api_version]
    mismatched = [issue for p in profiles if (issue := release_mismatch(p, api_version)) is not None]
    if mismatched:
        raise RefusedError(mismatched)
    issues: list[Issue] = []
    out_profiles = []
    percentages = []
    third_party: dict[str, str] = {}
    base = version
    for profile in profiles:
        version = base.for_release(str(profile.target.version))
        entries = _entries(profile, version, registry, issues, allow_third_party)
        third_party.update((e.name, e.package) for e in entries if e.package is not None)
        plugins = _plugins(entries, version)
        out: dict[str, Any] = {"schedulerName": profile.scheduler_name}
        if plugins:
            out["plugins"] = plugins
        config = [{"name": e.name, "args": _args_object(e, version)} for e in entries if e.args]
        if config:
            out["pluginConfig"] = config
        pct = profile.percentage_of_nodes_to_score
        if pct is not None:
            if version.name == "v1":
                out["percentageOfNodesToScore"] = pct
            percentages.append((profile.scheduler_name, pct))
        out_profiles.append(out)
    document: dict[str, Any] = {"apiVersion": version.api_version, "kind": "KubeSchedulerConfiguration"}
    if version.name != "v1" and percentages:
        values = {p for _, p in percentages}
        if len(values) > 1 or len(percentages) != len(profiles):
            issues.append(
                Issue(
                    LOSSY,
                    "percentageOfNodesToScore",
                    f"{version.api_version} has one percentageOfNodesToScore for all profiles; these differ "
                    f"({', '.join(f'{n}: {p}' for n, p in percentages)}); the first is kept",
                )
            )
        document["percentageOfNodesToScore"] = percentages[0][1]
    document["profiles"] = out_profiles
    if not allow_lossy and any(i.severity == LOSSY for i in issues):
        raise RefusedError(issues)
    return Exported(document, issues, third_party)


def release_mismatch(profile: Profile, api_version: str) -> Issue | None:
    """Why ``profile`` cannot be exported as ``api_version``: its release does not read it (None: it does)."""
    first, last = served(api_version)
    release = profile.target.version
    if first <= release <= last:
        return None
    where = profile.files[0] if profile.files else profile.name
    fits = [v for v in EXPORT_VERSIONS if served(v)[0] <= release <= served(v)[1]]
    instead = f"export it with --api-version {fits[0]}" if fits else "no version ruleset writes fits it"
    implicit = "" if profile.target.explicit else " (it sets no kubernetesVersion)"
    return Issue(INVALID, f"profile {profile.name!r}",
                 f"targets Kubernetes {release}{implicit}, and kubescheduler.config.k8s.io/{api_version} is "
                 f"read by {first} to {last}: {instead}, or set kubernetesVersion to a release in that range",
                 where)


def _args_object(entry: _Entry, version: APIVersion) -> dict[str, Any]:
    if entry.package is not None:
        return dict(entry.args)
    return {"apiVersion": version.api_version, "kind": f"{entry.name}Args", **entry.args}


def _entries(
    profile: Profile,
    version: APIVersion,
    registry: PluginRegistry,
    issues: list[Issue],
    allow_third_party: bool,
) -> list[_Entry]:
    where = profile.files[0] if profile.files else profile.name
    for rule in profile.rules:
        issues.append(
            Issue(
                LOSSY,
                f"rule {rule.name!r}",
                "[[rules]] are a ruleset extension; KubeSchedulerConfiguration has no equivalent",
                where,
            )
        )
    framework = Framework(profile, registry)
    entries: list[_Entry] = []
    fit: _Entry | None = None
    strategy_plugin: str | None = None
    for index, (name, config) in enumerate(framework.configs.items()):
        if name == RULES_PLUGIN and profile.rules:
            continue  # its rules are refused one by one above
        cls = registry.get(name)
        assert cls is not None
        ours = framework.points[name]
        if not registry.is_builtin(name):
            package = registry.package_of(name)
            if allow_third_party:
                # Every point ruleset runs it at is a kube-scheduler point of both export versions.
                weight = config.weight if "score" in ours else None
                args = cls.args_with_defaults(config.args)
                entries.append(_Entry(name, list(ours), weight, args, index, index, package))
                continue
            issues.append(
                Issue(
                    LOSSY,
                    f"plugin {name}",
                    f"a third-party plugin ({package}), not in kube-scheduler's in-tree registry "
                    "(--allow-third-party keeps it, for a scheduler built with it)",
                    where,
                )
            )
            continue
        upstream = "NodeResourcesFit" if version.name == "v1" and name in STRATEGY_OF else name
        if upstream not in version.registry:
            if name in NOT_IN_TREE:
                reason = NOT_IN_TREE[name]
            elif name in REMOVED_IN_V1BETA2 or name == "SelectorSpread":
                reason = f"removed from the configuration API in v1beta2/v1 ({REMOVED_HINT[name]})"
            else:
                reason = f"not in kube-scheduler {version.release}'s in-tree registry"
            issues.append(
                Issue(
                    LOSSY, f"plugin {name}", f"cannot be expressed in {version.api_version}: {reason}", where
                )
            )
            continue
        available = upstream_points(upstream, version.release) or frozenset()
        if upstream != name:  # a scoring strategy: only NodeResourcesFit's Score side
            available = available & set(SCORE_POINTS)
        points = [p for p in ours if p in available]
        for p in ours:
            if p not in available and p not in HELPERS.values():
                issues.append(
                    Issue(
                        LOSSY,
                        f"plugin {name} at {p}",
                        f"kube-scheduler's {upstream} does not implement {p}",
                        where,
                    )
                )
        for main, helper in HELPERS.items():
            if main in points and helper in available and helper not in points:
                points.append(helper)
        weight = config.weight if "score" in points else None
        our_args = cls.args_with_defaults(config.args)
        args = _args(name, our_args, cls, version, where, issues)
        if upstream == "NodeResourcesFit" and version.name == "v1":
            if name != "NodeResourcesFit":
                if strategy_plugin is not None:
                    issues.append(
                        Issue(
                            LOSSY,
                            f"plugin {name}",
                            "kube-scheduler v1 scores resources through NodeResourcesFit's one "
                            f"scoringStrategy, already {STRATEGY_OF[strategy_plugin]} ({strategy_plugin})",
                            where,
                        )
                    )
                    continue
                strategy_plugin = name
                strategy = _strategy(name, our_args)
                args = {"scoringStrategy": strategy} if strategy else {}
            if fit is None:
                fit = _Entry("NodeResourcesFit", points, weight, args, index, index)
                entries.append(fit)
            else:
                fit.points = [p for p in _ALL if p in set(fit.points) | set(points)]
                fit.weight = weight if weight is not None else fit.weight
                fit.args.update(args)
            if name != "NodeResourcesFit":
                fit.score_pos = index
            continue
        entries.append(_Entry(upstream, points, weight, args, index, index))
    if (version.name == "v1" and fit is not None and strategy_plugin is None
            and "score" not in framework.points.get("NodeResourcesFit", ())):
        fit.points = [p for p in fit.points if p not in SCORE_POINTS]
    return entries


def _args(
    name: str, ours: dict[str, Any], cls: Any, version: APIVersion, where: str, issues: list[Issue]
) -> dict[str, Any]:
    """The plugin's args kube-scheduler has fields for, when they differ from the defaults.

    ``ours`` are the plugin's args, parsed (defaults filled in) and back as a dict.
    """
    defaults = cls.args_with_defaults({})
    fields = args_fields(name, version.release) or ()
    if version.name == "v1" and name in STRATEGY_OF:
        fields = ("resources", "shape")  # carried by scoringStrategy
    for key, value in ours.items():
        if key not in fields and value != defaults.get(key):
            issues.append(
                Issue(
                    LOSSY,
                    f"plugin {name} args.{key}",
                    f"{value!r} has no {version.api_version} field (kube-scheduler behaves as "
                    f"{defaults.get(key)!r})",
                    where,
                )
            )
    mine = {k: v for k, v in ours.items() if k in fields}
    if mine == {k: v for k, v in defaults.items() if k in fields}:
        return {}
    return {k: v for k, v in mine.items() if v != defaults.get(k) or k in ("shape",)}


def _strategy(name: str, args: dict[str, Any]) -> dict[str, Any] | None:
    """NodeResourcesFit's ``scoringStrategy`` for scoring plugin ``name`` with ``args`` (parsed).

    None when it is kube-scheduler's default (LeastAllocated on cpu and memory).
    """
    strategy: dict[str, Any] = {
        "type": STRATEGY_OF[name],
        "resources": args.get("resources") or DEFAULT_RESOURCES,
    }
    if name == "RequestedToCapacityRatio":
        strategy["requestedToCapacityRatio"] = {"shape": args.get("shape", [])}
    if strategy == {"type": "LeastAllocated", "resources": DEFAULT_RESOURCES}:
        return None
    return strategy


# ------------------------------------------------------------------ plugins section
def _desired(entries: list[_Entry], points: tuple[str, ...]) -> dict[str, list[tuple[str, int | None]]]:
    out = {}
    for p in points:
        if p == "multiPoint":
            continue
        at = sorted(
            (e for e in entries if p in e.points), key=lambda e: e.score_pos if p in SCORE_POINTS else e.pos
        )
        out[p] = [(e.name, (e.weight or 1) if p == "score" else None) for e in at]
    return out


def _plugin(name: str, weight: int | None) -> dict[str, Any]:
    return {"name": name} if weight is None else {"name": name, "weight": weight}


def _plugins(entries: list[_Entry], version: APIVersion) -> dict[str, Any]:
    desired = _desired(entries, version.points)
    plugins = _plugins_v1(entries, version) if version.multipoint else _plugins_v1beta1(desired, version)
    for _ in range(3):
        merged = _merged(plugins, version)
        wrong = [p for p, items in merged.items() if items != desired.get(p, [])]
        wrong += [p for p in desired if desired[p] and p not in merged]
        if not wrong:
            return plugins
        for point in dict.fromkeys(wrong):
            pset = plugins.setdefault(point, {})
            explicit = [_plugin(n, w) for n, w in desired[point]]
            if not version.multipoint or pset.get("enabled") == explicit:
                pset["disabled"] = [{"name": "*"}]  # last resort: the point exactly as wanted
            pset["enabled"] = explicit
    raise AssertionError(f"export does not merge back to the profile at {wrong}")  # pragma: no cover


def _merged(plugins: dict[str, Any], version: APIVersion) -> dict[str, list[tuple[str, int | None]]]:
    """What kube-scheduler runs for ``plugins`` (unmodelled plugins left out, weights only at Score)."""
    doc = {"apiVersion": version.api_version, "profiles": [{"schedulerName": "x", "plugins": plugins}]}
    up = read_profiles(doc, version, "")[0]
    return {
        p: [(n, (w or 1) if p == "score" else None) for n, w in items if n not in HARMLESS]
        for p, items in up.points.items()
        if any(n not in HARMLESS for n, _ in items)
    }


def _plugins_v1beta1(desired: dict[str, list[tuple[str, int | None]]], version: APIVersion) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for point in version.points:
        want = desired.get(point, [])
        kept = 0
        disabled = []
        for name, weight in version.defaults.get(point, []):
            if name in HARMLESS:
                continue
            same_weight = point != "score" or (weight or 1) == want[kept][1] if kept < len(want) else False
            if kept < len(want) and want[kept][0] == name and same_weight:
                kept += 1
            else:
                disabled.append({"name": name})
        pset: dict[str, Any] = {}
        if want[kept:]:
            pset["enabled"] = [_plugin(n, w) for n, w in want[kept:]]
        if disabled:
            pset["disabled"] = disabled
        if pset:
            out[point] = pset
    return out


def _pre_enqueue_only(name: str, version: APIVersion) -> bool:
    return upstream_points(name, version.release) == frozenset({"preEnqueue"})


def _plugins_v1(entries: list[_Entry], version: APIVersion) -> dict[str, Any]:
    out: dict[str, Any] = {}
    wanted = [(e.name, e.weight if "score" in e.points else None) for e in entries
              if e.package is None and not _pre_enqueue_only(e.name, version)]
    kept = 0
    custom: list[dict[str, Any]] = []
    disabled = []
    # Order is meaningless for a plugin that runs only at PreEnqueue: enabled or disabled as is.
    ours = {e.name for e in entries if e.package is None}
    for name, _ in version.defaults["multiPoint"]:
        if _pre_enqueue_only(name, version) and name not in HARMLESS and name not in ours:
            disabled.append({"name": name})
    defaults = {n for n, _ in version.defaults["multiPoint"]}
    custom.extend(_plugin(e.name, None) for e in entries
                  if e.package is None and _pre_enqueue_only(e.name, version) and e.name not in defaults)
    for name, weight in version.defaults["multiPoint"]:
        if name in HARMLESS or _pre_enqueue_only(name, version):
            continue
        if kept < len(wanted) and wanted[kept][0] == name:
            w = wanted[kept][1]
            if w is not None and w != (weight or 1):
                custom.append(_plugin(name, w))
            kept += 1
        else:
            disabled.append({"name": name})
    custom.extend(_plugin(n, w) for n, w in wanted[kept:])
    multipoint: dict[str, Any] = {}
    if custom:
        multipoint["enabled"] = custom
    if disabled:
        multipoint["disabled"] = disabled
    if multipoint:
        out["multiPoint"] = multipoint
    for e in entries:
        if e.package is not None:  # enabled per point; _plugins re-lists a point it runs out of order
            for point in e.points:
                pset = out.setdefault(point, {})
                pset.setdefault("enabled", []).append(_plugin(e.name, e.weight if point == "score" else None))
            continue
        for point in sorted(upstream_points(e.name, version.release) or (), key=_ALL.index):
            if point not in e.points and point in version.points:
                out.setdefault(point, {}).setdefault("disabled", []).append({"name": e.name})
    return out
