"""PreferNominatedNode: a pod with a nominated node tries that node alone first.

Ported from upstream v1.22 ``pkg/scheduler/core/generic_scheduler_test.go``
``TestPreferNominatedNodeFilterCallCounts``, all four cases: the count of Filter calls
(here: nodes a Filter plugin was asked about, ruleset's Filter being batched) with the
feature on or off, with and without a nominated node, and with a nominated node that
fails. Left out: its patch-request count (ruleset sends no API requests).

Then what upstream's ``findNodesThatPassFilters`` does with the rotating start index when it
runs over the nominated node alone (``% len(nodes)``, i.e. 0), and with a failed nominated
node whose status stays in the diagnosis the next scan counts as processed; the release
each behaviour starts in (the gate is alpha in 1.21, on from 1.22, GA in 1.24 and removed in
1.26, the behaviour staying); and a whole run where the nominated node is taken without
scoring although another node scores better.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ruleset import FilterResult, Plugin, hookimpl
from ruleset.app import build_framework
from ruleset.cluster import build_cluster_state
from ruleset.config import PluginConfig, Profile
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.framework.status import Code
from ruleset.manifests import decode_documents
from ruleset.scheduler import Scheduler, schedule_all
from tests.factories import build_cluster, decode, make_node, make_pod, registry_with


class CountingFilter(Plugin):
    """Counts the nodes Filter is asked about; ``args.fail`` names nodes it rejects."""

    name = "CountingFilter"
    asked = 0

    @hookimpl
    def ruleset_filter(self, nodes: Any) -> FilterResult | None:
        CountingFilter.asked += len(nodes)
        failing = set(self.args.get("fail", [])) if isinstance(self.args, dict) else set()
        fail = np.array([nodes.snapshot.node_names[int(i)] in failing for i in nodes.indices], dtype=bool)
        if not fail.any():
            return None
        return FilterResult.reject(fail, Code.UNSCHEDULABLE, "counted out")


def _scheduler(nodes: int, version: str | None, gates: dict[str, bool] | None = None,
               fail: tuple[str, ...] = (), percentage: int | None = 100) -> Scheduler:
    state = build_cluster([make_node(f"node{i}") for i in range(1, nodes + 1)])
    profile = Profile(name="test", plugins=[PluginConfig(name="CountingFilter", args={"fail": list(fail)})],
                      percentage_of_nodes_to_score=percentage, kubernetes_version=version,
                      feature_gates=dict(gates or {}))
    return Scheduler(Framework(profile, registry_with(CountingFilter), Handle(state.snapshot)))


def _nominated_pod(node: str | None) -> Any:
    raw = make_pod("p_with_nominated_node" if node else "p_without_nominated_node", priority=1000)
    if node:
        raw["status"] = {"phase": "Pending", "nominatedNodeName": node}
    return decode(raw)


@pytest.mark.parametrize(("feature", "nominated", "fail", "expected"), [
    pytest.param(True, "node1", (), 1, id="Enable the feature, pod has the nominated node set, "
                                         "filter is called only once"),
    pytest.param(False, "node1", (), 3, id="Disable the feature, pod has the nominated node, "
                                          "filter is called for each node"),
    pytest.param(True, None, (), 3, id="pod without the nominated pod, filter is called for each node"),
    pytest.param(True, "node1", ("node1",), 4, id="nominated pod cannot pass the filter, "
                                                  "filter is called for each node"),
])
def test_prefer_nominated_node_filter_call_counts(feature: bool, nominated: str | None, fail: tuple[str, ...],
                                                   expected: int) -> None:
    scheduler = _scheduler(3, "1.22", {"PreferNominatedNode": feature}, fail)
    CountingFilter.asked = 0
    result = scheduler.schedule(_nominated_pod(nominated))
    assert CountingFilter.asked == expected
    if feature and nominated and not fail:
        assert result.node == "node1"
    if fail:  # node1 failed on its own and again in the scan; node2 and node3 tie (no Score plugin)
        assert result.statuses is not None and result.statuses.status(0).reasons == ("counted out",)


@pytest.mark.parametrize(("version", "gates", "expected"), [
    ("1.20", {}, 3),                               # before the gate
    ("1.21", {}, 3),                               # alpha, off by default
    ("1.21", {"PreferNominatedNode": True}, 1),
    ("1.22", {}, 1),                               # beta, on
    ("1.24", {}, 1),                               # GA
    ("1.26", {}, 1),                               # gate removed, always on
    ("1.35", {}, 1),
])
def test_the_releases_that_try_the_nominated_node_first(version: str, gates: dict[str, bool],
                                                        expected: int) -> None:
    scheduler = _scheduler(3, version, gates)
    CountingFilter.asked = 0
    scheduler.schedule(_nominated_pod("node2"))
    assert CountingFilter.asked == expected


def test_the_nominated_node_resets_the_start_index() -> None:
    """``findNodesThatPassFilters`` over the nominated node alone: ``(start + 1) % 1`` is 0."""
    scheduler = _scheduler(200, "1.22", percentage=0)
    scheduler.schedule(_nominated_pod(None))
    assert scheduler.next_start_node_index == 100  # 200 nodes: 100 feasible ones to find
    result = scheduler.schedule(_nominated_pod("node150"))
    assert (result.node, result.feasible.tolist(), scheduler.next_start_node_index) == ("node150", [149], 0)


def test_a_failed_nominated_node_still_counts_as_processed() -> None:
    """The nominated node (index 150) failed on its own; the scan then starts at 0 and stops
    after 100 feasible nodes, before reaching it, but upstream counts its status: 101."""
    scheduler = _scheduler(200, "1.22", fail=("node151",), percentage=0)
    result = scheduler.schedule(_nominated_pod("node151"))
    assert result.statuses is not None
    assert (len(result.feasible), int(result.feasible[0]), int(result.feasible[-1])) == (100, 0, 99)
    assert scheduler.next_start_node_index == 101
    assert (result.statuses.status(150).reasons, bool(result.statuses.evaluated[150])) == (("counted out",), True)
    # Reached by the scan, it is counted once.
    reached = _scheduler(200, "1.22", fail=("node51",), percentage=0)
    reached.schedule(_nominated_pod("node51"))
    assert reached.next_start_node_index == 101  # 100 feasible + node51's status, all visited


PROFILE = """name = "p"
extends = "{base}"
kubernetesVersion = "{version}"
"""


def _node(name: str, cpu: str) -> dict[str, Any]:
    capacity = {"cpu": cpu, "memory": "16Gi", "pods": "10"}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": capacity, "allocatable": capacity}}


def _pod(name: str, cpu: str, node_name: str | None = None, nominated: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [
        {"name": "c", "image": "pause", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}
    status: dict[str, Any] = {"phase": "Pending"}
    if node_name:
        spec["nodeName"], status["phase"] = node_name, "Running"
    if nominated:
        status["nominatedNodeName"] = nominated
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": spec, "status": status}


@pytest.mark.parametrize(("version", "node"), [("1.21", "big"), ("1.22", "small"), ("1.34", "small")])
def test_a_dumped_nominated_pod_goes_to_its_nominated_node_unscored(tmp_path: Any, version: str,
                                                                    node: str) -> None:
    """A pending pod dumped with ``status.nominatedNodeName: small``: both nodes have room, and
    scoring prefers the emptier ``big``; from 1.22 the nominated node passes on its own and is
    taken without scoring."""
    path = tmp_path / "p.toml"
    path.write_text(PROFILE.format(version=version, base="default" if version >= "1.26" else "default-1.20"))
    manifests = [_node("small", "2"), _node("big", "8"), _pod("running", "1", node_name="small"),
                 _pod("nominated", "500m", nominated="small")]
    problems: list[Any] = []
    decoded = decode_documents([(0, {"kind": "List", "items": manifests})], "<test>", problems)
    assert not problems
    state = build_cluster_state(decoded, build_framework(str(path)).profile.target)
    run = schedule_all(build_framework(str(path), state), state)
    assert [(p.pod.name, p.node) for p in run.placements] == [("nominated", node)]
