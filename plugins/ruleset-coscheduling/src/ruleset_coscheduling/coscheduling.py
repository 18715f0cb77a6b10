"""Coscheduling: gang scheduling, after kubernetes-sigs/scheduler-plugins' Coscheduling.

Ported, simplified, from ``pkg/coscheduling/coscheduling.go`` and
``pkg/coscheduling/core/core.go`` at release v0.19.8 (the plugin of kube-scheduler v1.19/
v1.20), with the group declared the lightweight way v0.18.9's plugin did: no PodGroup
object, a pod belongs to the group its ``pod-group.scheduling.sigs.k8s.io`` label names
(v0.19's ``util.PodGroupLabel``) in its namespace, and the group's ``minMember`` is the
pod's ``pod-group.scheduling.sigs.k8s.io/min-available`` annotation (the plugin's
``defaultMinAvailable`` arg when the annotation is absent).

* **QueueSort** (v0.18's ``Less``): higher priority first; then the earlier group
  timestamp (a group's pods all carry the earliest creation time among them, a pod of no
  group its own queue time), so a group's pods queue together; then pods of no group
  before groups, groups by ``namespace/name``; then input order.
* **PreFilter** (core ``PreFilter``): a pod whose group has fewer pods in total (pending
  or assigned, in the pod's namespace) than its min-available is Unschedulable:
  ``pre-filter pod <name> cannot find enough sibling pods, current pods number: <n>,
  minMember of group: <m>``.
* **Permit** (``Permit``, core ``Permit``): counts the group's pods assigned a node —
  bound or assumed (waiting), the pod itself included, as upstream's ``assigned + 1``.
  Fewer than min-available: Wait, with the reason ``pod group "<g>" has <n> of <m> pods
  ready``, which is what the pod is rejected with if the run ends before the group
  completes. Enough: every waiting pod of the group is allowed and the pod passes.
* **Reserve** does nothing; **Unreserve** (``Unreserve``) rejects every waiting pod of
  the group, with the group's count at that moment (the unreserved pod is still assumed
  while Unreserve runs, as upstream forgets it after).

Not ported: the PodGroup custom resource (``minResources``, ``scheduleTimeoutSeconds``,
status updates in PostBind), the denied-group cache and PostFilter's early rejection of
a group, the check that a group's pods agree on min-available and priority (each pod's
own annotation counts). ``permitWaitingTimeSeconds`` is accepted, so configurations
written for upstream import, but a snapshot run has no clock: a waiting pod times out
when nothing left in the queue could complete its group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ruleset import ArgError, Code, CycleState, Handle, Plugin, QueuedPodInfo, Status, arg_field, hookimpl
from ruleset.api.pod import Pod
from ruleset.gofmt import go_quote, parse_int64

if TYPE_CHECKING:
    from ruleset import Snapshot

#: The label naming a pod's group (scheduler-plugins v0.19 ``util.PodGroupLabel``).
POD_GROUP_LABEL = "pod-group.scheduling.sigs.k8s.io"
#: The annotation holding the group's min-available (v0.18.9's ``PodGroupMinAvailable`` key).
MIN_AVAILABLE_ANNOTATION = "pod-group.scheduling.sigs.k8s.io/min-available"


@dataclass(frozen=True, slots=True)
class CoschedulingArgs:
    """The plugin's args (``CoschedulingArgs`` of scheduler-plugins v0.19, plus a default)."""

    default_min_available: int = arg_field(
        "defaultMinAvailable", 1, schema={"type": "integer"},
        description=f"min-available of a group whose pods carry no {MIN_AVAILABLE_ANNOTATION} annotation "
                    f"(1: such a pod schedules alone).")
    permit_waiting_time_seconds: int = arg_field(
        "permitWaitingTimeSeconds", 60, schema={"type": "integer"},
        description="Upstream's Permit timeout; accepted, unused: a waiting pod times out when the "
                    "queue has nothing left that could complete its group.")


def group_of(pod: Pod) -> str:
    """The name of ``pod``'s group ("" for none)."""
    return pod.labels.get(POD_GROUP_LABEL, "")


def same_group(pod: Pod, other: Pod) -> bool:
    return other.namespace == pod.namespace and group_of(other) == group_of(pod)


class Coscheduling(Plugin):
    """Gang scheduling: a group's pods bind only once min-available of them have a node.

    Pods labelled ``pod-group.scheduling.sigs.k8s.io: <group>`` wait at Permit, holding
    their node, until ``pod-group.scheduling.sigs.k8s.io/min-available`` pods of the group
    are assumed or bound; then all bind. A group that cannot complete is rejected whole.
    """

    name = "Coscheduling"
    Args = CoschedulingArgs

    def __init__(self, args: Any = None, handle: Handle | None = None):
        super().__init__(args, handle)
        # Group key -> its earliest creation time, for QueueSort (pending pods never change).
        self._group_times: dict[str, float] = {}
        self._times_of: object = None

    @classmethod
    def validate_args(cls, args: CoschedulingArgs) -> list[ArgError]:
        errors = []
        if args.default_min_available < 1:
            errors.append(ArgError(("defaultMinAvailable",), f"defaultMinAvailable must be at least 1, "
                                                             f"got {args.default_min_available}"))
        if args.permit_waiting_time_seconds < 0:
            errors.append(ArgError(("permitWaitingTimeSeconds",),
                                   f"permitWaitingTimeSeconds must not be negative, got "
                                   f"{args.permit_waiting_time_seconds}"))
        return errors

    # ----------------------------------------------------------- the group
    def min_available(self, pod: Pod) -> int | None:
        """The group's min-available for ``pod``; None when the annotation is no integer >= 1."""
        raw = pod.meta.annotations.get(MIN_AVAILABLE_ANNOTATION)
        if raw is None:
            return int(self.args.default_min_available)
        # Read as upstream's strconv.Atoi reads it: Python's int() would also take " 3", "1_0",
        # non-ASCII digits and values beyond int64.
        value = parse_int64(raw)
        return value if value is not None and value >= 1 else None

    def _assigned(self, pod: Pod) -> list[Pod]:
        """The group's pods that have a node: bound, or assumed (waiting, or in this cycle)."""
        snapshot: Snapshot | None = self.handle.snapshot
        if snapshot is None:
            return []
        return [p for i in range(snapshot.num_nodes) for p in snapshot.pods_on(i) if same_group(pod, p)]

    def _total(self, pod: Pod) -> int:
        """The group's pods the run knows: pending ones and those with a node, ``pod`` included."""
        pods = {id(p): p for p in self.handle.pending_pods if same_group(pod, p)}
        pods.update((id(p), p) for p in self._assigned(pod))
        pods[id(pod)] = pod
        return len(pods)

    def ready_message(self, pod: Pod, min_available: int) -> str:
        return (f"pod group {go_quote(group_of(pod))} has {len(self._assigned(pod))} of {min_available} "
                f"pods ready")

    # ----------------------------------------------------------- the hooks
    @hookimpl
    def ruleset_queue_sort(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        if a.pod.priority != b.pod.priority:
            return a.pod.priority > b.pod.priority
        key_a, key_b = self._queue_key(a), self._queue_key(b)
        return key_a < key_b

    def _queue_key(self, info: QueuedPodInfo) -> tuple[float, str]:
        group = group_of(info.pod)
        if not group:
            return info.timestamp, ""
        if self._times_of is not self.handle.pending_pods:
            self._group_times.clear()
            self._times_of = self.handle.pending_pods
        key = f"{info.pod.namespace}/{group}"
        if key not in self._group_times:
            times = [p.meta.creation_timestamp or 0.0 for p in self.handle.pending_pods
                     if same_group(info.pod, p)]
            self._group_times[key] = min(times, default=info.timestamp)
        return self._group_times[key], key

    @hookimpl
    def ruleset_pre_filter(self, state: CycleState, pod: Pod) -> Status | None:
        if not group_of(pod):
            return None
        wanted = self.min_available(pod)
        if wanted is None:
            raw = pod.meta.annotations.get(MIN_AVAILABLE_ANNOTATION, "")
            return Status.unresolvable(f"annotation {MIN_AVAILABLE_ANNOTATION} must be an integer of at "
                                       f"least 1, got {go_quote(raw)}")
        total = self._total(pod)
        if total < wanted:
            return Status.unschedulable(f"pre-filter pod {pod.name} cannot find enough sibling pods, "
                                        f"current pods number: {total}, minMember of group: {wanted}")
        return None

    @hookimpl
    def ruleset_reserve(self, pod: Pod) -> Status | None:
        return None  # Unreserve comes with Reserve, as in upstream's ReservePlugin

    @hookimpl
    def ruleset_permit(self, pod: Pod) -> Status | None:
        wanted = self.min_available(pod) if group_of(pod) else None
        if wanted is None:
            return None
        if len(self._assigned(pod)) < wanted:
            return Status(Code.WAIT, (self.ready_message(pod, wanted),))
        for waiting in self.handle.waiting_pods:
            if same_group(pod, waiting.pod):
                waiting.allow(self.name)
        return None

    @hookimpl
    def ruleset_unreserve(self, pod: Pod) -> None:
        wanted = self.min_available(pod) if group_of(pod) else None
        if wanted is None:
            return
        message = self.ready_message(pod, wanted)
        for waiting in self.handle.waiting_pods:
            if same_group(pod, waiting.pod):
                waiting.reject(self.name, message)
