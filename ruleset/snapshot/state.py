"""What a run starts from: the snapshot, and the pods waiting for a node."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ruleset.api.pod import Pod
from ruleset.snapshot.snapshot import Snapshot


@dataclass
class ClusterState:
    """A snapshot ready to schedule on, and the pods waiting for a node (in input order)."""

    snapshot: Snapshot
    pending: list[Pod]
    notes: Counter[str] = field(default_factory=Counter)
    #: What the API server's defaulting and admission changed: kind of change → number of pods.
    admission: Counter[str] = field(default_factory=Counter)
    #: ``(file, what)`` of ``--pods`` input that gives no pod, with how many times: said always.
    warnings: Counter[tuple[str | None, str]] = field(default_factory=Counter)
    #: Pod fields newer than Kubernetes 1.20 -> how many pods use them (see :mod:`ruleset.manifests.newer`).
    newer_fields: Counter[str] = field(default_factory=Counter)
    #: Storage objects read, by kind (said under --verbose: they are what the volume plugins check).
    read: Counter[str] = field(default_factory=Counter)
    #: Objects the run created besides pods (a StatefulSet's claims), by kind: said under --verbose.
    created: Counter[str] = field(default_factory=Counter)
    #: Claims the run created that the PV controller bound to a volume before scheduling.
    bound: int = 0
    #: Pods that can never be scheduled because their manifest is inconsistent, with why.
    pod_errors: dict[Pod, str] = field(default_factory=dict)

    @property
    def schedulable(self) -> tuple[Pod, ...]:
        """The pending pods the queue takes: those without a :attr:`pod_errors` entry."""
        return tuple(p for p in self.pending if p not in self.pod_errors)
