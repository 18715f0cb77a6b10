"""The built-in plugins' PreFilter Skip, each at the release before its switch and from it on.

Upstream (``pkg/scheduler/framework/plugins``), the condition under which PreFilter returns
``framework.NewStatus(framework.Skip)``; the framework (from 1.27) then records the plugin in
``CycleState.SkipFilterPlugins`` and runs neither its Filter nor its AddPod/RemovePod:

* NodeAffinity, ``nodeaffinity/node_affinity.go`` (kubernetes#114125, 1.27): no required node
  affinity (affinity, nodeAffinity or requiredDuringScheduling... nil), no ``addedAffinity``
  required terms and ``pod.Spec.NodeSelector == nil``. Its PreFilter itself dates from 1.21
  (kubernetes#99213). An empty ``nodeSelector: {}`` skips here (a decoded pod cannot tell it
  from none, see the plugin's docstring). Left out: its ``PreFilterResult`` (1.24 on) and the
  "pod affinity terms conflict" refusal, which the framework cannot express.
* NodePorts, ``nodeports/node_ports.go`` (kubernetes#118271, 1.28): no container port with a
  host port > 0.
* PodTopologySpread, ``podtopologyspread/filtering.go`` (kubernetes#117683, 1.28): no hard
  (DoNotSchedule) constraint, the pod's own or, when it has none, the defaults (which need a
  Service or controller selecting the pod).
* NodeVolumeLimits, ``nodevolumelimits/csi.go``, and EBSLimits/GCEPDLimits/AzureDiskLimits/
  CinderLimits, ``non_csi.go`` (kubernetes#115398, 1.28; both gain the PreFilter point then):
  no volume with ``persistentVolumeClaim`` or ``ephemeral``, nor an inline in-tree source
  (CSI: any ``IsInlineMigratable`` one; non-CSI: the plugin's own type, ``FilterVolume``).
* VolumeRestrictions (kubernetes#114898) and VolumeZone (kubernetes#114896), 1.27: ported in
  their own modules (``test_volume_restrictions.py``, ``test_volume_zone.py``); here only that
  the Skip now goes through the framework.

Cases written from that code (upstream's tests assert the same statuses case by case; its
tables are not ported whole). Each case runs the plugin alone in a profile at the release.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from ruleset.framework.cycle_state import CycleState
from ruleset.framework.runtime import SKIP_FILTER_PLUGINS
from ruleset.framework.status import Code
from ruleset.framework.validation import available_points
from ruleset.kversion import KubeVersion, Target
from ruleset.pluginmanager import load_registry
from ruleset.scheduler import Scheduler
from tests.factories import container, decode, make_node, make_object, make_pod
from tests.plugins.noderesources_kit import VersionHarness

ZONE = "topology.kubernetes.io/zone"
NODES = [make_node("n1", labels={"kubernetes.io/hostname": "n1", ZONE: "a"}),
         make_node("n2", labels={"kubernetes.io/hostname": "n2", ZONE: "b"})]

NOT_A_STEP = "no PreFilter"  # the plugin has no PreFilter point at that release


def required_affinity(*terms: dict) -> dict:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


ZONE_A = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["a"]}]}
PREFERRED = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 1, "preference": ZONE_A}]}}
ADDED_REQUIRED = {"addedAffinity": required_affinity(ZONE_A)["nodeAffinity"]}
ADDED_PREFERRED = {"addedAffinity": PREFERRED["nodeAffinity"]}


def with_empty_node_selector(pod: dict) -> dict:
    pod["spec"]["nodeSelector"] = {}
    return pod


def ports(*entries: dict) -> dict:
    return make_pod("p", containers=[container(ports=entries)])


def spread(when: str) -> dict:
    return {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": {"app": "web"}}}


HARD_DEFAULTS = {"defaultingType": "List", "defaultConstraints": [
    {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}]}
SERVICE = make_object("Service", "web", spec={"selector": {"app": "web"}})


def volumes(*vols: dict) -> dict:
    return make_pod("p", volumes=[{"name": f"v{i}", **v} for i, v in enumerate(vols)])


PVC = {"persistentVolumeClaim": {"claimName": "c"}}
EPHEMERAL = {"ephemeral": {"volumeClaimTemplate": {"spec": {}}}}
EBS = {"awsElasticBlockStore": {"volumeID": "vol-1"}}
GCE = {"gcePersistentDisk": {"pdName": "pd-1"}}
CONFIG_MAP = {"configMap": {"name": "cm"}}

# (id, plugin (name or (name, args)), release, other objects, pod, PreFilter's code or NOT_A_STEP)
CASES: list[Any] = [
    # NodeAffinity: PreFilter from 1.21, Skip from 1.27.
    ("na 1.20 no PreFilter", "NodeAffinity", None, [], make_pod("p"), NOT_A_STEP),
    ("na 1.21 nothing to filter: Success", "NodeAffinity", "1.21", [], make_pod("p"), Code.SUCCESS),
    ("na 1.26 nothing to filter: Success", "NodeAffinity", "1.26", [], make_pod("p"), Code.SUCCESS),
    ("na 1.27 nothing to filter: Skip", "NodeAffinity", "1.27", [], make_pod("p"), Code.SKIP),
    ("na 1.27 preferred terms only: Skip", "NodeAffinity", "1.27", [], make_pod("p", affinity=PREFERRED),
     Code.SKIP),
    ("na 1.27 empty nodeSelector: Skip", "NodeAffinity", "1.27", [],
     with_empty_node_selector(make_pod("p")), Code.SKIP),
    ("na 1.27 nodeSelector", "NodeAffinity", "1.27", [], make_pod("p", node_selector={ZONE: "a"}),
     Code.SUCCESS),
    ("na 1.27 required affinity", "NodeAffinity", "1.27", [], make_pod("p", affinity=required_affinity(ZONE_A)),
     Code.SUCCESS),
    ("na 1.27 required affinity without terms", "NodeAffinity", "1.27", [],
     make_pod("p", affinity=required_affinity()), Code.SUCCESS),
    ("na 1.27 addedAffinity required", ("NodeAffinity", ADDED_REQUIRED), "1.27", [], make_pod("p"),
     Code.SUCCESS),
    ("na 1.27 addedAffinity preferred only: Skip", ("NodeAffinity", ADDED_PREFERRED), "1.27", [],
     make_pod("p"), Code.SKIP),
    ("na 1.35 nothing to filter: Skip", "NodeAffinity", "1.35", [], make_pod("p"), Code.SKIP),
    # NodePorts: Skip from 1.28.
    ("np 1.27 no ports: Success", "NodePorts", "1.27", [], make_pod("p"), Code.SUCCESS),
    ("np 1.28 no ports: Skip", "NodePorts", "1.28", [], make_pod("p"), Code.SKIP),
    ("np 1.28 container port without host port: Skip", "NodePorts", "1.28", [],
     ports({"containerPort": 80}), Code.SKIP),
    ("np 1.28 host port", "NodePorts", "1.28", [], ports({"containerPort": 80, "hostPort": 8080}),
     Code.SUCCESS),
    ("np 1.20 host port", "NodePorts", None, [], ports({"containerPort": 80, "hostPort": 8080}), Code.SUCCESS),
    # PodTopologySpread: Skip from 1.28.
    ("pts 1.27 no constraints: Success", "PodTopologySpread", "1.27", [], make_pod("p"), Code.SUCCESS),
    ("pts 1.28 no constraints (system defaults are soft): Skip", "PodTopologySpread", "1.28", [SERVICE],
     make_pod("p", labels={"app": "web"}), Code.SKIP),
    ("pts 1.28 soft constraint only: Skip", "PodTopologySpread", "1.28", [],
     make_pod("p", labels={"app": "web"}, topology_spread_constraints=[spread("ScheduleAnyway")]), Code.SKIP),
    ("pts 1.28 hard constraint", "PodTopologySpread", "1.28", [],
     make_pod("p", labels={"app": "web"}, topology_spread_constraints=[spread("DoNotSchedule")]), Code.SUCCESS),
    ("pts 1.28 hard default constraint, a Service selects the pod", ("PodTopologySpread", HARD_DEFAULTS), "1.28",
     [SERVICE], make_pod("p", labels={"app": "web"}), Code.SUCCESS),
    ("pts 1.28 hard default constraint, nothing selects the pod: Skip", ("PodTopologySpread", HARD_DEFAULTS),
     "1.28", [SERVICE], make_pod("p", labels={"app": "db"}), Code.SKIP),
    # NodeVolumeLimits (CSI): PreFilter and its Skip from 1.28.
    ("nvl 1.27 no PreFilter", "NodeVolumeLimits", "1.27", [], make_pod("p"), NOT_A_STEP),
    ("nvl 1.28 no volume: Skip", "NodeVolumeLimits", "1.28", [], make_pod("p"), Code.SKIP),
    ("nvl 1.28 configMap only: Skip", "NodeVolumeLimits", "1.28", [], volumes(CONFIG_MAP), Code.SKIP),
    ("nvl 1.28 claim", "NodeVolumeLimits", "1.28", [], volumes(CONFIG_MAP, PVC), Code.SUCCESS),
    ("nvl 1.28 generic ephemeral", "NodeVolumeLimits", "1.28", [], volumes(EPHEMERAL), Code.SUCCESS),
    ("nvl 1.28 inline migratable EBS", "NodeVolumeLimits", "1.28", [], volumes(EBS), Code.SUCCESS),
    # The in-tree limits: PreFilter and its Skip from 1.28 (removed in 1.32).
    ("ebs 1.27 no PreFilter", "EBSLimits", "1.27", [], volumes(EBS), NOT_A_STEP),
    ("ebs 1.28 no volume: Skip", "EBSLimits", "1.28", [], make_pod("p"), Code.SKIP),
    ("ebs 1.28 another type only: Skip", "EBSLimits", "1.28", [], volumes(GCE, CONFIG_MAP), Code.SKIP),
    ("ebs 1.28 its type", "EBSLimits", "1.28", [], volumes(EBS), Code.SUCCESS),
    ("ebs 1.28 claim", "EBSLimits", "1.28", [], volumes(PVC), Code.SUCCESS),
    ("ebs 1.28 generic ephemeral", "EBSLimits", "1.28", [], volumes(EPHEMERAL), Code.SUCCESS),
    ("gce 1.31 its type", "GCEPDLimits", "1.31", [], volumes(GCE), Code.SUCCESS),
    ("gce 1.31 another type only: Skip", "GCEPDLimits", "1.31", [], volumes(EBS), Code.SKIP),
    ("azure 1.28 no volume: Skip", "AzureDiskLimits", "1.28", [], make_pod("p"), Code.SKIP),
    ("cinder 1.28 no volume: Skip", "CinderLimits", "1.28", [], make_pod("p"), Code.SKIP),
    # VolumeRestrictions and VolumeZone: Skip from 1.27 (their own modules test the conditions).
    ("vr 1.26 no volume: Success", "VolumeRestrictions", "1.26", [], make_pod("p"), Code.SUCCESS),
    ("vr 1.27 no volume: Skip", "VolumeRestrictions", "1.27", [], make_pod("p"), Code.SKIP),
    ("vr 1.27 GCE PD", "VolumeRestrictions", "1.27", [], volumes(GCE), Code.SUCCESS),
    ("vz 1.26 no PreFilter", "VolumeZone", "1.26", [], make_pod("p"), NOT_A_STEP),
    ("vz 1.27 no volume: Skip", "VolumeZone", "1.27", [], make_pod("p"), Code.SKIP),
]
IDS = [case[0] for case in CASES]


def _name(plugin: Any) -> str:
    return plugin if isinstance(plugin, str) else plugin[0]


@pytest.mark.parametrize(("plugin", "version", "objects", "pod", "code"), [c[1:] for c in CASES], ids=IDS)
def test_pre_filter_returns_skip_exactly_in_upstreams_condition(plugin, version, objects, pod, code):
    h = VersionHarness([plugin], [*NODES, *objects], version)
    steps = [s for s in h.framework.tables["ruleset_pre_filter"] if s.plugin == _name(plugin)]
    if code == NOT_A_STEP:
        assert steps == []
        return
    (step,) = steps
    status = step(state=CycleState(), pod=decode(pod, h.state), snapshot=h.snapshot)
    assert (status.code if status is not None else Code.SUCCESS) == code


@pytest.mark.parametrize(("plugin", "version", "objects", "pod", "code"), [c[1:] for c in CASES], ids=IDS)
def test_a_skipped_plugin_is_recorded_and_its_filter_not_run(plugin, version, objects, pod, code):
    name = _name(plugin)
    h = VersionHarness([plugin], [*NODES, *objects], version)
    calls: list[str] = []
    table = h.framework.tables["ruleset_filter"]
    for i, step in enumerate(table):
        if step.plugin == name:
            def counted(*args: Any, _inner: Any = step.function) -> Any:
                calls.append("Filter")
                return _inner(*args)
            table[i] = dataclasses.replace(step, function=counted)
    result = Scheduler(h.framework, seed=0).schedule(decode(pod, h.state), always_score=True)
    assert result.state is not None
    skipped = result.state.get(SKIP_FILTER_PLUGINS)
    if code == Code.SKIP:
        assert (skipped, calls) == (frozenset({name}), [])
    else:
        assert (skipped, calls) == (None, ["Filter"])
        assert result.status is None or result.status.code != Code.ERROR


@pytest.mark.parametrize(("plugin", "before", "since"), [
    pytest.param("NodeAffinity", "1.20", "1.21", id="NodeAffinity 1.21"),
    pytest.param("NodeVolumeLimits", "1.27", "1.28", id="NodeVolumeLimits 1.28"),
    pytest.param("EBSLimits", "1.27", "1.28", id="EBSLimits 1.28"),
    pytest.param("GCEPDLimits", "1.27", "1.28", id="GCEPDLimits 1.28"),
    pytest.param("AzureDiskLimits", "1.27", "1.28", id="AzureDiskLimits 1.28"),
    pytest.param("CinderLimits", "1.27", "1.28", id="CinderLimits 1.28"),
])
def test_the_pre_filter_point_comes_with_its_release(plugin, before, since):
    cls = load_registry().classes[plugin]
    assert "preFilter" not in available_points(cls, Target(KubeVersion.parse(before)))
    assert "preFilter" in available_points(cls, Target(KubeVersion.parse(since)))
