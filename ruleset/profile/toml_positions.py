"""Source positions for every key path of a TOML document.

``tomllib`` returns values without positions, but every diagnostic about a profile must name a
real line and column. :func:`index_positions` re-scans the text *after* ``tomllib.loads`` has
accepted it and maps each key path (table keys as ``str``, array indices as ``int``) to where it
is written. Because the text is known to be valid TOML 1.0, the scanner only has to find token
boundaries: it is not a validator, and converts no values beyond decoding quoted keys.

Lines and columns are 1-based. Columns count Unicode code points (a tab is one column, ``é`` is
one column); a leading UTF-8 byte order mark takes no column.

Which position a path gets:

* ``key = value``: the key segment's first character (quotes included); the value position is
  the value's first character (opening quote, ``[`` or ``{`` for strings, arrays, inline tables).
* Dotted keys ``a.b.c = 1``: each prefix gets its own segment (first definition wins, so the
  table ``a`` keeps the place where it first appeared); a prefix's value position is the next
  segment, where the table's content starts being written.
* Table headers ``[a.b]``: the table gets its last segment in the header, the value position is
  the ``[``; prefixes get their segments unless defined earlier.
* Arrays of tables ``[[a]]``: each header appends an index, ``("a", 0)``, ``("a", 1)``...; the
  element gets the header's last segment and the ``[`` of ``[[``.
* Array elements ``[1, 2]``: ``(..., 0)``, ``(..., 1)``, key and value position both at the
  element's first character.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import pairwise

__all__ = ["KeyPath", "Position", "index_positions", "locate", "string_column"]

KeyPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Position:
    """Where a key path is written (all values 1-based)."""

    line: int  # line of the key (for an array element: of the element)
    column: int  # column of the key's first character, quotes included
    value_line: int  # line where the value starts
    value_column: int  # column where the value starts


def index_positions(text: str) -> dict[KeyPath, Position]:
    """Map every key path of the valid TOML document ``text`` to its :class:`Position`.

    ``text`` must already have been accepted by ``tomllib.loads`` (a leading BOM, which
    ``tomllib`` rejects, is tolerated here). This is not a validator: invalid input gives an
    unspecified result or a ``ValueError``.
    """
    indexer = _Indexer(text)
    try:
        return indexer.run()
    except IndexError:  # ran off the end: a value or key was cut short
        raise ValueError("not valid TOML: unexpected end of text") from None


def locate(
    positions: dict[KeyPath, Position], path: KeyPath, *, value: bool = False
) -> tuple[int, int] | None:
    """``(line, column)`` of ``path``, or of its longest present prefix when it is absent.

    The fallback lets a problem about a missing key point at the enclosing table. With
    ``value=True`` the value position is returned instead of the key position (also for the
    fallback prefix). ``None`` when not even the first segment of ``path`` is present.
    """
    path = tuple(path)
    for end in range(len(path), 0, -1):
        found = positions.get(path[:end])
        if found is not None:
            if value:
                return found.value_line, found.value_column
            return found.line, found.column
    return None


_BASIC_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_LITERAL_STRING = re.compile(r"'([^'\n]*)'")


def string_column(text: str, line: int, column: int, value: str, offset: int) -> int:
    """Where character ``offset`` (1-based) of the string ``value`` is, counted from the value's
    first character in the TOML ``text`` (1: the opening quote).

    ``line``/``column`` locate the value (its opening quote). For a one-line string the
    answer is ``1 + offset`` (the quote, then the content), as long as no escape sequence
    comes before that character; multi-line strings, escapes before it, or anything
    unexpected give 1: the value's start.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return 1
    raw = lines[line - 1][column - 1:]
    if raw.startswith(('"""', "'''")):
        return 1
    offset = max(0, min(offset - 1, len(value)))
    match = _BASIC_STRING.match(raw) or _LITERAL_STRING.match(raw)
    if match is None:
        return 1
    content = match.group(1)
    if raw[0] == '"' and "\\" in content[:offset]:
        return 1  # an escape before the offending character: raw and decoded offsets differ
    if content[:offset] != value[:offset]:
        return 1
    return 1 + 1 + offset


# Token patterns, applied with ``match`` at the current offset. Loops are written unrolled
# (``normal* (special normal*)*``) so that no text can be split between alternatives in two
# ways: matching stays linear even on text that is not valid TOML.
_BLANK = re.compile(r"[ \t\r\n]*(?:#[^\n]*[ \t\r\n]*)*")  # whitespace, newlines and comments
_SPACE = re.compile(r"[ \t]*")  # whitespace inside a line
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_BASIC = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_LITERAL = re.compile(r"'[^'\n]*'")
# Multi-line strings end at the first run of three unescaped quotes; up to two more quotes
# directly before the delimiter belong to the content, hence a closing run of 3 to 5.
_ML_BASIC = re.compile(r'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"{3,5}', re.DOTALL)
_ML_LITERAL = re.compile(r"'''[^']*(?:'(?!'')[^']*)*'{3,5}")
# Numbers, booleans, dates and times: anything up to the next delimiter. A local date-time
# may contain a space, so whitespace does not end a scalar (trailing blanks are harmless).
_SCALAR = re.compile(r"[^,\]}#\r\n]+")
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")
_SHORT_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
_KEY_PATTERNS = {'"': _BASIC, "'": _LITERAL}  # by first character; anything else is bare


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if len(code) > 1:
        return chr(int(code[1:], 16))
    return _SHORT_ESCAPES[code]


class _Indexer:
    """One pass over the text; ``pos`` is the offset of the next unread character."""

    def __init__(self, text: str) -> None:
        # Dropping the BOM up front keeps every offset-to-column computation BOM-free.
        self.text = text[1:] if text.startswith("\ufeff") else text
        self.pos = 0
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        self.out: dict[KeyPath, Position] = {}
        # Number of elements so far of each array of tables, by resolved path (with indices).
        self.aot_sizes: dict[KeyPath, int] = {}

    def run(self) -> dict[KeyPath, Position]:
        table: KeyPath = ()
        while self._skip_blank() < len(self.text):
            if self.text[self.pos] == "[":
                table = self._header()
            else:
                self._key_value(table)
        return self.out

    # -- positions -------------------------------------------------------------------------

    def _line_col(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def _position(self, key_offset: int, value_offset: int) -> Position:
        return Position(*self._line_col(key_offset), *self._line_col(value_offset))

    def _record(self, path: KeyPath, key_offset: int, value_offset: int, *, first_wins: bool) -> None:
        if first_wins and path in self.out:
            return
        self.out[path] = self._position(key_offset, value_offset)

    # -- low-level scanning ----------------------------------------------------------------

    def _skip_blank(self) -> int:
        self.pos = _BLANK.match(self.text, self.pos).end()  # type: ignore[union-attr]  # never fails
        return self.pos

    def _skip_space(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]  # never fails

    def _skip(self, pattern: re.Pattern[str]) -> str:
        """Consume the token ``pattern`` matches at ``pos`` and return its text."""
        match = pattern.match(self.text, self.pos)
        if match is None:
            line, column = self._line_col(self.pos)
            raise ValueError(f"not valid TOML at line {line}, column {column}")
        self.pos = match.end()
        return match.group()

    def _keys(self) -> list[tuple[str, int]]:
        """Read a (possibly dotted) key: each segment's decoded name and start offset."""
        segments = []
        while True:
            self._skip_space()
            start = self.pos
            segments.append((self._simple_key(), start))
            self._skip_space()
            if self.text.startswith(".", self.pos):
                self.pos += 1
            else:
                return segments

    def _simple_key(self) -> str:
        """Read one bare or quoted key segment and return its decoded name."""
        raw = self._skip(_KEY_PATTERNS.get(self.text[self.pos], _BARE_KEY))
        if raw[0] == "'":
            return raw[1:-1]
        if raw[0] == '"':
            return _ESCAPE.sub(_unescape, raw[1:-1]) if "\\" in raw else raw[1:-1]
        return raw

    # -- statements ------------------------------------------------------------------------

    def _header(self) -> KeyPath:
        """Read ``[a.b]`` or ``[[a.b]]``; record its paths and return the table's path."""
        bracket = self.pos
        is_array = self.text.startswith("[[", bracket)
        self.pos += 2 if is_array else 1
        segments = self._keys()
        self.pos += 2 if is_array else 1  # the closing bracket(s); _keys stopped right there
        path: KeyPath = ()
        for name, offset in segments[:-1]:
            path += (name,)
            self._record(path, offset, bracket, first_wins=True)
            if path in self.aot_sizes:  # a.b where a is an array of tables: its last element
                path += (self.aot_sizes[path] - 1,)
        name, offset = segments[-1]
        path += (name,)
        if is_array:
            self._record(path, offset, bracket, first_wins=True)
            size = self.aot_sizes.get(path, 0)
            self.aot_sizes[path] = size + 1
            path += (size,)
        # The header is the table's explicit definition: it beats an earlier implicit one
        # (``[a.b]`` before ``[a]``); valid TOML cannot define the same table twice.
        self._record(path, offset, bracket, first_wins=False)
        return path

    def _key_value(self, table: KeyPath) -> None:
        """Read ``key = value`` (in a table or an inline table) and record its paths."""
        segments = self._keys()
        self.pos += 1  # "="
        self._skip_space()
        path = table
        for (name, offset), (_, next_offset) in pairwise(segments):
            path += (name,)
            self._record(path, offset, next_offset, first_wins=True)
        name, offset = segments[-1]
        path += (name,)
        self._record(path, offset, self.pos, first_wins=False)
        self._value(path)

    def _value(self, path: KeyPath) -> None:
        """Skip the value at ``pos``, recording the paths nested in arrays and inline tables."""
        char = self.text[self.pos]
        if char == "[":
            self._array(path)
        elif char == "{":
            self._inline_table(path)
        elif char == '"':
            self._skip(_ML_BASIC if self.text.startswith('"""', self.pos) else _BASIC)
        elif char == "'":
            self._skip(_ML_LITERAL if self.text.startswith("'''", self.pos) else _LITERAL)
        else:
            self._skip(_SCALAR)

    def _array(self, path: KeyPath) -> None:
        self.pos += 1
        index = 0
        while self._skip_blank() < len(self.text):
            char = self.text[self.pos]
            if char == "]":
                break
            if char == ",":
                self.pos += 1
                continue
            element = (*path, index)
            self._record(element, self.pos, self.pos, first_wins=False)
            self._value(element)
            index += 1
        self.pos += 1

    def _inline_table(self, path: KeyPath) -> None:
        self.pos += 1
        # Blank lines and comments are not TOML 1.0 inside braces, but TOML 1.1 allows them and
        # skipping them costs nothing.
        while self._skip_blank() < len(self.text):
            char = self.text[self.pos]
            if char == "}":
                break
            if char == ",":
                self.pos += 1
                continue
            self._key_value(path)
        self.pos += 1
