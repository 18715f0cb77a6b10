"""Workloads become the pods their controllers would create (kube-controller-manager v1.20).

:func:`expand` turns a new Deployment, ReplicaSet, ReplicationController, StatefulSet, Job
or DaemonSet (a raw object, as parsed from a manifest) into the raw pods its controller
creates -- and, for a Deployment, the ReplicaSet in between; for a StatefulSet, the
PersistentVolumeClaims of its ``volumeClaimTemplates`` (:mod:`ruleset.workloads.claims`).
:func:`scale` gives the pods a workload already in the cluster gains when scaled up
(``--scale KIND/NAMESPACE/NAME=N``).

The pods are raw objects still to go through admission (names from ``generateName``,
defaulting) and :func:`ruleset.api.pod.decode_pod`; they keep the template's YAML line
maps, so a problem in a Deployment's template is reported at its line in the user's file.
Hashes (``pod-template-hash``, ``controller-revision-hash``) follow upstream's algorithms
over a canonical JSON text of the template (:mod:`ruleset.workloads.hashing`): stable from
run to run, though not the values a real cluster would print.
"""

from __future__ import annotations

from ruleset.workloads.claims import claim_name, stateful_set_claims
from ruleset.workloads.copying import canonical_json, located_copy
from ruleset.workloads.expand import WORKLOAD_KINDS, Expansion, expand
from ruleset.workloads.hashing import compute_hash, revision_hash, stand_in_uid
from ruleset.workloads.scale import scale
from ruleset.workloads.template import MAX_PODS, pods_prefix

__all__ = [
    "MAX_PODS",
    "WORKLOAD_KINDS",
    "Expansion",
    "canonical_json",
    "claim_name",
    "compute_hash",
    "expand",
    "located_copy",
    "pods_prefix",
    "revision_hash",
    "scale",
    "stand_in_uid",
    "stateful_set_claims",
]
