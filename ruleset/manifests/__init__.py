"""Read cluster snapshots from real Kubernetes manifests.

Accepts YAML and JSON, multi-document streams, ``kind: List`` (and ``PodList`` etc., as
``kubectl get -o yaml`` and the API write them), and the kube-scheduler-simulator export
format (``{"nodes": [...], "pods": [...], "priorityClasses": [...]}``), from files and
folders. Pods are created as Kubernetes creates them (:mod:`ruleset.manifests.create`):
workloads given as pods to schedule become their controllers' pods, and every pod the API
server has not stored yet gets its defaulting and admission. Kinds the scheduler does not
use are skipped and counted; they are never an error. Files are read within the limits of
:mod:`ruleset.reading` (size, nesting, aliases, integer digits).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ruleset.errors import Problem, RulesetError
from ruleset.manifests.create import ScaleRequest, create_pods
from ruleset.manifests.model import Cluster, RawObject
from ruleset.manifests.paths import MANIFEST_SUFFIXES, manifest_files
from ruleset.manifests.reader import collect_documents, read_documents

__all__ = ["MANIFEST_SUFFIXES", "Cluster", "RawObject", "ScaleRequest", "decode_documents", "load_manifests",
           "manifest_files", "read_documents"]


def decode_documents(documents: Iterable[tuple[int, Any]], file: str | None,
                     problems: list[Problem], api_checks: bool = True, seed: int = 0) -> Cluster:
    """Decode parsed documents into a :class:`Cluster`, appending problems to ``problems``.

    ``api_checks=False`` leaves out the API server's checks and admission, for objects
    built the way upstream's unit tests build them."""
    cluster = collect_documents(documents, file, problems, api_checks)
    create_pods(cluster, problems, seed=seed)
    return cluster


def load_manifests(paths: Iterable[str | Path], pod_paths: Iterable[str | Path] = (), *, seed: int = 0,
                   scale: Sequence[ScaleRequest] = (),
                   on_file: Callable[[Path], None] | None = None) -> Cluster:
    """Read every file (folders expanded) into one :class:`Cluster`; raise :class:`RulesetError`
    listing every problem.

    ``pod_paths`` hold pods to create: their workloads become pods, and a file among them
    that yields no pod is an error naming what it held. ``on_file`` is called after each
    file is read (progress)."""
    problems: list[Problem] = []
    cluster = Cluster()
    pod_files: dict[str, Cluster] = {}
    for role, group in (("cluster", paths), ("pods", pod_paths)):
        for path in manifest_files(group, problems):
            try:
                part = collect_documents(read_documents(path), str(path), problems, role=role)
            except RulesetError as exc:
                problems.extend(exc.problems)
                continue
            finally:
                if on_file is not None:
                    on_file(path)
            if role == "pods":
                pod_files.setdefault(str(path), part)
            cluster.extend(part)
    create_pods(cluster, problems, seed=seed, scale=scale)  # every problem of every pod, in one run
    if not problems:
        problems.extend(_files_without_pods(cluster, pod_files))
    if problems:
        raise RulesetError(problems)
    return cluster


def _files_without_pods(cluster: Cluster, pod_files: dict[str, Cluster]) -> list[Problem]:
    """A ``--pods`` file that yields no pod: the user asked for pods, so saying "0 pending" would hide it."""
    yielded = {pod.meta.origin.file for pod in cluster.pods if pod.meta.origin is not None}
    problems = []
    for file, part in pod_files.items():
        if file in yielded:
            continue
        held = ", ".join(f"{count} {kind}" for kind, count in sorted(part.kinds.items())) or "no object"
        problems.append(Problem(f"no pod to schedule: the file holds {held} (pods come from Pod, Deployment, "
                                "ReplicaSet, ReplicationController, StatefulSet, Job and DaemonSet objects)",
                                file=file, code="no-pod"))
    return problems
