"""PreScore may return Skip from Kubernetes 1.27 (the ``framework.prescore-skip`` switch).

Upstream: ``RunPreScorePlugins`` / ``RunScorePlugins`` in
``pkg/scheduler/framework/runtime/framework.go`` (kubernetes#115652, released in v1.27): a
plugin whose PreScore returns Skip is recorded in ``CycleState.SkipScorePlugins`` and its Score
(and NormalizeScore) is not run for the pod; ``NodePluginScores`` then lists only the plugins
that ran, so the skipped plugin adds nothing to the totals. Before 1.27 a Skip from PreScore is
a non-success, which aborts the cycle as an Error ("running PreScore plugin ...").

Also end to end: NodeResourcesBalancedAllocation skips a best-effort pod from 1.33, and the
``ruleset score`` JSON then does not list it for that pod's nodes (the JSON shape is unchanged).
"""

from __future__ import annotations

import json
import textwrap
from typing import ClassVar

import numpy as np
import pytest

from ruleset import hookspecs
from ruleset.cli import main
from ruleset.config import PluginConfig, Profile
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import Handle, Plugin
from ruleset.framework.runtime import SKIP_SCORE_PLUGINS, Framework
from ruleset.framework.status import Code, Status
from ruleset.scheduler import Scheduler
from tests.factories import build_cluster, decode, make_node, make_pod, registry_with

hookimpl = hookspecs.hookimpl


class SkipsLabelled(Plugin):
    """PreScore returns Skip for a pod labelled ``skip``; Score gives 10, 20, ... per node, and
    NormalizeScore adds 1; every call is counted."""

    name = "SkipsLabelled"
    calls: ClassVar[list[str]] = []

    @hookimpl
    def ruleset_pre_score(self, pod):
        SkipsLabelled.calls.append("PreScore")
        return Status(Code.SKIP) if "skip" in pod.labels else None

    @hookimpl
    def ruleset_score(self, nodes):
        SkipsLabelled.calls.append("Score")
        return np.arange(1, len(nodes) + 1, dtype=np.int64) * 10

    @hookimpl
    def ruleset_normalize_score(self, scores):
        SkipsLabelled.calls.append("NormalizeScore")
        return scores + 1


class Constant(Plugin):
    """Scores every node 7 (never skips)."""

    name = "Constant"

    @hookimpl
    def ruleset_score(self, nodes):
        return np.full(len(nodes), 7, dtype=np.int64)


NODES = [make_node("n1"), make_node("n2"), make_node("n3")]


def scheduler(version: str | None, plugins: tuple[str, ...] = ("SkipsLabelled", "Constant")) -> Scheduler:
    state = build_cluster(NODES)
    profile = Profile(name="p", plugins=[PluginConfig(name=n, weight=2 if n == "Constant" else 1) for n in plugins],
                      percentage_of_nodes_to_score=100, kubernetes_version=version)
    framework = Framework(profile, registry_with(SkipsLabelled, Constant), Handle(state.snapshot))
    return Scheduler(framework, seed=0)


def incoming(skip: bool) -> dict:
    return make_pod("p", labels={"skip": "yes"} if skip else {})


@pytest.mark.parametrize(("version", "skip", "plugins", "skipped", "totals", "calls"), [
    pytest.param("1.27", True, ["Constant"], ["SkipsLabelled"], [14, 14, 14], ["PreScore"],
                 id="1.27 Skip: no Score, no NormalizeScore, absent from the totals"),
    pytest.param("1.34", True, ["Constant"], ["SkipsLabelled"], [14, 14, 14], ["PreScore"], id="1.34 Skip"),
    pytest.param("1.34", False, ["SkipsLabelled", "Constant"], [], [25, 35, 45],
                 ["PreScore", "Score", "NormalizeScore"], id="1.34 Success: scored"),
    pytest.param("1.20", False, ["SkipsLabelled", "Constant"], [], [25, 35, 45],
                 ["PreScore", "Score", "NormalizeScore"], id="1.20 Success: scored"),
])
def test_skip_leaves_the_plugin_out(version: str, skip: bool, plugins: list, skipped: list, totals: list,
                                    calls: list) -> None:
    SkipsLabelled.calls.clear()
    result = scheduler(version).schedule(decode(incoming(skip)), always_score=True)
    assert result.status.is_success
    assert result.scores is not None
    assert (result.scores.plugins, result.scores.skipped, result.scores.total.tolist()) == (plugins, skipped, totals)
    assert SkipsLabelled.calls == calls


@pytest.mark.parametrize("version", [None, "1.26"])
def test_skip_before_1_27_is_an_error(version: str | None) -> None:
    """Upstream before kubernetes#115652: any non-success from PreScore aborts the cycle."""
    result = scheduler(version).schedule(decode(incoming(True)), always_score=True)
    assert (result.status.code, result.status.plugin, result.message) == (
        Code.ERROR, "SkipsLabelled", 'running PreScore plugin "SkipsLabelled": ')
    assert result.node is None and result.scores is None


def test_every_score_plugin_skipped_scores_every_node_0() -> None:
    """Nothing runs; every node totals 0 and ties are drawn as usual (upstream's prioritizeNodes
    still counts the profile as having Score plugins)."""
    result = scheduler("1.34", ("SkipsLabelled",)).schedule(decode(incoming(True)), always_score=True)
    assert result.scores is not None
    assert (result.scores.plugins, result.scores.skipped, result.scores.total.tolist()) == (
        [], ["SkipsLabelled"], [0, 0, 0])
    assert result.node in ("n1", "n2", "n3") and result.score == 0


def test_pre_score_writes_the_skipped_set_every_cycle() -> None:
    s = scheduler("1.34")
    framework = s.framework
    nodes = s.snapshot.all_nodes()
    state = CycleState()
    assert framework.run_pre_score(state, decode(incoming(True)), nodes).is_success
    assert state.read(SKIP_SCORE_PLUGINS) == frozenset({"SkipsLabelled"})
    state = CycleState()
    assert framework.run_pre_score(state, decode(incoming(False)), nodes).is_success
    assert state.read(SKIP_SCORE_PLUGINS) == frozenset()


def test_score_without_pre_score_runs_every_plugin() -> None:
    """A state PreScore never saw (a caller running Score alone) skips nothing."""
    SkipsLabelled.calls.clear()
    s = scheduler("1.34")
    table, status = s.framework.run_score(CycleState(), decode(incoming(True)), s.snapshot.all_nodes())
    assert status.is_success and table is not None
    assert (table.plugins, table.skipped) == (["SkipsLabelled", "Constant"], [])


CLUSTER = """\
apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Node
  metadata: {name: n2}
  status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
"""
BEST_EFFORT = "kind: Pod\nmetadata: {name: be, namespace: d}\nspec: {containers: [{name: c}]}\n"
REQUESTS = ("kind: Pod\nmetadata: {name: rq, namespace: d}\nspec: {containers: [{name: c, resources: "
            "{requests: {cpu: '1', memory: 1Gi}}}]}\n")
PROFILE = """\
name = "p"
kubernetesVersion = "{version}"
[plugins.NodeResourcesBalancedAllocation]
[plugins.NodeResourcesFit]
"""


def score_json(tmp_path, capsys, version: str, pod: str) -> dict:
    (tmp_path / "p.toml").write_text(textwrap.dedent(PROFILE.replace("{version}", version)))
    (tmp_path / "c.yaml").write_text(CLUSTER)
    (tmp_path / "pod.yaml").write_text(pod)
    code = main(["score", "--profile", str(tmp_path / "p.toml"), "--cluster", str(tmp_path / "c.yaml"),
                 "--pod", str(tmp_path / "pod.yaml"), "--output", "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return json.loads(out)


@pytest.mark.parametrize(("version", "pod", "expected"), [
    # 1.33: BalancedAllocation's PreScore skips the best-effort pod; only Fit (LeastAllocated, with
    # the 100m/200Mi defaults: n1 cpu 3900/4000 -> 97, memory 7992Mi/8Gi -> 97; n2 cpu 95) is listed.
    pytest.param("1.33", BEST_EFFORT, {"n1": (["NodeResourcesFit"], 97), "n2": (["NodeResourcesFit"], 96)},
                 id="1.33 best-effort: BalancedAllocation not listed"),
    pytest.param("1.34", BEST_EFFORT, {"n1": (["NodeResourcesFit"], 97), "n2": (["NodeResourcesFit"], 96)},
                 id="1.34 best-effort"),
    # 1.32: scored (0 and 0 requested -> 100).
    pytest.param("1.32", BEST_EFFORT, {"n1": (["NodeResourcesBalancedAllocation", "NodeResourcesFit"], 197),
                                       "n2": (["NodeResourcesBalancedAllocation", "NodeResourcesFit"], 196)},
                 id="1.32 best-effort still scored"),
    # n1: cpu 1/4, memory 1/8 -> std .0625 -> 93; Fit (75 + 87) / 2 = 81. n2: cpu 1/2 -> std .1875 -> 81;
    # Fit (50 + 87) / 2 = 68.
    pytest.param("1.34", REQUESTS, {"n1": (["NodeResourcesBalancedAllocation", "NodeResourcesFit"], 174),
                                    "n2": (["NodeResourcesBalancedAllocation", "NodeResourcesFit"], 149)},
                 id="1.34 with requests: both listed"),
])
def test_score_json_lists_only_plugins_that_ran(tmp_path, capsys, version: str, pod: str, expected: dict) -> None:
    out = score_json(tmp_path, capsys, version, pod)
    got = {n["name"]: (sorted(n["scores"]), n["total"]) for n in out["nodes"]}
    assert got == expected
    assert all(set(n) == {"name", "filter", "scores", "total", "scored"} for n in out["nodes"])
