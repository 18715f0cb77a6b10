"""A :class:`tests.factories.Harness` whose profile targets a Kubernetes release."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.pluginmanager import load_registry
from ruleset.scheduler import Scheduler
from tests.factories import Harness, build_cluster


class ReleaseHarness(Harness):
    """``Harness`` over the named plugins (weight 1, every point) in a profile with
    ``kubernetesVersion = version``."""

    def __init__(self, plugins: Sequence[str], objects: Iterable[dict], version: str):
        self.state = build_cluster(objects)
        self.snapshot = self.state.snapshot
        profile = Profile(name="test", plugins=[PluginConfig(name=n) for n in plugins],
                          percentage_of_nodes_to_score=100, kubernetes_version=version)
        self.framework = Framework(profile, load_registry(), Handle(self.snapshot))
        self.scheduler = Scheduler(self.framework, seed=0)
