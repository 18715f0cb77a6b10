"""``ruleset.cli.score_text``: ``ruleset score`` as text, from hand-written ``score_json``
documents (exact output) and end to end through the command on the demo and on 1,000 nodes."""

import json

import pytest
import yaml

from ruleset.cli import main
from ruleset.cli.score_text import render_score, short_headers
from ruleset.cli.terminal import ASCII, UNICODE

OK = {"code": "Success", "plugin": None, "reasons": []}
TAINT = {"code": "UnschedulableAndUnresolvable", "plugin": "TaintToleration",
         "reasons": ["node(s) had taint {dedicated: infra}, that the pod didn't tolerate"]}


def fit(*reasons):
    return {"code": "Unschedulable", "plugin": "NodeResourcesFit", "reasons": list(reasons)}


def scored(name, total, least, rules_raw, rules_score, matched):
    rule = {"matched": matched, "score": 100 if matched else 0, "weight": 5, "weighted": 500 if matched else 0}
    return {"name": name, "filter": OK, "total": total, "scored": True, "scores": {
        "NodeResourcesLeastAllocated": {"raw": least, "score": least, "weight": 1, "weighted": least},
        "Rules": {"raw": rules_raw, "score": rules_score, "weight": 2, "weighted": 2 * rules_score,
                  "rules": {"ssd": rule}}}}


def rejected(name, status):
    return {"name": name, "filter": status, "scores": {}, "total": None, "scored": False}


FEASIBLE = {
    "pod": "shop/db", "profile": "rules", "selected": "n3", "message": None, "preemption": None,
    "nodes": [scored("n1", 150, 50, 0, 50, False), rejected("n2", fit("Insufficient cpu")),
              scored("n3", 250, 50, 500, 100, True), rejected("n4", TAINT),
              rejected("n5", fit("Insufficient cpu")), scored("n6", 150, 30, 500, 60, True),
              rejected("n7", fit("Insufficient cpu")), rejected("n8", fit("Insufficient cpu"))],
}
MESSAGE = "0/3 nodes are available: 1 node(s) had taint {dedicated: infra}, that the pod didn't tolerate, " \
          "2 Insufficient cpu."


def unschedulable(preemption, **more):
    return {"pod": "shop/big", "profile": "default", "selected": None, "message": MESSAGE,
            "preemption": preemption, **more,
            "nodes": [rejected("a", fit("Insufficient cpu")), rejected("b", TAINT),
                      rejected("c", fit("Insufficient cpu"))]}


@pytest.mark.parametrize("plugins, expected", [
    (["NodeResourcesBalancedAllocation", "ImageLocality", "NodeResourcesLeastAllocated", "NodeAffinity",
      "NodePreferAvoidPods", "PodTopologySpread", "TaintToleration", "InterPodAffinity"],
     ["BalAlloc", "ImageLoc", "LeastAlloc", "NodeAff", "AvoidPods", "Spread", "Taints", "InterPod"]),
    (["Short", "GpuPacking", "NodeGPUTopologyScore", "PodCostEstimator"],
     ["Short", "GpuPacking", "GPUTopSco", "CosEst"]),
    (["MyFancyScorer", "MyFancyScoring", "MyFancyScorer2000", "BalAlloc", "NodeResourcesBalancedAllocation"],
     ["MyFanSco", "MyFanSco2", "MyFanSco20", "BalAlloc", "BalAlloc2"]),
], ids=["built-ins", "derived", "collisions"])
def test_short_headers(plugins, expected):
    assert list(short_headers(plugins).values()) == expected


FEASIBLE_80 = """\
pod shop/db  profile rules
8 nodes: 3 feasible, 5 rejected

feasible nodes, top 2 of 3 by total:
NODE  LeastAlloc      Rules  TOTAL
n3            50  100 (500)    250  ← selected
n1            50     50 (0)    150
… and 1 more (--all)

  LeastAlloc   NodeResourcesLeastAllocated ×1
  Rules        Rules ×2
  cells        the normalized score, then the raw score in brackets when it
               differs
  TOTAL        the sum of weight × normalized score
  Rules rules  of 3 feasible nodes: ssd ×5 matched on 2

rejected: 5 of 8 nodes
NODES  REJECTED BY       REASON                                    FOR EXAMPLE
    4  NodeResourcesFit  Insufficient cpu                          n2, n5, n7, …
    1  TaintToleration   node(s) had taint {dedicated: infra},     n4
                         that the pod didn't tolerate
                         (UnschedulableAndUnresolvable)

selected: n3 (total 250)"""

FEASIBLE_WIDE = """\
pod shop/db  profile rules
8 nodes: 3 feasible, 5 rejected

feasible nodes by total:
NODE  LeastAlloc      Rules  Rules:ssd  TOTAL
n3            50  100 (500)        100    250  ← selected
n1            50     50 (0)          0    150
n6            30   60 (500)        100    150

  LeastAlloc  NodeResourcesLeastAllocated ×1
  Rules       Rules ×2
  Rules:ssd   rule ssd of Rules ×5: 100 if it matches, else 0
  cells       the normalized score, then the raw score in brackets when it differs
  TOTAL       the sum of weight × normalized score

rejected: 5 of 8 nodes
NODES  REJECTED BY       REASON                                                                                             \
FOR EXAMPLE
    4  NodeResourcesFit  Insufficient cpu                                                                                   \
n2, n5, n7, n8
    1  TaintToleration   node(s) had taint {dedicated: infra}, that the pod didn't tolerate (UnschedulableAndUnresolvable)  \
n4

selected: n3 (total 250)"""


def test_feasible_nodes_at_80_columns():
    assert render_score(FEASIBLE, width=80, top=2, sym=UNICODE) == FEASIBLE_80


def test_wide_shows_every_node_and_the_rules_as_columns():
    assert render_score(FEASIBLE, width=None, top=None, sym=UNICODE) == FEASIBLE_WIDE


def test_the_selected_node_is_shown_when_ties_leave_it_below_the_top():
    doc = {**FEASIBLE, "selected": "n6"}
    assert render_score(doc, width=80, top=1, sym=UNICODE).splitlines()[3:9] == [
        "feasible nodes, top 1 of 3 by total, and the selected node:",
        "NODE  LeastAlloc      Rules  TOTAL",
        "n3            50  100 (500)    250",
        "…",
        "n6            30   60 (500)    150  ← selected",
        "… and 1 more (--all)",
    ]


def test_ascii_symbols():
    text = render_score(FEASIBLE, width=80, top=2, sym=ASCII)
    assert text.isascii()
    assert "n3            50  100 (500)    250  <- selected" in text
    assert "... and 1 more (--all)" in text
    assert "  LeastAlloc   NodeResourcesLeastAllocated x1" in text


HEAD = """\
pod shop/big  profile default
3 nodes: 0 feasible, 3 rejected

rejected: 3 of 3 nodes
NODES  REJECTED BY       REASON                                      FOR EXAMPLE
    2  NodeResourcesFit  Insufficient cpu                            a, c
    1  TaintToleration   node(s) had taint {dedicated: infra}, that  b
                         the pod didn't tolerate
                         (UnschedulableAndUnresolvable)

unschedulable: 0/3 nodes are available: 1 node(s) had taint {dedicated: infra},
               that the pod didn't tolerate, 2 Insufficient cpu.
"""
CANDIDATES = [{"node": "a", "victims": ["x/v1", "x/v2"], "pdbViolations": 1},
              {"node": "c", "victims": ["x/v3"], "pdbViolations": 0}]


@pytest.mark.parametrize("preemption, expected", [
    (None, ["preemption:    not attempted (the profile has no PostFilter plugin)"]),
    ({"candidates": CANDIDATES, "nominatedNode": "a", "reason": "fewest victims"},
     ["preemption:    would evict 2 pods on a (x/v1, x/v2), violating 1",
      "               PodDisruptionBudget; chosen among 2 candidate nodes for fewest",
      "               victims"]),
    ({"candidates": CANDIDATES[1:], "nominatedNode": "c", "reason": "the only candidate"},
     ["preemption:    would evict 1 pod on c (x/v3); chosen among 1 candidate node for",
      "               the only candidate"]),
    ({"candidates": [{"node": "a", "victims": [], "pdbViolations": 0}], "nominatedNode": "a", "reason": ""},
     ["preemption:    would evict 0 pods on a"]),
    ({"candidates": [], "nominatedNode": None, "reason": "the pod's preemptionPolicy is Never"},
     ["preemption:    none — the pod's preemptionPolicy is Never"]),
    ({"candidates": [], "nominatedNode": None, "reason": ""},
     ["preemption:    no node where evicting lower-priority pods would help"]),
    ({"candidates": [], "nominatedNode": None, "reason": "",
      "error": {"code": "Error", "plugin": "Boom", "package": "boom-pkg", "message": "exploded"}},
     ["preemption:    error: exploded (plugin Boom, package boom-pkg)"]),
    ({"someOtherPlugin": True}, ["preemption:    no node where evicting lower-priority pods would help"]),
], ids=["no-postfilter", "nominated", "one-candidate", "no-victims", "policy-never", "no-help", "error",
        "third-party-report"])
def test_unschedulable_and_preemption_in_words(preemption, expected):
    text = render_score(unschedulable(preemption), width=80, sym=UNICODE)
    assert text == HEAD + "\n".join(expected)


def test_wide_lists_every_candidate():
    doc = unschedulable({"candidates": CANDIDATES, "nominatedNode": "c", "reason": "fewest PDB violations"})
    assert render_score(doc, width=None, sym=UNICODE).splitlines()[-3:] == [
        "preemption:    would evict 1 pod on c (x/v3); chosen among 2 candidate nodes for fewest PDB violations",
        "               candidate a: victims x/v1, x/v2, PDB violations 1",
        "               candidate c: victims x/v3, PDB violations 0",
    ]


def test_a_cycle_error_is_written_once():
    error = {"code": "Error", "plugin": "Boom", "package": "boom-pkg", "message": "exploded"}
    status = {"code": "Error", "plugin": "Boom", "reasons": ["exploded"]}
    doc = {"pod": "shop/x", "profile": "p", "selected": None, "message": "exploded", "preemption": None,
           "error": error, "nodes": [rejected("a", status), rejected("b", fit("Insufficient cpu")),
                                     rejected("c", status)]}
    assert render_score(doc, width=80, sym=UNICODE) == """\
pod shop/x  profile p
3 nodes: 0 feasible, 1 rejected

rejected: 1 of 3 nodes
NODES  REJECTED BY       REASON            FOR EXAMPLE
    1  NodeResourcesFit  Insufficient cpu  b

not evaluated: 2 nodes (the cycle ended with an error)
error: exploded (plugin Boom, package boom-pkg)"""


def test_a_refused_pod():
    doc = {"pod": "shop/x", "profile": "p", "nodes": [], "selected": None, "preemption": None, "refused": True,
           "message": 'pods "x" is forbidden: exceeded quota'}
    assert render_score(doc, width=80, sym=UNICODE) == """\
pod shop/x  profile p
refused before scheduling: no node was tried

refused: pods "x" is forbidden: exceeded quota"""


# ------------------------------------------------------- the feasible table at 80, 100 and 120 columns

#: The default profile's score plugins and weights (profiles/default.toml).
DEFAULT = [("TaintToleration", 3), ("NodeAffinity", 2), ("NodeResourcesFit", 1), ("PodTopologySpread", 2),
           ("InterPodAffinity", 2), ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1)]
#: Twelve plugins: the default's, then five more.
TWELVE = [*DEFAULT, ("NodeResourcesLeastAllocated", 1), ("NodePreferAvoidPods", 10000), ("GpuPacking", 2),
          ("NodeGPUTopologyScore", 1), ("PodCostEstimator", 1)]


def node_scored(name, plugins, scores, raws=None):
    """A feasible node with ``scores`` (and ``raws``, when they differ) for ``plugins`` in order."""
    raws = raws or scores
    entries = {plugin: {"raw": raw, "score": score, "weight": weight, "weighted": weight * score}
               for (plugin, weight), score, raw in zip(plugins, scores, raws, strict=True)}
    return {"name": name, "filter": OK, "scored": True, "scores": entries,
            "total": sum(e["weighted"] for e in entries.values())}


SMALL_POD = {"pod": "default/small", "profile": "default", "selected": "gp-c-4", "message": None,
             "preemption": None,
             "nodes": [node_scored("gp-a-2", DEFAULT, [100, 0, 97, 0, 0, 98, 0], [0, 0, 97, 0, 0, 98, 0]),
                       node_scored("gp-c-4", DEFAULT, [100, 0, 98, 0, 0, 99, 0], [0, 0, 98, 0, 0, 99, 0]),
                       rejected("gpu-a-0", TAINT),
                       node_scored("cpu-b-1", DEFAULT, [100, 0, 61, 0, 0, 80, 0], [0, 0, 61, 0, 0, 80, 0])]}
SMALL_POD_TAIL = """
  cells     the normalized score, then the raw score in brackets when it differs
  TOTAL     the sum of weight × normalized score

rejected: 1 of 4 nodes"""

EKS = [f"ip-10-0-{12 + i}-{34 + i}.us-west-2.compute.internal" for i in range(3)]
TWELVE_POD = {"pod": "team-a/api-7f9c", "profile": "twelve", "selected": EKS[1], "message": None,
              "preemption": None,
              "nodes": [node_scored(EKS[0], TWELVE, [100, 0, 97, 50, 0, 98, 0, 97, 100, 40, 73, 12],
                                    [0, 0, 97, 3, 0, 98, 0, 97, 0, 12000, 730, 88]),
                        node_scored(EKS[1], TWELVE, [100, 100, 95, 100, 0, 96, 80, 95, 100, 100, 73, 12],
                                    [0, 1, 95, 0, 0, 96, 262144000, 95, 0, 30000, 730, 88]),
                        node_scored(EKS[2], TWELVE, [100, 0, 20, 0, 0, 30, 0, 20, 0, 0, 0, 100],
                                    [0, 0, 20, 7, 0, 30, 0, 20, 1, 0, 0, 3])]}

FEASIBLE_TABLES = {
    ("default", 80): """\
pod default/small  profile default
4 nodes: 3 feasible, 1 rejected

feasible nodes by total:
NODE      Taints  NodeAff  Fit  Spread  InterPod  BalAlloc  TOTAL
gp-c-4   100 (0)        0   98       0         0        99    497  ← selected
gp-a-2   100 (0)        0   97       0         0        98    495
cpu-b-1  100 (0)        0   61       0         0        80    441
1 plugin column not shown (--wide shows all)

  Taints     TaintToleration ×3
  NodeAff    NodeAffinity ×2
  Fit        NodeResourcesFit ×1
  Spread     PodTopologySpread ×2
  InterPod   InterPodAffinity ×2
  BalAlloc   NodeResourcesBalancedAllocation ×1
  not shown  ImageLocality ×1
  cells      the normalized score, then the raw score in brackets when it
             differs
  TOTAL      the sum of weight × normalized score

rejected: 1 of 4 nodes""",
    ("default", 100): """\
pod default/small  profile default
4 nodes: 3 feasible, 1 rejected

feasible nodes by total:
NODE      Taints  NodeAff  Fit  Spread  InterPod  BalAlloc  ImageLoc  TOTAL
gp-c-4   100 (0)        0   98       0         0        99         0    497  ← selected
gp-a-2   100 (0)        0   97       0         0        98         0    495
cpu-b-1  100 (0)        0   61       0         0        80         0    441

  Taints    TaintToleration ×3
  NodeAff   NodeAffinity ×2
  Fit       NodeResourcesFit ×1
  Spread    PodTopologySpread ×2
  InterPod  InterPodAffinity ×2
  BalAlloc  NodeResourcesBalancedAllocation ×1
  ImageLoc  ImageLocality ×1""" + SMALL_POD_TAIL,
}
FEASIBLE_TABLES[("default", 120)] = FEASIBLE_TABLES[("default", 100)]


def _table_part(text):
    """``text`` up to the line that counts the rejected nodes (the rest is tested above)."""
    lines = text.splitlines()
    return "\n".join(lines[:lines.index(next(line for line in lines if line.startswith("rejected:"))) + 1])


@pytest.mark.parametrize("key", list(FEASIBLE_TABLES), ids=lambda key: f"{key[0]}-{key[1]}")
def test_node_and_total_are_never_squeezed(key):
    text = render_score(SMALL_POD, width=key[1], sym=UNICODE)
    assert _table_part(text) == FEASIBLE_TABLES[key]
    assert max(map(len, text.splitlines())) <= key[1]


TWELVE_HEAD = """\
pod team-a/api-7f9c  profile twelve
3 nodes: 3 feasible, 0 rejected

feasible nodes by total:
"""
SELECTED_EKS = "selected: ip-10-0-13-35.us-west-2.compute.internal (total 1001351)"
TWELVE_TABLES = {
    80: """\
NODE                                       Taints  NodeAff    TOTAL
ip-10-0-13-35.us-west-2.compute.internal  100 (0)  100 (1)  1001351  ← selected
ip-10-0-12-34.us-west-2.compute.internal  100 (0)        0  1000857
ip-10-0-14-36.us-west-2.compute.internal  100 (0)        0      470
10 plugin columns not shown (--wide shows all)

  Taints     TaintToleration ×3
  NodeAff    NodeAffinity ×2
  not shown  NodeResourcesFit ×1, PodTopologySpread ×2, InterPodAffinity ×2,
             NodeResourcesBalancedAllocation ×1, ImageLocality ×1,
             NodeResourcesLeastAllocated ×1, NodePreferAvoidPods ×10000,
             GpuPacking ×2, NodeGPUTopologyScore ×1, PodCostEstimator ×1
  cells      the normalized score, then the raw score in brackets when it
             differs
  TOTAL      the sum of weight × normalized score
""",
    100: """\
NODE                                       Taints  NodeAff  Fit   Spread    TOTAL
ip-10-0-13-35.us-west-2.compute.internal  100 (0)  100 (1)   95  100 (0)  1001351  ← selected
ip-10-0-12-34.us-west-2.compute.internal  100 (0)        0   97   50 (3)  1000857
ip-10-0-14-36.us-west-2.compute.internal  100 (0)        0   20    0 (7)      470
8 plugin columns not shown (--wide shows all)

  Taints     TaintToleration ×3
  NodeAff    NodeAffinity ×2
  Fit        NodeResourcesFit ×1
  Spread     PodTopologySpread ×2
  not shown  InterPodAffinity ×2, NodeResourcesBalancedAllocation ×1, ImageLocality ×1,
             NodeResourcesLeastAllocated ×1, NodePreferAvoidPods ×10000, GpuPacking ×2,
             NodeGPUTopologyScore ×1, PodCostEstimator ×1
  cells      the normalized score, then the raw score in brackets when it differs
  TOTAL      the sum of weight × normalized score
""",
    120: """\
NODE                                       Taints  NodeAff  Fit   Spread  InterPod  BalAlloc    TOTAL
ip-10-0-13-35.us-west-2.compute.internal  100 (0)  100 (1)   95  100 (0)         0        96  1001351  ← selected
ip-10-0-12-34.us-west-2.compute.internal  100 (0)        0   97   50 (3)         0        98  1000857
ip-10-0-14-36.us-west-2.compute.internal  100 (0)        0   20    0 (7)         0        30      470
6 plugin columns not shown (--wide shows all)

  Taints     TaintToleration ×3
  NodeAff    NodeAffinity ×2
  Fit        NodeResourcesFit ×1
  Spread     PodTopologySpread ×2
  InterPod   InterPodAffinity ×2
  BalAlloc   NodeResourcesBalancedAllocation ×1
  not shown  ImageLocality ×1, NodeResourcesLeastAllocated ×1, NodePreferAvoidPods ×10000, GpuPacking ×2,
             NodeGPUTopologyScore ×1, PodCostEstimator ×1
  cells      the normalized score, then the raw score in brackets when it differs
  TOTAL      the sum of weight × normalized score
""",
}


@pytest.mark.parametrize("width", list(TWELVE_TABLES), ids=str)
def test_twelve_plugins_and_long_node_names(width):
    text = render_score(TWELVE_POD, width=width, sym=UNICODE)
    assert text == TWELVE_HEAD + TWELVE_TABLES[width] + "\n" + SELECTED_EKS
    assert max(map(len, text.splitlines())) <= width


def test_a_table_that_cannot_fit_overflows_rather_than_cut_a_name():
    lines = render_score(TWELVE_POD, width=50, sym=UNICODE).splitlines()
    assert lines[4:9] == [
        "NODE                                        TOTAL",
        "ip-10-0-13-35.us-west-2.compute.internal  1001351  ← selected",
        "ip-10-0-12-34.us-west-2.compute.internal  1000857",
        "ip-10-0-14-36.us-west-2.compute.internal      470",
        "12 plugin columns not shown (--wide shows all)",
    ]
    assert max(len(line) for line in lines if not line.startswith("ip-")) <= 50


def test_wide_shows_all_twelve():
    assert render_score(TWELVE_POD, width=None, sym=UNICODE).splitlines()[4].split() == [
        "NODE", "Taints", "NodeAff", "Fit", "Spread", "InterPod", "BalAlloc", "ImageLoc", "LeastAlloc",
        "AvoidPods", "GpuPacking", "GPUTopSco", "CosEst", "TOTAL"]


def test_rejected_node_names_wrap_between_names_never_inside_one():
    doc = {**unschedulable(None), "nodes": [rejected(name, fit("Insufficient cpu")) for name in EKS]}
    assert render_score(doc, width=80, sym=UNICODE).splitlines()[3:8] == [
        'rejected: 3 of 3 nodes',
        'NODES  REJECTED BY       REASON        FOR EXAMPLE',
        '    3  NodeResourcesFit  Insufficient  ip-10-0-12-34.us-west-2.compute.internal,',
        '                         cpu           ip-10-0-13-35.us-west-2.compute.internal,',
        '                                       ip-10-0-14-36.us-west-2.compute.internal',
    ]


def test_input_text_is_escaped_and_never_markup():
    doc = {"pod": "ns/[bold]x", "profile": "p\x1b[31m", "podSchedulerName": "s\u202e", "selected": "[red]n",
           "message": None, "preemption": None,
           "nodes": [{"name": "[red]n", "filter": OK, "scores": {}, "total": None, "scored": False},
                     rejected("evil\nnode", fit("bad\rreason"))]}
    assert render_score(doc, width=80, sym=UNICODE) == """\
pod ns/[bold]x  profile p\\x1b[31m  schedulerName s\\u202e
2 nodes: 1 feasible, 1 rejected

feasible node:
NODE    TOTAL
[red]n      -  ← selected

rejected: 1 of 2 nodes
NODES  REJECTED BY       REASON       FOR EXAMPLE
    1  NodeResourcesFit  bad\\rreason  evil\\nnode

selected: [red]n"""


def test_colour_only_when_asked():
    assert "\x1b[" not in render_score(FEASIBLE, width=80, sym=UNICODE)
    coloured = render_score(FEASIBLE, width=80, sym=UNICODE, color=True)
    assert "\x1b[1;32mn3" in coloured  # the selected row: bold green


# ---------------------------------------------------------------------------------- end to end


def _score(capsys, *argv):
    code = main(["score", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_demo_at_120_columns(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "120")
    out = _score(capsys)
    lines = out.splitlines()
    assert max(map(len, lines)) <= 120
    assert lines[:2] == ["pod shop/payments-9f7c-p0  profile default", "24 nodes: 0 feasible, 24 rejected"]
    # The default is 1.35's: a request beyond a node's allocatable is Unresolvable there (from 1.34).
    assert "   16  NodeResourcesFit   Insufficient cpu (UnschedulableAndUnresolvable)" in out
    assert lines[-2:] == ["preemption:    would evict 1 pod on cpu-c-1 (batch/crunch-6b8d-17z); chosen among 6 "
                          "candidate nodes for latest start",
                          "               time of its most important victims"]
    data = json.loads(_score(capsys, "-o", "json"))
    assert data["preemption"]["nominatedNode"] == "cpu-c-1"


def _thousand_nodes(tmp_path):
    items = []
    for i in range(1000):
        allocatable = {"cpu": "8", "memory": "32Gi", "pods": "110"}
        spec = {"taints": [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]} if i % 2 else {}
        items.append({"kind": "Node", "spec": spec, "status": {"allocatable": allocatable},
                      "metadata": {"name": f"node-{i:04d}",
                                   "labels": {"topology.kubernetes.io/zone": f"zone-{'abc'[i % 3]}"}}})
    (tmp_path / "c.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    (tmp_path / "pod.yaml").write_text("kind: Pod\nmetadata: {name: probe, namespace: default}\n"
                                       "spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}\n")
    return ["--cluster", str(tmp_path / "c.yaml"), "--pod", str(tmp_path / "pod.yaml")]


def test_a_thousand_nodes_at_120_columns(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("COLUMNS", "120")
    argv = _thousand_nodes(tmp_path)
    lines = _score(capsys, *argv).splitlines()
    assert max(map(len, lines)) <= 120
    assert lines[:5] == ["pod default/probe  profile default", "1000 nodes: 500 feasible, 500 rejected", "",
                         "feasible nodes, top 20 of 500 by total, and the selected node:",
                         # PodTopologySpread and InterPodAffinity skip this pod at PreScore (1.28+).
                         "NODE        Taints  NodeAff  Fit  BalAlloc  ImageLoc  TOTAL"]
    rejected_at = lines.index("rejected: 500 of 1000 nodes")
    assert lines[rejected_at + 2].split()[:2] == ["500", "TaintToleration"]
    assert lines[rejected_at + 2].endswith("node-0001, node-0003, node-0005, …")
    assert lines[-1].startswith("selected: node-")
    assert len(lines) < 60
    # --all and --wide: every feasible node, one line each.
    wide = _score(capsys, *argv, "--wide").splitlines()
    assert sum(1 for line in wide if line.startswith("node-")) == 500


def test_in_wide_mode_rule_columns_follow_their_plugin():
    nodes = [{**n, "scores": {k: n["scores"][k] for k in ("Rules", "NodeResourcesLeastAllocated")}}
             if n["scored"] else n for n in FEASIBLE["nodes"]]
    header = render_score({**FEASIBLE, "nodes": nodes}, width=None, sym=UNICODE).splitlines()[4]
    assert header.split() == ["NODE", "Rules", "Rules:ssd", "LeastAlloc", "TOTAL"]
