"""Parsing: ported from apimachinery ``pkg/labels/selector_test.go`` (TestSelectorParse,
TestDeterministicParse, TestLexer, TestLexerSequence, TestParserLookahead, TestParseOperator,
TestSetSelectorParser), plus upstream's v1.20 error messages, compared with a transliteration
of upstream's parser (``k8s_reference.py``)."""

import pickle

import pytest

from ruleset.selector import Requirement, Selector, SelectorError, parse, tokenize
from tests.selector.k8s_reference import reference_parse


def R(key, op, *values):
    return Requirement(key, op, values)


def sel(*requirements):
    return Selector((tuple(requirements),))


def ours_as_reference(text):
    """Our parse in the shape of ``reference_parse`` (only for text without ``||``)."""
    try:
        selector = parse(text)
    except SelectorError as exc:
        return "error", exc.reason
    (group,) = selector.groups
    return "ok", sorted((r.key, r.operator, r.values) for r in group)


def reference_normalized(text):
    kind, result = reference_parse(text)
    if kind == "ok":
        result = sorted((k, op, tuple(sorted(set(vals)))) for k, op, vals in result)
    return kind, result


# --- TestSelectorParse ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"]
)
def test_selector_parse_good_strings_restring(text):
    assert str(parse(text)) == text.replace(" ", "")


@pytest.mark.parametrize("text", ["x==a==b", "!x=a", "x<a"])
def test_selector_parse_bad_strings(text):
    with pytest.raises(SelectorError):
        parse(text)


def test_double_bar_is_the_or_extension():
    # Upstream's bad string "x=a||y=b" (the lexer reads "a||y" as one identifier) is our OR.
    assert parse("x=a||y=b") == Selector(((R("x", "=", "a"),), (R("y", "=", "b"),)))
    # A single "|" stays part of an identifier, which no key or value may contain.
    with pytest.raises(SelectorError):
        parse("x=a|y=b")


def test_deterministic_parse():
    assert str(parse("x=a,a=x")) == str(parse("a=x,x=a")) == "a=x,x=a"


# --- TestLexer / TestLexerSequence / TestParserLookahead ---------------------------------


@pytest.mark.parametrize(
    ("text", "token"),
    [
        (",", "Comma"),
        ("notin", "NotIn"),
        ("in", "In"),
        ("=", "Equals"),
        ("==", "DoubleEquals"),
        (">", "GreaterThan"),
        ("<", "LessThan"),
        ("!", "DoesNotExist"),  # the lexer returns the longest valid token
        ("!=", "NotEquals"),
        ("(", "OpenPar"),
        (")", "ClosedPar"),
        ("~", "Identifier"),  # non-special characters are part of an identifier
    ],
)
def test_lexer(text, token):
    assert tokenize(text) == [(token, text)]


def test_lexer_end_of_string_and_double_bar():
    assert tokenize("") == []
    # Upstream: ("||", IdentifierToken). Here "||" is the OR separator.
    assert tokenize("||") == [("Or", "||")]


LEXER_SEQUENCES = [
    ("key in ( value )", ["Identifier", "In", "OpenPar", "Identifier", "ClosedPar"]),
    ("key notin ( value )", ["Identifier", "NotIn", "OpenPar", "Identifier", "ClosedPar"]),
    (
        "key in ( value1, value2 )",
        ["Identifier", "In", "OpenPar", "Identifier", "Comma", "Identifier", "ClosedPar"],
    ),
    ("key", ["Identifier"]),
    ("!key", ["DoesNotExist", "Identifier"]),
    ("()", ["OpenPar", "ClosedPar"]),
    ("", []),
    ("x in (),y", ["Identifier", "In", "OpenPar", "ClosedPar", "Comma", "Identifier"]),
    ("== != (), = notin", ["DoubleEquals", "NotEquals", "OpenPar", "ClosedPar", "Comma", "Equals", "NotIn"]),
    ("key>2", ["Identifier", "GreaterThan", "Identifier"]),
    ("key<1", ["Identifier", "LessThan", "Identifier"]),
]


@pytest.mark.parametrize(("text", "tokens"), LEXER_SEQUENCES)
def test_lexer_sequence_and_parser_lookahead(text, tokens):
    assert [kind for kind, _ in tokenize(text)] == tokens


def test_lexer_splits_special_runs_greedily():
    assert tokenize("a!==b<=>c") == [
        ("Identifier", "a"), ("NotEquals", "!="), ("Equals", "="), ("Identifier", "b"),
        ("LessThan", "<"), ("Equals", "="), ("GreaterThan", ">"), ("Identifier", "c"),
    ]  # fmt: skip


# --- TestParseOperator ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "operator"),
    [
        ("x in (1)", "in"),
        ("x=1", "="),
        ("x==1", "=="),
        ("x>1", "gt"),
        ("x<1", "lt"),
        ("x notin (1)", "notin"),
        ("x!=1", "!="),
    ],
)
def test_parse_operator(text, operator):
    assert parse(text) == sel(R("x", operator, "1"))


@pytest.mark.parametrize("token", ["!", "exists", "("])
def test_parse_operator_rejects(token):
    with pytest.raises(SelectorError) as info:
        parse(f"x {token}")
    assert (
        info.value.reason
        == f"unable to parse requirement: found '{token}', expected: '=', '!=', '==', 'in', notin'"
    )


# --- TestSetSelectorParser -----------------------------------------------------------------

SET_SELECTOR_VALID = [
    ("", Selector.EVERYTHING),
    ("\rx", sel(R("x", "exists"))),
    ("this-is-a-dns.domain.com/key-with-dash", sel(R("this-is-a-dns.domain.com/key-with-dash", "exists"))),
    (
        "this-is-another-dns.domain.com/key-with-dash in (so,what)",
        sel(R("this-is-another-dns.domain.com/key-with-dash", "in", "so", "what")),
    ),
    (
        "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
        sel(R("0.1.2.domain/99", "notin", "10.10.100.1", "tick.tack.clock")),
    ),
    ("foo  in\t (abc)", sel(R("foo", "in", "abc"))),
    ("x notin\n (abc)", sel(R("x", "notin", "abc"))),
    ("x  notin\t\t\t(abc,def)", sel(R("x", "notin", "abc", "def"))),
    ("x in (abc,def)", sel(R("x", "in", "abc", "def"))),
    ("x in (abc,)", sel(R("x", "in", "abc", ""))),
    ("x in ()", sel(R("x", "in", ""))),
    (
        "x notin (abc,,def),bar,z in (),w",
        sel(R("bar", "exists"), R("w", "exists"), R("x", "notin", "abc", "", "def"), R("z", "in", "")),
    ),
    ("x,y in (a)", sel(R("x", "exists"), R("y", "in", "a"))),
    ("x=a", sel(R("x", "=", "a"))),
    ("x>1", sel(R("x", "gt", "1"))),
    ("x<7", sel(R("x", "lt", "7"))),
    ("x=a,y!=b", sel(R("x", "=", "a"), R("y", "!=", "b"))),
    ("x=a,y!=b,z in (h,i,j)", sel(R("x", "=", "a"), R("y", "!=", "b"), R("z", "in", "h", "i", "j"))),
    ("x notin ( )", sel(R("x", "notin", ""))),
    ("x notin (, a)", sel(R("x", "notin", "", "a"))),
    ("a ", sel(R("a", "exists"))),
    ("a in (x,y,notin, z,in)", sel(R("a", "in", "in", "notin", "x", "y", "z"))),  # 'in' inside a list
]
SET_SELECTOR_INVALID = [
    "x,,y",
    ",x,y",
    "x nott in (y)",
    "a in (xyz),",
    "a in (xyz)b notin ()",
    "a in (xyz abc)",  # no comma
    "a notin(",  # badly formed
    "a (",  # cpar
    "(",  # opar
]


@pytest.mark.parametrize(("text", "expected"), SET_SELECTOR_VALID)
def test_set_selector_parser_valid(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize("text", SET_SELECTOR_INVALID)
def test_set_selector_parser_invalid(text):
    with pytest.raises(SelectorError):
        parse(text)


# --- keywords, empty values, comma runs -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # selector_test.go TestSelectorMatches: "notin=in" (in and notin in exactMatch).
        ("notin=in", sel(R("notin", "=", "in"))),
        ("in=foo", sel(R("in", "=", "foo"))),
        ("in", sel(R("in", "exists"))),
        ("!notin", sel(R("notin", "!"))),
        ("in in (in)", sel(R("in", "in", "in"))),
        ("x in (in, notin)", sel(R("x", "in", "in", "notin"))),
        ("x==notin", sel(R("x", "==", "notin"))),
        ("x in (,)", sel(R("x", "in", ""))),
        ("x in (a,,b)", sel(R("x", "in", "", "a", "b"))),
        ("x in (a,,,)", sel(R("x", "in", "", "a"))),
        ("x in (,,,)", sel(R("x", "in", ""))),
        ("x in (,,a)", sel(R("x", "in", "", "a"))),
        ("x in (a,,,,b)", sel(R("x", "in", "", "a", "b"))),
        ("x in (b,a,b)", sel(R("x", "in", "a", "b"))),
        ("x=,y!=", sel(R("x", "=", ""), R("y", "!=", ""))),
        ("x,x", sel(R("x", "exists"), R("x", "exists"))),
        ("! x", sel(R("x", "!"))),
        ("x>-0", None),  # "-0" parses as an integer but is not a label value
    ],
)
def test_keywords_and_value_lists(text, expected):
    if expected is None:
        with pytest.raises(SelectorError):
            parse(text)
    else:
        assert parse(text) == expected


@pytest.mark.parametrize("text", ["x in (a,,)", "x in (,,)", "x in (a,,,,)"])
def test_even_comma_run_before_close_paren_is_rejected(text):
    # parseIdentifiersList consumes commas in pairs, then expects a value or a comma.
    with pytest.raises(SelectorError) as info:
        parse(text)
    assert info.value.reason == "unable to parse requirement: found ')', expected: ',', or identifier"


# --- upstream's error messages -------------------------------------------------------------

KEY_MSG = (
    'unable to parse requirement: invalid label key "-bad": name part must consist of alphanumeric '
    "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
    "or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
VALUE_MSG = (
    'unable to parse requirement: invalid label value: "a|b": at key: "x": a valid label must be an empty '
    "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
OPERATOR_EXPECTED = "expected: '=', '!=', '==', 'in', notin'"

ERRORS = [
    (",a", "found ',', expected: !, identifier, or 'end of string'", 1),
    ("(", "found '(', expected: !, identifier, or 'end of string'", 1),
    ("!=a", "found '!=', expected: !, identifier, or 'end of string'", 1),
    ("a,", "found '', expected: identifier after ','", 3),
    ("x,,y", "found ',', expected: identifier after ','", 3),
    ("a in (xyz),", "found '', expected: identifier after ','", 12),
    ("x=a b", "found 'b', expected: ',' or 'end of string'", 5),
    ("x==a==b", "found '==', expected: ',' or 'end of string'", 5),
    ("!x=a", "found '=', expected: ',' or 'end of string'", 3),
    ("!a in (b)", "found 'in', expected: ',' or 'end of string'", 4),
    ("a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'", 11),
    ("!", "unable to parse requirement: found '', expected: identifier", 2),
    ("!!a", "unable to parse requirement: found '!', expected: identifier", 2),
    ("! (", "unable to parse requirement: found '(', expected: identifier", 3),
    ("a b", f"unable to parse requirement: found 'b', {OPERATOR_EXPECTED}", 3),
    ("x nott in (y)", f"unable to parse requirement: found 'nott', {OPERATOR_EXPECTED}", 3),
    ("a (", f"unable to parse requirement: found '(', {OPERATOR_EXPECTED}", 3),
    ("x=(a)", "unable to parse requirement: found '(', expected: identifier", 3),
    ("x!=!", "unable to parse requirement: found '!', expected: identifier", 4),
    ("x in", "unable to parse requirement: found '' expected: '('", 5),
    ("x notin a", "unable to parse requirement: found 'a' expected: '('", 9),
    ("x in in", "unable to parse requirement: found 'in' expected: '('", 6),
    ("a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier", 9),
    ("x in (=", "unable to parse requirement: found '=', expected: ',', ')' or identifier", 7),
    ("a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'", 11),
    ("x in (a", "unable to parse requirement: found '', expected: ',' or ')'", 8),
    ("x in (a!)", "unable to parse requirement: found '!', expected: ',' or ')'", 8),
    ("x in (a,", "unable to parse requirement: found '', expected: ',', or identifier", 9),
    ("x in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier", 9),
    ("-bad=value", KEY_MSG, 1),
    ("-bad b", KEY_MSG, 1),  # the key is checked before the operator is read
    ("!-bad", KEY_MSG, 2),
    ("x in (a|b) c", VALUE_MSG, 7),  # a finished requirement is checked before what follows
    ("x=a|b,-bad", VALUE_MSG, 3),
    ("x<a", "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer", 3),
    ("x>", "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer", 3),
    ("x>a b", "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer", 3),
]


@pytest.mark.parametrize(("text", "reason", "column"), ERRORS)
def test_error_messages(text, reason, column):
    with pytest.raises(SelectorError) as info:
        parse(text)
    assert (info.value.reason, info.value.column, info.value.text) == (reason, column, text)
    # The oracle transliterated from selector.go agrees on the wording.
    assert reference_parse(text) == ("error", reason)


def test_values_are_checked_in_sorted_order():
    with pytest.raises(SelectorError) as info:
        parse("x in (b|, a|)")
    assert info.value.reason.startswith('unable to parse requirement: invalid label value: "a|": at key: "x"')
    assert info.value.column == 11


@pytest.mark.parametrize(
    ("text", "reason", "column"),
    [
        ("a||", "found '', expected: identifier after '||'", 4),
        ("||a", "found '||', expected: !, identifier, or 'end of string'", 1),
        ("a,||b", "found '||', expected: identifier after ','", 3),
        ("a || || b", "found '||', expected: identifier after '||'", 6),
        ("x in (a||b)", "unable to parse requirement: found '||', expected: ',' or ')'", 8),
        ("!a=b || c", "found '=', expected: ',' or 'end of string'", 3),
    ],
)
def test_or_extension_errors(text, reason, column):
    with pytest.raises(SelectorError) as info:
        parse(text)
    assert (info.value.reason, info.value.column) == (reason, column)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a=b || c", Selector(((R("a", "=", "b"),), (R("c", "exists"),)))),
        ("a,b||c,!d", Selector(((R("a", "exists"), R("b", "exists")), (R("c", "exists"), R("d", "!"))))),
        ("x= || y", Selector(((R("x", "=", ""),), (R("y", "exists"),)))),
        ("x in (a) ||y notin (b)", Selector(((R("x", "in", "a"),), (R("y", "notin", "b"),)))),
    ],
)
def test_or_groups(text, expected):
    assert parse(text) == expected


# --- NUL bytes: upstream's lexer reads a NUL as its end-of-input marker --------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a \x00=b", sel(R("a", "exists"))),  # NUL where a token starts: the rest is ignored
        ("\x00garbage((", Selector.EVERYTHING),
        ("a=\x00b", sel(R("a", "=", "b"))),  # NUL after an operator: consumed as a separator
        ("a\x00=b", sel(R("a", "=", "b"))),  # NUL after an identifier: same
        ("a\x00\x00b", sel(R("a", "exists"))),
        ("x=a\x00garbage", None),  # ... so "garbage" is the next token
    ],
)
def test_nul_bytes(text, expected):
    assert ours_as_reference(text) == reference_normalized(text)
    if expected is None:
        with pytest.raises(SelectorError):
            parse(text)
    else:
        assert parse(text) == expected


TRICKY = [
    "", " ", "\t\r\n", "a", "!a", "a,b", "a=", "a==", "a!=", "a>", "a<", "a>=1", "a=<1", "a=>1", "a!==b",
    "a in ()", "a in ( , )", "a in (,,,,)", "a in (,,,,,)", "a in ((", "a in ())", "a in (a)(", "a in (a),",
    "in in in", "notin notin (notin)", "in,notin", "!in", "!notin=", "a=in,b=notin", "a b c", "a!b", "a(b)",
    "k8s.io/name=v", "k8s.io/=v", "/n=v", "a/b/c", "a=b/c", "a>99999999999999999999", "a>+1", "a<-1", "a>01",
    "A_1.b-2=Z", "a=" + "v" * 64, "k" * 64, "é=é", "a=\x01", "\x01", "a\tin\t(b)", "a\nnotin\n(\n)",
    "=", "==", "!", "!=", ")", ",", ">", "<", "a)", "a,)", "a in (b c)", "a in (b,c d)", "x in (a,,=)",
]  # fmt: skip


@pytest.mark.parametrize("text", TRICKY)
def test_agrees_with_upstream_transliteration(text):
    assert ours_as_reference(text) == reference_normalized(text)


# --- SelectorError --------------------------------------------------------------------------


def test_selector_error_renders_caret():
    with pytest.raises(SelectorError) as info:
        parse("x in (a b)")
    err = info.value
    assert isinstance(err, ValueError)
    assert str(err) == (
        "invalid selector at column 9: unable to parse requirement: found 'b', expected: ',' or ')'\n"
        "  x in (a b)\n"
        "          ^"
    )


def test_selector_error_caret_on_the_right_line_and_at_the_end():
    with pytest.raises(SelectorError) as info:
        parse("a=b,\n\tc d")
    assert info.value.column == 9
    assert str(info.value).splitlines()[1:] == ["   c d", "     ^"]
    with pytest.raises(SelectorError) as info:
        parse("x in")
    assert str(info.value).splitlines()[1:] == ["  x in", "      ^"]


def test_selector_error_windows_long_lines():
    text = "a" + " " * 100 + "b" + " " * 100
    with pytest.raises(SelectorError) as info:
        parse(text)
    assert info.value.column == 102
    line, caret = str(info.value).splitlines()[1:]
    assert line.startswith("  ...") and line.endswith("...")
    assert len(line) == 2 + 3 + 72 + 3
    assert line[len(caret) - 1] == "b"


def test_selector_error_pickles():
    err = SelectorError("why", "text", 3)
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.reason, copy.text, copy.column, str(copy)) == ("why", "text", 3, str(err))


def test_conversion_style_error_has_no_position():
    err = SelectorError("just the reason")
    assert (str(err), err.text, err.column) == ("just the reason", None, None)


def test_parse_rejects_non_strings():
    with pytest.raises(TypeError):
        parse(b"a=b")  # type: ignore[arg-type]
