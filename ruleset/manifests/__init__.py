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

import functools
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ruleset.api.decode import line_of
from ruleset.errors import Problem, RulesetError
from ruleset.kversion import Target
from ruleset.manifests.create import ScaleRequest, create_pods
from ruleset.manifests.gcpause import loading_gc
from ruleset.manifests.model import Cluster, RawObject, namespace_of
from ruleset.manifests.paths import MANIFEST_SUFFIXES, manifest_files
from ruleset.manifests.reader import collect_documents, read_documents
from ruleset.workloads import WORKLOAD_KINDS

__all__ = ["MANIFEST_SUFFIXES", "Cluster", "RawObject", "ScaleRequest", "decode_documents", "load_manifests",
           "loading_gc", "manifest_files", "needs_lines", "read_documents"]


def decode_documents(documents: Iterable[tuple[int, Any]], file: str | None,
                     problems: list[Problem], api_checks: bool = True, seed: int = 0) -> Cluster:
    """Decode parsed documents into a :class:`Cluster`, appending problems to ``problems``.

    ``api_checks=False`` leaves out the API server's checks and admission, for objects
    built the way upstream's unit tests build them."""
    cluster = collect_documents(documents, file, problems, api_checks)
    create_pods(cluster, problems, seed=seed)
    return cluster


def load_manifests(paths: Iterable[str | Path], pod_paths: Iterable[str | Path] = (), *, seed: int = 0,
                   scale: Sequence[ScaleRequest] = (), on_file: Callable[[Path], None] | None = None,
                   target: Target | None = None, every_line: bool = False) -> Cluster:
    """Read every file (folders expanded) into one :class:`Cluster`; raise :class:`RulesetError`
    listing every problem.

    ``pod_paths`` hold pods to create: their workloads become pods, and a file among them
    that yields no pod is an error naming what it held. ``on_file`` is called after each
    file is read (progress). ``target``: the release the pods are created for (what the API
    server does on create depends on it); 1.20 when None.

    A large YAML stream the native parser reads is read without its lines (building them is
    most of its walk), unless ``every_line``; its file is then in the cluster's ``unlocated``.
    Should a problem be found in such a file, or name one, everything is read again with every
    line (``on_file`` is not called again), so that problems are the same, at the same lines,
    either way.

    The cyclic garbage collector is paused meanwhile (:func:`~ruleset.manifests.gcpause.loading_gc`):
    creating the pods allocates as much as reading them, and frees almost nothing."""
    paths, pod_paths = list(paths), list(pod_paths)  # (read twice when a problem is found)
    with loading_gc():
        if not every_line:
            unlocated: set[str] = set()
            try:
                return _load(paths, pod_paths, seed, scale, on_file, target, unlocated)
            except RulesetError as exc:
                if not needs_lines(exc.problems, unlocated):
                    raise
            on_file = None
        return _load(paths, pod_paths, seed, scale, on_file, target, None)


def needs_lines(problems: Iterable[Problem], unlocated: set[str]) -> bool:
    """Whether a problem is in one of the files read without lines, or names one (a duplicate's
    "first at FILE:LINE"): only then is the input read again to say where."""
    return any(problem.file in unlocated or any(file in problem.message for file in unlocated)
               for problem in problems)


def _load(paths: Iterable[str | Path], pod_paths: Iterable[str | Path], seed: int,
          scale: Sequence[ScaleRequest], on_file: Callable[[Path], None] | None,
          target: Target | None, unlocated: set[str] | None) -> Cluster:
    """The cluster, or :class:`RulesetError`; files read without lines are added to ``unlocated``
    (every file is read with them when it is None)."""
    problems: list[Problem] = []
    cluster = Cluster()
    pod_files: dict[str, Cluster] = {}
    named: set[str] = set()
    for role, group in (("cluster", paths), ("pods", pod_paths)):
        for path in manifest_files(group, problems, named if role == "pods" else None):
            on_plain = None if unlocated is None else functools.partial(unlocated.add, str(path))
            try:
                part = collect_documents(read_documents(path, on_plain=on_plain), str(path), problems,
                                         role=role)
            except RulesetError as exc:
                problems.extend(exc.problems)
                continue
            finally:
                if on_file is not None:
                    on_file(path)
            if role == "pods":
                pod_files.setdefault(str(path), part)
            cluster.extend(part)
    problems.extend(_duplicate_workloads(cluster.workloads))
    # every problem of every pod
    created = create_pods(cluster, problems, seed=seed, scale=scale, target=target)
    cluster.created.update({kind: n for kind, n in created.items() if kind != "Pod" and n})
    if not problems:
        problems.extend(_files_without_pods(cluster, pod_files, named))
    if problems:
        raise RulesetError(problems)
    cluster.unlocated.update(unlocated or ())
    return cluster


def _files_without_pods(cluster: Cluster, pod_files: dict[str, Cluster], named: set[str]) -> list[Problem]:
    """A ``--pods`` file named by itself that yields no pod is an error: the user asked for pods,
    so saying "0 pending" would hide it. One found in a folder (a Service or a kustomization
    beside the Deployments) is a warning, unless the whole input yields no pod."""
    yielded = {pod.meta.origin.file for pod in cluster.pods if pod.meta.origin is not None}
    empty = {file: part for file, part in pod_files.items() if file not in yielded}
    problems = []
    for file, part in empty.items():
        held = ", ".join(f"{count} {kind}" for kind, count in sorted(part.kinds.items())) or "no object"
        if any(kind in WORKLOAD_KINDS for kind in part.kinds):
            why = ("its workloads create no pod here (no replicas, already created, or a DaemonSet that no "
                   "node runs)")
        else:
            why = ("pods come from Pod, Deployment, ReplicaSet, ReplicationController, StatefulSet, Job and "
                   "DaemonSet objects")
        message = f"no pod to schedule: the file holds {held} ({why})"
        if file in named or len(empty) == len(pod_files):
            problems.append(Problem(message, file=file, code="no-pod"))
        else:
            cluster.warnings[(file, message)] += 1
    return problems


def _duplicate_workloads(workloads: Sequence[RawObject]) -> list[Problem]:
    """The same workload (kind, namespace, name) twice in the input: the API server answers
    AlreadyExists; each duplicate is located and names where the first was."""
    first: dict[tuple[str, str, str], RawObject] = {}
    problems = []
    for workload in workloads:
        meta = workload.raw.get("metadata")
        if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
            continue
        namespace = namespace_of(meta)
        key = (workload.kind, namespace, meta["name"])
        earlier = first.setdefault(key, workload)
        if earlier is workload:
            continue
        line, earlier_line = line_of(workload.raw, "kind"), line_of(earlier.raw, "kind")
        place = (f"line {earlier_line}" if earlier.file == workload.file
                 else ":".join(str(p) for p in (earlier.file, earlier_line) if p is not None))
        subject = f"{workload.kind} {namespace}/{meta['name']}"
        where = subject if line is not None else f"document {workload.document + 1}: {subject}"
        problems.append(Problem(f"duplicate {subject} (first at {place})", file=workload.file, line=line,
                                path=where, code="duplicate"))
    return problems
