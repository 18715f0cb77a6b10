"""``ruleset score`` when the pod fits nowhere: the ``"preemption"`` part of the JSON contract
(``{"candidates": [{"node", "victims", "pdbViolations"}], "nominatedNode", "reason"}``) and
its text form."""

import json

from ruleset.cli import main

PROFILE = """\
name = "preempting"
[plugins.NodeUnschedulable]
[plugins.NodeName]
[plugins.TaintToleration]
[plugins.NodeResourcesFit]
[plugins.DefaultPreemption]
[plugins.NodeResourcesLeastAllocated]
"""
CLUSTER = """\
apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
- kind: Node
  metadata: {name: n2}
  status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
- kind: Node
  metadata: {name: n3}
  spec:
    taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
  status: {allocatable: {cpu: "8", memory: 4Gi, pods: "110"}}
- kind: PodDisruptionBudget
  apiVersion: policy/v1beta1
  metadata: {name: db, namespace: shop}
  spec: {minAvailable: 1, selector: {matchLabels: {app: db}}}
  status: {disruptionsAllowed: 0}
- kind: Pod
  metadata: {name: db-0, namespace: shop, labels: {app: db}}
  spec: {nodeName: n1, priority: 10, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
- kind: Pod
  metadata: {name: cache-0, namespace: shop, labels: {app: cache}}
  spec: {nodeName: n1, priority: 10, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
- kind: Pod
  metadata: {name: batch-0, namespace: shop, labels: {app: batch}}
  spec: {nodeName: n2, priority: 20, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
"""
POD = """\
kind: Pod
metadata: {name: urgent, namespace: shop}
spec:
  priority: 1000
  containers: [{name: c, resources: {requests: {cpu: "2"}}}]
"""


def score(tmp_path, capsys, *more, pod=POD, output="json"):
    (tmp_path / "p.toml").write_text(PROFILE)
    (tmp_path / "c.yaml").write_text(CLUSTER)
    (tmp_path / "pod.yaml").write_text(pod)
    code = main(
        [
            "score",
            "--profile",
            str(tmp_path / "p.toml"),
            "--cluster",
            str(tmp_path / "c.yaml"),
            "--pod",
            str(tmp_path / "pod.yaml"),
            "--output",
            output,
            *more,
        ]
    )
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return json.loads(out) if output == "json" else out


def test_preemption_candidates_and_nominated_node(tmp_path, capsys):
    data = score(tmp_path, capsys)
    assert (data["selected"], data["message"]) == (
        None,
        (
            "0/3 nodes are available: 1 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate, "
            "2 Insufficient cpu."
        ),
    )
    # n1 would lose both pods (one under a PDB with no disruptions left); n2 its one pod of
    # higher priority: fewer PDB violations win. n3 is UnschedulableAndUnresolvable.
    assert data["preemption"] == {
        "candidates": [
            {"node": "n2", "victims": ["shop/batch-0"], "pdbViolations": 0},
            {"node": "n1", "victims": ["shop/db-0", "shop/cache-0"], "pdbViolations": 1},
        ],
        "nominatedNode": "n2",
        "reason": "fewest PDB violations",
    }


def test_preemption_text(tmp_path, capsys):
    """The nominated node with its victims and why it was chosen; with --wide, every candidate."""
    out = score(tmp_path, capsys, "--wide", output="text")
    assert out.splitlines()[-3:] == [
        "preemption:    would evict 1 pod on n2 (shop/batch-0); chosen among 2 candidate nodes for fewest "
        "PDB violations",
        "               candidate n2: victims shop/batch-0, PDB violations 0",
        "               candidate n1: victims shop/db-0, shop/cache-0, PDB violations 1",
    ]


def test_nominated_node_is_null_when_preemption_cannot_help(tmp_path, capsys):
    never = POD.replace("priority: 1000", "priority: 1000\n  preemptionPolicy: Never")
    assert score(tmp_path, capsys, pod=never)["preemption"] == {
        "candidates": [],
        "nominatedNode": None,
        "reason": "the pod's preemptionPolicy is Never",
    }
    low = POD.replace("priority: 1000", "priority: 5")
    assert score(tmp_path, capsys, pod=low)["preemption"] == {
        "candidates": [],
        "nominatedNode": None,
        "reason": "no node would fit the pod even with every lower-priority pod removed",
    }
    # spec.nodeName n3: NodeName rejects n1 and n2, the taint rejects n3, all unresolvable.
    pinned = POD.replace("spec:\n", "spec:\n  nodeName: n3\n")
    data = score(tmp_path, capsys, pod=pinned)
    assert data["message"] == (
        "0/3 nodes are available: 1 node(s) had taint {dedicated: gpu}, that the pod didn't "
        "tolerate, 2 node(s) didn't match the requested hostname."
    )
    assert data["preemption"] == {
        "candidates": [],
        "nominatedNode": None,
        "reason": "preemption will not help: every node is unschedulable and unresolvable for this pod",
    }


def test_no_preemption_key_without_default_preemption(tmp_path, capsys):
    (tmp_path / "p2.toml").write_text(PROFILE.replace("[plugins.DefaultPreemption]\n", ""))
    (tmp_path / "c.yaml").write_text(CLUSTER)
    (tmp_path / "pod.yaml").write_text(POD)
    assert (
        main(
            [
                "score",
                "--profile",
                str(tmp_path / "p2.toml"),
                "--cluster",
                str(tmp_path / "c.yaml"),
                "--pod",
                str(tmp_path / "pod.yaml"),
                "--output",
                "json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["preemption"] is None
