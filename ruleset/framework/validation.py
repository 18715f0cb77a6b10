"""Every rule about a profile's plugins, in one place (kube-scheduler: ``apis/config/validation``
plus the checks of ``NewFramework``).

:func:`check_plugins` works on plugin *classes*: it needs no snapshot and builds nothing,
so the profile loader, ``ruleset validate`` and :class:`~ruleset.framework.runtime.Framework`
all call it, and each rule below is written once:

* every plugin exists, and is configured once;
* its args parse and pass its own validation (:meth:`~ruleset.Plugin.validate_args`);
* its hook methods match the specs (:func:`~ruleset.framework.hooks.class_hooks`);
* the points it is limited to exist and are points it implements; a weight on a plugin
  that does not score has no effect (a warning);
* exactly one QueueSort plugin and at least one Bind plugin run;
* the Score weights cannot overflow the int64 total.

A problem is a :class:`Finding`: what is wrong, and which plugin and which key of its
table it is about. Callers locate findings their own way: the loader at the line and
column the key was written, the framework at the plugin's origin.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ruleset.config import KeyPath, PluginConfig, Profile, Source
from ruleset.framework.defaults import DEFAULT_BINDER, DEFAULT_QUEUE_SORT, plugin_configs
from ruleset.framework.hooks import class_hooks
from ruleset.framework.points import (
    MAX_NODE_SCORE,
    MAX_TOTAL_SCORE,
    MAX_WEIGHT,
    POINTS,
    effective_points,
    implemented_points,
)
from ruleset.kversion import Target

if TYPE_CHECKING:
    from ruleset.framework.plugin import Plugin, PluginClasses


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem with a profile's plugins, before it is located in a file."""

    code: str
    message: str
    #: The plugin the problem is about; None when it is about the profile as a whole.
    config: PluginConfig | None = None
    #: The key inside the plugin's table: ``("args", "shape", 1)``, ``("points", 0)``,
    #: ``("weight",)``; empty for the table itself.
    key: KeyPath = ()
    severity: str = "error"
    #: Report at the key's value rather than at the key.
    at_value: bool = False
    #: 1-based character inside a string value where the problem is (implies ``at_value``).
    offset: int | None = None
    #: For a point no plugin fills: the default plugin the profile disabled.
    default: str | None = None

    def written_at(self) -> tuple[KeyPath, Source] | None:
        """Where what this finding is about was written: the longest prefix of :attr:`key` the
        plugin's config has a source for, and that source (None when nothing was written)."""
        if self.config is None:
            return None
        for end in range(len(self.key), 0, -1):
            source = self.config.sources.get(self.key[:end])
            if source is not None:
                return self.key[:end], source
        return None


@dataclass(frozen=True, slots=True)
class PlannedPlugin:
    """A plugin the framework will run: its config, class, parsed args and effective points."""

    config: PluginConfig
    cls: type[Plugin]
    args: Any
    points: tuple[str, ...]


@dataclass
class PluginCheck:
    """The outcome of :func:`check_plugins`."""

    #: The plugins that would run, in order (those without errors of their own).
    plugins: list[PlannedPlugin] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def check_plugins(profile: Profile, registry: PluginClasses) -> PluginCheck:
    """Check every plugin the profile's framework would run (see the module docstring)."""
    check = PluginCheck()
    findings = check.findings
    target = profile.target
    seen: set[str] = set()
    running: list[PlannedPlugin] = []
    configs = plugin_configs(profile, registry)
    for config in configs:
        cls = registry.get(config.name)
        if cls is None:
            findings.append(Finding("unknown-plugin", f"plugin {config.name!r} does not exist", config))
            continue
        if cls.name in seen:
            findings.append(Finding("duplicate-plugin", f"repeated config for plugin {config.name}", config))
            continue
        seen.add(cls.name)
        errors_before = len(check.errors)
        _check_release(cls, config, target, findings)
        args = _check_args(cls, config, findings, target)
        hooks = class_hooks(cls)
        if hooks.problem is not None:
            findings.append(Finding("invalid-hook", f"plugin {config.name!r}: {hooks.problem}", config))
        points = _check_points(cls, config, findings, target)
        if len(check.errors) == errors_before:
            running.append(PlannedPlugin(config, cls, args, points))
    check.plugins = running
    if not check.errors:  # a plugin with errors of its own would only make these cascade
        findings.extend(_queue_sort_and_bind(running))
    findings.extend(_weight_overflow(profile, configs, registry))
    return check


def _check_args(cls: type[Plugin], config: PluginConfig, findings: list[Finding], target: Target) -> Any:
    """The args' own rules, then what only the target release decides (a plugin's optional
    ``validate_args_for(args, target)``: an arg that release does not have)."""
    args, errors = cls.check_args(config.args)
    release_check = getattr(cls, "validate_args_for", None)
    if args is not None and not errors and release_check is not None:
        errors = list(release_check(args, target))
    for error in errors:
        findings.append(Finding(error.code, error.message, config, ("args", *error.path),
                                at_value=error.at_value or error.offset is not None, offset=error.offset))
    return args


def _check_release(cls: type[Plugin], config: PluginConfig, target: Target, findings: list[Finding]) -> None:
    """A plugin the target release does not have (not yet, or no longer)."""
    if cls.introduced_in is not None and not target.at_least(cls.introduced_in):
        findings.append(Finding("plugin-not-in-release", f"plugin {config.name!r} is not in Kubernetes "
                                f"{target.version}: it came in {cls.introduced_in}", config))
    elif cls.removed_in is not None and target.at_least(cls.removed_in):
        instead = f"; use {cls.replaced_by}" if cls.replaced_by else ""
        findings.append(Finding("plugin-not-in-release", f"plugin {config.name!r} is not in Kubernetes "
                                f"{target.version}: it was removed in {cls.removed_in}{instead}", config))


def available_points(cls: type[Plugin], target: Target) -> list[str]:
    """The extension points ``cls`` implements at ``target`` (:attr:`Plugin.points_since`)."""
    since = getattr(cls, "points_since", {}) or {}
    return [p for p in implemented_points(cls) if p not in since or target.at_least(since[p])]


def _check_points(cls: type[Plugin], config: PluginConfig, findings: list[Finding],
                  target: Target) -> tuple[str, ...]:
    available = available_points(cls, target)
    for i, point in enumerate(config.points or ()):
        if point not in POINTS:
            findings.append(Finding("unknown-extension-point",
                                    f"unknown extension point {point!r} (known: {', '.join(POINTS)})",
                                    config, ("points", i), at_value=True))
        elif point not in available:
            findings.append(Finding("point-not-implemented",
                                    f"plugin {config.name!r} does not extend {POINTS[point].title} plugin",
                                    config, ("points", i), at_value=True))
    points = tuple(p for p in effective_points(cls, config.points) if p in available)
    if "score" not in points and config.written("weight"):
        why = (f"plugin {config.name!r} does not extend Score plugin" if "score" not in available else
               f"plugin {config.name!r} is limited to points {json.dumps(list(config.points or ()))}, "
               f"which do not include score")
        findings.append(Finding("weight-without-score", f"weight has no effect: {why}", config, ("weight",),
                                severity="warning", at_value=True))
    return points


def _queue_sort_and_bind(running: list[PlannedPlugin]) -> list[Finding]:
    """Exactly one QueueSort plugin, at least one Bind plugin."""
    out = []
    queue_sorts = [p for p in running if "queueSort" in p.points]
    if not queue_sorts:
        out.append(Finding("no-queue-sort", "no queue sort plugin is enabled", default=DEFAULT_QUEUE_SORT))
    elif len(queue_sorts) > 1:
        out.append(Finding("multiple-queue-sort", "only one queue sort plugin can be enabled",
                           queue_sorts[1].config))
    if not any("bind" in p.points for p in running):
        out.append(Finding("no-bind-plugin", "at least one bind plugin is needed", default=DEFAULT_BINDER))
    return out


def _weight_overflow(profile: Profile, configs: list[PluginConfig], registry: PluginClasses) -> list[Finding]:
    """NewFramework fails the build when Σ weight × MaxNodeScore exceeds MaxTotalScore.

    Every plugin that would score counts, its other problems notwithstanding, except a
    weight outside [1, MAX_WEIGHT] (which the profile schema refuses on its own). The
    problem is the sum; it is reported once, at the largest weight, the one to lower:
    preferably one the profile's own file writes.
    """
    scoring = []
    for config in configs:
        cls = registry.get(config.name)
        in_range = 1 <= config.weight <= MAX_WEIGHT
        if cls is not None and in_range and "score" in effective_points(cls, config.points):
            scoring.append(config)
    if sum(c.weight for c in scoring) * MAX_NODE_SCORE <= MAX_TOTAL_SCORE:
        return []
    root = profile.files[0] if profile.files else None
    written_here = [c for c in scoring
                    if (source := c.sources.get(("weight",))) is not None and source.origin.file == root]
    heaviest = max(written_here or scoring, key=lambda c: c.weight)
    return [Finding("weight-overflow", "total score of Score plugins could overflow", heaviest, ("weight",),
                    at_value=True)]
