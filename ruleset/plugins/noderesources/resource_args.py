"""The ``resources`` and ``shape`` args the node resources scorers share, without numpy (``ruleset
validate`` reads them through :mod:`.args` and :mod:`.strategy`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_RESOURCES = (("cpu", 1), ("memory", 1))
#: ``config.MaxCustomPriorityScore``: shape scores are given on 0..10.
MAX_CUSTOM_PRIORITY_SCORE = 10


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    """``config.ResourceSpec``: a resource name and its weight."""

    name: str
    weight: int


def parse_resources(raw: list[dict]) -> tuple[ResourceSpec, ...]:
    # An omitted weight is Go's zero value, which validation then rejects.
    return tuple(ResourceSpec(str(r["name"]), int(r.get("weight", 0))) for r in raw)


def dump_resources(specs: tuple[ResourceSpec, ...]) -> list[dict]:
    return [{"name": s.name, "weight": s.weight} for s in specs]


#: The JSON Schema of a ``resources`` arg.
RESOURCES_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "minLength": 1,
                     "description": "Resource name: cpu, memory, ephemeral-storage or a scalar resource."},
            "weight": {"type": "integer", "default": 0,
                       "description": "Weight in the average; an omitted weight is 0, which is rejected."},
        },
    },
}
RESOURCES_DESCRIPTION = "Resources to score and their weights; cpu and memory with weight 1 when empty."
#: The ``resources`` arg when none is given (an empty list means the same).
DEFAULT_RESOURCE_SPECS = tuple(ResourceSpec(n, w) for n, w in DEFAULT_RESOURCES)


def with_default_resources(specs: tuple[ResourceSpec, ...]) -> tuple[ResourceSpec, ...]:
    """v1beta1 defaulting: an empty list means cpu and memory, weight 1."""
    return specs or DEFAULT_RESOURCE_SPECS


def parse_resources_defaulted(raw: list[dict]) -> tuple[ResourceSpec, ...]:
    return with_default_resources(parse_resources(raw))


def parse_defaulted_resources(raw: list[dict] | None) -> tuple[ResourceSpec, ...]:
    """v1beta2+/v1 defaulting of a ``resources`` list: empty -> cpu and memory; weight 0 -> 1."""
    if not raw:
        return DEFAULT_RESOURCE_SPECS
    return tuple(ResourceSpec(str(r["name"]), int(r.get("weight", 0)) or 1) for r in raw)


@dataclass(frozen=True, slots=True)
class UtilizationShapePoint:
    """``config.UtilizationShapePoint``."""

    utilization: int
    score: int


def parse_shape(raw: list[dict]) -> tuple[UtilizationShapePoint, ...]:
    # Omitted fields are Go's zero values.
    return tuple(UtilizationShapePoint(int(p.get("utilization", 0)), int(p.get("score", 0))) for p in raw)


def dump_shape(shape: tuple[UtilizationShapePoint, ...]) -> list[dict]:
    return [{"utilization": p.utilization, "score": p.score} for p in shape]


SHAPE_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "utilization": {"type": "integer", "default": 0,
                            "description": "Utilization in percent, 0..100."},
            "score": {"type": "integer", "default": 0, "description": "Score at that utilization, 0..10."},
        },
    },
}
