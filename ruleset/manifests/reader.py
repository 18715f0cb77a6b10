"""Read manifest files into objects: YAML and JSON, multi-document streams, ``kind: List``
(and ``PodList`` etc., as ``kubectl get -o yaml`` and the API write them), and the
kube-scheduler-simulator export format (``{"nodes": [...], "pods": [...], ...}``).

Objects the scheduler reads are decoded here; pods, and workloads whose pods are still to
be created, are kept raw (:class:`~ruleset.manifests.model.RawObject`) for
:mod:`ruleset.manifests.create`. Kinds the scheduler does not use are skipped and counted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ruleset.admission import decode_limit_range, decode_runtime_class
from ruleset.api.decode import DecodeContext
from ruleset.api.node import decode_node
from ruleset.api.storage import (
    decode_csi_driver,
    decode_csi_node,
    decode_csi_storage_capacity,
    decode_persistent_volume,
    decode_persistent_volume_claim,
    decode_storage_class,
)
from ruleset.api.workloads import (
    decode_pod_disruption_budget,
    decode_priority_class,
    decode_replica_set,
    decode_replication_controller,
    decode_service,
    decode_stateful_set,
)
from ruleset.errors import Problem, RulesetError
from ruleset.manifests.model import Cluster, RawObject, stored
from ruleset.reading import CLUSTER, Limits, decode_utf8, load_json, paused_gc, read_file
from ruleset.workloads import WORKLOAD_KINDS
from ruleset.yaml_reading import load_yaml

#: Kinds decoded into the snapshot, and the :class:`Cluster` list each goes to.
DECODERS = {
    "Node": ("nodes", decode_node),
    "Service": ("services", decode_service),
    "ReplicationController": ("replication_controllers", decode_replication_controller),
    "ReplicaSet": ("replica_sets", decode_replica_set),
    "StatefulSet": ("stateful_sets", decode_stateful_set),
    "PodDisruptionBudget": ("pod_disruption_budgets", decode_pod_disruption_budget),
    "PriorityClass": ("priority_classes", decode_priority_class),
    "LimitRange": ("limit_ranges", decode_limit_range),
    "RuntimeClass": ("runtime_classes", decode_runtime_class),
    # Storage objects: core/v1 and storage.k8s.io (v1, and v1beta1 as older clusters serve them:
    # the fields read here are the same in both).
    "PersistentVolumeClaim": ("persistent_volume_claims", decode_persistent_volume_claim),
    "PersistentVolume": ("persistent_volumes", decode_persistent_volume),
    "StorageClass": ("storage_classes", decode_storage_class),
    "CSINode": ("csi_nodes", decode_csi_node),
    "CSIDriver": ("csi_drivers", decode_csi_driver),
    "CSIStorageCapacity": ("csi_storage_capacities", decode_csi_storage_capacity),
}
#: Workloads kept raw: their pods are created from ``--pods`` files, counted by ``--scale``.
#: CronJob is kept to be named when a ``--pods`` file holds one (its pods come on a schedule).
RAW_WORKLOADS = frozenset(WORKLOAD_KINDS) | {"CronJob"}

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
    # simulator/snapshot/snapshot.go ResourcesForSnap (it exports no CSI object).
    "pvs": "PersistentVolume",
    "pvcs": "PersistentVolumeClaim",
    "storageClasses": "StorageClass",
}


_FIRST_CHARACTER = re.compile(r"\S")


def read_documents(path: Path, limits: Limits = CLUSTER, *,
                   on_plain: Callable[[], None] | None = None) -> Iterator[tuple[int, Any]]:
    """Yield ``(document index, parsed document)`` from a YAML or JSON file.

    YAML mappings and sequences are :class:`~ruleset.reading.LocatedDict` and
    :class:`~ruleset.reading.LocatedList`; with ``on_plain``, those of a large stream the
    native parser reads may be plain ``dict`` and ``list`` without lines, and ``on_plain`` is
    called first (see :func:`~ruleset.yaml_reading.load_yaml`). Raises :class:`RulesetError`
    naming file, line and column for a syntax error, and :class:`~ruleset.reading.LimitError`
    for an input past ``limits`` (a non-regular or too large file, too deep, too many aliases
    or digits).
    """
    file = str(path)
    try:
        raw = read_file(path, limits)
    except OSError as exc:
        raise RulesetError(Problem(f"cannot read: {exc.strerror or exc}", file=file,
                                   code="io-error")) from None
    text = decode_utf8(raw, file, "syntax-error")
    if "\r" in text:  # line ends as text mode reads them ("universal newlines")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    first = _FIRST_CHARACTER.search(text)
    suffix = path.suffix.lower()
    looks_like_json = first is not None and first.group() in ("{", "[")
    if suffix == ".json" or (looks_like_json and suffix not in (".yaml", ".yml")):
        try:
            document = load_json(text, file, limits, raw=raw)
        except json.JSONDecodeError as exc:
            if suffix == ".json":
                raise RulesetError(Problem(f"invalid JSON: {exc.msg}", file=file, line=exc.lineno,
                                           column=exc.colno, code="syntax-error")) from None
            # Not JSON after all (flow-style YAML); fall through to the YAML reader.
        else:
            yield 0, document
            return
    del raw
    yield from enumerate(load_yaml(text, file, limits, on_plain=on_plain))


def _objects(doc: Any) -> Iterator[tuple[str | None, Any]]:
    """Flatten a document into ``(kind, raw object)`` pairs, in order (iteratively: lists
    and ``kind: List`` items may nest as deep as the reader allows)."""
    # Each entry yields (object, kind hint, final): final ones are yielded as they are.
    pending: list[Iterator[tuple[Any, str | None, bool]]] = [iter([(doc, None, False)])]
    while pending:
        entry = next(pending[-1], None)
        if entry is None:
            pending.pop()
            continue
        doc, kind_hint, final = entry
        if final:
            yield kind_hint, doc
            continue
        if doc is None:
            continue
        if isinstance(doc, list):
            pending.append((item, kind_hint, False) for item in doc)
            continue
        if not isinstance(doc, dict):
            yield None, doc
            continue
        kind = doc.get("kind") or kind_hint
        if isinstance(doc.get("items"), list) and (kind is None or str(kind).endswith("List")):
            item_kind = str(kind)[: -len("List")] if kind and kind != "List" else None
            pending.append((item, item_kind or None, False) for item in doc["items"])
            continue
        if kind is None and any(key in doc for key in _SIMULATOR_KEYS):
            pending.append(_simulator_items(doc))
            continue
        yield kind, doc


def _simulator_items(doc: dict) -> Iterator[tuple[Any, str | None, bool]]:
    """The objects of a kube-scheduler-simulator export, for :func:`_objects`."""
    for key, value in doc.items():
        kind_of_items = _SIMULATOR_KEYS.get(key, f"<simulator {key}>")
        for item in value if isinstance(value, list) else [value] if value else []:
            if key in _SIMULATOR_KEYS:
                yield item, kind_of_items, False
            else:
                yield item if isinstance(item, dict) else {"value": item}, kind_of_items, True


def collect_documents(documents: Iterable[tuple[int, Any]], file: str | None, problems: list[Problem],
                      api_checks: bool = True, role: str = "cluster") -> Cluster:
    """Decode parsed documents into a :class:`Cluster`, appending problems to ``problems``;
    pods (and, for ``role="pods"``, workloads) go to ``pod_sources`` raw, in input order.

    ``api_checks=False`` leaves out the API server's checks and admission, for objects built
    the way upstream's unit tests build them.

    The cyclic GC is paused meanwhile (:func:`~ruleset.reading.paused_gc`): ``documents`` is
    usually :func:`read_documents`, parsing as it is consumed here."""
    with paused_gc():
        return _collect(documents, file, problems, api_checks, role)


def _collect(documents: Iterable[tuple[int, Any]], file: str | None, problems: list[Problem],
             api_checks: bool, role: str) -> Cluster:
    cluster = Cluster()
    for index, doc in documents:
        # One object per document, as a multi-document stream holds them: what _objects would
        # yield, without its generator (about 3 us a document, 0.15 s for a 55,000-document dump).
        own = doc.get("kind") if isinstance(doc, dict) else None
        one = own and not (isinstance(doc.get("items"), list) and str(own).endswith("List"))
        for kind, raw in ((own, doc),) if one else _objects(doc):
            if not isinstance(raw, dict):
                ctx = DecodeContext(file=file, document=index, api_checks=api_checks)
                ctx.fail("", f"expected a Kubernetes object, got {type(raw).__name__}")
                problems.extend(ctx.problems)
                continue
            name = str(kind) if isinstance(kind, str) and kind else "<no kind>"
            cluster.kinds[name] += 1
            source = RawObject(name, raw, file, index, api_checks, role)
            if name == "Pod":
                cluster.pod_sources.append(source)
                continue
            if name in RAW_WORKLOADS:
                cluster.workloads.append(source)
                if role == "pods" and stored(raw):
                    # A dump's workload (kubectl get deploy,rs,pods): its pods are the ones the input
                    # holds; creating them again would double it.
                    cluster.warnings[(file, f"{name}: already created (it has a uid or a creationTimestamp): "
                                            "its pods are the ones the input holds, none is created")] += 1
                elif role == "pods":
                    cluster.pod_sources.append(source)
            entry = DECODERS.get(name)
            if entry is None:
                if name not in RAW_WORKLOADS:
                    cluster.skipped[name] += 1
                    if role == "pods":
                        cluster.warnings[(file, f"{name}: not a pod or a workload; skipped")] += 1
                continue
            attr, decoder = entry
            ctx = DecodeContext(file=file, document=index, subject=name, api_checks=api_checks)
            obj = decoder(ctx, raw)
            problems.extend(ctx.problems)
            getattr(cluster, attr).append(obj)
    return cluster
