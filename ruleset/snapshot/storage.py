"""The storage objects of a snapshot, and the binder's assumptions about them.

kube-scheduler's volume binder reads claims, volumes, classes and CSI objects through
informers and keeps *assume caches* of claims and volumes: Reserve writes the bindings it
chose (a volume's ``claimRef``, a claim's ``volumeName`` or selected node) into the cache,
so the next pod sees them, and Unreserve restores the objects as they were. ``VolumeStore``
is that cache: :meth:`assume_volume` / :meth:`assume_claim` replace an object and remember
the original, :meth:`restore_volume` / :meth:`restore_claim` put it back. Objects are never
changed in place (plugins may hold them), only replaced.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ruleset.api.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)


@dataclass
class VolumeStore:
    """Claims by ``namespace/name``, everything else by name, in input order."""

    claims: dict[str, PersistentVolumeClaim] = field(default_factory=dict)
    volumes: dict[str, PersistentVolume] = field(default_factory=dict)
    classes: dict[str, StorageClass] = field(default_factory=dict)
    csi_nodes: dict[str, CSINode] = field(default_factory=dict)
    csi_drivers: dict[str, CSIDriver] = field(default_factory=dict)
    capacities: list[CSIStorageCapacity] = field(default_factory=list)
    _original_claims: dict[str, PersistentVolumeClaim] = field(default_factory=dict, repr=False)
    _original_volumes: dict[str, PersistentVolume] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, claims: Iterable[PersistentVolumeClaim] = (), volumes: Iterable[PersistentVolume] = (),
           classes: Iterable[StorageClass] = (), csi_nodes: Iterable[CSINode] = (),
           csi_drivers: Iterable[CSIDriver] = (),
           capacities: Iterable[CSIStorageCapacity] = ()) -> VolumeStore:
        """A store of these objects (a later object of the same key replaces an earlier one)."""
        return cls(claims={c.key: c for c in claims}, volumes={v.name: v for v in volumes},
                   classes={c.name: c for c in classes}, csi_nodes={n.name: n for n in csi_nodes},
                   csi_drivers={d.name: d for d in csi_drivers}, capacities=list(capacities))

    def is_empty(self) -> bool:
        """Whether the snapshot has no storage object at all."""
        return not (self.claims or self.volumes or self.classes or self.csi_nodes or self.csi_drivers
                    or self.capacities)

    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        return self.claims.get(f"{namespace}/{name}")

    def assume_claim(self, claim: PersistentVolumeClaim) -> None:
        """Replace the claim of the same key (the first original is kept for :meth:`restore_claim`)."""
        self._original_claims.setdefault(claim.key, self.claims[claim.key])
        self.claims[claim.key] = claim

    def restore_claim(self, key: str) -> None:
        """Put back the claim as it was before it was first assumed (no-op if never assumed)."""
        original = self._original_claims.pop(key, None)
        if original is not None:
            self.claims[key] = original

    def assume_volume(self, volume: PersistentVolume) -> None:
        """Replace the volume of the same name (the first original is kept for :meth:`restore_volume`)."""
        self._original_volumes.setdefault(volume.name, self.volumes[volume.name])
        self.volumes[volume.name] = volume

    def restore_volume(self, name: str) -> None:
        original = self._original_volumes.pop(name, None)
        if original is not None:
            self.volumes[name] = original

    def forget(self, claim_keys: Iterable[str] = (), volume_names: Iterable[str] = ()) -> None:
        """Make assumed objects the truth (a pod's volumes were bound: PreBind succeeded)."""
        for key in claim_keys:
            self._original_claims.pop(key, None)
        for name in volume_names:
            self._original_volumes.pop(name, None)
