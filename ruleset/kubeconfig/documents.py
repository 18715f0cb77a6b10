"""Find the scheduler configurations in a file, however they are packaged.

Accepted: YAML or JSON; multi-document streams; ``kind: List``; a ConfigMap whose ``data``
values hold a configuration (as ``kubectl create configmap --from-file`` writes it, and as
kube-scheduler Deployments mount it); ``KubeSchedulerConfiguration`` of every
``kubescheduler.config.k8s.io`` version; the legacy ``kind: Policy``; the export of
kubernetes-sigs/kube-scheduler-simulator (``GET /api/v1/export``, its ``ResourcesForSnap``:
the cluster's objects beside a ``schedulerConfig``). Other objects (Deployments, RBAC…) are
skipped and counted.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ruleset.errors import Problem, RulesetError
from ruleset.kubeconfig.versions import GROUP
from ruleset.manifests import read_documents
from ruleset.reading import CONFIG, LimitError, load_json
from ruleset.yaml_reading import load_yaml


@dataclass
class ConfigDocument:
    """One configuration found in a file."""

    kind: str  # "KubeSchedulerConfiguration" or "Policy"
    api_version: str
    data: dict[str, Any]
    #: ``file`` or ``file (ConfigMap kube-system/x, data key 'y')``, plus the document index.
    source: str


@dataclass
class Found:
    documents: list[ConfigDocument] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)


def find_configs(path: Path) -> Found:
    """Every scheduler configuration in ``path``; raises RulesetError when there is none.

    The file, and any configuration a ConfigMap holds as text, are read within the limits
    :data:`ruleset.reading.CONFIG` sets.
    """
    found = Found()
    docs = list(read_documents(path, CONFIG))
    many = len(docs) > 1
    for index, doc in docs:
        label = f"{path} (document {index + 1})" if many else str(path)
        _collect(doc, label, found, path)
    if not found.documents:
        skipped = ", ".join(f"{n} {k}" for k, n in sorted(found.skipped.items()))
        raise RulesetError(
            Problem(
                "no KubeSchedulerConfiguration or scheduler Policy found"
                + (f" (skipped: {skipped})" if skipped else ""),
                file=str(path),
                code="no-config",
            )
        )
    return found


def _collect(doc: Any, label: str, found: Found, path: Path) -> None:
    """Find the configurations in ``doc``, in order (iteratively: lists may nest as deep as
    the reader allows)."""
    pending: list[Iterator[tuple[Any, str]]] = [iter([(doc, label)])]
    while pending:
        entry = next(pending[-1], None)
        if entry is None:
            pending.pop()
            continue
        doc, label = entry
        if doc is None:
            continue
        if isinstance(doc, list):
            pending.append((item, label) for item in doc)
            continue
        if not isinstance(doc, dict):
            found.skipped[f"<{type(doc).__name__}>"] += 1
            continue
        kind = doc.get("kind")
        api_version = str(doc.get("apiVersion") or "")
        if kind == "KubeSchedulerConfiguration" or (kind is None and api_version.startswith(GROUP + "/")):
            found.documents.append(ConfigDocument("KubeSchedulerConfiguration", api_version, doc, label))
        elif kind == "Policy" or (kind is None and ("predicates" in doc or "priorities" in doc)):
            found.documents.append(ConfigDocument("Policy", api_version or "v1", doc, label))
        elif kind == "ConfigMap":
            pending.append(_config_map(doc, label, found, path))
        elif kind is None and isinstance(doc.get("schedulerConfig"), dict):
            config, api_version = _simulator_config(doc["schedulerConfig"])
            where = f"{label} (kube-scheduler-simulator export, schedulerConfig read as {api_version})"
            found.documents.append(ConfigDocument("KubeSchedulerConfiguration", api_version, config, where))
        elif isinstance(doc.get("items"), list) and (kind is None or str(kind).endswith("List")):
            pending.append((item, label) for item in doc["items"])
        else:
            found.skipped[str(kind) if kind else "<no kind>"] += 1


#: The KubeSchedulerConfiguration type of kube-scheduler-simulator's export (``configv1``
#: since its commit f5e812e, 2023; ``v1beta2`` before).
SIMULATOR_VERSION = f"{GROUP}/v1"


def _simulator_config(config: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The configuration of a simulator export, and its apiVersion.

    The simulator serialises a typed ``KubeSchedulerConfiguration`` whose TypeMeta is empty, so
    the object usually names no apiVersion; its ``pluginConfig`` args do (the scheme fills
    theirs in). Else it is the simulator's current type, :data:`SIMULATOR_VERSION`.
    """
    api_version = config.get("apiVersion")
    if not isinstance(api_version, str) or not api_version:
        api_version = next(_args_versions(config), SIMULATOR_VERSION)
    return {**config, "apiVersion": api_version, "kind": "KubeSchedulerConfiguration"}, api_version


def _args_versions(config: dict[str, Any]) -> Iterator[str]:
    """The ``kubescheduler.config.k8s.io`` apiVersions the profiles' ``pluginConfig`` args name."""
    profiles = config.get("profiles")
    for profile in profiles if isinstance(profiles, list) else []:
        entries = profile.get("pluginConfig") if isinstance(profile, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            args = entry.get("args") if isinstance(entry, dict) else None
            written = args.get("apiVersion") if isinstance(args, dict) else None
            if isinstance(written, str) and written.startswith(GROUP + "/"):
                yield written


def _config_map(doc: dict, label: str, found: Found, path: Path) -> Iterator[tuple[Any, str]]:
    """The documents a ConfigMap's data values hold, for :func:`_collect`; counts the
    ConfigMap as skipped when none of them was a configuration."""
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    name = "/".join(str(p) for p in (meta.get("namespace"), meta.get("name")) if p)
    data = doc.get("data")
    if not isinstance(data, dict):
        data = {}
    before = len(found.documents)
    for key, text in data.items():
        if not isinstance(text, str):
            continue
        where = f"ConfigMap {name or '?'}, data key {key!r}"
        for sub in _parse_embedded(text, path, where, getattr(data, "key_lines", {}).get(key)):
            yield sub, f"{label} ({where})"
    if len(found.documents) == before:
        found.skipped["ConfigMap"] += 1


def _parse_embedded(text: str, path: Path, where: str, line: int | None) -> Iterator[Any]:
    """The documents inside a ConfigMap value; text that is neither YAML nor JSON yields
    nothing. Past a limit of :data:`~ruleset.reading.CONFIG`, it is an error, located at
    the data key (``line``) and, in the message, inside the value."""
    try:
        stripped = text.lstrip()
        if stripped[:1] in ("{", "["):
            try:
                yield load_json(text, str(path), CONFIG)
                return
            except json.JSONDecodeError:
                pass
        # yaml.safe_load_all's reading: plain dicts and lists, PyYAML's own parser.
        try:
            yield from load_yaml(text, str(path), CONFIG, located=False, loader=yaml.SafeLoader)
        except LimitError:
            raise
        except RulesetError:
            return
    except LimitError as exc:
        problem = exc.problems[0]
        inside = f"line {problem.line}, column {problem.column}: " if problem.line is not None else ""
        raise LimitError(Problem(f"{where}: {inside}{problem.message}", file=str(path), line=line,
                                 code=problem.code)) from None
