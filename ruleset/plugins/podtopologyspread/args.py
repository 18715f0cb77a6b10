"""PodTopologySpread's args (``PodTopologySpreadArgs`` of v1beta1), their defaulting and validation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ruleset import ArgError, arg_field
from ruleset.errors import format_path
from ruleset.gofmt import go_quote
from ruleset.plugins.table import ArgsSpec
from ruleset.selector import qualified_name_errors

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


@dataclass(frozen=True, slots=True)
class DefaultConstraint:
    """One ``defaultConstraints`` entry (a ``v1.TopologySpreadConstraint``).

    Omitted fields read as Go's zero values, which validation then rejects; a
    ``labelSelector`` is kept only to be rejected (defaults take the pod's DefaultSelector).
    """

    max_skew: int = 0
    topology_key: str = ""
    when_unsatisfiable: str = ""
    label_selector: dict[str, Any] | None = None


def _parse_constraints(raw: list[dict[str, Any]]) -> tuple[DefaultConstraint, ...]:
    return tuple(DefaultConstraint(max_skew=int(c.get("maxSkew", 0)),
                                   topology_key=str(c.get("topologyKey", "")),
                                   when_unsatisfiable=str(c.get("whenUnsatisfiable", "")),
                                   label_selector=c.get("labelSelector")) for c in raw)


def _dump_constraints(constraints: tuple[DefaultConstraint, ...]) -> list[dict[str, Any]]:
    out = []
    for c in constraints:
        entry: dict[str, Any] = {"maxSkew": c.max_skew, "topologyKey": c.topology_key,
                                 "whenUnsatisfiable": c.when_unsatisfiable}
        if c.label_selector is not None:
            entry["labelSelector"] = c.label_selector
        out.append(entry)
    return out


_CONSTRAINT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "maxSkew": {"type": "integer", "description": "How uneven the matching pods may be spread (> 0)."},
        "topologyKey": {"type": "string", "description": "Node label whose values are the topology domains."},
        "whenUnsatisfiable": {"type": "string",
                              "description": "DoNotSchedule (Filter) or ScheduleAnyway (Score)."},
        "labelSelector": {"type": "object",
                          "description": "Not allowed: default constraints select the pod's own workload."},
    },
}


@dataclass(frozen=True, slots=True)
class PodTopologySpreadArgs:
    """``PodTopologySpreadArgs`` of kubescheduler.config.k8s.io/v1beta1, defaulted as v1.20 does."""

    default_constraints: tuple[DefaultConstraint, ...] = arg_field(
        "defaultConstraints", (), parse=_parse_constraints, dump=_dump_constraints,
        schema={"type": "array", "items": _CONSTRAINT_SCHEMA},
        description="Constraints for pods that declare none (defaultingType List).")
    defaulting_type: str = arg_field(
        "defaultingType", "", schema={"type": "string"},
        description="System (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) or List "
                    "(defaultConstraints); empty means List when defaultConstraints are given, else System.")

    def __post_init__(self) -> None:
        # SetDefaults_PodTopologySpreadArgs with the DefaultPodTopologySpread gate on (beta in v1.20).
        if self.defaulting_type == "":
            object.__setattr__(self, "defaulting_type",
                               LIST_DEFAULTING if self.default_constraints else SYSTEM_DEFAULTING)


#: ``systemDefaultConstraints`` of v1.20's plugin.go.
SYSTEM_DEFAULT_CONSTRAINTS = (
    DefaultConstraint(max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY),
    DefaultConstraint(max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY),
)


def _field_error(path: tuple[str | int, ...], kind: str, value: str | int | None, detail: str) -> ArgError:
    """A ``field.Error`` as ``Error()`` prints it: ``<path>: <type>[: <value>][: <detail>]``.

    Strings (and Go named string types, printed with ``%#v``) are quoted; integers are not;
    Required and Forbidden print no value.
    """
    text = f"{format_path(path)}: {kind}"
    if value is not None:
        text += f": {go_quote(value) if isinstance(value, str) else value}"
    if detail:
        text += f": {detail}"
    return ArgError(path, text)


def validate_pod_topology_spread_args(args: PodTopologySpreadArgs) -> list[ArgError]:
    """``ValidatePodTopologySpreadArgs`` of v1.20: every error, in upstream's order, duplicates dropped.

    Upstream returns them as one aggregate (``[e1, e2]`` for several); each is a separate
    problem here, with the same text.
    """
    errors: list[ArgError] = []
    kind = args.defaulting_type
    if kind not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        choices = f"{go_quote(SYSTEM_DEFAULTING)}, {go_quote(LIST_DEFAULTING)}"
        errors.append(_field_error(("defaultingType",), "Invalid value", kind,
                                   f"must be one of {{{choices}}}"))
    elif kind == SYSTEM_DEFAULTING and args.default_constraints:
        errors.append(_field_error(("defaultingType",), "Invalid value", kind,
                                   "when .defaultConstraints are not empty"))
    constraints = args.default_constraints
    for i, c in enumerate(constraints):
        if c.max_skew <= 0:
            errors.append(_field_error(("defaultConstraints", i, "maxSkew"), "Invalid value", c.max_skew,
                                       "must be greater than zero"))
        key_path = ("defaultConstraints", i, "topologyKey")
        if not c.topology_key:
            errors.append(_field_error(key_path, "Required value", None, "can not be empty"))
        else:
            errors.extend(_field_error(key_path, "Invalid value", c.topology_key, msg)
                          for msg in qualified_name_errors(c.topology_key))
        action_path = ("defaultConstraints", i, "whenUnsatisfiable")
        if not c.when_unsatisfiable:
            errors.append(_field_error(action_path, "Required value", None, "can not be empty"))
        elif c.when_unsatisfiable not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            supported = f"{go_quote(DO_NOT_SCHEDULE)}, {go_quote(SCHEDULE_ANYWAY)}"
            errors.append(_field_error(action_path, "Unsupported value", c.when_unsatisfiable,
                                       f"supported values: {supported}"))
        if c.label_selector is not None:
            errors.append(_field_error(("defaultConstraints", i, "labelSelector"), "Forbidden", None,
                                       "constraint must not define a selector, as they deduced for each pod"))
        for other in constraints[:i]:
            if (other.topology_key, other.when_unsatisfiable) == (c.topology_key, c.when_unsatisfiable):
                errors.append(_field_error(("defaultConstraints", i), "Duplicate value",
                                           f"{{{c.topology_key}, {c.when_unsatisfiable}}}", ""))
                break
    seen: set[str] = set()
    unique = []
    for error in errors:  # field.ErrorList.ToAggregate drops repeated messages
        if error.message not in seen:
            seen.add(error.message)
            unique.append(error)
    return unique


POD_TOPOLOGY_SPREAD_ARGS = ArgsSpec(PodTopologySpreadArgs, validate_args=validate_pod_topology_spread_args)
