"""PreFilter may return Skip from Kubernetes 1.27 (the ``framework.prefilter-skip`` switch).

Upstream: ``RunPreFilterPlugins``, ``RunFilterPlugins`` and ``RunPreFilterExtensionAddPod`` /
``RemovePod`` in ``pkg/scheduler/framework/runtime/framework.go`` (v1.27.0): a plugin whose
PreFilter returns Skip is recorded in ``CycleState.SkipFilterPlugins`` (set only when the
point as a whole succeeds; from v1.28, kubernetes#119769, in a deferred write whatever the
outcome), and neither its Filter nor its PreFilter extensions run for the pod. Before 1.27 a Skip from PreFilter is a non-success that is not Unschedulable: an Error
("running PreFilter plugin ...").
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

from ruleset import FilterResult, hookspecs
from ruleset.config import PluginConfig, Profile
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import Handle, Plugin
from ruleset.framework.results import NodeStatuses
from ruleset.framework.runtime import SKIP_FILTER_PLUGINS, Framework
from ruleset.framework.status import Code, Status
from ruleset.scheduler import Scheduler
from tests.factories import build_cluster, decode, make_node, make_pod, registry_with

hookimpl = hookspecs.hookimpl


class SkipsLabelled(Plugin):
    """PreFilter returns Skip for a pod labelled ``skip``; Filter rejects n1 and n2; every call
    is counted."""

    name = "SkipsLabelled"
    calls: ClassVar[list[str]] = []

    @hookimpl
    def ruleset_pre_filter(self, pod):
        SkipsLabelled.calls.append("PreFilter")
        return Status(Code.SKIP) if "skip" in pod.labels else None

    @hookimpl
    def ruleset_pre_filter_add_pod(self, pod_to_add):
        SkipsLabelled.calls.append("AddPod")

    @hookimpl
    def ruleset_filter(self, nodes):
        SkipsLabelled.calls.append("Filter")
        names = [nodes.snapshot.node_names[i] for i in nodes.indices]
        return FilterResult.reject(np.array([n != "n3" for n in names]), Code.UNSCHEDULABLE, "no")


class Refuses(Plugin):
    """PreFilter refuses a pod labelled ``refuse`` (after SkipsLabelled)."""

    name = "Refuses"

    @hookimpl
    def ruleset_pre_filter(self, pod):
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("refused",)) if "refuse" in pod.labels else None


NODES = [make_node("n1"), make_node("n2"), make_node("n3")]


def scheduler(version: str | None) -> Scheduler:
    state = build_cluster(NODES)
    profile = Profile(name="p", plugins=[PluginConfig(name="SkipsLabelled"), PluginConfig(name="Refuses")],
                      percentage_of_nodes_to_score=100, kubernetes_version=version)
    framework = Framework(profile, registry_with(SkipsLabelled, Refuses), Handle(state.snapshot))
    return Scheduler(framework, seed=0)


@pytest.mark.parametrize(("version", "labels", "fits", "calls"), [
    pytest.param("1.27", {"skip": "y"}, ["n1", "n2", "n3"], ["PreFilter"], id="1.27 Skip: Filter not run"),
    pytest.param("1.34", {"skip": "y"}, ["n1", "n2", "n3"], ["PreFilter"], id="1.34 Skip"),
    pytest.param("1.34", {}, ["n3"], ["PreFilter", "Filter"], id="1.34 Success: filtered"),
    pytest.param(None, {}, ["n3"], ["PreFilter", "Filter"], id="1.20 Success: filtered"),
])
def test_skip_leaves_the_filter_out(version: str | None, labels: dict, fits: list, calls: list) -> None:
    SkipsLabelled.calls.clear()
    s = scheduler(version)
    state = CycleState()
    pod = decode(make_pod("p", labels=labels))
    assert s.framework.run_pre_filter(state, pod, s.snapshot).is_success
    statuses = NodeStatuses(s.snapshot.num_nodes)
    passing, status = s.framework.run_filter(state, pod, s.snapshot.all_nodes(), statuses)
    assert status.is_success
    assert [s.snapshot.node_names[i] for i in passing] == fits
    assert SkipsLabelled.calls == calls


@pytest.mark.parametrize("version", [None, "1.26"])
def test_skip_before_1_27_is_an_error(version: str | None) -> None:
    result = scheduler(version).schedule(decode(make_pod("p", labels={"skip": "y"})))
    assert (result.status.code, result.status.plugin, result.message) == (
        Code.ERROR, "SkipsLabelled", 'running PreFilter plugin "SkipsLabelled": ')


def test_a_skipped_plugin_is_left_out_of_the_one_node_filters_and_add_pod() -> None:
    """Preemption's dry runs and nominated pods go through run_filters_on_node and the AddPod
    extensions: a skipped plugin takes part in neither."""
    SkipsLabelled.calls.clear()
    s = scheduler("1.34")
    state = CycleState()
    pod = decode(make_pod("p", labels={"skip": "y"}))
    assert s.framework.run_pre_filter(state, pod, s.snapshot).is_success
    assert s.framework.run_filters_on_node(state, pod, 0, s.snapshot).is_success
    other = decode(make_pod("q"))
    assert s.framework.run_pre_filter_add_pod(state, pod, other, 0, s.snapshot).is_success
    assert SkipsLabelled.calls == ["PreFilter"]


@pytest.mark.parametrize(("version", "after_a_failure"), [
    pytest.param("1.27", None, id="1.27: only when PreFilter succeeds"),
    pytest.param("1.28", frozenset({"SkipsLabelled"}), id="1.28: also after a failure (kubernetes#119769)"),
    pytest.param("1.34", frozenset({"SkipsLabelled"}), id="1.34"),
])
def test_when_the_skipped_set_is_written(version: str, after_a_failure: frozenset | None) -> None:
    s = scheduler(version)
    state = CycleState()
    assert s.framework.run_pre_filter(state, decode(make_pod("p", labels={"skip": "y"})), s.snapshot).is_success
    assert state.read(SKIP_FILTER_PLUGINS) == frozenset({"SkipsLabelled"})
    state = CycleState()
    status = s.framework.run_pre_filter(state, decode(make_pod("p", labels={"skip": "y", "refuse": "y"})),
                                        s.snapshot)
    assert (status.code, status.plugin) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "Refuses")
    assert state.get(SKIP_FILTER_PLUGINS) == after_a_failure


def test_a_skipped_pod_is_scheduled_on_a_node_its_filter_would_refuse() -> None:
    result = scheduler("1.34").schedule(decode(make_pod("p", labels={"skip": "y"})))
    assert result.status.is_success and result.node in ("n1", "n2", "n3")
    result = scheduler("1.34").schedule(decode(make_pod("p")))
    assert result.node == "n3"
