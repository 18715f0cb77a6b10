"""The nominated-pods check on columns reruns only the steps that read other pods
(``Scheduler._nominated_pass``), and every step where that could differ.

Not an upstream port. Upstream's ``PodPassesFiltersOnNode`` runs every Filter plugin with the
nominated pods added; the bulk check skips the nodes the batch rejected at a plugin that ignores
other pods and runs only the plugins that read them on the rest. Here a plugin whose verdict is
not monotone in the pods added (it rejects nodes with an odd pod count) comes before one that
ignores pods and rejects some nodes: a node the batch rejected at the first may pass it with
the nominated pods and then meet the second, which the batch never ran on it. Every status and
the feasible nodes must equal the reference path's, node by node.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ruleset import OTHER_PODS_AS_RESOURCES, OTHER_PODS_IGNORED, FilterResult, Plugin, hookimpl
from ruleset.framework.dependence import reference_path
from ruleset.framework.status import Code
from ruleset.scheduler import Scheduler
from tests.factories import build_cluster, decode, framework_for, make_node, make_pod, registry_with

ODD = "odd number of pods"
REJECTED = "rejected by name"


class Parity(Plugin):
    """Rejects a node holding an odd number of pods (other pods count only as a pod count)."""

    name = "Parity"

    def other_pods(self, state: Any, pod: Any) -> str:
        return OTHER_PODS_AS_RESOURCES

    @hookimpl
    def ruleset_filter(self, nodes: Any) -> FilterResult:
        return FilterResult.reject(nodes.snapshot.pod_count[nodes.indices] % 2 == 1, Code.UNSCHEDULABLE, ODD)

    def filter_with_columns(self, state: Any, pod: Any, nodes: Any, columns: Any) -> FilterResult:
        return FilterResult.reject(columns.pod_count % 2 == 1, Code.UNSCHEDULABLE, ODD)


class ByName(Plugin):
    """Rejects the nodes n1 and n4, whatever pods run anywhere."""

    name = "ByName"

    def other_pods(self, state: Any, pod: Any) -> str:
        return OTHER_PODS_IGNORED

    @hookimpl
    def ruleset_filter(self, nodes: Any) -> FilterResult:
        names = nodes.snapshot.node_names
        return FilterResult.reject(np.array([names[i] in ("n1", "n4") for i in nodes.indices.tolist()]),
                                   Code.UNSCHEDULABLE, REJECTED)


def _statuses(order: list[str], running: dict[str, int], nominated: dict[str, int]) -> tuple[Any, ...]:
    objects = [make_node(f"n{i}") for i in range(6)]
    for node, count in running.items():
        objects += [make_pod(f"{node}-r{k}", node_name=node) for k in range(count)]
    state = build_cluster(objects)
    framework = framework_for(order, registry_with(Parity, ByName), snapshot=state.snapshot)
    for node, count in nominated.items():
        for k in range(count):
            framework.handle.nominator.add(decode(make_pod(f"{node}-n{k}", priority=100)), node)
    result = Scheduler(framework).schedule(decode(make_pod("p", priority=10)), always_score=True)
    assert result.statuses is not None
    statuses = [(s.code.label, s.reasons, s.plugin) for s in map(result.statuses.status, range(6))]
    return statuses, result.feasible.tolist()


@pytest.mark.parametrize("order", [["Parity", "ByName"], ["ByName", "Parity"]], ids=["parity-first", "name-first"])
@pytest.mark.parametrize(("running", "nominated"), [
    # n0: odd without, even with (passes Parity only with the nominated pod); n1 the same, and
    # ByName rejects it: the bulk check must run ByName there. n2: even, then odd. n3: nothing
    # nominated. n4: odd both ways. n5: even both ways.
    ({"n0": 1, "n1": 1, "n2": 2, "n3": 1, "n4": 1, "n5": 2}, {"n0": 1, "n1": 1, "n2": 1, "n4": 2, "n5": 2}),
    ({"n1": 3, "n4": 2}, {"n1": 1, "n4": 1, "n0": 1}),
], ids=["mixed", "few"])
def test_the_bulk_nominated_check_matches_the_reference(order: list[str], running: dict[str, int],
                                                        nominated: dict[str, int]) -> None:
    with reference_path():
        expected = _statuses(order, running, nominated)
    assert _statuses(order, running, nominated) == expected


def test_the_mixed_case_has_every_kind_of_node() -> None:
    """The statuses the cases above compare (Parity first): n1 passes Parity only with its
    nominated pod and is then rejected by name, a status the batch never gave it."""
    statuses, feasible = _statuses(["Parity", "ByName"], {"n0": 1, "n1": 1, "n2": 2, "n3": 1, "n4": 1, "n5": 2},
                                   {"n0": 1, "n1": 1, "n2": 1, "n4": 2, "n5": 2})
    unschedulable = "Unschedulable"
    assert statuses == [
        (unschedulable, (ODD,), "Parity"),       # with its nominated pod: even, passes; without: odd
        (unschedulable, (REJECTED,), "ByName"),  # passes Parity with the nominated pod, then ByName
        (unschedulable, (ODD,), "Parity"),       # even without, odd with: the first pass's status
        (unschedulable, (ODD,), "Parity"),
        (unschedulable, (ODD,), "Parity"),
        ("Success", (), None),
    ]
    assert feasible == [5]
