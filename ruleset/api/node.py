"""The Node as the scheduler sees it: labels, taints, allocatable resources, images."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruleset.api import resources as res
from ruleset.api.decode import (
    DecodeContext,
    get_bool,
    get_list,
    get_map,
    get_str,
    get_string_list,
)
from ruleset.api.meta import ObjectMeta, decode_meta
from ruleset.api.validation import check_labels, check_node_taints, decode_resource_list, get_int64
from ruleset.quantity import value_of


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str = ""
    effect: str = ""


@dataclass(frozen=True, slots=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int = 0


@dataclass(eq=False)
class Node:
    meta: ObjectMeta
    unschedulable: bool = False
    taints: tuple[Taint, ...] = ()
    #: ``framework.Resource`` of ``status.allocatable``: CPU in millicores, the rest in units.
    allocatable: dict[str, int] = field(default_factory=dict)
    allowed_pod_number: int = 0
    images: tuple[ContainerImage, ...] = ()

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def labels(self) -> dict[str, str]:
        return self.meta.labels

    def __repr__(self) -> str:
        return f"Node({self.name})"


def decode_node(ctx: DecodeContext, raw: Any) -> Node:
    """Decode a Node manifest; problems go to ``ctx``.

    The fields the scheduler reads are checked as ``ValidateNode`` checks them (see
    :mod:`ruleset.api.validation`): labels, taints (``validateNodeTaints``), and the
    quantities of ``status.capacity`` and ``status.allocatable`` (``ValidateNodeResources``).
    """
    meta = decode_meta(ctx, raw, namespaced=False, kind="Node")
    ctx.subject = f"Node {meta.name}" if meta.name else "Node"
    check_labels(ctx, raw.get("metadata") if isinstance(raw, dict) else None, "labels", "metadata.labels")
    spec = get_map(ctx, raw, "spec", "spec")
    status = get_map(ctx, raw, "status", "status")
    taints = []
    checked = []
    raw_taints = get_list(ctx, spec, "taints", "spec.taints")
    for i, t in enumerate(raw_taints):
        path = f"spec.taints[{i}]"
        if not isinstance(t, dict):
            ctx.fail(path, "expected an object", raw_taints, i)
            continue
        taint = Taint(
            key=get_str(ctx, t, "key", f"{path}.key"),
            value=get_str(ctx, t, "value", f"{path}.value"),
            effect=get_str(ctx, t, "effect", f"{path}.effect"),
        )
        taints.append(taint)
        checked.append((i, taint.key, taint.value, taint.effect))
    check_node_taints(ctx, checked, raw_taints, "spec.taints")
    # Hand-written snapshots often give only capacity; a live node always reports allocatable.
    # The API server validates both; the scheduler reads allocatable.
    capacity = decode_resource_list(ctx, status, "capacity", "status.capacity")
    if status.get("allocatable") is not None:
        quantities = decode_resource_list(ctx, status, "allocatable", "status.allocatable")
    else:
        quantities = capacity
    allocatable: dict[str, int] = {}
    res.add_into(allocatable, quantities)
    pods = value_of(quantities[res.PODS]) if res.PODS in quantities else 0
    images = []
    raw_images = get_list(ctx, status, "images", "status.images")
    for i, img in enumerate(raw_images):
        path = f"status.images[{i}]"
        if not isinstance(img, dict):
            ctx.fail(path, "expected an object", raw_images, i)
            continue
        images.append(ContainerImage(
            names=tuple(get_string_list(ctx, img, "names", f"{path}.names")),
            size_bytes=get_int64(ctx, img, "sizeBytes", f"{path}.sizeBytes", 0) or 0,
        ))
    return Node(
        meta=meta,
        unschedulable=get_bool(ctx, spec, "unschedulable", "spec.unschedulable"),
        taints=tuple(taints),
        allocatable=allocatable,
        allowed_pod_number=pods,
        images=tuple(images),
    )
