"""Merging each version's profiles with its defaults, as kube-scheduler does."""

import pytest

from ruleset.kubeconfig.merge import read_profiles
from ruleset.kubeconfig.model import INVALID, LOSSY
from ruleset.kubeconfig.versions import VERSIONS


def merged(doc, version):
    doc = {
        "apiVersion": f"kubescheduler.config.k8s.io/{version}",
        "kind": "KubeSchedulerConfiguration",
        **doc,
    }
    return read_profiles(doc, VERSIONS[version], "test.yaml")


def names(profile, point):
    return [n for n, _ in profile.points.get(point, [])]


def test_v1beta1_defaults_minus_disabled_then_enabled_appended():
    [p] = merged(
        {
            "profiles": [
                {
                    "plugins": {
                        "score": {
                            "disabled": [{"name": "NodeResourcesLeastAllocated"}, {"name": "ImageLocality"}],
                            "enabled": [
                                {"name": "NodeResourcesMostAllocated", "weight": 5},
                                {"name": "ImageLocality", "weight": 3},
                            ],
                        }
                    }
                }
            ]
        },
        "v1beta1",
    )
    assert p.name == "default-scheduler"
    assert p.points["score"] == [
        ("NodeResourcesBalancedAllocation", 1),
        ("InterPodAffinity", 1),
        ("NodeAffinity", 1),
        ("NodePreferAvoidPods", 10000),
        ("PodTopologySpread", 2),
        ("TaintToleration", 1),
        ("NodeResourcesMostAllocated", 5),
        ("ImageLocality", 3),
    ]
    assert names(p, "filter")[:3] == ["NodeUnschedulable", "NodeName", "TaintToleration"]
    assert p.issues == []


def test_v1beta1_star_and_the_reenable_without_disable_duplicate():
    [p] = merged(
        {
            "profiles": [
                {
                    "plugins": {
                        "filter": {
                            "disabled": [{"name": "*"}],
                            "enabled": [{"name": "NodeName"}, {"name": "NodeUnschedulable"}],
                        },
                        "score": {"enabled": [{"name": "ImageLocality", "weight": 2}]},
                    }
                }
            ]
        },
        "v1beta1",
    )
    assert names(p, "filter") == ["NodeName", "NodeUnschedulable"]
    [dup] = [i for i in p.issues if i.severity == INVALID]
    assert "ImageLocality" in dup.item and "twice at score" in dup.reason


def test_v1beta2_custom_enabled_default_replaces_it_in_place():
    [p] = merged(
        {
            "profiles": [
                {
                    "plugins": {
                        "score": {
                            "enabled": [
                                {"name": "ImageLocality", "weight": 7},
                                {"name": "NodeResourcesFit", "weight": 3},
                            ]
                        }
                    }
                }
            ]
        },
        "v1beta2",
    )
    assert p.points["score"][:4] == [
        ("NodeResourcesBalancedAllocation", 1),
        ("ImageLocality", 7),
        ("InterPodAffinity", 1),
        ("NodeResourcesFit", 3),
    ]


def test_v1_multipoint_expansion_overrides_order_and_weights():
    # The documentation's example: a specific Score entry overrides multiPoint and runs first.
    [p] = merged(
        {
            "profiles": [
                {
                    "plugins": {
                        "score": {"enabled": [{"name": "ImageLocality", "weight": 5}]},
                        "filter": {"disabled": [{"name": "NodeAffinity"}]},
                        "multiPoint": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]},
                    }
                }
            ]
        },
        "v1",
    )
    assert p.points["score"] == [
        ("ImageLocality", 5),
        ("TaintToleration", 3),
        ("NodeAffinity", 2),
        ("NodeResourcesFit", 1),
        ("VolumeBinding", None),
        ("PodTopologySpread", 2),
        ("InterPodAffinity", 2),
    ]
    assert "NodeAffinity" not in names(p, "filter")
    assert "NodeAffinity" in names(p, "preFilter")
    assert names(p, "preEnqueue") == ["SchedulingGates"]


def test_v1_star_skips_multipoint_at_that_point():
    [p] = merged({"profiles": [{"plugins": {"score": {"disabled": [{"name": "*"}]}}}]}, "v1")
    assert "score" not in p.points
    assert names(p, "preScore")  # only Score was disabled


def test_v1alpha1_single_profile_provider_preemption_and_renamed_points():
    [p] = merged(
        {
            "schedulerName": "ca",
            "algorithmSource": {"provider": "ClusterAutoscalerProvider"},
            "hardPodAffinitySymmetricWeight": 5,
            "plugins": {"postFilter": {"enabled": [{"name": "SelectorSpread"}]}},
        },
        "v1alpha1",
    )
    assert p.name == "ca"
    assert "NodeResourcesMostAllocated" in names(p, "score")
    assert "NodeResourcesLeastAllocated" not in names(p, "score")
    assert names(p, "postFilter") == ["DefaultPreemption"]  # built in before 1.19
    assert names(p, "preScore")[-1] == "SelectorSpread"  # v1alpha1's postFilter is 1.18's preScore
    assert p.args["InterPodAffinity"] == {"hardPodAffinityWeight": 5}


def test_v1alpha2_disable_preemption_and_unreserve():
    [p] = merged(
        {
            "disablePreemption": True,
            "profiles": [{"schedulerName": "a", "plugins": {"unreserve": {"enabled": [{"name": "Foo"}]}}}],
        },
        "v1alpha2",
    )
    assert "postFilter" not in p.points
    assert names(p, "reserve") == ["VolumeBinding", "Foo"]


def test_profile_names_and_process_fields():
    profiles = merged(
        {"extenders": [{"urlPrefix": "http://x"}], "profiles": [{"schedulerName": "a"}, {}]}, "v1beta1"
    )
    assert [i.severity for i in profiles[0].issues] == [LOSSY]
    assert any(i.item == "schedulerName" and i.severity == INVALID for i in profiles[1].issues)


@pytest.mark.parametrize(
    "bad",
    [
        {"plugins": {"nope": {}}},
        {"plugins": {"score": {"enabled": "x"}}},
        {"pluginConfig": [{"name": "A", "args": {"kind": "BArgs"}}]},
    ],
)
def test_invalid_shapes_are_reported(bad):
    [p] = merged({"profiles": [bad]}, "v1beta1")
    assert any(i.severity == INVALID for i in p.issues)
