"""``ruleset.analysis.explain``: the rejections, the verified suggestions and the decision.

Each blocked case (tests/analysis/explain_cases.py) is checked twice: the plugin and reason on
every node and the suggestion's promise, and then the suggestion applied to the pod manifest as
a user would and ``ruleset score`` run on it: the pod must then fit exactly the promised nodes.
No upstream table is ported: kube-scheduler has no explain.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from ruleset.analysis.explain import explain_pod, format_amount, less_requested
from ruleset.api.meta import ObjectMeta
from ruleset.api.pod import Container, Pod
from ruleset.app import prepare_run, take_pod_file
from tests.analysis.explain_cases import CASES, apply, fitting_after, node, pod, write_case

UNRESOLVABLE = "UnschedulableAndUnresolvable"


def explain_file(cluster: str, pod_file: str, **kwargs: object):
    framework, state = prepare_run(None, [cluster], [pod_file], replace=True)
    the_pod, refused = take_pod_file(pod_file, state)
    return explain_pod(framework, state, the_pod, refused=refused, **kwargs)  # type: ignore[arg-type]


#: case → (groups as (plugin, code, reasons, count, examples), suggestions as (plugin, change, nodes,
#: examples), blockers as {node: pods}).
EXPECTED = {
    "taints": (
        [("TaintToleration", UNRESOLVABLE, ["node(s) had untolerated taint(s)"], 3, ["g-1", "g-2", "t-1"])],
        [("TaintToleration", {"kind": "toleration", "key": "dedicated", "operator": "Equal", "value": "gpu",
                              "effect": "NoSchedule"}, 2, ["g-1", "g-2"])],
        {}),
    "resources": (
        [("NodeResourcesFit", UNRESOLVABLE, ["Insufficient cpu"], 4, ["n-1", "n-2", "n-3", "n-4"])],
        [("NodeResourcesFit", {"kind": "request", "resource": "cpu", "less": 1000, "quantity": "1",
                               "requested": 5000, "newRequest": 4000}, 2, ["n-2", "n-3"])],
        {}),
    "node-selector": (
        [("NodeAffinity", UNRESOLVABLE, ["node(s) didn't match Pod's node affinity"], 3, ["d-1", "d-2", "d-3"])],
        [("NodeAffinity", {"kind": "nodeSelector", "key": "disktype", "value": "ssd", "suggested": "nvme"}, 2,
          ["d-1", "d-2"])],
        {}),
    "anti-affinity": (
        [("InterPodAffinity", "Unschedulable", ["node(s) didn't match pod anti-affinity rules"], 3,
          ["a-1", "a-2", "b-1"])],
        [("InterPodAffinity", {"kind": "dropPodAntiAffinity", "terms": 1}, 3, ["a-1", "a-2", "b-1"])],
        {"a-1": ["default/db-a"], "a-2": ["default/db-a"], "b-1": ["default/db-b"]}),
    "volume": (
        [("VolumeBinding", UNRESOLVABLE, ["node(s) had volume node affinity conflict"], 2, ["b-1", "c-1"]),
         ("TaintToleration", UNRESOLVABLE, ["node(s) had untolerated taint(s)"], 1, ["a-1"])],
        [("TaintToleration", {"kind": "toleration", "key": "dedicated", "operator": "Equal", "value": "gpu",
                              "effect": "NoSchedule"}, 1, ["a-1"]),
         ("VolumeBinding", {"kind": "dropVolume", "volume": "store", "claim": "data",
                            "persistentVolume": "local-a"}, 2, ["b-1", "c-1"])],
        {}),
}


@pytest.mark.parametrize("case", list(EXPECTED), ids=list(EXPECTED))
def test_a_blocked_pod_names_plugin_and_reason_per_node_and_a_verified_change(tmp_path, case):
    cluster, pod_file = write_case(tmp_path, case)
    explanation = explain_file(cluster, pod_file)
    groups, suggestions, blockers = EXPECTED[case]
    assert explanation.outcome == "unschedulable"
    assert [(g.plugin, g.code, g.reasons, g.count, g.examples) for g in explanation.rejected] == groups
    assert [(s.plugin, s.change, s.nodes, s.examples) for s in explanation.suggestions] == suggestions
    assert {b.node: b.pods for b in explanation.blockers} == blockers


@pytest.mark.parametrize("case", list(EXPECTED), ids=list(EXPECTED))
def test_applying_each_suggestion_to_the_manifest_fits_the_promised_nodes(tmp_path, capsys, case):
    cluster, pod_file = write_case(tmp_path, case)
    manifest = json.loads(Path(pod_file).read_text())
    for suggestion in explain_file(cluster, pod_file).suggestions:
        fits = fitting_after(capsys, tmp_path, cluster, apply(manifest, suggestion.change))
        assert (len(fits), fits[:5]) == (suggestion.nodes, suggestion.examples)


def test_the_volume_suggestion_names_the_claim_and_the_volumes_nodes(tmp_path):
    cluster, pod_file = write_case(tmp_path, "volume")
    texts = [s.text for s in explain_file(cluster, pod_file).suggestions]
    assert texts == [
        "tolerating dedicated=gpu:NoSchedule opens 1 node (the taint is on 1 rejected node)",
        "volume store (claim default/data, bound to PersistentVolume local-a, whose node affinity allows a-1): "
        "without it the pod fits 2 nodes"]


def test_the_preemption_dry_run_is_reported(tmp_path):
    """A pod that fits once a lower-priority pod leaves: DefaultPreemption's victims, as score reports them."""
    objects = [node("n-1", cpu="2"), pod("low", cpu="1500m", node_name="n-1")]
    the_pod = pod("high", cpu="1", priority=1000)
    (tmp_path / "c.yaml").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    (tmp_path / "p.yaml").write_text(json.dumps(the_pod))
    explanation = explain_file(str(tmp_path / "c.yaml"), str(tmp_path / "p.yaml"))
    assert explanation.preemption == {"candidates": [{"node": "n-1", "victims": ["default/low"],
                                                      "pdbViolations": 0}],
                                      "nominatedNode": "n-1", "reason": "the only candidate"}
    assert [(s.change["less"], s.nodes) for s in explanation.suggestions] == [(500, 1)]


def _write(tmp_path: Path, objects: list[dict], the_pod: dict) -> tuple[str, str]:
    (tmp_path / "c.yaml").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    (tmp_path / "p.yaml").write_text(json.dumps(the_pod))
    return str(tmp_path / "c.yaml"), str(tmp_path / "p.yaml")


PREFER_FAST = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 50, "preference": {"matchExpressions": [{"key": "fast", "operator": "In", "values": ["yes"]}]}}]}}


def test_a_placed_pod_names_the_decisive_plugin_and_the_margin(tmp_path):
    """Identical nodes but one preferred by node affinity (weight 2 in the default profile): NodeAffinity's
    normalised 100 against 0 is the whole difference."""
    cluster, pod_file = _write(tmp_path, [node("n-1"), node("n-2", labels={"fast": "yes"}), node("n-3")],
                               pod("web", affinity=PREFER_FAST))
    d = explain_file(cluster, pod_file).decision
    assert d is not None
    assert (d.node, d.rank, d.feasible, d.runner_up, d.margin, d.decisive_plugin, d.decisive_difference,
            d.tie) == ("n-2", 1, 3, "n-1", 200, "NodeAffinity", 200, None)
    assert [(n.node, n.rank) for n in d.top] == [("n-2", 1), ("n-1", 2), ("n-3", 2)]
    affinity = next(s for s in d.top[0].scores if s.plugin == "NodeAffinity")
    assert (affinity.raw, affinity.score, affinity.weight, affinity.weighted) == (50, 100, 2, 200)
    assert (d.scoring.evaluated, d.scoring.scored, d.scoring.feasible, d.scoring.changes) == (3, 3, 3, False)


@pytest.mark.parametrize(("seed", "chosen"), [(0, "n-2"), (1, "n-1")], ids=["seed0", "seed1"])
def test_a_tie_is_reported_with_the_tied_nodes_and_the_seed(tmp_path, seed, chosen):
    cluster, pod_file = _write(tmp_path, [node("n-1"), node("n-2")], pod("web"))
    explanation = explain_file(cluster, pod_file, seed=seed)
    d = explanation.decision
    assert d is not None and d.tie is not None
    assert (d.node, d.tie.nodes[0], sorted(d.tie.nodes), d.tie.seed, d.margin, d.decisive_plugin) == \
        (chosen, chosen, ["n-1", "n-2"], seed, 0, None)
    assert explanation.summary == (f"default/web → node {chosen}: rank 1 of 2 feasible nodes, tied at "
                                   f"{d.total} points with 1 other node, drawn with seed {seed}")


def test_scoring_every_feasible_node_would_choose_the_preferred_node_beyond_the_cut(tmp_path):
    """120 nodes: the adaptive percentage scores 100 (numFeasibleNodesToFind's minimum); the only
    node the pod prefers comes last in evaluation order, so only a 100% run finds it."""
    nodes = [node(f"n-{i:03}") for i in range(119)] + [node("n-119", labels={"fast": "yes"})]
    cluster, pod_file = _write(tmp_path, nodes, pod("web", affinity=PREFER_FAST))
    d = explain_file(cluster, pod_file).decision
    assert d is not None
    s = d.scoring
    assert (s.percentage, s.nodes, s.evaluated, s.scored, s.feasible, s.node, s.changes) == \
        (None, 120, 100, 100, 120, "n-119", True)
    assert d.node != "n-119"


def _pod(*containers: Container, inits: tuple[Container, ...] = ()) -> Pod:
    return Pod(meta=ObjectMeta(name="p", namespace="d"), containers=containers, init_containers=inits)


@pytest.mark.parametrize(("containers", "inits", "resource", "less", "expected"), [
    ([Fraction(1), Fraction(2)], [], "cpu", 500, 2500),
    ([Fraction(1), Fraction(2)], [], "cpu", 2500, 500),
    # An init container asking more than the rest is capped at what remains.
    ([Fraction(1)], [Fraction(3)], "cpu", 1000, 2000),
    ([Fraction(1024 ** 3)], [], "memory", 256 * 1024 ** 2, 768 * 1024 ** 2),
], ids=["largest-first", "spills-over", "init-capped", "memory"])
def test_less_requested_takes_the_amount_off_the_pods_request(containers, inits, resource, less, expected):
    the_pod = _pod(*(Container(f"c{i}", requests={resource: v}) for i, v in enumerate(containers)),
                   inits=tuple(Container(f"i{i}", requests={resource: v}) for i, v in enumerate(inits)))
    assert less_requested(the_pod, resource, less).requests[resource] == expected


@pytest.mark.parametrize(("resource", "value", "text"), [
    ("cpu", 500, "500m"), ("cpu", 2000, "2"), ("memory", 3 * 1024 ** 3, "3Gi"), ("memory", 5 * 1024 ** 2, "5Mi"),
    ("memory", 1000, "1000"), ("nvidia.com/gpu", 1, "1"),
], ids=["millicores", "cores", "gi", "mi", "bytes", "units"])
def test_amounts_are_written_as_quantities(resource, value, text):
    assert format_amount(resource, value) == text


def test_every_case_has_expectations():
    assert set(CASES) == set(EXPECTED)
