"""What reading manifests gives: decoded objects, and the pods and workloads kept raw until
admission and the controllers have had their say."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ruleset.admission import LimitRange, RuntimeClass
from ruleset.api.node import Node
from ruleset.api.pod import Pod
from ruleset.api.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from ruleset.api.workloads import (
    PodDisruptionBudget,
    PriorityClass,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
)


def stored(raw: Any, pod: bool = False) -> bool:
    """Whether the API server has stored this object already (a dump's: it has a uid or a
    creation time; a pod bound to a node too, with ``pod``): then it is not created again,
    and admission does not run on it again."""
    if not isinstance(raw, dict):
        return False
    meta, spec = raw.get("metadata"), raw.get("spec")
    if isinstance(meta, dict) and (meta.get("uid") or meta.get("creationTimestamp")):
        return True
    return pod and isinstance(spec, dict) and bool(spec.get("nodeName"))


def namespace_of(meta: Any) -> str:
    """``metadata.namespace``, or ``default`` (the API server's, for kubectl without ``-n``)."""
    namespace = meta.get("namespace") if isinstance(meta, dict) else None
    return namespace if isinstance(namespace, str) and namespace else "default"


@dataclass
class RawObject:
    """An object kept as parsed until the whole input is read: a pod that admission has still
    to default (it needs every LimitRange and RuntimeClass), or a workload whose pods are
    still to be created (``--pods``) or counted (``--scale``)."""

    kind: str
    raw: dict
    file: str | None
    document: int
    #: Whether the object gets the API server's checks and admission (see :func:`decode_documents`).
    api_checks: bool = True
    #: "cluster" (what the cluster holds) or "pods" (what ``--pods`` asks to create).
    role: str = "cluster"


#: The :class:`Cluster` lists of storage objects (the snapshot's ``VolumeStore``).
STORAGE_LISTS = ("persistent_volume_claims", "persistent_volumes", "storage_classes", "csi_nodes",
                 "csi_drivers", "csi_storage_capacities")


@dataclass
class Cluster:
    """Every object the scheduler uses, in input order, plus a count of what was skipped."""

    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    services: list[Service] = field(default_factory=list)
    replication_controllers: list[ReplicationController] = field(default_factory=list)
    replica_sets: list[ReplicaSet] = field(default_factory=list)
    stateful_sets: list[StatefulSet] = field(default_factory=list)
    pod_disruption_budgets: list[PodDisruptionBudget] = field(default_factory=list)
    priority_classes: list[PriorityClass] = field(default_factory=list)
    limit_ranges: list[LimitRange] = field(default_factory=list)
    runtime_classes: list[RuntimeClass] = field(default_factory=list)
    persistent_volume_claims: list[PersistentVolumeClaim] = field(default_factory=list)
    persistent_volumes: list[PersistentVolume] = field(default_factory=list)
    storage_classes: list[StorageClass] = field(default_factory=list)
    csi_nodes: list[CSINode] = field(default_factory=list)
    csi_drivers: list[CSIDriver] = field(default_factory=list)
    csi_storage_capacities: list[CSIStorageCapacity] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    #: Every kind read, with how many objects of it (to say what a file held).
    kinds: Counter = field(default_factory=Counter)
    #: Objects the run created besides pods (a StatefulSet's claims), by kind.
    created: Counter = field(default_factory=Counter)
    #: Pods (raw, before admission) and ``--pods`` workloads, in input order; emptied by :func:`admit`.
    pod_sources: list[RawObject] = field(default_factory=list)
    #: Every workload read (raw), for ``--scale``.
    workloads: list[RawObject] = field(default_factory=list)
    #: Pods admission refused (they are reported, never scheduled), with its message.
    refused: dict[Pod, str] = field(default_factory=dict)
    #: What admission changed: kind of change → number of pods.
    admission: Counter = field(default_factory=Counter)
    #: What ``--pods`` files held that gives no pod (a CronJob, a ConfigMap): said always,
    #: since the user asked for pods, as one line per kind and file.
    warnings: Counter = field(default_factory=Counter)
    #: Pod fields newer than 1.20 (:mod:`ruleset.manifests.newer`) -> how many pods use them.
    newer_fields: Counter = field(default_factory=Counter)
    #: Files whose objects were read without their lines (a large YAML stream the native parser
    #: reads: see :func:`~ruleset.manifests.load_manifests`). A problem found in one of them, or
    #: naming one, is reported after reading them again with every line.
    unlocated: set[str] = field(default_factory=set)

    def extend(self, other: Cluster) -> None:
        for name in ("nodes", "pods", "services", "replication_controllers", "replica_sets", "stateful_sets",
                     "pod_disruption_budgets", "priority_classes", "limit_ranges", "runtime_classes",
                     *STORAGE_LISTS, "pod_sources", "workloads"):
            getattr(self, name).extend(getattr(other, name))
        self.refused.update(other.refused)
        self.skipped.update(other.skipped)
        self.kinds.update(other.kinds)
        self.created.update(other.created)
        self.admission.update(other.admission)
        self.warnings.update(other.warnings)
        self.newer_fields.update(other.newer_fields)
        self.unlocated.update(other.unlocated)
