"""Parse selector text with the lark grammar ``grammar/selector.lark``.

Accepts exactly what Kubernetes' ``labels.Parse`` (v1.20) accepts, plus ``||`` between
groups, and reports the first error Kubernetes would report, in its words:

* Requirements are built and validated while the LALR parse runs (lark calls the rule
  callbacks of :class:`_Builder` on each reduction), so an invalid requirement is reported
  before any syntax error that follows it, as upstream's recursive-descent parser does.
* On a syntax error, :func:`_explain` looks at the tokens before the offending one to tell
  which of upstream's parse functions would have failed, and checks the requirement being
  read first when upstream would already have validated it (its key, or the whole
  requirement once its values are complete).
"""

from __future__ import annotations

from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING, cast

from lark import Token, Transformer, UnexpectedInput, UnexpectedToken, v_args

from ruleset.bundled import grammar_file
from ruleset.selector.errors import SelectorError
from ruleset.selector.model import Requirement, Selector
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
from ruleset.selector.requirements import key_problem, requirement_problem

if TYPE_CHECKING:
    from lark import Lark

_EXACT_OPERATORS = {"EQ": EQUALS, "DEQ": DOUBLE_EQUALS, "NE": NOT_EQUALS, "GT": GREATER_THAN, "LT": LESS_THAN}
_SET_OPERATORS = {"IN": IN, "NOTIN": NOT_IN}
_WRAP = "unable to parse requirement: "

#: Upstream's names for our token types (``selector.go`` Token constants), for :func:`tokenize`.
TOKEN_NAMES = {
    "IDENT": "Identifier",
    "IN": "In",
    "NOTIN": "NotIn",
    "EQ": "Equals",
    "DEQ": "DoubleEquals",
    "NE": "NotEquals",
    "GT": "GreaterThan",
    "LT": "LessThan",
    "_BANG": "DoesNotExist",
    "_LPAR": "OpenPar",
    "_RPAR": "ClosedPar",
    "COMMA": "Comma",
    "_OR": "Or",  # the `||` extension; upstream lexes "||" as an identifier
}


class _Fail(Exception):
    """Internal: a parse failure with its 0-based offset, turned into SelectorError by :func:`parse`."""

    def __init__(self, reason: str, offset: int):
        super().__init__(reason)
        self.reason = reason
        self.offset = offset


def _start(token: Token) -> int:
    """Where ``token`` starts in the text.

    lark types ``Token.start_pos`` as optional (for tokens built by hand); its lexer sets it on
    every token it yields, and every token here comes from that lexer.
    """
    if token.start_pos is None:
        raise ValueError(f"token {token!r} has no position")
    return token.start_pos


def _end(token: Token) -> int:
    """Where ``token`` ends in the text (``Token.end_pos``, set by the lexer as ``start_pos`` is)."""
    if token.end_pos is None:
        raise ValueError(f"token {token!r} has no position")
    return token.end_pos


def _checked(
    key: Token, operator: str, values: list[str], offsets: dict[str, int], fallback: int
) -> Requirement:
    """``NewRequirement`` on parsed tokens; ``offsets`` locate each value for the error column."""
    problem = requirement_problem(str(key), operator, values)
    if problem is not None:
        if problem.part == "key":
            offset = _start(key)
        elif problem.index is not None:
            offset = offsets.get(values[problem.index], fallback)
        else:
            offset = fallback
        raise _Fail(_WRAP + problem.message, offset)
    return Requirement(str(key), operator, tuple(values))


def _exact(key: Token, op: Token, value: Token | None = None) -> Requirement:
    # An absent value (followed by ",", "||" or the end) is the empty string, as upstream.
    text = "" if value is None else str(value)
    offset = _end(op) if value is None else _start(value)
    return _checked(key, _EXACT_OPERATORS[op.type], [text], {text: offset}, offset)


def _set_based(key: Token, op: Token, items: list[Token]) -> Requirement:
    offsets: dict[str, int] = {}
    for item in items:
        if item.type != "COMMA":
            offsets.setdefault(str(item), _start(item))
    # An empty item stands for "": "()", a leading or trailing comma, or two commas in a row.
    kinds = [item.type for item in items]
    if (
        not kinds
        or kinds[0] == "COMMA"
        or kinds[-1] == "COMMA"
        or any(a == b == "COMMA" for a, b in pairwise(kinds))
    ):
        offsets.setdefault("", _end(op))
    # sets.String.List(): deduplicated and sorted, the order NewRequirement checks them in.
    return _checked(key, _SET_OPERATORS[op.type], sorted(offsets), offsets, _end(op))


@v_args(inline=True)
class _Builder(Transformer):
    """Rule callbacks run during the LALR parse (so their checks interleave with the syntax)."""

    def exists(self, key: Token) -> Requirement:
        return _checked(key, EXISTS, [], {}, _start(key))

    def does_not_exist(self, key: Token) -> Requirement:
        return _checked(key, DOES_NOT_EXIST, [], {}, _start(key))

    def exact(self, key: Token, op: Token, value: Token | None = None) -> Requirement:
        return _exact(key, op, value)

    def set_based(self, key: Token, op: Token, *items: Token) -> Requirement:
        return _set_based(key, op, list(items))

    def group(self, *children: Requirement | Token) -> tuple[Requirement, ...]:
        return tuple(child for child in children if isinstance(child, Requirement))

    def selector(self, *groups: tuple[Requirement, ...]) -> Selector:
        return Selector(groups) if groups else Selector.EVERYTHING


@cache
def _parser() -> Lark:
    from lark import Lark

    return Lark.open(
        str(grammar_file("selector.lark")),
        parser="lalr",
        lexer="basic",
        transformer=_Builder(),
        maybe_placeholders=False,
    )


def _go_view(text: str) -> str:
    """The text as upstream's byte lexer sees it: a NUL byte reads like the end of the string.

    A NUL that ends an identifier or an operator is consumed as a separator; one where a
    token would start ends the input there (upstream ignores the rest).
    """
    if "\0" not in text:
        return text
    out = []
    for i, ch in enumerate(text):
        if ch != "\0":
            out.append(ch)
        elif i > 0 and text[i - 1] not in " \t\r\n\0":
            out.append(" ")
        else:
            break
    return "".join(out)


def parse(text: str) -> Selector:
    """Parse a label selector: Kubernetes' syntax (``labels.Parse``) plus ``||`` between AND-groups.

    ``""`` gives ``Selector.EVERYTHING``. Raises :class:`SelectorError` (and nothing else)
    for any text Kubernetes rejects, with Kubernetes' message as ``reason``.
    """
    if not isinstance(text, str):
        raise TypeError(f"selector must be a str, not {type(text).__name__}")
    scan = _go_view(text)
    try:
        try:
            # The start rule is inlined into ``selector``, whose callback (run by the
            # transformer during the parse) returns a Selector; lark types parse() as a Tree.
            return cast(Selector, _parser().parse(scan))
        except UnexpectedInput as exc:
            raise _explain(scan, exc) from None
    except _Fail as fail:
        raise SelectorError(fail.reason, text, fail.offset + 1) from None


def _explain(scan: str, exc: UnexpectedInput) -> _Fail:
    """Upstream's error for a syntax error at ``exc`` (or the requirement check that precedes it)."""
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        offset, found = exc.token.start_pos, str(exc.token)
    elif isinstance(exc, UnexpectedToken):
        offset, found = len(scan), ""
    else:  # the lexer matches any text, so lark cannot fail here; kept as a safeguard
        offset = getattr(exc, "pos_in_stream", 0) or 0
        found = scan[offset : offset + 1]
    prior = [token for token in _parser().lex(scan) if token.start_pos < offset]

    start = 0  # first token of the requirement being read
    depth = 0
    for i, token in enumerate(prior):
        if token.type == "_LPAR":
            depth = 1
        elif token.type == "_RPAR":
            depth = 0
        elif token.type == "_OR" or (token.type == "COMMA" and depth == 0):
            start = i + 1
    if not prior:
        return _Fail(f"found '{found}', expected: !, identifier, or 'end of string'", offset)
    if start == len(prior):
        separator = "'||'" if prior[-1].type == "_OR" else "','"
        return _Fail(f"found '{found}', expected: identifier after {separator}", offset)

    body = prior[start:]
    negated = body[0].type == "_BANG"
    if negated:
        body = body[1:]
    if not body:
        return _Fail(f"{_WRAP}found '{found}', expected: identifier", offset)
    key = body[0]
    problem = key_problem(str(key))  # upstream validates a key as soon as it reads it
    if problem is not None:
        return _Fail(_WRAP + problem.message, _start(key))
    complete = f"found '{found}', expected: ',' or 'end of string'"
    if negated:
        return _Fail(complete, offset)
    if len(body) == 1:
        return _Fail(f"{_WRAP}found '{found}', expected: '=', '!=', '==', 'in', notin'", offset)
    op = body[1]
    if op.type in _EXACT_OPERATORS:
        if len(body) == 2:
            return _Fail(f"{_WRAP}found '{found}', expected: identifier", offset)
        _exact(key, op, body[2])
        return _Fail(complete, offset)
    if len(body) == 2:
        return _Fail(f"{_WRAP}found '{found}' expected: '('", offset)
    last = body[-1].type
    if last == "_RPAR":
        _set_based(key, op, body[3:-1])
        return _Fail(complete, offset)
    if last == "_LPAR":
        return _Fail(f"{_WRAP}found '{found}', expected: ',', ')' or identifier", offset)
    if last == "COMMA":
        return _Fail(f"{_WRAP}found '{found}', expected: ',', or identifier", offset)
    return _Fail(f"{_WRAP}found '{found}', expected: ',' or ')'", offset)


def tokenize(text: str) -> list[tuple[str, str]]:
    """The tokens of ``text`` as ``(upstream token name, literal)`` pairs, for tests and debugging.

    Names are those of ``selector.go`` (``Identifier``, ``In``, ``OpenPar``...), plus ``Or``
    for ``||``; the end of the string is not included.
    """
    return [(TOKEN_NAMES[token.type], str(token)) for token in _parser().lex(_go_view(text))]
