"""The bundled profiles load, build, and behave as their names promise on the demo cluster."""

import json

import pytest

from ruleset.bundled import bundled_profile_names
from ruleset.cli import main
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
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


def test_bundled_profiles_are_the_three_documented_ones():
    assert bundled_profile_names() == ["cluster-autoscaler", "default", "legacy-policy"]


@pytest.mark.parametrize("name", bundled_profile_names())
def test_every_bundled_profile_builds(name):
    framework = Framework(load_profile(name), load_registry(), Handle())
    assert framework.tables["ruleset_queue_sort"][0].plugin == "PrioritySort"
    assert [s.plugin for s in framework.tables["ruleset_bind"]] == ["DefaultBinder"]


def test_default_is_the_v1_20_default_set():
    framework = Framework(load_profile("default"), load_registry(), Handle())
    assert [s.plugin for s in framework.tables["ruleset_filter"]] == [
        "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
        "PodTopologySpread", "InterPodAffinity"]
    assert {s.plugin: s.weight for s in framework.tables["ruleset_score"]} == {
        "TaintToleration": 1, "NodeAffinity": 1, "PodTopologySpread": 2, "InterPodAffinity": 1,
        "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1, "NodeResourcesLeastAllocated": 1,
        "NodePreferAvoidPods": 10000}
    assert [s.plugin for s in framework.tables["ruleset_post_filter"]] == ["DefaultPreemption"]


def test_cluster_autoscaler_swaps_least_for_most_allocated():
    default = {c.name for c in load_profile("default").plugins}
    autoscaler = {c.name for c in load_profile("cluster-autoscaler").plugins}
    assert default - autoscaler == {"NodeResourcesLeastAllocated"}
    assert autoscaler - default == {"NodeResourcesMostAllocated"}


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
