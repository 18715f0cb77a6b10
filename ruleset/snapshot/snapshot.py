"""The cluster snapshot: nodes and their assigned pods in numpy columns.

Batch plugins read per-node arrays (allocatable, requested, non-zero requested, pod count)
and the :class:`~ruleset.snapshot.pod_table.PodTable`. The scheduler updates the snapshot
incrementally as it places pods (``add_pod``) and as preemption evicts them
(``remove_pod``), so the arrays always describe the current state.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

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
from ruleset.quantity import MAX_INT64, MIN_INT64, wrap_int64
from ruleset.snapshot.node_info import ImageState, NodeInfo, NodeSet
from ruleset.snapshot.pod_table import PodTable
from ruleset.snapshot.storage import VolumeStore

DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"
#: How many node stamps :meth:`Snapshot.changed_since` keeps (older questions compare every node).
_LOG = 4096
_NO_NODES = np.zeros(0, dtype=np.intp)
_NO_NODES.flags.writeable = False

T = TypeVar("T")


@dataclass
class Workloads:
    """Cluster objects that select pods; read-only during a run."""

    services: list[Service] = field(default_factory=list)
    replication_controllers: list[ReplicationController] = field(default_factory=list)
    replica_sets: list[ReplicaSet] = field(default_factory=list)
    stateful_sets: list[StatefulSet] = field(default_factory=list)
    pod_disruption_budgets: list[PodDisruptionBudget] = field(default_factory=list)
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)

    def in_namespace(self, kind: str, namespace: str) -> list[Any]:
        """Objects of ``kind`` (an attribute name) in ``namespace``, in input order."""
        cache: dict[tuple[str, str], list[Any]] = self.__dict__.setdefault("_by_namespace", {})
        key = (kind, namespace)
        if key not in cache:
            cache[key] = [o for o in getattr(self, kind) if o.meta.namespace == namespace]
        return cache[key]


class _Journal:
    """A :meth:`Snapshot.what_if` block: what it touched, as it was before the block."""

    __slots__ = ("node_before", "pods_before", "snapshot")

    def __init__(self, snapshot: Snapshot):
        self.snapshot = snapshot
        #: Each pod added or removed: the node it was on (-1 for none).
        self.node_before: dict[Pod, int] = {}
        #: Each node a pod joined or left: its pod list.
        self.pods_before: dict[int, list[Pod]] = {}

    def note(self, pod: Pod, node: int, index: int, pods: list[Pod]) -> None:
        """Before ``pod`` (now on ``node``) joins or leaves node ``index`` (holding ``pods``)."""
        self.node_before.setdefault(pod, node)
        if index not in self.pods_before:
            self.pods_before[index] = list(pods)

    # A class rather than a @contextmanager generator: dry runs open one per candidate node
    # and per node with nominated pods, and this is cheaper to enter and leave.
    def __enter__(self) -> Snapshot:
        self.snapshot._journals.append(self)
        return self.snapshot

    def __exit__(self, *exc_info: object) -> None:
        self.snapshot._journals.pop()
        self.snapshot._undo(self)


def sanitize_host_port(ip: str, protocol: str) -> tuple[str, str]:
    """``HostPortInfo.sanitize``: empty IP is 0.0.0.0, empty protocol is TCP."""
    return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or "TCP"


class Snapshot:
    """Nodes (fixed) and assigned pods (changing) of one cluster, in columns."""

    def __init__(self, nodes: Sequence[Node], workloads: Workloads | None = None,
                 storage: VolumeStore | None = None):
        self.nodes: list[Node] = list(nodes)
        self.workloads = workloads or Workloads()
        #: Claims, volumes, classes and CSI objects, with the volume binder's assumptions.
        self.storage = storage if storage is not None else VolumeStore()
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
        # What allocatable()/requested() return for a resource nobody reports or requests:
        # shared (filters ask for each resource on every call), so read-only.
        self._zeros = np.zeros(n, dtype=np.int64)
        self._zeros.flags.writeable = False
        self.non_zero_cpu = np.zeros(n, dtype=np.int64)
        self.non_zero_memory = np.zeros(n, dtype=np.int64)
        self.pod_count = np.zeros(n, dtype=np.int64)
        self.volume_count = np.zeros(n, dtype=np.int64)
        self.pod_table = PodTable()
        self._node_pods: list[list[Pod]] = [[] for _ in range(n)]
        self.used_ports: list[dict[tuple[str, int], dict[str, int]]] = [{} for _ in range(n)]
        self.port_users: dict[tuple[str, int], set[int]] = defaultdict(set)
        #: Each node's zone (``utilnode.GetZoneKey``) as a small integer, -1 for none.
        self.zone_codes = zone_codes(self.nodes)
        #: Node indices in kube-scheduler's ``nodeTree`` order (zones round-robin).
        self.evaluation_order = node_tree_order(self.zone_codes)
        #: Incremented on every change; lets plugins cache derived data safely.
        self.generation = 0
        #: Per node, the :attr:`generation` its pods, sums or ports last changed at: what was
        #: worked out per node at generation ``g`` still holds where ``changed_at <= g``.
        self.changed_at = np.zeros(n, dtype=np.int64)
        # The latest stamps, oldest first (generation, node), complete after _log_from: which nodes
        # changed since a recent generation, without comparing every node's stamp.
        self._log_generations: list[int] = []
        self._log_nodes: list[int] = []
        self._log_from = 0
        #: What plugins and helpers derive from this snapshot (indexes, trackers), under a key
        #: of their choosing (their module's name); each decides when its entry is stale.
        #: :meth:`derive` builds an entry on first use.
        self.derived: dict[str, Any] = {}
        self._journals: list[_Journal] = []

    # ----------------------------------------------------------------- nodes
    @property
    def num_nodes(self) -> int:
        return len(self.nodes)

    def all_nodes(self) -> NodeSet:
        return NodeSet(self, np.arange(len(self.nodes)))

    def derive(self, key: str, build: Callable[[Snapshot], T]) -> T:
        """``build(self)``, built on first use and kept in :attr:`derived` under ``key``.

        Nodes never change during a run, so what is derived from them alone (their labels,
        taints, images, annotations) is never stale; an entry that depends on the pods must
        bring itself up to date when it is used.
        """
        try:
            found: T = self.derived[key]
            return found
        except KeyError:
            value = self.derived[key] = build(self)
            return value

    def node_info(self, index: int) -> NodeInfo:
        return NodeInfo(self, index)

    def allocatable(self, resource: str) -> np.ndarray:
        """Per-node allocatable of ``resource`` (CPU in millicores); zeros where not reported.

        The live column: read it, never write to it.
        """
        column = self._allocatable.get(resource)
        return column if column is not None else self._zeros

    def requested(self, resource: str) -> np.ndarray:
        """Per-node ``Requested`` of ``resource`` by the assigned pods (the live column: read only)."""
        column = self._requested.get(resource)
        return column if column is not None else self._zeros

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
        """``NodeInfo.ImageStates`` of node ``index`` (built for every node on first use)."""
        return self.derive("ruleset.snapshot.image_states", Snapshot._build_image_states)[index]

    # ------------------------------------------------------------------ pods
    def pods_on(self, index: int) -> list[Pod]:
        """Pods assigned to node ``index``, in the order they were added."""
        return list(self._node_pods[index])

    def node_of(self, pod: Pod) -> int:
        """The node index ``pod`` is assigned to, or -1."""
        row = self.pod_table.row_of.get(pod)
        return -1 if row is None else self.pod_table.node_of_row(row)

    def add_pod(self, pod: Pod, index: int) -> None:
        """Assign ``pod`` to node ``index`` (last in its pod list); account for its resources and ports."""
        pods = self._node_pods[index]
        if self._journals:
            self._journals[-1].note(pod, self.node_of(pod), index, pods)
        self.pod_table.add(pod, index)
        pods.append(pod)
        self._account(pod, index, +1)

    def add_pods(self, pods: Sequence[Pod], nodes: Sequence[int]) -> None:
        """:meth:`add_pod` of each of ``pods`` on its node of ``nodes``, in order (loading a
        snapshot): the same state, with each column written once instead of once per pod.
        Pods already in the table, or a :meth:`what_if` block, take :meth:`add_pod`."""
        row_of = self.pod_table.row_of
        if self._journals or len(set(pods)) != len(pods) or any(pod in row_of for pod in pods):
            for pod, index in zip(pods, nodes, strict=True):
                self.add_pod(pod, index)
            return
        self.pod_table.extend(pods, nodes)
        n = len(self.nodes)
        # Per-node sums in Python integers, wrapped to int64 once: the same as int64 += per pod.
        requested: dict[str, list[int]] = {}
        non_zero_cpu, non_zero_memory, pod_count, volume_count = [0] * n, [0] * n, [0] * n, [0] * n
        node_pods = self._node_pods
        for pod, index in zip(pods, nodes, strict=True):
            node_pods[index].append(pod)
            for name, value in pod.requests.items():
                column = requested.get(name)
                if column is None:
                    column = requested[name] = [0] * n
                column[index] += value
            cpu, mem = pod.non_zero_requests
            non_zero_cpu[index] += cpu
            non_zero_memory[index] += mem
            pod_count[index] += 1
            if pod.volumes:
                volume_count[index] += len(pod.volumes)
            if pod.host_ports:
                self._account_ports(pod, index, +1)
        with np.errstate(over="ignore"):
            for name, sums in requested.items():
                live = self._requested.get(name)
                if live is None:
                    live = self._requested[name] = np.zeros(n, dtype=np.int64)
                live += _int64_column(sums)
            self.non_zero_cpu += _int64_column(non_zero_cpu)
            self.non_zero_memory += _int64_column(non_zero_memory)
            self.pod_count += _int64_column(pod_count)
            self.volume_count += _int64_column(volume_count)
        # Each node stamped with the generation of its last pod, as one add_pod per pod would.
        np.maximum.at(self.changed_at, np.asarray(nodes, dtype=np.intp),
                      np.arange(self.generation + 1, self.generation + len(pods) + 1))
        self.generation += len(pods)
        self._log_generations.clear()
        self._log_nodes.clear()
        self._log_from = self.generation

    def remove_pod(self, pod: Pod) -> int:
        """Take ``pod`` off its node; returns the node index it was on."""
        index = self.pod_table.node_of_row(self.pod_table.row_of[pod])
        pods = self._node_pods[index]
        if self._journals:
            self._journals[-1].note(pod, index, index, pods)
        self.pod_table.remove(pod)
        # Pods compare by identity, so list.index finds this very pod.
        del pods[pods.index(pod)]
        self._account(pod, index, -1)
        return index

    def what_if(self) -> AbstractContextManager[Snapshot]:
        """Changes made inside the block are undone, exactly, when it ends (dry runs).

        Blocks nest. The undo puts back only what differs at the end: a pod taken off its
        node and put back there is accounted as it was (its removal and re-addition cancel
        out), so only pods now elsewhere are moved back, and each touched node gets its
        pod list, in its order, back.
        """
        return _Journal(self)

    def _undo(self, journal: _Journal) -> None:
        for pod, before in journal.node_before.items():
            after = self.node_of(pod)
            if after == before:
                continue
            if after >= 0:
                self.pod_table.remove(pod)
                self._account(pod, after, -1)
            if before >= 0:
                self.pod_table.add(pod, before)
                self._account(pod, before, +1)
        for index, pods in journal.pods_before.items():
            self._node_pods[index][:] = pods
            self.pod_table.renumber(pods)
        if journal.node_before:
            self.generation += 1  # never the value of a state seen inside the block
            # A node whose pods came back where they were is not accounted again above.
            for index in journal.pods_before:
                self._stamp(index)

    def _account(self, pod: Pod, index: int, sign: int) -> None:
        # Sums wrap in int64, as Go's do: in Python integers, wrapped once per cell (the same
        # values as numpy's int64 +=, without entering an errstate block and numpy scalars).
        requested = self._requested
        for name, value in pod.requests.items():
            column = requested.get(name)
            if column is None:
                column = requested[name] = np.zeros(len(self.nodes), dtype=np.int64)
            column[index] = wrap_int64(column.item(index) + sign * value)
        cpu, mem = pod.non_zero_requests
        self.non_zero_cpu[index] = wrap_int64(self.non_zero_cpu.item(index) + sign * cpu)
        self.non_zero_memory[index] = wrap_int64(self.non_zero_memory.item(index) + sign * mem)
        self.pod_count[index] = wrap_int64(self.pod_count.item(index) + sign)
        if pod.volumes:
            self.volume_count[index] = wrap_int64(self.volume_count.item(index) + sign * len(pod.volumes))
        self._account_ports(pod, index, sign)
        self.generation += 1
        self._stamp(index)

    def _stamp(self, index: int) -> None:
        """Node ``index`` changed at the current generation."""
        generation = self.generation
        self.changed_at[index] = generation
        self._log_generations.append(generation)
        self._log_nodes.append(index)
        if len(self._log_nodes) > _LOG:
            half = _LOG // 2
            self._log_from = self._log_generations[half - 1]
            del self._log_generations[:half], self._log_nodes[:half]

    def changed_since(self, generation: int) -> np.ndarray:
        """The nodes (ascending) whose pods, sums or ports changed after ``generation``."""
        if generation >= self.generation:
            return _NO_NODES
        if generation >= self._log_from:
            start = bisect.bisect_right(self._log_generations, generation)
            return np.array(sorted(set(self._log_nodes[start:])), dtype=np.intp)
        return np.flatnonzero(self.changed_at > generation)

    def _account_unchecked(self, pod: Pod, index: int, sign: int) -> None:
        """:meth:`_account` (kept for callers of the name: it never needed an errstate block)."""
        self._account(pod, index, sign)

    def _account_ports(self, pod: Pod, index: int, sign: int) -> None:
        ports = self.used_ports[index]
        # The pod's release decides which containers' ports count (pod.host_ports).
        for port in pod.host_ports:
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

    # ------------------------------------------------------------ workloads
    @property
    def priority_classes(self) -> dict[str, PriorityClass]:
        return self.workloads.priority_classes


def _int64_column(sums: list[int]) -> np.ndarray:
    """Per-node sums as int64, each wrapped around as Go's int64 ``+=`` leaves it."""
    if min(sums, default=0) < MIN_INT64 or max(sums, default=0) > MAX_INT64:
        sums = [wrap_int64(v) for v in sums]
    return np.array(sums, dtype=np.int64)


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


def zone_codes(nodes: Sequence[Node]) -> np.ndarray:
    """Each node's :func:`zone_key` as a code, numbered in order of first appearance; -1 for
    a node without a zone."""
    keys: dict[str, int] = {}
    codes = []
    for node in nodes:
        key = zone_key(node.labels)
        codes.append(keys.setdefault(key, len(keys)) if key else -1)
    return np.array(codes, dtype=np.int64)


def node_tree_order(zones_of_nodes: np.ndarray) -> np.ndarray:
    """The order kube-scheduler's ``nodeTree.list()`` gives: one node per zone in turn.

    ``zones_of_nodes`` holds each node's zone code (:func:`zone_codes`; the nodes without a
    zone form one more zone). Zones come in the order their first node appears; nodes
    within a zone in input order.
    """
    zones: dict[int, list[int]] = {}
    for i, zone in enumerate(zones_of_nodes.tolist()):
        zones.setdefault(zone, []).append(i)
    order: list[int] = []
    columns = list(zones.values())
    depth = max((len(c) for c in columns), default=0)
    for level in range(depth):
        order.extend(column[level] for column in columns if level < len(column))
    return np.array(order, dtype=np.intp)
