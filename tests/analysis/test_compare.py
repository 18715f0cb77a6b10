"""``ruleset.analysis.compare``: two profiles on the bundled demo (spread against bin-packing),
and one profile at two releases on a cluster where BalancedAllocation's 1.23 change (actual
requests instead of 100m/200Mi for a best-effort pod) moves the pending pod."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleset.analysis.compare import SideSpec, compare, compare_json, parse_tolerances, sides_of
from ruleset.errors import RulesetError

DATA = Path(__file__).parent / "data"


def test_demo_default_1_20_spreads_where_cluster_autoscaler_packs() -> None:
    a, b = compare(sides_of(["default-1.20", "cluster-autoscaler"], None), None)
    document = compare_json(a, b)
    assert document["placementsDiffer"] == [
        {"pod": "shop/web-7d9f8c6b5-p0", "nodes": {"default-1.20": "gp-c-4", "cluster-autoscaler": "cpu-b-0"}},
        {"pod": "shop/web-7d9f8c6b5-p1", "nodes": {"default-1.20": "gp-b-4", "cluster-autoscaler": "cpu-c-0"}},
        {"pod": "shop/api-5c4d7f-p0", "nodes": {"default-1.20": "gp-a-2", "cluster-autoscaler": "cpu-a-0"}},
        {"pod": "shop/web-7d9f8c6b5-p2", "nodes": {"default-1.20": "gp-c-2", "cluster-autoscaler": "cpu-a-0"}},
        {"pod": "shop/api-5c4d7f-p1", "nodes": {"default-1.20": "gp-c-3", "cluster-autoscaler": "cpu-c-0"}},
    ]
    assert document["onlyScheduledBy"] == []
    used = [side["balance"]["nodesUsed"] for side in document["sides"]]
    assert used == [20, 15]
    assert [side["preemptions"] for side in document["sides"]] == [2, 2]
    assert document["differs"] is True


def test_kubernetes_versions_move_the_pod_when_balanced_allocation_changed() -> None:
    specs = sides_of([str(DATA / "balanced.toml")], ["1.20", "1.34"])
    a, b = compare(specs, [str(DATA / "version-cluster.yaml")])
    document = compare_json(a, b)
    assert [s["kubernetesVersion"] for s in document["sides"]] == ["1.20", "1.34"]
    assert document["placementsDiffer"] == [
        {"pod": "default/pending", "nodes": {"balanced@1.20": "node-b", "balanced@1.34": "node-a"}}]
    assert [s["balance"]["nodesUsed"] for s in document["sides"]] == [2, 1]
    assert [s["fragmentation"] for s in document["sides"]] == [7, 7]


def test_tolerances_decide_what_differs() -> None:
    specs = sides_of([str(DATA / "balanced.toml")], ["1.20", "1.34"])
    a, b = compare(specs, [str(DATA / "version-cluster.yaml")])
    assert compare_json(a, b)["differs"] is True
    loose = {"placements": 1, "memory.stddev": 6.25, "memory.range": 12.5, "nodesUsed": 1}
    assert compare_json(a, b, loose)["differs"] is False
    assert compare_json(a, b, {**loose, "memory.stddev": 6.24})["differs"] is True


def test_a_release_without_the_profiles_plugins_is_an_input_error() -> None:
    with pytest.raises(RulesetError) as info:
        compare(sides_of(["default"], ["1.20", "1.34"]), None)
    assert [p.message for p in info.value.problems] == [
        "at Kubernetes 1.20: plugin 'SchedulingGates' is not in Kubernetes 1.20: it came in 1.26"]


@pytest.mark.parametrize(("profiles", "versions", "expected"), [
    (["a", "b"], None, [SideSpec("a"), SideSpec("b")]),
    (["a", "b"], ["1.30"], [SideSpec("a", "1.30"), SideSpec("b", "1.30")]),
    (["a"], ["1.20", "1.34"], [SideSpec("a", "1.20"), SideSpec("a", "1.34")]),
    (None, ["1.20", "1.34"], [SideSpec(None, "1.20"), SideSpec(None, "1.34")]),
    (["a", "b"], ["1.20", "1.34"], [SideSpec("a", "1.20"), SideSpec("b", "1.34")]),
], ids=["two-profiles", "two-profiles-one-release", "one-profile-two-releases", "default-profile",
        "paired"])
def test_sides_of(profiles, versions, expected) -> None:
    assert sides_of(profiles, versions) == expected


@pytest.mark.parametrize(("profiles", "versions"), [(None, None), (["a"], None), (["a", "b", "c"], None),
                                                    (None, ["1.20"]), (["a"], ["1.2", "1.3", "1.4"])],
                         ids=["nothing", "one-profile", "three-profiles", "one-release", "three-releases"])
def test_sides_of_needs_two_sides(profiles, versions) -> None:
    with pytest.raises(RulesetError):
        sides_of(profiles, versions)


@pytest.mark.parametrize(("values", "expected"), [
    (["cpu.stddev=2.5"], {"cpu.stddev": 2.5}),
    (["placements=3", "nvidia.com/gpu.range=10"], {"placements": 3.0, "nvidia.com/gpu.range": 10.0}),
    (None, {}),
], ids=["one", "two", "none"])
def test_parse_tolerances(values, expected) -> None:
    assert parse_tolerances(values) == expected


@pytest.mark.parametrize("value", ["cpu.stddev", "=3", "cpu.stddev=-1", "cpu.stddev=x", "cpu.stddev=nan",
                                   "cpu.stddev=inf"], ids=["no-value", "no-name", "negative", "word", "nan",
                                                           "inf"])
def test_parse_tolerances_refuses(value: str) -> None:
    with pytest.raises(RulesetError):
        parse_tolerances([value])


TAINTED = """\
apiVersion: v1
kind: Node
metadata: {name: node-t}
spec:
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: default}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1", memory: 1Gi}}}]
"""


def test_a_pod_only_one_side_schedules_names_the_others_reason(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(TAINTED)
    (tmp_path / "tolerant.toml").write_text((DATA / "balanced.toml").read_text().replace(
        'name = "balanced"', 'name = "tolerant"'))
    (tmp_path / "strict.toml").write_text('name = "strict"\nextends = "tolerant.toml"\n\n[plugins.TaintToleration]\n')
    specs = sides_of([str(tmp_path / "tolerant.toml"), str(tmp_path / "strict.toml")], None)
    a, b = compare(specs, [str(tmp_path / "cluster.yaml")])
    document = compare_json(a, b)
    assert document["placementsDiffer"] == []
    assert document["onlyScheduledBy"] == [{
        "pod": "default/pending", "scheduledBy": "tolerant", "node": "node-t",
        "otherReason": "0/1 nodes are available: 1 node(s) had taint {dedicated: gpu}, that the pod didn't "
                       "tolerate."}]
    assert [s["unschedulable"] for s in document["sides"]] == [0, 1]
    assert [s["fragmentation"] for s in document["sides"]] == [3, 0]
    placements = next(m for m in document["metrics"] if m["metric"] == "placements")
    assert (placements["difference"], placements["exceeds"]) == (1, True)
