"""NodePorts (PreFilter, Filter): the node must have the host ports the pod asks for free.

PreFilter collects the ports of the pod's regular containers (init containers are not
checked in v1.20). Filter rejects a node with Unschedulable ``node(s) didn't have free
ports for the requested pod ports`` when any wanted port conflicts with a port in use
there (``HostPortInfo.CheckConflict``):

* a host port <= 0 never conflicts; an empty host IP means 0.0.0.0, an empty protocol TCP;
* a wanted 0.0.0.0 conflicts with the same (protocol, port) on any IP;
* any other IP conflicts with the same (protocol, port) on that IP or on 0.0.0.0.

Only nodes that use a wanted (protocol, port) can conflict, so Filter looks them up in the
snapshot's ``port_users`` index instead of scanning every candidate node.

From 1.28 (:data:`PRE_FILTER_SKIP`) PreFilter returns Skip for a pod without a host port
(> 0: ``getContainerPorts``, later ``GetHostPorts``, drop the others): the framework then
does not run its Filter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ruleset import (
    OTHER_PODS_ANY,
    OTHER_PODS_IGNORED,
    Code,
    CycleState,
    FilterResult,
    Handle,
    NodeSet,
    Plugin,
    Snapshot,
    Status,
    hookimpl,
    switch,
)
from ruleset.api.pod import ContainerPort, Pod
from ruleset.snapshot import DEFAULT_BIND_ALL_HOST_IP, sanitize_host_port

NAME = "NodePorts"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"

PRE_FILTER_SKIP = switch(
    "NodePorts.prefilter-skip", "1.28",
    "PreFilter returns Skip for a pod without host ports: its Filter is not run",
    "pkg/scheduler/framework/plugins/nodeports/node_ports.go (PreFilter, kubernetes#118271)")
_SKIP = Status(Code.SKIP)


def get_container_ports(*pods: Pod) -> tuple[ContainerPort, ...]:
    """``getContainerPorts``: every port of every regular container of ``pods``, in order."""
    return tuple(port for pod in pods for container in pod.containers for port in container.ports)


def check_conflict(used: Mapping[tuple[str, int], Mapping[str, int]], ip: str, protocol: str,
                   port: int) -> bool:
    """``HostPortInfo.CheckConflict`` against one node's ``(protocol, port) -> {host IP: users}``."""
    if port <= 0:
        return False
    ip, protocol = sanitize_host_port(ip, protocol)
    users = used.get((protocol, port))
    if not users:
        return False
    if ip == DEFAULT_BIND_ALL_HOST_IP:
        return True
    return DEFAULT_BIND_ALL_HOST_IP in users or ip in users


def conflicting_nodes(snapshot: Snapshot, ports: Iterable[ContainerPort]) -> np.ndarray:
    """Indices of the snapshot nodes where any of ``ports`` conflicts (sorted, unique)."""
    bad: set[int] = set()
    for port in ports:
        if port.host_port <= 0:
            continue
        ip, protocol = sanitize_host_port(port.host_ip, port.protocol)
        users = snapshot.port_users.get((protocol, port.host_port), ())
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            bad.update(users)  # any IP using (protocol, port) conflicts with 0.0.0.0
            continue
        for i in users:
            if i not in bad and check_conflict(snapshot.used_ports[i], ip, protocol, port.host_port):
                bad.add(i)
    return np.array(sorted(bad), dtype=np.intp)


class NodePorts(Plugin):
    """Rejects nodes where a host port the pod asks for is already in use (PreFilter, Filter)."""

    name = NAME

    def __init__(self, args: Any = None, handle: Handle | None = None) -> None:
        super().__init__(args, handle)
        self._pre_filter_skip = self.handle.target.has(PRE_FILTER_SKIP)

    @hookimpl
    def ruleset_pre_filter(self, state: CycleState, pod: Pod) -> Status | None:
        # The ports the pod holds on a node (from 1.34 its native sidecars' too, as the pod's
        # release counts them: Pod.host_ports); ports without a host port never conflict.
        ports = pod.host_ports
        if not ports and self._pre_filter_skip:
            return _SKIP
        state.write(PRE_FILTER_STATE_KEY, ports)
        return None

    def other_pods(self, state: CycleState, pod: Pod) -> str:
        """A pod without host ports passes every node, whatever pods run there."""
        return OTHER_PODS_ANY if state.get(PRE_FILTER_STATE_KEY) else OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, state: CycleState, nodes: NodeSet) -> FilterResult | None:
        if PRE_FILTER_STATE_KEY not in state:
            return FilterResult.error(len(nodes),
                                      f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        wanted: tuple[ContainerPort, ...] = state.read(PRE_FILTER_STATE_KEY)
        if not wanted:
            return None
        bad = conflicting_nodes(nodes.snapshot, wanted)
        if not len(bad):
            return None
        return FilterResult.reject(np.isin(nodes.indices, bad), Code.UNSCHEDULABLE, ERR_REASON)
