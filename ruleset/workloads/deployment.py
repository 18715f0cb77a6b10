"""The ReplicaSet a Deployment controller creates first (v1.20 ``pkg/controller/deployment``:
``sync.go getNewReplicaSet``, ``util/deployment_util.go SetNewReplicaSetAnnotations``,
``MaxSurge``, ``ResolveFenceposts``)."""

from __future__ import annotations

import re
from typing import Any

from ruleset.reading import LocatedDict
from ruleset.workloads.copying import located_copy
from ruleset.workloads.hashing import compute_hash, stand_in_uid
from ruleset.workloads.template import Workload, controller_ref

#: ``apps.DefaultDeploymentUniqueLabelKey``.
POD_TEMPLATE_HASH = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
#: ``annotationsToSkip``: Deployment annotations not copied to its ReplicaSets.
SKIPPED_ANNOTATIONS = frozenset((
    "kubectl.kubernetes.io/last-applied-configuration", REVISION, "deployment.kubernetes.io/revision-history",
    DESIRED_REPLICAS, MAX_REPLICAS, "deprecated.deployment.rollback.to",
))
_PERCENT = re.compile(r"([0-9]+)%")


def _scaled(value: Any, total: int, round_up: bool) -> int:
    """``intstr.GetScaledValueFromIntOrPercent``; what it refuses counts as 0 (validation
    refuses it first upstream)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    match = _PERCENT.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return 0
    if len(match.group(1)) > 18:  # strconv.Atoi fails beyond int64
        return 0
    percent = int(match.group(1))
    return -(-percent * total // 100) if round_up else percent * total // 100


def max_surge(spec: Any, replicas: int) -> int:
    """``MaxSurge`` of the Deployment spec, defaulted as ``SetDefaults_Deployment`` does
    (RollingUpdate, 25% and 25%); 0 for the Recreate strategy."""
    strategy = spec.get("strategy") if isinstance(spec, dict) else None
    strategy = strategy if isinstance(strategy, dict) else {}
    if strategy.get("type") not in (None, "", "RollingUpdate"):
        return 0
    rolling = strategy.get("rollingUpdate")
    rolling = rolling if isinstance(rolling, dict) else {}
    surge = _scaled(rolling.get("maxSurge", "25%"), replicas, True)
    return max(surge, 0)


def replica_set_name(deployment: str, template_hash: str) -> str:
    return f"{deployment}-{template_hash}"


def collision_count(workload: Workload) -> int | None:
    """``status.collisionCount`` when written as an integer."""
    status = workload.raw.get("status")
    value = status.get("collisionCount") if isinstance(status, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def new_replica_set(deployment: Workload, replicas: int) -> dict[str, Any]:
    """The raw ReplicaSet ``getNewReplicaSet`` creates for a Deployment with no ReplicaSet yet:
    named ``<deployment>-<pod-template-hash>``, the hash added to its labels, its template's
    labels and its selector's matchLabels; revision 1 and the replica annotations; owned by
    the Deployment. It gets a stand-in uid (it has none until the API server creates it)."""
    template_hash = compute_hash(deployment.template, collision_count(deployment))
    name = replica_set_name(deployment.name, template_hash)
    template = located_copy(deployment.template)
    tmeta = template.get("metadata")
    if not isinstance(tmeta, dict):
        tmeta = LocatedDict()
        template["metadata"] = tmeta
    labels = tmeta.get("labels")
    labels = labels if isinstance(labels, dict) else LocatedDict()
    labels[POD_TEMPLATE_HASH] = template_hash
    tmeta["labels"] = labels
    selector = located_copy(deployment.spec.get("selector"))
    selector = selector if isinstance(selector, dict) else {}
    match_labels = selector.get("matchLabels")
    match_labels = match_labels if isinstance(match_labels, dict) else {}
    match_labels[POD_TEMPLATE_HASH] = template_hash
    selector["matchLabels"] = match_labels
    own = deployment.metadata.get("annotations")
    own = own if isinstance(own, dict) else {}
    annotations = {k: v for k, v in own.items() if k not in SKIPPED_ANNOTATIONS}
    annotations[REVISION] = "1"
    annotations[DESIRED_REPLICAS] = str(replicas)
    annotations[MAX_REPLICAS] = str(replicas + max_surge(deployment.spec, replicas))
    metadata: dict[str, Any] = {"name": name}
    if deployment.namespace:
        metadata["namespace"] = deployment.namespace
    metadata["uid"] = stand_in_uid("ReplicaSet", deployment.namespace or "default", name)
    metadata["labels"] = dict(labels)
    metadata["annotations"] = annotations
    metadata["ownerReferences"] = [controller_ref(deployment.api_version, "Deployment", deployment.name,
                                                  deployment.uid)]
    spec: dict[str, Any] = {"replicas": replicas}
    min_ready = deployment.spec.get("minReadySeconds")
    if min_ready:
        spec["minReadySeconds"] = min_ready
    spec["selector"] = selector
    spec["template"] = template
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": metadata, "spec": spec}
