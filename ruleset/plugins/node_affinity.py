"""NodeAffinity (Filter, Score, NormalizeScore): the pod's nodeSelector and node affinity.

``nodeaffinity/node_affinity.go`` with ``component-helpers/scheduling/corev1/nodeaffinity``
of v1.20.

Filter, in this order, both UnschedulableAndUnresolvable:

1. ``addedAffinity.requiredDuringSchedulingIgnoredDuringExecution`` (the plugin arg) must
   match, else ``node(s) didn't match scheduler-enforced node affinity``;
2. every ``spec.nodeSelector`` key=value must be a node label, and
3. ``requiredDuringSchedulingIgnoredDuringExecution`` of the pod, when set, must match,
   else ``node(s) didn't match Pod's node affinity``.

A node selector is the OR of its terms. A term with neither matchExpressions nor
matchFields is skipped, so a list of only empty terms (or no terms) matches nothing. In a
term the matchExpressions (In, NotIn, Exists, DoesNotExist, Gt, Lt) and the matchFields
are ANDed. matchFields take In or NotIn with exactly one value, compared with the node's
fields, of which only ``metadata.name`` exists (any other key reads as ""). A term that
does not parse never matches (the pod's parse errors are otherwise ignored).

Score: Σ weight of the matching preferred terms, the pod's and ``addedAffinity``'s; terms
with weight 0 or an empty preference are skipped. A pod whose preferred terms do not parse
fails the cycle with an Error, as upstream. NormalizeScore is
``DefaultNormalizeScore(100, reverse=false)``: ``100 * score / max`` (integer division).

Args: ``addedAffinity``, a ``v1.NodeAffinity``, validated like ``ValidateNodeAffinityArgs``
of v1.20 (``addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: Invalid value:
<the value, Go %#v>: <parse errors>``). Everything is evaluated for all candidate nodes at
once: label terms with :meth:`~ruleset.selector.Selector.match_table` over the node label
table, ``metadata.name`` fields by node index. No Go map is iterated here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ruleset import MAX_NODE_SCORE, ArgError, Code, FilterResult, NodeSet, Plugin, arg_field, hookimpl
from ruleset.api.decode import DecodeContext
from ruleset.api.meta import LabelSelectorRequirement
from ruleset.api.pod import NodeAffinity as NodeAffinitySpec
from ruleset.api.pod import NodeSelectorTerm, Pod, PreferredSchedulingTerm, decode_node_affinity
from ruleset.gofmt import go_quote
from ruleset.plugins.helper.normalize import default_normalize_score
from ruleset.selector import (
    Selector,
    SelectorError,
    from_node_selector_requirements,
    from_set,
    is_empty_node_selector_term,
)

NAME = "NodeAffinity"
#: ``ErrReasonPod`` of v1.20 (later versions append "/selector").
ERR_REASON_POD = "node(s) didn't match Pod's node affinity"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
#: The only field a node has for matchFields (``extractNodeFields``).
NODE_NAME_FIELD = "metadata.name"


class NodeAffinityError(Exception):
    """The pod's preferred terms do not parse (upstream fails Score with this text)."""


# ---------------------------------------------------------------------------------------------
# Parsed node selector terms
# ---------------------------------------------------------------------------------------------


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


def term_mask(term: ParsedTerm, nodes: NodeSet) -> np.ndarray:
    """``nodeSelectorTerm.match`` for every node of ``nodes``."""
    if term.error is not None:
        return np.zeros(len(nodes), dtype=bool)
    mask = np.ones(len(nodes), dtype=bool)
    if term.labels is not None:
        mask &= nodes.match(term.labels)
    for field in term.fields or ():
        # Every node has a name, so its field set is never empty and the fields always count.
        if field.key == NODE_NAME_FIELD:
            index = nodes.snapshot.node_index.get(field.value, -1)
            equal = nodes.indices == index
        else:
            equal = np.full(len(nodes), field.value == "", dtype=bool)
        mask &= ~equal if field.negated else equal
    return mask


def aggregate_message(errors: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message, or ``[a, b]`` without duplicates."""
    unique = list(dict.fromkeys(errors))
    if len(errors) == 1 or len(unique) == 1:
        return unique[0]
    return "[" + ", ".join(unique) + "]"


class NodeSelectorMatcher:
    """``nodeaffinity.LazyErrorNodeSelector``: OR of the non-empty terms of a node selector."""

    def __init__(self, terms: Sequence[NodeSelectorTerm]):
        self.terms = [parse_term(t) for t in terms if not is_empty_node_selector_term(t)]

    @property
    def errors(self) -> list[str]:
        """Parse errors, in term order (what ``NewNodeSelector`` reports)."""
        return [t.error for t in self.terms if t.error is not None]

    def match(self, nodes: NodeSet) -> np.ndarray:
        out = np.zeros(len(nodes), dtype=bool)
        for term in self.terms:
            if term.error is None:
                out |= term_mask(term, nodes)
        return out


class PreferredTerms:
    """``nodeaffinity.PreferredSchedulingTerms``: weighted terms, zero weights and empty terms skipped."""

    def __init__(self, terms: Sequence[PreferredSchedulingTerm]):
        self.terms: list[tuple[int, ParsedTerm]] = []
        self.errors: list[str] = []
        for term in terms:
            if term.weight == 0 or is_empty_node_selector_term(term.preference):
                continue
            parsed = parse_term(term.preference)
            if parsed.error is not None:
                self.errors.append(parsed.error)
            else:
                self.terms.append((term.weight, parsed))

    def score(self, nodes: NodeSet) -> np.ndarray:
        """Σ weight of the matching terms, per node."""
        total = np.zeros(len(nodes), dtype=np.int64)
        for weight, term in self.terms:
            total += np.where(term_mask(term, nodes), np.int64(weight), np.int64(0))
        return total


def pod_matches_node_selector_and_affinity(pod: Pod, nodes: NodeSet) -> np.ndarray:
    """``PodMatchesNodeSelectorAndAffinityTerms`` of v1.20 for every node of ``nodes``."""
    ok = np.ones(len(nodes), dtype=bool)
    if pod.node_selector:
        ok &= nodes.match(from_set(pod.node_selector))  # SelectorFromSet: exact key=value
    affinity = pod.affinity.node_affinity
    if affinity is not None and affinity.required is not None:
        ok &= NodeSelectorMatcher(affinity.required).match(nodes)
    return ok


# ---------------------------------------------------------------------------------------------
# Args
# ---------------------------------------------------------------------------------------------


def _parse_affinity(raw: Any) -> NodeAffinitySpec:
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


class NodeAffinity(Plugin):
    """Keeps pods on nodes matching their nodeSelector and required node affinity (Filter) and
    favours nodes matching their preferred terms (Score)."""

    name = NAME
    Args = NodeAffinityArgs

    def __init__(self, args: Any = None, handle: Any = None):
        super().__init__(args, handle)
        added: NodeAffinitySpec | None = self.args.added_affinity
        self._added_required: NodeSelectorMatcher | None = None
        self._added_preferred: PreferredTerms | None = None
        if added is not None:
            if added.required is not None:
                self._added_required = NodeSelectorMatcher(added.required)
            if added.preferred:
                self._added_preferred = PreferredTerms(added.preferred)

    @classmethod
    def validate_args(cls, args: NodeAffinityArgs) -> list[ArgError]:
        """``ValidateNodeAffinityArgs`` of v1.20: one field.Invalid per part that does not parse."""
        affinity = args.added_affinity
        if affinity is None:
            return []
        errors = []
        if affinity.required is not None:
            problems = NodeSelectorMatcher(affinity.required).errors
            if problems:
                path = ("addedAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
                errors.append(ArgError(path, f"{'.'.join(path)}: Invalid value: "
                                             f"{go_node_selector(affinity.required)}: "
                                             f"{aggregate_message(problems)}"))
        if affinity.preferred:
            problems = PreferredTerms(affinity.preferred).errors
            if problems:
                path = ("addedAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
                errors.append(ArgError(path, f"{'.'.join(path)}: Invalid value: "
                                             f"{go_preferred_terms(affinity.preferred)}: "
                                             f"{aggregate_message(problems)}"))
        return errors

    @hookimpl
    def ruleset_filter(self, pod: Pod, nodes: NodeSet) -> FilterResult | None:
        affinity = pod.affinity.node_affinity
        if (self._added_required is None and not pod.node_selector
                and (affinity is None or affinity.required is None)):
            return None  # nothing constrains the pod's nodes (see pod_matches_node_selector_and_affinity)
        enforced = np.zeros(len(nodes), dtype=bool)
        if self._added_required is not None:
            enforced = ~self._added_required.match(nodes)
        failed = ~enforced & ~pod_matches_node_selector_and_affinity(pod, nodes)
        if not enforced.any() and not failed.any():
            return None
        codes = np.where(enforced | failed, np.int8(Code.UNSCHEDULABLE_AND_UNRESOLVABLE),
                         np.int8(Code.SUCCESS)).astype(np.int8)
        reason_index = np.where(enforced, 1, np.where(failed, 2, 0)).astype(np.int32)
        return FilterResult(codes, [(), (ERR_REASON_ENFORCED,), (ERR_REASON_POD,)], reason_index)

    @hookimpl
    def ruleset_score(self, pod: Pod, nodes: NodeSet) -> np.ndarray:
        scores = np.zeros(len(nodes), dtype=np.int64)
        if self._added_preferred is not None:
            scores += self._added_preferred.score(nodes)
        affinity = pod.affinity.node_affinity
        if affinity is not None and affinity.preferred:
            terms = PreferredTerms(affinity.preferred)
            if terms.errors:
                raise NodeAffinityError(aggregate_message(terms.errors))
            scores += terms.score(nodes)
        return scores

    @hookimpl
    def ruleset_normalize_score(self, scores: np.ndarray) -> np.ndarray:
        return default_normalize_score(MAX_NODE_SCORE, False, scores)
