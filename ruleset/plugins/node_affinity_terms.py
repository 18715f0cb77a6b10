"""Node selector terms parsed as v1.20's ``nodeaffinity`` package parses them, without numpy: what
NodeAffinity (and VolumeBinding) match nodes with, and what checking NodeAffinity's args
(:mod:`ruleset.plugins.node_affinity_args`) reports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from ruleset.gofmt import go_quote
from ruleset.selector import (
    Selector,
    SelectorError,
    from_node_selector_requirements,
    is_empty_node_selector_term,
)

if TYPE_CHECKING:
    from ruleset.api.meta import LabelSelectorRequirement
    from ruleset.api.pod import NodeSelectorTerm, PreferredSchedulingTerm


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    """One matchFields entry: ``fields.OneTermEqualSelector`` (In) or ``OneTermNotEqualSelector``."""

    key: str
    value: str
    negated: bool


@dataclass(frozen=True, slots=True)
class ParsedTerm:
    """``nodeSelectorTerm``: label selector (None: no matchExpressions), fields, parse error."""

    labels: Selector | None
    fields: tuple[FieldRequirement, ...] | None
    error: str | None = None


def _field_requirements(requirements: Sequence[LabelSelectorRequirement]) -> tuple[FieldRequirement, ...]:
    """``nodeSelectorRequirementsAsFieldSelector`` of v1.20: the first problem raises."""
    out = []
    for expr in requirements:
        if expr.operator not in ("In", "NotIn"):
            raise SelectorError(f"{go_quote(expr.operator)} is not a valid node field selector operator")
        if len(expr.values) != 1:
            raise SelectorError(f"unexpected number of value ({len(expr.values)}) for node field selector "
                                f"operator {go_quote(expr.operator)}")
        out.append(FieldRequirement(expr.key, expr.values[0], expr.operator == "NotIn"))
    return tuple(out)


@lru_cache(maxsize=4096)
def parse_term(term: NodeSelectorTerm) -> ParsedTerm:
    """``newNodeSelectorTerm`` of v1.20: the labels are parsed first; their error wins."""
    labels = None
    if term.match_expressions:
        try:
            labels = from_node_selector_requirements(term.match_expressions)
        except SelectorError as exc:
            return ParsedTerm(None, None, str(exc))
    fields = None
    if term.match_fields:
        try:
            fields = _field_requirements(term.match_fields)
        except SelectorError as exc:
            return ParsedTerm(labels, None, str(exc))
    return ParsedTerm(labels, fields)


def aggregate_message(errors: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message, or ``[a, b]`` without duplicates."""
    unique = list(dict.fromkeys(errors))
    if len(errors) == 1 or len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


def selector_terms(terms: Sequence[NodeSelectorTerm]) -> list[ParsedTerm]:
    """The non-empty terms of a node selector, parsed (``LazyErrorNodeSelector``'s)."""
    return [parse_term(t) for t in terms if not is_empty_node_selector_term(t)]


def preferred_terms(terms: Sequence[PreferredSchedulingTerm]) -> list[tuple[int, ParsedTerm]]:
    """``PreferredSchedulingTerms``' terms and weights, parsed; zero weights and empty terms skipped."""
    return [(t.weight, parse_term(t.preference)) for t in terms
            if t.weight != 0 and not is_empty_node_selector_term(t.preference)]
