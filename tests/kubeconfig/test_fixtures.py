"""Importing real, published configurations (tests/kubeconfig/fixtures, each citing its source).

Every expected profile below is exact: plugin order, weights, points and args, and the release
it targets: the newest that read its apiVersion (v1alpha1 1.20, v1beta1 1.22, v1beta2 1.27,
v1beta3 1.28, v1 1.35, a Policy 1.22), unless ASKED names another. From 1.23 NodeResourcesFit
scores by its scoringStrategy; at 1.22 it could score too, so a v1beta1 profile says it does not.
The volume plugins are imported like any other, where kube-scheduler's Filter order puts them;
nothing is dropped.
"""

import json

import pytest

from ruleset.errors import RulesetError
from ruleset.kubeconfig.importer import check_imported, import_config
from ruleset.kubeconfig.model import DROPPED, INVALID, LOSSY, NOTE
from ruleset.pluginmanager import load_registry

#: The volume plugins of kube-scheduler's default profiles, in its Filter order (v1.20
#: ``getDefaultConfig``); 1.32 removed the in-tree limit plugins (EBSLimits, GCEPDLimits,
#: AzureDiskLimits), their volumes counted by NodeVolumeLimits through CSI migration.
VOLUME = {
    "VolumeRestrictions": {},
    "EBSLimits": {},
    "GCEPDLimits": {},
    "NodeVolumeLimits": {},
    "AzureDiskLimits": {},
    "VolumeBinding": {},
    "VolumeZone": {},
}
IN_TREE_LIMITS = ("EBSLimits", "GCEPDLimits", "AzureDiskLimits")
#: VolumeBinding has Score from 1.23 on (0 everywhere, its scoring gates off): a profile that
#: does not enable it there (v1beta2 at 1.23+, whose Score list only the VolumeCapacityPriority
#: gate adds it to; or Score disabled) runs it at every other point.
VOLUME_BINDING_NO_SCORE = {"points": ["filter", "reserve", "preBind"]}

# kube-scheduler 1.20's default profile (v1beta1), as ruleset runs it: one order that keeps
# Filter's order, the volume plugins after NodeResourcesFit as upstream filters.
DEFAULT_1_20 = {
    "PrioritySort": {},
    "NodeUnschedulable": {},
    "NodeName": {},
    "TaintToleration": {"weight": 1},
    "NodeAffinity": {"weight": 1},
    "NodePorts": {},
    "NodeResourcesFit": {},
    **VOLUME,
    "PodTopologySpread": {"weight": 2},
    "InterPodAffinity": {"weight": 1},
    "DefaultPreemption": {},
    "NodeResourcesBalancedAllocation": {"weight": 1},
    "ImageLocality": {"weight": 1},
    "NodeResourcesLeastAllocated": {"weight": 1},
    "NodePreferAvoidPods": {"weight": 10000},
    "DefaultBinder": {},
}
# The same read as kube-scheduler 1.22 reads v1beta1: NodeResourcesFit does not score.
DEFAULT_V1BETA1 = {k: ({"points": ["filter"]} if k == "NodeResourcesFit" else v) for k, v in DEFAULT_1_20.items()}
# v1beta2's defaults (1.22) read at 1.27: NodeResourcesFit scores (LeastAllocated), no
# NodePreferAvoidPods; VolumeBinding not at Score (only the VolumeCapacityPriority gate adds it).
DEFAULT_V1BETA2 = {
    k: {"NodeResourcesFit": {"weight": 1}, "VolumeBinding": VOLUME_BINDING_NO_SCORE}.get(k, v)
    for k, v in DEFAULT_1_20.items()
    if k not in ("NodeResourcesLeastAllocated", "NodePreferAvoidPods")
}
# v1beta3's defaults (multiPoint, 1.23): new weights; NodeResourcesFit scores itself, and
# VolumeBinding (weight 1, multiPoint's default).
DEFAULT_1_28 = {
    "PrioritySort": {},
    "NodeUnschedulable": {},
    "NodeName": {},
    "TaintToleration": {"weight": 3},
    "NodeAffinity": {"weight": 2},
    "NodePorts": {},
    "NodeResourcesFit": {"weight": 1},
    **VOLUME,
    "VolumeBinding": {"weight": 1},
    "PodTopologySpread": {"weight": 2},
    "InterPodAffinity": {"weight": 2},
    "DefaultPreemption": {},
    "NodeResourcesBalancedAllocation": {"weight": 1},
    "ImageLocality": {"weight": 1},
    "DefaultBinder": {},
}
# kube-scheduler 1.35's default profile (v1): SchedulingGates too, as the bundled default, and
# no in-tree volume-limit plugins (gone in 1.32).
DEFAULT_1_35 = {"SchedulingGates": {}, **{k: v for k, v in DEFAULT_1_28.items() if k not in IN_TREE_LIMITS}}
RELEASE = {"v1alpha1": "1.20", "v1beta1": "1.22", "v1beta2": "1.27", "v1beta3": "1.28", "v1": "1.35"}
NO_SCORE = {
    "SchedulingGates": {},
    "PrioritySort": {},
    "NodeUnschedulable": {},
    "NodeName": {},
    "TaintToleration": {"points": ["filter"]},
    "NodeAffinity": {"points": ["filter"]},
    "NodePorts": {},
    "NodeResourcesFit": {"points": ["filter"]},
    "VolumeRestrictions": {},
    "NodeVolumeLimits": {},
    "VolumeBinding": VOLUME_BINDING_NO_SCORE,
    "VolumeZone": {},
    "PodTopologySpread": {"points": ["filter"]},
    "InterPodAffinity": {"points": ["filter"]},
    "DefaultPreemption": {},
    "DefaultBinder": {},
}
ZONE = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}


def replace(base, name, table, after=None):
    """``base`` with plugin ``name``'s table replaced (or inserted after ``after``)."""
    out = {}
    for key, value in base.items():
        out[key] = table if key == name else value
        if key == after:
            out[name] = table
    return out


def profile(name, api, plugins, release=None, **extra):
    return {
        "name": name,
        "schedulerName": name,
        "description": f"kubescheduler.config.k8s.io/{api} profile {name!r}, imported by ruleset",
        "kubernetesVersion": release or RELEASE[api],
        **extra,
        "plugins": plugins,
    }


CASES = {
    # Printed by the kube-scheduler 1.29 the simulator was built with (see ASKED): all seven
    # volume plugins, SchedulingGates (listed last, preEnqueue only) first as in the bundled default.
    "simulator-default-v1.yaml": [
        profile("default-scheduler", "v1", {"SchedulingGates": {}, **DEFAULT_1_28}, release="1.29",
                percentageOfNodesToScore=0)
    ],
    "docs-multiple-profiles-v1.yaml": [
        profile("default-scheduler", "v1", DEFAULT_1_35),
        profile("no-scoring-scheduler", "v1", NO_SCORE),
    ],
    "docs-multipoint-disabled-score-v1.yaml": [profile("non-multipoint-scheduler", "v1", NO_SCORE)],
    "docs-custom-score-plugins-v1.yaml": [
        profile(
            "default-scheduler",
            "v1",
            {
                **{
                    k: v
                    for k, v in DEFAULT_1_35.items()
                    if k
                    not in (
                        "PodTopologySpread",
                        "InterPodAffinity",
                        "DefaultPreemption",
                        "NodeResourcesBalancedAllocation",
                        "ImageLocality",
                        "DefaultBinder",
                    )
                },
                # PodTopologySpread disabled at Score only: it still runs at PreFilter, Filter and PreScore.
                "PodTopologySpread": {"points": ["filter", "preScore"]},
                "InterPodAffinity": {"weight": 2},
                "DefaultPreemption": {},
                "NodeResourcesBalancedAllocation": {"weight": 1},
                "ImageLocality": {"weight": 1},
                "DefaultBinder": {},
            },
        )
    ],
    "docs-most-allocated-v1beta2.yaml": [
        profile(
            "default-scheduler",
            "v1beta2",
            replace(DEFAULT_V1BETA2, "NodeResourcesFit", {"weight": 1, "args": {"scoringStrategy": {
                "type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]}}}),
        )
    ],
    "docs-bin-packing-most-allocated-v1.yaml": [
        profile(
            "default-scheduler",
            "v1",
            replace(DEFAULT_1_35, "NodeResourcesFit", {"weight": 1, "args": {"scoringStrategy": {
                "type": "MostAllocated",
                "resources": [
                    {"name": "cpu", "weight": 1},
                    {"name": "memory", "weight": 1},
                    {"name": "intel.com/foo", "weight": 3},
                    {"name": "intel.com/bar", "weight": 3},
                ],
            }}}),
        )
    ],
    "docs-bin-packing-rtcr-v1.yaml": [
        profile(
            "default-scheduler",
            "v1",
            replace(DEFAULT_1_35, "NodeResourcesFit", {"weight": 1, "args": {"scoringStrategy": {
                "type": "RequestedToCapacityRatio",
                "resources": [{"name": "intel.com/foo", "weight": 3}, {"name": "intel.com/bar", "weight": 3}],
                "requestedToCapacityRatio": {
                    "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]},
            }}}),
        )
    ],
    "docs-topology-spread-list-v1.yaml": [
        profile(
            "default-scheduler",
            "v1",
            replace(
                DEFAULT_1_35,
                "PodTopologySpread",
                {"weight": 2, "args": {"defaultConstraints": [ZONE], "defaultingType": "List"}},
            ),
        )
    ],
    "docs-topology-spread-none-v1.yaml": [
        profile(
            "default-scheduler",
            "v1",
            replace(
                DEFAULT_1_35,
                "PodTopologySpread",
                {"weight": 2, "args": {"defaultConstraints": [], "defaultingType": "List"}},
            ),
        )
    ],
    # v1alpha1 is read with 1.18's defaults: its Filter order (VolumeRestrictions before
    # TaintToleration), SelectorSpread (then DefaultPodTopologySpread), and preemption built in.
    "docs-perf-tuning-v1alpha1.yaml": [
        profile(
            "default-scheduler",
            "v1alpha1",
            {
                "PrioritySort": {},
                "NodeUnschedulable": {},
                "NodeResourcesFit": {},
                "NodeName": {},
                "NodePorts": {},
                "NodeAffinity": {"weight": 1},
                "VolumeRestrictions": {},
                "TaintToleration": {"weight": 1},
                "EBSLimits": {},
                "GCEPDLimits": {},
                "NodeVolumeLimits": {},
                "AzureDiskLimits": {},
                # 1.18 ran it at PostBind too (a cache clean-up, DeletePodBindings), which 1.20's
                # plugin does not have: nothing a placement depends on is lost.
                "VolumeBinding": {},
                "VolumeZone": {},
                "PodTopologySpread": {"weight": 2},
                "InterPodAffinity": {"weight": 1},
                "DefaultPreemption": {},
                "NodeResourcesBalancedAllocation": {"weight": 1},
                "ImageLocality": {"weight": 1},
                "NodeResourcesLeastAllocated": {"weight": 1},
                "NodePreferAvoidPods": {"weight": 10000},
                "SelectorSpread": {"weight": 1},
                "DefaultBinder": {},
            },
            percentageOfNodesToScore=50,
        )
    ],
    "docs-my-scheduler-configmap-v1beta2.yaml": [
        profile(
            "my-scheduler",
            "v1beta2",
            DEFAULT_V1BETA2,
        )
    ],
    "deckhouse-v1beta1.yaml": [
        profile(
            "default-scheduler",
            "v1beta1",
            replace(DEFAULT_V1BETA1, "PodTopologySpread", {"weight": 2, "args": {"defaultConstraints": [ZONE]}}),
        )
    ],
    "scheduler-plugins-noderesourcetopology-configmap-v1beta1.yaml": [
        profile("topo-aware-scheduler", "v1beta1", DEFAULT_V1BETA1)
    ],
    "scheduler-plugins-noderesources-v1beta1.yaml": [
        profile(
            "default-scheduler",
            "v1beta1",
            {
                "PrioritySort": {},
                "NodeUnschedulable": {},
                "NodeName": {},
                "TaintToleration": {"points": ["filter", "preScore"]},
                "NodeAffinity": {"points": ["filter"]},
                "NodePorts": {},
                "NodeResourcesFit": {"points": ["filter"]},
                **VOLUME,
                "PodTopologySpread": {"points": ["filter", "preScore"]},
                "InterPodAffinity": {"points": ["filter", "preScore"]},
                "DefaultPreemption": {},
                "DefaultBinder": {},
            },
        )
    ],
    "scheduler-plugins-coscheduling-v1beta3.yaml": [
        profile(
            "default-scheduler", "v1beta3", {k: v for k, v in DEFAULT_1_28.items() if k != "PrioritySort"}
        )
    ],
}
#: The release a fixture is imported at when not the newest that read its apiVersion: the
#: simulator's printout names EBSLimits, GCEPDLimits and AzureDiskLimits, which kube-scheduler
#: 1.32+ does not have (see test_in_tree_volume_limits_are_refused_from_1_32); its commit builds
#: kube-scheduler 1.29 (simulator/go.mod: k8s.io/kubernetes v1.29.3).
ASKED = {"simulator-default-v1.yaml": "1.29"}
#: The items each fixture cannot bring over (refused without --allow-lossy).
LOST = {
    "docs-custom-score-plugins-v1.yaml": {"plugin MyCustomPluginA", "plugin MyCustomPluginB"},
    "docs-multipoint-disabled-score-v1.yaml": {"plugin MyPlugin"},
    "scheduler-plugins-noderesourcetopology-configmap-v1beta1.yaml": {"plugin NodeResourceTopologyMatch"},
    "scheduler-plugins-noderesources-v1beta1.yaml": {"plugin NodeResourcesAllocatable"},
    "scheduler-plugins-coscheduling-v1beta3.yaml": {"plugin Coscheduling"},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_imported_profiles_are_exact(name, fixture):
    result = import_config(fixture(name), kubernetes_version=ASKED.get(name))
    assert [p.data for p in result.profiles] == CASES[name]
    lost = {i.item for i in result.issues if i.severity == LOSSY}
    assert lost == LOST.get(name, set())
    assert not [i for i in result.issues if i.severity not in (LOSSY, DROPPED, NOTE)]
    for imported in result.profiles:
        assert check_imported(imported, load_registry()) == []
        assert [i for i in imported.issues if i.severity == DROPPED] == []


@pytest.mark.parametrize("release", ["1.32", "1.35"])
def test_in_tree_volume_limits_are_refused_from_1_32(fixture, release):
    """kube-scheduler 1.32 dropped the in-tree limit plugins from its registry: a configuration
    naming them no longer starts it ("... does not exist"), so the import says it is invalid."""
    [p] = import_config(fixture("simulator-default-v1.yaml"), kubernetes_version=release).profiles
    assert [(i.severity, i.item, i.reason) for i in p.issues] == [
        (INVALID, f"plugin {name}",
         f"not a plugin of kubescheduler.config.k8s.io/v1 (kube-scheduler {release} refuses this configuration)")
        for name in ("EBSLimits", "GCEPDLimits", "AzureDiskLimits")
    ]
    assert [n for n in p.data["plugins"] if n in VOLUME] == [
        "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone"]


def test_the_configmap_is_found_among_other_objects(fixture):
    result = import_config(fixture("docs-my-scheduler-configmap-v1beta2.yaml"))
    assert result.skipped == {"ServiceAccount": 1, "ClusterRoleBinding": 2, "Deployment": 1}
    assert (
        "ConfigMap kube-system/my-scheduler-config, data key 'my-scheduler-config.yaml'"
        in result.profiles[0].where
    )


def test_the_legacy_policy_json(fixture):
    [p] = import_config(fixture("kubernetes-scheduler-policy-config.json")).profiles
    # predicateOrdering: CheckNodeUnschedulable (mandatory), HostName, PodFitsHostPorts (PodFitsPorts),
    # MatchNodeSelector, PodFitsResources, NoDiskConflict (VolumeRestrictions), PodToleratesNodeTaints
    # (mandatory); priorities sorted by name; ServiceSpreadingPriority is SelectorSpreadPriority,
    # which 1.20 maps to PodTopologySpread's System defaulting; EqualPriority is skipped.
    assert p.data["plugins"] == {
        "PrioritySort": {},
        "NodeUnschedulable": {},
        "NodeName": {},
        "NodePorts": {},
        "NodeAffinity": {"points": ["filter"]},
        "NodeResourcesFit": {"points": ["filter"]},
        "VolumeRestrictions": {},
        "TaintToleration": {"points": ["filter"]},
        "DefaultPreemption": {},
        "NodeResourcesBalancedAllocation": {"weight": 1},
        "NodeResourcesLeastAllocated": {"weight": 1},
        "PodTopologySpread": {"weight": 1, "points": ["score"]},
        "DefaultBinder": {},
    }
    assert {(i.severity, i.item) for i in p.issues} == {(NOTE, "priorities[3]: EqualPriority")}


def test_json_configuration(tmp_path, fixture):
    import yaml

    text = fixture("docs-multiple-profiles-v1.yaml").read_text()
    path = tmp_path / "config.json"
    path.write_text(json.dumps(yaml.safe_load(text)))
    assert [p.data for p in import_config(path).profiles] == CASES["docs-multiple-profiles-v1.yaml"]


@pytest.mark.parametrize(("asked", "release", "scorer"), [
    pytest.param(None, "1.27", "NodeResourcesFit", id="newest-reader-1.27"),
    pytest.param("1.23", "1.23", "NodeResourcesFit", id="1.23-fit-scores-itself"),
    pytest.param("1.22", "1.22", "NodeResourcesMostAllocated", id="1.22-separate-plugin"),
])
def test_kubernetes_version_chooses_the_release(fixture, asked, release, scorer):
    [p] = import_config(fixture("docs-most-allocated-v1beta2.yaml"), kubernetes_version=asked).profiles
    assert p.data["kubernetesVersion"] == release
    assert p.data["plugins"][scorer]["weight"] == 1
    assert check_imported(p, load_registry()) == []


@pytest.mark.parametrize(("asked", "message"), [
    ("1.28", "Kubernetes 1.28 does not read kubescheduler.config.k8s.io/v1beta2 (read by 1.22 to 1.27): choose a "
             "release in that range, or leave --kubernetes-version out"),
    ("1.21", "Kubernetes 1.21 does not read kubescheduler.config.k8s.io/v1beta2 (read by 1.22 to 1.27): choose a "
             "release in that range, or leave --kubernetes-version out"),
    ("1.36", "Kubernetes 1.36 is not supported: ruleset models 1.20 to 1.35"),
])
def test_a_release_that_did_not_read_the_configuration_is_refused(fixture, asked, message):
    with pytest.raises(RulesetError) as refused:
        import_config(fixture("docs-most-allocated-v1beta2.yaml"), kubernetes_version=asked)
    assert [p.message for p in refused.value.problems] == [message]
