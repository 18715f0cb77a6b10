"""Assemble decoded manifests into a schedulable cluster: a snapshot plus the pending pods.

Resolves pod priorities the way the Priority admission plugin does, places pods that
already have ``spec.nodeName``, and keeps everything else it notices (skipped objects,
pods on unknown nodes) as counted notes for ``--verbose``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ruleset.api.meta import ObjectMeta
from ruleset.api.pod import Pod
from ruleset.api.workloads import PriorityClass
from ruleset.errors import Problem, RulesetError
from ruleset.manifests import Cluster
from ruleset.snapshot import Snapshot, Workloads
from ruleset.snapshot.state import ClusterState

#: Classes every cluster has (``scheduling.SystemPriorityClasses``); dumps often omit them.
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
}
DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"


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
    """Set ``pod.priority`` and ``pod.preemption_policy`` as admission would; returns an error or None."""
    pc = classes.get(pod.priority_class_name) if pod.priority_class_name else default
    error = None
    if pod.priority_class_name and pc is None:
        error = f"no PriorityClass with name {pod.priority_class_name} was found"
    if pod.spec_priority is not None:
        pod.priority = pod.spec_priority
    elif pc is not None:
        pod.priority = pc.value
    else:
        pod.priority = 0
    if not pod.preemption_policy:
        pod.preemption_policy = pc.preemption_policy if pc is not None else DEFAULT_PREEMPTION_POLICY
    return error


def build_cluster_state(cluster: Cluster) -> ClusterState:
    """Build the snapshot; raise :class:`RulesetError` for duplicate nodes or pods."""
    problems: list[Problem] = []
    seen_nodes: set[str] = set()
    for node in cluster.nodes:
        if node.name in seen_nodes:
            problems.append(Problem(f"duplicate Node {node.name!r}", path=f"Node {node.name}",
                                    code="duplicate"))
        seen_nodes.add(node.name)
    seen_pods: set[str] = set()
    for pod in cluster.pods:
        if pod.key in seen_pods:
            problems.append(Problem(f"duplicate Pod {pod.key!r}", path=f"Pod {pod.key}", code="duplicate"))
        seen_pods.add(pod.key)
    if problems:
        raise RulesetError(problems)

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
    snapshot = Snapshot(cluster.nodes, workloads)
    state = ClusterState(snapshot=snapshot, pending=[], notes=Counter(cluster.skipped))
    for pod in cluster.pods:
        error = resolve_priority(pod, classes, default)
        if pod.node_name:
            index = snapshot.node_index.get(pod.node_name)
            if index is None:
                state.notes["Pod (on a node not in the snapshot)"] += 1
                continue
            if error:
                state.notes["Pod (placed, unknown PriorityClass, priority 0)"] += 1
            snapshot.add_pod(pod, index)
        elif pod.terminating:
            state.notes["Pod (pending and being deleted)"] += 1
        else:
            if error:
                state.pod_errors[pod] = error
            state.pending.append(pod)
    return state
