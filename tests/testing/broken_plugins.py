"""Plugins each breaking one rule that ``check_plugin`` checks (used by test_check_plugin)."""

from __future__ import annotations

import dataclasses
import itertools
from typing import ClassVar

import numpy as np

import ruleset
from ruleset import Code, FilterResult, Status, arg_field, hookimpl

_counter = itertools.count()


class Good(ruleset.Plugin):
    """Passes on nodes labelled tier=frontend... and everywhere else; scores 7."""

    name = "Good"

    @hookimpl
    def ruleset_filter(self, nodes):
        return None

    @hookimpl
    def ruleset_score(self, nodes):
        return np.full(len(nodes), 7)


class NoDocstring(Good):
    name = "NoDocstring"


class InvalidSchema(Good):
    """Its args schema is no JSON Schema."""

    name = "InvalidSchema"
    args_schema: ClassVar[dict] = {"type": "object", "properties": {"x": {"type": "nope"}}}


@dataclasses.dataclass(frozen=True)
class _Args:
    limit: int = arg_field("limit", 3, schema={"type": "integer"}, description="A limit.")
    note: str = arg_field("note", "", schema={"type": "string"})


class SchemaDisagrees(Good):
    """Its schema's default is not its Args default, and an arg has no description."""

    name = "SchemaDisagrees"
    Args = _Args
    args_schema: ClassVar[dict] = {"type": "object", "additionalProperties": False, "properties": {
        "limit": {"type": "integer", "default": 5, "description": "A limit."}, "note": {"type": "string"}}}


class UnknownHookArgument(Good):
    """A hook takes an argument its spec does not have."""

    name = "UnknownHookArgument"

    @hookimpl
    def ruleset_score(self, nodes, weather):
        return np.zeros(len(nodes))


class FilterTooLong(Good):
    """Filter answers for one node too many."""

    name = "FilterTooLong"

    @hookimpl
    def ruleset_filter(self, nodes):
        return FilterResult.passing(len(nodes) + 1)


class FilterSkips(Good):
    """Filter answers Skip, a Bind code."""

    name = "FilterSkips"

    @hookimpl
    def ruleset_filter(self, nodes):
        return FilterResult.reject(np.ones(len(nodes), dtype=bool), Code.SKIP, "skip")


class ScoreOutOfRange(Good):
    """Scores 101 without normalizing."""

    name = "ScoreOutOfRange"

    @hookimpl
    def ruleset_score(self, nodes):
        return np.full(len(nodes), 101)


class ScoreNotIntegers(Good):
    """Scores 0.5."""

    name = "ScoreNotIntegers"

    @hookimpl
    def ruleset_score(self, nodes):
        return np.full(len(nodes), 0.5)


class NotDeterministic(Good):
    """Scores differ every call."""

    name = "NotDeterministic"

    @hookimpl
    def ruleset_score(self, nodes):
        return np.full(len(nodes), next(_counter) % 100)


class MutatesSnapshot(Good):
    """Score writes into the snapshot's pod counts."""

    name = "MutatesSnapshot"

    @hookimpl
    def ruleset_score(self, nodes):
        nodes.snapshot.pod_count[nodes.indices] += 1
        return np.zeros(len(nodes))


class EmptyNodeSetFails(Good):
    """Filter reads the first node."""

    name = "EmptyNodeSetFails"

    @hookimpl
    def ruleset_filter(self, nodes):
        nodes.names[0]
        return None


class BatchDisagrees(ruleset.PerNodeFilter):
    """filter_node rejects cordoned nodes; the batch Filter rejects nothing."""

    name = "BatchDisagrees"

    def filter_node(self, state, pod, node):
        return Status.unschedulable("cordoned") if node.node.unschedulable else None

    @hookimpl
    def ruleset_filter(self, nodes):
        return None


class _Count:
    def __init__(self, web: dict[int, int]):
        self.web = web


class _ClonableCount(_Count):
    def clone(self) -> _ClonableCount:
        return _ClonableCount(dict(self.web))


class WebAntiAffinity(ruleset.Plugin):
    """Rejects nodes running an app=web pod, counted at PreFilter; RemovePod updates the count
    in place, but the count has no clone()."""

    name = "WebAntiAffinity"
    count = _Count

    @hookimpl
    def ruleset_pre_filter(self, state, snapshot):
        web = {i: sum(p.labels.get("app") == "web" for p in snapshot.pods_on(i)) for i in range(snapshot.num_nodes)}
        state.write("web", self.count(web))

    @hookimpl
    def ruleset_pre_filter_remove_pod(self, state, pod_to_remove, node):
        if pod_to_remove.labels.get("app") == "web":
            state.read("web").web[node] -= 1

    @hookimpl
    def ruleset_pre_filter_add_pod(self, state, pod_to_add, node):
        if pod_to_add.labels.get("app") == "web":
            state.read("web").web[node] += 1

    @hookimpl
    def ruleset_filter(self, state, nodes):
        count = state.read("web").web
        busy = np.array([count[int(i)] > 0 for i in nodes.indices], dtype=bool)
        return FilterResult.reject(busy, Code.UNSCHEDULABLE, "web pod present")


class ClonedWebAntiAffinity(WebAntiAffinity):
    """As WebAntiAffinity, with a count that has clone(): a conforming plugin."""

    name = "ClonedWebAntiAffinity"
    count = _ClonableCount


class NoRemovePod(ClonedWebAntiAffinity):
    """As ClonedWebAntiAffinity, without the PreFilter extensions."""

    name = "NoRemovePod"
    ruleset_pre_filter_remove_pod = None  # type: ignore[assignment]
    ruleset_pre_filter_add_pod = None  # type: ignore[assignment]


class AlwaysFirst(ruleset.Plugin):
    """A QueueSort whose "less" is always true."""

    name = "AlwaysFirst"

    @hookimpl
    def ruleset_queue_sort(self, a, b):
        return True
