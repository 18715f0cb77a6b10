"""The Error a plugin's non-success aborts a cycle with, in upstream's words at each release.

Upstream: ``pkg/scheduler/framework/runtime/framework.go``, every message built with Go's
``%q`` (double quotes): ``RunPreFilterPlugins`` (``running PreFilter plugin %q: %w``) and
``RunFilterPlugins`` (``running %q filter plugin for pod %q: %v`` in v1.20, kept with ``%w`` by
kubernetes#98266 for v1.21; ``running %q filter plugin: %w`` in v1.22's sources and since). The
PreFilter case is TestSchedulerSchedulePod's "test prefilter plugin returning error status"
(v1.32), at the releases whose sources were read (v1.22 on: v1.20's PreFilter wording is not
verified); the Filter cases are this module's own, one per wording.
"""

from __future__ import annotations

from typing import Any

import pytest

from ruleset import FilterResult, hookspecs
from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle, Plugin
from ruleset.framework.runtime import Framework
from ruleset.framework.status import Code, Status
from ruleset.scheduler import Scheduler
from tests.factories import build_cluster, decode, make_node, make_pod, registry_with

hookimpl = hookspecs.hookimpl


class FakePreFilter(Plugin):
    name = "FakePreFilter"

    @hookimpl
    def ruleset_pre_filter(self) -> Status:
        return Status(Code.ERROR, ("injected error status",))


class FakeFilter(Plugin):
    name = "FakeFilter"

    @hookimpl
    def ruleset_filter(self, nodes: Any) -> FilterResult:
        return FilterResult.error(len(nodes), "injected filter status")


def _schedule(version: str, plugin: type[Plugin]) -> Status:
    state = build_cluster([make_node("node1"), make_node("node2")])
    profile = Profile(name="p", plugins=[PluginConfig(name=plugin.name)], kubernetes_version=version)
    scheduler = Scheduler(Framework(profile, registry_with(plugin), Handle(state.snapshot)), seed=0)
    return scheduler.schedule(decode(make_pod("test-filter"))).status


@pytest.mark.parametrize("version", ["1.22", "1.35"])
def test_prefilter_plugin_returning_error_status(version: str) -> None:
    status = _schedule(version, FakePreFilter)
    assert (status.code, status.message()) == (Code.ERROR, 'running PreFilter plugin "FakePreFilter": injected error status')


@pytest.mark.parametrize(("version", "message"), [
    ("1.20", 'running "FakeFilter" filter plugin for pod "test-filter": injected filter status'),
    ("1.21", 'running "FakeFilter" filter plugin for pod "test-filter": injected filter status'),
    ("1.22", 'running "FakeFilter" filter plugin: injected filter status'),
    ("1.35", 'running "FakeFilter" filter plugin: injected filter status'),
])
def test_filter_plugin_returning_error_status(version: str, message: str) -> None:
    status = _schedule(version, FakeFilter)
    assert (status.code, status.message()) == (Code.ERROR, message)
