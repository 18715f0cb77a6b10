"""The scheduling loop: parked pods woken by a placement that may help them.

Upstream v1.20 (``internal/queue/scheduling_queue.go``): ``AssignedPodAdded`` moves the
unschedulable pods whose required pod affinity term the new pod matches
(``getUnschedulablePodsWithMatchingAffinityTerm``) back to the active queue, whatever the
profile; plugins' ``ruleset_queueing_hint`` may add pods of their own. Not ported:
upstream's queue tests drive the informer events and the backoff clock, which a snapshot
run does not have.
"""

from __future__ import annotations

from ruleset import Plugin, hookimpl
from ruleset.config import PluginConfig, Profile
from ruleset.framework.runtime import Framework
from ruleset.scheduler import schedule_all
from tests.factories import (
    build_cluster,
    decode,
    framework_for,
    make_framework,
    make_node,
    make_pod,
    registry_with,
)

AFFINITY = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
    "labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}


def cluster():
    return build_cluster([
        make_node("n1", {"kubernetes.io/hostname": "n1"}),
        make_node("n2", {"kubernetes.io/hostname": "n2"}),
        # Higher priority, so it is tried first and parked: no db pod runs anywhere yet.
        make_pod("web", labels={"app": "web"}, priority=10, affinity=AFFINITY),
        make_pod("db", labels={"app": "db"}, priority=1),
    ])


def test_a_placement_that_satisfies_a_parked_pods_required_affinity_wakes_it():
    state = cluster()
    framework = make_framework(["NodeResourcesFit", "InterPodAffinity"], snapshot=state.snapshot)
    run = schedule_all(framework, state)
    assert [(e.kind, e.pod, e.node, e.detail.get("attempt")) for e in run.events] == [
        ("unschedulable", "default/web", None, 1),
        # db's node is the seeded draw between two equal nodes; web follows it there.
        ("scheduled", "default/db", "n2", 1),
        ("scheduled", "default/web", "n2", 2),
    ]


def test_a_placement_that_does_not_match_leaves_the_pod_parked():
    state = build_cluster([
        make_node("n1", {"kubernetes.io/hostname": "n1"}),
        make_pod("web", labels={"app": "web"}, priority=10, affinity=AFFINITY),
        make_pod("cache", labels={"app": "cache"}, priority=1),
    ])
    framework = make_framework(["NodeResourcesFit", "InterPodAffinity"], snapshot=state.snapshot)
    run = schedule_all(framework, state)
    assert [(p.pod.name, p.node, p.attempts) for p in run.placements] == [("cache", "n1", 1), ("web", None, 1)]


class Failing(Plugin):
    """A filter whose queueing hint raises."""

    name = "FailingHint"

    @hookimpl
    def ruleset_filter(self, nodes):
        return None

    @hookimpl
    def ruleset_queueing_hint(self, pod, placed):
        raise RuntimeError("boom")


class Never(Plugin):
    """A filter whose queueing hint never asks for a retry."""

    name = "NeverHint"

    @hookimpl
    def ruleset_filter(self, nodes):
        return None

    @hookimpl
    def ruleset_queueing_hint(self, pod, placed):
        return False


def test_a_hint_that_fails_counts_as_a_reason_to_retry_and_none_means_no():
    registry = registry_with(Failing, Never)
    waiting, placed = decode(make_pod("w")), decode(make_pod("p"))
    assert framework_for(["FailingHint"], registry).worth_retrying(waiting, placed) is True
    assert framework_for(["NeverHint"], registry).worth_retrying(waiting, placed) is False
    assert framework_for(["NodeName"], registry).worth_retrying(waiting, placed) is False


class ScoringWithHint(Plugin):
    """Filter, Score and a queueing hint."""

    name = "ScoringWithHint"

    @hookimpl
    def ruleset_filter(self, nodes):
        return None

    @hookimpl
    def ruleset_score(self, nodes):
        return [0] * len(nodes)

    @hookimpl
    def ruleset_queueing_hint(self, pod, placed):
        return True


def test_hints_are_asked_only_of_plugins_that_run_filter():
    registry = registry_with(ScoringWithHint)
    profile = Profile(name="p", plugins=[PluginConfig("ScoringWithHint", points=("filter",))])
    assert Framework(profile, registry).has("ruleset_queueing_hint")
    profile = Profile(name="p", plugins=[PluginConfig("ScoringWithHint", points=("score",))])
    assert not Framework(profile, registry).has("ruleset_queueing_hint")


def test_the_affinity_wake_does_not_depend_on_the_profile():
    """v1.20's queue retries on a matching placement even when the profile lacks
    InterPodAffinity: big (too large for the node) is tried again once small lands."""
    state = build_cluster([
        make_node("n1", {"kubernetes.io/hostname": "n1"}),
        make_pod("big", labels={"app": "big"}, priority=10, requests={"cpu": "8"}, affinity={
            "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}}),
        make_pod("small", labels={"app": "x"}, priority=1),
    ])
    framework = make_framework(["NodeResourcesFit"], snapshot=state.snapshot)
    run = schedule_all(framework, state)
    assert [(e.kind, e.pod, e.detail.get("attempt")) for e in run.events] == [
        ("unschedulable", "default/big", 1), ("scheduled", "default/small", 1),
        ("unschedulable", "default/big", 2)]
