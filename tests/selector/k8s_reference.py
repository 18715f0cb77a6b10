"""A line-by-line transliteration of Kubernetes' v1.20 selector parser, used as a test oracle.

``k8s.io/apimachinery/pkg/labels/selector.go`` (Lexer, Parser, NewRequirement) rewritten in
Python without any cleverness: byte-at-a-time lexing where ``read()`` returns 0 at the end
(and for a NUL byte), lookahead/consume with the Values/KeyAndOperator contexts, and the
same error strings. It shares nothing with ``ruleset.selector.parser`` except the
validation functions (tested on their own against upstream's tables), so comparing the
two checks the lark grammar and its error translation.

``reference_parse(text)`` returns ``("ok", [(key, op, values), ...])`` sorted by key as
upstream does, or ``("error", message)``.
"""

from __future__ import annotations

from ruleset.gofmt import go_quote, parse_int64
from ruleset.selector.validation import label_value_errors, qualified_name_errors

ERROR, EOS, CPAR, COMMA, DNE, DEQ, EQ, GT, IDENT, IN, LT, NEQ, NOTIN, OPAR = range(14)

STRING2TOKEN = {
    ")": CPAR,
    ",": COMMA,
    "!": DNE,
    "==": DEQ,
    "=": EQ,
    ">": GT,
    "in": IN,
    "<": LT,
    "!=": NEQ,
    "notin": NOTIN,
    "(": OPAR,
}

KEY_AND_OPERATOR, VALUES = 0, 1


def is_whitespace(ch: str) -> bool:
    return ch in (" ", "\t", "\r", "\n")


def is_special_symbol(ch: str) -> bool:
    return ch in ("=", "!", "(", ")", ",", ">", "<")


class Lexer:
    def __init__(self, s: str):
        self.s = s
        self.pos = 0

    def read(self) -> str:
        b = "\0"
        if self.pos < len(self.s):
            b = self.s[self.pos]
            self.pos += 1
        return b

    def unread(self) -> None:
        self.pos -= 1

    def scan_id_or_keyword(self) -> tuple[int, str]:
        buffer = []
        while True:
            ch = self.read()
            if ch == "\0":
                break
            if is_special_symbol(ch) or is_whitespace(ch):
                self.unread()
                break
            buffer.append(ch)
        s = "".join(buffer)
        if s in STRING2TOKEN:
            return STRING2TOKEN[s], s
        return IDENT, s

    def scan_special_symbol(self) -> tuple[int, str]:
        last = (0, "")
        buffer = ""
        while True:
            ch = self.read()
            if ch == "\0":
                break
            if is_special_symbol(ch):
                buffer += ch
                if buffer in STRING2TOKEN:
                    last = (STRING2TOKEN[buffer], buffer)
                elif last[0] != 0:
                    self.unread()
                    break
            else:
                self.unread()
                break
        if last[0] == 0:
            return ERROR, f"error expected: keyword found '{buffer}'"
        return last

    def skip_white_spaces(self, ch: str) -> str:
        while True:
            if not is_whitespace(ch):
                return ch
            ch = self.read()

    def lex(self) -> tuple[int, str]:
        ch = self.skip_white_spaces(self.read())
        if ch == "\0":
            return EOS, ""
        self.unread()
        if is_special_symbol(ch):
            return self.scan_special_symbol()
        return self.scan_id_or_keyword()


class ParseError(Exception):
    pass


def validate_label_key(k: str) -> None:
    errs = qualified_name_errors(k)
    if errs:
        raise ParseError(f"invalid label key {go_quote(k)}: {'; '.join(errs)}")


def new_requirement(key: str, op: str, vals: list[str]) -> tuple[str, str, tuple[str, ...]]:
    validate_label_key(key)
    if op in ("in", "notin"):
        if len(vals) == 0:
            raise ParseError("for 'in', 'notin' operators, values set can't be empty")
    elif op in ("=", "==", "!="):
        if len(vals) != 1:
            raise ParseError("exact-match compatibility requires one single value")
    elif op in ("exists", "!"):
        if len(vals) != 0:
            raise ParseError("values set must be empty for exists and does not exist")
    elif op in ("gt", "lt"):
        if len(vals) != 1:
            raise ParseError("for 'Gt', 'Lt' operators, exactly one value is required")
        for v in vals:
            if parse_int64(v) is None:
                raise ParseError("for 'Gt', 'Lt' operators, the value must be an integer")
    else:
        raise ParseError(f"operator '{op}' is not recognized")
    for v in vals:
        errs = label_value_errors(v)
        if errs:
            raise ParseError(
                f"invalid label value: {go_quote(v)}: at key: {go_quote(key)}: {'; '.join(errs)}"
            )
    return key, op, tuple(vals)


class Parser:
    def __init__(self, s: str):
        self.l = Lexer(s)
        self.items: list[tuple[int, str]] = []
        self.position = 0

    def lookahead(self, context: int) -> tuple[int, str]:
        tok, lit = self.items[self.position]
        if context == VALUES and tok in (IN, NOTIN):
            tok = IDENT
        return tok, lit

    def consume(self, context: int) -> tuple[int, str]:
        self.position += 1
        tok, lit = self.items[self.position - 1]
        if context == VALUES and tok in (IN, NOTIN):
            tok = IDENT
        return tok, lit

    def scan(self) -> None:
        while True:
            token, literal = self.l.lex()
            self.items.append((token, literal))
            if token == EOS:
                break

    def parse(self) -> list:
        self.scan()
        requirements = []
        while True:
            tok, lit = self.lookahead(VALUES)
            if tok in (IDENT, DNE):
                try:
                    r = self.parse_requirement()
                except ParseError as err:
                    raise ParseError(f"unable to parse requirement: {err}") from None
                requirements.append(r)
                t, lit = self.consume(VALUES)
                if t == EOS:
                    return requirements
                if t == COMMA:
                    t2, lit2 = self.lookahead(VALUES)
                    if t2 != IDENT and t2 != DNE:
                        raise ParseError(f"found '{lit2}', expected: identifier after ','")
                else:
                    raise ParseError(f"found '{lit}', expected: ',' or 'end of string'")
            elif tok == EOS:
                return requirements
            else:
                raise ParseError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def parse_requirement(self):
        key, operator = self.parse_key_and_infer_operator()
        if operator in ("exists", "!"):
            return new_requirement(key, operator, [])
        operator = self.parse_operator()
        values = self.parse_values() if operator in ("in", "notin") else self.parse_exact_value()
        return new_requirement(key, operator, sorted(values))

    def parse_key_and_infer_operator(self) -> tuple[str, str]:
        operator = ""
        tok, literal = self.consume(VALUES)
        if tok == DNE:
            operator = "!"
            tok, literal = self.consume(VALUES)
        if tok != IDENT:
            raise ParseError(f"found '{literal}', expected: identifier")
        validate_label_key(literal)
        t, _ = self.lookahead(VALUES)
        if t in (EOS, COMMA) and operator != "!":
            operator = "exists"
        return literal, operator

    def parse_operator(self) -> str:
        tok, lit = self.consume(KEY_AND_OPERATOR)
        ops = {IN: "in", EQ: "=", DEQ: "==", GT: "gt", LT: "lt", NOTIN: "notin", NEQ: "!="}
        if tok not in ops:
            raise ParseError(f"found '{lit}', expected: '=', '!=', '==', 'in', notin'")
        return ops[tok]

    def parse_values(self) -> set[str]:
        tok, lit = self.consume(VALUES)
        if tok != OPAR:
            raise ParseError(f"found '{lit}' expected: '('")
        tok, lit = self.lookahead(VALUES)
        if tok in (IDENT, COMMA):
            s = self.parse_identifiers_list()
            tok, _ = self.consume(VALUES)
            if tok != CPAR:
                raise ParseError(f"found '{lit}', expected: ')'")
            return s
        if tok == CPAR:
            self.consume(VALUES)
            return {""}
        raise ParseError(f"found '{lit}', expected: ',', ')' or identifier")

    def parse_identifiers_list(self) -> set[str]:
        s: set[str] = set()
        while True:
            tok, lit = self.consume(VALUES)
            if tok == IDENT:
                s.add(lit)
                tok2, lit2 = self.lookahead(VALUES)
                if tok2 == COMMA:
                    continue
                if tok2 == CPAR:
                    return s
                raise ParseError(f"found '{lit2}', expected: ',' or ')'")
            if tok == COMMA:
                if not s:
                    s.add("")
                tok2, _ = self.lookahead(VALUES)
                if tok2 == CPAR:
                    s.add("")
                    return s
                if tok2 == COMMA:
                    self.consume(VALUES)
                    s.add("")
            else:
                raise ParseError(f"found '{lit}', expected: ',', or identifier")

    def parse_exact_value(self) -> set[str]:
        tok, _ = self.lookahead(VALUES)
        if tok in (EOS, COMMA):
            return {""}
        tok, lit = self.consume(VALUES)
        if tok == IDENT:
            return {lit}
        raise ParseError(f"found '{lit}', expected: identifier")


def reference_parse(text: str):
    """``labels.Parse(text)`` as ``("ok", requirements sorted by key)`` or ``("error", message)``."""
    try:
        requirements = Parser(text).parse()
    except ParseError as err:
        return "error", str(err)
    return "ok", sorted(requirements, key=lambda r: r[0])
