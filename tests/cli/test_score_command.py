"""``ruleset score``: the JSON contract, text output, and input errors (exit 2, no traceback)."""

import json
import textwrap

from ruleset.cli import main

CLUSTER = """\
apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: n1, labels: {a: "1", b: "1"}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Node
  metadata: {name: n2, labels: {a: "1"}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Node
  metadata: {name: n3}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""
POD = "kind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: c}]}\n"
PROFILE = """\
name = "web"
[plugins.NodeLabel]
weight = 2
args = { presentLabels = ["a"], presentLabelsPreference = ["a", "b"] }
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def files(tmp_path, profile=PROFILE, cluster=CLUSTER, pod=POD):
    (tmp_path / "p.toml").write_text(textwrap.dedent(profile))
    (tmp_path / "c.yaml").write_text(cluster)
    (tmp_path / "pod.yaml").write_text(pod)
    return ["--profile", str(tmp_path / "p.toml"), "--cluster", str(tmp_path / "c.yaml"),
            "--pod", str(tmp_path / "pod.yaml")]


def test_json_contract(tmp_path, capsys):
    code, out, err = run(capsys, "score", *files(tmp_path), "--output", "json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "schemaVersion": 1, "pod": "shop/web", "profile": "web",
        "nodes": [
            {"name": "n1", "filter": {"code": "Success", "plugin": None, "reasons": []},
             "scores": {"NodeLabel": {"raw": 100, "score": 100, "weight": 2, "weighted": 200}}, "total": 200,
             "scored": True},
            {"name": "n2", "filter": {"code": "Success", "plugin": None, "reasons": []},
             "scores": {"NodeLabel": {"raw": 50, "score": 50, "weight": 2, "weighted": 100}}, "total": 100,
             "scored": True},
            {"name": "n3", "filter": {"code": "UnschedulableAndUnresolvable", "plugin": "NodeLabel",
                                      "reasons": ["node(s) didn't have the requested labels"]},
             "scores": {}, "total": None, "scored": False},
        ],
        "selected": "n1", "message": None, "preemption": None, "pluginProblems": [], "ignoredPodFields": [],
        "skippedPlugins": [],
    }


def test_text_table(tmp_path, capsys, monkeypatch):
    """A column per scoring plugin (its weight in the legend), the total, the selected node marked,
    the rejected node with its plugin and reason, and the outcome."""
    monkeypatch.setenv("COLUMNS", "120")
    code, out, _ = run(capsys, "score", *files(tmp_path))
    assert code == 0
    assert out.splitlines() == [
        "pod shop/web  profile web",
        "3 nodes: 2 feasible, 1 rejected",
        "",
        "feasible nodes by total:",
        "NODE  NodeLabel  TOTAL",
        "n1          100    200  ← selected",
        "n2           50    100",
        "",
        "  NodeLabel  NodeLabel ×2",
        "  cells      the normalized score, then the raw score in brackets when it differs",
        "  TOTAL      the sum of weight × normalized score",
        "",
        "rejected: 1 of 3 nodes",
        "NODES  REJECTED BY  REASON                                                                   FOR EXAMPLE",
        "    1  NodeLabel    node(s) didn't have the requested labels (UnschedulableAndUnresolvable)  n3",
        "",
        "selected: n1 (total 200)",
    ]


def test_nothing_fits(tmp_path, capsys):
    profile = 'name = "x"\n[plugins.NodeLabel]\nargs = { presentLabels = ["zzz"] }\n'
    code, out, _ = run(capsys, "score", *files(tmp_path, profile=profile), "-o", "json")
    data = json.loads(out)
    assert code == 0
    assert data["selected"] is None
    assert data["message"] == "0/3 nodes are available: 3 node(s) didn't have the requested labels."


def test_bad_profile_exits_2_with_located_errors(tmp_path, capsys):
    code, out, err = run(capsys, "score", *files(tmp_path, profile='name = "x"\n[plugins.Nope]\n'))
    assert (code, out) == (2, "")
    assert err == f"error: {tmp_path / 'p.toml'}:2:10: plugins.Nope: unknown plugin 'Nope'\n"


def test_bad_cluster_exits_2(tmp_path, capsys):
    code, _, err = run(capsys, "score", *files(tmp_path, cluster="kind: Node\nmetadata: {name: [x]}\n"))
    assert code == 2
    assert "Traceback" not in err
    assert err.startswith(f"error: {tmp_path / 'c.yaml'}:2: Node: metadata.name: expected a string, got a list")


def test_missing_files_exit_2(tmp_path, capsys):
    code, _, err = run(capsys, "score", "--profile", str(tmp_path / "none.toml"))
    assert code == 2
    assert "no such profile file" in err


def test_pod_file_must_hold_one_pod(tmp_path, capsys):
    code, _, err = run(capsys, "score", *files(tmp_path, pod=POD + "---\n" + POD.replace("web", "web2")))
    assert code == 2
    assert err == f"error: {tmp_path / 'pod.yaml'}: expected exactly one Pod or workload, found 2\n"


def test_usage_error_exits_2(capsys):
    code, _, err = run(capsys, "score", "--output", "yaml")
    assert code == 2
    assert "invalid choice" in err


def test_defaults_run_on_the_bundled_demo(capsys):
    code, out, _ = run(capsys, "score", "-o", "json")
    data = json.loads(out)
    assert code == 0
    assert data["profile"] == "default"
    assert len(data["nodes"]) == 24


NOMINATED = """\
kind: List
items:
- kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
- kind: Node
  metadata: {name: n2}
  status: {allocatable: {cpu: "1", memory: 8Gi, pods: "110"}}
- kind: Pod
  metadata: {name: reserved, namespace: shop}
  spec: {priority: 100, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
  status: {nominatedNodeName: n1}
"""


def test_pending_pods_nominated_to_a_node_hold_room_there(tmp_path, capsys):
    """As the scheduler's nominator does: a lower-priority pod must fit next to the nominated pod."""
    pod = "kind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: c, resources: {requests: {cpu: '1'}}}]}\n"
    profile = 'name = "fit"\n[plugins.NodeResourcesFit]\n'
    code, out, _ = run(capsys, "score", *files(tmp_path, profile=profile, cluster=NOMINATED, pod=pod), "-o", "json")
    data = json.loads(out)
    assert code == 0
    assert [(n["name"], n["filter"]["code"], n["filter"]["reasons"]) for n in data["nodes"]] == [
        ("n1", "Unschedulable", ["Insufficient cpu"]), ("n2", "Success", [])]
    assert data["selected"] == "n2"


def test_results_use_the_name_the_profile_wrote(tmp_path, capsys):
    profile = 'name = "legacy"\n[plugins.ServiceSpreading]\n'
    code, out, _ = run(capsys, "score", *files(tmp_path, profile=profile), "-o", "json")
    assert code == 0
    assert [list(n["scores"]) for n in json.loads(out)["nodes"]] == [["ServiceSpreading"]] * 3
