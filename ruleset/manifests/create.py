"""Create the input's pods as Kubernetes would: the controllers make pods of ``--pods``
workloads (and of ``--scale``), then the API server defaults and admits every pod that it
has not stored yet (:mod:`ruleset.admission`), then it is decoded and validated.

A StatefulSet's pods come with the claims of its ``volumeClaimTemplates``
(:mod:`ruleset.workloads.claims`): each claim the cluster does not hold yet is created
first, through the API server's defaults and the DefaultStorageClass admission plugin
(:mod:`ruleset.admission.default_storage_class`), and joins the cluster's claims; one that
exists is used as it is. A pod whose claim is refused is not created by the controller: it is
reported as refused, with the controller's error. When the input holds no storage object at
all, no claim is created (the volume plugins then check nothing, see :class:`_Claims`).

This is the API server's own order (defaulting, mutating admission, validation), so a pod
named by ``generateName`` or given requests by its limits is checked as it would be stored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ruleset.admission import Admission
from ruleset.admission.default_storage_class import NEWEST_DEFAULT, admit_claim
from ruleset.api.decode import DecodeContext, line_of
from ruleset.api.pod import Pod, decode_pod
from ruleset.api.storage import decode_persistent_volume_claim, pod_claims
from ruleset.errors import Problem
from ruleset.kversion import Target
from ruleset.manifests.model import STORAGE_LISTS, Cluster, RawObject, namespace_of, stored
from ruleset.manifests.newer import newer_fields
from ruleset.manifests.reader import DECODERS
from ruleset.workloads import WORKLOAD_KINDS, expand, scale


@dataclass(frozen=True)
class ScaleRequest:
    """``--scale KIND/NAMESPACE/NAME=N``: the workload's missing replicas become pending pods."""

    kind: str
    namespace: str
    name: str
    replicas: int
    text: str


@dataclass
class _Claims:
    """The claims a run creates: which exist (``namespace/name``), which were refused (with
    the controller's error), and how many were created."""

    newest_default: bool
    #: False when the input holds no storage object at all: then no claim is created, as the
    #: volume plugins check nothing without storage objects (a claim created with no class and
    #: no volume would make every such pod unschedulable for users who did not dump storage).
    enabled: bool = True
    existing: set[str] = field(default_factory=set)
    refused: dict[str, str] = field(default_factory=dict)
    created: int = 0


def create_pods(cluster: Cluster, problems: list[Problem], seed: int = 0,
                scale: Sequence[ScaleRequest] = (), target: Target | None = None) -> Counter[str]:
    """Turn ``cluster.pod_sources`` into ``cluster.pods`` (in input order, each workload's pods
    where it was read, then those of ``scale``), recording admission's refusals in
    ``cluster.refused`` and its changes in ``cluster.admission``; the claims of StatefulSets'
    pods join ``cluster.persistent_volume_claims``. Returns what was created, by kind
    (``Pod``, ``PersistentVolumeClaim``; pods read from the input that the API server has
    stored already are not counted)."""
    admission = Admission(cluster.limit_ranges, cluster.runtime_classes, seed=seed,
                          taken=_taken_names(cluster.pod_sources),
                          merge_label_keys=target is not None and target.gate("MatchLabelKeysInPodAffinity"))
    claims = _Claims(newest_default=target is not None and target.has(NEWEST_DEFAULT),
                     enabled=any(getattr(cluster, name) for name in STORAGE_LISTS),
                     existing={claim.key for claim in cluster.persistent_volume_claims})
    fresh: list[Pod] = []
    budget = [MAX_CLUSTER_PODS - sum(1 for s in cluster.pod_sources if s.kind == "Pod")]
    for source in cluster.pod_sources:
        if source.kind == "Pod":
            _create(cluster, admission, source, source.raw, created=stored(source.raw, pod=True),
                    problems=problems, fresh=fresh)
            continue
        if source.kind not in WORKLOAD_KINDS:
            cluster.skipped[f"{source.kind} (its pods are not created: ruleset creates those of "
                            f"{', '.join(sorted(WORKLOAD_KINDS))})"] += 1
            cluster.warnings[(source.file, f"{source.kind}: its pods are not created (they come on a "
                                           "schedule); skipped")] += 1
            continue
        if not _within_budget(source, expected_pods(source.kind, source.raw, len(cluster.nodes)), budget,
                              problems):
            continue
        expansion = expand(source.kind, source.raw, cluster.nodes, file=source.file, document=source.document,
                           seed=seed)
        problems.extend(expansion.problems)
        _add_objects(cluster, source, expansion.objects, problems)
        _create_claims(cluster, source, expansion.claims, claims, problems)
        _create_all(cluster, admission, source, expansion.pods, problems, fresh, claims.refused)
    cluster.pod_sources = []
    for request in scale:
        _scale(cluster, admission, request, seed, problems, fresh, budget, claims)
    cluster.admission.update(admission.counts)
    _stamp(cluster.pods, fresh)
    return Counter({"Pod": len(fresh), "PersistentVolumeClaim": claims.created})


def expected_pods(kind: str, raw: dict, nodes: int) -> int:
    """About how many pods a workload asks for (``replicas``, a Job's ``parallelism``, a
    DaemonSet's nodes), read before anything is made, to keep the run within
    :data:`MAX_CLUSTER_PODS`; a value that is no number counts 1 (the expansion reports it)."""
    if kind == "DaemonSet":
        return nodes
    spec = raw.get("spec")
    if not isinstance(spec, dict):
        return 1
    value = spec.get("parallelism" if kind == "Job" else "replicas", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 1


def _within_budget(source: RawObject, wanted: int, budget: list[int], problems: list[Problem]) -> bool:
    if wanted <= budget[0]:
        budget[0] -= wanted
        return True
    if budget[0] < 0:  # already reported: nothing more is created
        return False
    meta = source.raw.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    problems.append(Problem(f"{source.kind} {name}: {wanted:,} pods would take the run past "
                            f"{MAX_CLUSTER_PODS:,} pods, Kubernetes' limit of pods per cluster",
                            file=source.file, line=line_of(source.raw, "kind"), code="invalid-object"))
    budget[0] = -1
    return False


def _stamp(pods: Sequence[Pod], fresh: Sequence[Pod]) -> None:
    """Pods created by this run have no ``creationTimestamp``; the API server would stamp them
    "now", after every pod the input already holds: so they queue behind older pending pods
    of their priority, in the order they were created."""
    if not fresh:
        return
    now = max((p.meta.creation_timestamp for p in pods if p.meta.creation_timestamp is not None), default=0.0)
    for i, pod in enumerate(fresh, start=1):
        pod.meta.creation_timestamp = now + i * 1e-3


def _taken_names(sources: Sequence[RawObject]) -> list[str]:
    """``namespace/name`` of every named pod, so that generated names never take one."""
    out = []
    for source in sources:
        meta = source.raw.get("metadata") if source.kind == "Pod" else None
        if isinstance(meta, dict) and isinstance(meta.get("name"), str):
            out.append(f"{namespace_of(meta)}/{meta['name']}")
    return out


def _create(cluster: Cluster, admission: Admission, source: RawObject, raw: Any, created: bool,
            problems: list[Problem], fresh: list[Pod]) -> Pod | None:
    error = None
    newer = newer_fields(raw)
    if newer:
        cluster.newer_fields.update(newer)
    if source.api_checks:
        admitted = admission.admit(raw, created=created)
        raw, error = admitted.raw, admitted.error
    ctx = DecodeContext(file=source.file, document=source.document, subject="Pod",
                        api_checks=source.api_checks)
    pod = decode_pod(ctx, raw)
    problems.extend(ctx.problems)
    if pod.phase in ("Succeeded", "Failed"):
        # The scheduler's cache never holds terminated pods.
        cluster.skipped[f"Pod (phase {pod.phase})"] += 1
        return None
    cluster.pods.append(pod)
    if error is not None:
        cluster.refused[pod] = error
    if not created and source.api_checks and pod.meta.creation_timestamp is None:
        fresh.append(pod)
    return pod


def _create_all(cluster: Cluster, admission: Admission, source: RawObject, pods: Sequence[dict],
                problems: list[Problem], fresh: list[Pod], refused_claims: dict[str, str]) -> None:
    """A workload's pods; a problem of its template is reported once, not once per replica.
    A pod one of whose claims was refused is refused with the controller's error."""
    mine: list[Problem] = []
    for raw in pods:
        pod = _create(cluster, admission, source, raw, created=False, problems=mine, fresh=fresh)
        if pod is not None and refused_claims:
            names = [f"{pod.namespace}/{claim.claim_name}"
                     for claim in pod_claims(pod.name, pod.volumes, ephemeral=False)]
            errors = [refused_claims[name] for name in names if name in refused_claims]
            if errors:  # createPersistentVolumeClaims' aggregate error (errors.NewAggregate)
                cluster.refused[pod] = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
    seen: set[tuple[str | None, int | None, str]] = set()
    for problem in mine:
        key = (problem.file, problem.line, problem.message)
        if key not in seen:
            seen.add(key)
            problems.append(problem)


def _create_claims(cluster: Cluster, source: RawObject, raws: Sequence[dict], claims: _Claims,
                   problems: list[Problem]) -> None:
    """``createPersistentVolumeClaims``: each claim the cluster does not hold yet is created
    (defaulted and admitted, then decoded as read ones are) and joins the cluster's claims; a
    refused one is remembered for its pod. A problem of a template is reported once."""
    if not claims.enabled:
        return
    seen: set[tuple[str | None, int | None, str]] = set()
    for raw in raws:
        meta = raw.get("metadata")
        key = f"{namespace_of(meta)}/{meta.get('name') if isinstance(meta, dict) else ''}"
        if key in claims.existing:
            continue  # the controller uses the claim that exists
        if source.api_checks:
            admitted = admit_claim(raw, cluster.storage_classes, newest_wins=claims.newest_default)
            if admitted.error is not None:
                name = key.split("/", 1)[1]
                claims.refused[key] = f"failed to create PVC {name}: {admitted.error}"
                continue
            raw = admitted.raw
        ctx = DecodeContext(file=source.file, document=source.document, subject="PersistentVolumeClaim",
                            api_checks=source.api_checks)
        claim = decode_persistent_volume_claim(ctx, raw)
        for problem in ctx.problems:
            if (problem.file, problem.line, problem.message) not in seen:
                seen.add((problem.file, problem.line, problem.message))
                problems.append(problem)
        claims.existing.add(key)
        cluster.persistent_volume_claims.append(claim)
        claims.created += 1


def _add_objects(cluster: Cluster, source: RawObject, objects: Sequence[tuple[str, dict]],
                 problems: list[Problem]) -> None:
    """Objects a controller adds to the cluster (a Deployment's ReplicaSet), decoded as read ones are."""
    for kind, raw in objects:
        entry = DECODERS.get(kind)
        if entry is None:
            continue
        attr, decoder = entry
        ctx = DecodeContext(file=source.file, document=source.document, subject=kind,
                            api_checks=source.api_checks)
        getattr(cluster, attr).append(decoder(ctx, raw))
        problems.extend(ctx.problems)
        cluster.workloads.append(RawObject(kind, raw, source.file, source.document, source.api_checks,
                                           source.role))


#: The most pods a run holds (Kubernetes' limit of pods per cluster): what workloads and
#: ``--scale`` may create is counted against it before anything is made.
MAX_CLUSTER_PODS = 150_000

#: ``--scale`` kinds as kubectl accepts them: the kind in any case, its plural, its short name.
_KIND_NAMES = {
    **{name: "Deployment" for name in ("deployment", "deployments", "deploy")},
    **{name: "ReplicaSet" for name in ("replicaset", "replicasets", "rs")},
    **{name: "ReplicationController" for name in ("replicationcontroller", "replicationcontrollers", "rc")},
    **{name: "StatefulSet" for name in ("statefulset", "statefulsets", "sts")},
    **{name: "DaemonSet" for name in ("daemonset", "daemonsets", "ds")},
    **{name: "Job" for name in ("job", "jobs")},
}


def _scale(cluster: Cluster, admission: Admission, request: ScaleRequest, seed: int,
           problems: list[Problem], fresh: list[Pod], budget: list[int], claims: _Claims) -> None:
    """``--scale``: the workload's missing replicas become pending pods from its template."""
    kind = _KIND_NAMES.get(request.kind.lower())
    if kind is None:
        problems.append(Problem(f"{request.kind!r} is not a workload kind ruleset scales (Deployment, "
                                "ReplicaSet, ReplicationController, StatefulSet)",
                                file=f"--scale {request.text}", code="invalid-value"))
        return
    target = next((w for w in cluster.workloads if w.kind == kind and _named(w.raw, request)), None)
    if target is None:
        problems.append(Problem(f"no {kind} {request.namespace}/{request.name} in the cluster",
                                file=f"--scale {request.text}", code="invalid-value"))
        return
    if not _within_budget(target, request.replicas, budget, problems):
        return
    replica_sets = [w.raw for w in cluster.workloads if w.kind == "ReplicaSet"]
    expansion = scale(kind, target.raw, request.replicas, cluster.pods, replica_sets=replica_sets,
                      file=target.file, document=target.document, seed=seed)
    problems.extend(Problem(f"--scale {request.text}: {p.message}", file=p.file, line=p.line, column=p.column,
                            path=p.path, code=p.code) for p in expansion.problems)
    _add_objects(cluster, target, expansion.objects, problems)
    if not expansion.pods and not expansion.problems:
        cluster.warnings[(f"--scale {request.text}", f"the {kind} has {request.replicas} or more pods "
                          "already: scaling down creates no pod")] += 1
    _create_claims(cluster, target, expansion.claims, claims, problems)
    _create_all(cluster, admission, target, expansion.pods, problems, fresh, claims.refused)


def _named(raw: dict, request: ScaleRequest) -> bool:
    meta = raw.get("metadata")
    if not isinstance(meta, dict):
        return False
    return meta.get("name") == request.name and namespace_of(meta) == request.namespace
