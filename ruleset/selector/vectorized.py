"""Match a selector against every row of a :class:`~ruleset.labels.LabelTable` at once.

Each key's column holds vocabulary codes, ``-1`` where a row lacks the key. A requirement
becomes a boolean lookup table with one entry per vocabulary value plus a last entry for
"absent"; indexing it with the code column (``-1`` picks the last entry) answers the
requirement for every row without a Python loop over rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ruleset.gofmt import parse_int64
from ruleset.labels import ABSENT
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

if TYPE_CHECKING:
    from ruleset.labels import LabelTable
    from ruleset.selector.model import Requirement, Selector


def _codes(table: LabelTable, key: str, rows: np.ndarray | None) -> np.ndarray | None:
    column = table.column(key)
    if column is None:
        return None
    return column if rows is None else column[rows]


def requirement_lookup(requirement: Requirement, table: LabelTable) -> np.ndarray:
    """Per vocabulary code of the requirement's key (plus a last slot for "absent"): does it match?"""
    key, op = requirement.key, requirement.operator
    size = len(table.vocabulary(key))
    if op in (GREATER_THAN, LESS_THAN):
        lookup = np.zeros(size + 1, dtype=bool)
        bound = parse_int64(requirement.values[0]) if len(requirement.values) == 1 else None
        if bound is not None and size:
            parses, numbers = table.int_values(key)
            lookup[:size] = parses & (numbers > bound if op == GREATER_THAN else numbers < bound)
        return lookup
    if op == EXISTS:
        lookup = np.ones(size + 1, dtype=bool)
        lookup[size] = False
        return lookup
    if op == DOES_NOT_EXIST:
        lookup = np.zeros(size + 1, dtype=bool)
        lookup[size] = True
        return lookup
    # Set membership: in, =, == mark the requirement's values; notin, != are the complement,
    # which also turns the "absent" slot on, as Kubernetes matches a missing key there.
    lookup = np.zeros(size + 1, dtype=bool)
    for value in requirement.values:
        code = table.code_of(key, value)
        if code != ABSENT:
            lookup[code] = True
    if op in (NOT_IN, NOT_EQUALS):
        np.logical_not(lookup, out=lookup)
    elif op not in (IN, EQUALS, DOUBLE_EQUALS):
        lookup[:] = False  # an unknown operator matches nothing, as in Kubernetes
    return lookup


def requirement_mask(
    requirement: Requirement, table: LabelTable, rows: np.ndarray | None, count: int
) -> np.ndarray:
    """:meth:`Requirement.matches` for the selected rows (``count`` of them)."""
    lookup = requirement_lookup(requirement, table)
    codes = _codes(table, requirement.key, rows)
    if codes is None:  # no row has the key: every row gets the "absent" answer
        return np.full(count, lookup[-1], dtype=bool)
    return lookup[codes]


def match_table(selector: Selector, table: LabelTable, rows: np.ndarray | None = None) -> np.ndarray:
    """:meth:`Selector.matches` for every selected row of ``table``, as a boolean array."""
    if rows is not None:
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        count = len(rows)
    else:
        count = len(table)
    result: np.ndarray | None = None
    for group in selector.groups:
        matched = np.ones(count, dtype=bool)
        for requirement in group:
            matched &= requirement_mask(requirement, table, rows, count)
            if not matched.any():
                break
        result = matched if result is None else np.logical_or(result, matched, out=result)
    if result is None:  # NOTHING
        return np.zeros(count, dtype=bool)
    return result
