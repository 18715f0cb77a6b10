"""``ruleset.cluster``: priorities as admission and kube-scheduler resolve them, and duplicate
Nodes and Pods reported with their locations, a handful of lines at most."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ruleset.api.meta import ObjectMeta, Origin
from ruleset.api.node import Node
from ruleset.api.pod import Pod
from ruleset.cli import main
from ruleset.cluster import MAX_LISTED_DUPLICATES, build_cluster_state
from ruleset.errors import RulesetError
from ruleset.manifests import Cluster, load_manifests

NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"


def pod(name: str, spec: str) -> str:
    return f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: d}}\nspec: {spec}\n"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --- priorities ----------------------------------------------------------------------------


def test_a_set_priority_outlives_its_deleted_class(tmp_path):
    """kube-scheduler reads spec.priority (PodPriority) and never looks the class up again."""
    path = write(tmp_path, "c.yaml", NODE + pod("a", "{priority: 7, priorityClassName: gone, containers: [{name: c}]}"))
    state = build_cluster_state(load_manifests([path]))
    (a,) = state.pending
    assert (a.priority, a.preemption_policy, dict(state.pod_errors)) == (7, "PreemptLowerPriority", {})


def test_without_spec_priority_a_missing_class_is_admissions_refusal(tmp_path):
    """The Priority admission plugin refuses to create such a pod: it is reported, not scheduled."""
    path = write(tmp_path, "c.yaml", NODE + pod("b", "{priorityClassName: gone, containers: [{name: c}]}"))
    state = build_cluster_state(load_manifests([path]))
    (b,) = state.pending
    assert (b.priority, state.pod_errors[b]) == (0, "no PriorityClass with name gone was found")


def test_placed_pods_with_a_set_priority_are_not_counted_as_unknown_class(tmp_path):
    text = (NODE + pod("a", "{nodeName: n1, priority: 3, priorityClassName: gone, containers: [{name: c}]}")
            + pod("b", "{nodeName: n1, priorityClassName: gone, containers: [{name: c}]}"))
    state = build_cluster_state(load_manifests([write(tmp_path, "c.yaml", text)]))
    assert [p.priority for p in state.snapshot.pods_on(0)] == [3, 0]
    assert state.notes["Pod (placed, unknown PriorityClass, priority 0)"] == 1


def test_schedule_places_the_pod_with_a_set_priority_and_reports_the_other(tmp_path, capsys):
    text = (NODE + pod("a", "{priority: 7, priorityClassName: gone, containers: [{name: c}]}")
            + pod("b", "{priorityClassName: gone, containers: [{name: c}]}"))
    path = write(tmp_path, "c.yaml", text)
    start = time.perf_counter()
    code = main(["schedule", "--cluster", path, "-o", "json"])
    assert time.perf_counter() - start < 1.0
    out, err = capsys.readouterr()
    placements = {p["pod"]: p for p in json.loads(out)["placements"]}
    assert (code, err) == (0, "")
    assert placements["d/a"]["node"] == "n1"
    assert placements["d/b"] == {"pod": "d/b", "node": None, "reason": "no PriorityClass with name gone was found"}


# --- duplicates ----------------------------------------------------------------------------


def test_duplicates_are_located(tmp_path):
    text = NODE + "---\n" + NODE + pod("a", "{containers: [{name: c}]}") + pod("a", "{containers: [{name: c}]}")
    path = write(tmp_path, "c.yaml", text)
    with pytest.raises(RulesetError) as info:
        build_cluster_state(load_manifests([path]))
    assert [str(p) for p in info.value.problems] == [
        f"{path}:6: Node n1: duplicate Node 'n1' (first at line 1)",
        f"{path}:16: Pod d/a: duplicate Pod 'd/a' (first at line 11)",
    ]


def test_duplicates_across_files_name_both_files(tmp_path):
    first, second = write(tmp_path, "a.yaml", NODE), write(tmp_path, "b.yaml", "\n\n" + NODE)
    with pytest.raises(RulesetError) as info:
        build_cluster_state(load_manifests([first, second]))
    assert [str(p) for p in info.value.problems] == [
        f"{second}:3: Node n1: duplicate Node 'n1' (first at {first}:1)"]


def test_json_duplicates_name_their_document(tmp_path):
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
    path, other = write(tmp_path, "c.json", json.dumps(node)), write(tmp_path, "d.json", json.dumps(node))
    with pytest.raises(RulesetError) as info:
        build_cluster_state(load_manifests([path, other]))
    assert [str(p) for p in info.value.problems] == [
        f"{other}: document 1: Node n1: duplicate Node 'n1' (first at {path}: document 1)"]


def test_many_duplicates_print_a_handful_of_lines(tmp_path, capsys):
    nodes = "".join(f"---\nkind: Node\nmetadata: {{name: n{i % 3}}}\n" for i in range(20))
    pods = "".join("---\nkind: Pod\nmetadata: {name: p, namespace: d}\nspec: {containers: [{name: c}]}\n"
                   for _ in range(8))
    path = write(tmp_path, "c.yaml", nodes + pods)
    code = main(["schedule", "--cluster", path])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"error: {path}:11: Node n0: duplicate Node 'n0' (first at line 2)",
        f"error: {path}:14: Node n1: duplicate Node 'n1' (first at line 5)",
        f"error: {path}:17: Node n2: duplicate Node 'n2' (first at line 8)",
        f"error: {path}:20: Node n0: duplicate Node 'n0' (first at line 2)",
        f"error: {path}:23: Node n1: duplicate Node 'n1' (first at line 5)",
        f"error: {path}:26: 12 more duplicate Nodes, from this one on (only the first 5 are listed)",
        f"error: {path}:66: Pod d/p: duplicate Pod 'd/p' (first at line 62)",
        f"error: {path}:70: Pod d/p: duplicate Pod 'd/p' (first at line 62)",
        f"error: {path}:74: Pod d/p: duplicate Pod 'd/p' (first at line 62)",
        f"error: {path}:78: Pod d/p: duplicate Pod 'd/p' (first at line 62)",
        f"error: {path}:82: Pod d/p: duplicate Pod 'd/p' (first at line 62)",
        f"error: {path}:86: 2 more duplicate Pods, from this one on (only the first 5 are listed)",
    ]


def test_a_hundred_thousand_duplicates_take_six_lines_and_no_time():
    nodes = [Node(meta=ObjectMeta(name="n", origin=Origin("big.yaml", 1 + 3 * i, i))) for i in range(100_000)]
    start = time.perf_counter()
    with pytest.raises(RulesetError) as info:
        build_cluster_state(Cluster(nodes=nodes))
    assert time.perf_counter() - start < 1.0
    assert len(info.value.problems) == MAX_LISTED_DUPLICATES + 1
    assert str(info.value.problems[-1]) == (
        "big.yaml:19: 99994 more duplicate Nodes, from this one on (only the first 5 are listed)")


def test_objects_built_in_code_have_no_origin():
    pods = [Pod(meta=ObjectMeta(name="p", namespace="d")) for _ in range(2)]
    with pytest.raises(RulesetError) as info:
        build_cluster_state(Cluster(pods=pods))
    assert [str(p) for p in info.value.problems] == ["<input>: Pod d/p: duplicate Pod 'd/p'"]


def test_score_answers_a_missing_priority_class_as_schedule_does(tmp_path, capsys):
    """The pod's own problem, not the run's: no node is tried, exit 0, the same reason."""
    cluster = write(tmp_path, "c.yaml", NODE)
    incoming = write(tmp_path, "p.yaml", pod("b", "{priorityClassName: gone, containers: [{name: c}]}"))
    code = main(["score", "--cluster", cluster, "--pod", incoming, "-o", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {k: data[k] for k in ("pod", "nodes", "selected", "message", "preemption", "refused")} == {
        "pod": "d/b", "nodes": [], "selected": None, "message": "no PriorityClass with name gone was found",
        "preemption": None, "refused": True}
    code = main(["schedule", "--cluster", cluster, "--pods", incoming, "-o", "json"])
    placements = json.loads(capsys.readouterr().out)["placements"]
    assert (code, placements) == (0, [{"pod": "d/b", "node": None, "reason": "no PriorityClass with name gone was found"}])
