"""Ported from ``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions_test.go``.

* TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts:
  the 4 cases of each (16) at v1.20.0 (Filter only) and, with PreFilter's answer, as the
  newest stored version has them (1.27+: PreFilter skips a pod without such a volume),
  run at 1.20 and 1.35. Upstream's ``framework.NewNodeInfo()`` without a node is one empty
  node here; a pod runs through the framework (PreFilter, then Filter).
* TestAccessModeConflicts: the 5 cases of the newest version (1.27+ form: Unschedulable at
  Filter, Skip when there is no conflict) at 1.35, and the 4 cases of the 1.22-1.26 version
  (UnschedulableAndUnresolvable at PreFilter) at 1.26 with the ReadWriteOncePod gate on.
  ``enableReadWriteOncePod: false`` cases do not exist upstream; the gate's defaults are
  tested here instead (off before 1.27).
* Left out: the QueueingHint tests (``Test_isSchedulableAfterPodDeleted``,
  ``Test_isSchedulableAfterPersistentVolumeClaimChange``): ruleset retries every parked pod
  when a pod leaves a node, and has no PVC events.

Added: read-only sharing, RBD's defaulted pool, AddPod/RemovePod recounting for
preemption, and a snapshot without storage objects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from ruleset.api.meta import ObjectMeta
from ruleset.api.storage import READ_WRITE_MANY, READ_WRITE_ONCE_POD, PersistentVolumeClaim
from ruleset.config import PluginConfig, Profile
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import SKIP_FILTER_PLUGINS, Framework
from ruleset.pluginmanager import load_registry
from ruleset.plugins.volume_restrictions import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_RWOP_CONFLICT,
    PRE_FILTER_STATE_KEY,
    RWOP_GATE,
    PreFilterState,
    VolumeRestrictions,
)
from ruleset.scheduler import Scheduler
from ruleset.snapshot import VolumeStore
from tests.factories import build_cluster, decode, make_node, make_pod, registry_with

DISK = ("Unschedulable", (ERR_REASON_DISK_CONFLICT,))
RWOP_FILTER = ("Unschedulable", (ERR_REASON_RWOP_CONFLICT,))
RWOP_PRE_FILTER = ("UnschedulableAndUnresolvable", (ERR_REASON_RWOP_CONFLICT,))
OK = ("Success", ())
SKIP = "Skip"


def _registry() -> Any:
    registry = load_registry()
    return registry if registry.get(VolumeRestrictions.name) is not None else registry_with(VolumeRestrictions)


def run(version: str, pod: dict, existing: Sequence[dict] = (), claims: Sequence[PersistentVolumeClaim] = (),
        gates: Mapping[str, bool] | None = None) -> tuple[str | None, tuple[str, tuple[str, ...]]]:
    """PreFilter's outcome ("Skip" or None) and node-1's status, the pod run through a profile
    of VolumeRestrictions alone at ``version``."""
    state = build_cluster([make_node("node-1"), *existing])
    snapshot = state.snapshot
    snapshot.storage = VolumeStore.of(claims=claims)
    profile = Profile(name="test", plugins=[PluginConfig(name=VolumeRestrictions.name)],
                      percentage_of_nodes_to_score=100, kubernetes_version=version,
                      feature_gates=dict(gates or {}))
    framework = Framework(profile, _registry(), Handle(snapshot))
    result = Scheduler(framework, seed=0).schedule(decode(pod, state), always_score=True)
    assert result.statuses is not None and result.state is not None
    skipped = SKIP if VolumeRestrictions.name in (result.state.get(SKIP_FILTER_PLUGINS) or ()) else None
    status = result.statuses.status(0)
    if result.status is not None and result.status.code.label == "Error":
        return skipped, ("Error", result.status.reasons)
    return skipped, (status.code.label, status.reasons)


def pod_with(*volumes: dict, name: str = "pod", node: str | None = None) -> dict:
    return make_pod(name, node_name=node, volumes=[{"name": f"v{i}", **v} for i, v in enumerate(volumes)])


GCE, GCE2 = {"gcePersistentDisk": {"pdName": "foo"}}, {"gcePersistentDisk": {"pdName": "bar"}}
AWS, AWS2 = {"awsElasticBlockStore": {"volumeID": "foo"}}, {"awsElasticBlockStore": {"volumeID": "bar"}}
RBD = {"rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
RBD2 = {"rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
ISCSI = {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01",
                   "fsType": "ext4", "lun": 0}}
ISCSI2 = {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01",
                    "fsType": "ext4", "lun": 0}}

# (name, pod volumes, existing pod's volumes, Filter status, newest PreFilter outcome)
DISK_CASES = [
    (kind, case, pod, existing, want, pre)
    for kind, one, two in (("gce", GCE, GCE2), ("aws", AWS, AWS2), ("rbd", RBD, RBD2), ("iscsi", ISCSI, ISCSI2))
    for case, pod, existing, want, pre in (
        ("nothing", (), None, OK, SKIP),
        ("one state", (), one, OK, SKIP),
        ("same state", (one,), one, DISK, None),
        ("different state", (two,), one, OK, None),
    )
]


def _existing(volume: dict | None) -> list[dict]:
    return [] if volume is None else [pod_with(volume, name="existing", node="node-1")]


@pytest.mark.parametrize(("kind", "case", "volumes", "existing", "want", "pre"), DISK_CASES,
                         ids=[f"{k}-{c}" for k, c, *_ in DISK_CASES])
def test_disk_conflicts_v120(kind: str, case: str, volumes: tuple[dict, ...], existing: dict | None,
                             want: tuple[str, tuple[str, ...]], pre: str | None) -> None:
    assert run("1.20", pod_with(*volumes), _existing(existing)) == (None, want)


@pytest.mark.parametrize(("kind", "case", "volumes", "existing", "want", "pre"), DISK_CASES,
                         ids=[f"{k}-{c}" for k, c, *_ in DISK_CASES])
def test_disk_conflicts_newest(kind: str, case: str, volumes: tuple[dict, ...], existing: dict | None,
                               want: tuple[str, tuple[str, ...]], pre: str | None) -> None:
    assert run("1.35", pod_with(*volumes), _existing(existing)) == (pre, want)


def _ro(volume: dict, read_only: bool) -> dict:
    (key, spec), = volume.items()
    return {key: {**spec, "readOnly": read_only}}


@pytest.mark.parametrize(("volume", "pod_ro", "existing_ro", "want"), [
    (GCE, True, True, OK), (GCE, True, False, DISK), (GCE, False, True, DISK),
    (ISCSI, True, True, OK), (ISCSI, False, True, DISK),
    (RBD, True, True, OK), (RBD, True, False, DISK),
    (AWS, True, True, DISK),  # EBS forbids any sharing
], ids=["gce-both-ro", "gce-pod-ro", "gce-existing-ro", "iscsi-both-ro", "iscsi-existing-ro", "rbd-both-ro",
        "rbd-pod-ro", "aws-both-ro"])
def test_read_only_sharing(volume: dict, pod_ro: bool, existing_ro: bool,
                           want: tuple[str, tuple[str, ...]]) -> None:
    existing = [pod_with(_ro(volume, existing_ro), name="existing", node="node-1")]
    assert run("1.20", pod_with(_ro(volume, pod_ro)), existing)[1] == want


@pytest.mark.parametrize(("pod_rbd", "existing_rbd", "want"), [
    ({"monitors": ["a"], "image": "x"}, {"monitors": ["a"], "pool": "rbd", "image": "x"}, DISK),
    ({"monitors": ["a"], "image": "x"}, {"monitors": ["a"], "pool": "other", "image": "x"}, OK),
    ({"monitors": ["a", "b"], "image": "x"}, {"monitors": ["b"], "image": "x"}, DISK),
    ({"monitors": ["a"], "image": "x"}, {"monitors": ["b"], "image": "x"}, OK),
    ({"monitors": ["a"], "image": "x"}, {"monitors": ["a"], "image": "y"}, OK),
], ids=["unset-pool-is-rbd", "other-pool", "one-shared-monitor", "no-shared-monitor", "other-image"])
def test_rbd_identity(pod_rbd: dict, existing_rbd: dict, want: tuple[str, tuple[str, ...]]) -> None:
    existing = [pod_with({"rbd": existing_rbd}, name="existing", node="node-1")]
    assert run("1.20", pod_with({"rbd": pod_rbd}), existing)[1] == want


# --- ReadWriteOncePod ------------------------------------------------------------------------

def claim(name: str, *modes: str, namespace: str = "default") -> PersistentVolumeClaim:
    return PersistentVolumeClaim(ObjectMeta(name=name, namespace=namespace), access_modes=modes)


def pvc(name: str) -> dict:
    return {"persistentVolumeClaim": {"claimName": name}}


RWOP1, RWOP2 = claim("claim-with-rwop-1", READ_WRITE_ONCE_POD), claim("claim-with-rwop-2", READ_WRITE_ONCE_POD)
RWX = claim("claim-with-rwx", READ_WRITE_MANY)
ONE_PVC = pod_with(pvc("claim-with-rwop-1"), name="pod-with-one-pvc", node="node-1")
TWO_PVCS = pod_with(pvc("claim-with-rwop-1"), pvc("claim-with-rwop-2"), name="pod-with-two-pvcs", node="node-1")
RWX_POD = pod_with(pvc("claim-with-rwx"), name="pod-with-rwx", node="node-1")
NOT_FOUND = ("UnschedulableAndUnresolvable", ('persistentvolumeclaim "claim-with-rwop-1" not found',))

# Newest TestAccessModeConflicts: (name, pod, existing pods, claims, PreFilter outcome, status).
ACCESS_MODE_NEWEST = [
    ("nothing", pod_with(name="p"), [], [], SKIP, OK),
    ("failed to get PVC", pod_with(pvc("claim-with-rwop-1"), name="p"), [], [RWX], None, NOT_FOUND),
    ("no access mode conflict", pod_with(pvc("claim-with-rwop-1"), name="p"), [RWX_POD], [RWOP1, RWX], SKIP, OK),
    ("access mode conflict, unschedulable", pod_with(pvc("claim-with-rwop-1"), name="p"), [ONE_PVC, RWX_POD],
     [RWOP1, RWX], None, RWOP_FILTER),
    ("two conflicts, unschedulable", pod_with(pvc("claim-with-rwop-1"), pvc("claim-with-rwop-2"), name="p"),
     [TWO_PVCS, RWX_POD], [RWOP1, RWOP2, RWX], None, RWOP_FILTER),
]


@pytest.mark.parametrize(("name", "pod", "existing", "claims", "pre", "want"), ACCESS_MODE_NEWEST,
                         ids=[c[0] for c in ACCESS_MODE_NEWEST])
def test_access_mode_conflicts_newest(name: str, pod: dict, existing: list[dict],
                                      claims: list[PersistentVolumeClaim], pre: str | None,
                                      want: tuple[str, tuple[str, ...]]) -> None:
    # Upstream's "failed to get PVC" has no claim at all; one unrelated claim keeps the store
    # non-empty here (an empty store looks nothing up).
    assert run("1.35", pod, existing, claims) == (pre, want)


# 1.22-1.26 TestAccessModeConflicts (gate on): PreFilter refuses, UnschedulableAndUnresolvable.
ACCESS_MODE_V122 = [
    ("nothing", pod_with(name="p"), [], [], OK),
    ("failed to get PVC", pod_with(pvc("claim-with-rwop-1"), name="p"), [], [RWX], NOT_FOUND),
    ("no access mode conflict", pod_with(pvc("claim-with-rwop-1"), name="p"), [RWX_POD], [RWOP1, RWX], OK),
    ("access mode conflict", pod_with(pvc("claim-with-rwop-1"), name="p"), [ONE_PVC, RWX_POD], [RWOP1, RWX],
     RWOP_PRE_FILTER),
]


@pytest.mark.parametrize(("name", "pod", "existing", "claims", "want"), ACCESS_MODE_V122,
                         ids=[c[0] for c in ACCESS_MODE_V122])
def test_access_mode_conflicts_v122(name: str, pod: dict, existing: list[dict],
                                    claims: list[PersistentVolumeClaim], want: tuple[str, tuple[str, ...]]) -> None:
    assert run("1.26", pod, existing, claims, gates={RWOP_GATE: True}) == (None, want)


CONFLICT = (pod_with(pvc("claim-with-rwop-1"), name="p"), [ONE_PVC], [RWOP1])


@pytest.mark.parametrize(("version", "want"), [
    ("1.20", (None, OK)), ("1.26", (None, OK)), ("1.27", (None, RWOP_FILTER)), ("1.29", (None, RWOP_FILTER)),
    ("1.34", (None, RWOP_FILTER)),
])
def test_read_write_once_pod_by_release(version: str, want: tuple) -> None:
    """The gate's default: off before 1.27 (nothing is looked up), on from 1.27."""
    assert run(version, *CONFLICT) == want


def test_missing_claim_is_not_looked_up_before_the_gate() -> None:
    assert run("1.26", pod_with(pvc("missing"), name="p"), [], [RWX]) == (None, OK)


def test_claim_of_another_namespace_does_not_conflict() -> None:
    other = pod_with(pvc("claim-with-rwop-1"), name="other", node="node-1")
    other["metadata"]["namespace"] = "other"
    assert run("1.35", pod_with(pvc("claim-with-rwop-1"), name="p"), [other], [RWOP1]) == (SKIP, OK)


def test_empty_store_looks_nothing_up() -> None:
    """No storage object at all: a missing claim is no error and nothing conflicts."""
    assert run("1.35", *CONFLICT[:2], []) == (SKIP, OK)


def test_disk_conflict_wins_over_read_write_once_pod() -> None:
    existing = [pod_with(GCE, pvc("claim-with-rwop-1"), name="existing", node="node-1")]
    assert run("1.35", pod_with(GCE, pvc("claim-with-rwop-1"), name="p"), existing, [RWOP1]) == (None, DISK)


def _plugin(version: str) -> VolumeRestrictions:
    profile = Profile(name="t", plugins=[PluginConfig(name=VolumeRestrictions.name)], kubernetes_version=version)
    framework = Framework(profile, _registry(), Handle(build_cluster([make_node("node-1")]).snapshot))
    plugin = framework.plugins[VolumeRestrictions.name]
    assert isinstance(plugin, VolumeRestrictions)
    return plugin


def test_add_and_remove_pod_recount_conflicts() -> None:
    """Preemption's dry run: removing the pod holding the claim clears the conflict."""
    plugin = _plugin("1.35")
    state = CycleState()
    state.write(PRE_FILTER_STATE_KEY, PreFilterState(frozenset({"claim-with-rwop-1"}), 1))
    holder, pending = decode(ONE_PVC), decode(pod_with(pvc("claim-with-rwop-1"), name="p"))
    snapshot = build_cluster([make_node("node-1")]).snapshot
    copy = state.clone()
    assert plugin.ruleset_pre_filter_remove_pod(copy, pending, holder, 0, snapshot) is None
    assert copy.read(PRE_FILTER_STATE_KEY).conflicts == 0
    assert state.read(PRE_FILTER_STATE_KEY).conflicts == 1  # the clone is independent
    assert plugin.ruleset_pre_filter_add_pod(copy, pending, decode(TWO_PVCS), 0, snapshot) is None
    assert copy.read(PRE_FILTER_STATE_KEY).conflicts == 1


def test_add_pod_without_state_is_an_error() -> None:
    plugin = _plugin("1.35")
    snapshot = build_cluster([make_node("node-1")]).snapshot
    status = plugin.ruleset_pre_filter_add_pod(CycleState(), decode(ONE_PVC), decode(ONE_PVC), 0, snapshot)
    assert status is not None and status.reasons == ('cannot read "PreFilterVolumeRestrictions" from cycleState',)


def test_points_since() -> None:
    assert VolumeRestrictions.points_since == {"preFilter": "1.22"}


def test_gate_turned_off_checks_no_claim() -> None:
    assert run("1.28", *CONFLICT, gates={RWOP_GATE: False}) == (SKIP, OK)
    assert run("1.28", pod_with(GCE, pvc("missing"), name="p"), [], [RWX], gates={RWOP_GATE: False}) == (None, OK)
