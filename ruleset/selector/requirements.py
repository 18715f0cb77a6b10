"""``labels.NewRequirement``: the rules a requirement must pass, with Kubernetes' v1.20 messages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ruleset.gofmt import go_quote, parse_int64
from ruleset.selector.errors import SelectorError
from ruleset.selector.model import Requirement
from ruleset.selector.operators import (
    DOES_NOT_EXIST,
    DOUBLE_EQUALS,
    EQUALS,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_EQUALS,
    NOT_IN,
)
from ruleset.selector.validation import label_value_errors, qualified_name_errors


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a requirement is invalid: the message, and which part is to blame.

    ``part`` is "key", "operator" or "values"; ``index`` is the offending value's index
    (None when the whole value list is wrong).
    """

    message: str
    part: str
    index: int | None = None


def key_problem(key: str) -> Problem | None:
    """``validateLabelKey``."""
    errs = qualified_name_errors(key)
    if errs:
        return Problem(f"invalid label key {go_quote(key)}: {'; '.join(errs)}", "key")
    return None


def requirement_problem(key: str, operator: str, values: Sequence[str]) -> Problem | None:
    """The first rule of ``NewRequirement`` that ``(key, operator, values)`` breaks, or None.

    The order is Kubernetes': the key, then the operator's rule on the values, then each
    value in the order given.
    """
    problem = key_problem(key)
    if problem is not None:
        return problem
    if operator in (IN, NOT_IN):
        if not values:
            return Problem("for 'in', 'notin' operators, values set can't be empty", "values")
    elif operator in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
        if len(values) != 1:
            return Problem("exact-match compatibility requires one single value", "values")
    elif operator in (EXISTS, DOES_NOT_EXIST):
        if values:
            return Problem("values set must be empty for exists and does not exist", "values")
    elif operator in (GREATER_THAN, LESS_THAN):
        if len(values) != 1:
            return Problem("for 'Gt', 'Lt' operators, exactly one value is required", "values")
        if parse_int64(values[0]) is None:
            return Problem("for 'Gt', 'Lt' operators, the value must be an integer", "values", 0)
    else:
        return Problem(f"operator '{operator}' is not recognized", "operator")
    for index, value in enumerate(values):
        errs = label_value_errors(value)
        if errs:
            message = f"invalid label value: {go_quote(value)}: at key: {go_quote(key)}: {'; '.join(errs)}"
            return Problem(message, "values", index)
    return None


def new_requirement(key: str, operator: str, values: Sequence[str] = ()) -> Requirement:
    """``labels.NewRequirement``: a validated :class:`Requirement`, or SelectorError with Kubernetes' message.

    ``operator`` is one of Kubernetes' strings (``in``, ``notin``, ``=``, ``==``, ``!=``,
    ``exists``, ``!``, ``gt``, ``lt``). Counts are checked on ``values`` as given,
    before the requirement deduplicates them.
    """
    if isinstance(values, str):
        raise TypeError("values must be a sequence of strings, not a string")
    values = list(values)
    problem = requirement_problem(key, operator, values)
    if problem is not None:
        raise SelectorError(problem.message)
    return Requirement(key, operator, tuple(values))
