"""Which plugins a profile's framework runs: the profile's own, then what the framework adds.

kube-scheduler merges every profile with its default plugin set
(``apis/config/v1beta1/default_plugins.go``), so a profile that names no QueueSort or Bind
plugin still gets PrioritySort and DefaultBinder; only an explicit ``enabled = false``
removes them. ruleset adds one thing of its own: a profile's ``[[rules]]`` are shorthand
for the built-in Rules plugin's ``rules`` arg, and a profile with rules that does not list
``[plugins.Rules]`` runs Rules after its own plugins.

:func:`release_defaults` is kube-scheduler's whole default plugin set of a release, as the
bundled ``default`` profiles write it: the plugins ruleset models, in one order, with their
Score weights (``getDefaultPlugins`` of the release's newest configuration API,
``pkg/scheduler/apis/config/v1*/default_plugins.go``). The plugins ruleset does not model
are listed in :data:`NOT_MODELLED`, with why.
"""

from __future__ import annotations

import dataclasses

from ruleset.config import PluginConfig, Profile, Source
from ruleset.framework.plugin import PluginClasses
from ruleset.framework.points import effective_points
from ruleset.kversion import Target, switch

DEFAULT_QUEUE_SORT = "PrioritySort"
DEFAULT_BINDER = "DefaultBinder"
#: The built-in plugin that runs a profile's ``[[rules]]``.
RULES_PLUGIN = "Rules"
#: The point each default plugin fills when no plugin of the profile does.
DEFAULT_PLUGINS = (("queueSort", DEFAULT_QUEUE_SORT), ("bind", DEFAULT_BINDER))


def plugin_configs(profile: Profile, registry: PluginClasses) -> list[PluginConfig]:
    """Every plugin a profile's framework runs, in order: the profile's own (the Rules plugin
    with the profile's rules appended to its ``rules`` arg), Rules when the profile has rules
    and does not list it, then PrioritySort / DefaultBinder for a point no plugin covers."""
    configs = [with_rules(config, profile) if config.name == RULES_PLUGIN else config
               for config in profile.plugins]
    if profile.rules and RULES_PLUGIN not in profile.disabled and profile.plugin(RULES_PLUGIN) is None:
        origin = profile.rules[0].origin
        configs.append(with_rules(PluginConfig(name=RULES_PLUGIN, origin=origin), profile))

    def covered(point: str) -> bool:
        return any((cls := registry.get(c.name)) is not None and point in effective_points(cls, c.points)
                   for c in configs)

    for point, default in DEFAULT_PLUGINS:
        if (not covered(point) and default not in profile.disabled and profile.plugin(default) is None
                and registry.get(default) is not None):
            configs.append(PluginConfig(name=default))
    return configs


def with_rules(config: PluginConfig, profile: Profile) -> PluginConfig:
    """The Rules plugin's config with the profile's ``[[rules]]`` appended to its ``rules`` arg,
    each remembering where it was written."""
    written = config.args.get("rules", [])
    if not profile.rules or not isinstance(written, list):
        return config  # (a ``rules`` arg that is not a list is the schema's to report)
    sources = dict(config.sources)
    for i, rule in enumerate(profile.rules):
        # A rule built in code has no file: it is then known as the profile's rules[i].
        sources[("args", "rules", len(written) + i)] = Source(rule.origin, rule.path or ("rules", i))
    args = {**config.args, "rules": [*written, *(rule.as_args() for rule in profile.rules)]}
    return dataclasses.replace(config, args=args, sources=sources)


# ------------------------------------------------------------------ per-release default sets
#: From 1.22 the default set is v1beta2's: NodeResourcesFit scores (scoringStrategy
#: LeastAllocated, weight 1) instead of NodeResourcesLeastAllocated, and NodePreferAvoidPods
#: (weight 10000) is gone.
DEFAULTS_SCORING_STRATEGY = switch(
    "defaults.scoring-strategy", "1.22",
    "default plugins: NodeResourcesFit scores (scoringStrategy LeastAllocated, weight 1) in place of "
    "NodeResourcesLeastAllocated; NodePreferAvoidPods (weight 10000) left out",
    "pkg/scheduler/apis/config/v1beta2/default_plugins.go")
#: From 1.23 (v1beta3's multiPoint defaults) three Score weights rose.
DEFAULTS_WEIGHTS = switch(
    "defaults.weights", "1.23",
    "default Score weights TaintToleration 3, NodeAffinity 2, InterPodAffinity 2 (were 1; "
    "PodTopologySpread stays 2)",
    "pkg/scheduler/apis/config/v1beta3/default_plugins.go")
#: SchedulingGates joins the default set with its feature gate (alpha 1.26, on from 1.27).
DEFAULTS_SCHEDULING_GATES = switch(
    "defaults.scheduling-gates", "1.26",
    "default plugins: SchedulingGates (PreEnqueue) keeps pods with spec.schedulingGates out of scheduling",
    "pkg/scheduler/apis/config/v1/default_plugins.go", gate="PodSchedulingReadiness")

#: The in-tree EBS, GCE PD and Azure Disk limit plugins leave the default set (and the
#: registry) in 1.32, their volumes counted by their CSI drivers through CSINode.
DEFAULTS_IN_TREE_LIMITS_GONE = switch(
    "defaults.in-tree-volume-limits-gone", "1.32",
    "default plugins: EBSLimits, GCEPDLimits and AzureDiskLimits are gone (NodeVolumeLimits counts "
    "the migrated volumes)", "pkg/scheduler/apis/config/v1/default_plugins.go, kubernetes#124003")

#: Upstream default plugins ruleset leaves out of every default profile, and why.
NOT_MODELLED: dict[str, str] = {
    "DynamicResources": "resource claims (DRA, default from 1.34) are not modelled",
}


def release_defaults(target: Target) -> list[tuple[str, int | None]]:
    """kube-scheduler's default plugins at ``target`` that ruleset models, in profile order:
    ``(name, weight)``, the weight None for a plugin that does not score."""
    weights_123 = target.has(DEFAULTS_WEIGHTS)
    fit_scores = target.has(DEFAULTS_SCORING_STRATEGY)
    out: list[tuple[str, int | None]] = []
    if target.has(DEFAULTS_SCHEDULING_GATES):
        out.append(("SchedulingGates", None))
    out += [
        (DEFAULT_QUEUE_SORT, None),
        ("NodeUnschedulable", None),
        ("NodeName", None),
        ("TaintToleration", 3 if weights_123 else 1),
        ("NodeAffinity", 2 if weights_123 else 1),
        ("NodePorts", None),
        ("NodeResourcesFit", 1 if fit_scores else None),
        ("VolumeRestrictions", None),
    ]
    if not target.has(DEFAULTS_IN_TREE_LIMITS_GONE):
        out += [("EBSLimits", None), ("GCEPDLimits", None), ("NodeVolumeLimits", None),
                ("AzureDiskLimits", None)]
    else:
        out.append(("NodeVolumeLimits", None))
    out += [
        # Scores from multiPoint (1.23; 0 everywhere with its scoring gates off).
        ("VolumeBinding", 1 if weights_123 else None),
        ("VolumeZone", None),
        ("PodTopologySpread", 2),
        ("InterPodAffinity", 2 if weights_123 else 1),
        ("DefaultPreemption", None),
        ("NodeResourcesBalancedAllocation", 1),
        ("ImageLocality", 1),
    ]
    if not fit_scores:
        out += [("NodeResourcesLeastAllocated", 1), ("NodePreferAvoidPods", 10000)]
    out.append((DEFAULT_BINDER, None))
    return out
