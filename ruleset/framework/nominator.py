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


class Nominator:
    """Pods nominated to nodes, by node name, in nomination order."""

    def __init__(self) -> None:
        self._pods: dict[str, list[Pod]] = {}

    def add(self, pod: Pod, node: str) -> None:
        """``AddNominatedPod``: ``pod`` holds room on ``node`` (any earlier nomination is dropped)."""
        self.delete(pod)
        pod.nominated_node_name = node
        self._pods.setdefault(node, []).append(pod)

    def delete(self, pod: Pod) -> None:
        """``DeleteNominatedPodIfExists``: forget ``pod``'s nomination, if it has one."""
        if pod.nominated_node_name:
            pods = self._pods.get(pod.nominated_node_name, [])
            if pod in pods:
                pods.remove(pod)
            pod.nominated_node_name = ""

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
        return (node for node in self._pods if self.pods_for(pod, node))

    def as_mapping(self) -> Mapping[str, list[Pod]]:
        """A read-only view, node name -> nominated pods (for reports and tests)."""
        return MappingProxyType(self._pods)
