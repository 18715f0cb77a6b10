"""Discover plugin classes: built-ins first, then the ``ruleset`` entry-point group.

Discovery uses one pluggy manager with the :class:`~ruleset.hookspecs.DiscoverySpecs`.
Each third-party package is loaded on its own: one that fails to import or to register is
reported by name and left out, and the rest of the run goes on.

Set ``RULESET_DISABLE_PLUGIN_AUTOLOAD=1`` (or ``true``, ``yes``, in any case) to skip entry
points (hermetic tests, debugging); any other value, ``0``, ``false`` and empty included, leaves
autoloading on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from typing import Any

import pluggy

from ruleset import hookspecs
from ruleset.errors import Problem
from ruleset.framework.plugin import Plugin

ENTRY_POINT_GROUP = "ruleset"
BUILTIN_MODULE = "ruleset.plugins"
AUTOLOAD_ENV = "RULESET_DISABLE_PLUGIN_AUTOLOAD"
#: The values of :data:`AUTOLOAD_ENV` that disable autoloading (compared case-insensitively).
_TRUTHY = frozenset(("1", "true", "yes"))


def autoload_disabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether :data:`AUTOLOAD_ENV` (in ``environ``, default ``os.environ``) disables entry points:
    only a truthy value does (``1``, ``true``, ``yes``, in any case, around spaces)."""
    value = (os.environ if environ is None else environ).get(AUTOLOAD_ENV, "")
    return value.strip().lower() in _TRUTHY


class _Defaults:
    """ruleset's own fallback implementations of discovery hooks."""

    @hookspecs.hookimpl(trylast=True)
    def ruleset_plugin_args_schema(self, plugin: type[Plugin]) -> dict[str, Any]:
        return plugin.args_schema


@dataclass
class PluginRegistry:
    """Every known plugin class by framework name, where each came from, and load failures."""

    classes: dict[str, type[Plugin]] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    manager: pluggy.PluginManager | None = None
    #: Things derived from the registry and built once: the profile schema and its validator.
    cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def get(self, name: str) -> type[Plugin] | None:
        return self.classes.get(self.aliases.get(name, name))

    def canonical_name(self, name: str) -> str:
        return self.aliases.get(name, name)

    def names(self) -> list[str]:
        return sorted(self.classes)

    def args_schema(self, name: str) -> dict[str, Any]:
        """The args schema of plugin ``name``, through the ``ruleset_plugin_args_schema`` hook
        (whose last implementation, ruleset's own, always answers)."""
        cls = self.get(name)
        if cls is None:
            raise KeyError(name)
        assert self.manager is not None
        return self.manager.hook.ruleset_plugin_args_schema(plugin=cls)

    def is_builtin(self, name: str) -> bool:
        return self.origins.get(self.canonical_name(name)) == "builtin"

    def package_of(self, name: str) -> str:
        """The package plugin ``name`` came from, as reports name it: ``built-in``, or the
        distribution and its version (``ruleset-gpu 0.1.0``)."""
        origin = self.origins.get(self.canonical_name(name), "unknown")
        return "built-in" if origin == "builtin" else origin


def _register_module(registry: PluginRegistry, pm: pluggy.PluginManager, module: Any, origin: str) -> None:
    found: list[type[Plugin]] = []

    def register(cls: type[Plugin]) -> None:
        if not (isinstance(cls, type) and issubclass(cls, Plugin)):
            raise TypeError(f"register() takes a ruleset.Plugin subclass, got {cls!r}")
        if not getattr(cls, "name", None):
            raise TypeError(f"plugin class {cls.__module__}.{cls.__qualname__} has no 'name'")
        found.append(cls)

    hook = pm.hook.ruleset_register_plugins
    impls = [impl for impl in hook.get_hookimpls() if impl.plugin is module]
    for impl in impls:
        impl.function(register)
    for cls in found:
        existing = registry.classes.get(cls.name)
        if existing is not None and existing is not cls:
            registry.problems.append(Problem(
                f"plugin name {cls.name!r} is registered twice: by "
                f"{existing.__module__}.{existing.__qualname__} "
                f"({registry.origins[cls.name]}) and by {cls.__module__}.{cls.__qualname__} ({origin}); "
                f"the second is ignored", code="duplicate-plugin", severity="warning"))
            continue
        registry.classes[cls.name] = cls
        registry.origins[cls.name] = origin
        for alias in cls.aliases:
            registry.aliases.setdefault(alias, cls.name)


@cache
def load_registry(autoload: bool | None = None) -> PluginRegistry:
    """Discover every plugin class once per process."""
    import importlib

    if autoload is None:
        autoload = not autoload_disabled()
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs.DiscoverySpecs)
    registry = PluginRegistry(manager=pm)
    pm.register(_Defaults(), name="ruleset.defaults")
    builtin = importlib.import_module(BUILTIN_MODULE)
    pm.register(builtin, name=BUILTIN_MODULE)
    _register_module(registry, pm, builtin, "builtin")
    if autoload:
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            origin = f"{ep.dist.name} {ep.dist.version}" if ep.dist else ep.value
            try:
                module = ep.load()
                pm.register(module, name=f"entrypoint:{ep.name}")
                _register_module(registry, pm, module, origin)
            except Exception as exc:  # a broken third-party package must not take the run down
                registry.problems.append(Problem(
                    f"plugin package {ep.name!r} ({origin}) failed to load: {type(exc).__name__}: {exc}",
                    code="plugin-load-failed", severity="warning"))
    return registry
