"""The bundled profiles load, build, declare their release, and behave as their names promise.

``default`` is kube-scheduler v1.35's default configuration and ``default-1.20`` v1.20's; both
are checked against :func:`ruleset.framework.defaults.release_defaults`, the per-release
default plugin sets (``getDefaultPlugins`` of ``pkg/scheduler/apis/config/v1beta2``,
``v1beta3`` and ``v1`` ``default_plugins.go``; v1.20's ``algorithmprovider/registry.go``).
"""

import json

import pytest

from ruleset.bundled import bundled_profile_names
from ruleset.cli import main
from ruleset.framework.defaults import NOT_MODELLED, release_defaults
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.kversion import KubeVersion, Target
from ruleset.pluginmanager import load_registry
from ruleset.profile.loader import load_profile

WEB_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web-extra, namespace: shop, labels: {app: web, pod-template-hash: 7d9f8c6b5}}
spec:
  containers:
  - name: main
    image: docker.io/library/nginx:1.19
    resources: {requests: {cpu: 500m, memory: 512Mi}}
"""

RELEASES = {
    "default": "1.35",
    "default-1.20": "1.20",
    "cluster-autoscaler": "1.20",
    "cluster-autoscaler-1.35": "1.35",
    "legacy-policy": "1.20",
}


def target(version: str, **gates: bool) -> Target:
    return Target(KubeVersion.parse(version), gates, explicit=True)


def test_bundled_profiles_are_the_documented_ones():
    assert bundled_profile_names() == sorted(RELEASES)


@pytest.mark.parametrize(("name", "release"), sorted(RELEASES.items()))
def test_every_bundled_profile_declares_its_release(name, release):
    profile = load_profile(name)
    assert (profile.kubernetes_version, str(profile.target.version), profile.target.explicit) == (
        release, release, True)


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_every_bundled_profile_builds(name):
    framework = Framework(load_profile(name), load_registry(), Handle())
    assert framework.tables["ruleset_queue_sort"][0].plugin == "PrioritySort"
    assert [s.plugin for s in framework.tables["ruleset_bind"]] == ["DefaultBinder"]


def _written(name: str) -> list[tuple[str, int | None]]:
    """The profile's plugins in order, with the weight where the profile writes one."""
    return [(c.name, c.weight if c.written("weight") else None) for c in load_profile(name).plugins]


@pytest.mark.parametrize(("name", "release"), [("default-1.20", "1.20"), ("default", "1.35")])
def test_the_default_profiles_are_their_releases_default_sets(name, release):
    registry = load_registry()
    # Plugins ruleset does not implement yet (SchedulingGates until its PreEnqueue point lands)
    # are left out of the file; once registered, the file must list them.
    expected = [(n, w) for n, w in release_defaults(target(release)) if registry.get(n) is not None]
    assert _written(name) == expected


def test_default_1_20_builds_the_v1_20_default_framework():
    framework = Framework(load_profile("default-1.20"), load_registry(), Handle())
    assert [s.plugin for s in framework.tables["ruleset_filter"]] == [
        "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
        "VolumeRestrictions", "EBSLimits", "GCEPDLimits", "NodeVolumeLimits", "AzureDiskLimits",
        "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity"]
    assert [s.plugin for s in framework.tables["ruleset_pre_filter"]] == [
        "NodePorts", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread", "InterPodAffinity"]
    assert [s.plugin for s in framework.tables["ruleset_reserve"]] == ["VolumeBinding"]
    assert [s.plugin for s in framework.tables["ruleset_pre_bind"]] == ["VolumeBinding"]
    assert {s.plugin: s.weight for s in framework.tables["ruleset_score"]} == {
        "TaintToleration": 1, "NodeAffinity": 1, "PodTopologySpread": 2, "InterPodAffinity": 1,
        "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1, "NodeResourcesLeastAllocated": 1,
        "NodePreferAvoidPods": 10000}
    assert [s.plugin for s in framework.tables["ruleset_post_filter"]] == ["DefaultPreemption"]


def test_default_builds_the_v1_35_default_framework():
    framework = Framework(load_profile("default"), load_registry(), Handle())
    assert [s.plugin for s in framework.tables["ruleset_filter"]] == [
        "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
        "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
        "InterPodAffinity"]
    assert {s.plugin: s.weight for s in framework.tables["ruleset_score"]} == {
        "TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1, "VolumeBinding": 1,
        "PodTopologySpread": 2, "InterPodAffinity": 2, "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}
    assert [s.plugin for s in framework.tables["ruleset_post_filter"]] == ["DefaultPreemption"]


# v1beta1's Filter order, the volume plugins in it (NodeResourcesFit, VolumeRestrictions, the
# four limits, VolumeBinding, VolumeZone, PodTopologySpread).
V120 = [("PrioritySort", None), ("NodeUnschedulable", None), ("NodeName", None), ("TaintToleration", 1),
        ("NodeAffinity", 1), ("NodePorts", None), ("NodeResourcesFit", None), ("VolumeRestrictions", None),
        ("EBSLimits", None), ("GCEPDLimits", None), ("NodeVolumeLimits", None), ("AzureDiskLimits", None),
        ("VolumeBinding", None), ("VolumeZone", None), ("PodTopologySpread", 2),
        ("InterPodAffinity", 1), ("DefaultPreemption", None), ("NodeResourcesBalancedAllocation", 1),
        ("ImageLocality", 1), ("NodeResourcesLeastAllocated", 1), ("NodePreferAvoidPods", 10000),
        ("DefaultBinder", None)]
V122 = [(n, 1 if n == "NodeResourcesFit" else w) for n, w in V120
        if n not in ("NodeResourcesLeastAllocated", "NodePreferAvoidPods")]
# multiPoint: VolumeBinding's Score (0 with its gates off) is enabled with weight 1.
V123 = [(n, {"TaintToleration": 3, "NodeAffinity": 2, "InterPodAffinity": 2, "VolumeBinding": 1}.get(n, w))
        for n, w in V122]
V127 = [("SchedulingGates", None), *V123]
# 1.32: the in-tree EBS, GCE PD and Azure Disk limits are gone (kubernetes#124003).
V132 = [(n, w) for n, w in V127 if n not in ("EBSLimits", "GCEPDLimits", "AzureDiskLimits")]


@pytest.mark.parametrize(("release", "gates", "expected"), [
    pytest.param("1.20", {}, V120, id="1.20"),
    pytest.param("1.21", {}, V120, id="1.21-as-1.20"),
    pytest.param("1.22", {}, V122, id="1.22-fit-scores-no-avoid-pods"),
    pytest.param("1.23", {}, V123, id="1.23-weights-3-2-2"),
    pytest.param("1.26", {}, V123, id="1.26-scheduling-gates-alpha-off"),
    pytest.param("1.26", {"PodSchedulingReadiness": True}, V127, id="1.26-gate-on"),
    pytest.param("1.27", {}, V127, id="1.27-scheduling-gates-beta-on"),
    pytest.param("1.27", {"PodSchedulingReadiness": False}, V123, id="1.27-gate-off"),
    pytest.param("1.31", {}, V127, id="1.31-in-tree-limits"),
    pytest.param("1.32", {}, V132, id="1.32-in-tree-limits-gone"),
    pytest.param("1.34", {}, V132, id="1.34"),
    pytest.param("1.35", {}, V132, id="1.35"),
])
def test_release_defaults(release, gates, expected):
    assert release_defaults(target(release, **gates)) == expected


def test_not_modelled_names_every_upstream_default_ruleset_leaves_out():
    assert sorted(NOT_MODELLED) == ["DynamicResources"]


def test_cluster_autoscaler_swaps_least_for_most_allocated():
    default = {c.name for c in load_profile("default-1.20").plugins}
    autoscaler = {c.name for c in load_profile("cluster-autoscaler").plugins}
    assert default - autoscaler == {"NodeResourcesLeastAllocated"}
    assert autoscaler - default == {"NodeResourcesMostAllocated"}


def test_cluster_autoscaler_1_35_is_default_with_most_allocated_scoring():
    default = {c.name: c for c in load_profile("default").plugins}
    autoscaler = {c.name: c for c in load_profile("cluster-autoscaler-1.35").plugins}
    assert list(default) == list(autoscaler)
    changed = [n for n in default if (default[n].weight, default[n].args) != (autoscaler[n].weight, autoscaler[n].args)]
    assert changed == ["NodeResourcesFit"]
    assert autoscaler["NodeResourcesFit"].args == {"scoringStrategy": {
        "type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}


def test_legacy_policy_has_the_13_priorities_with_their_weights():
    framework = Framework(load_profile("legacy-policy"), load_registry(), Handle())
    # 13 legacy priorities; ServiceSpreadingPriority maps onto SelectorSpread, as v1.20's registry does.
    assert {s.plugin: s.weight for s in framework.tables["ruleset_score"]} == {
        "NodeAffinity": 1, "TaintToleration": 1, "InterPodAffinity": 1, "SelectorSpread": 1,
        "NodeResourcesLeastAllocated": 1, "NodeResourcesBalancedAllocation": 1, "NodePreferAvoidPods": 10000,
        "ImageLocality": 1, "EqualPriority": 1, "NodeResourcesMostAllocated": 1,
        "RequestedToCapacityRatio": 1, "NodeResourceLimits": 1}


def _score(tmp_path, capsys, profile):
    pod = tmp_path / "pod.yaml"
    pod.write_text(WEB_POD)
    assert main(["score", "--profile", profile, "--pod", str(pod), "-o", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_legacy_policy_spreads_and_cluster_autoscaler_bin_packs(tmp_path, capsys):
    """On the demo cluster one more web pod goes to an empty general node in the zone with the
    fewest web pods under legacy-policy, and to the fullest compute node under cluster-autoscaler."""
    legacy = _score(tmp_path, capsys, "legacy-policy")
    autoscaler = _score(tmp_path, capsys, "cluster-autoscaler")
    assert legacy["selected"] == "gp-c-4"
    assert autoscaler["selected"] == "cpu-b-0"
    legacy_by_node = {n["name"]: n for n in legacy["nodes"]}
    auto_by_node = {n["name"]: n for n in autoscaler["nodes"]}
    # Spreading: no node scores higher on SelectorSpread than the chosen one (no web pod on it,
    # and its zone is among those with the fewest).
    spread = {name: n["scores"]["SelectorSpread"]["score"]
              for name, n in legacy_by_node.items() if n["scores"]}
    assert spread["gp-c-4"] == max(spread.values()) == 77
    # Bin-packing: the chosen node has the highest MostAllocated score of all feasible nodes.
    most = {name: n["scores"]["NodeResourcesMostAllocated"]["score"] for name, n in auto_by_node.items()
            if n["scores"]}
    assert most["cpu-b-0"] == max(most.values())
    least = {name: n["scores"]["NodeResourcesLeastAllocated"]["score"] for name, n in legacy_by_node.items()
             if n["scores"]}
    assert least["gp-c-4"] == max(least.values())
