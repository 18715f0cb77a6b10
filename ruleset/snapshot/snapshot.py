"""The cluster snapshot: nodes and their assigned pods in numpy columns.

Batch plugins read per-node arrays (allocatable, requested, non-zero requested, pod count)
and the :class:`~ruleset.snapshot.pod_table.PodTable`. The scheduler updates the snapshot
incrementally as it places pods (``add_pod``) and as preemption evicts them
(``remove_pod``), so the arrays always describe the current state.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from ruleset.api import resources as res
from ruleset.api.node import Node
from ruleset.api.pod import Pod
from ruleset.api.workloads import (
    PodDisruptionBudget,
    PriorityClass,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
)
from ruleset.labels import LabelTable
from ruleset.snapshot.node_info import ImageState, NodeInfo, NodeSet
from ruleset.snapshot.pod_table import PodTable

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


@dataclass
class Workloads:
    """Cluster objects that select pods; read-only during a run."""

    services: list[Service] = field(default_factory=list)
    replication_controllers: list[ReplicationController] = field(default_factory=list)
    replica_sets: list[ReplicaSet] = field(default_factory=list)
    stateful_sets: list[StatefulSet] = field(default_factory=list)
    pod_disruption_budgets: list[PodDisruptionBudget] = field(default_factory=list)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)

    def in_namespace(self, kind: str, namespace: str) -> list:
        """Objects of ``kind`` (an attribute name) in ``namespace``, in input order."""
        cache = self.__dict__.setdefault("_by_namespace", {})
        key = (kind, namespace)
        if key not in cache:
            cache[key] = [o for o in getattr(self, kind) if o.meta.namespace == namespace]
        return cache[key]


def sanitize_host_port(ip: str, protocol: str) -> tuple[str, str]:
    """``HostPortInfo.sanitize``: empty IP is 0.0.0.0, empty protocol is TCP."""
    return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or "TCP"


class Snapshot:
    """Nodes (fixed) and assigned pods (changing) of one cluster, in columns."""

    def __init__(self, nodes: Sequence[Node], workloads: Workloads | None = None):
        self.nodes: list[Node] = list(nodes)
        self.workloads = workloads or Workloads()
        self.node_names: list[str] = [n.name for n in self.nodes]
        self.node_index: dict[str, int] = {name: i for i, name in enumerate(self.node_names)}
        self.node_labels = LabelTable((n.labels for n in self.nodes), capacity=max(1, len(self.nodes)))
        n = len(self.nodes)
        self.allowed_pods = np.array([node.allowed_pod_number for node in self.nodes], dtype=np.int64)
        self._allocatable: dict[str, np.ndarray] = {}
        for i, node in enumerate(self.nodes):
            for name, value in node.allocatable.items():
                column = self._allocatable.get(name)
                if column is None:
                    column = self._allocatable[name] = np.zeros(n, dtype=np.int64)
                column[i] = value
        self._requested: dict[str, np.ndarray] = {}
        self.non_zero_cpu = np.zeros(n, dtype=np.int64)
        self.non_zero_memory = np.zeros(n, dtype=np.int64)
        self.pod_count = np.zeros(n, dtype=np.int64)
        self.volume_count = np.zeros(n, dtype=np.int64)
        self.pod_table = PodTable()
        self._node_pods: list[list[Pod]] = [[] for _ in range(n)]
        self.used_ports: list[dict[tuple[str, int], dict[str, int]]] = [{} for _ in range(n)]
        self.port_users: dict[tuple[str, int], set[int]] = defaultdict(set)
        self._image_states = self._build_image_states()
        #: Node indices in kube-scheduler's ``nodeTree`` order (zones round-robin).
        self.evaluation_order = node_tree_order(self.nodes)
        #: Incremented on every change; lets plugins cache derived data safely.
        self.generation = 0
        self._journals: list[list[tuple]] = []

    # ----------------------------------------------------------------- nodes
    @property
    def num_nodes(self) -> int:
        return len(self.nodes)

    def all_nodes(self) -> NodeSet:
        return NodeSet(self, np.arange(len(self.nodes)))

    def node_info(self, index: int) -> NodeInfo:
        return NodeInfo(self, index)

    def allocatable(self, resource: str) -> np.ndarray:
        """Per-node allocatable of ``resource`` (CPU in millicores); zeros where not reported."""
        column = self._allocatable.get(resource)
        return column if column is not None else np.zeros(len(self.nodes), dtype=np.int64)

    def requested(self, resource: str) -> np.ndarray:
        """Per-node ``Requested`` of ``resource`` by the assigned pods."""
        column = self._requested.get(resource)
        return column if column is not None else np.zeros(len(self.nodes), dtype=np.int64)

    def resource_names(self) -> list[str]:
        """Every resource some node reports or some assigned pod requests."""
        return sorted(set(self._allocatable) | set(self._requested))

    def requested_on(self, index: int) -> dict[str, int]:
        return {name: int(column[index]) for name, column in self._requested.items() if column[index]}

    def _build_image_states(self) -> list[dict[str, ImageState]]:
        # As cache.NewSnapshot: an image's size is this node's, its spread counts every node having it.
        having: dict[str, set[int]] = defaultdict(set)
        for i, node in enumerate(self.nodes):
            for image in node.images:
                for name in image.names:
                    having[name].add(i)
        states = []
        for node in self.nodes:
            summary = {}
            for image in node.images:
                for name in image.names:
                    summary[name] = ImageState(size=image.size_bytes, num_nodes=len(having[name]))
            states.append(summary)
        return states

    def image_states(self, index: int) -> dict[str, ImageState]:
        return self._image_states[index]

    # ------------------------------------------------------------------ pods
    def pods_on(self, index: int) -> list[Pod]:
        """Pods assigned to node ``index``, in the order they were added."""
        return list(self._node_pods[index])

    def node_of(self, pod: Pod) -> int:
        """The node index ``pod`` is assigned to, or -1."""
        row = self.pod_table.row_of.get(pod)
        return -1 if row is None else int(self.pod_table.node[row])

    def add_pod(self, pod: Pod, index: int, position: int | None = None) -> None:
        """Assign ``pod`` to node ``index`` and account for its resources and ports.

        ``position`` puts the pod back at that place in the node's pod list (for undo).
        """
        self.pod_table.add(pod, index)
        pods = self._node_pods[index]
        if position is None:
            pods.append(pod)
        else:
            pods.insert(position, pod)
        self._account(pod, index, +1)
        if self._journals:
            self._journals[-1].append(("add", pod, index))

    def remove_pod(self, pod: Pod) -> int:
        """Take ``pod`` off its node; returns the node index it was on."""
        row = self.pod_table.row_of[pod]
        index = int(self.pod_table.node[row])
        self.pod_table.remove(pod)
        pods = self._node_pods[index]
        position = next(i for i, p in enumerate(pods) if p is pod)
        del pods[position]
        self._account(pod, index, -1)
        if self._journals:
            self._journals[-1].append(("remove", pod, index, position))
        return index

    @contextmanager
    def what_if(self) -> Iterator[Snapshot]:
        """Changes made inside the block are undone, exactly, when it ends (dry runs)."""
        journal: list[tuple] = []
        self._journals.append(journal)
        try:
            yield self
        finally:
            self._journals.pop()
            saved, self._journals = self._journals, []
            try:
                for entry in reversed(journal):
                    if entry[0] == "add":
                        self.remove_pod(entry[1])
                    else:
                        _, pod, index, position = entry
                        self.add_pod(pod, index, position)
            finally:
                self._journals = saved

    def _account(self, pod: Pod, index: int, sign: int) -> None:
        n = len(self.nodes)
        for name, value in pod.requests.items():
            column = self._requested.get(name)
            if column is None:
                column = self._requested[name] = np.zeros(n, dtype=np.int64)
            column[index] += sign * value
        cpu, mem = pod.non_zero_requests
        self.non_zero_cpu[index] += sign * cpu
        self.non_zero_memory[index] += sign * mem
        self.pod_count[index] += sign
        self.volume_count[index] += sign * len(pod.volumes)
        ports = self.used_ports[index]
        for container in pod.containers:
            for port in container.ports:
                if port.host_port <= 0:
                    continue
                ip, protocol = sanitize_host_port(port.host_ip, port.protocol)
                key = (protocol, port.host_port)
                users = ports.setdefault(key, {})
                users[ip] = users.get(ip, 0) + sign
                if users[ip] <= 0:
                    del users[ip]
                if users:
                    self.port_users[key].add(index)
                else:
                    del ports[key]
                    self.port_users[key].discard(index)
        self.generation += 1

    # ------------------------------------------------------------ workloads
    @property
    def priority_classes(self) -> dict[str, PriorityClass]:
        return self.workloads.priority_classes


def zone_key(labels: dict[str, str]) -> str:
    """``utilnode.GetZoneKey``: "region:\\x00:zone" from the failure-domain or topology labels.

    The older ``failure-domain.beta.kubernetes.io`` key wins when present (even empty).
    """
    zone = labels.get("failure-domain.beta.kubernetes.io/zone")
    if zone is None:
        zone = labels.get("topology.kubernetes.io/zone", "")
    region = labels.get("failure-domain.beta.kubernetes.io/region")
    if region is None:
        region = labels.get("topology.kubernetes.io/region", "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def node_tree_order(nodes: Sequence[Node]) -> np.ndarray:
    """The order kube-scheduler's ``nodeTree.list()`` gives: one node per zone in turn.

    Zones come in the order their first node appears; nodes within a zone in input order.
    """
    zones: dict[str, list[int]] = {}
    for i, node in enumerate(nodes):
        zones.setdefault(zone_key(node.labels), []).append(i)
    order: list[int] = []
    columns = list(zones.values())
    depth = max((len(c) for c in columns), default=0)
    for level in range(depth):
        order.extend(column[level] for column in columns if level < len(column))
    return np.array(order, dtype=np.intp)
