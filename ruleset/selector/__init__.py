"""Kubernetes label selectors: the text language, the Kubernetes objects, and fast matching.

``parse("tier in (db,web),!canary || zone=a")`` gives a :class:`Selector`, an OR of
AND-groups of :class:`Requirement`; ``,`` is AND and ``||`` (this project's extension) is
OR. Without ``||`` the language, its validation and its error messages are those of
Kubernetes' ``labels.Parse`` (v1.20). ``Selector.matches(labels)`` tests one label set and
``Selector.match_table(table)`` every row of a :class:`~ruleset.labels.LabelTable` at once.

The parser (and lark) is imported on first use of :func:`parse`, so importing this package
stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ruleset.selector.convert import (
    from_label_selector,
    from_node_selector_requirements,
    from_node_selector_term,
    from_node_selector_terms,
    from_set,
    is_empty_node_selector_term,
)
from ruleset.selector.errors import SelectorError
from ruleset.selector.model import Requirement, Selector
from ruleset.selector.operators import OPERATORS
from ruleset.selector.requirements import new_requirement
from ruleset.selector.validation import dns1123_subdomain_errors, label_value_errors, qualified_name_errors

if TYPE_CHECKING:
    from ruleset.selector.parser import parse, tokenize

__all__ = [
    "OPERATORS",
    "Requirement",
    "Selector",
    "SelectorError",
    "dns1123_subdomain_errors",
    "from_label_selector",
    "from_node_selector_requirements",
    "from_node_selector_term",
    "from_node_selector_terms",
    "from_set",
    "is_empty_node_selector_term",
    "label_value_errors",
    "new_requirement",
    "parse",
    "qualified_name_errors",
    "tokenize",
]

_LAZY = {"parse", "tokenize"}


def __getattr__(name: str) -> Any:
    # PEP 562: import the parser (and lark) only when someone asks for it.
    if name in _LAZY:
        from ruleset.selector import parser

        value = getattr(parser, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
