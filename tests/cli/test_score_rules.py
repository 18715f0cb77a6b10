"""``ruleset score`` with declarative rules: the per-rule breakdown in JSON and the text columns."""

import json
import textwrap

from ruleset.cli import main

CLUSTER = """\
apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: n1, labels: {disktype: ssd, zone: a}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Node
  metadata: {name: n2, labels: {disktype: ssd}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Node
  metadata: {name: n3, labels: {zone: a, node.kubernetes.io/maintenance: ""}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Node
  metadata: {name: n4, labels: {zone: a}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""
SPEC = "spec: {containers: [{name: c}]}\n"
DB = "kind: Pod\nmetadata: {name: db, namespace: shop, labels: {app: postgres}}\n" + SPEC
WEB = "kind: Pod\nmetadata: {name: web, namespace: shop, labels: {app: web}}\n" + SPEC
PROFILE = """\
name = "rules"

[[rules]]
name = "databases-on-ssd"
pods = "app in (postgres, mysql)"
require = "!node.kubernetes.io/maintenance"
prefer = "disktype=ssd"
weight = 5

[[rules]]
name = "zone-a"
prefer = "zone=a"

[[rules]]
name = "web-only"
pods = "app=web"
prefer = "zone"
"""
REJECTED = {"code": "UnschedulableAndUnresolvable", "plugin": "Rules",
            "reasons": ['node(s) didn\'t match rule "databases-on-ssd"']}


def run(capsys, tmp_path, *argv, profile=PROFILE, pod=DB):
    (tmp_path / "p.toml").write_text(textwrap.dedent(profile))
    (tmp_path / "c.yaml").write_text(CLUSTER)
    (tmp_path / "pod.yaml").write_text(pod)
    code = main(["score", "--profile", str(tmp_path / "p.toml"), "--cluster", str(tmp_path / "c.yaml"),
                 "--pod", str(tmp_path / "pod.yaml"), *argv])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return out


def rule(matched, weight):
    score = 100 if matched else 0
    return {"matched": matched, "score": score, "weight": weight, "weighted": score * weight}


def test_json_has_a_per_rule_breakdown_inside_the_rules_entry(tmp_path, capsys):
    data = json.loads(run(capsys, tmp_path, "-o", "json"))
    ok = {"code": "Success", "plugin": None, "reasons": []}
    assert data == {
        "schemaVersion": 1, "pod": "shop/db", "profile": "rules",
        "nodes": [
            {"name": "n1", "filter": ok, "total": 100, "scored": True,
             "scores": {"Rules": {"raw": 600, "score": 100, "weight": 1, "weighted": 100,
                                  "rules": {"databases-on-ssd": rule(True, 5), "zone-a": rule(True, 1)}}}},
            {"name": "n2", "filter": ok, "total": 83, "scored": True,
             "scores": {"Rules": {"raw": 500, "score": 83, "weight": 1, "weighted": 83,
                                  "rules": {"databases-on-ssd": rule(True, 5), "zone-a": rule(False, 1)}}}},
            {"name": "n3", "filter": REJECTED, "scores": {}, "total": None, "scored": False},
            {"name": "n4", "filter": ok, "total": 16, "scored": True,
             "scores": {"Rules": {"raw": 100, "score": 16, "weight": 1, "weighted": 16,
                                  "rules": {"databases-on-ssd": rule(False, 5), "zone-a": rule(True, 1)}}}},
        ],
        "selected": "n1", "message": None, "preemption": None, "pluginProblems": [], "ignoredPodFields": [],
        "skippedPlugins": [],
    }


def test_the_breakdown_adds_up_to_raw_and_score(tmp_path, capsys):
    data = json.loads(run(capsys, tmp_path, "-o", "json"))
    for node in data["nodes"]:
        entry = node["scores"].get("Rules")
        if entry is None:
            continue
        rules = entry["rules"].values()
        assert entry["raw"] == sum(r["weighted"] for r in rules)
        assert entry["score"] == entry["raw"] // sum(r["weight"] for r in rules)


def test_only_rules_that_apply_to_the_pod_are_listed(tmp_path, capsys):
    data = json.loads(run(capsys, tmp_path, "-o", "json", pod=WEB))
    n3 = data["nodes"][2]
    assert n3["filter"]["code"] == "Success"  # databases-on-ssd does not apply to web pods
    assert n3["scores"]["Rules"]["rules"] == {"zone-a": rule(True, 1), "web-only": rule(True, 1)}
    assert [n["scores"]["Rules"]["score"] for n in data["nodes"]] == [100, 0, 100, 100]


def test_no_applicable_preference_gives_an_empty_breakdown(tmp_path, capsys):
    profile = 'name = "p"\n[[rules]]\nname = "dbs"\npods = "app=postgres"\nprefer = "zone=a"\n'
    data = json.loads(run(capsys, tmp_path, "-o", "json", profile=profile, pod=WEB))
    assert [n["scores"]["Rules"] for n in data["nodes"]] == [
        {"raw": 0, "score": 0, "weight": 1, "weighted": 0, "rules": {}}] * 4


def test_other_plugins_keep_their_entries_and_rules_without_score_add_nothing(tmp_path, capsys):
    profile = PROFILE.replace('name = "rules"\n', 'name = "rules"\n[plugins.NodeLabel]\nweight = 2\n'
                              'args = { presentLabelsPreference = ["zone"] }\n[plugins.Rules]\n'
                              'points = ["filter"]\n')
    data = json.loads(run(capsys, tmp_path, "-o", "json", profile=profile))
    node_label = {"raw": 100, "score": 100, "weight": 2, "weighted": 200}
    assert data["nodes"][0]["scores"] == {"NodeLabel": node_label}
    assert data["nodes"][2]["filter"] == REJECTED


def test_text_table_has_a_column_per_rule(tmp_path, capsys):
    """With --wide, each rule that applies to the pod has a column after the Rules column, and the
    legend gives each rule's weight."""
    out = run(capsys, tmp_path, "--wide")
    assert out.splitlines() == [
        "pod shop/db  profile rules",
        "4 nodes: 3 feasible, 1 rejected",
        "",
        "feasible nodes by total:",
        "NODE      Rules  Rules:databases-on-ssd  Rules:zone-a  TOTAL",
        "n1    100 (600)                     100           100    100  ← selected",
        "n2     83 (500)                     100             0     83",
        "n4     16 (100)                       0           100     16",
        "",
        "  Rules                   Rules ×1",
        "  Rules:databases-on-ssd  rule databases-on-ssd of Rules ×5: 100 if it matches, else 0",
        "  Rules:zone-a            rule zone-a of Rules ×1: 100 if it matches, else 0",
        "  cells                   the normalized score, then the raw score in brackets when it differs",
        "  TOTAL                   the sum of weight × normalized score",
        "",
        "rejected: 1 of 4 nodes",
        "NODES  REJECTED BY  REASON                                                                       "
        "FOR EXAMPLE",
        '    1  Rules        node(s) didn\'t match rule "databases-on-ssd" (UnschedulableAndUnresolvable)  n3',
        "",
        "selected: n1 (total 100)",
    ]


def test_text_rule_columns_follow_the_rules_column(tmp_path, capsys):
    profile = PROFILE.replace('name = "rules"\n', 'name = "rules"\n[plugins.Rules]\nweight = 3\n'
                              '[plugins.NodeLabel]\nargs = { presentLabelsPreference = ["zone"] }\n')
    lines = run(capsys, tmp_path, "--wide", profile=profile, pod=WEB).splitlines()
    assert lines[4] == "NODE      Rules  Rules:zone-a  Rules:web-only  NodeLabel  TOTAL"
    assert lines[10:14] == [
        "  Rules           Rules ×3",
        "  Rules:zone-a    rule zone-a of Rules ×1: 100 if it matches, else 0",
        "  Rules:web-only  rule web-only of Rules ×1: 100 if it matches, else 0",
        "  NodeLabel       NodeLabel ×1",
    ]
