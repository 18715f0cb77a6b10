"""The bench suite's workloads, shaped like kube-scheduler's scheduler_perf.

Upstream: ``test/integration/scheduler_perf/config/performance-config.yaml`` and its
templates (kubernetes/kubernetes). Nodes are ``node-default.yaml``'s (4 CPU, 32Gi, 110
pods); pods are upstream's templates (``pod-default.yaml``, ``pod-with-pod-affinity.yaml``,
…, ``pod-low-priority.yaml`` / ``pod-high-priority.yaml``, ``pod-large-cpu.yaml``). Where
upstream's scheduler places the initial pods before measuring, here they are bound in the
snapshot round-robin over the nodes (so they are never timed); the measured pods are pending.

Differences from upstream, and why:

- The pod-affinity templates name the namespaces ``sched-test``/``sched-setup`` while the
  workloads create their pods in ``sched-0``/``sched-1``; here the terms name the namespaces
  the pods are in, so that the initial pods count (the shape the workload means to measure).
- ``SchedulingPreferredPodAntiAffinity`` uses the preferred anti-affinity template (upstream's
  config points it at the preferred *affinity* one).
- The volume workload is not upstream's in-tree AWS PVs (ruleset does not model in-tree
  volume limits the same way): each node has local PersistentVolumes (node affinity to its
  hostname) of a ``WaitForFirstConsumer`` class; initial pods use claims bound to them,
  measured pods bring unbound claims the VolumeBinding plugin matches during scheduling.

A workload is a list of manifests (plain dicts) decoded through ``decode_documents``, the
path every file takes; :func:`build_state` does that and :func:`run_schedule` times only
``schedule_all``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ruleset.app import build_framework
from ruleset.cluster import build_cluster_state
from ruleset.errors import Problem, RulesetError
from ruleset.manifests import decode_documents
from ruleset.scheduler import schedule_all
from ruleset.snapshot.state import ClusterState

Manifest = dict[str, Any]
#: (nodes, initial pods, measured pods) -> manifests.
Builder = Callable[[int, int, int], list[Manifest]]

SCALES = ("tiny", "small", "full")
PROFILE = "default"
ALL_NODES_PROFILE = 'name = "default"\nextends = "default"\npercentageOfNodesToScore = 100\n'


@dataclass(frozen=True)
class Workload:
    """One row of the table: a builder at one size."""

    name: str
    nodes: int
    init_pods: int
    measure_pods: int
    #: "schedule" (time ``schedule_all`` over the measured pods) or "load-json" / "load-yaml".
    kind: str = "schedule"
    builder: Builder | None = None
    #: Why the size differs from upstream's, if it does.
    note: str = ""

    def manifests(self) -> list[Manifest]:
        """The workload's cluster, as manifests."""
        assert self.builder is not None
        return self.builder(self.nodes, self.init_pods, self.measure_pods)


# ------------------------------------------------------------------ templates
def node(i: int, labels: dict[str, str] | None = None) -> Manifest:
    """``node-default.yaml``: 4 CPU, 32Gi, 110 pods, Ready."""
    name = f"node-{i:05d}"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "status": {"capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                       "allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}], "phase": "Running"}}


def pod(name: str, *, namespace: str = "default", cpu: str = "100m", memory: str = "500Mi",
        limits: bool = True, labels: dict[str, str] | None = None, node_name: str | None = None,
        priority: int | None = None, extra: Manifest | None = None) -> Manifest:
    """``pod-default.yaml`` (one pause container, port 80, 100m / 500Mi), with overrides.

    Every pod is one the API server has stored (it has a status), as in a snapshot."""
    resources: Manifest = {"requests": {"cpu": cpu, "memory": memory}}
    if limits:
        resources["limits"] = {"cpu": cpu, "memory": memory}
    spec: Manifest = {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                      "ports": [{"containerPort": 80}], "resources": resources}]}
    if node_name is not None:
        spec["nodeName"] = node_name
    if priority is not None:
        spec["priority"] = priority
    spec.update(extra or {})
    metadata: Manifest = {"name": name, "namespace": namespace}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec,
            "status": {"phase": "Running" if node_name else "Pending"}}


def _namespaces(*names: str) -> list[Manifest]:
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in names]


def _pods(template: Callable[..., Manifest], nodes: int, init: int, measure: int, *,
          init_ns: str = "default", measure_ns: str = "default") -> list[Manifest]:
    """``init`` pods bound round-robin over the nodes, ``measure`` pods pending."""
    out = [template(f"init-{k:05d}", namespace=init_ns, node_name=f"node-{k % nodes:05d}")
           for k in range(init)]
    out += [template(f"measured-{k:05d}", namespace=measure_ns) for k in range(measure)]
    return out


_SCHED_NAMESPACES = ["sched-0", "sched-1"]


def _affinity_pod(kind: str, required: bool, color: str, topology_key: str) -> Callable[..., Manifest]:
    term = {"labelSelector": {"matchLabels": {"color": color}}, "topologyKey": topology_key,
            "namespaces": _SCHED_NAMESPACES}
    preferred = [{"podAffinityTerm": term, "weight": 1}]
    rule: Manifest = ({"requiredDuringSchedulingIgnoredDuringExecution": [term]} if required else
                      {"preferredDuringSchedulingIgnoredDuringExecution": preferred})

    def make(name: str, **kw: Any) -> Manifest:
        return pod(name, labels={"color": color}, extra={"affinity": {kind: rule}}, **kw)
    return make


# ------------------------------------------------------------------ builders
def basic(nodes: int, init: int, measure: int) -> list[Manifest]:
    """SchedulingBasic: ``pod-default.yaml`` pods."""
    return [node(i) for i in range(nodes)] + _pods(pod, nodes, init, measure)


def _affinity_builder(kind: str, required: bool, color: str, topology_key: str,
                      zone_label: bool = False) -> Builder:
    template = _affinity_pod(kind, required, color, topology_key)

    def build(nodes: int, init: int, measure: int) -> list[Manifest]:
        labels = {"topology.kubernetes.io/zone": "zone1"} if zone_label else None
        return ([node(i, labels) for i in range(nodes)] + _namespaces(*_SCHED_NAMESPACES)
                + _pods(template, nodes, init, measure, init_ns="sched-0", measure_ns="sched-1"))
    return build


pod_affinity = _affinity_builder("podAffinity", True, "blue", "topology.kubernetes.io/zone", zone_label=True)
pod_anti_affinity = _affinity_builder("podAntiAffinity", True, "green", "kubernetes.io/hostname")
preferred_pod_affinity = _affinity_builder("podAffinity", False, "red", "kubernetes.io/hostname")
preferred_pod_anti_affinity = _affinity_builder("podAntiAffinity", False, "yellow", "kubernetes.io/hostname")


def _node_affinity_pod(name: str, **kw: Any) -> Manifest:
    terms = [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                    "values": ["zone1", "zone2"]}]}]
    return pod(name, extra={"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}}, **kw)


def node_affinity(nodes: int, init: int, measure: int) -> list[Manifest]:
    """SchedulingNodeAffinity: every node in ``zone1``, pods requiring zone1 or zone2."""
    return ([node(i, {"topology.kubernetes.io/zone": "zone1"}) for i in range(nodes)]
            + _pods(_node_affinity_pod, nodes, init, measure))


def _spreading_pod(name: str, **kw: Any) -> Manifest:
    constraint = {"maxSkew": 5, "topologyKey": "topology.kubernetes.io/zone",
                  "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"color": "blue"}}}
    return pod(name, labels={"color": "blue"}, extra={"topologySpreadConstraints": [constraint]}, **kw)


def topology_spreading(nodes: int, init: int, measure: int) -> list[Manifest]:
    """TopologySpreading: zones moon-1..3, default initial pods, measured pods spread by zone."""
    out = [node(i, {"topology.kubernetes.io/zone": f"moon-{i % 3 + 1}"}) for i in range(nodes)]
    out += [pod(f"init-{k:05d}", node_name=f"node-{k % nodes:05d}") for k in range(init)]
    return out + [_spreading_pod(f"measured-{k:05d}") for k in range(measure)]


def preemption(nodes: int, init: int, measure: int) -> list[Manifest]:
    """PreemptionBasic: ``pod-low-priority.yaml`` (900m) fill the nodes, ``pod-high-priority.yaml``
    (3 CPU, priority 10) pods must each evict low-priority ones."""
    out = [node(i) for i in range(nodes)]
    out += [pod(f"init-{k:05d}", cpu="900m", node_name=f"node-{k % nodes:05d}",
                extra={"terminationGracePeriodSeconds": 0}) for k in range(init)]
    return out + [pod(f"measured-{k:05d}", cpu="3000m", priority=10) for k in range(measure)]


def unschedulable(nodes: int, init: int, measure: int) -> list[Manifest]:
    """Unschedulable: ``pod-large-cpu.yaml`` pods (9 CPU, never fit) pending before the measured
    default pods; only the measured pods are counted (the large ones stay parked)."""
    out = [node(i) for i in range(nodes)]
    out += [pod(f"large-{k:05d}", cpu="9", limits=False) for k in range(init)]
    return out + [pod(f"measured-{k:05d}") for k in range(measure)]


VOLUMES_PER_NODE = 4


def _local_pv(name: str, node_name: str, claim: str | None) -> Manifest:
    spec: Manifest = {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                      "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "local-storage",
                      "volumeMode": "Filesystem", "local": {"path": f"/mnt/disks/{name}"},
                      "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                          {"key": "kubernetes.io/hostname", "operator": "In", "values": [node_name]}]}]}}}
    status = {"phase": "Available"}
    if claim is not None:
        spec["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": "default", "name": claim}
        status = {"phase": "Bound"}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec,
            "status": status}


def _claim(name: str, volume: str | None) -> Manifest:
    spec: Manifest = {"accessModes": ["ReadWriteOnce"], "storageClassName": "local-storage",
                      "volumeMode": "Filesystem", "resources": {"requests": {"storage": "1Gi"}}}
    status: Manifest = {"phase": "Pending"}
    if volume is not None:
        spec["volumeName"] = volume
        status = {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"}}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec, "status": status}


def volumes(nodes: int, init: int, measure: int) -> list[Manifest]:
    """Local PVs (``VOLUMES_PER_NODE`` a node) of a WaitForFirstConsumer class: initial pods on
    claims bound to their node's volumes, measured pods with one unbound claim each."""
    out = [node(i) for i in range(nodes)]
    out.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": "local-storage"}, "provisioner": "kubernetes.io/no-provisioner",
                "volumeBindingMode": "WaitForFirstConsumer"})
    bound = {}
    for k in range(init):
        # Volume j of node i holds initial pod k = j * nodes + i: the k-th pod is on node k % nodes.
        bound[(k % nodes, k // nodes)] = f"init-claim-{k:05d}"
    for i in range(nodes):
        for j in range(VOLUMES_PER_NODE):
            out.append(_local_pv(f"pv-{i:05d}-{j}", f"node-{i:05d}", bound.get((i, j))))
    for k in range(init):
        out.append(_claim(f"init-claim-{k:05d}", f"pv-{k % nodes:05d}-{k // nodes}"))
        out.append(pod(f"init-{k:05d}", node_name=f"node-{k % nodes:05d}", extra={"volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": f"init-claim-{k:05d}"}}]}))
    for k in range(measure):
        out.append(_claim(f"claim-{k:05d}", None))
        out.append(pod(f"measured-{k:05d}", extra={"volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": f"claim-{k:05d}"}}]}))
    return out


def snapshot(nodes: int, init: int, measure: int) -> list[Manifest]:
    """The snapshot-load workload's cluster: default nodes and ``init`` bound default pods."""
    return [node(i) for i in range(nodes)] + _pods(pod, nodes, init, 0)


# ------------------------------------------------------------------ the suite
#: name -> (builder, {scale: (nodes, initial pods, measured pods, note)}). Full sizes are
#: upstream's unless the note says otherwise; tiny ones are the reference-path check's.
_SUITE: dict[str, tuple[Builder, str, dict[str, tuple[int, int, int, str]]]] = {
    "SchedulingBasic/500Nodes": (basic, "schedule", {
        "tiny": (40, 40, 30, ""), "small": (500, 500, 1000, ""), "full": (500, 500, 1000, "")}),
    "SchedulingBasic/5000Nodes": (basic, "schedule", {
        "small": (1000, 1000, 1000, "1,000 nodes at small scale"), "full": (5000, 1000, 1000, "")}),
    "SchedulingBasic/15000Nodes": (basic, "schedule", {
        "full": (15000, 1000, 1000, "issue 16's size (upstream's config has 500 and 5,000 nodes)")}),
    "SchedulingPodAffinity": (pod_affinity, "schedule", {
        "tiny": (40, 20, 30, ""), "small": (500, 500, 1000, ""), "full": (5000, 5000, 1000, "")}),
    "SchedulingPodAntiAffinity": (pod_anti_affinity, "schedule", {
        "tiny": (40, 10, 30, ""), "small": (500, 100, 400, ""), "full": (5000, 1000, 1000, "")}),
    "SchedulingPreferredPodAffinity": (preferred_pod_affinity, "schedule", {
        "tiny": (40, 20, 30, ""), "small": (500, 500, 1000, ""), "full": (5000, 5000, 1000, "")}),
    "SchedulingPreferredPodAntiAffinity": (preferred_pod_anti_affinity, "schedule", {
        "tiny": (40, 20, 30, ""), "small": (500, 500, 1000, ""), "full": (5000, 5000, 1000, "")}),
    "SchedulingNodeAffinity": (node_affinity, "schedule", {
        "tiny": (40, 20, 30, ""), "small": (500, 500, 1000, ""), "full": (5000, 5000, 1000, "")}),
    "TopologySpreading": (topology_spreading, "schedule", {
        "tiny": (40, 40, 30, ""), "small": (500, 1000, 1000, ""), "full": (5000, 5000, 2000, "")}),
    "PreemptionBasic/500Nodes": (preemption, "schedule", {
        "tiny": (20, 80, 20, ""), "small": (100, 400, 100, "nodes and pods / 5"),
        "full": (500, 2000, 500, "")}),
    "PreemptionBasic/5000Nodes": (preemption, "schedule", {
        "full": (5000, 20000, 5000, "")}),
    "Unschedulable": (unschedulable, "schedule", {
        "tiny": (40, 20, 30, ""), "small": (500, 200, 1000, ""), "full": (5000, 200, 5000, "")}),
    "SchedulingLocalVolumes": (volumes, "schedule", {
        "tiny": (40, 40, 30, ""), "small": (100, 100, 200, ""),
        "full": (500, 500, 500, "500 nodes, 500 measured pods (upstream's PV workloads: 5,000 and 1,000): "
                                "VolumeBinding's Filter matches every PV's node affinity on every node "
                                "for every pod")}),
    "SnapshotLoad/JSON": (snapshot, "load-json", {
        "tiny": (40, 100, 0, ""), "small": (500, 5000, 0, ""), "full": (5000, 50000, 0, "")}),
    "SnapshotLoad/YAML": (snapshot, "load-yaml", {
        "tiny": (40, 100, 0, ""), "small": (500, 5000, 0, ""), "full": (5000, 50000, 0, "")}),
}


def suite(scale: str) -> list[Workload]:
    """Every workload that has a size at ``scale`` ("tiny", "small" or "full"), in table order."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}: one of {', '.join(SCALES)}")
    out = []
    for name, (builder, kind, sizes) in _SUITE.items():
        if scale in sizes:
            nodes, init, measure, note = sizes[scale]
            out.append(Workload(name, nodes, init, measure, kind, builder, note))
    return out


# ------------------------------------------------------------------ running
def write_snapshot(workload: Workload, path: Path) -> None:
    """Write the workload's cluster as one JSON ``List`` ("load-json") or a multi-document YAML
    stream (otherwise), as ``kubectl get -o json`` and a dump of manifests look."""
    objects = workload.manifests()
    if workload.kind == "load-json":
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}), encoding="utf-8")
        return
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    with path.open("w", encoding="utf-8") as out:
        yaml.dump_all(objects, out, Dumper=dumper, default_flow_style=False, sort_keys=False)


def profile_file(folder: Path) -> Path:
    """A profile file: the bundled ``default`` with ``percentageOfNodesToScore = 100``."""
    path = folder / "default-all-nodes.toml"
    path.write_text(ALL_NODES_PROFILE, encoding="utf-8")
    return path


def build_state(manifests: list[Manifest], profile: str = PROFILE) -> tuple[Any, ClusterState]:
    """The profile's framework over the manifests' cluster, decoded as files are (the pods
    created for the profile's release)."""
    framework = build_framework(profile)
    problems: list[Problem] = []
    cluster = decode_documents([(0, {"kind": "List", "items": manifests})], "<bench>", problems)
    if problems:
        raise RulesetError(problems)
    state = build_cluster_state(cluster, framework.profile.target)
    return build_framework(profile, state), state


@dataclass
class Outcome:
    """One timed ``schedule_all`` over a workload's measured pods."""

    seconds: float
    #: (namespace/name, node or None) of every pod the run settled, in the order it settled them.
    placements: list[tuple[str, str | None]]
    #: (preemptor namespace/name, nominated node, victims) of every preemption, in order.
    preemptions: list[tuple[str, str | None, tuple[str, ...]]]

    @property
    def scheduled(self) -> int:
        return sum(1 for _, n in self.placements if n is not None)


def run_schedule(workload: Workload, profile: str = PROFILE) -> Outcome:
    """Build the workload's cluster (not timed) and time ``schedule_all`` over its pending pods."""
    framework, state = build_state(workload.manifests(), profile)
    framework.post_filter_details = False  # as `ruleset schedule` without --verbose
    start = time.perf_counter()
    run = schedule_all(framework, state)
    seconds = time.perf_counter() - start
    return Outcome(seconds, [(p.pod.key, p.node) for p in run.placements],
                   [(e.pod, e.node, tuple(e.detail.get("victims", ()))) for e in run.events
                    if e.kind == "preemption"])
