"""How a Filter plugin's verdicts depend on the other pods, so that what-if questions
("would the pod fit here with these pods gone, or those nominated pods added?") can be
answered for many nodes at once instead of one node at a time.

Upstream answers them node by node: preemption's ``selectVictimsOnNode`` removes pods from a
node and re-runs every Filter plugin, and ``addNominatedPods`` re-runs them with nominated pods
added. That is exact for any plugin, and ruleset keeps it as the reference path. A plugin may
say, per pod, that a faster answer is just as exact (:meth:`ruleset.Plugin.other_pods`):

* :data:`OTHER_PODS_IGNORED`: its verdict for this pod on a node is the same whatever pods run
  or are nominated anywhere, and its PreFilter AddPod/RemovePod extensions succeed for any pod.
  (NodeAffinity always; NodePorts for a pod without host ports; PodTopologySpread for a pod
  without hard constraints...)
* :data:`OTHER_PODS_AS_RESOURCES`: the other pods count only through the node's summed
  requests and pod count. The plugin implements ``filter_with_columns(state, pod, nodes,
  columns)``, the Filter hook reading those sums from a :class:`NodeColumns` instead of the
  snapshot, and has no AddPod/RemovePod extension. (NodeResourcesFit.) It may also implement
  ``passes_with_columns(state, pod, nodes, columns)``: only whether each node passes (a bool
  array), asked where no reasons are read; and ``room_with_columns(state, pod, nodes,
  columns)``, when its verdict is "what is added to the sums stays within a room": per
  resource name (and :data:`ROOM_PODS`), an int64 array of the most that may be added with the
  node still passing, or None to decline. Preemption's reprieve then puts pods back by
  arithmetic instead of asking the plugin once per pod.
* :data:`OTHER_PODS_ANY` (the default): anything else; every what-if runs the reference path.

The fast paths run only when every Filter plugin of the profile answers one of the first two.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import numpy as np

from ruleset.api.pod import Pod
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.nominator import Nominator
from ruleset.framework.plugin import OTHER_PODS_ANY, OTHER_PODS_AS_RESOURCES, OTHER_PODS_IGNORED
from ruleset.quantity import wrap_int64
from ruleset.snapshot import Snapshot

__all__ = ["OTHER_PODS_ANY", "OTHER_PODS_AS_RESOURCES", "OTHER_PODS_IGNORED", "ROOM_PODS", "NodeColumns",
           "NominatedRoom", "fast_paths", "reference_path"]

#: The name of the pod count in a ``room_with_columns`` answer.
ROOM_PODS = ":pods"

#: Set (to anything but "" or "0") to run every what-if on the reference path, e.g. to
#: cross-check a result: ``RULESET_REFERENCE_PATH=1 ruleset schedule ...``.
REFERENCE_ENV = "RULESET_REFERENCE_PATH"
_reference = [os.environ.get(REFERENCE_ENV, "") not in ("", "0")]
#: Where a cycle keeps its pod's :class:`NominatedRoom` (:meth:`NominatedRoom.of`).
_ROOM = "ruleset.framework.nominated-room"


def fast_paths() -> bool:
    """Whether what-ifs may take the bulk paths (off under :func:`reference_path`)."""
    return not _reference[-1]


@contextmanager
def reference_path(on: bool = True) -> Iterator[None]:
    """Within the block, every what-if takes the reference path (``on``), or may take the fast one."""
    _reference.append(on)
    try:
        yield
    finally:
        _reference.pop()


class NodeColumns:
    """Per-node sums a resource plugin reads, aligned with a node set: the snapshot's, plus
    ``delta`` (resource name -> one int64 change per node) and ``count_delta`` (pods).

    Sums wrap in int64 as the snapshot's own accounting does, so a plugin reading these
    columns sees exactly what it would see with the pods really added or removed.
    """

    __slots__ = ("_delta", "_indices", "_snapshot", "count_delta")

    def __init__(self, snapshot: Snapshot, indices: np.ndarray,
                 delta: Mapping[str, np.ndarray] | None = None, count_delta: np.ndarray | None = None):
        self._snapshot = snapshot
        self._indices = indices
        self._delta = dict(delta or {})
        self.count_delta = count_delta

    def __len__(self) -> int:
        return len(self._indices)

    def allocatable(self, resource: str) -> np.ndarray:
        """Each node's allocatable ``resource``."""
        return self._snapshot.allocatable(resource)[self._indices]

    def requested(self, resource: str) -> np.ndarray:
        """Each node's summed requests of ``resource``, with the delta applied."""
        base = self._snapshot.requested(resource)[self._indices]
        delta = self._delta.get(resource)
        if delta is None:
            return base
        return base + delta  # int64 arrays wrap silently

    @property
    def pod_count(self) -> np.ndarray:
        """Each node's number of pods, with the delta applied."""
        base = self._snapshot.pod_count[self._indices]
        return base if self.count_delta is None else base + self.count_delta

    @property
    def allowed_pods(self) -> np.ndarray:
        """Each node's pod capacity."""
        return self._snapshot.allowed_pods[self._indices]

    def subset(self, mask: np.ndarray) -> NodeColumns:
        """The columns of the nodes where ``mask`` (aligned) is true."""
        return NodeColumns(self._snapshot, self._indices[mask], {k: v[mask] for k, v in self._delta.items()},
                           None if self.count_delta is None else self.count_delta[mask])


class NominatedRoom:
    """The room ``pod`` must leave for nominated pods (``PodNominator``), as node columns:
    :attr:`mask` marks the nodes holding nominated pods of at least its priority (other than
    itself), and :meth:`columns` adds those pods' requests and count, as ``addNominatedPods``.

    Every nomination's requests are summed per node once per state of the nominations; only
    nodes where some nominated pod does not count for this pod (lower priority, or the pod
    itself) are summed again for it.
    """

    @classmethod
    def of(cls, state: CycleState, snapshot: Snapshot, nominator: Nominator, pod: Pod) -> NominatedRoom:
        """The room for ``pod``, made once per scheduling cycle (``state``) and state of the
        nominations: a cycle asks for it per chunk of nodes it filters, and again if it preempts."""
        cached = state.get(_ROOM)
        if cached is not None and cached[0] == nominator.version and cached[1] is pod:
            room: NominatedRoom = cached[2]
            return room
        room = cls(snapshot, nominator, pod)
        state.write(_ROOM, (nominator.version, pod, room))
        return room

    def __init__(self, snapshot: Snapshot, nominator: Nominator, pod: Pod):
        base = _nominated_sums(snapshot, nominator)
        priority = pod.priority
        self.mask = base.top >= priority
        delta, count = base.delta, base.count
        redo = np.flatnonzero(self.mask & (base.bottom < priority)).tolist()
        own = {*base.nodes_of_uid.get(pod.meta.uid, ()), snapshot.node_index.get(pod.nominated_node_name)}
        redo += [i for i in own if i is not None and self.mask[i] and i not in redo]
        if redo:
            delta = {name: values.copy() for name, values in delta.items()}
            count = count.copy()
            names = snapshot.node_names
            for i in redo:
                pods = nominator.pods_for(pod, names[i])
                sums: dict[str, int] = {}
                for other in pods:
                    for name, value in other.requests.items():
                        sums[name] = sums.get(name, 0) + value
                for name, values in delta.items():
                    values[i] = wrap_int64(sums.pop(name, 0))
                for name, value in sums.items():
                    delta[name] = np.zeros(snapshot.num_nodes, dtype=np.int64)
                    delta[name][i] = wrap_int64(value)
                count[i] = len(pods)
                self.mask[i] = bool(pods)
        self._delta, self._count, self._snapshot = delta, count, snapshot

    def columns(self, nodes: np.ndarray) -> NodeColumns:
        """The columns of ``nodes`` with their nominated pods added."""
        delta, count = self.delta(nodes)
        return NodeColumns(self._snapshot, nodes, delta, count)

    def delta(self, nodes: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The summed requests and count of the nominated pods on ``nodes`` that count for the pod."""
        counts = self.mask[nodes]
        return ({name: np.where(counts, values[nodes], 0) for name, values in self._delta.items()},
                np.where(counts, self._count[nodes], 0))


class _NominatedSums:
    """Per node: the highest and lowest nominated priority, the count and summed requests of the
    nominated pods; kept up to date from :attr:`Nominator.log`."""

    def __init__(self, snapshot: Snapshot, nominator: Nominator):
        n = snapshot.num_nodes
        self.snapshot = snapshot
        self.version = nominator.version
        self.top = np.full(n, _LOWEST, dtype=np.int64)
        self.bottom = np.full(n, _HIGHEST, dtype=np.int64)
        self.count = np.zeros(n, dtype=np.int64)
        self.delta: dict[str, np.ndarray] = {}
        self.nodes_of_uid: dict[str, set[int]] = {}
        index = snapshot.node_index
        for name, pods in nominator.as_mapping().items():
            i = index.get(name)
            if i is not None:
                for pod in pods:
                    self._add(i, pod, +1)
                self._bounds(i, pods)

    def _add(self, i: int, pod: Pod, sign: int) -> None:
        for resource, value in pod.requests.items():
            column = self.delta.get(resource)
            if column is None:
                column = self.delta[resource] = np.zeros(len(self.count), dtype=np.int64)
            column[i] = wrap_int64(int(column[i]) + sign * value)
        self.count[i] += sign
        nodes = self.nodes_of_uid.setdefault(pod.meta.uid, set())
        if sign > 0:
            nodes.add(i)

    def _bounds(self, i: int, pods: Sequence[Pod]) -> None:
        self.top[i] = max((p.priority for p in pods), default=_LOWEST)
        self.bottom[i] = min((p.priority for p in pods), default=_HIGHEST)

    def follow(self, nominator: Nominator) -> bool:
        """Apply the nominator's changes since :attr:`version`; False if its log no longer has them."""
        log = nominator.log
        if not log or log[0][0] > self.version + 1:
            return False
        index = self.snapshot.node_index
        start = bisect.bisect_right(log, self.version, key=lambda entry: entry[0])
        for _version, node, pod, sign in log[start:]:
            i = index.get(node)
            if i is None:
                continue
            self._add(i, pod, sign)
            pods = nominator.pods_on(node)
            self._bounds(i, pods)
            if sign < 0 and not any(p.meta.uid == pod.meta.uid for p in pods):
                self.nodes_of_uid.get(pod.meta.uid, set()).discard(i)
        self.version = nominator.version
        return True


_LOWEST = int(np.iinfo(np.int64).min)
_HIGHEST = int(np.iinfo(np.int64).max)


def _nominated_sums(snapshot: Snapshot, nominator: Nominator) -> _NominatedSums:
    key = "ruleset.framework.dependence.nominated"
    found = nominator.derived.get(key)
    if found is not None:
        sums = found[1]
        assert isinstance(sums, _NominatedSums)
        if sums.snapshot is snapshot and (sums.version == nominator.version or sums.follow(nominator)):
            return sums
    sums = _NominatedSums(snapshot, nominator)
    nominator.derived[key] = (nominator.version, sums)
    return sums
