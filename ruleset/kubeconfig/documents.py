"""Find the scheduler configurations in a file, however they are packaged.

Accepted: YAML or JSON; multi-document streams; ``kind: List``; a ConfigMap whose ``data``
values hold a configuration (as ``kubectl create configmap --from-file`` writes it, and as
kube-scheduler Deployments mount it); ``KubeSchedulerConfiguration`` of every
``kubescheduler.config.k8s.io`` version; the legacy ``kind: Policy``. Other objects
(Deployments, RBAC…) are skipped and counted.
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
    """Every scheduler configuration in ``path``; raises RulesetError when there is none."""
    found = Found()
    docs = list(read_documents(path))
    many = len(docs) > 1
    for index, doc in docs:
        label = f"{path} (document {index + 1})" if many else str(path)
        _collect(doc, label, found)
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


def _collect(doc: Any, label: str, found: Found) -> None:
    if doc is None:
        return
    if isinstance(doc, list):
        for item in doc:
            _collect(item, label, found)
        return
    if not isinstance(doc, dict):
        found.skipped[f"<{type(doc).__name__}>"] += 1
        return
    kind = doc.get("kind")
    api_version = str(doc.get("apiVersion") or "")
    if kind == "KubeSchedulerConfiguration" or (kind is None and api_version.startswith(GROUP + "/")):
        found.documents.append(ConfigDocument("KubeSchedulerConfiguration", api_version, doc, label))
    elif kind == "Policy" or (kind is None and ("predicates" in doc or "priorities" in doc)):
        found.documents.append(ConfigDocument("Policy", api_version or "v1", doc, label))
    elif kind == "ConfigMap":
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
            for sub in _parse_embedded(text):
                _collect(sub, f"{label} (ConfigMap {name or '?'}, data key {key!r})", found)
        if len(found.documents) == before:
            found.skipped["ConfigMap"] += 1
    elif isinstance(doc.get("items"), list) and (kind is None or str(kind).endswith("List")):
        for item in doc["items"]:
            _collect(item, label, found)
    else:
        found.skipped[str(kind) if kind else "<no kind>"] += 1


def _parse_embedded(text: str) -> Iterator[Any]:
    """The documents inside a ConfigMap value; text that is neither YAML nor JSON yields nothing."""
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            yield json.loads(text)
            return
        except json.JSONDecodeError:
            pass
    try:
        yield from yaml.safe_load_all(text)
    except yaml.YAMLError:
        return
