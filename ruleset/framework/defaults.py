"""Which plugins a profile's framework runs: the profile's own, then what the framework adds.

kube-scheduler merges every profile with its default plugin set
(``apis/config/v1beta1/default_plugins.go``), so a profile that names no QueueSort or Bind
plugin still gets PrioritySort and DefaultBinder; only an explicit ``enabled = false``
removes them. ruleset adds one thing of its own: a profile's ``[[rules]]`` are shorthand
for the built-in Rules plugin's ``rules`` arg, and a profile with rules that does not list
``[plugins.Rules]`` runs Rules after its own plugins.
"""

from __future__ import annotations

import dataclasses

from ruleset.config import PluginConfig, Profile, Source
from ruleset.framework.plugin import PluginClasses
from ruleset.framework.points import effective_points

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
