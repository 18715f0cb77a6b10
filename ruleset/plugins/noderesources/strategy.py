"""NodeResourcesFit's ``scoringStrategy`` arg (KubeSchedulerConfiguration v1beta2 on, Kubernetes 1.22 on).

Spelled as v1 spells it::

    scoringStrategy = { type = "MostAllocated", resources = [{ name = "cpu", weight = 1 }],
                        requestedToCapacityRatio = { shape = [{ utilization = 0, score = 0 }] } }

Defaulting (``SetDefaults_NodeResourcesFitArgs``): no ``scoringStrategy`` means LeastAllocated
over cpu and memory, weight 1; an empty ``resources`` means cpu and memory; a weight left out
or 0 means 1. Validation is ``ValidateNodeResourcesFitArgs`` of v1.34, every error reported,
with upstream's paths (the shape's errors under ``scoringStrategy.shape``, as upstream writes them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ruleset import MAX_NODE_SCORE, ArgError
from ruleset.errors import format_path
from ruleset.gofmt import go_quote
from ruleset.plugins.noderesources.resource_args import (
    DEFAULT_RESOURCE_SPECS,
    MAX_CUSTOM_PRIORITY_SCORE,
    RESOURCES_SCHEMA,
    SHAPE_SCHEMA,
    ResourceSpec,
    UtilizationShapePoint,
    dump_resources,
    dump_shape,
    parse_defaulted_resources,
    parse_shape,
)

if TYPE_CHECKING:
    import numpy as np

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGY_TYPES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)


@dataclass(frozen=True, slots=True)
class ScoringStrategy:
    """``config.ScoringStrategy``; ``shape`` is ``requestedToCapacityRatio.shape`` (None: not given)."""

    type: str = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCE_SPECS
    shape: tuple[UtilizationShapePoint, ...] | None = None


#: What a 1.22+ profile without ``scoringStrategy`` runs.
DEFAULT_STRATEGY = ScoringStrategy()


def parse_strategy(raw: dict) -> ScoringStrategy:
    ratio = raw.get("requestedToCapacityRatio")
    shape = parse_shape(ratio.get("shape") or []) if isinstance(ratio, dict) else None
    return ScoringStrategy(str(raw.get("type", "")), parse_defaulted_resources(raw.get("resources")), shape)


def dump_strategy(strategy: ScoringStrategy) -> dict[str, Any]:
    out: dict[str, Any] = {"type": strategy.type, "resources": dump_resources(strategy.resources)}
    if strategy.shape is not None:
        out["requestedToCapacityRatio"] = {"shape": dump_shape(strategy.shape)}
    return out


STRATEGY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "type": {
            "type": "string",
            "description": "LeastAllocated, MostAllocated or RequestedToCapacityRatio.",
        },
        "resources": {
            **RESOURCES_SCHEMA,
            "description": "Resources scored and their weights (1..100); "
            "cpu and memory, weight 1, when empty.",
        },
        "requestedToCapacityRatio": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"shape": {**SHAPE_SCHEMA, "description": "RequestedToCapacityRatio's curve."}},
        },
    },
}


def _invalid(path: tuple, value: Any, detail: str) -> str:
    shown = go_quote(value) if isinstance(value, str) else str(value)
    return f"{format_path(path)}: Invalid value: {shown}: {detail}"


def validate_shape(shape: tuple[UtilizationShapePoint, ...], at: tuple, shown: tuple) -> list[ArgError]:
    """``validateFunctionShape`` (v1.22 on): sortedness (first unsorted point), then each range."""
    if not shape:
        return [ArgError(at, f"{format_path(shown)}: Required value: at least one point must be specified")]
    errors = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errors.append(
                ArgError(
                    (*at, i, "utilization"),
                    _invalid(
                        (*shown, i, "utilization"),
                        shape[i].utilization,
                        "values must be sorted in increasing order",
                    ),
                )
            )
            break
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= 100:
            errors.append(
                ArgError(
                    (*at, i, "utilization"),
                    _invalid((*shown, i, "utilization"), point.utilization, "not in valid range [0, 100]"),
                )
            )
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            errors.append(
                ArgError(
                    (*at, i, "score"),
                    _invalid(
                        (*shown, i, "score"),
                        point.score,
                        f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]",
                    ),
                )
            )
    return errors


def validate_resources(resources: tuple[ResourceSpec, ...], at: tuple) -> list[ArgError]:
    """``validateResources`` (v1.22 on): every weight in (0, 100]."""
    return [
        ArgError(
            (*at, i, "weight"),
            _invalid(
                (*at, i, "weight"), spec.weight, f"resource weight of {spec.name} not in valid range (0, 100]"
            ),
        )
        for i, spec in enumerate(resources)
        if not 0 < spec.weight <= 100
    ]


def validate_strategy(strategy: ScoringStrategy) -> list[ArgError]:
    """The ``scoringStrategy`` part of ``ValidateNodeResourcesFitArgs``."""
    errors = []
    at = ("scoringStrategy",)
    if strategy.type not in STRATEGY_TYPES:
        supported = ", ".join(go_quote(t) for t in STRATEGY_TYPES)
        errors.append(
            ArgError(
                (*at, "type"),
                f"scoringStrategy.type: Unsupported value: {go_quote(strategy.type)}: "
                f"supported values: {supported}",
            )
        )
    errors.extend(validate_resources(strategy.resources, (*at, "resources")))
    if strategy.shape is not None:
        errors.extend(
            validate_shape(strategy.shape, (*at, "requestedToCapacityRatio", "shape"), (*at, "shape"))
        )
    elif strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        # Upstream validation lets this through and NewFit then dereferences the nil pointer.
        errors.append(
            ArgError(
                at,
                "scoringStrategy.requestedToCapacityRatio: Required value: type "
                "RequestedToCapacityRatio needs a shape (kube-scheduler crashes without one)",
            )
        )
    return errors


def shape_arrays(shape: tuple[UtilizationShapePoint, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The shape's points and scores, scores scaled from 0..10 to 0..100."""
    import numpy as np  # here: the args (ruleset validate) need no numpy

    points = np.array([p.utilization for p in shape], dtype=np.int64)
    scores = np.array(
        [p.score * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE) for p in shape], dtype=np.int64
    )
    return points, scores
