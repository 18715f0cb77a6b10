"""``export``: the configuration written, and everything refused, named with the reason."""

import pytest
import yaml

from ruleset.framework.plugin import Plugin
from ruleset.hookspecs import hookimpl
from ruleset.kubeconfig.exporter import export_profiles
from ruleset.kubeconfig.model import RefusedError
from ruleset.profile.loader import load_profile
from tests.factories import registry_with


def load(tmp_path, text, registry=None):
    path = tmp_path / "p.toml"
    path.write_text(text)
    return load_profile(path, registry)


def refused(profile, version="v1beta1", registry=None):
    with pytest.raises(RefusedError) as exc:
        export_profiles([profile], version, registry)
    return {i.item: i.reason for i in exc.value.issues}


def test_the_1_35_default_is_v1_s_default_configuration():
    doc = export_profiles([load_profile("default")], "v1").document
    assert doc == {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                   "profiles": [{"schedulerName": "default-scheduler"}]}


def test_default_profile_keeps_filter_and_defaults_it_does_not_model():
    doc = export_profiles([load_profile("default-1.20")], "v1beta1").document
    assert doc["apiVersion"] == "kubescheduler.config.k8s.io/v1beta1"
    [profile] = doc["profiles"]
    assert profile["schedulerName"] == "default-scheduler"
    plugins = profile["plugins"]
    # Filter, PostFilter, QueueSort, Bind and the volume plugins are kube-scheduler's defaults as they are.
    assert set(plugins) == {"preFilter", "preScore", "score"}
    # Score: ruleset runs its plugins in the profile's one order; the default order is disabled
    # and re-enabled in that order (the totals do not depend on it).
    assert [p["name"] for p in plugins["score"]["enabled"]] == [
        "NodeAffinity", "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation",
        "ImageLocality", "NodeResourcesLeastAllocated", "NodePreferAvoidPods",
    ]  # fmt: skip
    assert "pluginConfig" not in profile  # every arg is at its default


def test_args_are_written_with_kubernetes_names(tmp_path):
    profile = load(
        tmp_path,
        """
name = "web"
percentageOfNodesToScore = 40
extends = "default-1.20"
[plugins.NodeLabel]
args = { presentLabels = ["zone"], presentLabelsPreference = ["ssd"] }
[plugins.PodTopologySpread]
weight = 2
args = { defaultingType = "List" }
""",
    )
    doc = export_profiles([profile], "v1beta1").document
    assert doc["percentageOfNodesToScore"] == 40
    assert doc["profiles"][0]["pluginConfig"] == [
        {"name": "PodTopologySpread", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1beta1",
                                               "kind": "PodTopologySpreadArgs", "defaultingType": "List"}},
        {"name": "NodeLabel", "args": {"apiVersion": "kubescheduler.config.k8s.io/v1beta1",
                                       "kind": "NodeLabelArgs", "presentLabels": ["zone"],
                                       "presentLabelsPreference": ["ssd"]}},
    ]  # fmt: skip
    v1 = export_profiles(
        [
            load(
                tmp_path,
                'name = "w"\npercentageOfNodesToScore = 40\nextends = "default"\n',
            )
        ],
        "v1",
    ).document
    assert "percentageOfNodesToScore" not in v1
    assert v1["profiles"][0]["percentageOfNodesToScore"] == 40


def test_rules_and_extension_args_are_refused(tmp_path):
    profile = load(
        tmp_path,
        """
name = "x"
extends = "default-1.20"
[plugins.SelectorSpread]
args = { zoneWeighting = 0.5 }
[plugins.NodeResourcesBalancedAllocation]
args = { balanceAttachedNodeVolumes = true }
[[rules]]
name = "gpu"
require = "gpu=true"
""",
    )
    reasons = refused(profile)
    assert set(reasons) == {
        "rule 'gpu'",
        "plugin SelectorSpread args.zoneWeighting",
        "plugin NodeResourcesBalancedAllocation args.balanceAttachedNodeVolumes",
    }
    assert "KubeSchedulerConfiguration has no equivalent" in reasons["rule 'gpu'"]
    assert "behaves as 0.6666666666666666" in reasons["plugin SelectorSpread args.zoneWeighting"]
    lossy = export_profiles([profile], "v1beta1", allow_lossy=True)
    assert len(lossy.issues) == 3
    assert "Rules" not in yaml.safe_dump(lossy.document)


def test_default_extension_args_are_not_refused(tmp_path):
    profile = load(
        tmp_path,
        'name = "x"\nextends = "default-1.20"\n[plugins.SelectorSpread]\n'
        "args = { zoneWeighting = 0.6666666666666666 }\n",
    )
    assert export_profiles([profile], "v1beta1").issues == []


def test_plugins_outside_the_in_tree_registry_are_refused(tmp_path):
    class Spot(Plugin):
        name = "PreferSpot"

        @hookimpl
        def ruleset_score(self, nodes):
            return [0] * len(nodes)

    registry = registry_with(Spot)
    profile = load(
        tmp_path,
        'name = "x"\n[plugins.PreferSpot]\n[plugins.EqualPriority]\n'
        "[plugins.NodeResourceLimits]\n[plugins.NodeLabel]\n"
        'args = { presentLabelsPreference = ["a"] }\n',
        registry,
    )
    reasons = refused(profile, "v1beta1", registry)
    assert set(reasons) == {"plugin PreferSpot", "plugin EqualPriority", "plugin NodeResourceLimits"}
    assert "third-party" in reasons["plugin PreferSpot"]
    assert "never a framework plugin" in reasons["plugin EqualPriority"]
    # At 1.35 NodeLabel is gone from the profile itself (refused when it loads).
    v1 = load(
        tmp_path,
        'name = "x"\nkubernetesVersion = "1.35"\n[plugins.PreferSpot]\n[plugins.EqualPriority]\n'
        "[plugins.NodeResourceLimits]\n",
        registry,
    )
    assert set(refused(v1, "v1", registry)) == {"plugin PreferSpot", "plugin EqualPriority",
                                                "plugin NodeResourceLimits"}


def test_v1_scoring_strategy(tmp_path):
    profile = load(
        tmp_path,
        """
name = "pack"
kubernetesVersion = "1.34"
[plugins.NodeResourcesFit]
weight = 4
args = { scoringStrategy = { type = "MostAllocated", resources = [{ name = "cpu", weight = 2 }] } }
""",
    )
    doc = export_profiles([profile], "v1").document
    [fit] = doc["profiles"][0]["pluginConfig"]
    assert fit["args"]["scoringStrategy"] == {
        "type": "MostAllocated",
        "resources": [{"name": "cpu", "weight": 2}],
    }
    mp = doc["profiles"][0]["plugins"]["multiPoint"]
    assert {"name": "NodeResourcesFit", "weight": 4} in mp["enabled"]
