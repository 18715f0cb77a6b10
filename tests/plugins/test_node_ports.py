"""Ported from ``pkg/scheduler/framework/plugins/nodeports/node_ports_test.go`` and the
HostPortInfo tests of ``pkg/scheduler/framework/types_test.go``.

* TestNodePorts: all 13 v1.20 cases (``nothing running`` has a container without ports,
  since a pod here needs one). Newer upstream replaces ``nothing running`` with ``skip
  filter`` (PreFilter returning Skip) and adds two sidecar init-container cases; v1.20 has
  neither and checks regular containers only (``test_init_container_ports_are_not_checked``).
* TestPreFilterDisabled: 1 case, with v1.20's message (``error reading "PreFilterNodePorts"
  from cycleState: not found``; later versions wrap ``ErrNotFound``).
* TestGetContainerPorts: its 1 case.
* TestFits (added after v1.20; the conflict rules are unchanged since v1.20): all 5 cases,
  run through Filter.
* TestHostPortInfo_AddRemove: all 4 cases, against the snapshot's port accounting
  (``Snapshot._account``, which sanitizes with ``sanitize_host_port``).
* TestHostPortInfo_Check: all 9 cases, against ``check_conflict`` over that accounting.

Upstream's ``HostPortInfo`` is a set: adding an (IP, protocol, port) twice and removing it
once frees it. The snapshot counts users instead, so a port two pods on one node share
stays in use until both leave (``test_shared_port_stays_used_until_every_user_leaves``).
This only differs when two pods on one node hold the same host port, which NodePorts and
the kubelet's admission check both refuse; counting keeps the add-then-remove pairs that
dry runs and rollbacks use exact.
"""

from collections.abc import Sequence

import numpy as np
import pytest

from ruleset.api.meta import ObjectMeta
from ruleset.api.node import Node
from ruleset.api.pod import Container, ContainerPort, Pod
from ruleset.framework.cycle_state import CycleState
from ruleset.framework.status import Code
from ruleset.plugins.node_ports import ERR_REASON, NodePorts, check_conflict, get_container_ports
from ruleset.snapshot import Snapshot
from tests.factories import Harness, container, decode, make_node, make_pod

UNSCHEDULABLE = ("Unschedulable", (ERR_REASON,))
SUCCESS = ("Success", ())


def ports(*host_port_infos: str) -> list[dict]:
    """``"PROTO/IP/PORT"`` strings as container ports, as upstream's ``newPod`` splits them."""
    out = []
    for info in host_port_infos:
        protocol, ip, port = info.split("/")
        spec: dict = {"containerPort": int(port), "hostPort": int(port)}
        if protocol:
            spec["protocol"] = protocol
        if ip:
            spec["hostIP"] = ip
        out.append(spec)
    return out


def new_pod(name: str, host: str | None, *host_port_infos: str) -> dict:
    return make_pod(name, node_name=host, containers=[container(ports=ports(*host_port_infos))])


def want(*host_port_infos: str) -> dict:
    """The pod being scheduled."""
    return new_pod("pod", None, *host_port_infos)


def on_m1(*host_port_infos: str) -> dict:
    """A pod already running on node m1 (upstream: ``framework.NewNodeInfo(newPod("m1", ...))``)."""
    return new_pod("p1", "m1", *host_port_infos)


def run_filter(pod: dict, existing: Sequence[dict]) -> tuple[str, tuple[str, ...]]:
    h = Harness(["NodePorts"], [make_node("m1"), *existing])
    return h.filter(pod)["m1"]


# ---------------------------------------------------------------------------------------------------
# TestNodePorts
# ---------------------------------------------------------------------------------------------------

NODE_PORTS_CASES = [
    pytest.param(make_pod("pod"), [], SUCCESS, id="nothing running"),
    pytest.param(want("UDP/127.0.0.1/8080"), [on_m1("UDP/127.0.0.1/9090")], SUCCESS,
                 id="other port"),
    pytest.param(want("UDP/127.0.0.1/8080"), [on_m1("UDP/127.0.0.1/8080")],
                 UNSCHEDULABLE, id="same udp port"),
    pytest.param(want("TCP/127.0.0.1/8080"), [on_m1("TCP/127.0.0.1/8080")],
                 UNSCHEDULABLE, id="same tcp port"),
    pytest.param(want("TCP/127.0.0.1/8080"), [on_m1("TCP/127.0.0.2/8080")], SUCCESS,
                 id="different host ip"),
    pytest.param(want("UDP/127.0.0.1/8080"), [on_m1("TCP/127.0.0.1/8080")], SUCCESS,
                 id="different protocol"),
    pytest.param(want("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
                 [on_m1("UDP/127.0.0.1/8080")], UNSCHEDULABLE, id="second udp port conflict"),
    pytest.param(want("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
                 [on_m1("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")], UNSCHEDULABLE,
                 id="first tcp port conflict"),
    pytest.param(want("TCP/0.0.0.0/8001"), [on_m1("TCP/127.0.0.1/8001")],
                 UNSCHEDULABLE, id="first tcp port conflict due to 0.0.0.0 hostIP"),
    pytest.param(want("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
                 [on_m1("TCP/127.0.0.1/8001")], UNSCHEDULABLE,
                 id="TCP hostPort conflict due to 0.0.0.0 hostIP"),
    pytest.param(want("TCP/127.0.0.1/8001"), [on_m1("TCP/0.0.0.0/8001")],
                 UNSCHEDULABLE, id="second tcp port conflict to 0.0.0.0 hostIP"),
    pytest.param(want("UDP/127.0.0.1/8001"), [on_m1("TCP/0.0.0.0/8001")], SUCCESS,
                 id="second different protocol"),
    pytest.param(want("UDP/127.0.0.1/8001"),
                 [on_m1("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")], UNSCHEDULABLE,
                 id="UDP hostPort conflict due to 0.0.0.0 hostIP"),
]


@pytest.mark.parametrize(("pod", "existing", "expected"), NODE_PORTS_CASES)
def test_node_ports(pod: dict, existing: list[dict], expected: tuple) -> None:
    assert run_filter(pod, existing) == expected


def test_pre_filter_disabled() -> None:
    snapshot = Snapshot([Node(meta=ObjectMeta(name=""))])
    result = NodePorts().ruleset_filter(CycleState(), snapshot.all_nodes())
    assert result is not None
    status = result.status(0)
    assert status.code == Code.ERROR
    assert status.reasons == ('error reading "PreFilterNodePorts" from cycleState: not found',)


def test_get_container_ports() -> None:
    def two_containers(first: int, second: int) -> Pod:
        return decode(make_pod("p", containers=[
            container(ports=[{"containerPort": first, "protocol": "TCP"},
                             {"containerPort": first + 1, "protocol": "TCP"}], name="a"),
            container(ports=[{"containerPort": second, "protocol": "TCP"},
                             {"containerPort": second + 1, "protocol": "TCP"}], name="b")]))

    got = get_container_ports(two_containers(8001, 8003), two_containers(8011, 8013))
    assert got == tuple(ContainerPort(container_port=p, protocol="TCP")
                        for p in (8001, 8002, 8003, 8004, 8011, 8012, 8013, 8014))


# ---------------------------------------------------------------------------------------------------
# TestFits
# ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("pod", "existing", "fits"), [
    pytest.param(want("TCP/127.0.0.1/80"), on_m1("TCP/127.0.0.1/9090"), True,
                 id="non-conflicting ports"),
    pytest.param(want("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
                 on_m1("TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"), True,
                 id="multiple non-conflicting ports"),
    pytest.param(want("TCP/127.0.0.1/80"), on_m1("UDP/127.0.0.1/80"), True,
                 id="same ports on different protocols"),
    pytest.param(want("TCP/127.0.0.1/80"), on_m1("TCP/127.0.0.1/80"), False,
                 id="conflicting ports"),
    pytest.param(want("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"),
                 on_m1("TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"), False,
                 id="multiple ports, some conflicting"),
])
def test_fits(pod: dict, existing: dict, fits: bool) -> None:
    assert run_filter(pod, [existing]) == (SUCCESS if fits else UNSCHEDULABLE)


# ---------------------------------------------------------------------------------------------------
# TestHostPortInfo_AddRemove / TestHostPortInfo_Check, against the snapshot's accounting
# ---------------------------------------------------------------------------------------------------

Param = tuple[str, str, int]  # (protocol, ip, port), as upstream's hostPortInfoParam


def _pod(params: Sequence[Param]) -> Pod:
    return Pod(meta=ObjectMeta(name="p", namespace="default"), containers=(Container(name="c", ports=tuple(
        ContainerPort(container_port=port, host_port=port, protocol=protocol, host_ip=ip)
        for protocol, ip, port in params)),))


def _snapshot() -> Snapshot:
    return Snapshot([Node(meta=ObjectMeta(name="test-node"))])


def _length(snapshot: Snapshot) -> int:
    """``HostPortInfo.Len()``: the (IP, protocol, port) entries in use on node 0."""
    return sum(len(users) for users in snapshot.used_ports[0].values())


NORMAL = [("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 81),
          ("TCP", "127.0.0.1", 82),
          ("TCP", "0.0.0.0", 79), ("UDP", "0.0.0.0", 80), ("TCP", "0.0.0.0", 81), ("TCP", "0.0.0.0", 82)]


@pytest.mark.parametrize(("added", "removed", "length"), [
    pytest.param([*NORMAL, ("TCP", "0.0.0.0", 0), ("TCP", "0.0.0.0", -1)], [], 8, id="normal add case"),
    pytest.param([("", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("", "127.0.0.1", 81),
                  ("", "127.0.0.1", 82), ("", "", 79), ("UDP", "", 80), ("", "", 81), ("", "", 82),
                  ("", "", 0), ("", "", -1)], [], 8,
                 id="empty ip and protocol add should work"),
    pytest.param(NORMAL, NORMAL, 0, id="normal remove case"),
    pytest.param(NORMAL, [("", "127.0.0.1", 79), ("", "127.0.0.1", 81), ("", "127.0.0.1", 82),
                          ("UDP", "127.0.0.1", 80), ("", "", 79), ("", "", 81), ("", "", 82),
                          ("UDP", "", 80)], 0,
                 id="empty ip and protocol remove should work"),
])
def test_host_port_info_add_remove(added: list[Param], removed: list[Param], length: int) -> None:
    snapshot = _snapshot()
    snapshot._account(_pod(added), 0, +1)
    if removed:
        snapshot._account(_pod(removed), 0, -1)
    assert _length(snapshot) == length
    # The reverse index lists node 0 exactly for the (protocol, port) pairs still in use.
    in_use = {key for key, nodes in snapshot.port_users.items() if 0 in nodes}
    assert in_use == set(snapshot.used_ports[0])


@pytest.mark.parametrize(("added", "check", "conflict"), [
    pytest.param([("TCP", "127.0.0.1", 80)], ("", "", 81), False,
                 id="empty check should check 0.0.0.0 and TCP"),
    pytest.param([("TCP", "127.0.0.1", 80)], ("", "", 80), True,
                 id="empty check should check 0.0.0.0 and TCP (conflicted)"),
    pytest.param([("TCP", "127.0.0.1", 80)], ("", "", 0), False, id="empty port check should pass"),
    pytest.param([("TCP", "127.0.0.1", 80)], ("TCP", "0.0.0.0", 80), True,
                 id="0.0.0.0 should check all registered IPs"),
    pytest.param([("UDP", "127.0.0.1", 80)], ("TCP", "0.0.0.0", 80), False,
                 id="0.0.0.0 with different protocol should be allowed"),
    pytest.param([("TCP", "127.0.0.1", 79), ("TCP", "127.0.0.1", 81), ("TCP", "127.0.0.1", 82)],
                 ("TCP", "0.0.0.0", 80), False, id="0.0.0.0 with different port should be allowed"),
    pytest.param([("TCP", "0.0.0.0", 80)], ("TCP", "127.0.0.1", 80), True,
                 id="normal ip should check all registered 0.0.0.0"),
    pytest.param([("TCP", "0.0.0.0", 79), ("UDP", "0.0.0.0", 80), ("TCP", "0.0.0.0", 81),
                  ("TCP", "0.0.0.0", 82)],
                 ("TCP", "127.0.0.1", 80), False,
                 id="normal ip with different port/protocol should be allowed (0.0.0.0)"),
    pytest.param([("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 81),
                  ("TCP", "127.0.0.1", 82)], ("TCP", "127.0.0.1", 80), False,
                 id="normal ip with different port/protocol should be allowed"),
])
def test_host_port_info_check(added: list[Param], check: Param, conflict: bool) -> None:
    snapshot = _snapshot()
    snapshot._account(_pod(added), 0, +1)
    protocol, ip, port = check
    assert check_conflict(snapshot.used_ports[0], ip, protocol, port) is conflict


# ---------------------------------------------------------------------------------------------------
# ruleset: the batch path and the accounting
# ---------------------------------------------------------------------------------------------------

def test_filter_over_many_nodes_uses_each_nodes_ports() -> None:
    nodes = [make_node(f"n{i}") for i in range(5)]
    existing = [new_pod("a", "n1", "TCP/0.0.0.0/80"), new_pod("b", "n2", "TCP/10.0.0.1/80"),
                new_pod("c", "n3", "UDP/0.0.0.0/80"),
                new_pod("d", "n4", "TCP/10.0.0.2/80", "TCP/127.0.0.1/443")]
    h = Harness(["NodePorts"], [*nodes, *existing])
    assert h.filter(want("TCP/10.0.0.2/80")) == {
        "n0": SUCCESS, "n1": UNSCHEDULABLE, "n2": SUCCESS, "n3": SUCCESS, "n4": UNSCHEDULABLE}
    assert h.filter(want("//80")) == {  # empty IP and protocol: 0.0.0.0, TCP
        "n0": SUCCESS, "n1": UNSCHEDULABLE, "n2": UNSCHEDULABLE, "n3": SUCCESS, "n4": UNSCHEDULABLE}
    assert h.filter(want("TCP/127.0.0.1/443", "UDP/10.0.0.9/80")) == {
        "n0": SUCCESS, "n1": SUCCESS, "n2": SUCCESS, "n3": UNSCHEDULABLE, "n4": UNSCHEDULABLE}


def test_container_port_without_host_port_never_conflicts() -> None:
    existing = make_pod("p1", node_name="m1",
                        containers=[container(ports=[{"containerPort": 80, "hostPort": 80}])])
    pod = make_pod("pod", containers=[container(ports=[{"containerPort": 80}])])
    assert run_filter(pod, [existing]) == SUCCESS


def test_init_container_ports_are_not_checked() -> None:
    # v1.20 getContainerPorts reads pod.Spec.Containers only, for the pod and for the node's pods.
    init = [container(ports=ports("TCP/0.0.0.0/8001"), name="init")]
    pod = make_pod("pod", containers=[container()], init_containers=init)
    assert run_filter(pod, [on_m1("TCP/0.0.0.0/8001")]) == SUCCESS
    existing = make_pod("p1", node_name="m1", containers=[container()], init_containers=init)
    assert run_filter(want("TCP/0.0.0.0/8001"), [existing]) == SUCCESS


def test_ports_follow_pods_added_and_removed() -> None:
    h = Harness(["NodePorts"], [make_node("m1"), make_node("m2")])
    pod = want("TCP/0.0.0.0/8080")
    assert h.filter(pod) == {"m1": SUCCESS, "m2": SUCCESS}
    holder = Pod(meta=ObjectMeta(name="holder", namespace="default"),
                 containers=(Container(name="c", ports=(ContainerPort(8080, 8080, "TCP", "10.1.1.1"),)),))
    h.snapshot.add_pod(holder, 1)
    assert h.filter(pod) == {"m1": SUCCESS, "m2": UNSCHEDULABLE}
    h.snapshot.remove_pod(holder)
    assert h.filter(pod) == {"m1": SUCCESS, "m2": SUCCESS}
    assert h.snapshot.used_ports[1] == {}
    assert not h.snapshot.port_users.get(("TCP", 8080))


def test_shared_port_stays_used_until_every_user_leaves() -> None:
    # ruleset counts users (see the module docstring); upstream's set frees the port at the first removal.
    snapshot = _snapshot()
    first, second = _pod([("TCP", "", 80)]), _pod([("TCP", "0.0.0.0", 80)])
    snapshot.add_pod(first, 0)
    snapshot.add_pod(second, 0)
    assert snapshot.used_ports[0] == {("TCP", 80): {"0.0.0.0": 2}}
    snapshot.remove_pod(first)
    assert check_conflict(snapshot.used_ports[0], "", "", 80) is True
    assert np.array_equal(sorted(snapshot.port_users[("TCP", 80)]), [0])
    snapshot.remove_pod(second)
    assert check_conflict(snapshot.used_ports[0], "", "", 80) is False
    assert _length(snapshot) == 0
