"""Shared builders for the noderesources tests at a target Kubernetes release (issue 13).

Upstream's ``makeNode(name, milliCPU, memory, extended)`` and pods from container request
maps; :class:`VersionHarness` is :class:`tests.factories.Harness` for a profile that says
``kubernetesVersion``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.scheduler import Scheduler
from tests.factories import Harness, PluginSpec, build_cluster, container, make_node, make_pod

NOTHING = {"cpu": "0", "memory": "0"}


def node(name: str, milli_cpu: int, memory: int, extended: dict[str, int] | None = None,
         pods: int | None = None) -> dict:
    """``makeNode``: allocatable cpu (millicores), memory (and scalar resources, and pods)."""
    allocatable: dict[str, Any] = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    allocatable.update({k: str(v) for k, v in (extended or {}).items()})
    if pods is not None:
        allocatable["pods"] = str(pods)
    return make_node(name, allocatable=allocatable)


def pod(requests: Sequence[dict] = (NOTHING,), name: str = "pod", node_name: str | None = None,
        **extra: Any) -> dict:
    """A pod with one container per request map (upstream's pods without containers: ``NOTHING``)."""
    return make_pod(name, node_name=node_name, containers=[container(r, name=f"c{i}") for i, r in enumerate(requests)],
                    **extra)


def placed(*specs: tuple[Sequence[dict], str]) -> list[dict]:
    """Pods already on nodes, from (requests, node name) pairs."""
    return [pod(requests, f"existing{i}", node_name) for i, (requests, node_name) in enumerate(specs)]


def profile(plugins: Sequence[PluginSpec], version: str | None, points: Sequence[str] | None = None) -> Profile:
    """A profile of ``plugins`` (each limited to ``points`` when given) at ``version``."""
    configs = []
    for spec in plugins:
        name, args = (spec, {}) if isinstance(spec, str) else (spec[0], dict(spec[1]))
        configs.append(PluginConfig(name=name, weight=1, args=args, points=tuple(points) if points else None))
    return Profile(name="test", plugins=configs, percentage_of_nodes_to_score=100, kubernetes_version=version)


class VersionHarness(Harness):
    """:class:`Harness` running a profile with ``kubernetesVersion = version`` (None: unset, 1.20)."""

    def __init__(self, plugins: Sequence[PluginSpec], objects: Iterable[dict], version: str | None,
                 points: Sequence[str] | None = None):
        self.state = build_cluster(objects)
        self.snapshot = self.state.snapshot
        self.framework = Framework(profile(plugins, version, points), load_registry(), Handle(self.snapshot))
        self.scheduler = Scheduler(self.framework, seed=0)


def scores(plugin: PluginSpec, nodes: list[dict], existing: list[dict], incoming: dict,
           version: str | None, points: Sequence[str] | None = None) -> list[int] | None:
    """The plugin's raw scores of ``incoming``, in node order (``points``: only those run);
    None when its PreScore returned Skip (1.27 on), so that its Score did not run."""
    h = VersionHarness([plugin], [*nodes, *existing], version, points)
    name = plugin if isinstance(plugin, str) else plugin[0]
    result = h.run(incoming)
    if result.scores is not None and name in result.scores.skipped:
        return None
    got = h.score(incoming, name, raw=True)
    return [got[n["metadata"]["name"]] for n in nodes]
