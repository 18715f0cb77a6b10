"""Export then import is lossless for everything the version can express, and so is import
then export of v1 configurations (at the newest release, or the one a fixture was printed by).

"The same effective profile": per extension point the same plugins in the same order, the
same Score weights, and the same args once defaults are filled in (see conftest.effective).
A profile exports only to a version its release reads (v1beta1: 1.20-1.22, v1: 1.25 on); the
import is told the profile's release (without it, it takes the newest release that read the
version: 1.22 for v1beta1).
"""

from pathlib import Path

import pytest
import yaml

from ruleset import bundled
from ruleset.kubeconfig.exporter import export_profiles
from ruleset.kubeconfig.importer import import_config, render
from ruleset.kubeconfig.merge import read_profiles
from ruleset.kubeconfig.model import INVALID, LOSSY, RefusedError
from ruleset.kubeconfig.versions import VERSIONS
from ruleset.pluginmanager import load_registry
from ruleset.profile.loader import load_profile
from tests.kubeconfig.helpers import effective

FIXTURES = Path(__file__).parent / "fixtures"

#: The version each bundled profile's release is read with, and what the profile cannot bring
#: to it (refused unless --allow-lossy).
REFUSED = {
    ("default-1.20", "v1beta1"): set(),
    ("cluster-autoscaler", "v1beta1"): set(),
    ("legacy-policy", "v1beta1"): {"plugin EqualPriority", "plugin NodeResourceLimits"},
    ("default", "v1"): set(),
    ("cluster-autoscaler-1.35", "v1"): set(),
}


def round_trip(profile, version, tmp_path, allow_lossy=False):
    registry = load_registry()
    exported = export_profiles([profile], version, registry, allow_lossy=allow_lossy)
    config = tmp_path / f"{profile.name}-{version}.yaml"
    config.write_text(exported.yaml())
    result = import_config(config, registry, kubernetes_version=str(profile.target.version))
    assert [i for i in result.issues if i.severity in (LOSSY, "invalid")] == []
    [imported] = result.profiles
    # The profile's schedulerName goes there and back (the profile name is not exported).
    assert imported.data["schedulerName"] == profile.scheduler_name
    toml = tmp_path / f"{profile.name}-{version}.toml"
    toml.write_text(render(imported))
    reimported = load_profile(toml, registry)
    assert reimported.scheduler_name == profile.scheduler_name
    assert reimported.target.version == profile.target.version
    return exported, reimported


def assert_same(original, reimported, dropped=()):
    registry = load_registry()
    points, args = effective(original, registry)
    points = {p: [e for e in items if e[0] not in dropped] for p, items in points.items()}
    args = {n: a for n, a in args.items() if n not in dropped}
    assert effective(reimported, registry) == (points, args)
    assert reimported.percentage_of_nodes_to_score == original.percentage_of_nodes_to_score


def test_every_bundled_profile_has_a_version():
    assert sorted(name for name, _ in REFUSED) == bundled.bundled_profile_names()


@pytest.mark.parametrize(("name", "version"), sorted(REFUSED))
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


@pytest.mark.parametrize(("name", "version", "message"), [
    pytest.param("default-1.20", "v1", "targets Kubernetes 1.20, and kubescheduler.config.k8s.io/v1 is read by "
                 "1.25 to 1.35: export it with --api-version v1beta1, or set kubernetesVersion to a release in "
                 "that range", id="1.20-to-v1"),
    pytest.param("default", "v1beta1", "targets Kubernetes 1.35, and kubescheduler.config.k8s.io/v1beta1 is "
                 "read by 1.20 to 1.22: export it with --api-version v1, or set kubernetesVersion to a release "
                 "in that range", id="1.35-to-v1beta1"),
])
def test_a_release_the_version_cannot_express_is_refused_even_when_lossy(name, version, message):
    for lossy in (False, True):
        with pytest.raises(RefusedError) as refused:
            export_profiles([load_profile(name)], version, allow_lossy=lossy)
        [issue] = refused.value.issues
        assert (issue.severity, issue.item, issue.reason) == (INVALID, f"profile {name!r}", message)


def test_a_profile_without_kubernetes_version_is_1_20_and_says_so(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text('name = "p"\n[plugins.PrioritySort]\n[plugins.NodeName]\n[plugins.DefaultBinder]\n')
    with pytest.raises(RefusedError) as refused:
        export_profiles([load_profile(path)], "v1")
    assert "targets Kubernetes 1.20 (it sets no kubernetesVersion), and" in refused.value.issues[0].reason


PROFILES = {
    "odd-order": """
name = "odd-order"
kubernetesVersion = "1.20"
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
#: The same profiles at Kubernetes 1.35, as v1 spells them (NodeResourcesFit's scoringStrategy).
PROFILES_1_35 = {
    "odd-order": """
name = "odd-order"
kubernetesVersion = "1.35"
percentageOfNodesToScore = 30
[plugins.NodeName]
[plugins.NodeUnschedulable]
[plugins.NodeResourcesFit]
weight = 5
[plugins.NodeResourcesFit.args]
ignoredResources = ["example.com/ignored"]
ignoredResourceGroups = ["example.org"]
scoringStrategy = { type = "MostAllocated", resources = [{ name = "cpu", weight = 3 }, { name = "example.com/gpu", weight = 2 }] }
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
[plugins.NodeResourcesBalancedAllocation]
weight = 2
args = { resources = [{ name = "cpu", weight = 1 }, { name = "example.com/gpu", weight = 1 }] }
[plugins.DefaultPreemption]
args = { minCandidateNodesPercentage = 20, minCandidateNodesAbsolute = 5 }
[plugins.TaintToleration]
weight = 2
""",
    "rtcr": """
name = "rtcr"
kubernetesVersion = "1.35"
[plugins.TaintToleration]
points = ["score"]
weight = 3
[plugins.NodeResourcesFit]
weight = 2
[plugins.NodeResourcesFit.args.scoringStrategy]
type = "RequestedToCapacityRatio"
resources = [{ name = "cpu", weight = 1 }]
requestedToCapacityRatio = { shape = [{ utilization = 0, score = 0 }, { utilization = 100, score = 10 }] }
[plugins.NodeAffinity]
args = { addedAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = [
  { matchExpressions = [{ key = "pool", operator = "In", values = ["a", "b"] }] }] } } }
""",
    "gates-off": """
name = "gates-off"
kubernetesVersion = "1.35"
extends = "default"
[plugins.SchedulingGates]
enabled = false
[plugins.NodeAffinity]
weight = 5
""",
}
V1BETA1_ONLY = {
    "labels": """
name = "labels"
extends = "default-1.20"
[plugins.NodeLabel]
weight = 2
args = { presentLabels = ["zone"], presentLabelsPreference = ["ssd"], absentLabelsPreference = ["spot"] }
[plugins.SelectorSpread]
weight = 3
[plugins.NodePreferAvoidPods]
enabled = false
""",
}


@pytest.mark.parametrize(("version", "profiles"), [("v1beta1", PROFILES), ("v1", PROFILES_1_35)])
@pytest.mark.parametrize("name", ["odd-order", "rtcr"])
def test_custom_profiles_round_trip(name, version, profiles, tmp_path):
    path = tmp_path / f"{name}.toml"
    path.write_text(profiles[name])
    profile = load_profile(path)
    _, reimported = round_trip(profile, version, tmp_path)
    assert_same(profile, reimported)


def test_a_1_35_profile_without_scheduling_gates_round_trips(tmp_path):
    path = tmp_path / "gates-off.toml"
    path.write_text(PROFILES_1_35["gates-off"])
    profile = load_profile(path)
    exported, reimported = round_trip(profile, "v1", tmp_path)
    assert exported.document["profiles"][0]["plugins"] == {"multiPoint": {
        "enabled": [{"name": "NodeAffinity", "weight": 5}], "disabled": [{"name": "SchedulingGates"}]}}
    assert_same(profile, reimported)


# ------------------------------------------------------------------ import, then export (v1)
#: The v1 fixtures whose every plugin ruleset has (the others name out-of-tree plugins), each
#: with the release it is imported at: the newest, but the simulator's printout at the 1.29 it was
#: printed by, as it names the in-tree volume-limit plugins 1.32 removed.
V1_FIXTURES = [("docs-bin-packing-most-allocated-v1.yaml", "1.35"), ("docs-bin-packing-rtcr-v1.yaml", "1.35"),
               ("docs-multiple-profiles-v1.yaml", "1.35"), ("docs-topology-spread-list-v1.yaml", "1.35"),
               ("docs-topology-spread-none-v1.yaml", "1.35"), ("simulator-default-v1.yaml", "1.29")]


def _runs(doc, release):
    """What kube-scheduler ``release`` runs for each profile of a v1 document: per point the
    plugins with their Score weights."""
    runs = {}
    for up in read_profiles(doc, VERSIONS["v1"].for_release(release), ""):
        runs[up.name] = {p: items for p, items in up.points.items() if items}
    return runs


@pytest.mark.parametrize(("name", "release"), V1_FIXTURES)
def test_v1_configurations_of_the_newest_release_round_trip(name, release, tmp_path):
    """Import (as ``release``), export as v1: kube-scheduler merges the result into what it merged
    the original into, and importing the result gives profiles that run the same again."""
    registry = load_registry()
    first = import_config(FIXTURES / name, registry, kubernetes_version=release)
    assert [i for i in first.issues if i.severity in (LOSSY, INVALID)] == []
    assert {p.data["kubernetesVersion"] for p in first.profiles} == {release}
    profiles = _loaded(first, tmp_path / "first", registry)
    exported = export_profiles(profiles, "v1", registry)
    assert exported.issues == []
    out = tmp_path / "exported.yaml"
    out.write_text(exported.yaml())
    original = [d for d in yaml.safe_load_all((FIXTURES / name).read_text()) if isinstance(d, dict)]
    [doc] = [d for d in original if d.get("kind") == "KubeSchedulerConfiguration"]
    assert _runs(exported.document, release) == _runs(doc, release)
    second = _loaded(import_config(out, registry, kubernetes_version=release), tmp_path / "second", registry)
    assert [effective(p, registry) for p in second] == [effective(p, registry) for p in profiles]
    assert [(p.scheduler_name, p.target, p.percentage_of_nodes_to_score) for p in second] == [
        (p.scheduler_name, p.target, p.percentage_of_nodes_to_score) for p in profiles]


def _loaded(result, folder, registry):
    folder.mkdir()
    out = []
    for imported in result.profiles:
        path = folder / f"{imported.name}.toml"
        path.write_text(render(imported))
        out.append(load_profile(path, registry))
    return out


@pytest.mark.parametrize("name", sorted(V1BETA1_ONLY))
def test_v1beta1_only_profiles_round_trip(name, tmp_path):
    path = tmp_path / f"{name}.toml"
    path.write_text(V1BETA1_ONLY[name])
    profile = load_profile(path)
    _, reimported = round_trip(profile, "v1beta1", tmp_path)
    assert_same(profile, reimported)
