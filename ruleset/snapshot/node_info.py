"""Views on the snapshot for plugins: a set of candidate nodes, and one node.

:class:`NodeSet` is what batch hooks receive: the candidate nodes as indices into the
snapshot's columns. :class:`NodeInfo` is the per-node convenience view, close to
kube-scheduler's ``framework.NodeInfo``, for plugins written one node at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ruleset.api.node import Node
from ruleset.api.pod import Pod

if TYPE_CHECKING:
    from ruleset.selector import Selector
    from ruleset.snapshot.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class ImageState:
    """``framework.ImageStateSummary``: an image's size and how many nodes have it."""

    size: int
    num_nodes: int


class NodeInfo:
    """One node with its pods and resource totals (a read-only view of the snapshot)."""

    def __init__(self, snapshot: Snapshot, index: int):
        self.snapshot = snapshot
        self.index = index

    @property
    def node(self) -> Node:
        return self.snapshot.nodes[self.index]

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def labels(self) -> dict[str, str]:
        return self.node.labels

    @cached_property
    def pods(self) -> list[Pod]:
        return self.snapshot.pods_on(self.index)

    @property
    def allocatable(self) -> dict[str, int]:
        return self.node.allocatable

    @property
    def allowed_pod_number(self) -> int:
        return self.node.allowed_pod_number

    @cached_property
    def requested(self) -> dict[str, int]:
        """``NodeInfo.Requested``: the sum of the pods' requests (CPU in millicores)."""
        return self.snapshot.requested_on(self.index)

    @property
    def non_zero_requested(self) -> tuple[int, int]:
        """``NodeInfo.NonZeroRequested``: (milli CPU, memory) with the 100m/200Mi defaults."""
        s = self.snapshot
        return int(s.non_zero_cpu[self.index]), int(s.non_zero_memory[self.index])

    @property
    def used_ports(self) -> dict[tuple[str, int], dict[str, int]]:
        """``(protocol, port) -> {host IP: users}`` of the host ports in use."""
        return self.snapshot.used_ports[self.index]

    @property
    def image_states(self) -> dict[str, ImageState]:
        return self.snapshot.image_states(self.index)

    def __repr__(self) -> str:
        return f"NodeInfo({self.name})"


class NodeSet:
    """Candidate nodes of one scheduling step, as indices into the snapshot, in evaluation order."""

    __slots__ = ("indices", "snapshot")

    def __init__(self, snapshot: Snapshot, indices: np.ndarray):
        self.snapshot = snapshot
        self.indices = np.asarray(indices, dtype=np.intp)

    def __len__(self) -> int:
        return len(self.indices)

    def __iter__(self) -> Iterator[NodeInfo]:
        for i in self.indices:
            yield NodeInfo(self.snapshot, int(i))

    def infos(self) -> list[NodeInfo]:
        return list(self)

    @property
    def names(self) -> list[str]:
        names = self.snapshot.node_names
        return [names[i] for i in self.indices]

    @property
    def nodes(self) -> list[Node]:
        nodes = self.snapshot.nodes
        return [nodes[i] for i in self.indices]

    def subset(self, mask: np.ndarray) -> NodeSet:
        """The nodes where ``mask`` (aligned with this set) is true, order kept."""
        return NodeSet(self.snapshot, self.indices[mask])

    def label_column(self, key: str) -> np.ndarray:
        """Value codes of label ``key`` on these nodes (``-1`` where absent)."""
        column = self.snapshot.node_labels.column(key)
        if column is None:
            return np.full(len(self.indices), -1, dtype=np.int32)
        return column[self.indices]

    def has_label(self, key: str) -> np.ndarray:
        return self.label_column(key) >= 0

    def match(self, selector: Selector) -> np.ndarray:
        """Which of these nodes' labels match ``selector``."""
        return selector.match_table(self.snapshot.node_labels, self.indices)

    def column(self, values: np.ndarray) -> np.ndarray:
        """Slice a per-node snapshot column down to these nodes."""
        return values[self.indices]
