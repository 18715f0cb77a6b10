"""What-if scaling: the pods a workload already in the cluster gains when scaled up.

``--scale KIND/NAMESPACE/NAME=N``: the controller of a workload that owns fewer than ``N``
pods creates the missing ones from its template, as :func:`~ruleset.workloads.expand`
would. Scaling down removes nothing (the scheduler has nothing to do for it).

Ownership is the pod's controller owner reference: its uid against the owner's, or, when
either was written without a uid (a hand-made snapshot), its kind and name.

* ReplicaSet, ReplicationController: ``N -`` its active pods (``FilterActivePods``: not
  Succeeded or Failed, not terminating).
* Deployment: ``N -`` the active pods of all its ReplicaSets (the replicas of a Deployment
  count across its ReplicaSets), created by its current ReplicaSet: the oldest whose template
  equals the Deployment's but for ``pod-template-hash`` (``FindNewReplicaSet`` with
  ``EqualIgnoreHash``), else its newest ReplicaSet (a dump taken mid-rollout, or a template
  the API server defaulted differently), else a new one, made as :func:`expand` makes it
  (none when the Deployment is paused).
* StatefulSet: the missing ordinals of ``0 .. N-1`` (v1.20 creates every ordinal below
  the replica count that has no pod; a pod of any phase holds its ordinal, as its name is
  taken until it is deleted), at ``status.updateRevision``, with their claims (those that
  exist already are the caller's to keep, see :mod:`ruleset.workloads.claims`).
* DaemonSet and Job are not scaled: the first runs one pod per node, the second as many as
  its parallelism allows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from ruleset.api.decode import DecodeContext
from ruleset.api.meta import parse_timestamp
from ruleset.api.pod import Pod
from ruleset.errors import Problem
from ruleset.workloads.copying import canonical_json
from ruleset.workloads.deployment import POD_TEMPLATE_HASH, new_replica_set
from ruleset.workloads.expand import (
    WORKLOAD_KINDS,
    Expansion,
    check_selector,
    replica_set_pods,
    stateful_set_members,
)
from ruleset.workloads.template import MAX_PODS, Workload, controller_ref, pod_from_template, read_workload

_NOT_SCALABLE = {
    "DaemonSet": "a DaemonSet runs one pod on each node it selects; it cannot be scaled",
    "Job": "a Job runs as many pods as its parallelism and completions allow; it cannot be scaled",
}


def _owned_by(pod: Pod, kind: str, namespace: str, name: str, uid: str | None) -> bool:
    """Whether ``pod``'s controller reference names this owner (``uid`` None: written without one)."""
    ref = pod.controller()
    if ref is None or pod.namespace != (namespace or "default"):
        return False
    if ref.uid and uid:
        return ref.uid == uid
    return ref.kind == kind and ref.name == name


def _active(pod: Pod) -> bool:
    """``controller.IsPodActive``."""
    return pod.phase not in ("Succeeded", "Failed") and not pod.terminating


def _owner_uid(workload: Workload) -> str | None:
    return workload.uid if workload.has_uid else None


def _meta(raw: Any) -> dict[str, Any]:
    meta = raw.get("metadata") if isinstance(raw, dict) else None
    return meta if isinstance(meta, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _controls(raw: Any, workload: Workload) -> bool:
    """Whether the raw object ``raw`` is controlled by ``workload`` (in its namespace)."""
    meta = _meta(raw)
    if (_text(meta.get("namespace")) or "default") != (workload.namespace or "default"):
        return False
    refs = meta.get("ownerReferences")
    for ref in refs if isinstance(refs, list) else ():
        if not isinstance(ref, dict) or ref.get("controller") is not True:
            continue
        if _text(ref.get("uid")) and workload.has_uid:
            return ref.get("uid") == workload.uid
        return ref.get("kind") == workload.kind and ref.get("name") == workload.name
    return False


def _without_hash(template: Any) -> str:
    """The canonical text of a pod template without its ``pod-template-hash`` label."""
    if not isinstance(template, dict):
        return canonical_json(template)
    meta = dict(template.get("metadata") or {}) if isinstance(template.get("metadata"), dict) else {}
    labels = meta.get("labels")
    if isinstance(labels, dict):
        meta["labels"] = {k: v for k, v in labels.items() if k != POD_TEMPLATE_HASH}
    return canonical_json({**template, "metadata": meta})


def _created(raw: Any) -> tuple[float, str]:
    """``ReplicaSetsByCreationTimestamp``'s key: no timestamp sorts first, then by name."""
    meta = _meta(raw)
    stamp = meta.get("creationTimestamp")
    seconds = None
    if isinstance(stamp, str):
        seconds = parse_timestamp(stamp)
    elif isinstance(stamp, datetime):  # unquoted YAML timestamps
        seconds = (stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)).timestamp()
    return (float("-inf") if seconds is None else seconds, _text(meta.get("name")))


def _template_of(raw: Any) -> Any:
    spec = raw.get("spec") if isinstance(raw, dict) else None
    return spec.get("template") if isinstance(spec, dict) else None


def current_replica_set(deployment: Workload, replica_sets: Sequence[Any]) -> dict[str, Any] | None:
    """The ReplicaSet of ``deployment`` new pods come from (see the module docstring), or None."""
    owned = sorted((rs for rs in replica_sets
                    if isinstance(rs, dict) and _text(_meta(rs).get("name"))
                    and isinstance(_template_of(rs), dict) and _controls(rs, deployment)), key=_created)
    wanted = _without_hash(deployment.template)
    for rs in owned:
        if _without_hash(_template_of(rs)) == wanted:
            return rs
    return owned[-1] if owned else None


def _rs_identity(rs: dict[str, Any]) -> tuple[str, str, str | None]:
    meta = _meta(rs)
    return _text(meta.get("namespace")), _text(meta.get("name")), _text(meta.get("uid")) or None


def _scale_deployment(workload: Workload, replicas: int, existing: Sequence[Pod],
                      replica_sets: Sequence[Any], expansion: Expansion) -> None:
    mine = [rs for rs in replica_sets if isinstance(rs, dict) and _controls(rs, workload)]
    have = 0
    for pod in existing:
        if _active(pod) and any(_owned_by(pod, "ReplicaSet", *_rs_identity(rs)) for rs in mine):
            have += 1
    missing = max(replicas - have, 0)
    chosen = current_replica_set(workload, replica_sets)
    if chosen is None:
        if workload.spec.get("paused") is True:
            return  # a paused Deployment creates no ReplicaSet
        chosen = new_replica_set(workload, replicas)
        expansion.objects.append(("ReplicaSet", chosen))
    expansion.pods = replica_set_pods(workload, chosen, missing)


def _ordinal(pod: Pod, set_name: str) -> int | None:
    """``getParentNameAndOrdinal``: the ordinal of a pod named ``<set>-<ordinal>``."""
    match = re.fullmatch(r"(.*)-([0-9]+)", pod.name)
    if match is None or match.group(1) != set_name or len(match.group(2)) > 18:
        return None
    return int(match.group(2))


def scale(kind: str, raw: Any, replicas: int, existing: Sequence[Pod], *,
          replica_sets: Sequence[Any] = (), file: str | None = None, document: int | None = None,
          seed: int = 0) -> Expansion:
    """The pods (and objects) the controller of the workload ``raw`` (a raw object of
    ``kind`` from the cluster; never changed) creates when its replicas become ``replicas``.

    ``existing`` are the cluster's decoded pods, among them those it owns; ``replica_sets``
    the cluster's raw ReplicaSets (a Deployment's are among them). ``file`` and ``document``
    locate problems. DaemonSets, Jobs and kinds that are not workloads give a problem, as do
    the problems :func:`~ruleset.workloads.expand` reports. ``seed`` decides nothing (see
    :func:`~ruleset.workloads.expand`). Never raises on bad input.
    """
    del seed
    expansion = Expansion()
    ctx = DecodeContext(file=file, document=document)
    if kind not in WORKLOAD_KINDS or kind in _NOT_SCALABLE:
        meta = _meta(raw)
        ctx.subject = f"{kind} {_text(meta.get('namespace')) or 'default'}/{_text(meta.get('name'))}"
        ctx.fail("", _NOT_SCALABLE.get(kind, f"a {kind} has no replicas; it cannot be scaled"), raw)
        expansion.problems = list(ctx.problems)
        return expansion
    if isinstance(replicas, bool) or not isinstance(replicas, int) or not 0 <= replicas <= MAX_PODS:
        message = f"cannot scale to {replicas!r}: expected a number of replicas from 0 to {MAX_PODS:,}"
        expansion.problems = [Problem(message, path="--scale", code="invalid-object")]
        return expansion
    workload = read_workload(kind, raw, ctx)
    if workload is not None and check_selector(workload):
        owner = (kind, workload.namespace, workload.name, _owner_uid(workload))
        if kind == "Deployment":
            _scale_deployment(workload, replicas, existing, replica_sets, expansion)
        elif kind == "StatefulSet":
            taken = {_ordinal(pod, workload.name) for pod in existing if _owned_by(pod, *owner)}
            stateful_set_members(workload, [i for i in range(replicas) if i not in taken], expansion)
        else:
            have = sum(1 for pod in existing if _active(pod) and _owned_by(pod, *owner))
            ref = controller_ref(workload.api_version, kind, workload.name, workload.uid)
            expansion.pods = [pod_from_template(workload.template, workload.metadata, workload.name,
                                                workload.namespace, ref)
                              for _ in range(max(replicas - have, 0))]
    expansion.problems = list(ctx.problems)
    if expansion.problems:
        expansion.pods = []
        expansion.objects = []
        expansion.claims = []
    return expansion

