"""Args of the node resources plugins and their validation, apart from the plugins so that ``ruleset
validate`` reads them without importing the scoring code (and numpy): ``NodeResourcesFitArgs`` (its
``scoringStrategy`` in :mod:`.strategy`) and ``NodeResourcesBalancedAllocationArgs``; the
``resources`` and ``shape`` args the scorers share are in :mod:`.resource_args`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ruleset import ArgError, Target, arg_field, switch
from ruleset.errors import format_path
from ruleset.gofmt import go_quote
from ruleset.plugins.noderesources.resource_args import (
    DEFAULT_RESOURCE_SPECS,
    RESOURCES_SCHEMA,
    ResourceSpec,
    dump_resources,
    parse_defaulted_resources,
)
from ruleset.plugins.noderesources.strategy import (
    DEFAULT_STRATEGY,
    STRATEGY_SCHEMA,
    ScoringStrategy,
    dump_strategy,
    parse_strategy,
    validate_strategy,
)
from ruleset.plugins.table import ArgsSpec
from ruleset.selector import qualified_name_errors

# ------------------------------------------------------------------------------ NodeResourcesFit
_FIT_REF = "pkg/scheduler/framework/plugins/noderesources/fit.go"
#: Declared as :mod:`.fit` declares it (a switch declared twice must be declared alike).
FIT_SCORE = switch("NodeResourcesFit.score", "1.22",
                   "NodeResourcesFit scores by args.scoringStrategy (LeastAllocated by default)", _FIT_REF)


@dataclass(frozen=True, slots=True)
class NodeResourcesFitArgs:
    """``NodeResourcesFitArgs`` of kubescheduler.config.k8s.io/v1beta1."""

    ignored_resources: tuple[str, ...] = arg_field(
        "ignoredResources", (), schema={"type": "array", "items": {"type": "string"}},
        description="Extended resources this plugin does not check.")
    ignored_resource_groups: tuple[str, ...] = arg_field(
        "ignoredResourceGroups", (), schema={"type": "array", "items": {"type": "string"}},
        description="Extended-resource domains (before '/') not checked.")
    scoring_strategy: ScoringStrategy | None = arg_field(  # noqa: RUF009 - an arg_field, as the others
        "scoringStrategy", None, parse=parse_strategy, dump=dump_strategy, schema=STRATEGY_SCHEMA,
        description="Kubernetes 1.22 on: how the plugin scores (default LeastAllocated over cpu and memory).")


def _invalid(path: tuple, value: str, detail: str) -> ArgError:
    return ArgError(path, f"{format_path(path)}: Invalid value: {go_quote(value)}: {detail}")


def validate_fit_args(args: NodeResourcesFitArgs) -> list[ArgError]:
    """``validateFitArgs`` (v1.20 fit.go): qualified names; groups without '/'; every error;
    and (1.22 on) ``scoringStrategy`` as ``ValidateNodeResourcesFitArgs`` checks it."""
    errors: list[ArgError] = []
    for i, name in enumerate(args.ignored_resources):
        errors.extend(_invalid(("ignoredResources", i), name, msg) for msg in qualified_name_errors(name))
    for i, group in enumerate(args.ignored_resource_groups):
        path = ("ignoredResourceGroups", i)
        if "/" in group:
            errors.append(_invalid(path, group, "resource group name can't contain '/'"))
        errors.extend(_invalid(path, group, msg) for msg in qualified_name_errors(group))
    if args.scoring_strategy is not None:
        errors.extend(validate_strategy(args.scoring_strategy))
    return errors


def validate_fit_args_for(args: NodeResourcesFitArgs, target: Target) -> list[ArgError]:
    """What :func:`validate_fit_args` cannot know: ``scoringStrategy`` is refused before 1.22."""
    if args.scoring_strategy is not None and not target.has(FIT_SCORE):
        return [ArgError(("scoringStrategy",), f"scoringStrategy is not in Kubernetes {target.version}: "
                                               f"NodeResourcesFit scores from 1.22 on",
                         code="arg-not-in-release")]
    return []


def fit_defaults_for(target: Target) -> dict[str, Any]:
    """The release's defaults of args the v1.20 dataclass does not default (camelCase, as a
    profile would write them): ``scoringStrategy`` from 1.22."""
    return {"scoringStrategy": dump_strategy(DEFAULT_STRATEGY)} if target.has(FIT_SCORE) else {}


def fit_args_not_in(target: Target) -> frozenset[str]:
    """The args the target release does not have (``show`` leaves them out)."""
    return frozenset() if target.has(FIT_SCORE) else frozenset({"scoringStrategy"})


FIT_ARGS = ArgsSpec(NodeResourcesFitArgs, validate_args=validate_fit_args,
                    validate_args_for=validate_fit_args_for, defaults_for=fit_defaults_for,
                    args_not_in=fit_args_not_in)

# --------------------------------------------------------------- NodeResourcesBalancedAllocation
STD_DEV = switch("NodeResourcesBalancedAllocation.standard-deviation", "1.22",
                 "standard deviation of the fractions over args.resources (two: (1 - |f1 - f2| / 2) * 100, "
                 "fractions capped at 1, resources a node lacks skipped; the cap, kubernetes#102925, was "
                 "back-ported to 1.21 patch releases)",
                 "pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go")


@dataclass(frozen=True, slots=True)
class NodeResourcesBalancedAllocationArgs:
    """``balanceAttachedNodeVolumes``: upstream's BalanceAttachedNodeVolumes feature gate, as an arg."""

    balance_attached_node_volumes: bool = arg_field(
        "balanceAttachedNodeVolumes", False, schema={"type": "boolean"},
        description="Kubernetes 1.20/1.21: include the attachable-volume fraction (variance of three "
                    "fractions).")
    resources: tuple[ResourceSpec, ...] | None = arg_field(
        "resources", None, parse=parse_defaulted_resources, dump=dump_resources, schema=RESOURCES_SCHEMA,
        description="Kubernetes 1.22 on: resources balanced (weights must be 1); cpu and memory when empty.")


def balanced_allocation_defaults_for(target: Target) -> dict[str, Any]:
    """The release's defaults the v1.20 dataclass lacks: ``resources`` from 1.22."""
    return {"resources": dump_resources(DEFAULT_RESOURCE_SPECS)} if target.has(STD_DEV) else {}


def validate_balanced_allocation_args(args: NodeResourcesBalancedAllocationArgs) -> list[ArgError]:
    """``ValidateNodeResourcesBalancedAllocationArgs`` (1.22 on): no repeated name, weights 1."""
    errors, seen = [], set()
    for i, spec in enumerate(args.resources or ()):
        if spec.name in seen:
            errors.append(ArgError(("resources", i, "name"),
                                   f"resources[{i}].name: Duplicate value: {go_quote(spec.name)}"))
        seen.add(spec.name)
        if spec.weight != 1:
            errors.append(ArgError(("resources", i, "weight"),
                                   f"resources[{i}].weight: Invalid value: {spec.weight}: must be 1"))
    return errors


def balanced_allocation_args_not_in(target: Target) -> frozenset[str]:
    """The args the target release does not have (``show`` leaves them out)."""
    return frozenset({"balanceAttachedNodeVolumes"} if target.has(STD_DEV) else {"resources"})


def validate_balanced_allocation_args_for(args: NodeResourcesBalancedAllocationArgs,
                                          target: Target) -> list[ArgError]:
    """Args the target release does not have: ``resources`` before 1.22, the volume gate after."""
    if args.resources is not None and not target.has(STD_DEV):
        return [ArgError(("resources",), f"resources is not in Kubernetes {target.version}: it came in "
                                         f"1.22", code="arg-not-in-release")]
    if args.balance_attached_node_volumes and target.has(STD_DEV):
        return [ArgError(("balanceAttachedNodeVolumes",),
                         f"balanceAttachedNodeVolumes is not in Kubernetes {target.version}: the "
                         f"BalanceAttachedNodeVolumes feature gate was removed in 1.22",
                         code="arg-not-in-release")]
    return []


BALANCED_ALLOCATION_ARGS = ArgsSpec(
    NodeResourcesBalancedAllocationArgs, validate_args=validate_balanced_allocation_args,
    validate_args_for=validate_balanced_allocation_args_for, defaults_for=balanced_allocation_defaults_for,
    args_not_in=balanced_allocation_args_not_in)
