"""DefaultPreemption's args (``DefaultPreemptionArgs`` of v1beta1) and their validation, apart from the
plugin so that ``ruleset validate`` checks them without importing the preemption code (and numpy)."""

from __future__ import annotations

from dataclasses import dataclass

from ruleset import ArgError, arg_field
from ruleset.plugins.table import ArgsSpec


@dataclass(frozen=True, slots=True)
class DefaultPreemptionArgs:
    """``DefaultPreemptionArgs`` of kubescheduler.config.k8s.io/v1beta1."""

    min_candidate_nodes_percentage: int = arg_field(
        "minCandidateNodesPercentage", 10, schema={"type": "integer"},
        description="Dry-run at least this percentage of the candidate nodes (0-100).")
    min_candidate_nodes_absolute: int = arg_field(
        "minCandidateNodesAbsolute", 100, schema={"type": "integer"},
        description="Dry-run at least this many candidate nodes.")


def validate_args(args: DefaultPreemptionArgs) -> list[ArgError]:
    """``ValidateDefaultPreemptionArgs`` (v1.20): the first problem only."""
    if not 0 <= args.min_candidate_nodes_percentage <= 100:
        return [ArgError(("minCandidateNodesPercentage",),
                         "minCandidateNodesPercentage is not in the range [0, 100]")]
    if args.min_candidate_nodes_absolute < 0:
        return [ArgError(("minCandidateNodesAbsolute",),
                         "minCandidateNodesAbsolute is not in the range [0, inf)")]
    if args.min_candidate_nodes_percentage == 0 and args.min_candidate_nodes_absolute == 0:
        return [ArgError(("minCandidateNodesPercentage",),
                         "both minCandidateNodesPercentage and minCandidateNodesAbsolute cannot be zero")]
    return []

DEFAULT_PREEMPTION_ARGS = ArgsSpec(DefaultPreemptionArgs, validate_args=validate_args)
