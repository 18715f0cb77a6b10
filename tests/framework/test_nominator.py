"""The nominator (upstream's ``PodNominator``, v1.20 ``internal/queue/scheduling_queue.go``
``nominatedPodMap``): add, delete, and which nominated pods a pod must leave room for.

Not ported: upstream's TestNominatedPodMap cases go through the queue's informer updates
(pod update events move a nomination), which a snapshot run has no equivalent of.
"""

from __future__ import annotations

import pytest

from ruleset.framework.nominator import Nominator
from tests.factories import decode, make_pod


def pod(name: str, priority: int):
    return decode(make_pod(name, priority=priority, uid=name))


def test_add_records_the_node_on_the_pod_and_keeps_nomination_order():
    nominator = Nominator()
    a, b = pod("a", 10), pod("b", 5)
    nominator.add(a, "n1")
    nominator.add(b, "n1")
    assert (a.nominated_node_name, b.nominated_node_name) == ("n1", "n1")
    assert nominator.pods_on("n1") == [a, b]
    assert dict(nominator.as_mapping()) == {"n1": [a, b]}


def test_adding_again_moves_the_nomination():
    nominator = Nominator()
    a = pod("a", 10)
    nominator.add(a, "n1")
    nominator.add(a, "n2")
    assert dict(nominator.as_mapping()) == {"n1": [], "n2": [a]}
    assert a.nominated_node_name == "n2"


def test_delete_clears_the_pod_and_ignores_pods_without_a_nomination():
    nominator = Nominator()
    a, stray = pod("a", 10), pod("stray", 1)
    nominator.add(a, "n1")
    nominator.delete(a)
    nominator.delete(stray)
    assert a.nominated_node_name == ""
    assert dict(nominator.as_mapping()) == {"n1": []}


def test_a_pod_leaves_room_for_nominated_pods_of_at_least_its_priority_but_not_for_itself():
    nominator = Nominator()
    high, equal, low = pod("high", 10), pod("equal", 5), pod("low", 1)
    for p in (high, equal, low):
        nominator.add(p, "n1")
    me = pod("me", 5)
    assert nominator.pods_for(me, "n1") == [high, equal]
    assert nominator.pods_for(equal, "n1") == [high]
    assert nominator.pods_for(me, "n2") == []
    assert list(nominator.nodes_for(me)) == ["n1"]
    assert list(nominator.nodes_for(pod("top", 100))) == []


def test_the_mapping_view_is_read_only():
    nominator = Nominator()
    view = nominator.as_mapping()
    with pytest.raises(TypeError):
        view["n1"] = []  # type: ignore[index]
    assert dict(view) == {}
