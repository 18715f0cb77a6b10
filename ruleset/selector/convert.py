"""Selectors from Kubernetes objects: label sets, ``metav1.LabelSelector`` and node selector terms.

Ports of ``labels.SelectorFromSet`` / ``ValidatedSelectorFromSet``,
``metav1.LabelSelectorAsSelector`` and (from the NodeAffinity helpers) ``nodeSelectorRequirementsAsSelector``,
with their v1.20 messages. Where Go walks a map (matchLabels, a label set) the order of the
first reported error is random upstream; here it is the order the mapping gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from ruleset.gofmt import go_quote
from ruleset.selector.errors import SelectorError
from ruleset.selector.model import Requirement, Selector
from ruleset.selector.operators import (
    DOES_NOT_EXIST,
    EQUALS,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_IN,
)
from ruleset.selector.requirements import new_requirement

#: ``metav1.LabelSelectorOperator`` to selection operator.
POD_SELECTOR_OPERATORS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}
#: ``v1.NodeSelectorOperator`` to selection operator.
NODE_SELECTOR_OPERATORS = {**POD_SELECTOR_OPERATORS, "Gt": GREATER_THAN, "Lt": LESS_THAN}


# What the conversions read of the Kubernetes objects (:mod:`ruleset.api` defines them; the
# selector language sits below the object model and does not import it).

class RequirementLike(Protocol):
    """A ``metav1.LabelSelectorRequirement`` or ``v1.NodeSelectorRequirement``."""

    @property
    def key(self) -> str: ...

    @property
    def operator(self) -> str: ...

    @property
    def values(self) -> Sequence[str]: ...


class LabelSelectorLike(Protocol):
    """A ``metav1.LabelSelector`` (:class:`ruleset.api.meta.LabelSelector`)."""

    @property
    def match_labels(self) -> Iterable[tuple[str, str]]: ...

    @property
    def match_expressions(self) -> Sequence[RequirementLike]: ...


class NodeSelectorTermLike(Protocol):
    """A ``v1.NodeSelectorTerm`` (:class:`ruleset.api.pod.NodeSelectorTerm`)."""

    @property
    def match_expressions(self) -> Sequence[RequirementLike]: ...

    @property
    def match_fields(self) -> Sequence[RequirementLike]: ...


def from_set(labels: Mapping[str, str] | None, *, validate: bool = False) -> Selector:
    """``labels.SelectorFromSet``: ``key=value`` per entry, unvalidated; None or ``{}`` gives EVERYTHING.

    With ``validate=True`` it is ``ValidatedSelectorFromSet``: each entry must pass
    ``NewRequirement`` or SelectorError is raised.
    """
    if not labels:
        return Selector.EVERYTHING
    if validate:
        group = tuple(new_requirement(key, EQUALS, [value]) for key, value in labels.items())
    else:
        group = tuple(Requirement(key, EQUALS, (value,)) for key, value in labels.items())
    return Selector((group,))


def from_label_selector(selector: LabelSelectorLike | None) -> Selector:
    """``metav1.LabelSelectorAsSelector``: None gives NOTHING, an empty selector EVERYTHING.

    ``matchLabels`` become ``=`` requirements; ``matchExpressions`` map In, NotIn, Exists
    and DoesNotExist. Every requirement goes through ``NewRequirement`` (so ``In`` without
    values or ``Exists`` with values fail); any other operator fails with
    ``"<op>" is not a valid pod selector operator``. Errors raise SelectorError.
    """
    if selector is None:
        return Selector.NOTHING
    match_labels = dict(selector.match_labels)
    if not match_labels and not selector.match_expressions:
        return Selector.EVERYTHING
    requirements = [new_requirement(key, EQUALS, [value]) for key, value in match_labels.items()]
    for expression in selector.match_expressions:
        operator = POD_SELECTOR_OPERATORS.get(expression.operator)
        if operator is None:
            raise SelectorError(f"{go_quote(expression.operator)} is not a valid pod selector operator")
        requirements.append(new_requirement(expression.key, operator, list(expression.values)))
    return Selector((tuple(requirements),))


def from_node_selector_requirements(requirements: Sequence[RequirementLike]) -> Selector:
    """``nodeSelectorRequirementsAsSelector``: the AND of node selector requirements.

    Operators In, NotIn, Exists, DoesNotExist, Gt and Lt; any other fails with
    ``"<op>" is not a valid node selector operator``, and every requirement goes through
    ``NewRequirement`` (``Gt``/``Lt`` need exactly one integer value). An empty list gives
    NOTHING, as upstream (callers skip empty terms before getting here).
    """
    if not requirements:
        return Selector.NOTHING
    built = []
    for expression in requirements:
        operator = NODE_SELECTOR_OPERATORS.get(expression.operator)
        if operator is None:
            raise SelectorError(f"{go_quote(expression.operator)} is not a valid node selector operator")
        built.append(new_requirement(expression.key, operator, list(expression.values)))
    return Selector((tuple(built),))


def is_empty_node_selector_term(term: NodeSelectorTermLike) -> bool:
    """``isEmptyNodeSelectorTerm``: no matchExpressions and no matchFields.

    Upstream skips such a term, so it matches nothing.
    """
    return not term.match_expressions and not term.match_fields


def from_node_selector_term(term: NodeSelectorTermLike) -> Selector:
    """The label part of one node selector term: its matchExpressions ANDed.

    A term without matchExpressions puts no condition on labels (EVERYTHING): upstream
    checks its labels only when it has expressions. matchFields are not looked at; the
    NodeAffinity plugin checks them, and must skip empty terms
    (:func:`is_empty_node_selector_term`) rather than call this.
    """
    if not term.match_expressions:
        return Selector.EVERYTHING
    return from_node_selector_requirements(term.match_expressions)


def from_node_selector_terms(
    terms: Iterable[NodeSelectorTermLike], *, skip_invalid: bool = False
) -> Selector:
    """The OR of the terms' label parts (``nodeSelectorTerms``), one group per term.

    Empty terms are skipped, so no terms (or only empty ones) give NOTHING. A term whose
    requirements are invalid raises SelectorError, or with ``skip_invalid=True`` is left
    out of the OR, which is how upstream's ``Match`` treats it (it never matches).
    Only labels are considered: a term with only matchFields contributes EVERYTHING here.
    """
    groups: list[tuple[Requirement, ...]] = []
    for term in terms:
        if is_empty_node_selector_term(term):
            continue
        try:
            groups.extend(from_node_selector_term(term).groups)
        except SelectorError:
            if not skip_invalid:
                raise
    return Selector(tuple(groups))
