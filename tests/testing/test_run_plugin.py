"""``run_plugin`` runs one plugin, by class or by name, through the real framework: filter
statuses, feasible nodes, raw and normalised scores, the cycle's status, and its refusals."""

from __future__ import annotations

import numpy as np
import pytest

import ruleset
from ruleset import Code, FilterResult, Status, hookimpl
from ruleset.testing import PluginRun, node, pod, run_plugin

SUCCESS = Status()
TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


class CountCpu(ruleset.Plugin):
    """Rejects nodes labelled ``off``; scores a node by its CPU in cores, normalised to the largest."""

    name = "CountCpu"

    @hookimpl
    def ruleset_filter(self, pod, nodes):
        return FilterResult.reject(nodes.has_label("off"), Code.UNSCHEDULABLE, "node(s) were off")

    @hookimpl
    def ruleset_score(self, pod, nodes):
        return nodes.column(nodes.snapshot.allocatable("cpu")) // 1000

    @hookimpl
    def ruleset_normalize_score(self, scores):
        scores[:] = scores * 100 // scores.max()


class RejectAtPreFilter(ruleset.Plugin):
    """Rejects every pod at PreFilter."""

    name = "RejectAtPreFilter"

    @hookimpl
    def ruleset_pre_filter(self, pod):
        return Status.unresolvable("nobody fits")


class Raises(ruleset.Plugin):
    """Its Score raises."""

    name = "Raises"

    @hookimpl
    def ruleset_score(self, nodes):
        raise RuntimeError("boom")


def test_a_plugin_class_filters_and_scores_every_node():
    run = run_plugin(CountCpu, pod("p"), [node("a", cpu=2), node("b", cpu=8, labels={"off": ""}), node("c", cpu=4)])
    assert run.filter == {"a": SUCCESS, "b": Status(Code.UNSCHEDULABLE, ("node(s) were off",), "CountCpu"),
                          "c": SUCCESS}
    assert run.feasible == ["a", "c"]
    assert run.raw == {"a": 2, "c": 4}
    assert run.scores == {"a": 50, "c": 100}
    assert run.status == SUCCESS
    assert run.result is not None and run.result.node == "c"


def test_a_built_in_plugin_by_name_with_running_pods():
    nodes = [node("small", cpu=2, memory="4Gi"), node("big", cpu=8, memory="16Gi"), node("gpu", taints=[TAINT])]
    run = run_plugin("NodeResourcesLeastAllocated", pod("p", cpu=1, memory="1Gi"), nodes,
                     pods=[pod("busy", cpu=1, memory="2Gi", node_name="small")])
    assert run.feasible == ["small", "big", "gpu"]
    assert run.raw == run.scores == {"small": 12, "big": 90, "gpu": 81}


def test_args_reach_the_plugin():
    nodes = [node("a", labels={"fast": "yes"}), node("b")]
    run = run_plugin("NodeLabel", pod("p"), nodes, args={"presentLabels": ["fast"]})
    assert run.feasible == ["a"]
    assert run.filter["b"] == Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                     ("node(s) didn't have the requested labels",), "NodeLabel")


def test_a_filter_only_plugin_has_no_scores():
    run = run_plugin("TaintToleration", pod("p"), [node("a"), node("gpu", taints=[TAINT])])
    assert run.feasible == ["a"]
    assert run.filter["gpu"].code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    run = run_plugin("NodeUnschedulable", pod("p"), [node("a"), node("b", unschedulable=True)])
    assert (run.feasible, run.raw, run.scores) == (["a"], {}, {})


def test_a_prefilter_rejection_gives_every_node_its_status():
    run = run_plugin(RejectAtPreFilter, pod("p"), [node("a"), node("b")])
    rejected = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("nobody fits",), "RejectAtPreFilter")
    assert run.filter == {"a": rejected, "b": rejected}
    assert run.feasible == []
    assert run.status == Status(Code.UNSCHEDULABLE, ("0/2 nodes are available: 2 nobody fits.",))


def test_a_plugin_that_raises_aborts_the_cycle_with_an_error_naming_it():
    run = run_plugin(Raises, pod("p"), [node("a"), node("b")])
    assert run.status.code == Code.ERROR
    assert run.status.message() == 'plugin "Raises" failed with: RuntimeError: boom'
    assert (run.status.plugin, run.status.package, run.status.fault) == ("Raises", "ruleset.testing", True)
    assert run.scores == {}


def test_no_nodes_is_the_schedulers_error():
    run = run_plugin(CountCpu, pod("p"), [])
    assert run == PluginRun(filter={}, feasible=[], raw={}, scores={},
                            status=Status(Code.ERROR, ("no nodes available to schedule pods",)), result=run.result)


@pytest.mark.parametrize(("plugin", "args", "error", "message"), [
    pytest.param("NoSuchPlugin", None, ValueError,
                 "plugin 'NoSuchPlugin' cannot be used: no installed plugin is named 'NoSuchPlugin'", id="unknown"),
    pytest.param(np.ndarray, None, TypeError, "expected a ruleset.Plugin subclass or a plugin name", id="not-a-plugin"),
    pytest.param("NodeLabel", {"presentLabel": ["x"]}, ValueError,
                 "invalid args for plugin 'NodeLabel': args: Additional properties are not allowed "
                 "('presentLabel' was unexpected)", id="schema"),
    pytest.param("RequestedToCapacityRatio", {"shape": []}, ruleset.errors.RulesetError,
                 "shape: at least one point must be specified", id="validate-args"),
])
def test_what_cannot_run_is_refused(plugin, args, error, message):
    with pytest.raises(error) as info:
        run_plugin(plugin, pod("p"), [node("a")], args=args)
    assert message in str(info.value)
