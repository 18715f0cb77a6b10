"""EBSLimits, GCEPDLimits, AzureDiskLimits, CinderLimits (Filter; PreFilter from 1.28): a node
takes no more volumes of one in-tree type than its limit (``nodevolumelimits/non_csi.go`` at
v1.20.0).

Each counts the unique volumes of its type of the pod and of the pods on the node: inline
sources by their ID (EBS ``volumeID``, GCE PD ``pdName``, Azure Disk ``diskName``, Cinder
``volumeID``); claims bound to a volume of the type by the volume's ID; a claim not bound, or
bound to a missing volume, counts once (by ``namespace/name``) when its
``spec.storageClassName`` names a class with the type's in-tree provisioner. A missing claim is
not counted (from 1.21 a missing claim of the pod being scheduled is an Error). When the node's
CSINode lists the plugin as migrated (and its migration gate is on) the check is left to
NodeVolumeLimits. The limit: the node's ``attachable-volumes-<type>`` allocatable, else EBS 39
(25 for instance types matching ``^[cmr]5.*|t3|z1d``, label ``node.kubernetes.io/instance-type``
or the beta one), GCE PD 16, Azure Disk 16, Cinder 256. The ``KUBE_MAX_PD_VOLS`` environment
variable of the scheduler process, which upstream lets replace that default, is ignored: it is
no part of a profile. Too many: Unschedulable ``node(s) exceed max volume count``.

From 1.28 (:data:`PRE_FILTER_SKIP`, kubernetes#115398) PreFilter returns Skip unless some
volume of the pod is an inline source of the plugin's type (``FilterVolume``), a claim or a
generic ephemeral volume: the framework then does not run its Filter.

The four plugins left kube-scheduler in 1.32 (PR #124003): CSI drivers report their limits in
CSINode, which NodeVolumeLimits reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from ruleset import (
    OTHER_PODS_ANY,
    OTHER_PODS_IGNORED,
    Code,
    CycleState,
    FilterResult,
    NodeSet,
    PerNodeFilter,
    Status,
    hookimpl,
    switch,
)
from ruleset.api.node import Node
from ruleset.api.pod import Pod
from ruleset.api.storage import PersistentVolumeClaim
from ruleset.plugins.nodevolumelimits.csi import ClaimError, claim_not_found, ephemeral_owner_error
from ruleset.plugins.nodevolumelimits.utils import (
    AWS_EBS,
    AZURE_DISK,
    CINDER,
    EPHEMERAL,
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    GCE_PD,
    MISSING_CLAIM_ERROR,
    PLACEHOLDER_PREFIX,
    REFERENCE,
    InTreePlugin,
    is_csi_migration_on,
    migrated_plugins,
    source_id,
    volume_claim_name,
)
from ruleset.snapshot import NodeInfo, VolumeStore

EBS_NITRO_LIMIT_REGEX = re.compile(r"^[cmr]5.*|t3|z1d")
DEFAULT_MAX_EBS_VOLUMES = 39
DEFAULT_MAX_EBS_NITRO_VOLUME_LIMIT = 25
DEFAULT_MAX_GCE_PD_VOLUMES = 16
DEFAULT_MAX_AZURE_DISK_VOLUMES = 16
DEFAULT_MAX_CINDER_VOLUMES = 256
LABEL_INSTANCE_TYPE_STABLE = "node.kubernetes.io/instance-type"
LABEL_INSTANCE_TYPE_BETA = "beta.kubernetes.io/instance-type"
#: PreFilter returns Skip for a pod without a volume the plugin may count.
PRE_FILTER_SKIP = switch("NonCSILimits.prefilter-skip", "1.28",
                         "EBSLimits, GCEPDLimits, AzureDiskLimits and CinderLimits: PreFilter returns Skip "
                         "for a pod without an inline volume of the plugin's type, a claim or a generic "
                         "ephemeral volume: its Filter is not run",
                         f"{REFERENCE}/non_csi.go PreFilter (kubernetes#115398)")
_SKIP = Status(Code.SKIP)
REPLACED_BY = ("NodeVolumeLimits (the volume's CSI driver reports the node's limit in its CSINode "
               "allocatable.count)")


def max_ebs_volumes(instance_type: str) -> int:
    """``getMaxEBSVolume``: 25 for Nitro instance types (``regexp.MatchString``: a match
    anywhere), else 39."""
    if EBS_NITRO_LIMIT_REGEX.search(instance_type):
        return DEFAULT_MAX_EBS_NITRO_VOLUME_LIMIT
    return DEFAULT_MAX_EBS_VOLUMES


def instance_type(node: Node) -> str:
    """The node's instance type label. Upstream takes whichever of the two labels Go's map
    iteration meets first; they agree on real nodes, and ruleset prefers the stable one."""
    labels = node.labels
    return labels.get(LABEL_INSTANCE_TYPE_STABLE, labels.get(LABEL_INSTANCE_TYPE_BETA, ""))


class NonCSILimits(PerNodeFilter):
    """Base of the four in-tree volume-limit plugins (``nonCSILimits``)."""

    plugin: ClassVar[InTreePlugin]
    #: ``attachable-volumes-<type>``: the node's allocatable that overrides the default.
    limit_key: ClassVar[str]
    removed_in: ClassVar[str | None] = "1.32"
    replaced_by: ClassVar[str] = REPLACED_BY
    points_since: ClassVar[Mapping[str, str]] = {"preFilter": "1.28"}

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        target = self.handle.target
        self.pre_filter_skip = target.has(PRE_FILTER_SKIP)
        self.ephemeral = target.has(EPHEMERAL)
        self.missing_claim_error = target.has(MISSING_CLAIM_ERROR)
        self.migrated = migrated_plugins(target)

    #: The limit without ``attachable-volumes-<type>`` (EBS's depends on the instance type).
    default_limit: ClassVar[int] = 0

    def default_max(self, node: Node) -> int:
        """``maxVolumeFunc`` without ``KUBE_MAX_PD_VOLS``."""
        return self.default_limit

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """A pod without volumes passes every node, whatever pods run there."""
        return OTHER_PODS_ANY if pod.volumes else OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_pre_filter(self, pod: Pod) -> Status | None:
        """Skip (1.28 on) unless a volume is of the plugin's type or has ``persistentVolumeClaim``
        or ``ephemeral`` (upstream's test, whatever the node's migration)."""
        if not self.pre_filter_skip:
            return None
        keys = (self.plugin.source, "persistentVolumeClaim", "ephemeral")
        for volume in pod.volumes:
            if any(isinstance(volume.get(key), dict) for key in keys):
                return None
        return _SKIP

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        # A pod without a volume of this type or a claim passes every node, as filter_node says.
        source, ephemeral = self.plugin.source, self.ephemeral
        if not any(source in v or "persistentVolumeClaim" in v or (ephemeral and "ephemeral" in v)
                   for v in pod.volumes):
            return None
        return super().ruleset_filter(state, pod, nodes)

    def filter_node(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        if not pod.volumes:
            return None
        store = node.snapshot.storage
        try:
            new = self.filter_volumes(store, pod, True)
            if not new:
                return None
            if is_csi_migration_on(store.csi_nodes.get(node.name), self.plugin.name, self.migrated):
                return None  # NodeVolumeLimits counts them
            existing: set[str] = set()
            for other in node.pods:
                existing |= self.filter_volumes(store, other, False)
        except ClaimError as exc:
            return Status.error(str(exc))
        new -= existing
        limit = node.allocatable.get(self.limit_key)
        max_attach = limit if limit is not None else self.default_max(node.node)
        if len(existing) + len(new) > max_attach:
            return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None

    def filter_volumes(self, store: VolumeStore, pod: Pod, new_pod: bool) -> set[str]:
        """``filterVolumes``: the IDs of the pod's volumes of this plugin's type."""
        found: set[str] = set()
        source = self.plugin.source
        for volume in pod.volumes:
            spec = volume.get(source)
            if isinstance(spec, dict):
                found.add(source_id(spec, self.plugin.id_field))
                continue
            claim_name = volume_claim_name(pod, volume, self.ephemeral)
            if claim_name is None:
                continue
            ephemeral = "persistentVolumeClaim" not in volume
            if not claim_name:
                raise ClaimError("PersistentVolumeClaim had no name")
            if store.is_empty():
                continue  # the input has no storage objects: claims are not checked
            claim = store.claim(pod.namespace, claim_name)
            if claim is None:
                if new_pod and self.missing_claim_error:
                    raise ClaimError(claim_not_found(pod.namespace, claim_name))
                continue
            if ephemeral:
                problem = ephemeral_owner_error(pod, claim)
                if problem is not None:
                    raise ClaimError(problem)
            placeholder = f"{PLACEHOLDER_PREFIX}-{pod.namespace}/{claim_name}"
            volume_name = claim.volume_name
            bound = store.volumes.get(volume_name) if volume_name else None
            if bound is None:
                # Not bound (or bound to a missing volume): the pod may still get a volume of
                # this type, so the claim counts when its class provisions this type.
                if self.match_provisioner(store, claim):
                    found.add(placeholder)
                continue
            if bound.source == source:
                found.add(source_id(bound.source_spec, self.plugin.id_field))
        return found

    def match_provisioner(self, store: VolumeStore, claim: PersistentVolumeClaim) -> bool:
        """``matchProvisioner``: only ``spec.storageClassName`` (not the beta annotation) is read."""
        if claim.storage_class_name is None:
            return False
        storage_class = store.classes.get(claim.storage_class_name)
        return storage_class is not None and storage_class.provisioner == self.plugin.name


class EBSLimits(NonCSILimits):
    """Rejects nodes where the pod's AWS EBS volumes would exceed the node's limit (39, 25 on Nitro
    instance types, or ``attachable-volumes-aws-ebs``)."""

    name = "EBSLimits"
    plugin = AWS_EBS
    limit_key = "attachable-volumes-aws-ebs"

    def default_max(self, node: Node) -> int:
        return max_ebs_volumes(instance_type(node))


class GCEPDLimits(NonCSILimits):
    """Rejects nodes where the pod's GCE persistent disks would exceed the node's limit (16, or
    ``attachable-volumes-gce-pd``)."""

    name = "GCEPDLimits"
    plugin = GCE_PD
    limit_key = "attachable-volumes-gce-pd"
    default_limit = DEFAULT_MAX_GCE_PD_VOLUMES


class AzureDiskLimits(NonCSILimits):
    """Rejects nodes where the pod's Azure disks would exceed the node's limit (16, or
    ``attachable-volumes-azure-disk``)."""

    name = "AzureDiskLimits"
    plugin = AZURE_DISK
    limit_key = "attachable-volumes-azure-disk"
    default_limit = DEFAULT_MAX_AZURE_DISK_VOLUMES


class CinderLimits(NonCSILimits):
    """Rejects nodes where the pod's OpenStack Cinder volumes would exceed the node's limit (256,
    or ``attachable-volumes-cinder``)."""

    name = "CinderLimits"
    plugin = CINDER
    limit_key = "attachable-volumes-cinder"
    default_limit = DEFAULT_MAX_CINDER_VOLUMES
