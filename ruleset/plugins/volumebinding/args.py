"""VolumeBinding's args (``VolumeBindingArgs`` of v1beta1) and their validation, apart from the plugin
so that ``ruleset validate`` checks them without importing the binder (and numpy)."""

from __future__ import annotations

from dataclasses import dataclass

from ruleset import ArgError, Target, arg_field, switch
from ruleset.plugins.table import ArgsSpec

DEFAULT_BIND_TIMEOUT_SECONDS = 600
#: The gates under which VolumeBinding scores; alpha and off by default in every release ruleset models.
SCORING_GATES = ("VolumeCapacityPriority", "StorageCapacityScoring")
BIND_TIMEOUT_ZERO = switch(
    "VolumeBinding.bind-timeout-validation", "1.21",
    "bindTimeoutSeconds may be 0 (only a negative value is refused, by ValidateVolumeBindingArgs); before, "
    "the plugin refused anything not positive",
    "pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidateVolumeBindingArgs)")


@dataclass(frozen=True, slots=True)
class VolumeBindingArgs:
    """``VolumeBindingArgs`` of kubescheduler.config.k8s.io/v1beta1."""

    bind_timeout_seconds: int = arg_field(
        "bindTimeoutSeconds", DEFAULT_BIND_TIMEOUT_SECONDS, schema={"type": "integer"},
        description="Seconds PreBind waits for the volumes to be bound (a simulation never waits; from 1.21 "
                    "0 is allowed, before it must be positive).")


def validate_args_for(args: VolumeBindingArgs, target: Target) -> list[ArgError]:
    """v1.20's ``validateArgs`` (at plugin construction: positive), from 1.21
    ``ValidateVolumeBindingArgs`` (not negative)."""
    seconds = args.bind_timeout_seconds
    if target.has(BIND_TIMEOUT_ZERO):
        if seconds < 0:
            return [ArgError(("bindTimeoutSeconds",),
                             f"bindTimeoutSeconds: Invalid value: {seconds}: "
                             f"invalid BindTimeoutSeconds, should not be a negative value")]
        return []
    if seconds <= 0:
        return [ArgError(("bindTimeoutSeconds",),
                         f"invalid BindTimeoutSeconds: {seconds}, must be positive integer")]
    return []


def constructor_refuses(target: Target) -> bool:
    """Whether the plugin refuses to be built at ``target``: with a scoring gate on (not modelled)."""
    return any(target.gate(gate) for gate in SCORING_GATES)


VOLUME_BINDING_ARGS = ArgsSpec(VolumeBindingArgs, validate_args_for=validate_args_for,
                               constructor_refuses=constructor_refuses)
