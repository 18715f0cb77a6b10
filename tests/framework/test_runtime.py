"""The framework runtime: hook validation at load, dispatch order, points, failure isolation."""

from typing import ClassVar

import numpy as np
import pytest

from ruleset import hookspecs
from ruleset.framework.plugin import PerNodeFilter, PerNodeScore, Plugin
from ruleset.framework.points import implemented_points
from ruleset.framework.results import FilterResult
from ruleset.framework.runtime import FrameworkError
from ruleset.framework.status import Code, Status
from ruleset.scheduler import Scheduler
from tests.factories import build_cluster, decode, framework_for, make_node, make_pod, registry_with

hookimpl = hookspecs.hookimpl


class TypoHook(Plugin):
    name = "TypoHook"

    @hookimpl
    def ruleset_filtr(self, pod, nodes):  # misspelt hook name
        return None


class BadArgument(Plugin):
    name = "BadArgument"

    @hookimpl
    def ruleset_filter(self, pod, node_list):  # not an argument of the spec
        return None


class Exploding(Plugin):
    name = "Exploding"

    @hookimpl
    def ruleset_score(self, pod, nodes):
        raise RuntimeError("boom")


class RejectOdd(PerNodeFilter):
    """Per-node convenience path: reject nodes whose name ends in an odd digit."""

    name = "RejectOdd"

    def filter_node(self, state, pod, node):
        if int(node.name[-1]) % 2:
            return Status.unschedulable("odd node")
        return None


class NameLength(PerNodeScore):
    name = "NameLength"

    def score_node(self, state, pod, node):
        return len(node.name) * 10


class Recorder(Plugin):
    name = "Recorder"
    calls: ClassVar[list] = []

    @hookimpl
    def ruleset_filter(self, nodes):
        Recorder.calls.append(("Recorder", list(nodes.names)))
        return FilterResult.reject(np.array([n == "n1" for n in nodes.names]), Code.UNSCHEDULABLE, "first")


class Recorder2(Plugin):
    name = "Recorder2"

    @hookimpl
    def ruleset_filter(self, nodes):
        Recorder.calls.append(("Recorder2", list(nodes.names)))
        return FilterResult.reject(np.ones(len(nodes), bool), Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "second")


REGISTRY = registry_with(TypoHook, BadArgument, Exploding, RejectOdd, NameLength, Recorder, Recorder2)


def test_unknown_hook_name_fails_at_load_naming_plugin_and_hook():
    with pytest.raises(FrameworkError) as info:
        framework_for(["TypoHook"], REGISTRY)
    message = str(info.value)
    assert "TypoHook" in message and "ruleset_filtr" in message
    assert info.value.problems[0].code == "invalid-hook"


def test_unknown_hook_argument_fails_at_load_naming_plugin_and_hook():
    with pytest.raises(FrameworkError) as info:
        framework_for(["BadArgument"], REGISTRY)
    message = str(info.value)
    assert "BadArgument" in message and "ruleset_filter" in message and "node_list" in message


def test_unknown_plugin():
    with pytest.raises(FrameworkError) as info:
        framework_for(["NoSuchPlugin"], REGISTRY)
    assert [p.message for p in info.value.problems] == ["plugin 'NoSuchPlugin' does not exist"]


def test_framework_defaults_queue_sort_and_binder_are_added():
    fw = framework_for(["NodeName"], REGISTRY)
    assert [s.plugin for s in fw.tables["ruleset_queue_sort"]] == ["PrioritySort"]
    assert [s.plugin for s in fw.tables["ruleset_bind"]] == ["DefaultBinder"]


def test_implemented_points():
    assert implemented_points(RejectOdd) == ["filter"]
    assert implemented_points(NameLength) == ["score"]


def test_filter_plugins_see_only_nodes_earlier_plugins_passed_and_first_failure_decides():
    Recorder.calls.clear()
    state = build_cluster([make_node("n1"), make_node("n2"), make_node("n3")])
    fw = framework_for(["Recorder", "Recorder2"], REGISTRY, snapshot=state.snapshot)
    result = Scheduler(fw).schedule(decode(make_pod()))
    assert Recorder.calls == [("Recorder", ["n1", "n2", "n3"]), ("Recorder2", ["n2", "n3"])]
    statuses = result.statuses
    assert statuses.status(0) == Status(Code.UNSCHEDULABLE, ("first",), "Recorder")
    assert statuses.status(1) == Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("second",), "Recorder2")
    assert result.message == "0/3 nodes are available: 1 first, 2 second."


def test_per_node_convenience_plugins():
    state = build_cluster([make_node("n1"), make_node("n2"), make_node("node4")])
    fw = framework_for(["RejectOdd", "NameLength"], REGISTRY, snapshot=state.snapshot)
    result = Scheduler(fw).schedule(decode(make_pod()), always_score=True)
    assert [state.snapshot.node_names[i] for i in result.feasible] == ["n2", "node4"]
    assert result.scores.raw[0].tolist() == [20, 50]
    assert result.node == "node4"
    assert result.message == ""


def test_failing_plugin_is_reported_by_name_and_does_not_raise():
    state = build_cluster([make_node("n1"), make_node("n2")])
    fw = framework_for(["Exploding"], REGISTRY, snapshot=state.snapshot)
    result = Scheduler(fw).schedule(decode(make_pod()))
    assert result.node is None
    assert result.status.code == Code.ERROR
    assert result.status.plugin == "Exploding"
    assert result.status.message() == 'plugin "Exploding" failed with: RuntimeError: boom'


def test_points_restrict_a_plugin_to_named_extension_points():
    from ruleset.config import PluginConfig, Profile
    from ruleset.framework.plugin import Handle
    from ruleset.framework.runtime import Framework

    profile = Profile(name="p", plugins=[PluginConfig(name="NodeLabel", points=("filter",),
                                                      args={"presentLabels": ["a"], "presentLabelsPreference": ["b"]})])
    fw = Framework(profile, REGISTRY, Handle())
    assert fw.points["NodeLabel"] == ["filter"]
    assert fw.score_plugins == []


def test_point_not_implemented_is_rejected_with_upstream_message():
    from ruleset.config import PluginConfig, Profile
    from ruleset.framework.plugin import Handle
    from ruleset.framework.runtime import Framework

    profile = Profile(name="p", plugins=[PluginConfig(name="NodeName", points=("score",))])
    with pytest.raises(FrameworkError) as info:
        Framework(profile, REGISTRY, Handle())
    assert [p.message for p in info.value.problems] == ["plugin 'NodeName' does not extend Score plugin"]


def test_two_queue_sort_plugins_are_rejected():
    class OtherSort(Plugin):
        name = "OtherSort"

        @hookimpl
        def ruleset_queue_sort(self, a, b):
            return False

    registry = registry_with(OtherSort)
    with pytest.raises(FrameworkError) as info:
        framework_for(["PrioritySort", "OtherSort"], registry)
    assert [p.message for p in info.value.problems] == ["only one queue sort plugin can be enabled"]


class Misbehaving(Plugin):
    """Every Status-returning hook returns something that is not a Status, or raises."""

    name = "Misbehaving"

    @hookimpl
    def ruleset_pre_filter(self):
        return True

    @hookimpl
    def ruleset_reserve(self):
        return "reserved"

    @hookimpl
    def ruleset_post_filter(self):
        raise KeyError("lost")


@pytest.mark.parametrize(("run", "expected"), [
    pytest.param(lambda fw, pod, state: fw.run_pre_filter(state, pod, fw.handle.snapshot),
                 'running PreFilter plugin "Misbehaving": returned True, not a Status or a PreFilterResult', id="pre-filter"),
    pytest.param(lambda fw, pod, state: fw.run_reserve(state, pod, "n1"),
                 "running Reserve plugin \"Misbehaving\": returned 'reserved', not a Status", id="reserve"),
    pytest.param(lambda fw, pod, state: fw.run_post_filter(state, pod, None).status,
                 "running PostFilter plugin \"Misbehaving\": KeyError: 'lost'", id="post-filter"),
])
def test_a_hook_returning_what_it_cannot_is_that_plugins_error(run, expected):
    from ruleset.framework.cycle_state import CycleState

    state = build_cluster([make_node("n1")])
    fw = framework_for(["Misbehaving"], registry_with(Misbehaving), snapshot=state.snapshot)
    status = run(fw, decode(make_pod()), CycleState())
    assert (status.code, status.plugin, status.message()) == (Code.ERROR, "Misbehaving", expected)
