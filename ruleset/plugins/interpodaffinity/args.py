"""InterPodAffinity's args (``InterPodAffinityArgs`` of v1beta1) and their validation, apart from the
plugin so that ``ruleset validate`` checks them without importing the plugin (and numpy)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ruleset import ArgError, Target, arg_field
from ruleset.plugins.table import ArgsSpec

MIN_HARD_POD_AFFINITY_WEIGHT = 0
MAX_HARD_POD_AFFINITY_WEIGHT = 100
IGNORE_PREFERRED = "ignorePreferredTermsOfExistingPods"
#: The release whose InterPodAffinityArgs gained ignorePreferredTermsOfExistingPods (kubernetes#114393).
IGNORE_PREFERRED_SINCE = "1.27"


@dataclass(frozen=True, slots=True)
class InterPodAffinityArgs:
    """``InterPodAffinityArgs`` of kubescheduler.config.k8s.io/v1beta1."""

    hard_pod_affinity_weight: int = arg_field(
        "hardPodAffinityWeight", 1, schema={"type": "integer"},
        description="Score weight of each required affinity term of an existing pod that the incoming pod "
                    "matches (0-100; 0 ignores those terms when scoring).")
    # None: not written (Kubernetes 1.20-1.26 have no such arg; from 1.27 it defaults to false,
    # see ``defaults_for``).
    ignore_preferred_terms_of_existing_pods: bool | None = arg_field(
        IGNORE_PREFERRED, None, schema={"type": "boolean"},
        description="Kubernetes 1.27 on: when the incoming pod has no preferred (anti-)affinity terms, "
                    "InterPodAffinity does not score it at all (existing pods' terms are not looked at).")


def validate_args(args: InterPodAffinityArgs) -> list[ArgError]:
    """``ValidateInterPodAffinityArgs`` (v1.20)."""
    weight = args.hard_pod_affinity_weight
    if not MIN_HARD_POD_AFFINITY_WEIGHT <= weight <= MAX_HARD_POD_AFFINITY_WEIGHT:
        return [ArgError(("hardPodAffinityWeight",),
                         f"hardPodAffinityWeight: Invalid value: {weight}: not in valid range "
                         f"[{MIN_HARD_POD_AFFINITY_WEIGHT}-{MAX_HARD_POD_AFFINITY_WEIGHT}]")]
    return []


def defaults_for(target: Target) -> dict[str, Any]:
    """The release's defaults the v1.20 dataclass lacks: ``ignorePreferredTermsOfExistingPods``
    (false) from 1.27."""
    return {IGNORE_PREFERRED: False} if target.at_least(IGNORE_PREFERRED_SINCE) else {}


def args_not_in(target: Target) -> frozenset[str]:
    """The args the target release does not have (``show`` leaves them out)."""
    return frozenset() if target.at_least(IGNORE_PREFERRED_SINCE) else frozenset({IGNORE_PREFERRED})


def validate_args_for(args: InterPodAffinityArgs, target: Target) -> list[ArgError]:
    """``ignorePreferredTermsOfExistingPods`` (either value) is refused before 1.27."""
    if args.ignore_preferred_terms_of_existing_pods is None or target.at_least(IGNORE_PREFERRED_SINCE):
        return []
    message = f"{IGNORE_PREFERRED} is not in Kubernetes {target.version}: "
    message += f"it came in {IGNORE_PREFERRED_SINCE}"
    return [ArgError((IGNORE_PREFERRED,), message, code="arg-not-in-release")]


INTER_POD_AFFINITY_ARGS = ArgsSpec(InterPodAffinityArgs, validate_args=validate_args,
                                   validate_args_for=validate_args_for, defaults_for=defaults_for,
                                   args_not_in=args_not_in)
