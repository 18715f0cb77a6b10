"""What the volume-limit plugins share (``nodevolumelimits/utils.go`` and the constants of
``pkg/volume/util/attach_limit.go`` at v1.20): limit keys, the node's attachable-volume
allocatable, the in-tree plugins that migrate to CSI, and the release switches both plugins read.

CSI migration (``isCSIMigrationOn``) needs a CSINode, the ``CSIMigration`` gate, the plugin's
own gate (``CSIMigrationAWS``, ``…GCE``, ``…AzureDisk``, ``…OpenStack``) and the plugin's name
in the CSINode's ``storage.alpha.kubernetes.io/migrated-plugins`` annotation. ruleset has no
CSIMigration gates (``kversion/gates.py``), so each plugin gate's *default* is a switch: off at
1.20 for all four, so no in-tree volume is migrated at 1.20.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ruleset.api.pod import Pod
from ruleset.api.storage import ANN_MIGRATED_PLUGINS, CSINode, PersistentVolume
from ruleset.kversion import Switch, Target, switch

#: ``ErrReasonMaxVolumeCountExceeded``.
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
ATTACHABLE_PREFIX = "attachable-volumes-"
CSI_ATTACH_LIMIT_PREFIX = "attachable-volumes-csi-"
RESOURCE_NAME_LENGTH_LIMIT = 63
#: Stands for upstream's ``rand.String(32)`` prefix of placeholder volume IDs (claims not bound
#: yet): it only has to differ from every real volume ID.
PLACEHOLDER_PREFIX = "ruleset-unbound-claim"

REFERENCE = "pkg/scheduler/framework/plugins/nodevolumelimits"

#: Generic ephemeral volumes (``spec.volumes[].ephemeral``) count through their claim
#: ``<pod>-<volume>``, which the pod must own (GenericEphemeralVolume beta, on, in 1.21).
EPHEMERAL = switch("NodeVolumeLimits.generic-ephemeral-volumes", "1.21",
                   "generic ephemeral volumes count through their claims (the pod must own them)",
                   f"{REFERENCE}/csi.go filterAttachableVolumes, non_csi.go filterVolumes",
                   gate="GenericEphemeralVolume")
#: A claim of the pod being scheduled that does not exist is an Error (1.20: not counted).
MISSING_CLAIM_ERROR = switch("NodeVolumeLimits.missing-claim-error", "1.21",
                             "a missing claim of the pod to schedule is an Error, not an uncounted volume",
                             f"{REFERENCE}/csi.go filterAttachableVolumes(newPod)")


@dataclass(frozen=True)
class InTreePlugin:
    """An in-tree volume plugin that migrates to a CSI driver (``csi-translation-lib/plugins``)."""

    #: ``kubernetes.io/aws-ebs`` …: the plugin name, the in-tree provisioner and the annotation token.
    name: str
    #: The volume source key in ``spec.volumes[]`` and in a PersistentVolume's spec.
    source: str
    #: The source's field holding the volume's ID (what the in-tree limit plugins count).
    id_field: str
    csi_driver: str
    migration: Switch


def _migration(short: str, gate: str, since: str) -> Switch:
    return switch(f"NodeVolumeLimits.csi-migration-{short}", since,
                  f"{gate} on by default: {short} volumes count as CSI volumes on nodes whose CSINode lists "
                  "the plugin as migrated", f"{REFERENCE}/utils.go isCSIMigrationOn; pkg/features {gate}",
                  gate=gate)


AWS_EBS = InTreePlugin("kubernetes.io/aws-ebs", "awsElasticBlockStore", "volumeID", "ebs.csi.aws.com",
                       _migration("aws-ebs", "CSIMigrationAWS", "1.23"))
GCE_PD = InTreePlugin("kubernetes.io/gce-pd", "gcePersistentDisk", "pdName", "pd.csi.storage.googleapis.com",
                      _migration("gce-pd", "CSIMigrationGCE", "1.23"))
AZURE_DISK = InTreePlugin("kubernetes.io/azure-disk", "azureDisk", "diskName", "disk.csi.azure.com",
                          _migration("azure-disk", "CSIMigrationAzureDisk", "1.23"))
CINDER = InTreePlugin("kubernetes.io/cinder", "cinder", "volumeID", "cinder.csi.openstack.org",
                      _migration("cinder", "CSIMigrationOpenStack", "1.21"))
IN_TREE = (AWS_EBS, GCE_PD, AZURE_DISK, CINDER)
BY_SOURCE = {plugin.source: plugin for plugin in IN_TREE}
BY_NAME = {plugin.name: plugin for plugin in IN_TREE}
#: Other in-tree plugins ``csi-translation-lib`` can migrate (their gates are off at 1.20):
#: a class with one of these provisioners is never counted as a CSI driver.
OTHER_MIGRATABLE = frozenset({"kubernetes.io/vsphere-volume", "kubernetes.io/azure-file"})


def migrated_plugins(target: Target) -> frozenset[str]:
    """The in-tree plugin names whose migration gate is on at ``target`` (read once per plugin)."""
    return frozenset(plugin.name for plugin in IN_TREE if target.has(plugin.migration))


def is_csi_migration_on(csi_node: CSINode | None, plugin_name: str, enabled: frozenset[str]) -> bool:
    """``isCSIMigrationOn``: a CSINode exists, the plugin's gates are on, and the CSINode's
    migrated-plugins annotation (comma-separated) lists the plugin."""
    if csi_node is None or not plugin_name or plugin_name not in enabled:
        return False
    annotation = csi_node.meta.annotations.get(ANN_MIGRATED_PLUGINS, "")
    return plugin_name in (annotation.split(",") if annotation else ())


def csi_attach_limit_key(driver: str) -> str:
    """``GetCSIAttachLimitKey``: ``attachable-volumes-csi-<driver>``, or for a long driver name its
    first 23 characters and 16 hex digits of its SHA-1."""
    if len(CSI_ATTACH_LIMIT_PREFIX) + len(driver) >= RESOURCE_NAME_LENGTH_LIMIT:
        digest = hashlib.sha1(driver.encode()).hexdigest()[:16]  # a resource name, not security
        return CSI_ATTACH_LIMIT_PREFIX + driver[:23] + digest
    return CSI_ATTACH_LIMIT_PREFIX + driver


def volume_limits(allocatable: Mapping[str, int]) -> dict[str, int]:
    """``volumeLimits``: the node's ``attachable-volumes-*`` allocatable."""
    return {name: value for name, value in allocatable.items() if name.startswith(ATTACHABLE_PREFIX)}


def source_id(spec: Any, field: str) -> str:
    """The ID field of a volume source map ("" when absent or not a string)."""
    value = spec.get(field) if isinstance(spec, dict) else None
    return value if isinstance(value, str) else ""


def in_tree_source(volume: Mapping[str, Any]) -> tuple[InTreePlugin, dict[str, Any]] | None:
    """The migratable in-tree source of a pod volume (``IsInlineMigratable``), if any."""
    for key, plugin in BY_SOURCE.items():
        spec = volume.get(key)
        if isinstance(spec, dict):
            return plugin, spec
    return None


def translated_handle(plugin: InTreePlugin, spec: Mapping[str, Any]) -> str:
    """The volume handle ``csi-translation-lib`` gives a migrated in-tree volume, as far as
    counting needs it: EBS ``aws://zone/vol-1`` becomes ``vol-1``; GCE PD
    ``projects/UNSPECIFIED/zones/UNSPECIFIED/disks/<pd>`` (upstream names the zone when the
    volume has one: the handle only has to be the same for the same disk); Azure Disk its
    ``diskURI``; Cinder its volume ID."""
    if plugin is AWS_EBS:
        volume_id = source_id(spec, "volumeID")
        return volume_id.rsplit("/", 1)[-1] if volume_id.startswith("aws://") else volume_id
    if plugin is GCE_PD:
        return f"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{source_id(spec, 'pdName')}"
    if plugin is AZURE_DISK:
        return source_id(spec, "diskURI")
    return source_id(spec, "volumeID")


def pv_in_tree(volume: PersistentVolume) -> InTreePlugin | None:
    """The migratable in-tree plugin of a PersistentVolume (``IsPVMigratable``), if any."""
    return BY_SOURCE.get(volume.source)


def volume_claim_name(pod: Pod, volume: dict[str, Any], ephemeral: bool) -> str | None:
    """The claim a pod's volume uses: ``persistentVolumeClaim.claimName`` ("" when not a string),
    or a generic ephemeral volume's ``<pod>-<volume>`` (with ``ephemeral``: the release's gate);
    None for any other volume."""
    pvc = volume.get("persistentVolumeClaim")
    if isinstance(pvc, dict):
        name = pvc.get("claimName")
        return name if isinstance(name, str) else ""
    if ephemeral and isinstance(volume.get("ephemeral"), dict):
        return f"{pod.meta.name}-{volume.get('name', '')}"
    return None
