"""Helpers for the KubeSchedulerConfiguration import/export tests."""

import dataclasses
import types

import numpy as np

from ruleset import hookimpl, pluginmanager
from ruleset.framework.args import arg_field
from ruleset.framework.plugin import Plugin
from ruleset.framework.points import POINT_KEYS
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import AUTOLOAD_ENV, LOCAL_ENV, load_registry


def effective(profile, registry):
    """What a profile runs: per extension point the plugins in order (Score with weights), and each
    plugin's args with the defaults filled in."""
    framework = Framework(profile, registry)
    points = {
        point: [
            (n, framework.configs[n].weight if point == "score" else None)
            for n in framework.configs
            if point in framework.points[n]
        ]
        for point in POINT_KEYS
    }
    args = {}
    for name, config in framework.configs.items():
        cls = registry.get(name)
        args[name] = cls.args_to_dict(cls.parse_args(config.args))
    return points, args


# ------------------------------------------------------------------ a fake third-party package
@dataclasses.dataclass(frozen=True)
class GangArgs:
    permit_waiting_time_seconds: int = arg_field("permitWaitingTimeSeconds", 60, schema={"type": "integer"})
    label_key: str = arg_field("labelKey", "pod-group", schema={"type": "string"})


class Gang(Plugin):
    """Gang scheduling, as a package would register it (a Filter, Score and Permit plugin)."""

    name = "Gang"
    Args = GangArgs

    @hookimpl
    def ruleset_filter(self, state, pod, nodes):
        return None

    @hookimpl
    def ruleset_score(self, state, pod, nodes):
        return np.zeros(len(nodes), dtype=np.int64)

    @hookimpl
    def ruleset_permit(self, state, pod, node):
        return None


class Quota(Plugin):
    """A Score plugin with dict args whose schema its package gives through the schema hook."""

    name = "Quota"

    @hookimpl
    def ruleset_score(self, state, pod, nodes):
        return np.zeros(len(nodes), dtype=np.int64)


QUOTA_SCHEMA = {"type": "object", "properties": {"limit": {"type": "integer"}}, "additionalProperties": False}


def _register_gang(register):
    register(Gang)
    register(Quota)


def _quota_schema(plugin):
    return QUOTA_SCHEMA if plugin is Quota else None


@dataclasses.dataclass
class _Dist:
    name: str
    version: str


@dataclasses.dataclass
class _EntryPoint:
    """What ``importlib.metadata`` gives for the ``ruleset`` entry point of package ``gang 0.1.0``."""

    name: str = "gang"
    value: str = "gang"
    dist: _Dist = dataclasses.field(default_factory=lambda: _Dist("gang", "0.1.0"))

    def load(self):
        module = types.ModuleType("gang")
        module.ruleset_register_plugins = hookimpl(_register_gang)
        module.ruleset_plugin_args_schema = hookimpl(_quota_schema)
        return module


def gang_installed(monkeypatch):
    """For a fixture: package ``gang 0.1.0`` (plugins Gang and Quota) is the one installed, for load_registry
    and the CLI; yields the registry, and forgets it afterwards."""
    monkeypatch.setenv(AUTOLOAD_ENV, "0")
    monkeypatch.delenv(LOCAL_ENV, raising=False)
    monkeypatch.setattr(pluginmanager, "entry_points", lambda *, group: [_EntryPoint()])
    load_registry.cache_clear()
    yield load_registry()
    load_registry.cache_clear()
