"""Builders for Kubernetes manifests, and a harness that runs plugins the way upstream tests do.

Tests build real manifest dicts (so decoding is exercised too), assemble them into a
cluster, and run one or more plugins through the real framework and scheduler.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ruleset.api.decode import DecodeContext
from ruleset.api.pod import Pod, decode_pod
from ruleset.cluster import ClusterState, build_cluster_state, resolve_priority
from ruleset.config import PluginConfig, Profile
from ruleset.errors import Problem, RulesetError
from ruleset.framework.plugin import Handle
from ruleset.framework.runtime import Framework
from ruleset.manifests import decode_documents
from ruleset.pluginmanager import load_registry
from ruleset.scheduler import Scheduler, ScheduleResult
from ruleset.snapshot import Snapshot


def make_node(name: str, labels: Mapping[str, str] | None = None, *, cpu: str | int | None = "4",
              memory: str | int | None = "8Gi", pods: str | int | None = "110",
              allocatable: Mapping[str, Any] | None = None, taints: Sequence[Mapping[str, str]] = (),
              images: Sequence[Mapping[str, Any]] = (), unschedulable: bool = False,
              annotations: Mapping[str, str] | None = None) -> dict:
    """A Node manifest. ``allocatable`` replaces the cpu/memory/pods defaults entirely."""
    if allocatable is None:
        allocatable = {k: v for k, v in (("cpu", cpu), ("memory", memory), ("pods", pods)) if v is not None}
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    if unschedulable:
        spec["unschedulable"] = True
    meta: dict[str, Any] = {"name": name, "labels": dict(labels or {})}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
            "status": {"allocatable": dict(allocatable), "capacity": dict(allocatable),
                       "images": [dict(i) for i in images]}}


def container(requests: Mapping[str, Any] | None = None, *, limits: Mapping[str, Any] | None = None,
              image: str = "", ports: Sequence[Mapping[str, Any]] = (), name: str = "c") -> dict:
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = dict(requests)
    if limits is not None:
        resources["limits"] = dict(limits)
    out: dict[str, Any] = {"name": name, "image": image, "resources": resources}
    if ports:
        out["ports"] = [dict(p) for p in ports]
    return out


def make_pod(name: str = "pod", namespace: str = "default", labels: Mapping[str, str] | None = None, *,
             node_name: str | None = None, containers: Sequence[dict] | None = None,
             requests: Mapping[str, Any] | None = None, init_containers: Sequence[dict] = (),
             overhead: Mapping[str, Any] | None = None, node_selector: Mapping[str, str] | None = None,
             affinity: Mapping[str, Any] | None = None, tolerations: Sequence[Mapping[str, Any]] = (),
             topology_spread_constraints: Sequence[Mapping[str, Any]] = (), priority: int | None = None,
             priority_class_name: str | None = None, preemption_policy: str | None = None,
             owner_references: Sequence[Mapping[str, Any]] = (), annotations: Mapping[str, str] | None = None,
             uid: str | None = None, deletion_timestamp: str | None = None, creation_timestamp: str | None = None,
             start_time: str | None = None, nominated_node_name: str | None = None,
             volumes: Sequence[Mapping[str, Any]] = (), phase: str | None = None) -> dict:
    """A Pod manifest. ``requests`` is shorthand for one container with those requests."""
    if containers is None:
        containers = [container(requests)] if requests is not None else [container()]
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": dict(labels or {})}
    if uid:
        meta["uid"] = uid
    if annotations:
        meta["annotations"] = dict(annotations)
    if owner_references:
        meta["ownerReferences"] = [dict(o) for o in owner_references]
    if deletion_timestamp:
        meta["deletionTimestamp"] = deletion_timestamp
    if creation_timestamp:
        meta["creationTimestamp"] = creation_timestamp
    spec: dict[str, Any] = {"containers": list(containers)}
    if init_containers:
        spec["initContainers"] = list(init_containers)
    if overhead:
        spec["overhead"] = dict(overhead)
    if node_name:
        spec["nodeName"] = node_name
    if node_selector:
        spec["nodeSelector"] = dict(node_selector)
    if affinity:
        spec["affinity"] = dict(affinity)
    if tolerations:
        spec["tolerations"] = [dict(t) for t in tolerations]
    if topology_spread_constraints:
        spec["topologySpreadConstraints"] = [dict(c) for c in topology_spread_constraints]
    if priority is not None:
        spec["priority"] = priority
    if priority_class_name:
        spec["priorityClassName"] = priority_class_name
    if preemption_policy:
        spec["preemptionPolicy"] = preemption_policy
    if volumes:
        spec["volumes"] = [dict(v) for v in volumes]
    status: dict[str, Any] = {}
    if start_time:
        status["startTime"] = start_time
    if nominated_node_name:
        status["nominatedNodeName"] = nominated_node_name
    if phase:
        status["phase"] = phase
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def make_object(kind: str, name: str, namespace: str = "default", *, api_version: str = "v1",
                labels: Mapping[str, str] | None = None, spec: Mapping[str, Any] | None = None,
                status: Mapping[str, Any] | None = None, uid: str | None = None, **top: Any) -> dict:
    """Any other object (Service, ReplicaSet, PodDisruptionBudget, PriorityClass, ...)."""
    meta: dict[str, Any] = {"name": name, "labels": dict(labels or {})}
    if kind != "PriorityClass":
        meta["namespace"] = namespace
    if uid:
        meta["uid"] = uid
    out: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": meta, **top}
    if spec is not None:
        out["spec"] = dict(spec)
    if status is not None:
        out["status"] = dict(status)
    return out


def build_cluster(objects: Iterable[dict]) -> ClusterState:
    """Decode manifests into a ClusterState; fail the test on any decoding problem."""
    problems: list[Problem] = []
    # Objects as upstream's unit tests build them: the API server's checks are left out.
    cluster = decode_documents([(0, {"apiVersion": "v1", "kind": "List", "items": list(objects)})], "<test>",
                               problems, api_checks=False)
    if problems:
        raise RulesetError(problems)
    return build_cluster_state(cluster)


def decode(raw: dict, state: ClusterState | None = None) -> Pod:
    """Decode one Pod manifest (priority resolved against ``state``'s classes when given)."""
    ctx = DecodeContext(file="<test>", api_checks=False)
    pod = decode_pod(ctx, raw)
    if ctx.problems:
        raise RulesetError(ctx.problems)
    classes = state.snapshot.priority_classes if state else {}
    resolve_priority(pod, classes, None)
    return pod


PluginSpec = str | tuple[str, Mapping[str, Any]] | tuple[str, Mapping[str, Any], int]


def make_framework(plugins: Sequence[PluginSpec], *, percentage: int | None = 100,
                   points: Mapping[str, Sequence[str]] | None = None, snapshot: Snapshot | None = None) -> Framework:
    """A framework over the named plugins (``name``, ``(name, args)`` or ``(name, args, weight)``),
    running on ``snapshot``."""
    configs = []
    for spec in plugins:
        if isinstance(spec, str):
            spec = (spec, {})
        name, args = spec[0], dict(spec[1])
        weight = spec[2] if len(spec) > 2 else 1
        configs.append(PluginConfig(name=name, weight=weight, args=args,
                                    points=tuple(points[name]) if points and name in points else None))
    profile = Profile(name="test", plugins=configs, percentage_of_nodes_to_score=percentage)
    return Framework(profile, load_registry(), Handle(snapshot))


class Harness:
    """Run plugins over a cluster: ``filter(pod)`` and ``score(pod)`` per node name."""

    def __init__(self, plugins: Sequence[PluginSpec], objects: Iterable[dict], *, percentage: int | None = 100,
                 seed: int = 0, points: Mapping[str, Sequence[str]] | None = None):
        self.state = build_cluster(objects)
        self.snapshot = self.state.snapshot
        self.framework = make_framework(plugins, percentage=percentage, points=points, snapshot=self.snapshot)
        self.scheduler = Scheduler(self.framework, seed=seed)

    def run(self, pod: dict | Pod) -> ScheduleResult:
        if isinstance(pod, dict):
            pod = decode(pod, self.state)
        return self.scheduler.schedule(pod, always_score=True)

    def filter(self, pod: dict | Pod) -> dict[str, tuple[str, tuple[str, ...]]]:
        """Node name -> (code label, reasons) for every node."""
        result = self.run(pod)
        assert result.statuses is not None
        out = {}
        for i, name in enumerate(self.snapshot.node_names):
            status = result.statuses.status(i)
            out[name] = (status.code.label, status.reasons)
        return out

    def score(self, pod: dict | Pod, plugin: str | None = None, *, raw: bool = False) -> dict[str, int]:
        """Node name -> normalized (or raw) score of ``plugin`` (default: the only score plugin)."""
        result = self.run(pod)
        if result.scores is None:
            raise AssertionError(f"nothing was scored: {result.message or result.status}")
        table = result.scores
        name = plugin or table.plugins[0]
        index = table.plugins.index(name)
        values = table.raw[index] if raw else table.normalized[index]
        return {self.snapshot.node_names[int(n)]: int(values[i]) for i, n in enumerate(result.feasible)}

    def total(self, pod: dict | Pod) -> dict[str, int]:
        result = self.run(pod)
        assert result.scores is not None
        return {self.snapshot.node_names[int(n)]: int(result.scores.total[i]) for i, n in enumerate(result.feasible)}


def registry_with(*classes: type) -> Any:
    """The built-in registry plus extra plugin classes (for tests of third-party behaviour)."""
    return load_registry().with_classes(*classes, origin="test")


def framework_for(plugins: Sequence[PluginSpec], registry: Any, *, percentage: int | None = 100,
                  snapshot: Snapshot | None = None) -> Framework:
    """Like make_framework, with an explicit registry."""
    configs = []
    for spec in plugins:
        if isinstance(spec, str):
            spec = (spec, {})
        configs.append(PluginConfig(name=spec[0], args=dict(spec[1]), weight=spec[2] if len(spec) > 2 else 1))
    return Framework(Profile(name="test", plugins=configs, percentage_of_nodes_to_score=percentage), registry,
                     Handle(snapshot))
