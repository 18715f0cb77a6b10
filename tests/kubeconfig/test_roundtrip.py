"""Export then import is lossless for everything the version can express.

"The same effective profile": per extension point the same plugins in the same order, the
same Score weights, and the same args once defaults are filled in (see conftest.effective).
"""

import pytest

from ruleset import bundled
from ruleset.kubeconfig.exporter import export_profiles
from ruleset.kubeconfig.importer import import_config, render
from ruleset.kubeconfig.model import LOSSY, RefusedError
from ruleset.pluginmanager import load_registry
from ruleset.profile.loader import load_profile
from tests.kubeconfig.helpers import effective

#: What each bundled profile cannot bring to each version (refused unless --allow-lossy).
REFUSED = {
    ("default", "v1beta1"): set(),
    ("cluster-autoscaler", "v1beta1"): set(),
    ("legacy-policy", "v1beta1"): {"plugin EqualPriority", "plugin NodeResourceLimits"},
    ("default", "v1"): {"plugin NodePreferAvoidPods"},
    ("cluster-autoscaler", "v1"): {"plugin NodePreferAvoidPods"},
    ("legacy-policy", "v1"): {
        "plugin SelectorSpread",
        "plugin NodePreferAvoidPods",
        "plugin EqualPriority",
        "plugin NodeResourceLimits",
        # NodeResourcesFit has one scoringStrategy: LeastAllocated (first in the profile) wins.
        "plugin NodeResourcesMostAllocated",
        "plugin RequestedToCapacityRatio",
    },
}


def round_trip(profile, version, tmp_path, allow_lossy=False):
    registry = load_registry()
    exported = export_profiles([profile], version, registry, allow_lossy=allow_lossy)
    config = tmp_path / f"{profile.name}-{version}.yaml"
    config.write_text(exported.yaml())
    result = import_config(config, registry)
    assert [i for i in result.issues if i.severity in (LOSSY, "invalid")] == []
    [imported] = result.profiles
    # The profile's schedulerName goes there and back (the profile name is not exported).
    assert imported.data["schedulerName"] == profile.scheduler_name
    toml = tmp_path / f"{profile.name}-{version}.toml"
    toml.write_text(render(imported))
    reimported = load_profile(toml, registry)
    assert reimported.scheduler_name == profile.scheduler_name
    return exported, reimported


def assert_same(original, reimported, dropped=()):
    registry = load_registry()
    points, args = effective(original, registry)
    points = {p: [e for e in items if e[0] not in dropped] for p, items in points.items()}
    args = {n: a for n, a in args.items() if n not in dropped}
    assert effective(reimported, registry) == (points, args)
    assert reimported.percentage_of_nodes_to_score == original.percentage_of_nodes_to_score


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
@pytest.mark.parametrize("name", bundled.bundled_profile_names())
def test_every_bundled_profile_round_trips(name, version, tmp_path):
    profile = load_profile(name)
    expected = REFUSED[(name, version)]
    if expected:
        with pytest.raises(RefusedError) as refused:
            export_profiles([profile], version)
        assert {i.item for i in refused.value.issues} == expected
    exported, reimported = round_trip(profile, version, tmp_path, allow_lossy=True)
    assert {i.item for i in exported.issues} == expected
    assert_same(profile, reimported, dropped={item.split()[1] for item in expected})


PROFILES = {
    "odd-order": """
name = "odd-order"
percentageOfNodesToScore = 30
[plugins.NodeName]
[plugins.NodeUnschedulable]
[plugins.NodeResourcesMostAllocated]
weight = 5
args = { resources = [{ name = "cpu", weight = 3 }, { name = "example.com/gpu", weight = 2 }] }
[plugins.NodeResourcesFit]
args = { ignoredResources = ["example.com/ignored"], ignoredResourceGroups = ["example.org"] }
[plugins.InterPodAffinity]
weight = 7
points = ["filter"]
args = { hardPodAffinityWeight = 0 }
[plugins.PodTopologySpread]
weight = 4
points = ["score"]
args = { defaultingType = "List", defaultConstraints = [
  { maxSkew = 2, topologyKey = "topology.kubernetes.io/zone", whenUnsatisfiable = "ScheduleAnyway" }] }
[plugins.ImageLocality]
weight = 9
[plugins.DefaultPreemption]
args = { minCandidateNodesPercentage = 20, minCandidateNodesAbsolute = 5 }
[plugins.TaintToleration]
weight = 2
""",
    "rtcr": """
name = "rtcr"
[plugins.TaintToleration]
points = ["score"]
weight = 3
[plugins.RequestedToCapacityRatio]
weight = 2
args = { shape = [{ utilization = 0, score = 0 }, { utilization = 100, score = 10 }] }
[plugins.NodeResourcesFit]
[plugins.NodeAffinity]
args = { addedAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = [
  { matchExpressions = [{ key = "pool", operator = "In", values = ["a", "b"] }] }] } } }
""",
}
V1BETA1_ONLY = {
    "labels": """
name = "labels"
extends = "default"
[plugins.NodeLabel]
weight = 2
args = { presentLabels = ["zone"], presentLabelsPreference = ["ssd"], absentLabelsPreference = ["spot"] }
[plugins.SelectorSpread]
weight = 3
[plugins.NodePreferAvoidPods]
enabled = false
""",
}


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
@pytest.mark.parametrize("name", sorted(PROFILES))
def test_custom_profiles_round_trip(name, version, tmp_path):
    path = tmp_path / f"{name}.toml"
    path.write_text(PROFILES[name])
    profile = load_profile(path)
    _, reimported = round_trip(profile, version, tmp_path)
    assert_same(profile, reimported)


@pytest.mark.parametrize("name", sorted(V1BETA1_ONLY))
def test_v1beta1_only_profiles_round_trip(name, tmp_path):
    path = tmp_path / f"{name}.toml"
    path.write_text(V1BETA1_ONLY[name])
    profile = load_profile(path)
    _, reimported = round_trip(profile, "v1beta1", tmp_path)
    assert_same(profile, reimported)
