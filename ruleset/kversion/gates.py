"""The feature gates that change what the scheduler does, with their default per release
(``pkg/features/kube_features.go`` at each release: alpha gates default off, beta gates on
from 1.24 for new ones, GA gates locked on, then removed).

Each gate lists its stages as ``(release, default, stage)``, oldest first; the entry in
effect at a release is the last one at or before it. A gate is unknown before its first
stage and from its ``removed`` release on (kube-scheduler refuses unknown gates).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FeatureGate:
    name: str
    #: ``(minor, default, stage)``, oldest first (all releases are 1.x).
    stages: tuple[tuple[int, bool, str], ...]
    #: The minor release that no longer knows the gate (None: still known).
    removed: int | None = None
    summary: str = ""
    #: Minor releases where the gate is GA but not yet locked to its default (GA gates are
    #: ``LockToDefault`` as a rule: setting them otherwise is refused).
    unlocked_ga: tuple[int, ...] = ()

    def locked(self, minor: int) -> bool:
        """Whether ``1.minor`` refuses a value other than the gate's default."""
        state = self.at(minor)
        return state is not None and state[1] == "GA" and minor not in self.unlocked_ga

    def at(self, minor: int) -> tuple[bool, str] | None:
        """``(default, stage)`` at ``1.minor``; None when the release does not know the gate."""
        if self.removed is not None and minor >= self.removed:
            return None
        current = None
        for since, default, stage in self.stages:
            if since <= minor:
                current = (default, stage)
        return current


_GATES = (
    FeatureGate("BalanceAttachedNodeVolumes", ((11, False, "alpha"),), removed=22,
                summary="NodeResourcesBalancedAllocation counts attachable volumes"),
    FeatureGate("DefaultPodTopologySpread", ((19, False, "alpha"), (20, True, "beta"), (24, True, "GA")),
                removed=26, summary="PodTopologySpread's system default constraints replace SelectorSpread"),
    FeatureGate("PreferNominatedNode", ((21, False, "alpha"), (22, True, "beta"), (24, True, "GA")),
                removed=26, summary="a pod nominated by a preemption tries its nominated node first"),
    FeatureGate("PodOverhead", ((16, False, "alpha"), (18, True, "beta"), (24, True, "GA")), removed=26,
                summary="pod overhead counts in requests"),
    FeatureGate("PodAffinityNamespaceSelector",
                ((21, False, "alpha"), (22, True, "beta"), (24, True, "GA")), removed=26,
                summary="namespaceSelector in pod affinity terms"),
    FeatureGate("MinDomainsInPodTopologySpread",
                ((24, False, "alpha"), (25, False, "beta"), (27, True, "beta"), (30, True, "GA")), removed=32,
                summary="minDomains in topology spread constraints"),
    FeatureGate("NodeInclusionPolicyInPodTopologySpread", ((25, False, "alpha"), (26, True, "beta"),
                                                           (33, True, "GA")),
                summary="nodeAffinityPolicy and nodeTaintsPolicy in topology spread constraints"),
    FeatureGate("MatchLabelKeysInPodTopologySpread", ((25, False, "alpha"), (27, True, "beta")),
                summary="matchLabelKeys in topology spread constraints"),
    # GA (locked on) from 1.30 and still known in 1.35, not removed.
    FeatureGate("PodSchedulingReadiness", ((26, False, "alpha"), (27, True, "beta"), (30, True, "GA")),
                summary="schedulingGates keep a pod out of scheduling"),
    FeatureGate("SidecarContainers", ((28, False, "alpha"), (29, True, "beta"), (33, True, "GA")),
                summary="init containers with restartPolicy Always run beside the app containers"),
    FeatureGate("MatchLabelKeysInPodAffinity", ((29, False, "alpha"), (31, True, "beta"), (33, True, "GA")),
                summary="matchLabelKeys and mismatchLabelKeys in pod (anti-)affinity terms"),
    FeatureGate("PodLevelResources", ((32, False, "alpha"), (34, True, "beta")),
                summary="spec.resources: pod-level requests replace the containers' sum"),
    FeatureGate("DynamicResourceAllocation", ((26, False, "alpha"), (32, False, "beta"), (34, True, "GA")),
                unlocked_ga=(34,),
                summary="resource claims (not modelled by ruleset)"),
    FeatureGate("InPlacePodVerticalScaling", ((27, False, "alpha"), (33, True, "beta"), (35, True, "GA")),
                summary="resized pods count with their allocated resources"),
    # Storage (the volume plugins).
    FeatureGate("CSIMigration", ((17, True, "beta"), (25, True, "GA")), removed=27,
                summary="in-tree volumes of a migrated plugin are counted as their CSI driver's"),
    FeatureGate("CSIMigrationAWS", ((17, False, "beta"), (23, True, "beta"), (25, True, "GA")), removed=27,
                summary="AWS EBS volumes migrate to the ebs.csi.aws.com driver"),
    FeatureGate("CSIMigrationGCE", ((17, False, "beta"), (23, True, "beta"), (25, True, "GA")), removed=28,
                summary="GCE PD volumes migrate to the pd.csi.storage.gke.io driver"),
    FeatureGate("CSIMigrationAzureDisk", ((19, False, "beta"), (23, True, "beta"), (24, True, "GA")),
                removed=27, summary="Azure Disk volumes migrate to the disk.csi.azure.com driver"),
    FeatureGate("CSIMigrationOpenStack", ((18, False, "beta"), (21, True, "beta"), (24, True, "GA")),
                removed=26, summary="Cinder volumes migrate to the cinder.csi.openstack.org driver"),
    FeatureGate("GenericEphemeralVolume", ((19, False, "alpha"), (21, True, "beta"), (23, True, "GA")),
                removed=25, summary="spec.volumes[].ephemeral: a claim per pod, named <pod>-<volume>"),
    FeatureGate("CSIStorageCapacity", ((19, False, "alpha"), (21, True, "beta"), (24, True, "GA")),
                removed=28, summary="VolumeBinding checks CSIStorageCapacity before provisioning on a node"),
    FeatureGate("ReadWriteOncePod", ((22, False, "alpha"), (27, True, "beta"), (29, True, "GA")), removed=31,
                summary="the ReadWriteOncePod access mode: one pod in the cluster may use the claim"),
    FeatureGate("VolumeCapacityPriority", ((21, False, "alpha"),), removed=33,
                summary="VolumeBinding scores nodes by the capacity of the volumes it would bind"),
    FeatureGate("StorageCapacityScoring", ((33, False, "alpha"),),
                summary="VolumeBinding scores nodes by their free storage capacity"),
)

#: Every gate ruleset knows, by name.
GATES: dict[str, FeatureGate] = {gate.name: gate for gate in _GATES}


def gate_default(name: str, version: object) -> bool:
    """The default of gate ``name`` at ``version`` (a :class:`~ruleset.kversion.KubeVersion`):
    after a GA gate's removal, its feature is simply on; a gate the release does not know
    otherwise is off."""
    gate = GATES.get(name)
    if gate is None:
        return False
    minor = getattr(version, "minor", 0)
    if gate.removed is not None and minor >= gate.removed:
        return gate.stages[-1][2] == "GA"
    state = gate.at(minor)
    return bool(state and state[0])


def gates_known_at(version: object) -> dict[str, tuple[bool, str]]:
    """``name -> (default, stage)`` of the gates ``version`` knows (the ones a profile may set)."""
    minor = getattr(version, "minor", 0)
    out = {}
    for gate in _GATES:
        state = gate.at(minor)
        if state is not None:
            out[gate.name] = state
    return out
