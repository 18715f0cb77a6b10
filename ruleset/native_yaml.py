"""Large YAML streams through a native parser (fastyaml-rs), located and read exactly as the
PyYAML path reads them, or not at all.

:func:`ruleset.yaml_reading.load_yaml` calls :func:`load_documents` for a stream over
:data:`MIN_BYTES` when ``fast_yaml`` (``pip install ruleset[fast]``) is installed. It returns the
documents, built as the PyYAML path builds them (:class:`~ruleset.reading.LocatedDict` and
:class:`~ruleset.reading.LocatedList` with the line of every key, item and collection), or None:
then the PyYAML path reads the stream, so that every value, every limit and every error --
message, line and column -- is the PyYAML path's own. Nothing here ever reports a problem.

The native parser reads YAML 1.2 (core schema); the API server's decoder and the PyYAML path read
YAML 1.1, and the native parser knows no line numbers. So it is used only on the *plain block
subset* that kubectl, PyYAML and most tools write, checked before it parses, and its result is
walked against the text, line by line, before it is returned:

* **Lines.** Every line of the stream must be blank, a comment, a ``---`` document marker, or
  one block line: indentation, ``- `` item markers, at most one ``key:`` and at most one
  one-line value (plain, single- or double-quoted, ``[]``, ``{}``, or a block-scalar header
  ``|``, ``|-``, ``|+``, ``>``, ``>-``, ``>+`` whose content lines are set aside), then an optional
  comment. So no flow collection holds anything, no scalar spans lines (except block
  scalars), no key is complex (``?``), no ``...`` ends a document, no directive is given.
* **Scalars that YAML 1.1 and 1.2 resolve differently** are refused when written plain, as a
  key, a value or an item (each distinct text checked once): ``yes``/``no``/
  ``on``/``off`` in their three spellings, ``=``, ``<<``, ``.inf``/``.nan``, a date or timestamp
  (``2001-12-14``), and any number other than a plain decimal integer of at most 18 digits or a
  plain decimal fraction (``0o17``, ``017``, ``0x1F``, ``1_000``, ``1:30`` (sexagesimal), ``1e3``
  (a string in YAML 1.1: no dot), ``1.0e+3``, ``.5``, ``+1``...). Quoted, they are strings in
  both and are kept. ``true``/``false``/``null``/``~`` in every spelling both schemas share, and
  ``y``/``n`` (strings in both, PyYAML having left them out of its booleans), are read alike.
* **No anchors, aliases, tags or merge keys** (``&``, ``*``, ``!``, ``<<``): no alias bomb or
  ``!!binary``/``!!timestamp`` reaches the native parser, and the go-yaml alias ratio the
  PyYAML path enforces does not arise.
* **No tab, carriage return, control character, byte-order mark, or U+0085/U+2028/U+2029**
  (line breaks in YAML 1.1, not in 1.2) anywhere in the stream.
* **The walk.** Each document's keys and items are matched, in order, against the keys and
  ``-`` markers of its lines: the key's text must be the key the parser read, all keys of a
  mapping and all items of a sequence must stand in one column, a nested collection must be
  indented under its key, every token of a document must be used, and the number of documents
  must be the number the markers give. So a duplicate key (which the PyYAML path resolves by
  keeping the last value at its first place) or any structure the two parsers could read
  apart is sent to the PyYAML path. Nesting deeper than :data:`MAX_DEPTH` goes there too (the
  depth limit of the input kinds is at least that; PyYAML then words any breach).
  The walk is made in one of two ways, with the same outcome. The *quick walk* builds the
  located documents while writing down the signature of every row they stand for (indentation
  and ``- ``, key, class of the value) as PyYAML, go-yaml and ``kubectl`` lay them out, and
  compares that list with the rows' signatures at once (each distinct line is read once: a
  dump repeats most of its lines). Where they differ (another indentation, a quoted key, a
  block scalar, ``- - x``, a null written as nothing...), the *full walk* matches row by row
  and decides. The located documents are built after the signatures compare equal, or not at
  all: a caller that reports no problem needs no line (``located=False``: the manifest reader
  reads the stream again, located, when it has one to report), and building them is two
  thirds of the quick walk.
* **Sizes.** fastyaml-rs refuses inputs over 100 MiB: the stream is parsed in chunks of about
  :data:`CHUNK_CHARS` characters cut at ``---`` markers, which also bounds the memory its
  objects and the lines take before they are located (a document larger than a chunk is a
  chunk of its own; one over 100 MiB goes the PyYAML way). Short strings are shared, one
  object per distinct text, as the PyYAML path's scalar cache shares them.
* **Indicators.** A plain scalar cannot start with ``,``, ``]``, ``}``, or with ``-``, ``:``
  or ``?`` followed by a space: where one would, the stream goes the PyYAML way (the two
  parsers word, or accept, such text differently).
* **Streams with only comments** are no documents for PyYAML and one empty document for
  fastyaml-rs: the document count, checked against the ``---`` lines, sends them the PyYAML
  way.

There is no deliberate difference: whatever could differ goes through PyYAML, which reads
what the API server's YAML 1.1 decoder would have stored, as it always did.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["CHUNK_CHARS", "MAX_DEPTH", "MIN_BYTES", "USE_NATIVE", "available", "load_documents"]

#: Whether the native parser may be used when installed; tests turn it off and on.
USE_NATIVE = True
#: Smaller streams go through PyYAML: importing the native module and checking the text cost
#: more than they save below about a megabyte.
MIN_BYTES = 1024 * 1024
#: At most about this many characters are handed to the native parser at once (it refuses
#: 100 MiB); the lines of one chunk and its native objects are all that is held besides the
#: located documents. (A quarter of a megabyte reads a 20 MB stream about 8 % faster than one
#: or more megabytes: what one chunk makes stays in the processor's caches.)
CHUNK_CHARS = 256 * 1024
#: Deeper documents go the PyYAML way (real manifests nest fewer than 40 levels).
MAX_DEPTH = 200


@functools.cache
def _native() -> Any:
    """The ``fast_yaml`` module (distribution ``fastyaml-rs``), imported on first use, or None."""
    try:
        return importlib.import_module("fast_yaml")
    except ImportError:
        return None


def available() -> bool:
    """Whether the native parser is installed (and allowed)."""
    return USE_NATIVE and _native() is not None


# ---------------------------------------------------------------------------------------
# The text checks (all at C speed: regular expressions over the whole stream)


class _Pattern:
    """A regular expression compiled on first use (importing this module stays cheap for
    commands that read no large YAML)."""

    __slots__ = ("args", "compiled")

    def __init__(self, *args: Any):
        self.args = args
        self.compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self.compiled is None:
            self.compiled = re.compile(*self.args)
        return getattr(self.compiled, name)


_REFUSED_CHARS = _Pattern("[\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\u2028\u2029\ufffe\uffff]")

_SQ = r"'(?:[^'\n]|'')*'"
_DQ = r'"(?:[^"\\\n]|\\[^\n])*"'
# A one-line plain scalar in block context: not starting with an indicator (``-``, ``?`` and ``:``
# only when followed by a space), inner spaces only before more of it, ended by ``: `` or `` #``.
# (The loop is unrolled: no two ways to match one text, so a line that fails fails fast.)
_PLAIN = (r"(?:[^\s\-?:,\[\]{}#&*!|>'\"%@`]|[-?:](?=\S))"
          r"[^\s:#]*(?:(?::(?=\S)|[ ]+(?=[^\s:#]|:\S))[^\s:#]*)*")
_BLOCK_HEADER = r"[|>][-+]?"
_TRAILER = r"[ ]*(?:\#[^\n]*)?$"
#: One line, read loosely (the walk checks every key and marker against the parser's reading):
#: groups: document marker, indentation, item markers, key as written, the rest (value and
#: comment; a line holding only a comment has none).
_LINE = _Pattern(
    r"^(?:(---)(?=[ ]|$)[ ]*(?:\#[^\n]*)?"
    rf"|([ ]*)((?:-[ ]+)*)(?:({_SQ}|{_DQ}|[^\s'\"\#][^:\n]*(?::\S[^:\n]*)*)[ ]*:(?:[ ]+|$))?"
    r"((?:[^\#\s][^\n]*)?)[ ]*(?:\#[^\n]*)?)$",
    re.M)
_HEADER_LINE = _Pattern(
    rf"^([ ]*)((?:-[ ]+)*)(?:(?:{_PLAIN}|{_SQ}|{_DQ})[ ]*:[ ]+)?{_BLOCK_HEADER}{_TRAILER}", re.M)
_BLOCK_HEADER_TEXT = _Pattern(rf"{_BLOCK_HEADER}(?:[ ]+\#.*)?[ ]*")
_HEADER_HINT = _Pattern(rf"[|>][-+]?{_TRAILER}", re.M)
_MARKER = _Pattern(rf"^---(?=[ ]|$){_TRAILER}", re.M)
#: :data:`_MARKER` after a line break: a pattern starting with a literal is searched for much
#: faster than one starting with ``^``.
_MARKER_AFTER_BREAK = _Pattern(rf"\n---(?=[ ]|$){_TRAILER}", re.M)


def _markers(text: str) -> list[int]:
    """The offsets of the ``---`` lines of ``text`` (:data:`_MARKER`'s matches)."""
    found = [m.start() + 1 for m in _MARKER_AFTER_BREAK.finditer(text)]
    if _MARKER.match(text) is not None:
        found.insert(0, 0)
    return found

_SAFE_NUMBER = r"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]+)?"
#: A plain scalar the two schemas (or the two parsers) may read apart.
_DIFFERS = _Pattern(
    r"<<.*|[0-9]{4}-[0-9].*"
    r"|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|="
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
    rf"|(?!{_SAFE_NUMBER}$)[-+]?[0-9.][0-9a-fA-FxXoObB._:+\-]*")


def _differs(tokens: set[str]) -> bool:
    """Whether one of the (distinct) keys and values as written is a plain scalar the two
    schemas may read apart, or something the loose line reading cannot vouch for (an anchor,
    alias, tag, directive, reserved character, complex key or flow collection)."""
    fullmatch = _DIFFERS.fullmatch
    for token in tokens:
        if not token:
            continue
        first = token[0]
        if first in "'\"":
            continue  # quoted: a string in both (a quote left open fails in the parser)
        if first in "&*!%@`?{[|>,]}":
            if token in _EMPTY or _BLOCK_HEADER_TEXT.fullmatch(token) is not None:
                continue
            return True
        if first in "-:" and token[1:2] in ("", " "):
            return True  # an indicator, not the start of a plain scalar
        if " #" in token:
            token = token[:token.index(" #")]
        if fullmatch(token.rstrip(" ")) is not None:
            return True
    return False


def _set_aside_block_scalars(text: str) -> str | None:
    """``text`` with the content lines of its block scalars made empty (the line count kept),
    or None when one is not as simple as the subset allows."""
    headers: list[re.Match[str]] = []
    if "|" not in text and ">" not in text:
        return text
    for hint in _HEADER_HINT.finditer(text):
        header = _HEADER_LINE.match(text, text.rfind("\n", 0, hint.start()) + 1)
        if header is not None and header.end() == hint.end() \
                and (not headers or headers[-1].end() < header.end()):
            headers.append(header)
    if not headers:
        return text
    lines = text.split("\n")
    at = line = 0
    for match in headers:
        line += text.count("\n", at, match.start())
        at = match.start()
        # Its content is more indented than the node holding it: the key's column, or the
        # column of the last "- " for an item.
        dashes = match.group(2)
        key_col = len(match.group(1)) + len(dashes)
        parent = key_col if match.group(0)[key_col:key_col + 1] not in ("|", ">") \
            else key_col - len(dashes) + dashes.rstrip().rfind("-")
        indent = -1
        j = line + 1
        while j < len(lines):
            content = lines[j]
            stripped = content.lstrip(" ")
            width = len(content) - len(stripped)
            if not stripped:
                if indent < 0 and width > parent + 1:
                    return None  # a leading all-space line: detected indentation rules differ
                j += 1
                continue
            if width <= parent:
                break
            if indent < 0:
                indent = width
            elif width < indent:
                return None
            j += 1
        if indent < 0:
            return None  # an empty block scalar: rare, left to PyYAML
        for k in range(line + 1, j):
            lines[k] = ""
    return "\n".join(lines)


def _cuts(markers: list[int], size: int) -> list[int]:
    """Which ``---`` lines (indices into ``markers``, their offsets) start a new chunk, so that
    chunks are at most about :data:`CHUNK_CHARS` characters long."""
    cuts: list[int] = []
    start = 0
    previous = -1  # the last marker after ``start``
    for index, offset in enumerate([*markers, size]):
        if offset - start > CHUNK_CHARS and previous >= 0:
            cuts.append(previous)
            start = markers[previous]
            previous = -1
        if index < len(markers) and offset > start:
            previous = index
    return cuts


# ---------------------------------------------------------------------------------------
# The walk


class _Mismatch(Exception):
    """The native result and the text do not correspond line for line."""


_EMPTY = {"[]": list, "{}": dict}
_STRINGS_LIMIT = 100_000


class _Walker:
    """Builds located documents from the native ones and the text's lines, checking that they
    correspond (:class:`_Mismatch` otherwise)."""

    __slots__ = ("base", "dict_type", "i", "list_type", "max_depth", "p", "rows", "strings")

    def __init__(self, rows: list[tuple[str, str, str, str, str]], base: int, dict_type: Callable[[], Any],
                 list_type: Callable[[], Any], max_depth: int):
        self.rows = rows  # per line: (marker, indentation, item markers, key, value)
        self.base = base  # the line number of rows[0]
        self.i = 0  # the current row
        self.p = 0  # item markers of the current row already used
        self.dict_type = dict_type
        self.list_type = list_type
        self.max_depth = max_depth
        # One object per distinct short string, keys and values alike, as the PyYAML path's
        # scalar cache gives them: the native parser makes one per occurrence.
        self.strings: dict[str, str] = {}

    def skip_blank(self) -> None:
        rows = self.rows
        i = self.i
        n = len(rows)
        while i < n:
            row = rows[i]
            if row[0] or row[2] or row[3] or row[4]:
                break
            i += 1
        self.i = i

    def document(self, doc: Any, marker: bool) -> Any:
        """The located form of one native document; ``marker``: a ``---`` line must come first."""
        self.skip_blank()
        rows = self.rows
        if marker:
            if self.i >= len(rows) or not rows[self.i][0]:
                raise _Mismatch
            self.i += 1
            self.skip_blank()
        cls = doc.__class__
        if cls is dict and doc:
            out = self.mapping(doc, -1, 1)
        elif cls is list and doc:
            out = self.sequence(doc, -1, 1)
        elif doc is None:
            out = None
        else:
            raise _Mismatch  # a scalar or empty collection at the root: rare, left to PyYAML
        self.skip_blank()
        if self.i < len(rows) and not rows[self.i][0]:
            raise _Mismatch  # lines the native document did not account for
        return out

    def value(self, value: Any, text: str, line: int, col: int, depth: int) -> Any:
        """The located form of a key's or item's value; ``text`` is what follows the key or
        the last ``- `` on its line, ``col`` that key's or marker's column."""
        cls = value.__class__
        if cls is dict or cls is list:
            if not value:
                if _EMPTY.get(text) is not cls or depth >= self.max_depth:
                    raise _Mismatch
                self.i += 1
                self.p = 0
                out = self.dict_type() if cls is dict else self.list_type()
                out.line = line
                return out
            if text:
                raise _Mismatch
            self.i += 1
            self.p = 0
            if depth >= self.max_depth:
                raise _Mismatch
            return self.mapping(value, col, depth + 1) if cls is dict else \
                self.sequence(value, col, depth + 1, indentless=True)
        if not text:
            if value is not None:
                raise _Mismatch
        elif text in _EMPTY or (text[0] in "|>" and cls is not str):
            raise _Mismatch
        self.i += 1
        self.p = 0
        if cls is str and len(value) <= 64:
            strings = self.strings
            if len(strings) >= _STRINGS_LIMIT:
                strings.clear()
            value = strings.setdefault(value, value)
        return value

    def mapping(self, native: dict, outer: int, depth: int, first_on_line: bool = False) -> Any:
        """A non-empty mapping whose keys stand in a column right of ``outer``; with
        ``first_on_line``, its first key follows ``- `` on the current line."""
        rows = self.rows
        n = len(rows)
        base = self.base
        out = self.dict_type()
        key_lines = out.key_lines
        strings = self.strings
        if len(strings) >= _STRINGS_LIMIT:
            strings.clear()
        intern = strings.setdefault
        col = -1
        i = self.i
        for key, value in native.items():
            if first_on_line:  # "- key: ...": every marker of the line used, the key follows
                first_on_line = False
                row = rows[i]
                dashes = row[2]
                if self.p != dashes.count("-"):
                    raise _Mismatch
            else:
                while i < n:
                    row = rows[i]
                    if row[3] or row[2] or row[4] or row[0]:
                        break
                    i += 1
                else:
                    raise _Mismatch
                dashes = row[2]
                if dashes:
                    raise _Mismatch  # an item of an enclosing sequence, not a key of this mapping
            raw = row[3]
            if not raw:
                raise _Mismatch
            here = len(row[1]) + len(dashes)
            if col < 0:
                if here <= outer:
                    raise _Mismatch
                col = here
                out.line = i + base
            elif here != col:
                raise _Mismatch
            if raw != key:
                first = raw[0]
                if first == "'":
                    if raw[1:-1].replace("''", "'") != key:
                        raise _Mismatch
                elif first == '"':
                    if "\\" in raw or raw[1:-1] != key:
                        raise _Mismatch
                elif key.__class__ is not int or raw != str(key):
                    raise _Mismatch
            if key.__class__ is str:
                key = intern(key, key)
            line = i + base
            key_lines[key] = line
            cls = value.__class__
            if cls is dict or cls is list:
                self.i = i
                out[key] = self.value(value, row[4], line, col, depth)
                i = self.i
            else:
                text = row[4]
                if text:
                    if text[0] in "|>" and cls is not str:
                        raise _Mismatch
                elif value is not None:
                    raise _Mismatch
                if cls is str and len(value) <= 64:
                    value = intern(value, value)
                out[key] = value
                i += 1
        self.i = i
        self.p = 0
        return out

    def sequence(self, native: list, outer: int, depth: int, indentless: bool = False) -> Any:
        """A non-empty sequence whose ``- `` stand in one column right of ``outer`` (or at it,
        for a mapping's value); the first may follow ``- `` on the current line."""
        rows = self.rows
        out = self.list_type()
        item_lines = out.item_lines
        col = -1
        for item in native:
            if self.p == 0:
                self.skip_blank()
            i = self.i
            if i >= len(rows):
                raise _Mismatch
            row = rows[i]
            dashes = row[2]
            p = self.p
            if p >= dashes.count("-"):
                raise _Mismatch
            here = len(row[1])
            if p:  # "- - x": the column of the p-th marker on the line
                here += [at for at, char in enumerate(dashes) if char == "-"][p]
            if col < 0:
                if here < outer or (here == outer and not indentless):
                    raise _Mismatch
                col = here
                out.line = i + self.base
            elif here != col or p:
                raise _Mismatch
            self.p = p + 1
            last = self.p == dashes.count("-")
            line = i + self.base
            item_lines.append(line)
            cls = item.__class__
            if cls is dict and item:
                if not last or not row[3] or depth >= self.max_depth:
                    raise _Mismatch
                out.append(self.mapping(item, col, depth + 1, first_on_line=True))
            elif cls is list and item:
                if last or depth >= self.max_depth:
                    raise _Mismatch
                out.append(self.sequence(item, col, depth + 1))
            else:
                if not last or row[3] or not row[4]:
                    raise _Mismatch  # "- key: ..." read as a scalar, or an item on the next line
                out.append(self.value(item, row[4], line, col, depth))
        return out


# ---------------------------------------------------------------------------------------
# The quick walk: the same correspondence, checked by comparing two lists of row signatures


#: A row's signature: ``---`` for a document marker, ``""`` for a blank or comment-only row,
#: otherwise its indentation and item markers, then the key as written and ``\x01`` (or
#: ``\x02`` when it has no key), then the class of its value: ``E`` none, ``L`` ``[]``, ``D``
#: ``{}``, ``N`` a plain null (``null``, ``Null``, ``NULL``, ``~``), ``B`` a block-scalar
#: header, ``V`` anything else. (``\x01`` and ``\x02`` are refused characters: no text holds them.)
_VALUE_CLASS = {"": "E", "[]": "L", "{}": "D", "null": "N", "Null": "N", "NULL": "N", "~": "N"}


def _signature(row: tuple[str, str, str, str, str]) -> str:
    """The signature of one row (see :data:`_VALUE_CLASS`)."""
    marker, indent, dashes, key, value = row
    if marker:
        return "---"
    if not (dashes or key or value):
        return ""
    kind = _VALUE_CLASS.get(value) or ("B" if value[0] in "|>" else "V")
    return f"{indent}{dashes}{key}\x01{kind}" if key else f"{indent}{dashes}\x02{kind}"


def load_documents(text: str, dict_type: Callable[[], Any], list_type: Callable[[], Any],
                   max_depth: int = MAX_DEPTH, *, located: bool = True) -> list[Any] | None:
    """The documents of the YAML stream ``text`` built as the PyYAML path builds them (mappings
    ``dict_type()``, sequences ``list_type()``, each with ``line`` and ``key_lines`` or
    ``item_lines``), or None when the native parser is missing or the stream is not one it
    reads exactly as the PyYAML path (see the module docstring). Collections nested deeper
    than ``max_depth`` (or :data:`MAX_DEPTH`) are left to the PyYAML path too.

    Without ``located``, the documents the quick walk vouches for are the parser's own plain
    ``dict`` and ``list`` (equal to the located ones, with no lines and no shared strings):
    building the located forms is two thirds of the walk, and a caller that reports no
    problem reads no line. Those the full walk decides are located all the same."""
    native = _native() if USE_NATIVE else None
    if native is None or _REFUSED_CHARS.search(text) is not None:
        return None
    lines_text = _set_aside_block_scalars(text)
    if lines_text is None:
        return None
    # Chunks are cut at the same "---" lines in the text and in its lines (block scalars' content,
    # set aside in the latter, holds none).
    text_markers = _markers(text)
    line_markers = text_markers if lines_text is text else _markers(lines_text)
    if len(line_markers) != len(text_markers):
        return None
    cuts = _cuts(text_markers, len(text))
    text_bounds = [0] + [text_markers[c] for c in cuts] + [len(text)]
    line_bounds = [0] + [line_markers[c] for c in cuts] + [len(lines_text)]
    depth = min(max_depth, MAX_DEPTH)
    out: list[Any] = []
    base = 1
    strings: dict[str, str] = {}
    for chunk in range(len(text_bounds) - 1):
        lines = lines_text[line_bounds[chunk]:line_bounds[chunk + 1]].split("\n")
        read = _read_lines(lines)  # each distinct line read once: a dump repeats most of them
        if read is None:
            return None  # a line outside the subset
        signatures, tokens = read
        if _differs(tokens):
            return None
        markers = signatures.count("---")
        first = signatures.index("---") if markers else len(signatures)
        marked = not any(signatures[:first])
        try:
            docs = list(native.safe_load_all(text[text_bounds[chunk]:text_bounds[chunk + 1]],
                                             max_documents=10_000_000))
        except Exception:  # any refusal: the PyYAML path reads it and words the error
            return None
        if len(docs) != markers + (not marked):
            return None
        walked = _quick_walk(docs, signatures, base, marked, dict_type, list_type, depth, strings, located)
        if walked is None:
            walked = _full_walk(docs, lines, base, marked, dict_type, list_type, depth)
            if walked is None:
                return None
        out.extend(walked)
        base += len(lines) - 1
    return out


def _full_walk(docs: list[Any], lines: list[str], base: int, marked: bool, dict_type: Callable[[], Any],
               list_type: Callable[[], Any], max_depth: int) -> list[Any] | None:
    """The located forms of ``docs`` by :class:`_Walker` over ``lines`` (the chunk's, from
    line ``base`` on, each in the subset), or None when they do not correspond."""
    rows = [_LINE.fullmatch(line).groups("") for line in lines]
    walker = _Walker(rows, base, dict_type, list_type, max_depth)
    located: list[Any] = []
    try:
        for index, doc in enumerate(docs):
            located.append(walker.document(doc, marker=index > 0 or marked))
    except _Mismatch:
        return None
    return located


def _read_lines(lines: list[str]) -> tuple[list[str], set[str]] | None:
    """The signature of every line and the distinct keys and values as written, or None when a
    line is outside the subset (:data:`_LINE` does not match it)."""
    match = _LINE.fullmatch
    table: dict[str, str] = {}
    tokens: set[str] = set()
    for line in set(lines):
        found = match(line)
        if found is None:
            return None
        row = found.groups("")
        table[line] = _signature(row)
        tokens.add(row[3])
        tokens.add(row[4])
    return list(map(table.__getitem__, lines)), tokens


def _unbound(*args: Any) -> Any:
    raise AssertionError("a walk's function used after the walk")


def _quick_walk(docs: list[Any], signatures: list[str], base: int, marked: bool, dict_type: Callable[[], Any],
                list_type: Callable[[], Any], max_depth: int, strings: dict[str, str],
                located: bool = True) -> list[Any] | None:
    """The located forms of ``docs`` (or, without ``located``, ``docs`` themselves, checked
    alike), when the signatures of the rows they stand for, as a block writer in the style
    of PyYAML, go-yaml and ``kubectl`` writes them (mappings indented by two spaces, a
    mapping's sequences not indented: ``- `` in the column of its keys, an item's mapping
    starting on its ``- `` row), are ``signatures``, the rows' (the chunk's, from line
    ``base`` on); else None, and :class:`_Walker` decides (another layout, a block scalar, a
    quoted key, ``- - x``, a duplicate key, a blank row inside a collection...).

    Equal signatures are the correspondence the full walk checks, row for row: every key as
    written and at its place, every ``- `` at its place, every value of the class its text
    gives (none, ``[]``, ``{}``, a plain null, another scalar), every row used, and a ``---``
    row before every document but a first unmarked one. So the documents are the full walk's,
    lines included (the i-th signature written is the i-th non-blank row)."""
    while signatures and not signatures[-1]:
        signatures.pop()  # the chunk's last line break, and blank lines before the next chunk
    lines: Any
    if "" in signatures:  # blank or comment-only rows: no signature is written for them
        lines = [base + at for at, signature in enumerate(signatures) if signature]
        signatures = [signature for signature in signatures if signature]
    else:
        lines = range(base, base + len(signatures))
    if _written_signatures(docs, marked, max_depth) != signatures:
        return None
    return _located(docs, iter(lines), marked, dict_type, list_type, strings) if located else docs


def _written_signatures(docs: list[Any], marked: bool, max_depth: int) -> list[str] | None:
    """The signature of every row ``docs`` stand for, as :func:`_quick_walk` lays them out,
    or None when no such layout writes them (a scalar or empty collection at the root, a key
    neither a string nor an integer, ``- - x``, nesting past ``max_depth``)."""
    rows: list[str] = []
    append = rows.append

    def mapping(native: dict, pre: str, depth: int, first: str | None) -> None:
        # A non-empty mapping whose keys are indented by ``pre``; with ``first``, its first key
        # follows that ``- `` on the row of the item it is.
        start = len(rows)
        for key, value in native.items():
            if key.__class__ is not str and key.__class__ is not int:  # (an int is written as its str)
                raise _Mismatch
            cls = value.__class__
            if cls is dict or cls is list:
                if depth >= max_depth:
                    raise _Mismatch
                if not value:
                    append(f"{pre}{key}\x01{'D' if cls is dict else 'L'}")
                elif cls is dict:
                    append(f"{pre}{key}\x01E")
                    mapping(value, pre + "  ", depth + 1, None)
                else:
                    append(f"{pre}{key}\x01E")
                    sequence(value, pre, depth + 1)
            elif value is None:
                append(f"{pre}{key}\x01N")
            else:
                append(f"{pre}{key}\x01V")
        if first is not None:
            rows[start] = first + rows[start][len(pre):]

    def sequence(native: list, pre: str, depth: int) -> None:
        # A non-empty sequence whose ``- `` are indented by ``pre``.
        dash = pre + "- "
        for item in native:
            cls = item.__class__
            if cls is dict or cls is list:
                if depth >= max_depth:
                    raise _Mismatch
                if cls is dict and item:
                    mapping(item, pre + "  ", depth + 1, dash)
                elif item:
                    raise _Mismatch  # "- - x"
                else:
                    append(f"{dash}\x02{'D' if cls is dict else 'L'}")
            elif item is None:
                append(f"{dash}\x02N")
            else:
                append(f"{dash}\x02V")

    try:
        for index, doc in enumerate(docs):
            if index > 0 or marked:
                append("---")
            cls = doc.__class__
            if cls is dict and doc:
                mapping(doc, "", 1, None)
            elif cls is list and doc:
                sequence(doc, "", 1)
            elif doc is not None:
                return None  # a scalar or empty collection at the root
    except _Mismatch:
        return None
    finally:
        # The two functions refer to each other: a cycle, which would keep the rows written
        # until the collector (paused while loading) runs.
        mapping = sequence = _unbound  # type: ignore[assignment]
    return rows


def _located(docs: list[Any], lines: Iterator[int], marked: bool, dict_type: Callable[[], Any],
             list_type: Callable[[], Any], strings: dict[str, str]) -> list[Any]:
    """The located forms of ``docs``, whose rows (signatures checked by :func:`_quick_walk`)
    are at ``lines``, one row per key, per item not a mapping, and per ``---``."""
    next_line = lines.__next__
    intern = strings.setdefault
    # Collections made without their classes' __init__ (a Python call each: a tenth of the walk),
    # every attribute set here instead.
    new_dict: Callable[[], Any] = functools.partial(dict.__new__, dict_type) \
        if isinstance(dict_type, type) and issubclass(dict_type, dict) else dict_type
    new_list: Callable[[], Any] = functools.partial(list.__new__, list_type) \
        if isinstance(list_type, type) and issubclass(list_type, list) else list_type

    def empty(cls: type, line: int) -> Any:
        # An empty mapping or sequence written on ``line``.
        if cls is dict:
            out = new_dict()
            out.key_lines = {}
        else:
            out = new_list()
            out.item_lines = []
        out.line = line
        return out

    def mapping(native: dict) -> Any:
        out = new_dict()
        out.key_lines = key_lines = {}
        for key, value in native.items():
            if key.__class__ is str:
                key = intern(key, key)
            line = key_lines[key] = next_line()
            cls = value.__class__
            if cls is str:
                if len(value) <= 64:
                    value = intern(value, value)
            elif cls is dict:
                value = mapping(value) if value else empty(cls, line)
            elif cls is list:
                value = sequence(value) if value else empty(cls, line)
            out[key] = value
        out.line = key_lines[next(iter(native))]  # its first key's row
        return out

    def sequence(native: list) -> Any:
        out = new_list()
        item_lines: list[int] = []
        out.item_lines = item_lines
        append = item_lines.append
        for item in native:
            cls = item.__class__
            if cls is dict and item:  # its first key is on its "- " row
                item = mapping(item)
                line = item.line
            else:
                line = next_line()
                if cls is str:
                    if len(item) <= 64:
                        item = intern(item, item)
                elif cls is dict or cls is list:
                    item = empty(cls, line)
            append(line)
            out.append(item)
        out.line = item_lines[0]
        return out

    out: list[Any] = []
    try:
        for index, doc in enumerate(docs):
            if index > 0 or marked:
                next_line()  # its "---"
            if len(strings) >= _STRINGS_LIMIT:
                strings.clear()
            cls = doc.__class__
            out.append(mapping(doc) if cls is dict else sequence(doc) if cls is list else doc)
    finally:
        mapping = sequence = _unbound  # type: ignore[assignment]
    return out
