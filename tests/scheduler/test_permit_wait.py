"""Permit Wait in the scheduling loop: waiting pods held, allowed, rejected and timed out.

Upstream v1.20 (``framework/runtime/framework.go`` ``RunPermitPlugins``/``WaitOnPermit``,
``waiting_pods_map.go``; the scheduler's ``scheduleOne``): a pod a Permit plugin makes wait
stays assumed on its node until plugins allow or reject it through the handle. Here time
is logical: the queue draining is the timeout. The Permit plugin is a small gang of this
module's own (no dependency on the example Coscheduling package).
"""

from __future__ import annotations

import numpy as np
import pytest

from ruleset import Code, FilterResult, Plugin, Status, hookimpl
from ruleset.framework.waiting import WaitingPods, timeout_message
from ruleset.scheduler import Scheduler, schedule_all
from ruleset.snapshot.pdb import disruptions_allowed
from tests.factories import build_cluster, decode, framework_for, make_node, make_pod, registry_with

GROUP = "gang"
SIZE = "gang/size"


class Gang(Plugin):
    """Pods labelled ``gang`` wait until ``gang/size`` of them are assumed or bound."""

    name = "Gang"

    def _ready(self, pod) -> int:
        snapshot = self.handle.snapshot
        group = pod.labels[GROUP]
        return sum(1 for i in range(snapshot.num_nodes) for p in snapshot.pods_on(i)
                   if p.namespace == pod.namespace and p.labels.get(GROUP) == group)

    def _message(self, pod) -> str:
        return f"gang {pod.labels[GROUP]} has {self._ready(pod)} of {pod.meta.annotations[SIZE]}"

    def _mates(self, pod):
        return [w for w in self.handle.waiting_pods
                if w.pod.namespace == pod.namespace and w.pod.labels.get(GROUP) == pod.labels[GROUP]]

    @hookimpl
    def ruleset_permit(self, pod):
        if GROUP not in pod.labels:
            return None
        if self._ready(pod) < int(pod.meta.annotations[SIZE]):
            return Status(Code.WAIT, (self._message(pod),))
        for waiting in self._mates(pod):
            waiting.allow(self.name)
        return None

    @hookimpl
    def ruleset_reserve(self):
        return None  # Unreserve belongs to the Reserve point: a plugin implements both, as upstream

    @hookimpl
    def ruleset_unreserve(self, pod):
        if GROUP in pod.labels:
            for waiting in self._mates(pod):
                waiting.reject(self.name, self._message(pod))


class Hold(Plugin):
    """Every pod waits, with no reason given."""

    name = "Hold"

    @hookimpl
    def ruleset_permit(self):
        return Status(Code.WAIT)


class Hold2(Hold):
    name = "Hold2"


class Deny(Plugin):
    """Every pod is rejected at Permit."""

    name = "Deny"

    @hookimpl
    def ruleset_permit(self):
        return Status.unschedulable("no")


class RejectWaiting(Plugin):
    """PostFilter: a pod that fits nowhere rejects every waiting pod (as v0.19 Coscheduling's
    PostFilter rejects a group's waiting pods)."""

    name = "RejectWaiting"

    @hookimpl
    def ruleset_post_filter(self, pod):
        self.handle.iterate_over_waiting_pods(lambda w: w.reject(self.name, f"{pod.name} fits nowhere"))


class FailPreBind(Plugin):
    """PreBind fails for pods labelled ``fail``."""

    name = "FailPreBind"

    @hookimpl
    def ruleset_pre_bind(self, pod):
        return Status.unschedulable("pre-bind failed") if "fail" in pod.labels else None


REGISTRY = registry_with(Gang, Hold, Hold2, Deny, RejectWaiting, FailPreBind)


def gang_pod(name: str, cpu: str, size: int = 3, **labels: str) -> dict:
    return make_pod(name, labels={GROUP: "g", **labels}, annotations={SIZE: str(size)}, requests={"cpu": cpu},
                    uid=f"uid-{name}")


def run_on(plugins, objects):
    state = build_cluster(objects)
    framework = framework_for(["NodeResourcesFit", *plugins], REGISTRY, snapshot=state.snapshot)
    return schedule_all(framework, state), state


def events(run):
    return [(e.kind, e.pod, e.node, e.detail.get("reason", e.detail.get("plugins")), e.detail.get("attempt"))
            for e in run.events]


def placements(run):
    return [(p.pod.name, p.node, p.reason, p.attempts) for p in run.placements]


def test_a_complete_group_binds_the_completing_pod_first_then_the_waiting_ones_in_the_order_allowed():
    run, state = run_on(["Gang"], [make_node("n1"), gang_pod("a", "1"), gang_pod("b", "1"),
                                   make_pod("solo", requests={"cpu": "1"}), gang_pod("c", "1")])
    assert events(run) == [
        ("waiting", "default/a", "n1", ["Gang"], 1),
        ("waiting", "default/b", "n1", ["Gang"], 1),
        ("scheduled", "default/solo", "n1", None, 1),
        ("scheduled", "default/c", "n1", None, 1),
        ("scheduled", "default/a", "n1", None, 1),
        ("scheduled", "default/b", "n1", None, 1),
    ]
    assert placements(run) == [("solo", "n1", "", 1), ("c", "n1", "", 1), ("a", "n1", "", 1),
                               ("b", "n1", "", 1)]
    assert [p.node_name for p in state.pending] == ["n1"] * 4
    assert [p.name for p in state.snapshot.pods_on(0)] == ["a", "b", "solo", "c"]  # in the order assumed


def test_an_incomplete_group_holds_its_room_then_is_rejected_when_the_queue_drains_and_frees_it():
    """``late`` does not fit while a and b wait (they hold 4 of 4 cpus). When the queue
    drains, b (the newest) times out with its Wait message, its Unreserve rejects a with
    the group's count at that moment, both leave n1, and ``late`` is tried again and fits."""
    run, state = run_on(["Gang"], [make_node("n1"), gang_pod("a", "2"), gang_pod("b", "2"),
                                   make_pod("late", requests={"cpu": "3"})])
    assert events(run) == [
        ("waiting", "default/a", "n1", ["Gang"], 1),
        ("waiting", "default/b", "n1", ["Gang"], 1),
        ("unschedulable", "default/late", None, "0/1 nodes are available: 1 Insufficient cpu.", 1),
        ("unschedulable", "default/b", None, 'pod "b" rejected while waiting on permit: gang g has 2 of 3', 1),
        ("unschedulable", "default/a", None, 'pod "a" rejected while waiting on permit: gang g has 2 of 3', 1),
        ("scheduled", "default/late", "n1", None, 2),
    ]
    assert placements(run) == [
        ("b", None, 'pod "b" rejected while waiting on permit: gang g has 2 of 3', 1),
        ("a", None, 'pod "a" rejected while waiting on permit: gang g has 2 of 3', 1),
        ("late", "n1", "", 2),
    ]
    snapshot = state.snapshot
    assert [p.name for p in snapshot.pods_on(0)] == ["late"]
    assert int(snapshot.requested("cpu")[0]) == 3000
    assert [p.node_name for p in state.pending] == ["", "", "n1"]


def test_a_waiting_pod_holds_its_resources_and_is_reachable_through_the_handle():
    state = build_cluster([make_node("n1"), gang_pod("a", "3"), make_pod("other", requests={"cpu": "2"})])
    framework = framework_for(["NodeResourcesFit", "Gang"], REGISTRY, snapshot=state.snapshot)
    scheduler = Scheduler(framework)
    a, other = state.pending
    result = scheduler.schedule(a)
    status = scheduler.reserve_and_permit(result)
    assert (status.code, status.reasons) == (Code.WAIT, (
        'one or more plugins asked to wait and no plugin rejected pod "a"',))
    waiting = framework.handle.get_waiting_pod("uid-a")
    assert waiting is not None and waiting.get_pod() is a
    assert (waiting.node, waiting.get_pending_plugins(), waiting.reasons) == (
        "n1", ["Gang"], {"Gang": "gang g has 1 of 3"})
    assert framework.handle.get_waiting_pod("uid-other") is None
    assert scheduler.schedule(other).message == "0/1 nodes are available: 1 Insufficient cpu."
    assert a.node_name == ""  # assumed, not bound


@pytest.mark.parametrize("plugins, reason", [
    (["Hold"], 'pod "p" rejected while waiting on permit: ' + timeout_message("Hold")),
    (["Hold", "Hold2"], 'pod "p" rejected while waiting on permit: rejected due to timeout after waiting '
                        'at plugin Hold'),
    (["Hold", "Deny"], 'rejected pod "p" by permit plugin "Deny": no'),
], ids=["no-reason-is-a-timeout", "first-pending-plugin-rejects", "a-rejection-after-a-wait-wins"])
def test_reasons_when_nothing_allows_the_pod(plugins, reason):
    run, state = run_on(plugins, [make_node("n1"), make_pod("p", requests={"cpu": "1"})])
    assert placements(run) == [("p", None, reason, 1)]
    assert state.snapshot.pods_on(0) == []


def test_a_pod_rejected_while_others_run_is_parked_and_its_room_wakes_parked_pods():
    run, state = run_on(["Gang", "RejectWaiting"], [make_node("n1"), gang_pod("a", "2", size=2),
                                                    make_pod("big", requests={"cpu": "3"})])
    rejected = 'pod "a" rejected while waiting on permit: big fits nowhere'
    assert events(run) == [
        ("waiting", "default/a", "n1", ["Gang"], 1),
        ("unschedulable", "default/big", None, "0/1 nodes are available: 1 Insufficient cpu.", 1),
        ("unschedulable", "default/a", None, rejected, 1),
        ("scheduled", "default/big", "n1", None, 2),
    ]
    assert placements(run) == [("big", "n1", "", 2), ("a", None, rejected, 1)]
    assert [p.name for p in state.snapshot.pods_on(0)] == ["big"]


def test_an_allowed_pod_stays_allowed_when_the_completing_pod_fails_to_bind():
    """The first decision wins (upstream's buffered channel): b's Unreserve cannot take back
    the Allow its Permit gave a."""
    run, state = run_on(["Gang", "FailPreBind"], [make_node("n1"), gang_pod("a", "1", size=2),
                                                  gang_pod("b", "1", size=2, fail="yes")])
    assert placements(run) == [("a", "n1", "", 1), ("b", None, "pre-bind failed", 1)]
    assert [p.name for p in state.snapshot.pods_on(0)] == ["a"]


def test_waiting_pods_each_plugin_must_allow_and_the_first_decision_wins():
    pods = WaitingPods()
    pod = decode(make_pod("p", uid="u1"))
    waiting = pods.add(pod, "n1", {"A": "", "B": "b waits"})
    waiting.allow("A")
    assert (waiting.pending_plugins, waiting.decided, pods.take_decided()) == (["B"], False, None)
    waiting.allow("B")
    waiting.reject("B", "too late")
    assert waiting.outcome is not None and waiting.outcome.is_success
    assert pods.take_decided() is waiting
    assert (len(pods), pods.take_decided(), pods.get("u1")) == (0, None, None)
    rejected = pods.add(pod, "n1", {"A": ""})
    rejected.reject("A", "no room")
    rejected.allow("A")
    assert rejected.outcome == Status(Code.UNSCHEDULABLE, ("no room",), "A")



class Gate(Plugin):
    """Filter: ``urgent`` fits nowhere until a pod named ``key`` has landed (its queueing hint)."""

    name = "Gate"

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        self.opened = False

    @hookimpl
    def ruleset_filter(self, pod, nodes):
        if pod.name == "urgent" and not self.opened:
            return FilterResult.reject(np.ones(len(nodes), dtype=bool), Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                       "gate closed")
        return None

    @hookimpl
    def ruleset_queueing_hint(self, pod, placed):
        self.opened = self.opened or placed.name == "key"
        return self.opened


def test_a_waiting_pod_chosen_as_a_preemption_victim_is_rejected_and_never_retried():
    """v1.20's ``PrepareCandidate`` rejects a waiting victim (``preempted``). ``urgent`` is
    tried first and parked (its gate is closed); a waits holding 3 cpus; key's placement
    wakes urgent, which preempts a (a is deleted upstream: not tried again)."""
    state = build_cluster([make_node("n1"), make_pod("urgent", priority=100, requests={"cpu": "3"}),
                           gang_pod("a", "3", size=2), make_pod("key")])
    framework = framework_for(["NodeResourcesFit", "DefaultPreemption", "Gang", "Gate"],
                              registry_with(Gang, Gate), snapshot=state.snapshot)
    run = schedule_all(framework, state)
    assert [(e.kind, e.pod, e.node) for e in run.events] == [
        ("unschedulable", "default/urgent", None),
        ("waiting", "default/a", "n1"),
        ("scheduled", "default/key", "n1"),
        ("unschedulable", "default/urgent", None),
        ("preemption", "default/urgent", "n1"),
        ("evicted", "default/a", "n1"),
        ("unschedulable", "default/a", None),
        ("scheduled", "default/urgent", "n1"),
    ]
    assert placements(run) == [
        ("key", "n1", "", 1),
        ("a", None, 'pod "a" rejected while waiting on permit: preempted', 1),
        ("urgent", "n1", "", 3),
    ]
    assert [p.name for p in state.snapshot.pods_on(0)] == ["key", "urgent"]


class Misuse(Plugin):
    """Pod ``w`` waits at Permit; pod ``m``'s PreFilter calls ``act`` on every waiting pod."""

    name = "Misuse"

    @staticmethod
    def act(waiting) -> None:
        raise NotImplementedError  # set per case by misuse()

    @hookimpl
    def ruleset_permit(self, pod):
        return Status(Code.WAIT, ("held",)) if pod.name == "w" else None

    @hookimpl
    def ruleset_pre_filter(self, pod):
        if pod.name == "m":
            self.handle.iterate_over_waiting_pods(self.act)


def misuse(act) -> type[Misuse]:
    return type("Misuse", (Misuse,), {"act": staticmethod(act)})


MISUSES = [
    pytest.param(lambda w: w.reject("Misuse", None), "WaitingPod.reject: message must be str, not NoneType",
                 id="reject-with-no-message"),
    pytest.param(lambda w: w.reject(1, "no"), "WaitingPod.reject: plugin must be str, not int",
                 id="reject-by-an-int"),
    pytest.param(lambda w: w.allow(None), "WaitingPod.allow: plugin must be str, not NoneType",
                 id="allow-by-none"),
]


@pytest.mark.parametrize("act, message", MISUSES)
def test_allow_or_reject_with_a_non_string_is_an_error_of_the_plugin_that_called_it(act, message):
    """The TypeError is raised in the calling hook, inside its boundary: ``m`` fails with
    Misuse's error, ``w`` is left undecided and times out when the queue drains."""
    state = build_cluster([make_node("n1"), make_pod("w", uid="uid-w"), make_pod("m")])
    framework = framework_for(["NodeResourcesFit", "Misuse"], registry_with(misuse(act)), snapshot=state.snapshot)
    run = schedule_all(framework, state)
    error = f'running PreFilter plugin "Misuse": TypeError: {message}'
    timed_out = 'pod "w" rejected while waiting on permit: held'
    assert events(run) == [
        ("waiting", "default/w", "n1", ["Misuse"], 1),
        ("error", "default/m", None, error, 1),
        ("unschedulable", "default/w", None, timed_out, 1),
    ]
    assert placements(run) == [("m", None, error, 1), ("w", None, timed_out, 1)]
    failed = run.placements[0].error
    assert (failed.plugin, failed.package, failed.fault) == ("Misuse", "test", True)

    pods = WaitingPods()
    waiting = pods.add(decode(make_pod("p", uid="u1")), "n1", {"Misuse": ""})
    with pytest.raises(TypeError) as raised:
        act(waiting)
    assert (str(raised.value), waiting.decided, pods.take_decided()) == (message, False, None)


class AllowAll(Plugin):
    """Pods of priority 1 wait at Permit; ``high``'s PreFilter fails its first attempt, then
    allows every waiting pod (which binds only once the attempt ends). Records Unreserve."""

    name = "AllowAll"

    def __init__(self, args=None, handle=None):
        super().__init__(args, handle)
        self.tries = 0
        self.unreserved: list[str] = []

    @hookimpl
    def ruleset_permit(self, pod):
        return Status(Code.WAIT, ("gate",)) if pod.priority == 1 else None

    @hookimpl
    def ruleset_pre_filter(self, pod):
        if pod.name == "high":
            self.tries += 1
            if self.tries == 1:
                return Status.unschedulable("not yet")
            self.handle.iterate_over_waiting_pods(lambda w: w.allow(self.name))
        return None

    @hookimpl
    def ruleset_reserve(self):
        return None

    @hookimpl
    def ruleset_unreserve(self, pod):
        self.unreserved.append(pod.name)

    @hookimpl
    def ruleset_filter(self):
        return None  # the queueing hint belongs to the Filter point

    @hookimpl
    def ruleset_queueing_hint(self):
        return True


def test_a_waiting_victim_already_allowed_is_deleted_once_and_never_binds():
    """Deletion wins over the Allow given in the same attempt: ``low`` leaves the waiting
    pods, is unreserved and taken off n1 at once and reported; it is evicted once (one
    disruption of its PDB) and never binds, and ``high`` takes its room."""
    state = build_cluster([
        make_node("n1", cpu="1"),
        make_pod("low", labels={"app": "low"}, priority=1, requests={"cpu": "1"}, uid="uid-low",
                 creation_timestamp="2024-01-01T00:00:00Z"),
        make_pod("mid", priority=0, uid="uid-mid", creation_timestamp="2024-01-01T00:00:00Z"),
        make_pod("high", priority=100, requests={"cpu": "1"}, uid="uid-high",
                 creation_timestamp="2024-01-01T00:00:01Z"),
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb", "namespace": "default"},
         "spec": {"minAvailable": 0, "selector": {"matchLabels": {"app": "low"}}},
         "status": {"disruptionsAllowed": 5}},
    ])
    framework = framework_for(["NodeResourcesFit", "DefaultPreemption", "AllowAll"], registry_with(AllowAll),
                              snapshot=state.snapshot)
    run = schedule_all(framework, state)
    preempted = 'pod "low" rejected while waiting on permit: preempted'
    assert [(e.kind, e.pod, e.node, e.detail.get("reason")) for e in run.events] == [
        ("unschedulable", "default/high", None, "0/1 nodes are available: 1 not yet."),
        ("waiting", "default/low", "n1", None),
        ("scheduled", "default/mid", "n1", None),
        ("unschedulable", "default/high", None, "0/1 nodes are available: 1 Insufficient cpu."),
        ("preemption", "default/high", "n1", "the only candidate"),
        ("evicted", "default/low", "n1", None),
        ("unschedulable", "default/low", None, preempted),
        ("scheduled", "default/high", "n1", None),
    ]
    assert placements(run) == [("mid", "n1", "", 1), ("low", None, preempted, 1), ("high", "n1", "", 3)]
    assert [p.name for p in state.snapshot.pods_on(0)] == ["mid", "high"]
    assert framework.plugin_reported_as("AllowAll").unreserved == ["low"]
    assert (len(framework.handle.waiting_pods), state.pending[0].node_name) == (0, "")
    [budget] = state.snapshot.workloads.pod_disruption_budgets
    assert disruptions_allowed(budget, state.snapshot) == 4
