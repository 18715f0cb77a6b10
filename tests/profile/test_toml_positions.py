"""Exact positions for TOML key paths (ruleset.profile.toml_positions)."""

from __future__ import annotations

import datetime as dt
import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ruleset.profile.toml_positions import KeyPath, Position, index_positions, locate

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


def all_paths(value: Any, prefix: KeyPath = ()) -> Iterator[KeyPath]:
    """Every key path of a loaded TOML document (table keys and array indices)."""
    if isinstance(value, dict):
        children = value.items()
    elif isinstance(value, list):
        children = enumerate(value)
    else:
        return
    for key, child in children:
        yield (*prefix, key)
        yield from all_paths(child, (*prefix, key))


def lines(*texts: str) -> str:
    """A document from its lines, LF line endings."""
    return "\n".join(texts) + "\n"


def as_tuples(text: str) -> dict[KeyPath, tuple[int, int, int, int]]:
    return {
        path: (p.line, p.column, p.value_line, p.value_column) for path, p in index_positions(text).items()
    }


# Each case: the document and the complete expected index, path -> (line, column, value_line,
# value_column). Columns were counted by hand.
CASES = [
    pytest.param(
        lines("a = 1", "b_c-9 = true", "1234 = 'x'"),
        {("a",): (1, 1, 1, 5), ("b_c-9",): (2, 1, 2, 9), ("1234",): (3, 1, 3, 8)},
        id="bare-keys",
    ),
    pytest.param(
        lines(
            '"a b" = 1',
            "'lit.key' = 2",
            r'"esc\"q\u00e9" = 3',
            '"" = 4',
        ),
        {
            ("a b",): (1, 1, 1, 9),
            ("lit.key",): (2, 1, 2, 13),
            ('esc"qé',): (3, 1, 3, 18),  # escapes are decoded in the path, columns count raw text
            ("",): (4, 1, 4, 6),
        },
        id="quoted-keys",
    ),
    pytest.param(
        lines("a.b.c = 1"),
        {("a",): (1, 1, 1, 3), ("a", "b"): (1, 3, 1, 5), ("a", "b", "c"): (1, 5, 1, 9)},
        id="dotted-key",
    ),
    pytest.param(
        lines("a . b\t.  'c d' = 1"),
        {("a",): (1, 1, 1, 5), ("a", "b"): (1, 5, 1, 10), ("a", "b", "c d"): (1, 10, 1, 18)},
        id="dotted-key-whitespace",
    ),
    pytest.param(
        lines("a.x = 1", "a.y = 2"),
        {("a",): (1, 1, 1, 3), ("a", "x"): (1, 3, 1, 7), ("a", "y"): (2, 3, 2, 7)},
        id="dotted-key-first-definition-wins",
    ),
    pytest.param(
        lines("[a.b]", "k = 1"),
        {("a",): (1, 2, 1, 1), ("a", "b"): (1, 4, 1, 1), ("a", "b", "k"): (2, 1, 2, 5)},
        id="table",
    ),
    pytest.param(
        lines('[ a . "b c" ]', "k = 'v'"),
        {("a",): (1, 3, 1, 1), ("a", "b c"): (1, 7, 1, 1), ("a", "b c", "k"): (2, 1, 2, 5)},
        id="table-header-spaces-and-quotes",
    ),
    pytest.param(
        lines("[a.b.c]", "x = 1", "[a]", "y = 2"),
        {
            ("a",): (3, 2, 3, 1),  # the explicit [a] beats its implicit creation on line 1
            ("a", "b"): (1, 4, 1, 1),
            ("a", "b", "c"): (1, 6, 1, 1),
            ("a", "b", "c", "x"): (2, 1, 2, 5),
            ("a", "y"): (4, 1, 4, 5),
        },
        id="implicit-super-table",
    ),
    pytest.param(
        lines(
            "[fruit]",
            'apple.color = "red"',
            "apple.taste.sweet = true",
            "[fruit.apple.texture]",
            "smooth = true",
        ),
        {
            ("fruit",): (1, 2, 1, 1),
            ("fruit", "apple"): (2, 1, 2, 7),
            ("fruit", "apple", "color"): (2, 7, 2, 15),
            ("fruit", "apple", "taste"): (3, 7, 3, 13),
            ("fruit", "apple", "taste", "sweet"): (3, 13, 3, 21),
            ("fruit", "apple", "texture"): (4, 14, 4, 1),
            ("fruit", "apple", "texture", "smooth"): (5, 1, 5, 10),
        },
        id="sub-table-of-dotted-table",
    ),
    pytest.param(
        lines("[[rules]]", 'name = "a"', "", "[[rules]]", 'name = "b"'),
        {
            ("rules",): (1, 3, 1, 1),
            ("rules", 0): (1, 3, 1, 1),
            ("rules", 0, "name"): (2, 1, 2, 8),
            ("rules", 1): (4, 3, 4, 1),
            ("rules", 1, "name"): (5, 1, 5, 8),
        },
        id="array-of-tables",
    ),
    pytest.param(
        lines("[[a]]", "[[a.b]]", "x = 1", "[[a]]", "[a.c]", "y = 2", "[[a.b]]", "[[a.b]]", "[a.b.d]"),
        {
            ("a",): (1, 3, 1, 1),
            ("a", 0): (1, 3, 1, 1),
            ("a", 0, "b"): (2, 5, 2, 1),
            ("a", 0, "b", 0): (2, 5, 2, 1),
            ("a", 0, "b", 0, "x"): (3, 1, 3, 5),
            ("a", 1): (4, 3, 4, 1),
            ("a", 1, "c"): (5, 4, 5, 1),
            ("a", 1, "c", "y"): (6, 1, 6, 5),
            ("a", 1, "b"): (7, 5, 7, 1),
            ("a", 1, "b", 0): (7, 5, 7, 1),
            ("a", 1, "b", 1): (8, 5, 8, 1),
            ("a", 1, "b", 1, "d"): (9, 6, 9, 1),
        },
        id="nested-arrays-of-tables-and-sub-tables",
    ),
    pytest.param(
        lines('t = { k = "v", x.y = 2 }'),
        {
            ("t",): (1, 1, 1, 5),
            ("t", "k"): (1, 7, 1, 11),
            ("t", "x"): (1, 16, 1, 18),
            ("t", "x", "y"): (1, 18, 1, 22),
        },
        id="inline-table",
    ),
    pytest.param(
        lines("a = [1, 2, [3, 4], {a = 1}]"),
        {
            ("a",): (1, 1, 1, 5),
            ("a", 0): (1, 6, 1, 6),
            ("a", 1): (1, 9, 1, 9),
            ("a", 2): (1, 12, 1, 12),
            ("a", 2, 0): (1, 13, 1, 13),
            ("a", 2, 1): (1, 16, 1, 16),
            ("a", 3): (1, 20, 1, 20),
            ("a", 3, "a"): (1, 21, 1, 25),
        },
        id="array",
    ),
    pytest.param(
        lines("e = {}", "f = [ ]", "g = [[]]"),
        {("e",): (1, 1, 1, 5), ("f",): (2, 1, 2, 5), ("g",): (3, 1, 3, 5), ("g", 0): (3, 6, 3, 6)},
        id="empty-containers",
    ),
    pytest.param(
        lines(
            "ports = [ # first, with [brackets]",
            "  8080,   # web = yes",
            '  # a comment line "quoted"',
            """  [ "x", 'y', ],""",
            "  { n = 1 },",
            "]",
            "after = 1",
        ),
        {
            ("ports",): (1, 1, 1, 9),
            ("ports", 0): (2, 3, 2, 3),
            ("ports", 1): (4, 3, 4, 3),
            ("ports", 1, 0): (4, 5, 4, 5),
            ("ports", 1, 1): (4, 10, 4, 10),
            ("ports", 2): (5, 3, 5, 3),
            ("ports", 2, "n"): (5, 5, 5, 9),
            ("after",): (7, 1, 7, 9),
        },
        id="multi-line-array-comments-trailing-commas",
    ),
    pytest.param(
        lines(
            's = """first # not a comment',
            r"""key = "value" [table] ''' \""" \\""",  # an escaped quote, then an escaped backslash
            '"" ends with quotes"""""',
            "t = 1",
        ),
        {("s",): (1, 1, 1, 5), ("t",): (4, 1, 4, 5)},
        id="multi-line-basic-string",
    ),
    pytest.param(
        lines(
            'u = """\\',
            "    folded \\",
            '    text"""',
            'v = """""a"""',
            "w = 2",
        ),
        {("u",): (1, 1, 1, 5), ("v",): (4, 1, 4, 5), ("w",): (5, 1, 5, 5)},
        id="multi-line-basic-line-ending-backslash-and-inner-quotes",
    ),
    pytest.param(
        lines(
            "l = '''",
            "[not.a.table]",
            """x = 'y' # "no comment" ''""",
            "'''",
            "[real]",
            "k = '''a''b''''",
        ),
        {("l",): (1, 1, 1, 5), ("real",): (5, 2, 5, 1), ("real", "k"): (6, 1, 6, 5)},
        id="multi-line-literal-string",
    ),
    pytest.param(
        lines(
            r'a = "quote \" # [x] = y \\"',
            r"b = 'C:\path # not a comment'",
            """c = { s = "}, ]", t = 'x,y' }""",
        ),
        {
            ("a",): (1, 1, 1, 5),
            ("b",): (2, 1, 2, 5),
            ("c",): (3, 1, 3, 5),
            ("c", "s"): (3, 7, 3, 11),
            ("c", "t"): (3, 19, 3, 23),
        },
        id="strings-with-escapes-and-delimiters",
    ),
    pytest.param(
        lines(
            "int = +1_000",
            "hex = 0xDEAD_beef",
            "flt = -3.14e+2",
            "inf = -inf",
            "nan = nan",
            "yes = true",
            "odt = 1979-05-27T07:32:00.999-07:00",
            "ldt = 1979-05-27 07:32:00",
            "ld = 1979-05-27",
            "lt = 07:32:00",
            "arr = [1979-05-27 07:32:00, false, 1e3]",
        ),
        {
            ("int",): (1, 1, 1, 7),
            ("hex",): (2, 1, 2, 7),
            ("flt",): (3, 1, 3, 7),
            ("inf",): (4, 1, 4, 7),
            ("nan",): (5, 1, 5, 7),
            ("yes",): (6, 1, 6, 7),
            ("odt",): (7, 1, 7, 7),
            ("ldt",): (8, 1, 8, 7),
            ("ld",): (9, 1, 9, 6),
            ("lt",): (10, 1, 10, 6),
            ("arr",): (11, 1, 11, 7),
            ("arr", 0): (11, 8, 11, 8),
            ("arr", 1): (11, 29, 11, 29),
            ("arr", 2): (11, 36, 11, 36),
        },
        id="numbers-dates-booleans",
    ),
    pytest.param(
        lines(
            '# top comment with = and [table] and "quotes"',
            "[t] # comment after header [x]",
            "a = 1 # comment = 2",
            "   # indented comment",
            "b = [ # c",
            "  1 # c, ]",
            "  , 2 ]",
        ),
        {
            ("t",): (2, 2, 2, 1),
            ("t", "a"): (3, 1, 3, 5),
            ("t", "b"): (5, 1, 5, 5),
            ("t", "b", 0): (6, 3, 6, 3),
            ("t", "b", 1): (7, 5, 7, 5),
        },
        id="comments-everywhere",
    ),
    pytest.param(
        'a = 1\r\n[t]\r\nb = """x\r\ny"""\r\nc = [\r\n  1,\r\n]\r\n',
        {
            ("a",): (1, 1, 1, 5),
            ("t",): (2, 2, 2, 1),
            ("t", "b"): (3, 1, 3, 5),
            ("t", "c"): (5, 1, 5, 5),
            ("t", "c", 0): (6, 3, 6, 3),
        },
        id="crlf",
    ),
    pytest.param(
        lines("\ta\t=\t1", "[\tt\t]", "\tb . c =\t[\t2 ]"),
        {
            ("a",): (1, 2, 1, 6),
            ("t",): (2, 3, 2, 1),
            ("t", "b"): (3, 2, 3, 6),
            ("t", "b", "c"): (3, 6, 3, 10),
            ("t", "b", "c", 0): (3, 12, 3, 12),
        },
        id="tabs-are-one-column",
    ),
    pytest.param(
        "\ufeff" + lines("a = 1", "[t]"),
        {("a",): (1, 1, 1, 5), ("t",): (2, 2, 2, 1)},
        id="bom-takes-no-column",
    ),
    pytest.param(
        lines(
            '"名前" = "値 # not a comment"',
            't = { "é" = "ü", k = 1 }',
            """[ "ключ" . 'ü' ]""",
            'x = "日本"',
        ),
        {
            ("名前",): (1, 1, 1, 8),
            ("t",): (2, 1, 2, 5),
            ("t", "é"): (2, 7, 2, 13),
            ("t", "k"): (2, 18, 2, 22),
            ("ключ",): (3, 3, 3, 1),
            ("ключ", "ü"): (3, 12, 3, 1),
            ("ключ", "ü", "x"): (4, 1, 4, 5),
        },
        id="non-ascii-columns-count-code-points",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_index_positions(text: str, expected: dict[KeyPath, tuple[int, int, int, int]]) -> None:
    data = tomllib.loads(text.removeprefix("\ufeff"))  # the cases themselves must be valid TOML
    assert set(all_paths(data)) == set(expected)
    assert as_tuples(text) == expected


def test_position_is_a_frozen_value() -> None:
    position = index_positions("a = 1\n")[("a",)]
    assert position == Position(line=1, column=1, value_line=1, value_column=5)
    with pytest.raises(AttributeError):
        position.line = 2  # type: ignore[misc]


LOCATE_DOC = "[rules]\nname = 'x'\n"


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (("rules", "name"), False, (2, 1)),
        (("rules", "name"), True, (2, 8)),
        (("rules",), False, (1, 2)),
        (("rules",), True, (1, 1)),
        (("rules", "missing", "deeper"), False, (1, 2)),  # falls back to the enclosing table
        (("rules", "missing"), True, (1, 1)),
        (("rules", "name", 0), False, (2, 1)),
        (("other",), False, None),
        ((), False, None),
    ],
)
def test_locate(path: KeyPath, value: bool, expected: tuple[int, int] | None) -> None:
    assert locate(index_positions(LOCATE_DOC), path, value=value) == expected


def test_locate_accepts_a_list_path() -> None:
    assert locate(index_positions(LOCATE_DOC), ["rules", "name"]) == (2, 1)  # type: ignore[arg-type]


# -- speed -------------------------------------------------------------------------------------


def big_profile(lines: int) -> str:
    """A realistic profile of about ``lines`` lines using every construct."""
    chunk = [
        "[[rules]]",
        'name = "rule-{i}"  # why: "quoted # hash"',
        "weight = {i}",
        'selector = {{ app = "web", tier.name = "front", ports = [80, 443] }}',
        "labels = [",
        '  "a", "b",  # trailing comment',
        "  'c',",
        "]",
        'doc = """',
        "multi-line [not.a.table] = 'x'",
        '"""',
        "[rules.limits]",
        "cpu.max = 1.5e3",
        "since = 1979-05-27 07:32:00",
        "",
    ]
    out: list[str] = []
    for i in range(lines // len(chunk)):
        out += [line.format(i=i) for line in chunk]
    out += ["# filler"] * (lines - len(out))
    return "\n".join(out) + "\n"


def test_indexes_a_2000_line_profile_quickly() -> None:
    text = big_profile(2000)
    data = tomllib.loads(text)
    positions = index_positions(text)
    assert set(positions) == set(all_paths(data))
    best = min(_time(index_positions, text) for _ in range(5))
    assert best < 0.05, f"indexing 2,000 lines took {best * 1000:.1f} ms"


def _time(func: Any, arg: str) -> float:
    start = time.perf_counter()
    func(arg)
    return time.perf_counter() - start


# -- property: random documents in random layouts ----------------------------------------------

BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # control characters except tab
SHORT_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
COMMENTS = ["", " plain", ' a = [1, "x"', ' [t] \'q\' """ é', "#", "\t}{,"]
PADDING = ["", " ", "\t", "  \t"]
EQUALS = ["=", " = ", "\t=  ", " ="]
DOTS = [".", " . ", "\t.", ". "]


class Writer:
    """Serialize a data tree as TOML in a randomly chosen layout.

    While writing, it records for each key path what the text must start with at the indexed
    key position and at the value position (``expected``), following the documented rules.
    """

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd
        self.newline = rnd.choice(["\n", "\r\n"])
        self.lines: list[str] = []
        self.line_count = 0  # physical lines in self.lines (an entry may span several)
        # path -> (text at the key position, text at the value position, line if known)
        self.expected: dict[KeyPath, tuple[str, str, int | None]] = {}
        self.spellings: dict[KeyPath, str] = {}

    def dump(self, data: dict[str, Any]) -> str:
        self.section((), data, (), None)
        text = self.newline.join(self.lines) + self.rnd.choice(["", self.newline])
        return ("\ufeff" if self.rnd.random() < 0.2 else "") + text

    # -- layout ----------------------------------------------------------------------------

    def section(self, path: KeyPath, table: dict[str, Any], segments: tuple, bracket: str | None) -> None:
        """Write a table: its header and key/value lines, and its sub-table sections."""
        inline, deferred = self.split(table)
        # A table holding only sub-tables may be left implicit: its first sub-header creates it.
        explicit = bracket != "[" or (inline or not deferred or self.rnd.random() < 0.5)
        # A table's own header may also come after its sub-tables, which created it implicitly;
        # then the header, its explicit definition, takes over the table's position.
        late = bracket == "[" and explicit and deferred and self.rnd.random() < 0.3
        if explicit and not late:
            self.own_lines(path, inline, segments, bracket)
        for key, value in deferred:
            child = (*path, key)
            child_segments = (*segments, (child, self.spell(child)))
            if isinstance(value, dict):
                self.section(child, value, child_segments, "[")
            else:
                for index, element in enumerate(value):
                    self.section((*child, index), element, child_segments, "[[")
        if late:
            self.own_lines(path, inline, segments, bracket)

    def own_lines(self, path: KeyPath, inline: list, segments: tuple, bracket: str | None) -> None:
        if bracket:
            self.header(path, segments, bracket)
        for entry in self.entries(path, inline, ()):
            self.emit(entry)

    def split(self, table: dict[str, Any]) -> tuple[list, list]:
        """Which children are written as ``key = value`` lines and which get their own headers."""
        inline, deferred = [], []
        for key, value in table.items():
            is_array_of_tables = isinstance(value, list) and value and all(isinstance(e, dict) for e in value)
            if (isinstance(value, dict) or is_array_of_tables) and self.rnd.random() < 0.6:
                deferred.append((key, value))
            else:
                inline.append((key, value))
        return inline, deferred

    def header(self, path: KeyPath, segments: tuple, bracket: str) -> None:
        names = self.dotted(spelling for _, spelling in segments)
        close = "]]" if bracket == "[[" else "]"
        pad = self.rnd.choice(["", " "])
        line = self.emit(f"{bracket}{pad}{names}{pad}{close}")
        for prefix, spelling in segments:  # implicit super-tables: first definition wins
            self.expected.setdefault(prefix, (spelling, bracket, line))
        self.expected[path] = (segments[-1][1], bracket, line)

    def entries(self, path: KeyPath, items: list, prefix: tuple[str, ...]) -> list[str]:
        """``key = value`` texts for ``items``; sub-tables randomly flattened into dotted keys."""
        out = []
        for key, value in items:
            child = (*path, key)
            keys = (*prefix, self.spell(child))
            if isinstance(value, dict) and value and self.rnd.random() < 0.4:
                first = next(iter(value))
                self.expected[child] = (keys[-1], self.spell((*child, first)), None)
                out += self.entries(child, list(value.items()), keys)
            else:
                rendered = self.render(child, value)
                self.expected[child] = (keys[-1], rendered, None)
                out.append(self.dotted(keys) + self.rnd.choice(EQUALS) + rendered)
        return out

    def render(self, path: KeyPath, value: Any) -> str:
        if isinstance(value, dict):
            parts = self.entries(path, list(value.items()), ())
            pad = self.rnd.choice(PADDING)
            return "{" + pad + (self.rnd.choice([",", ", ", " ,\t"]).join(parts)) + pad + "}"
        if isinstance(value, list):
            return self.render_array(path, value)
        return self.scalar(value)

    def render_array(self, path: KeyPath, values: list) -> str:
        elements = []
        for index, value in enumerate(values):
            rendered = self.render((*path, index), value)
            self.expected[(*path, index)] = (rendered, rendered, None)
            elements.append(rendered)
        trailing = "," if elements and self.rnd.random() < 0.3 else ""
        if self.rnd.random() < 0.5:
            return "[" + self.rnd.choice(PADDING) + ", ".join(elements) + trailing + "]"
        lines = ["[" + self.comment()]
        for number, rendered in enumerate(elements):
            comma = "," if number < len(elements) - 1 else trailing
            lines.append(self.rnd.choice(PADDING) + rendered + comma + self.comment())
        return self.newline.join([*lines, "]"])

    # -- spelling ----------------------------------------------------------------------------

    def spell(self, path: KeyPath) -> str:
        """One spelling per key path, so every occurrence of the key is written the same way."""
        if path not in self.spellings:
            key = path[-1]
            assert isinstance(key, str)
            choices = [self.basic(key)]
            if BARE_KEY.fullmatch(key):
                choices += [key, key]
            if "'" not in key and not CONTROL.search(key):
                choices.append(f"'{key}'")
            self.spellings[path] = self.rnd.choice(choices)
        return self.spellings[path]

    def dotted(self, keys: Any) -> str:
        return self.rnd.choice(DOTS).join(keys)

    def basic(self, text: str) -> str:
        out = []
        for char in text:
            if char in SHORT_ESCAPES and (char in '"\\' or self.rnd.random() < 0.5):
                out.append(SHORT_ESCAPES[char])
            elif CONTROL.match(char) or (ord(char) > 127 and self.rnd.random() < 0.3):
                out.append(f"\\u{ord(char):04x}")
            else:
                out.append(char)
        return '"' + "".join(out) + '"'

    def scalar(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            if value >= 0:
                return self.rnd.choice([str(value), hex(value), oct(value), bin(value)])
            return str(value)
        if isinstance(value, float):
            return repr(value)
        if isinstance(value, dt.datetime):
            return value.isoformat(sep=self.rnd.choice(["T", " "]))
        if isinstance(value, (dt.date, dt.time)):
            return value.isoformat()
        return self.string(value)

    def string(self, text: str) -> str:
        choices = [self.basic(text), self.multi_line_basic(text)]
        if "'" not in text and not CONTROL.search(text):
            choices.append(f"'{text}'")
        if "'''" not in text and not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text):
            choices.append(self.opening("'''", text) + text + "'''")
        return self.rnd.choice(choices)

    def multi_line_basic(self, text: str) -> str:
        out = []
        for run in re.findall(r'"+|[^"]', text):
            if run[0] == '"':  # escape every third quote so that no run of three closes early
                out += ['\\"' if i % 3 == 2 else '"' for i in range(len(run))]
            elif run == "\\":
                out.append("\\\\")
            elif run != "\n" and CONTROL.match(run):
                out.append(f"\\u{ord(run):04x}")
            else:
                out.append(run)
        return self.opening('"""', text) + "".join(out) + '"""'

    def opening(self, delimiter: str, text: str) -> str:
        # A newline right after the opening delimiter is trimmed by TOML: required when the
        # content starts with one, optional otherwise.
        if text.startswith("\n") or self.rnd.random() < 0.3:
            return delimiter + self.newline
        return delimiter

    # -- lines -------------------------------------------------------------------------------

    def emit(self, line: str) -> int:
        """Append ``line`` (maybe after a comment or blank line); return its line number."""
        if self.rnd.random() < 0.2:
            self.append(self.rnd.choice(PADDING) + "#" + self.rnd.choice(COMMENTS))
        if self.rnd.random() < 0.1:
            self.append("")
        self.append(self.rnd.choice(PADDING) + line + self.comment())
        return self.line_count - line.count("\n")

    def append(self, chunk: str) -> None:
        self.lines.append(chunk)
        self.line_count += 1 + chunk.count("\n")

    def comment(self) -> str:
        if self.rnd.random() < 0.3:
            return self.rnd.choice(PADDING) + "#" + self.rnd.choice(COMMENTS)
        return ""


KEY_ALPHABET = [*"abzAZ09_-", " ", ".", "#", "=", "[", "]", '"', "'", "\\", "\n", "\t", "é", "日", "\x7f"]
STRING_FRAGMENTS = [
    *"ab #=[]{},",
    '"',
    '""',
    '"""',
    "'",
    "''",
    "'''",
    "\\",
    "\n",
    "\r\n",
    "\t",
    "\x00",
    "\x7f",
    "é",
    "日本",
    "\\u00e9",
]

keys = st.one_of(
    st.from_regex(r"[A-Za-z0-9_-]{1,6}", fullmatch=True),
    st.text(alphabet=KEY_ALPHABET, max_size=5),
)
strings = st.lists(st.sampled_from(STRING_FRAGMENTS), max_size=6).map("".join)
# Strings first: they are what could confuse the scanner, and hypothesis favours early branches.
# Quotes and backslashes right before a closing delimiter are the classic scanner trap.
scalars = st.one_of(
    strings,
    st.tuples(strings, st.sampled_from(['"', '""', "'", "''", "\\"])).map("".join),
    st.integers(min_value=-(10**9), max_value=10**9),
    st.booleans(),
    st.floats(allow_nan=False),
    st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 1, 1)),
    st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2100, 1, 1)),
    st.times(),
)


def _containers(children: st.SearchStrategy) -> st.SearchStrategy:
    tables = st.dictionaries(keys, children, max_size=3)
    return st.one_of(st.lists(children, max_size=3), tables, st.lists(tables, min_size=1, max_size=3))


documents = st.dictionaries(keys, st.recursive(scalars, _containers, max_leaves=10), max_size=4)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=documents, rnd=st.randoms(use_true_random=False))
def test_random_documents(data: dict[str, Any], rnd: random.Random) -> None:
    writer = Writer(rnd)
    text = writer.dump(data)
    body = text.removeprefix("\ufeff")
    assert tomllib.loads(body) == data  # the writer itself must produce the intended document

    positions = index_positions(text)
    assert set(positions) == set(all_paths(data)) == set(writer.expected)

    line_starts = [0] + [m.end() for m in re.finditer("\n", body)]

    def text_at(line: int, column: int) -> str:
        return body[line_starts[line - 1] + column - 1 :]

    for path, (key_text, value_text, line) in writer.expected.items():
        position = positions[path]
        assert text_at(position.line, position.column).startswith(key_text), path
        assert text_at(position.value_line, position.value_column).startswith(value_text), path
        if line is not None:  # headers: which of several same-spelled occurrences counts
            assert position.line == position.value_line == line, path
