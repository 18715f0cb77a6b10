"""NodeAffinity's args (``NodeAffinityArgs`` of v1beta1, v1.20) and their validation, apart from the
plugin so that ``ruleset validate`` checks them without importing it (and numpy): the API types
are imported when an ``addedAffinity`` is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ruleset import ArgError, arg_field
from ruleset.gofmt import go_quote
from ruleset.plugins.node_affinity_terms import aggregate_message, preferred_terms, selector_terms
from ruleset.plugins.table import ArgsSpec

if TYPE_CHECKING:
    from ruleset.api.meta import LabelSelectorRequirement
    from ruleset.api.pod import NodeAffinity as NodeAffinitySpec
    from ruleset.api.pod import NodeSelectorTerm, PreferredSchedulingTerm


def _parse_affinity(raw: Any) -> NodeAffinitySpec:
    from ruleset.api.decode import DecodeContext
    from ruleset.api.pod import decode_node_affinity

    ctx = DecodeContext(subject="addedAffinity", api_checks=False)  # args, checked as NodeAffinityArgs
    affinity = decode_node_affinity(ctx, raw, "addedAffinity")
    if ctx.problems:
        raise ValueError("; ".join(f"{p.path}: {p.message}" if p.path else p.message for p in ctx.problems))
    return affinity


def _dump_requirements(requirements: Sequence[LabelSelectorRequirement]) -> list[dict[str, Any]]:
    return [{"key": r.key, "operator": r.operator, "values": list(r.values)} for r in requirements]


def _dump_term(term: NodeSelectorTerm) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if term.match_expressions:
        out["matchExpressions"] = _dump_requirements(term.match_expressions)
    if term.match_fields:
        out["matchFields"] = _dump_requirements(term.match_fields)
    return out


def _dump_affinity(affinity: NodeAffinitySpec) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if affinity.required is not None:
        out["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [_dump_term(t) for t in affinity.required]}
    if affinity.preferred:
        out["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": t.weight, "preference": _dump_term(t.preference)} for t in affinity.preferred]
    return out


# Go's %#v of the API values, for field.Invalid's "Invalid value: ..." (a value whose type has
# no String() method on the value receiver is printed with %#v). Empty lists print as nil:
# the decoded object cannot tell an absent list from an empty one.
def _go_strings(values: Sequence[str]) -> str:
    if not values:
        return "[]string(nil)"
    return "[]string{" + ", ".join(go_quote(v) for v in values) + "}"


def _go_requirements(requirements: Sequence[LabelSelectorRequirement]) -> str:
    if not requirements:
        return "[]v1.NodeSelectorRequirement(nil)"
    items = (f"v1.NodeSelectorRequirement{{Key:{go_quote(r.key)}, Operator:{go_quote(r.operator)}, "
             f"Values:{_go_strings(r.values)}}}" for r in requirements)
    return "[]v1.NodeSelectorRequirement{" + ", ".join(items) + "}"


def _go_term(term: NodeSelectorTerm) -> str:
    return (f"v1.NodeSelectorTerm{{MatchExpressions:{_go_requirements(term.match_expressions)}, "
            f"MatchFields:{_go_requirements(term.match_fields)}}}")


def go_node_selector(terms: Sequence[NodeSelectorTerm]) -> str:
    """``fmt.Sprintf("%#v", v1.NodeSelector{...})``."""
    inner = ("[]v1.NodeSelectorTerm{" + ", ".join(_go_term(t) for t in terms) + "}"
             if terms else "[]v1.NodeSelectorTerm(nil)")
    return f"v1.NodeSelector{{NodeSelectorTerms:{inner}}}"


def go_preferred_terms(terms: Sequence[PreferredSchedulingTerm]) -> str:
    """``fmt.Sprintf("%#v", []v1.PreferredSchedulingTerm{...})``."""
    items = (f"v1.PreferredSchedulingTerm{{Weight:{t.weight}, Preference:{_go_term(t.preference)}}}"
             for t in terms)
    return "[]v1.PreferredSchedulingTerm{" + ", ".join(items) + "}"


_REQUIREMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "key": {"type": "string", "description": "Label key (matchExpressions) or field (matchFields)."},
        "operator": {"type": "string",
                     "description": "In, NotIn, Exists, DoesNotExist, Gt or Lt (matchFields: In, NotIn)."},
        "values": {"type": "array", "items": {"type": "string"}, "default": [],
                   "description": "In/NotIn: the values to compare; Gt/Lt: one integer; Exists/DoesNotExist: "
                                  "none."},
    },
}
_TERM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "matchExpressions": {"type": "array", "items": _REQUIREMENT_SCHEMA, "default": [],
                             "description": "Node label requirements, ANDed."},
        "matchFields": {"type": "array", "items": _REQUIREMENT_SCHEMA, "default": [],
                        "description": "Node field requirements (only metadata.name), ANDed."},
    },
}
_NODE_AFFINITY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "type": "object",
            "additionalProperties": False,
            "description": "Every node must match one of these terms (Filter).",
            "properties": {"nodeSelectorTerms": {"type": "array", "items": _TERM_SCHEMA, "default": [],
                                                 "description": "ORed: a node must match one of them."}},
        },
        "preferredDuringSchedulingIgnoredDuringExecution": {
            "type": "array",
            "default": [],
            "description": "Weighted terms whose weights a matching node scores (Score).",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "weight": {"type": "integer", "default": 0,
                               "description": "Added to the score of a node matching the preference "
                                              "(0 skips the term)."},
                    "preference": {**_TERM_SCHEMA, "description": "The node selector term to match."},
                },
            },
        },
    },
}


@dataclass(frozen=True, slots=True)
class NodeAffinityArgs:
    """``NodeAffinityArgs`` of kubescheduler.config.k8s.io/v1beta1 (v1.20)."""

    # arg_field returns a dataclasses.field(), not a shared default value.
    added_affinity: NodeAffinitySpec | None = arg_field(  # noqa: RUF009
        "addedAffinity", None, parse=_parse_affinity, dump=_dump_affinity, schema=_NODE_AFFINITY_SCHEMA,
        description="A v1.NodeAffinity added to every pod's own; none by default.")


def validate_node_affinity_args(args: NodeAffinityArgs) -> list[ArgError]:
    """``ValidateNodeAffinityArgs`` of v1.20: one field.Invalid per part that does not parse."""
    affinity = args.added_affinity
    if affinity is None:
        return []
    errors = []
    if affinity.required is not None:
        problems = [t.error for t in selector_terms(affinity.required) if t.error is not None]
        if problems:
            path = ("addedAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
            errors.append(ArgError(path, f"{'.'.join(path)}: Invalid value: "
                                         f"{go_node_selector(affinity.required)}: "
                                         f"{aggregate_message(problems)}"))
    if affinity.preferred:
        problems = [t.error for _, t in preferred_terms(affinity.preferred) if t.error is not None]
        if problems:
            path = ("addedAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
            errors.append(ArgError(path, f"{'.'.join(path)}: Invalid value: "
                                         f"{go_preferred_terms(affinity.preferred)}: "
                                         f"{aggregate_message(problems)}"))
    return errors


NODE_AFFINITY_ARGS = ArgsSpec(NodeAffinityArgs, validate_args=validate_node_affinity_args)
