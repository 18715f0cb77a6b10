"""NodeAffinity's PreFilterResult (from 1.24) and "pod affinity terms conflict".

Upstream: ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`` PreFilter at v1.24.0
(kubernetes#108648) and v1.27.0 (kubernetes#116465: the conflict only when every term names no
node), unchanged in logic to v1.35; ``node_affinity_test.go`` TestNodeAffinity, its cases with
``wantPreFilterResult`` / ``wantPreFilterStatus`` on a pod's matchFields (transcribed from the
case names and inputs as upstream writes them: the table itself could not be read at a tag
here, so each expectation below was worked out from the PreFilter code of that release, and
the two releases of kubernetes#116465's case are both pinned). Then a DaemonSet-shaped pod
(one ``metadata.name In`` term) that does not fit its node, scheduled by a profile of
NodeAffinity, NodeResourcesFit and DefaultPreemption at each release: its FitError message,
which kubernetes#119779's release note shows for 1.30 ("2 node is filtered out by the
prefilter result ... 2 Preemption is not helpful for scheduling"); and what ``explain`` and
``score`` say of the nodes left out (never fitting; ``"filter": null`` where Filter never ran).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from ruleset import PreFilterResult
from ruleset.analysis.explain import explain_pod, fitting_nodes
from ruleset.cli import main
from ruleset.config import PluginConfig, Profile
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.framework.status import Code, Status
from ruleset.pluginmanager import load_registry
from ruleset.plugins.node_affinity import ERR_REASON_CONFLICT
from ruleset.scheduler import Scheduler
from tests.factories import build_cluster, decode, make_node, make_pod


def _fields(*names: str, operator: str = "In") -> dict:
    return {"key": "metadata.name", "operator": operator, "values": list(names)}


FOO_BAR = {"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]}]}


def _pod(*terms: dict) -> dict:
    return make_pod("p", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": list(terms)}}})


CONFLICT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_CONFLICT,))
CASES: list[tuple[str, dict, Any, Any]] = [
    # (id, pod, PreFilter's answer at 1.24-1.26, at 1.27 on)
    ("matchFields In that matches the existing node", _pod({"matchFields": [_fields("node1")]}),
     {"node1"}, {"node1"}),
    ("matchFields In that does not match the existing node", _pod({"matchFields": [_fields("node2")]}),
     {"node2"}, {"node2"}),
    ("two terms: matchFields does not match, but matchExpressions matches",
     _pod({"matchFields": [_fields("node2")]}, FOO_BAR), None, None),
    ("one term: matchFields does not match, but matchExpressions matches",
     _pod({"matchFields": [_fields("node2")], **FOO_BAR}), {"node2"}, {"node2"}),
    ("one term: both matchFields and matchExpressions match",
     _pod({"matchFields": [_fields("node1")], **FOO_BAR}), {"node1"}, {"node1"}),
    ("two terms of node.Name affinity", _pod({"matchFields": [_fields("node1")]}, {"matchFields": [_fields("node2")]}),
     {"node1", "node2"}, {"node1", "node2"}),
    ("two conflicting matchFields requirements", _pod({"matchFields": [_fields("node1"), _fields("node2")]}),
     CONFLICT, CONFLICT),
    ("one term with two matchFields requirements, intersected",
     _pod({"matchFields": [_fields("node1", "node2"), _fields("node2", "node3")]}), {"node2"}, {"node2"}),
    ("NotIn names nothing", _pod({"matchFields": [_fields("node1", operator="NotIn")]}), None, None),
    # kubernetes#116465: a term that conflicts, then one that could match.
    ("a conflicting term before one without names",
     _pod({"matchFields": [_fields("node1"), _fields("node2")]}, FOO_BAR), CONFLICT, None),
    ("every term conflicting", _pod({"matchFields": [_fields("node1"), _fields("node2")]},
                                    {"matchFields": [_fields("node1"), _fields("node3")]}), CONFLICT, CONFLICT),
    ("no required node affinity", make_pod("p", node_selector={"foo": "bar"}), None, None),
]


def _pre_filter(version: str, pod: dict) -> Any:
    state = build_cluster([make_node("node1", {"foo": "bar"})])
    profile = Profile(name="p", plugins=[PluginConfig(name="NodeAffinity")], kubernetes_version=version)
    framework = Framework(profile, load_registry(), Handle(state.snapshot))
    (step,) = framework.tables["ruleset_pre_filter"]
    return step(state=CycleState(), pod=decode(pod, state), snapshot=state.snapshot)


def _expected(answer: Any) -> Any:
    return PreFilterResult(frozenset(answer)) if isinstance(answer, set) else answer


@pytest.mark.parametrize(("pod", "before", "after"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("version", ["1.24", "1.26", "1.27", "1.35"])
def test_pre_filter_names_the_nodes_of_the_pods_name_fields(version: str, pod: dict, before: Any, after: Any) -> None:
    expected = _expected(before if version in ("1.24", "1.26") else after)
    assert _pre_filter(version, pod) == expected


def test_no_result_before_1_24() -> None:
    assert _pre_filter("1.23", _pod({"matchFields": [_fields("node1")]})) is None


DAEMON = make_pod("ds", requests={"cpu": "500m"}, priority=10, affinity={"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [_fields("n2")]}]}}})
NO_ROOM = "1 Insufficient cpu"
PRE_24 = f"0/3 nodes are available: {NO_ROOM}, 2 node(s) didn't match Pod's node affinity."
ABSENT = f"0/3 nodes are available: {NO_ROOM}. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod"
HELPLESS = "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."


@pytest.mark.parametrize(("version", "message"), [
    pytest.param("1.23", PRE_24, id="1.23: NodeAffinity's Filter rejects the other nodes"),
    # 1.24-1.29: the other nodes are not filtered and have no status; preemption dry-runs them
    # (no lower-priority pod anywhere: no victims).
    pytest.param("1.24", f"{ABSENT}.", id="1.24"),
    pytest.param("1.28", f"{ABSENT}..", id="1.28 (the PostFilter message's own period, then one)"),
    pytest.param("1.29", f"{ABSENT}.", id="1.29"),
    pytest.param("1.30", f"0/3 nodes are available: {NO_ROOM}, 2 node is filtered out by the prefilter result. "
                 f"{HELPLESS}", id="1.30"),
    pytest.param("1.31", f"0/3 nodes are available: {NO_ROOM}. {HELPLESS}", id="1.31"),
    pytest.param("1.32", f"0/3 nodes are available: {NO_ROOM}, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
                 f"{HELPLESS}", id="1.32"),
    pytest.param("1.35", f"0/3 nodes are available: {NO_ROOM}, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
                 f"{HELPLESS}", id="1.35"),
])
def test_a_daemon_set_pod_without_room_on_its_node(version: str, message: str) -> None:
    nodes = [make_node(n, cpu="1") for n in ("n1", "n2", "n3")]
    busy = make_pod("busy", node_name="n2", requests={"cpu": "900m"}, priority=100)
    state = build_cluster([*nodes, busy])
    plugins = ["PrioritySort", "NodeAffinity", "NodeResourcesFit", "DefaultPreemption", "DefaultBinder"]
    profile = Profile(name="p", plugins=[PluginConfig(name=p) for p in plugins], kubernetes_version=version)
    scheduler = Scheduler(Framework(profile, load_registry(), Handle(state.snapshot)), seed=0)
    result = scheduler.schedule(decode(DAEMON, state))
    assert (result.node, result.message) == (None, message)


def _daemon_cluster(room: bool) -> tuple[Any, Framework, Any]:
    """n1..n3 with 1 CPU; without ``room``, n2 (the DaemonSet pod's node) holds a 900m pod."""
    nodes = [make_node(n, cpu="1") for n in ("n1", "n2", "n3")]
    busy = [] if room else [make_pod("busy", node_name="n2", requests={"cpu": "900m"}, priority=100)]
    return build_cluster([*nodes, *busy]), nodes, busy


def _framework(state: Any, version: str) -> Framework:
    plugins = ["PrioritySort", "NodeAffinity", "NodeResourcesFit", "DefaultBinder"]
    profile = Profile(name="p", plugins=[PluginConfig(name=p) for p in plugins], kubernetes_version=version)
    return Framework(profile, load_registry(), Handle(state.snapshot))


@pytest.mark.parametrize("version", ["1.23", "1.29", "1.30", "1.31", "1.35"])
def test_explain_counts_only_the_nodes_filtered(version: str) -> None:
    # The nodes NodeAffinity's PreFilterResult leaves out are not fitting nodes, whatever their status.
    state, _, _ = _daemon_cluster(room=False)
    framework = _framework(state, version)
    pod = decode(DAEMON, state)
    assert fitting_nodes(framework, pod) == []
    [suggestion] = explain_pod(framework, state, pod).suggestions
    assert (suggestion.text, suggestion.examples) == ("1 node would fit with 400m less cpu requested", ["n2"])
    state, _, _ = _daemon_cluster(room=True)
    framework = _framework(state, version)
    scoring = explain_pod(framework, state, decode(DAEMON, state)).decision.scoring
    # Filters ran on n2 alone from 1.24 (on every node before).
    assert (scoring.evaluated, scoring.feasible, scoring.node) == (3 if version == "1.23" else 1, 1, "n2")


@pytest.mark.parametrize(("version", "others", "counts"), [
    pytest.param("1.29", None, "3 nodes: 0 feasible, 1 rejected, 2 not filtered", id="1.29: not filtered"),
    pytest.param("1.31", None, "3 nodes: 0 feasible, 1 rejected, 2 not filtered", id="1.31"),
    pytest.param("1.30", {"code": "UnschedulableAndUnresolvable", "plugin": None,
                          "reasons": ["node is filtered out by the prefilter result"]},
                 "3 nodes: 0 feasible, 3 rejected", id="1.30: a status of their own"),
    pytest.param("1.35", {"code": "UnschedulableAndUnresolvable", "plugin": None,
                          "reasons": ["node(s) didn't satisfy plugin(s) [NodeAffinity]"]},
                 "3 nodes: 0 feasible, 3 rejected", id="1.35"),
])
def test_score_shows_the_nodes_left_out(tmp_path: Any, capsys: Any, version: str, others: Any, counts: str) -> None:
    _, nodes, busy = _daemon_cluster(room=False)
    (tmp_path / "c.yaml").write_text(yaml.safe_dump_all([*nodes, *busy]), encoding="utf-8")
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(DAEMON), encoding="utf-8")
    (tmp_path / "p.toml").write_text(f'name = "p"\nkubernetesVersion = "{version}"\n[plugins.PrioritySort]\n'
                                     "[plugins.NodeAffinity]\n[plugins.NodeResourcesFit]\n[plugins.DefaultBinder]\n",
                                     encoding="utf-8")
    argv = ["score", "--profile", str(tmp_path / "p.toml"), "--cluster", str(tmp_path / "c.yaml"),
            "--pod", str(tmp_path / "pod.yaml")]
    assert main([*argv, "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [n["filter"] for n in data["nodes"]] == [
        others, {"code": "Unschedulable", "plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"]}, others]
    assert main(argv) == 0
    assert counts in capsys.readouterr().out
