"""Assemble decoded manifests into a schedulable cluster: a snapshot plus the pending pods.

Resolves pod priorities the way the Priority admission plugin does, places pods that
already have ``spec.nodeName``, and keeps everything else it notices (skipped objects,
pods on unknown nodes) as counted notes for ``--verbose``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ruleset.api.meta import ObjectMeta, Origin
from ruleset.api.pod import Pod, apply_target
from ruleset.api.storage import pod_claims
from ruleset.api.workloads import PriorityClass
from ruleset.errors import Problem, RulesetError
from ruleset.kversion import Target
from ruleset.manifests import Cluster
from ruleset.snapshot import Snapshot, VolumeStore, Workloads
from ruleset.snapshot.state import ClusterState
from ruleset.workloads.pv_controller import bind_new_claims

#: Classes every cluster has (``scheduling.SystemPriorityClasses``); dumps often omit them.
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
}
DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"
#: Duplicate Nodes (and Pods) listed one by one; the rest are counted on one more line.
MAX_LISTED_DUPLICATES = 5


def _priority_classes(cluster: Cluster) -> dict[str, PriorityClass]:
    classes = {
        name: PriorityClass(meta=ObjectMeta(name=name, uid=f"PriorityClass//{name}"), value=value)
        for name, value in SYSTEM_PRIORITY_CLASSES.items()
    }
    for pc in cluster.priority_classes:
        classes[pc.meta.name] = pc
    return classes


def global_default(classes: Iterable[PriorityClass]) -> PriorityClass | None:
    """The class admission gives pods without ``priorityClassName``: of the classes marked
    ``globalDefault``, the one with the highest value (None when none is)."""
    return max((pc for pc in classes if pc.global_default), key=lambda pc: pc.value, default=None)


def resolve_priority(pod: Pod, classes: dict[str, PriorityClass],
                     default: PriorityClass | None) -> str | None:
    """Set ``pod.priority`` and ``pod.preemption_policy``; returns an error or None.

    A pod with ``spec.priority`` has been through admission already (the Priority admission
    plugin writes it when the pod is created), and kube-scheduler reads only that field
    (``corev1helpers.PodPriority``), never the class again: such a pod keeps its priority
    even when its PriorityClass has been deleted since. A pod without ``spec.priority`` is
    resolved as admission would resolve it on creation: its class, else the global default,
    else 0; a class that does not exist is admission's refusal, ``no PriorityClass with name
    … was found`` (the pod could not have been created, so it is reported, not scheduled).
    An absent ``spec.preemptionPolicy`` comes from the class (admission copies it), else
    PreemptLowerPriority (what the scheduler assumes of a nil policy).
    """
    pc = classes.get(pod.priority_class_name) if pod.priority_class_name else default
    error = None
    if pod.spec_priority is not None:
        pod.priority = pod.spec_priority
    elif pod.priority_class_name and pc is None:
        error = f"no PriorityClass with name {pod.priority_class_name} was found"
        pod.priority = 0
    elif pc is not None:
        pod.priority = pc.value
    else:
        pod.priority = 0
    if not pod.preemption_policy:
        pod.preemption_policy = pc.preemption_policy if pc is not None else DEFAULT_PREEMPTION_POLICY
    return error


def _duplicate_problems(kind: str, objects: Iterable[tuple[str, Origin | None]]) -> list[Problem]:
    """One located problem per object whose name (``namespace/name`` for pods) came before,
    naming where it came first, for the first :data:`MAX_LISTED_DUPLICATES`; then one line
    counting the rest, located at the first of them."""
    first: dict[str, Origin | None] = {}
    duplicates: list[tuple[str, Origin | None]] = []
    for name, origin in objects:
        if name in first:
            duplicates.append((name, origin))
        else:
            first[name] = origin
    problems = []
    for name, origin in duplicates[:MAX_LISTED_DUPLICATES]:
        file, line, where = _location(origin)
        subject = f"{kind} {name}"
        problems.append(Problem(f"duplicate {kind} {name!r}{_first_at(first[name], origin)}", file=file,
                                line=line, path=f"{where}: {subject}" if where else subject,
                                code="duplicate"))
    rest = duplicates[MAX_LISTED_DUPLICATES:]
    if rest:
        file, line, where = _location(rest[0][1])
        problems.append(Problem(f"{len(rest)} more duplicate {kind}s, from this one on "
                                f"(only the first {MAX_LISTED_DUPLICATES} are listed)",
                                file=file, line=line, path=where, code="duplicate"))
    return problems


def _first_at(first: Origin | None, duplicate: Origin | None) -> str:
    """`` (first at FILE:LINE)``, or `` (first at line N)`` in the duplicate's own file."""
    if first is None:
        return ""
    file, line, where = _location(first)
    if duplicate is not None and duplicate.file == first.file:
        place = f"line {line}" if line is not None else where
    else:
        place = ":".join(str(part) for part in (file, line) if part is not None)
        if where is not None:
            place = f"{place}: {where}" if place else where
    return f" (first at {place})" if place else ""


def _location(origin: Origin | None) -> tuple[str | None, int | None, str | None]:
    """(file, line, ``document N`` when the line is unknown) of an object, as decoding locates."""
    if origin is None:
        return None, None, None
    where = f"document {origin.document + 1}" if origin.line is None and origin.document is not None else None
    return origin.file, origin.line, where


def _storage_duplicates(cluster: Cluster) -> list[Problem]:
    """Storage objects of the same key twice (the API server's AlreadyExists), as for nodes."""
    keyed: list[tuple[str, list[tuple[str, ObjectMeta]]]] = [
        ("PersistentVolumeClaim", [(c.key, c.meta) for c in cluster.persistent_volume_claims]),
        ("PersistentVolume", [(v.name, v.meta) for v in cluster.persistent_volumes]),
        ("StorageClass", [(c.name, c.meta) for c in cluster.storage_classes]),
        ("CSINode", [(n.name, n.meta) for n in cluster.csi_nodes]),
        ("CSIDriver", [(d.name, d.meta) for d in cluster.csi_drivers]),
        ("CSIStorageCapacity", [(f"{c.meta.namespace}/{c.meta.name}", c.meta)
                                for c in cluster.csi_storage_capacities]),
    ]
    problems = []
    for kind, objects in keyed:
        problems += _duplicate_problems(kind, ((key, meta.origin) for key, meta in objects))
    return problems


#: The storage kinds the volume plugins read, as ``--verbose`` names them.
STORAGE_KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode", "CSIDriver",
                 "CSIStorageCapacity")
#: Said when pods mount claims and the input has no storage object at all: the volume plugins
#: then check nothing (a dump made without them is the common case, not a cluster without storage).
NO_STORAGE_WARNING = ("pods mount PersistentVolumeClaims but the input has no storage objects, so volume "
                      "binding, zones and attach limits are not checked (add them: kubectl get "
                      "pvc,pv,storageclass,csinode,csidriver -A -o yaml)")


def build_cluster_state(cluster: Cluster, target: Target | None = None) -> ClusterState:
    """Build the snapshot (its storage objects in a ``VolumeStore``), pods counted as ``target``'s
    release counts them (sidecars, pod-level resources; 1.20 when None); raise
    :class:`RulesetError` for duplicate nodes, pods or storage objects (each located at the
    duplicate; at most :data:`MAX_LISTED_DUPLICATES` lines of each kind, and a count)."""
    problems = _duplicate_problems("Node", ((n.name, n.meta.origin) for n in cluster.nodes))
    problems += _duplicate_problems("Pod", ((p.key, p.meta.origin) for p in cluster.pods))
    problems += _storage_duplicates(cluster)
    if problems:
        raise RulesetError(problems)

    if target is not None:
        apply_target(cluster.pods, target)
    classes = _priority_classes(cluster)
    default = global_default(cluster.priority_classes)
    workloads = Workloads(
        services=list(cluster.services),
        replication_controllers=list(cluster.replication_controllers),
        replica_sets=list(cluster.replica_sets),
        stateful_sets=list(cluster.stateful_sets),
        pod_disruption_budgets=list(cluster.pod_disruption_budgets),
        priority_classes=classes,
    )
    # The PV controller binds the run's new Immediate claims before anything is scheduled.
    bound = bind_new_claims(cluster.persistent_volume_claims, cluster.persistent_volumes,
                            cluster.storage_classes)
    storage = VolumeStore.of(claims=cluster.persistent_volume_claims, volumes=cluster.persistent_volumes,
                             classes=cluster.storage_classes, csi_nodes=cluster.csi_nodes,
                             csi_drivers=cluster.csi_drivers, capacities=cluster.csi_storage_capacities)
    snapshot = Snapshot(cluster.nodes, workloads, storage=storage)
    state = ClusterState(snapshot=snapshot, pending=[], notes=Counter(cluster.skipped),
                         admission=Counter(cluster.admission), warnings=Counter(cluster.warnings),
                         newer_fields=Counter(cluster.newer_fields),
                         read=Counter({k: cluster.kinds[k] for k in STORAGE_KINDS if cluster.kinds[k]}),
                         created=Counter(cluster.created), bound=bound)
    placed: list[Pod] = []
    places: list[int] = []
    for pod in cluster.pods:
        error = resolve_priority(pod, classes, default)
        # Priority refuses in the mutating phase, before the other plugins' refusals.
        error = error or cluster.refused.get(pod)
        if pod.node_name:
            index = snapshot.node_index.get(pod.node_name)
            if index is None:
                state.notes["Pod (on a node not in the snapshot)"] += 1
                continue
            if error:
                state.notes["Pod (placed, unknown PriorityClass, priority 0)"] += 1
            placed.append(pod)
            places.append(index)
        elif pod.terminating:
            state.notes["Pod (pending and being deleted)"] += 1
        else:
            if error:
                state.pod_errors[pod] = error
            state.pending.append(pod)
    snapshot.add_pods(placed, places)
    if storage.is_empty():
        mounting = sum(1 for pod in state.pending if pod_claims(pod.meta.name, pod.volumes))
        if mounting:
            state.warnings[(None, NO_STORAGE_WARNING)] += mounting
    return state
