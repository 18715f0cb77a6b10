"""Selectors as values: requirements, AND-groups of them, and an OR of groups.

A :class:`Selector` with one group is exactly a Kubernetes ``labels.Selector``; more than
one group is this project's ``||`` extension (what node affinity spells as several
``nodeSelectorTerms``). Matching follows ``Requirement.Matches`` in
``k8s.io/apimachinery/pkg/labels/selector.go`` (v1.20).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ruleset.gofmt import parse_int64
from ruleset.selector import operators as ops

if TYPE_CHECKING:
    import numpy as np

    from ruleset.labels import LabelTable

__all__ = ["Requirement", "Selector"]

_POSITIVE = frozenset((ops.IN, ops.EQUALS, ops.DOUBLE_EQUALS))
_NEGATIVE = frozenset((ops.NOT_IN, ops.NOT_EQUALS))
_ORDERED = frozenset((ops.GREATER_THAN, ops.LESS_THAN))
_SPELLING = {ops.EQUALS: "=", ops.DOUBLE_EQUALS: "==", ops.NOT_EQUALS: "!=", ops.GREATER_THAN: ">",
             ops.LESS_THAN: "<"}

_MISSING = object()


@dataclass(frozen=True, slots=True, order=True)
class Requirement:
    """One ``key operator values`` test, e.g. ``Requirement("tier", "in", ("db", "web"))``.

    ``values`` are stored deduplicated and sorted (what ``labels.Parse`` produces), so two
    requirements that match the same label sets compare equal. Construction does not
    validate anything, like ``SelectorFromSet``; :func:`ruleset.selector.new_requirement`
    applies Kubernetes' ``NewRequirement`` rules. Requirements order by key, then operator,
    then values.
    """

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.values, str):
            raise TypeError("Requirement values must be a collection of strings, not a string")
        object.__setattr__(self, "values", tuple(sorted(set(self.values))))

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``Requirement.Matches``: a missing key fails in, =, gt and lt, and passes notin and !=.

        ``gt``/``lt`` compare the label and the value as int64 and fail when either does not parse.
        """
        value = labels.get(self.key, _MISSING)
        op = self.operator
        if op in _POSITIVE:
            return value is not _MISSING and value in self.values
        if op in _NEGATIVE:
            return value is _MISSING or value not in self.values
        if op == ops.EXISTS:
            return value is not _MISSING
        if op == ops.DOES_NOT_EXIST:
            return value is _MISSING
        if op in _ORDERED:
            if value is _MISSING or len(self.values) != 1:
                return False
            have = parse_int64(value)  # type: ignore[arg-type]
            bound = parse_int64(self.values[0])
            if have is None or bound is None:
                return False
            return have > bound if op == ops.GREATER_THAN else have < bound
        return False

    def __str__(self) -> str:
        """``Requirement.String``: ``!key``, ``key``, ``key=v``, ``key in (a,b)``, ``key>3``..."""
        op = self.operator
        if op == ops.DOES_NOT_EXIST:
            return "!" + self.key
        if op == ops.EXISTS:
            return self.key
        joined = ",".join(self.values)
        if op in (ops.IN, ops.NOT_IN):
            return f"{self.key} {op} ({joined})"
        return f"{self.key}{_SPELLING.get(op, op)}{joined}"


@dataclass(frozen=True, slots=True)
class Selector:
    """An OR of AND-groups of requirements.

    ``Selector.EVERYTHING`` (one empty group) matches every label set, like
    ``labels.Everything()``; ``Selector.NOTHING`` (no group) matches none and is not
    :meth:`empty`, like ``labels.Nothing()``. Requirements inside a group are kept sorted,
    as Kubernetes does, so equal groups compare equal; groups keep the order they were
    given in (a node affinity's term order). A group that is empty makes the whole OR
    match everything, so such a selector is stored as ``EVERYTHING``.
    """

    groups: tuple[tuple[Requirement, ...], ...]

    EVERYTHING: ClassVar[Selector]
    NOTHING: ClassVar[Selector]

    def __post_init__(self) -> None:
        groups = tuple(tuple(sorted(group)) for group in self.groups)
        if len(groups) > 1 and not all(groups):
            groups = ((),)
        object.__setattr__(self, "groups", groups)

    @property
    def is_nothing(self) -> bool:
        """True for ``Selector.NOTHING``, the selector that matches no label set."""
        return not self.groups

    def empty(self) -> bool:
        """``Selector.Empty``: True only when the selector does not restrict anything (EVERYTHING)."""
        return self.groups == ((),)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` satisfy every requirement of at least one group."""
        for group in self.groups:
            for requirement in group:
                if not requirement.matches(labels):
                    break
            else:
                return True
        return False

    def match_table(self, table: LabelTable, rows: np.ndarray | None = None) -> np.ndarray:
        """:meth:`matches` for every row of ``table`` (or the given row indices or boolean mask).

        Vectorised over the table's integer label columns; returns a boolean array with one
        entry per selected row.
        """
        from ruleset.selector.vectorized import match_table

        return match_table(self, table, rows)

    def requirements(self) -> tuple[tuple[Requirement, ...], bool]:
        """``Selector.Requirements``: the requirements and whether the selector can select anything.

        NOTHING gives ``((), False)``; a plain selector gives its group and True. An OR of
        several groups has no such list and raises ValueError (use :attr:`groups`).
        """
        if not self.groups:
            return (), False
        if len(self.groups) > 1:
            raise ValueError(f"selector {self} is an OR of {len(self.groups)} groups; read .groups instead")
        return self.groups[0], True

    def add(self, *requirements: Requirement) -> Selector:
        """``Selector.Add``: a copy with ``requirements`` ANDed into every group; NOTHING stays NOTHING."""
        if not self.groups or not requirements:
            return self
        return Selector(tuple(group + requirements for group in self.groups))

    def __str__(self) -> str:
        """Kubernetes' ``String()`` of each group, joined by `` || ``; EVERYTHING and NOTHING give ``""``.

        ``parse(str(s)) == s`` for every selector except NOTHING and selectors built from
        keys or values that Kubernetes would reject.
        """
        return " || ".join(",".join(str(r) for r in group) for group in self.groups)

    def __repr__(self) -> str:
        if not self.groups:
            return "Selector.NOTHING"
        return f"Selector({str(self)!r})"


Selector.EVERYTHING = Selector(((),))
Selector.NOTHING = Selector(())
