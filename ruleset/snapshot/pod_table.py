"""Columnar table of the pods assigned to nodes.

One row per assigned pod; rows are never reused for another pod, so a row number is a
stable handle. A pod removed (evicted, or taken out during a preemption dry run) keeps its
row marked dead and is revived in place when added back.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ruleset.api.pod import Pod
from ruleset.labels import LabelTable
from ruleset.quantity import wrap_int64


class _Column:
    """A growable numpy column."""

    __slots__ = ("data", "fill")

    def __init__(self, dtype: type, fill: object, capacity: int):
        self.fill = fill
        self.data: np.ndarray = np.full(capacity, fill, dtype=dtype)

    def grow(self, capacity: int, used: int) -> None:
        grown = np.full(capacity, self.fill, dtype=self.data.dtype)
        grown[:used] = self.data[:used]
        self.data = grown


class PodTable:
    """Assigned pods in columns: node, namespace, priority, liveness and labels."""

    def __init__(self, capacity: int = 64):
        self._capacity = capacity
        self._size = 0
        self._node = _Column(np.int32, -1, capacity)
        self._namespace = _Column(np.int32, -1, capacity)
        self._priority = _Column(np.int64, 0, capacity)
        self._terminating = _Column(np.bool_, False, capacity)
        self._alive = _Column(np.bool_, False, capacity)
        self._has_affinity = _Column(np.bool_, False, capacity)
        #: ``status.startTime`` (inf when unset) and the order rows joined their node's pod list.
        self._start = _Column(np.float64, np.inf, capacity)
        self._seq = _Column(np.int64, 0, capacity)
        self._next_seq = 0
        self._columns = (self._node, self._namespace, self._priority, self._terminating, self._alive,
                         self._has_affinity, self._start, self._seq)
        self.labels = LabelTable(capacity=capacity)
        #: Each resource's request per row, built on first use (:meth:`requests`), then kept.
        self._requests: dict[str, _Column] | None = None
        self.pods: list[Pod] = []
        self.row_of: dict[Pod, int] = {}
        self.namespaces: dict[str, int] = {}

    def __len__(self) -> int:
        return self._size

    def namespace_code(self, namespace: str) -> int:
        """The code of a namespace, or -1 if no assigned pod ever lived in it."""
        return self.namespaces.get(namespace, -1)

    def _intern_namespace(self, namespace: str) -> int:
        code = self.namespaces.get(namespace)
        if code is None:
            code = self.namespaces[namespace] = len(self.namespaces)
        return code

    def add(self, pod: Pod, node: int) -> int:
        """Place ``pod`` on node index ``node``; returns its row."""
        row = self.row_of.get(pod)
        if row is None:
            if self._size == self._capacity:
                self._capacity *= 2
                for column in self._all_columns():
                    column.grow(self._capacity, self._size)
            row = self._size
            self._size += 1
            self.pods.append(pod)
            self.row_of[pod] = row
            label_row = self.labels.append(pod.labels)
            assert label_row == row
        elif self._alive.data.item(row):
            raise ValueError(f"pod {pod.key} is already assigned")
        else:
            self.labels.set_row(row, pod.labels)
        namespace = self.namespaces.get(pod.namespace)
        self._node.data[row] = node
        self._namespace.data[row] = self._intern_namespace(pod.namespace) if namespace is None else namespace
        self._priority.data[row] = pod.priority
        self._terminating.data[row] = pod.terminating
        self._alive.data[row] = True
        affinity = pod.affinity
        self._has_affinity.data[row] = (affinity.pod_affinity is not None
                                        or affinity.pod_anti_affinity is not None)
        self._start.data[row] = np.inf if pod.start_time is None else pod.start_time
        self._seq.data[row] = self._next_seq
        self._next_seq += 1
        if self._requests is not None:
            self._write_requests(row, pod)
        return row

    def _all_columns(self) -> tuple[_Column, ...]:
        return self._columns if self._requests is None else (*self._columns, *self._requests.values())

    def _write_requests(self, row: int, pod: Pod) -> None:
        assert self._requests is not None
        for name, value in pod.requests.items():
            column = self._requests.get(name)
            if column is None:
                column = self._requests[name] = _Column(np.int64, 0, self._capacity)
            column.data[row] = wrap_int64(value)

    def requests(self) -> dict[str, np.ndarray]:
        """Each resource some pod requests -> every row's request of it (int64, wrapped as the
        snapshot's sums are; a dead row keeps its pod's)."""
        if self._requests is None:
            self._requests = {}
            for row, pod in enumerate(self.pods):
                self._write_requests(row, pod)
        return {name: column.data[: self._size] for name, column in self._requests.items()}

    def extend(self, pods: Sequence[Pod], nodes: Sequence[int]) -> None:
        """:meth:`add` of each of ``pods`` (none in the table yet) on its node of ``nodes``, the
        columns written once: the same table as adding them one by one."""
        start = self._size
        end = start + len(pods)
        if end > self._capacity:
            while self._capacity < end:
                self._capacity *= 2
            for column in self._all_columns():
                column.grow(self._capacity, self._size)
        row_of, intern, append_labels = self.row_of, self._intern_namespace, self.labels.append
        namespaces = []
        for row, pod in enumerate(pods, start):
            row_of[pod] = row
            append_labels(pod.labels)
            namespaces.append(intern(pod.namespace))
        self.pods.extend(pods)
        self._size = end
        if self._requests is not None:
            for row, pod in enumerate(pods, start):
                self._write_requests(row, pod)
        self._node.data[start:end] = nodes
        self._namespace.data[start:end] = namespaces
        self._priority.data[start:end] = [pod.priority for pod in pods]
        self._terminating.data[start:end] = [pod.meta.deletion_timestamp is not None for pod in pods]
        self._alive.data[start:end] = True
        self._start.data[start:end] = [np.inf if pod.start_time is None else pod.start_time for pod in pods]
        self._seq.data[start:end] = np.arange(self._next_seq, self._next_seq + len(pods))
        self._next_seq += len(pods)
        self._has_affinity.data[start:end] = [pod.affinity.pod_affinity is not None
                                              or pod.affinity.pod_anti_affinity is not None for pod in pods]

    def renumber(self, pods: list[Pod]) -> None:
        """Give ``pods`` (a node's pod list, restored in its order) their list order again."""
        row_of, seq = self.row_of, self._seq.data
        for pod in pods:
            seq[row_of[pod]] = self._next_seq
            self._next_seq += 1

    def remove(self, pod: Pod) -> int:
        """Take ``pod`` off its node; returns its (now dead) row."""
        row = self.row_of[pod]
        self._alive.data[row] = False
        self._node.data[row] = -1
        self.labels.clear(row)
        return row

    def node_of_row(self, row: int) -> int:
        """The node index of ``row`` (-1 for a dead row), as a Python int."""
        node: int = self._node.data.item(row)
        return node

    # Read-only views over the used rows.
    @property
    def node(self) -> np.ndarray:
        """Node index of every row; -1 for a dead row."""
        return self._node.data[: self._size]

    @property
    def namespace(self) -> np.ndarray:
        return self._namespace.data[: self._size]

    @property
    def priority(self) -> np.ndarray:
        return self._priority.data[: self._size]

    @property
    def terminating(self) -> np.ndarray:
        return self._terminating.data[: self._size]

    @property
    def alive(self) -> np.ndarray:
        return self._alive.data[: self._size]

    @property
    def start(self) -> np.ndarray:
        """``status.startTime`` of every row (seconds; inf when unset, as "started now")."""
        return self._start.data[: self._size]

    @property
    def seq(self) -> np.ndarray:
        """Rows of one node in the order of its pod list (``Snapshot.pods_on``) have increasing values."""
        return self._seq.data[: self._size]

    @property
    def has_affinity(self) -> np.ndarray:
        """Rows whose pod declares pod affinity or anti-affinity."""
        return self._has_affinity.data[: self._size]
