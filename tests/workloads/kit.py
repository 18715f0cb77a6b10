"""Shared builders for the workload tests: YAML documents with line maps, nodes, pods."""

from __future__ import annotations

import json
from typing import Any

from ruleset.api.decode import DecodeContext
from ruleset.api.node import Node, decode_node
from ruleset.api.pod import Pod, decode_pod
from ruleset.reading import CLUSTER
from ruleset.yaml_reading import load_yaml


def yaml_doc(text: str, file: str = "w.yaml") -> Any:
    """The one document of ``text``, as the manifest reader builds it (with line maps)."""
    return next(load_yaml(text, file, CLUSTER))


def node(name: str, labels: dict[str, str] | None = None, taints: list[dict[str, str]] | None = None,
         unschedulable: bool = False) -> Node:
    spec: dict[str, Any] = {"taints": taints or []}
    if unschedulable:
        spec["unschedulable"] = True
    ctx = DecodeContext()
    built = decode_node(ctx, {"metadata": {"name": name, "labels": labels or {}}, "spec": spec})
    assert not ctx.problems
    return built


def pod(raw: dict[str, Any]) -> Pod:
    ctx = DecodeContext()
    decoded = decode_pod(ctx, raw)
    assert not ctx.problems, ctx.problems
    return decoded


def plain(value: Any) -> Any:
    """``value`` as plain JSON data (LocatedDict and LocatedList compare equal anyway; this
    also makes failures readable)."""
    return json.loads(json.dumps(value))


def ref(api_version: str, kind: str, name: str, uid: str) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid, "controller": True,
            "blockOwnerDeletion": True}
