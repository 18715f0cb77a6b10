"""The legacy Policy, mapped through kube-scheduler 1.20's legacy registry."""

from ruleset.kubeconfig.importer import translate
from ruleset.kubeconfig.legacy import read_policy
from ruleset.kubeconfig.model import INVALID, LOSSY, NOTE
from ruleset.pluginmanager import load_registry


def names(profile, point):
    return [n for n, _ in profile.points.get(point, [])]


def test_no_predicates_or_priorities_means_the_defaults():
    p = read_policy({"kind": "Policy", "apiVersion": "v1"}, "policy.json")
    assert names(p, "filter") == [
        "NodeUnschedulable", "NodeResourcesFit", "NodeName", "NodePorts", "NodeAffinity",
        "VolumeRestrictions", "TaintToleration", "EBSLimits", "GCEPDLimits", "NodeVolumeLimits",
        "AzureDiskLimits", "VolumeBinding",
        "VolumeZone", "PodTopologySpread", "InterPodAffinity",
    ]  # fmt: skip
    # Priorities sorted by name; appendToPluginSet keeps the larger weight
    # (EvenPodsSpreadPriority 2 > SelectorSpreadPriority 1).
    assert p.points["score"] == [
        ("NodeResourcesBalancedAllocation", 1), ("PodTopologySpread", 2), ("ImageLocality", 1),
        ("InterPodAffinity", 1), ("NodeResourcesLeastAllocated", 1), ("NodeAffinity", 1),
        ("NodePreferAvoidPods", 10000), ("TaintToleration", 1),
    ]  # fmt: skip
    assert p.args["PodTopologySpread"] == {"defaultingType": "System"}  # SelectorSpreadPriority wins


def test_empty_lists_keep_only_the_mandatory_predicates():
    p = read_policy({"predicates": [], "priorities": []}, "policy.json")
    assert names(p, "filter") == ["NodeUnschedulable", "TaintToleration"]
    assert "score" not in p.points


def test_argument_forms():
    p = read_policy(
        {
            "predicates": [
                {"name": "zone", "argument": {"labelsPresence": {"labels": ["zone"], "presence": True}}},
                {"name": "nospot", "argument": {"labelsPresence": {"labels": ["spot"], "presence": False}}},
            ],
            "priorities": [
                {
                    "name": "ssd",
                    "weight": 2,
                    "argument": {"labelPreference": {"label": "ssd", "presence": True}},
                },
                {
                    "name": "old",
                    "weight": 2,
                    "argument": {"labelPreference": {"label": "old", "presence": False}},
                },
                {
                    "name": "pack",
                    "weight": 3,
                    "argument": {
                        "requestedToCapacityRatioArguments": {
                            "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}],
                            "resources": [{"name": "cpu", "weight": 2}],
                        }
                    },
                },
                {"name": "InterPodAffinityPriority", "weight": 1},
                {"name": "EvenPodsSpreadPriority", "weight": 4},
                {"name": "spread", "weight": 1, "argument": {"serviceAntiAffinity": {"label": "rack"}}},
            ],
            "hardPodAffinitySymmetricWeight": 10,
        },
        "policy.yaml",
    )
    assert p.args["NodeLabel"] == {
        "presentLabels": ["zone"],
        "absentLabels": ["spot"],
        "presentLabelsPreference": ["ssd"],
        "absentLabelsPreference": ["old"],
    }
    assert ("NodeLabel", 4) in p.points["score"]  # weight × number of preference labels
    assert p.args["RequestedToCapacityRatio"] == {
        "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}],
        "resources": [{"name": "cpu", "weight": 2}]}  # fmt: skip
    assert ("RequestedToCapacityRatio", 3) in p.points["score"]
    assert p.args["InterPodAffinity"] == {"hardPodAffinityWeight": 10}
    assert p.args["PodTopologySpread"] == {"defaultingType": "List"}  # EvenPodsSpreadPriority alone
    imported = translate(p, load_registry())
    assert {(i.severity, i.item) for i in imported.issues if i.severity == LOSSY} == {
        (LOSSY, "plugin ServiceAffinity")
    }
    plugins = imported.data["plugins"]
    assert plugins["NodeLabel"]["weight"] == 4
    assert plugins["InterPodAffinity"]["args"] == {"hardPodAffinityWeight": 10}


def test_invalid_entries_are_reported():
    p = read_policy(
        {
            "predicates": [{"name": "CheckNodeMemoryPressure"}],
            "priorities": [{"name": "LeastRequestedPriority", "weight": 0}, {"name": "Nope", "weight": 1}],
        },
        "policy.json",
    )
    assert {(i.severity, i.item) for i in p.issues} == {
        (INVALID, "predicates[0]: CheckNodeMemoryPressure"),
        (INVALID, "priorities[0]: LeastRequestedPriority"),
        (INVALID, "priorities[1]: Nope")}  # fmt: skip


def test_1_18_priorities_are_accepted_with_a_note():
    p = read_policy(
        {
            "priorities": [
                {"name": "ResourceLimitsPriority", "weight": 1},
                {"name": "RequestedToCapacityRatioPriority", "weight": 2},
            ]
        },
        "p.json",
    )
    assert [i.severity for i in p.issues] == [NOTE, NOTE]
    assert ("NodeResourceLimits", 1) in p.points["score"]
    assert p.args["RequestedToCapacityRatio"]["shape"][0] == {"utilization": 0, "score": 10}
