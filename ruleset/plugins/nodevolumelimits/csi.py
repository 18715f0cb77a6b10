"""NodeVolumeLimits (Filter; PreFilter from 1.28): a node takes no more CSI volumes per driver
than its limit (``nodevolumelimits/csi.go`` at v1.20.0, later releases through switches).

The pod's volumes and those of the pods on the node are counted once each by
``<driver>/<volume handle>``: a claim bound to a CSI PersistentVolume gives its driver and
handle; a claim with no volume, or whose volume is missing, gives its class's provisioner and a
placeholder handle per claim (no class, or a missing one: not counted); an in-tree volume
(PersistentVolume, and from 1.21 an inline source) counts under its CSI driver only when
migrated on the node. Limits are the node's ``attachable-volumes-*`` allocatable, overridden by
each CSINode driver's ``allocatable.count`` under ``attachable-volumes-csi-<driver>``; a driver
without a limit is not checked. Too many: Unschedulable ``node(s) exceed max volume count``.

A missing claim is not counted (1.20); from 1.21 a missing claim of the pod being scheduled is
an Error, from 1.30 UnschedulableAndUnresolvable. Without any storage object in the input
(``snapshot.storage.is_empty()``) claims are not looked up at all.

From 1.28 (:data:`PRE_FILTER_SKIP`, kubernetes#115398) PreFilter returns Skip unless some
volume of the pod is a claim, a generic ephemeral volume or an in-tree source CSI migration
knows (``translator.IsInlineMigratable``, whatever the node): the framework then does not run
its Filter.
"""

from __future__ import annotations

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
)
from ruleset.api.pod import Pod
from ruleset.api.storage import CSINode, PersistentVolumeClaim, claim_class
from ruleset.kversion import switch
from ruleset.plugins.nodevolumelimits.utils import (
    BY_NAME,
    EPHEMERAL,
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    MISSING_CLAIM_ERROR,
    OTHER_MIGRATABLE,
    PLACEHOLDER_PREFIX,
    REFERENCE,
    csi_attach_limit_key,
    in_tree_source,
    is_csi_migration_on,
    migrated_plugins,
    pv_in_tree,
    translated_handle,
    volume_claim_name,
    volume_limits,
)
from ruleset.snapshot import NodeInfo, VolumeStore

NAME = "NodeVolumeLimits"

#: Migrated in-tree inline volumes count as CSI volumes (``checkAttachableInlineVolume``).
INLINE_MIGRATED = switch("NodeVolumeLimits.migrated-inline-volumes", "1.21",
                         "in-tree inline volumes migrated to CSI on the node count under their CSI driver",
                         f"{REFERENCE}/csi.go checkAttachableInlineVolume")
#: A missing claim of the pod being scheduled: UnschedulableAndUnresolvable instead of Error.
MISSING_CLAIM_UNRESOLVABLE = switch("NodeVolumeLimits.missing-claim-unresolvable", "1.30",
                                    "a missing claim of the pod to schedule: UnschedulableAndUnresolvable",
                                    f"{REFERENCE}/csi.go Filter (apierrors.IsNotFound)")
#: PreFilter returns Skip for a pod without a volume the plugin may count.
PRE_FILTER_SKIP = switch("NodeVolumeLimits.prefilter-skip", "1.28",
                         "PreFilter returns Skip for a pod without a claim, generic ephemeral or migratable "
                         "in-tree volume: its Filter is not run",
                         f"{REFERENCE}/csi.go PreFilter (kubernetes#115398)")
_SKIP = Status(Code.SKIP)


class ClaimError(Exception):
    """A volume the Filter cannot read: ``unresolvable`` for a missing claim from 1.30."""

    def __init__(self, message: str, unresolvable: bool = False) -> None:
        super().__init__(message)
        self.unresolvable = unresolvable


def claim_not_found(namespace: str, name: str) -> str:
    """The error upstream wraps a missing claim in."""
    return f'looking up PVC {namespace}/{name}: persistentvolumeclaim "{name}" not found'


def ephemeral_owner_error(pod: Pod, claim: PersistentVolumeClaim) -> str | None:
    """``ephemeral.VolumeIsForPod``: the claim must be controlled by the pod (by UID)."""
    owner = claim.meta.controller()
    if owner is None or owner.uid != pod.meta.uid:
        return (f"PVC {claim.meta.namespace}/{claim.meta.name} was not created for pod "
                f"{pod.namespace}/{pod.meta.name} (pod is not owner)")
    return None


class NodeVolumeLimits(PerNodeFilter):
    """Rejects nodes where the pod's CSI volumes would exceed a driver's attach limit (CSINode
    ``allocatable.count``, or the node's ``attachable-volumes-csi-*``)."""

    name = NAME
    points_since: ClassVar[Mapping[str, str]] = {"preFilter": "1.28"}

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        target = self.handle.target
        self.pre_filter_skip = target.has(PRE_FILTER_SKIP)
        self.ephemeral = target.has(EPHEMERAL)
        self.missing_claim_error = target.has(MISSING_CLAIM_ERROR)
        self.missing_claim_unresolvable = target.has(MISSING_CLAIM_UNRESOLVABLE)
        self.inline_migrated = target.has(INLINE_MIGRATED)
        self.migrated = migrated_plugins(target)

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """A pod without volumes passes every node, whatever pods run there."""
        return OTHER_PODS_ANY if pod.volumes else OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_pre_filter(self, pod: Pod) -> Status | None:
        """Skip (1.28 on) unless a volume has ``persistentVolumeClaim`` or ``ephemeral`` or is
        inline migratable (upstream's test, whatever the node's migration)."""
        if not self.pre_filter_skip:
            return None
        for volume in pod.volumes:
            if (isinstance(volume.get("persistentVolumeClaim"), dict)
                    or isinstance(volume.get("ephemeral"), dict) or in_tree_source(volume) is not None):
                return None
        return _SKIP

    @hookimpl
    def ruleset_filter(self, state: CycleState, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        # Most pods (a service-account token, config maps) have no volume this plugin counts:
        # then every node passes, as filter_node would say node by node.
        if not any(self._may_count(volume) for volume in pod.volumes):
            return None
        return super().ruleset_filter(state, pod, nodes)

    def _may_count(self, volume: dict[str, Any]) -> bool:
        """Whether :meth:`attachable_volumes` could count ``volume`` on some node."""
        if "persistentVolumeClaim" in volume or (self.ephemeral and "ephemeral" in volume):
            return True
        return self.inline_migrated and in_tree_source(volume) is not None

    def filter_node(self, state: CycleState, pod: Pod, node: NodeInfo) -> Status | None:
        if not pod.volumes:
            return None
        store = node.snapshot.storage
        csi_node = store.csi_nodes.get(node.name)
        try:
            new = self.attachable_volumes(store, pod, csi_node, True)
            if not new:
                return None
            limits = volume_limits(node.allocatable)
            if csi_node is not None:
                for driver in csi_node.drivers:
                    if driver.allocatable_count is not None:
                        limits[csi_attach_limit_key(driver.name)] = driver.allocatable_count
            if not limits:
                return None
            attached: dict[str, str] = {}
            for existing in node.pods:
                attached.update(self.attachable_volumes(store, existing, csi_node, False))
        except ClaimError as exc:
            return Status.unresolvable(str(exc)) if exc.unresolvable else Status.error(str(exc))
        attached_count: dict[str, int] = {}
        for unique, key in attached.items():
            new.pop(unique, None)  # a volume shared with a pod on the node is attached once
            attached_count[key] = attached_count.get(key, 0) + 1
        new_count: dict[str, int] = {}
        for key in new.values():
            new_count[key] = new_count.get(key, 0) + 1
        for key, count in new_count.items():
            limit = limits.get(key)
            if limit is not None and attached_count.get(key, 0) + count > limit:
                return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None

    def attachable_volumes(self, store: VolumeStore, pod: Pod, csi_node: CSINode | None,
                           new_pod: bool) -> dict[str, str]:
        """``filterAttachableVolumes``: ``driver/handle`` -> limit key of the pod's CSI volumes."""
        result: dict[str, str] = {}
        no_storage = store.is_empty()
        for volume in pod.volumes:
            claim_name = volume_claim_name(pod, volume, self.ephemeral)
            ephemeral = claim_name is not None and "persistentVolumeClaim" not in volume
            if claim_name is None:
                if self.inline_migrated:
                    self.count_inline(volume, csi_node, result)
                continue
            if no_storage:
                continue  # the input has no storage objects: claims are not checked
            if not claim_name:
                raise ClaimError("PersistentVolumeClaim had no name")
            claim = store.claim(pod.namespace, claim_name)
            if claim is None:
                if new_pod and self.missing_claim_error:
                    message = claim_not_found(pod.namespace, claim_name)
                    raise ClaimError(message, self.missing_claim_unresolvable)
                continue
            if ephemeral:
                problem = ephemeral_owner_error(pod, claim)
                if problem is not None:
                    raise ClaimError(problem)
            driver, handle = self.driver_info(store, csi_node, claim)
            if driver and handle:
                result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)
        return result

    def count_inline(self, volume: dict[str, Any], csi_node: CSINode | None, result: dict[str, str]) -> None:
        """``checkAttachableInlineVolume``: a migrated in-tree inline volume counts under its driver."""
        found = in_tree_source(volume)
        if found is None:
            return
        plugin, spec = found
        if not is_csi_migration_on(csi_node, plugin.name, self.migrated):
            return
        driver = plugin.csi_driver
        result[f"{driver}/{translated_handle(plugin, spec)}"] = csi_attach_limit_key(driver)

    def driver_info(self, store: VolumeStore, csi_node: CSINode | None,
                    claim: PersistentVolumeClaim) -> tuple[str, str]:
        """``getCSIDriverInfo``: the claim's driver and volume handle ("" when not counted)."""
        if not claim.volume_name:
            return self.driver_info_from_class(store, csi_node, claim)
        volume = store.volumes.get(claim.volume_name)
        if volume is None:
            return self.driver_info_from_class(store, csi_node, claim)
        if volume.source == "csi":
            driver, handle = volume.source_spec.get("driver"), volume.source_spec.get("volumeHandle")
            return (driver if isinstance(driver, str) else "", handle if isinstance(handle, str) else "")
        plugin = pv_in_tree(volume)
        if plugin is None or not is_csi_migration_on(csi_node, plugin.name, self.migrated):
            return "", ""
        return plugin.csi_driver, translated_handle(plugin, volume.source_spec)

    def driver_info_from_class(self, store: VolumeStore, csi_node: CSINode | None,
                               claim: PersistentVolumeClaim) -> tuple[str, str]:
        """``getCSIDriverInfoFromSC``: the class's provisioner and a placeholder handle per claim."""
        class_name = claim_class(claim)
        storage_class = store.classes.get(class_name) if class_name else None
        if storage_class is None:
            return "", ""
        handle = f"{PLACEHOLDER_PREFIX}-{claim.meta.namespace}/{claim.meta.name}"
        provisioner = storage_class.provisioner
        plugin = BY_NAME.get(provisioner)
        if provisioner in OTHER_MIGRATABLE:
            return "", ""  # migratable, but ruleset has none of their gates on: never migrated
        if plugin is not None:
            if not is_csi_migration_on(csi_node, provisioner, self.migrated):
                return "", ""
            return plugin.csi_driver, handle
        return provisioner, handle
