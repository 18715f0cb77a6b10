"""Third-party plugins in ``export``: refused with a hint by default; with ``allow_third_party``
enabled per point with their weight and every arg (no apiVersion/kind), named in the header, and
imported back (with the package installed) as the same effective profile.

The package is faked (``gang 0.1.0``, plugins Gang and Quota, see helpers.gang_installed).
"""

import pytest

from ruleset.kubeconfig.exporter import export_profiles
from ruleset.kubeconfig.importer import import_config, render
from ruleset.kubeconfig.model import NOTE, RefusedError
from ruleset.profile.loader import load_profile
from tests.kubeconfig.helpers import effective, gang_installed

GANG = """\
name = "gang"
schedulerName = "gang"
[plugins.NodeUnschedulable]
[plugins.TaintToleration]
weight = 2
[plugins.Gang]
weight = 3
args = { permitWaitingTimeSeconds = 10 }
"""

#: Gang at a point in the middle of the order, Quota (args schema from the package's hook) too.
MIDDLE = """\
name = "middle"
schedulerName = "middle"
[plugins.NodeUnschedulable]
[plugins.Gang]
weight = 3
[plugins.Quota]
weight = 4
args = { limit = 5 }
[plugins.TaintToleration]
weight = 2
"""

HEADER = "# Third-party plugin Gang (gang 0.1.0): needs a kube-scheduler built with it.\n"
GANG_ARGS = """\
  pluginConfig:
  - name: Gang
    args:
      permitWaitingTimeSeconds: 10
      labelKey: pod-group
"""
EXPECTED = {
    "v1beta1": HEADER + """\
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: gang
  plugins:
    preFilter:
      disabled:
      - name: NodeResourcesFit
      - name: NodePorts
      - name: PodTopologySpread
      - name: InterPodAffinity
      - name: VolumeBinding
    filter:
      enabled:
      - name: Gang
      disabled:
      - name: NodeName
      - name: NodeAffinity
      - name: NodePorts
      - name: NodeResourcesFit
      - name: VolumeRestrictions
      - name: EBSLimits
      - name: GCEPDLimits
      - name: NodeVolumeLimits
      - name: AzureDiskLimits
      - name: VolumeBinding
      - name: VolumeZone
      - name: PodTopologySpread
      - name: InterPodAffinity
    postFilter:
      disabled:
      - name: DefaultPreemption
    preScore:
      disabled:
      - name: InterPodAffinity
      - name: PodTopologySpread
    score:
      enabled:
      - name: TaintToleration
        weight: 2
      - name: Gang
        weight: 3
      disabled:
      - name: NodeResourcesBalancedAllocation
      - name: ImageLocality
      - name: InterPodAffinity
      - name: NodeResourcesLeastAllocated
      - name: NodeAffinity
      - name: NodePreferAvoidPods
      - name: PodTopologySpread
      - name: TaintToleration
    reserve:
      disabled:
      - name: VolumeBinding
    permit:
      enabled:
      - name: Gang
    preBind:
      disabled:
      - name: VolumeBinding
""" + GANG_ARGS,
    # Not in multiPoint: kube-scheduler expands that by the Go plugin's interfaces. The profile
    # (Kubernetes 1.35) has no SchedulingGates: disabled; nor the in-tree volume-limit plugins,
    # which 1.35's defaults do not have (gone in 1.32), so nothing disables them.
    "v1": HEADER + """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: gang
  plugins:
    multiPoint:
      enabled:
      - name: TaintToleration
        weight: 2
      - name: PrioritySort
      - name: DefaultBinder
      disabled:
      - name: SchedulingGates
      - name: PrioritySort
      - name: NodeName
      - name: NodeAffinity
      - name: NodePorts
      - name: NodeResourcesFit
      - name: VolumeRestrictions
      - name: NodeVolumeLimits
      - name: VolumeBinding
      - name: VolumeZone
      - name: PodTopologySpread
      - name: InterPodAffinity
      - name: DefaultPreemption
      - name: NodeResourcesBalancedAllocation
      - name: ImageLocality
      - name: DefaultBinder
    filter:
      enabled:
      - name: Gang
    score:
      enabled:
      - name: Gang
        weight: 3
    permit:
      enabled:
      - name: Gang
""" + GANG_ARGS,
}


@pytest.fixture
def gang(monkeypatch):
    yield from gang_installed(monkeypatch)


def load(tmp_path, text, registry, version="v1beta1"):
    """The profile, at a release ``version`` expresses (v1beta1: the implicit 1.20; v1: 1.35)."""
    if version == "v1":
        text = text.replace("\n", '\nkubernetesVersion = "1.35"\n', 1)
    path = tmp_path / "p.toml"
    path.write_text(text)
    return load_profile(path, registry)


@pytest.mark.parametrize("version", sorted(EXPECTED))
def test_kept_with_weight_points_and_args(gang, tmp_path, version):
    exported = export_profiles([load(tmp_path, GANG, gang, version)], version, gang, allow_third_party=True)
    assert exported.issues == []
    assert exported.third_party == {"Gang": "gang 0.1.0"}
    assert exported.yaml(exported.third_party_lines()) == EXPECTED[version]


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
def test_refused_without_the_flag_with_the_hint(gang, tmp_path, version):
    profile = load(tmp_path, GANG, gang, version)
    with pytest.raises(RefusedError) as exc:
        export_profiles([profile], version, gang)
    assert [str(i) for i in exc.value.issues] == [
        f"{tmp_path / 'p.toml'}: plugin Gang: a third-party plugin (gang 0.1.0), not in kube-scheduler's "
        "in-tree registry (--allow-third-party keeps it, for a scheduler built with it)"
    ]
    lossy = export_profiles([profile], version, gang, allow_lossy=True)
    assert "Gang" not in lossy.yaml() and lossy.third_party == {}


def test_one_header_line_per_plugin_over_several_profiles(gang, tmp_path):
    profiles = [load(tmp_path, text, gang) for text in (GANG, MIDDLE)]
    exported = export_profiles(profiles, "v1beta1", gang, allow_third_party=True)
    assert exported.third_party_lines() == [
        "Third-party plugin Gang (gang 0.1.0): needs a kube-scheduler built with it.",
        "Third-party plugin Quota (gang 0.1.0): needs a kube-scheduler built with it.",
    ]
    # Args without defaults of their own (a dict, schema from the package's hook) are written as given;
    # a plugin whose args are all defaults still gets them all.
    assert exported.document["profiles"][1]["pluginConfig"] == [
        {"name": "Gang", "args": {"permitWaitingTimeSeconds": 60, "labelKey": "pod-group"}},
        {"name": "Quota", "args": {"limit": 5}},
    ]


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
@pytest.mark.parametrize("text", [GANG, MIDDLE], ids=["last", "middle"])
def test_import_with_the_package_installed_round_trips(gang, tmp_path, version, text):
    original = load(tmp_path, text, gang, version)
    config = tmp_path / "config.yaml"
    config.write_text(export_profiles([original], version, gang, allow_third_party=True).yaml())
    result = import_config(config, gang, kubernetes_version=str(original.target.version))
    third_party = sorted(n for n in ("Gang", "Quota") if n in text)
    assert [(i.severity, i.item, i.reason) for i in result.issues] == [
        (NOTE, f"plugin {name}", f"an out-of-tree plugin; using the installed ruleset plugin {name} (gang 0.1.0)")
        for name in third_party
    ]
    [imported] = result.profiles
    toml = tmp_path / "imported.toml"
    toml.write_text(render(imported))
    assert effective(load_profile(toml, gang), gang) == effective(original, gang)
