"""Run one plugin through the real framework, as ``ruleset score`` runs a profile."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ruleset.api.node import Node
from ruleset.api.pod import Pod, apply_target
from ruleset.app import score_pod
from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle, Plugin
from ruleset.framework.runtime import Framework
from ruleset.framework.status import SUCCESS, Status
from ruleset.pluginmanager import PluginRegistry, load_registry
from ruleset.scheduler import ScheduleResult
from ruleset.snapshot import Snapshot
from ruleset.testing.builders import cluster

__all__ = ["PluginRun", "plugin_framework", "resolve_plugin", "run_plugin"]

#: What a plugin class given directly (not found in the registry) is reported as coming from.
TEST_PACKAGE = "ruleset.testing"


@dataclass
class PluginRun:
    """What one plugin made of one pod on a cluster (node names as keys, in node order)."""

    #: Node name -> the plugin's Filter status on it (Success when it passes, or when the
    #: plugin has no Filter); a PreFilter rejection gives every node that status.
    filter: dict[str, Status] = field(default_factory=dict)
    #: Nodes that passed, in node order.
    feasible: list[str] = field(default_factory=list)
    #: Node -> raw Score (feasible nodes; empty when the plugin does not score).
    raw: dict[str, int] = field(default_factory=dict)
    #: Node -> score after NormalizeScore (as ``raw`` when the plugin does not normalize).
    scores: dict[str, int] = field(default_factory=dict)
    #: The cycle's Error or Unschedulable status when it did not reach a node, else Success.
    status: Status = SUCCESS
    #: The scheduler's full result, for what the fields above leave out.
    result: ScheduleResult | None = field(default=None, repr=False)


def resolve_plugin(plugin: type[Plugin] | str) -> tuple[type[Plugin], PluginRegistry]:
    """The plugin class and a registry holding it: a name is looked up among the installed
    plugins; a class is added (under its ``name``) to the built-in ones."""
    if isinstance(plugin, str):
        registry = load_registry()
        cls = registry.get(plugin)
        if cls is None:
            why = registry.unavailable(plugin) or f"no installed plugin is named {plugin!r}"
            raise ValueError(f"plugin {plugin!r} cannot be used: {why}")
        return cls, registry
    if not (isinstance(plugin, type) and issubclass(plugin, Plugin)):
        raise TypeError(f"expected a ruleset.Plugin subclass or a plugin name, got {plugin!r}")
    base = load_registry(autoload=False)
    if base.classes.get(getattr(plugin, "name", None)) is plugin:  # type: ignore[arg-type]
        return plugin, base
    return plugin, base.with_classes(plugin, origin=TEST_PACKAGE)


def schema_errors(schema: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    """Why ``args`` does not match the plugin's args schema, as ``ruleset validate`` would say it."""
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(dict(args)), key=lambda e: list(e.absolute_path))
    return [f"{'.'.join(str(p) for p in error.absolute_path) or 'args'}: {error.message}" for error in errors]


def plugin_framework(cls: type[Plugin], registry: PluginRegistry, snapshot: Snapshot | None,
                     args: Mapping[str, Any] | None = None,
                     kubernetes_version: str | None = None) -> Framework:
    """A framework running just ``cls`` (plus PrioritySort and DefaultBinder where it is neither a
    QueueSort nor a Bind plugin, as for any profile) over ``snapshot``, as Kubernetes
    ``kubernetes_version`` (default: 1.20, or the release that brought the plugin,
    :attr:`Plugin.introduced_in`). Args are checked against the plugin's schema first
    (ValueError), then as a profile's are (FrameworkError)."""
    args = dict(args or {})
    problems = schema_errors(registry.schemas.get(cls.name, cls.args_schema), args)
    if problems:
        raise ValueError(f"invalid args for plugin {cls.name!r}: " + "; ".join(problems))
    profile = Profile(name="ruleset-testing", plugins=[PluginConfig(name=cls.name, args=args)],
                      percentage_of_nodes_to_score=100,
                      kubernetes_version=kubernetes_version or getattr(cls, "introduced_in", None))
    return Framework(profile, registry, Handle(snapshot))


def run_plugin(plugin: type[Plugin] | str, pod: Pod, nodes: Iterable[Node], *, pods: Iterable[Pod] = (),
               args: Mapping[str, Any] | None = None, kubernetes_version: str | None = None) -> PluginRun:
    """Schedule ``pod`` on ``nodes`` (``pods`` with a ``node_name`` running there) with a profile
    of just ``plugin`` and ``args``: PreFilter, Filter on every node, then PreScore, Score and
    NormalizeScore on the feasible ones, through the framework ``ruleset score`` uses, as
    Kubernetes ``kubernetes_version`` (see :func:`plugin_framework`)."""
    cls, registry = resolve_plugin(plugin)
    version = kubernetes_version or getattr(cls, "introduced_in", None)
    target = Profile(name="", kubernetes_version=version).target
    state = cluster(nodes, pods, target=target)
    apply_target([pod], target)  # counted as the release counts it, as the cluster's pods are
    framework = plugin_framework(cls, registry, state.snapshot, args, version)
    result = score_pod(framework, state, pod).result
    assert result is not None  # only a refused pod has none, and score_pod refuses none by itself
    names = state.snapshot.node_names
    run = PluginRun(result=result)
    if result.statuses is not None:
        run.filter = {name: result.statuses.status(i) for i, name in enumerate(names)}
    feasible = [int(i) for i in result.feasible]
    run.feasible = [names[i] for i in sorted(feasible)]
    table = result.scores
    label = framework.configs[cls.name].label
    if table is not None and label in table.plugins:
        index = table.plugins.index(label)
        raw = dict(zip(feasible, table.raw[index].tolist(), strict=True))
        normalized = dict(zip(feasible, table.normalized[index].tolist(), strict=True))
        run.raw = {names[i]: int(raw[i]) for i in sorted(feasible)}
        run.scores = {names[i]: int(normalized[i]) for i in sorted(feasible)}
    if not result.scheduled:
        run.status = result.status
    return run
