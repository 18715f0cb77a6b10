"""Read cluster snapshots from real Kubernetes manifests.

Accepts YAML and JSON, multi-document streams, ``kind: List`` (and ``PodList`` etc., as
``kubectl get -o yaml`` and the API write them), and the kube-scheduler-simulator export
format (``{"nodes": [...], "pods": [...], "priorityClasses": [...]}``). Kinds the scheduler
does not use are skipped and counted; they are never an error.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ruleset.api.decode import DecodeContext, LocatedDict, LocatedList
from ruleset.api.node import Node, decode_node
from ruleset.api.pod import Pod, decode_pod
from ruleset.api.workloads import (
    PodDisruptionBudget,
    PriorityClass,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
    decode_pod_disruption_budget,
    decode_priority_class,
    decode_replica_set,
    decode_replication_controller,
    decode_service,
    decode_stateful_set,
)
from ruleset.errors import Problem, RulesetError

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _LocatingLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """A safe YAML loader whose mappings and sequences remember their source lines."""


def _construct_mapping(loader: _LocatingLoader, node: yaml.MappingNode) -> LocatedDict:
    loader.flatten_mapping(node)
    out = LocatedDict()
    out.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            key = str(key)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = key_node.start_mark.line + 1
    return out


def _construct_sequence(loader: _LocatingLoader, node: yaml.SequenceNode) -> LocatedList:
    out = LocatedList(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    out.item_lines = [child.start_mark.line + 1 for child in node.value]
    return out


_LocatingLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LocatingLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


@dataclass
class Cluster:
    """Every object the scheduler uses, in input order, plus a count of what was skipped."""

    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    services: list[Service] = field(default_factory=list)
    replication_controllers: list[ReplicationController] = field(default_factory=list)
    replica_sets: list[ReplicaSet] = field(default_factory=list)
    stateful_sets: list[StatefulSet] = field(default_factory=list)
    pod_disruption_budgets: list[PodDisruptionBudget] = field(default_factory=list)
    priority_classes: list[PriorityClass] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)

    def extend(self, other: Cluster) -> None:
        for name in ("nodes", "pods", "services", "replication_controllers", "replica_sets", "stateful_sets",
                     "pod_disruption_budgets", "priority_classes"):
            getattr(self, name).extend(getattr(other, name))
        self.skipped.update(other.skipped)


_DECODERS = {
    "Node": ("nodes", decode_node),
    "Pod": ("pods", decode_pod),
    "Service": ("services", decode_service),
    "ReplicationController": ("replication_controllers", decode_replication_controller),
    "ReplicaSet": ("replica_sets", decode_replica_set),
    "StatefulSet": ("stateful_sets", decode_stateful_set),
    "PodDisruptionBudget": ("pod_disruption_budgets", decode_pod_disruption_budget),
    "PriorityClass": ("priority_classes", decode_priority_class),
}

#: kube-scheduler-simulator export keys and the kind of their items.
_SIMULATOR_KEYS = {
    "nodes": "Node",
    "pods": "Pod",
    "priorityClasses": "PriorityClass",
    "services": "Service",
    "replicaSets": "ReplicaSet",
    "statefulSets": "StatefulSet",
    "replicationControllers": "ReplicationController",
    "podDisruptionBudgets": "PodDisruptionBudget",
}


def read_documents(path: Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(document index, parsed document)`` from a YAML or JSON file.

    Raises :class:`RulesetError` naming file, line and column for a syntax error.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesetError(Problem(f"cannot read: {exc.strerror or exc}", file=str(path),
                                   code="io-error")) from None
    except UnicodeDecodeError as exc:
        raise RulesetError(Problem(f"not UTF-8 text: {exc.reason}", file=str(path),
                                   code="syntax-error")) from None
    stripped = text.lstrip()
    suffix = path.suffix.lower()
    if suffix == ".json" or (stripped[:1] in ("{", "[") and suffix not in (".yaml", ".yml")):
        try:
            yield 0, json.loads(text)
            return
        except json.JSONDecodeError as exc:
            if suffix == ".json":
                raise RulesetError(Problem(f"invalid JSON: {exc.msg}", file=str(path), line=exc.lineno,
                                           column=exc.colno, code="syntax-error")) from None
            # Not JSON after all (flow-style YAML); fall through to the YAML reader.
    try:
        yield from enumerate(yaml.load_all(text, Loader=_LocatingLoader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = exc.problem or str(exc)
        if exc.context:
            message = f"{exc.context}, {message}"
        raise RulesetError(Problem(f"invalid YAML: {message}", file=str(path),
                                   line=mark.line + 1 if mark else None,
                                   column=mark.column + 1 if mark else None, code="syntax-error")) from None
    except yaml.YAMLError as exc:
        raise RulesetError(Problem(f"invalid YAML: {exc}", file=str(path), code="syntax-error")) from None


def _objects(doc: Any, kind_hint: str | None = None) -> Iterator[tuple[str | None, Any]]:
    """Flatten a document into ``(kind, raw object)`` pairs."""
    if doc is None:
        return
    if isinstance(doc, list):
        for item in doc:
            yield from _objects(item, kind_hint)
        return
    if not isinstance(doc, dict):
        yield None, doc
        return
    kind = doc.get("kind") or kind_hint
    if isinstance(doc.get("items"), list) and (kind is None or str(kind).endswith("List")):
        item_kind = str(kind)[: -len("List")] if kind and kind != "List" else None
        for item in doc["items"]:
            yield from _objects(item, item_kind or None)
        return
    if kind is None and any(key in doc for key in _SIMULATOR_KEYS):
        for key, value in doc.items():
            kind_of_items = _SIMULATOR_KEYS.get(key, f"<simulator {key}>")
            for item in value if isinstance(value, list) else [value] if value else []:
                if key in _SIMULATOR_KEYS:
                    yield from _objects(item, kind_of_items)
                else:
                    yield kind_of_items, item if isinstance(item, dict) else {"value": item}
        return
    yield kind, doc


def decode_documents(documents: Iterable[tuple[int, Any]], file: str | None,
                     problems: list[Problem]) -> Cluster:
    """Decode parsed documents into a :class:`Cluster`, appending problems to ``problems``."""
    cluster = Cluster()
    for index, doc in documents:
        for kind, raw in _objects(doc):
            if not isinstance(raw, dict):
                ctx = DecodeContext(file=file, document=index)
                ctx.fail("", f"expected a Kubernetes object, got {type(raw).__name__}")
                problems.extend(ctx.problems)
                continue
            if not isinstance(kind, str) or (entry := _DECODERS.get(kind)) is None:
                cluster.skipped[str(kind) if kind else "<no kind>"] += 1
                continue
            attr, decoder = entry
            ctx = DecodeContext(file=file, document=index, subject=kind)
            obj = decoder(ctx, raw)
            problems.extend(ctx.problems)
            if isinstance(obj, Pod) and obj.phase in ("Succeeded", "Failed"):
                # The scheduler's cache never holds terminated pods.
                cluster.skipped[f"Pod (phase {obj.phase})"] += 1
                continue
            getattr(cluster, attr).append(obj)
    return cluster


def load_manifests(paths: Iterable[str | Path]) -> Cluster:
    """Read every file into one :class:`Cluster`; raise :class:`RulesetError` listing every problem."""
    problems: list[Problem] = []
    cluster = Cluster()
    for raw_path in paths:
        path = Path(raw_path)
        try:
            part = decode_documents(read_documents(path), str(path), problems)
        except RulesetError as exc:
            problems.extend(exc.problems)
            continue
        cluster.extend(part)
    if problems:
        raise RulesetError(problems)
    return cluster
