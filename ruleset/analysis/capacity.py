"""``ruleset capacity``: how many more copies of a pod the cluster takes under a profile.

Copies named ``<name>-capacity-<i>`` (i from 1) are scheduled one by one, each a real
scheduling cycle of the profile (its scores choose where each copy lands, which changes
what fits next) followed by Reserve … Bind, until one does not fit or ``limit`` copies
landed. Like cluster-capacity, the count is of room left on the cluster as it stands: the
cluster's pending pods are not scheduled first and hold nothing, and a copy that does not
fit preempts nobody (what PostFilter would have done is only reported).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ruleset.analysis.metrics import balance, zone_of
from ruleset.api.pod import Pod
from ruleset.framework.runtime import Framework
from ruleset.framework.status import Code
from ruleset.scheduler import Scheduler, ScheduleResult
from ruleset.snapshot import Snapshot

#: The default cap on copies (``--max``): enough for most questions, and a few seconds of cycles.
DEFAULT_LIMIT = 1000
#: Example nodes named per failure group.
EXAMPLES = 3


def copy_pod(pod: Pod, index: int) -> Pod:
    """The ``index``-th copy of ``pod``: named ``<name>-capacity-<index>``, its own uid, labels
    and annotations, no node and no nomination."""
    name = f"{pod.name}-capacity-{index}"
    meta = dataclasses.replace(pod.meta, name=name, uid=f"{pod.meta.uid or pod.key}-capacity-{index}",
                               labels=dict(pod.meta.labels), annotations=dict(pod.meta.annotations))
    return dataclasses.replace(pod, meta=meta, node_name="", nominated_node_name="")


@dataclass
class Capacity:
    """What :func:`capacity` found."""

    pod: Pod
    #: ``(copy, node)`` of each copy that landed, in order.
    placements: list[tuple[Pod, str]] = field(default_factory=list)
    #: The attempt of the copy that did not fit (None when ``limit`` stopped the count first).
    failed: ScheduleResult | None = None
    #: Why the copy that did not fit failed: the FitError message, or the failing plugin's.
    reason: str = ""
    limit: int = DEFAULT_LIMIT

    @property
    def count(self) -> int:
        return len(self.placements)

    @property
    def capped(self) -> bool:
        """Whether the count stopped at the limit (more may fit)."""
        return self.failed is None and not self.reason


def capacity(framework: Framework, pod: Pod, *, limit: int = DEFAULT_LIMIT, seed: int = 0) -> Capacity:
    """Schedule copies of ``pod`` on the framework's snapshot one by one until one fails or
    ``limit`` landed; the snapshot keeps them (run inside ``snapshot.what_if()`` to undo)."""
    scheduler = Scheduler(framework, seed=seed)
    out = Capacity(pod=pod, limit=limit)
    for index in range(1, limit + 1):
        copy = copy_pod(pod, index)
        result = scheduler.schedule(copy)
        if result.node is None:
            out.failed, out.reason = result, result.message or result.status.message()
            break
        status = scheduler.reserve_and_permit(result)
        assert result.state is not None
        if status.code == Code.WAIT:  # nothing in this count would ever allow it
            framework.handle.waiting_pods.remove(copy)
            scheduler.forget(result.state, copy, result.node)
        elif status.is_success:
            status = scheduler.bind(result.state, copy, result.node)
        if not status.is_success:
            out.failed, out.reason = result, status.message() or f"{status.code.name} at {status.plugin}"
            break
        out.placements.append((copy, result.node))
    return out


def count_fitting(framework: Framework, pod: Pod, *, limit: int = DEFAULT_LIMIT, seed: int = 0) -> int:
    """How many copies of ``pod`` :func:`capacity` places, leaving the snapshot as it was."""
    snapshot = framework.handle.snapshot
    assert snapshot is not None  # a framework to run holds its snapshot
    with snapshot.what_if():
        return capacity(framework, pod, limit=limit, seed=seed).count


def failure_groups(result: ScheduleResult, snapshot: Snapshot) -> list[dict[str, Any]]:
    """The nodes that rejected a failed attempt grouped by plugin and reasons, the largest group
    first: ``[{"plugin", "reasons", "nodes", "examples"}]`` (up to :data:`EXAMPLES` node names)."""
    statuses = result.statuses
    if statuses is None:
        return []
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for i in statuses.failed():
        status = statuses.status(int(i))
        key = (status.plugin or "", tuple(status.reasons))
        groups.setdefault(key, []).append(snapshot.node_names[int(i)])
    ordered = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    return [{"plugin": plugin or None, "reasons": list(reasons), "nodes": len(names),
             "examples": names[:EXAMPLES]} for (plugin, reasons), names in ordered]


def capacity_json(found: Capacity, snapshot: Snapshot) -> dict[str, Any]:
    """The JSON contract of ``ruleset capacity`` (without ``schemaVersion``): ``pod``, ``count``,
    ``limit``, ``capped``, ``perNode`` (node → copies, most first), ``perZone`` (zone → copies),
    ``placements`` (copy → node, in order), ``lastFailure`` (None when capped: the copy, its
    ``message`` and the rejecting nodes' ``groups``, see :func:`failure_groups`, and
    ``preemption``: the nominated node and victims PostFilter found, which were not evicted)
    and ``balance`` (:func:`~ruleset.analysis.metrics.balance` after the copies landed)."""
    per_node: dict[str, int] = {}
    for _copy, node in found.placements:
        per_node[node] = per_node.get(node, 0) + 1
    per_zone: dict[str, int] = {}
    for node, count in per_node.items():
        zone = zone_of(snapshot.nodes[snapshot.node_index[node]].labels)
        per_zone[zone] = per_zone.get(zone, 0) + count
    last = None
    if found.failed is not None or found.reason:
        copy = copy_pod(found.pod, found.count + 1)
        last = {"pod": copy.key, "message": found.reason,
                "groups": failure_groups(found.failed, snapshot) if found.failed is not None else [],
                "preemption": _preemption(found.failed)}
    return {
        "pod": found.pod.key,
        "count": found.count,
        "limit": found.limit,
        "capped": found.capped,
        "perNode": dict(sorted(per_node.items(), key=lambda item: (-item[1], item[0]))),
        "perZone": dict(sorted(per_zone.items())),
        "placements": [{"pod": copy.key, "node": node} for copy, node in found.placements],
        "lastFailure": last,
        "balance": balance(snapshot, (node for _copy, node in found.placements)),
    }


def _preemption(result: ScheduleResult | None) -> dict[str, Any] | None:
    post = None if result is None else result.post_filter
    if post is None or not post.nominated_node:
        return None
    return {"node": post.nominated_node, "victims": [v.key for v in post.report.victims]}
