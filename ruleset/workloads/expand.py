"""A workload to the pods its controller would create (v1.20 controllers).

Each kind follows its controller's first sync of a new object:

* ReplicaSet, ReplicationController (``pkg/controller/replicaset``): ``spec.replicas``
  (default 1) pods from the template, ``generateName`` ``<name>-``.
* Deployment (``pkg/controller/deployment``): one new ReplicaSet (see
  :mod:`ruleset.workloads.deployment`), then that ReplicaSet's pods; nothing when
  ``spec.paused`` (a paused Deployment's sync creates no ReplicaSet).
* StatefulSet (``pkg/controller/statefulset``): pods ``<name>-0`` ... ``<name>-(n-1)``
  (``newVersionedStatefulSetPod``: ``initIdentity``), labelled with their revision and
  name. The controller creates them one at a time (OrderedReady) or all at once
  (Parallel); here all exist at once, pending. Each pod's ``volumeClaimTemplates`` claims
  are created before it and its volumes name them (``updateStorage``; see
  :mod:`ruleset.workloads.claims`).
* Job (``pkg/controller/job``, ``manageJob``; the labels from ``registry/batch/job``'s
  ``generateSelector``): ``min(parallelism, completions)`` pods, parallelism defaulting to 1.
* DaemonSet (``pkg/controller/daemon``): one pod per node it should run on, in node order,
  pinned to it (see :mod:`ruleset.workloads.daemonset`).

CronJobs make Jobs on a schedule, so nothing of theirs is pending now; they and every other
kind are not in :data:`WORKLOAD_KINDS` and :func:`expand` gives nothing for them (the caller
reports them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ruleset.api.decode import DecodeContext, get_str, get_string_map
from ruleset.api.meta import decode_label_selector
from ruleset.api.node import Node
from ruleset.errors import Problem
from ruleset.gofmt import parse_int64
from ruleset.selector import Selector, SelectorError, from_label_selector, from_set
from ruleset.workloads.claims import ClaimTemplate, claim_templates, stateful_set_claims, update_storage
from ruleset.workloads.copying import canonical_json
from ruleset.workloads.daemonset import add_daemon_tolerations, nodes_to_run_on, pin_to_node, read_placement
from ruleset.workloads.deployment import collision_count, new_replica_set
from ruleset.workloads.hashing import compute_hash, controller_revision_name, revision_hash, stand_in_uid
from ruleset.workloads.template import (
    Workload,
    controller_ref,
    pod_from_template,
    read_count,
    read_workload,
)

WORKLOAD_KINDS: frozenset[str] = frozenset(
    ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "Job", "DaemonSet"))

#: ``apps.StatefulSetRevisionLabel`` / ``apps.DefaultDaemonSetUniqueLabelKey``.
CONTROLLER_REVISION_HASH = "controller-revision-hash"
STATEFULSET_POD_NAME = "statefulset.kubernetes.io/pod-name"
#: ``extensions.DaemonSetTemplateGenerationKey`` and ``apps.DeprecatedTemplateGeneration``.
POD_TEMPLATE_GENERATION = "pod-template-generation"
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
JOB_NAME = "job-name"
CONTROLLER_UID = "controller-uid"

_EMPTY_SELECTOR = {
    "Deployment": "empty selector is invalid for deployment",
    "ReplicaSet": "empty selector is invalid for deployment",  # sic: ValidateReplicaSetSpec says so
    "StatefulSet": "empty selector is invalid for statefulset",
    "DaemonSet": "empty selector is not valid for daemonset.",
}


@dataclass
class Expansion:
    """What a controller would create for a workload."""

    #: Raw pods, in the order the controller creates them (before admission).
    pods: list[dict[str, Any]] = field(default_factory=list)
    #: Other raw objects the snapshot gains, as (kind, raw): a Deployment's ReplicaSet.
    objects: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: Raw PersistentVolumeClaims a StatefulSet's controller creates before its pods (each
    #: pod's before the next), as the controller sends them: the API server's defaults and
    #: admission, and whether one exists already, are the caller's (:mod:`ruleset.manifests.create`).
    claims: list[dict[str, Any]] = field(default_factory=list)
    #: Located problems that made (part of) the expansion impossible.
    problems: list[Problem] = field(default_factory=list)


def _template_labels(workload: Workload) -> dict[str, str]:
    return {str(k): "" if v is None else str(v) for k, v in workload.template_labels.items()}


def _labels_mismatch(ctx: DecodeContext, workload: Workload, selector: Selector) -> bool:
    if selector.matches(_template_labels(workload)):
        return False
    shown = canonical_json(workload.template_labels)
    ctx.fail("spec.template.metadata.labels",
             f"Invalid value: {shown}: `selector` does not match template `labels`",
             workload.template_metadata if "labels" in workload.template_metadata else workload.template,
             "labels" if "labels" in workload.template_metadata else "metadata")
    return True


def check_selector(workload: Workload) -> bool:
    """The selector checks of the API server's validation that, failing, leave nothing to
    create: ``spec.selector`` required (an apps/v1 kind) and not empty, valid, and matching
    the template's labels; a ReplicationController's selector defaults to those labels.
    A Job's selector is generated (unless ``manualSelector``) and not checked."""
    ctx = workload.ctx
    spec = workload.spec
    if workload.kind == "Job":
        return True
    if workload.kind == "ReplicationController":
        before = len(ctx.problems)
        selector_map = get_string_map(ctx, spec, "selector", "spec.selector") or _template_labels(workload)
        if len(ctx.problems) > before:
            return False
        if not selector_map:
            ctx.fail("spec.selector", "Required value", spec, "selector")
            return False
        return not _labels_mismatch(ctx, workload, from_set(selector_map))
    if spec.get("selector") is None:
        ctx.fail("spec.selector", "Required value", spec, "selector")
        return False
    before = len(ctx.problems)
    decoded = decode_label_selector(ctx, spec, "selector", "spec.selector")
    if len(ctx.problems) > before or decoded is None:
        return False
    if decoded.is_empty():
        shown = canonical_json(spec["selector"])
        message = _EMPTY_SELECTOR[workload.kind]
        ctx.fail("spec.selector", f"Invalid value: {shown}: {message}", spec, "selector")
        return False
    try:
        selector = from_label_selector(decoded)
    except SelectorError as exc:
        shown = canonical_json(spec["selector"])
        ctx.fail("spec.selector", f"Invalid value: {shown}: invalid label selector: {exc}", spec, "selector")
        return False
    return not _labels_mismatch(ctx, workload, selector)


def _owned_pods(workload: Workload, count: int) -> list[dict[str, Any]]:
    """``count`` pods of a ReplicaSet or ReplicationController."""
    ref = controller_ref(workload.api_version, workload.kind, workload.name, workload.uid)
    return [pod_from_template(workload.template, workload.metadata, workload.name, workload.namespace, ref)
            for _ in range(count)]


def _replica_set(workload: Workload, expansion: Expansion) -> None:
    replicas = read_count(workload.ctx, workload.spec, "replicas", "spec.replicas", 1)
    if replicas is None or not check_selector(workload):
        return
    expansion.pods = _owned_pods(workload, replicas)


def replica_set_pods(deployment: Workload, replica_set: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """``count`` pods of a Deployment's ReplicaSet (raw); the pods are located in the
    Deployment's file (the ReplicaSet's template is a copy of the Deployment's)."""
    metadata = replica_set.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    name = str(metadata.get("name") or "")
    namespace = str(metadata.get("namespace") or "")
    uid = str(metadata.get("uid") or "") or stand_in_uid("ReplicaSet", namespace or "default", name)
    spec = replica_set.get("spec")
    template = spec.get("template") if isinstance(spec, dict) else None
    template = template if isinstance(template, dict) else {}
    ref = controller_ref("apps/v1", "ReplicaSet", name, uid)
    return [pod_from_template(template, deployment.metadata, name, namespace, ref) for _ in range(count)]


def _deployment(workload: Workload, expansion: Expansion) -> None:
    replicas = read_count(workload.ctx, workload.spec, "replicas", "spec.replicas", 1)
    if replicas is None or not check_selector(workload):
        return
    if workload.spec.get("paused") is True:
        return  # a paused Deployment syncs without creating a ReplicaSet (createIfNotExisted false)
    replica_set = new_replica_set(workload, replicas)
    expansion.objects.append(("ReplicaSet", replica_set))
    expansion.pods = replica_set_pods(workload, replica_set, replicas)


def stateful_set_revision(workload: Workload) -> str:
    """The name of the StatefulSet's update revision: ``status.updateRevision`` when written
    (a set read from a cluster), else ``<name>-<hash>`` of its template."""
    status = workload.raw.get("status")
    written = status.get("updateRevision") if isinstance(status, dict) else None
    if isinstance(written, str) and written:
        return written
    hash_ = revision_hash(workload.template, collision_count(workload) or 0)
    return controller_revision_name(workload.name, hash_)


def stateful_set_pod(workload: Workload, ordinal: int, revision: str, service_name: str,
                     templates: Sequence[ClaimTemplate] = ()) -> dict[str, Any]:
    """``newVersionedStatefulSetPod`` of a set whose pods are all at the update revision, its
    volumes naming the claims of ``templates`` (``updateStorage``)."""
    ref = controller_ref(workload.api_version, workload.kind, workload.name, workload.uid)
    name = f"{workload.name}-{ordinal}"
    pod = pod_from_template(workload.template, workload.metadata, workload.name, workload.namespace, ref,
                            name=name)
    pod["metadata"]["labels"][STATEFULSET_POD_NAME] = name
    pod["metadata"]["labels"][CONTROLLER_REVISION_HASH] = revision
    pod["spec"]["hostname"] = name
    if service_name:
        pod["spec"]["subdomain"] = service_name
    update_storage(pod, templates, workload.name, ordinal)
    return pod


def _stateful_set(workload: Workload, expansion: Expansion) -> None:
    replicas = read_count(workload.ctx, workload.spec, "replicas", "spec.replicas", 1)
    if replicas is None or not check_selector(workload):
        return
    stateful_set_members(workload, range(replicas), expansion)


def stateful_set_pods(workload: Workload, ordinals: Sequence[int]) -> list[dict[str, Any]]:
    """The StatefulSet's pods of these ordinals (a malformed ``volumeClaimTemplates`` entry is
    reported to the workload's context)."""
    revision = stateful_set_revision(workload)
    service_name = get_str(workload.ctx, workload.spec, "serviceName", "spec.serviceName")
    templates = claim_templates(workload.raw, workload.ctx)
    return [stateful_set_pod(workload, ordinal, revision, service_name, templates) for ordinal in ordinals]


def stateful_set_members(workload: Workload, ordinals: Sequence[int], expansion: Expansion) -> None:
    """The pods of these ordinals and their claims, into ``expansion``."""
    expansion.pods = stateful_set_pods(workload, ordinals)
    expansion.claims = stateful_set_claims(workload.raw, ordinals)


def _job(workload: Workload, expansion: Expansion) -> None:
    ctx = workload.ctx
    parallelism = read_count(ctx, workload.spec, "parallelism", "spec.parallelism", None)
    completions = read_count(ctx, workload.spec, "completions", "spec.completions", None)
    bad = any(workload.spec.get(key) is not None and value is None
              for key, value in (("parallelism", parallelism), ("completions", completions)))
    if bad:
        return
    # SetDefaults_Job: both unset is one pod to one completion; parallelism alone defaults to 1.
    parallelism = 1 if parallelism is None else parallelism
    count = parallelism if completions is None else min(completions, parallelism)
    ref = controller_ref(workload.api_version, workload.kind, workload.name, workload.uid)
    manual = workload.spec.get("manualSelector") is True
    for _ in range(count):
        pod = pod_from_template(workload.template, workload.metadata, workload.name, workload.namespace, ref)
        if not manual:  # generateSelector: labels the user set are kept
            labels = pod["metadata"]["labels"]
            labels.setdefault(JOB_NAME, workload.name)
            labels.setdefault(CONTROLLER_UID, workload.uid)
        expansion.pods.append(pod)


def template_generation(workload: Workload) -> str | None:
    """The ``pod-template-generation`` label of a DaemonSet's pods: the
    ``deprecated.daemonset.template.generation`` annotation when written (a set read from a
    cluster; one that does not parse gives no label, as ``GetTemplateGeneration`` fails), else
    1, which the API server gives a new DaemonSet."""
    annotations = workload.metadata.get("annotations")
    value = annotations.get(TEMPLATE_GENERATION_ANNOTATION) if isinstance(annotations, dict) else None
    if value is None:
        return "1"
    if not isinstance(value, str) or len(value) > 25:
        return None
    generation = parse_int64(value)
    return None if generation is None else str(generation)


def daemon_set_pod(workload: Workload, node_name: str, template_hash: str,
                   generation: str | None) -> dict[str, Any]:
    """One daemon pod for ``node_name``: ``CreatePodTemplate`` (daemon tolerations, labels)
    then ``ReplaceDaemonSetPodNodeNameNodeAffinity``."""
    ref = controller_ref(workload.api_version, workload.kind, workload.name, workload.uid)
    pod = pod_from_template(workload.template, workload.metadata, workload.name, workload.namespace, ref)
    labels = pod["metadata"]["labels"]
    if generation is not None:
        labels[POD_TEMPLATE_GENERATION] = generation
    labels[CONTROLLER_REVISION_HASH] = template_hash
    add_daemon_tolerations(pod["spec"])
    pin_to_node(pod["spec"], node_name)
    return pod


def _daemon_set(workload: Workload, expansion: Expansion, nodes: Sequence[Node]) -> None:
    ctx = workload.ctx
    before = len(ctx.problems)
    placement = read_placement(ctx, workload.template.get("spec") or {}, "spec.template.spec")
    if len(ctx.problems) > before or not check_selector(workload):
        return
    template_hash = compute_hash(workload.template, collision_count(workload))
    generation = template_generation(workload)
    expansion.pods = [daemon_set_pod(workload, node.name, template_hash, generation)
                      for node in nodes_to_run_on(placement, nodes)]


def expand(kind: str, raw: Any, nodes: Sequence[Node], *, file: str | None = None,
           document: int | None = None, seed: int = 0) -> Expansion:
    """The pods (and other objects) the controller of ``kind`` creates for the new workload
    ``raw`` (a raw object, as parsed; never changed), in creation order.

    ``nodes`` are the cluster's nodes (a DaemonSet's pods depend on them). ``file`` and
    ``document`` locate problems; a problem that makes the workload impossible to expand (no
    name, no template, a bad replica count, a selector the template does not match, a
    DaemonSet's bad placement fields) is returned and no pods are. Other fields of the
    template are copied and left to ``decode_pod``. Nothing here is random, so ``seed`` has
    nothing to decide (admission's generated names use it). Never raises on bad input.
    """
    del seed  # every name is a hash of the input
    expansion = Expansion()
    if kind not in WORKLOAD_KINDS:
        return expansion
    ctx = DecodeContext(file=file, document=document)
    workload = read_workload(kind, raw, ctx)
    if workload is not None:
        if kind == "Deployment":
            _deployment(workload, expansion)
        elif kind in ("ReplicaSet", "ReplicationController"):
            _replica_set(workload, expansion)
        elif kind == "StatefulSet":
            _stateful_set(workload, expansion)
        elif kind == "Job":
            _job(workload, expansion)
        else:
            _daemon_set(workload, expansion, nodes)
    expansion.problems = list(ctx.problems)
    if expansion.problems:
        expansion.pods = []
        expansion.objects = []
        expansion.claims = []
    return expansion
