"""The pod nominator: which pending pods hold room on which nodes (upstream's ``PodNominator``).

A pod that preempted waits for its victims to leave with ``status.nominatedNodeName`` set,
and the room it will take must not be given to a pod of lower priority meanwhile. Upstream
keeps that in the scheduling queue behind the ``framework.PodNominator`` interface, which
the framework handle embeds; here the handle holds a :class:`Nominator`, the scheduling
loop writes it and the filters read it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ruleset.api.pod import Pod


_LOG = 1024


class Nominator:
    """Pods nominated to nodes, by node name, in nomination order."""

    def __init__(self) -> None:
        self._pods: dict[str, list[Pod]] = {}
        #: The highest priority nominated to each node that has any, so that the nodes a pod must
        #: leave room on are found without reading every nomination.
        self._top: dict[str, int] = {}
        #: Changes with every nomination made or dropped (what is derived from them is keyed on it).
        self.version = 0
        #: Things derived from the nominations by other modules, each valid for one :attr:`version`.
        self.derived: dict[str, tuple[int, object]] = {}
        #: The latest changes, (version reached, node, pod, +1 added or -1 dropped), so that what
        #: is derived can follow them instead of starting over (at most :data:`_LOG` of them).
        self.log: list[tuple[int, str, Pod, int]] = []

    def add(self, pod: Pod, node: str) -> None:
        """``AddNominatedPod``: ``pod`` holds room on ``node`` (any earlier nomination is dropped)."""
        self.delete(pod)
        self.version += 1
        pod.nominated_node_name = node
        self._pods.setdefault(node, []).append(pod)
        self._note(node, pod, +1)
        top = self._top.get(node)
        if top is None or pod.priority > top:
            self._top[node] = pod.priority

    def delete(self, pod: Pod) -> None:
        """``DeleteNominatedPodIfExists``: forget ``pod``'s nomination, if it has one."""
        if pod.nominated_node_name:
            self.version += 1
            pods = self._pods.get(pod.nominated_node_name, [])
            if pod in pods:
                pods.remove(pod)
                self._note(pod.nominated_node_name, pod, -1)
                if pods:
                    self._top[pod.nominated_node_name] = max(p.priority for p in pods)
                else:
                    self._top.pop(pod.nominated_node_name, None)
            pod.nominated_node_name = ""

    def _note(self, node: str, pod: Pod, sign: int) -> None:
        self.log.append((self.version, node, pod, sign))
        if len(self.log) > 2 * _LOG:
            del self.log[:-_LOG]

    def any(self) -> bool:
        """Whether some pod is nominated to some node."""
        return bool(self._top)

    def pods_on(self, node: str) -> list[Pod]:
        """Every pod nominated to ``node``, in nomination order."""
        return list(self._pods.get(node, ()))

    def pods_for(self, pod: Pod, node: str) -> list[Pod]:
        """Pods nominated to ``node`` that ``pod`` must leave room for: of at least its priority,
        other than itself."""
        nominated = self._pods.get(node)
        if not nominated:  # most nodes: asked for every node of every preemption dry run
            return []
        return [p for p in nominated if p.priority >= pod.priority and p.meta.uid != pod.meta.uid]

    def nodes_for(self, pod: Pod) -> Iterator[str]:
        """Names of the nodes holding pods that ``pod`` must leave room for."""
        return iter(self.room_for(pod))

    def room_for(self, pod: Pod) -> Mapping[str, list[Pod]]:
        """:meth:`pods_for` of every node where it is not empty (node name -> pods); only nodes
        whose highest nominated priority reaches the pod's are looked at."""
        priority = pod.priority
        room = {}
        for node, top in self._top.items():
            if top >= priority:
                pods = self.pods_for(pod, node)
                if pods:
                    room[node] = pods
        return room

    def as_mapping(self) -> Mapping[str, list[Pod]]:
        """A read-only view, node name -> nominated pods (for reports and tests)."""
        return MappingProxyType(self._pods)
