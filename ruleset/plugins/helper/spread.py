"""``DefaultSelector`` and ``GetPodServices`` of ``pkg/scheduler/framework/plugins/helper/spread.go`` (v1.20),
and the per-node count of matching pods both spreading plugins take.

Not a plugin. SelectorSpread (and PodTopologySpread's system defaulting) spread a pod away
from the pods of "its" Services, ReplicationControllers, ReplicaSets and StatefulSets; this
module finds them and builds the one selector that stands for all of them::

    labelSet = merge of service.spec.selector for each Service of the pod's namespace whose
               (non-nil) selector matches the pod's labels
             + merge of rc.spec.selector for each RC of the namespace whose non-empty selector
               matches the pod (none when the pod has no labels)
    selector = labelSet as an equality selector (EVERYTHING when labelSet is empty)
    selector = selector AND the requirements of every ReplicaSet of the namespace whose
               non-empty selector matches the pod, then the same for StatefulSets

The ReplicaSet and StatefulSet listers of v1.20 (``GetPodReplicaSets``,
``GetPodStatefulSets``) return an error as soon as *any* ReplicaSet (StatefulSet) of the
namespace has an invalid selector, and ``DefaultSelector`` then ignores them all; so does
this port. Services and RCs take map selectors, which cannot be invalid this way.

Order: upstream walks the listers' caches, whose order is random. Every merged selector
matches the pod's labels, so each key it carries already has the pod's value: the merge
can never see two different values for one key, and ANDed requirements commute. The
result is therefore the same in any order; this port uses the input order of the objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ruleset.api.pod import Pod
from ruleset.api.workloads import ReplicaSet, Service, StatefulSet, label_selector_of
from ruleset.selector import Requirement, Selector, from_set
from ruleset.snapshot import PodTable, Snapshot, Workloads


def _with_set_selectors(workloads: Workloads, kind: str, namespace: str) -> list[tuple[Any, Selector]]:
    """The objects of ``kind`` in ``namespace``, each with ``from_set`` of its map selector.

    Built once per Workloads (they do not change during a run), as ``in_namespace`` is.
    """
    cache = workloads.__dict__.setdefault("_with_set_selectors", {})
    key = (kind, namespace)
    if key not in cache:
        cache[key] = [(o, from_set(o.selector)) for o in workloads.in_namespace(kind, namespace)]
    return cache[key]


def get_pod_services(pod: Pod, workloads: Workloads) -> list[Service]:
    """``GetPodServices``: Services of the pod's namespace whose selector matches its labels.

    A Service without a selector (nil) matches nothing; an empty selector matches every pod.
    """
    out = []
    for service, selector in _with_set_selectors(workloads, "services", pod.namespace):
        if service.selector is None:
            continue
        # AsSelectorPreValidated: plain key=value requirements, no validation.
        if selector.matches(pod.labels):
            out.append(service)
    return out


def get_pod_controllers(pod: Pod, workloads: Workloads) -> list[Mapping[str, str]]:
    """``ReplicationControllerLister.GetPodControllers``: the selectors of the pod's RCs.

    None for a pod without labels; an RC with an empty selector matches nothing.
    """
    if not pod.labels:
        return []
    out = []
    for rc, selector in _with_set_selectors(workloads, "replication_controllers", pod.namespace):
        if selector.empty() or not selector.matches(pod.labels):
            continue
        out.append(rc.selector)
    return out


def _matching_label_selectors(pod: Pod, objects: Iterable[ReplicaSet | StatefulSet]) -> list[Selector]:
    """``GetPodReplicaSets`` / ``GetPodStatefulSets``: the parsed selectors that match the pod.

    Any invalid selector among the namespace's objects fails the whole lookup (upstream
    returns ``invalid selector: ...``), which the caller treats as "none".
    """
    if not pod.labels:
        return []
    parsed = [label_selector_of(obj) for obj in objects]
    selectors = [selector for selector in parsed if selector is not None]
    if len(selectors) < len(parsed):
        return []
    # A nil selector is NOTHING and never matches; an empty one would match every pod and
    # is skipped on purpose upstream ("should match nothing, not everything").
    return [selector for selector in selectors if not selector.empty() and selector.matches(pod.labels)]


def default_selector(pod: Pod, snapshot: Snapshot) -> Selector:
    """``helper.DefaultSelector``: the selector of the pods that belong with ``pod``.

    Returns EVERYTHING (``.empty()`` is True) when no Service, RC, ReplicaSet or
    StatefulSet selects the pod; callers treat that as "nothing to spread".
    """
    workloads = snapshot.workloads
    label_set: dict[str, str] = {}
    for service in get_pod_services(pod, workloads):
        label_set.update(service.selector or {})
    for rc_selector in get_pod_controllers(pod, workloads):
        label_set.update(rc_selector)
    selector = from_set(label_set) if label_set else Selector.EVERYTHING
    for kind in ("replica_sets", "stateful_sets"):
        extra: list[Requirement] = []
        for other in _matching_label_selectors(pod, workloads.in_namespace(kind, pod.namespace)):
            requirements, ok = other.requirements()
            if ok:
                extra.extend(requirements)
        selector = selector.add(*extra)
    return selector


def matching_pods_per_node(snapshot: Snapshot, selector: Selector, namespace: str) -> np.ndarray:
    """``countPodsMatchSelector`` for every node at once: pods in ``namespace``, not
    terminating, whose labels match ``selector``; one count per snapshot node."""
    table = snapshot.pod_table
    n = snapshot.num_nodes
    code = table.namespace_code(namespace)
    if code < 0 or selector.is_nothing or not len(table):
        return np.zeros(n, dtype=np.int64)
    cache: dict[tuple[Selector, int], _MatchingRows] = snapshot.derive(__name__, lambda _: {})
    matching = cache.get((selector, code))
    if matching is None:
        matching = cache[(selector, code)] = _MatchingRows()
    rows = matching.sync(table, selector, code)
    rows = rows[table.alive[rows]]
    return np.bincount(table.node[rows], minlength=n).astype(np.int64, copy=False)


class _MatchingRows:
    """The pod-table rows whose pod is in one namespace, not terminating, and matched by one
    selector: what a row holds never changes (rows are not reused), so each row is
    classified once, as the table grows; whether it is live, and where, is read at use."""

    __slots__ = ("rows", "seen")

    def __init__(self) -> None:
        self.seen = 0
        self.rows = np.zeros(0, dtype=np.intp)

    def sync(self, table: PodTable, selector: Selector, namespace: int) -> np.ndarray:
        size = len(table)
        if size > self.seen:
            new = np.arange(self.seen, size)
            new = new[~table.terminating[new] & (table.namespace[new] == namespace)]
            if len(new) and not selector.empty():
                new = new[_matched(table, selector, new)]
            self.rows = np.concatenate((self.rows, new))
            self.seen = size
        return self.rows


def _matched(table: PodTable, selector: Selector, rows: np.ndarray) -> np.ndarray:
    """Whether ``selector`` matches the pod of each row.

    Many rows (the first look at a table) are matched against the table's label columns at
    once; a few (each cycle adds one), and removed pods, whose rows have no labels, by
    asking the pod.
    """
    by_table = table.alive[rows] if len(rows) > 64 else np.zeros(len(rows), dtype=bool)
    matched = np.empty(len(rows), dtype=bool)
    if by_table.any():
        matched[by_table] = selector.match_table(table.labels, rows[by_table])
    matched[~by_table] = [selector.matches(table.pods[row].labels) for row in rows[~by_table].tolist()]
    return matched
