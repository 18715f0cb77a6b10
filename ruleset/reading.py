"""Bounded reading of every input file: cluster manifests, ``--pod`` files, scheduler
configurations and profiles.

Every reader of user input goes through this module, so that no input -- however large,
deep or self-referential -- makes ``ruleset`` block, run out of memory or stack, or end in
a traceback. Each limit is far above what real inputs need and is checked *before* or
*while* parsing, never by letting recursion or allocation fail. A breach is a
:class:`LimitError` (a :class:`~ruleset.errors.RulesetError`) whose one problem names the
file, the line and column where known, the limit and its value.

The limits (see :data:`CLUSTER`, :data:`CONFIG` and :data:`PROFILE`):

* **Regular files only.** A FIFO, device, socket or folder named as an input is refused
  (it would block forever, or never end: ``/dev/zero``). The file is checked with
  ``os.stat`` before it is opened, opened non-blocking, and checked again with
  ``os.fstat`` on the open descriptor.
* **Size.** Cluster manifests and ``--pod`` files: 4 GiB. ``kubectl get -A -o yaml`` of a
  5,000-node, 150,000-pod cluster (Kubernetes' own scalability limits) is about 1-2 GB, so
  the biggest real dump fits twice over; past that, memory (the parsed objects take several
  times the text) rather than patience runs out. Scheduler configurations and profiles:
  16 MiB. Real ones are a few KiB; the API server refuses any object over 3 MiB (a
  ConfigMap holds at most 1 MiB), so even a ``kind: List`` of several configurations fits.
  The size is checked with ``os.fstat`` on the opened file, and at most limit + 1 bytes are
  ever read (a file growing while it is read is caught too).
* **Nesting depth.** Cluster manifests: 1,000 levels of mappings and sequences (a
  document's top-level mapping is level 1; an alias counts the depth of what it stands
  for), in YAML and JSON. Real manifests nest fewer than 40 levels, CustomResourceDefinition
  schemas fewer than 100; libyaml itself stops at 1,000 flow or block levels. YAML
  documents are built iteratively from the parser's event stream (libyaml's parser is
  iterative; PyYAML's composer and constructors recurse, and overflow the C stack near
  30,000 levels), and JSON nesting is measured before ``json.loads`` recurses; the
  scheduler only reads the fields it knows, at fixed depths. Profiles (TOML, counting
  arrays, inline tables, table headers and dotted keys) and scheduler configurations: 100
  levels. Real ones nest fewer than 10 (15 for a configuration); ``tomllib`` recurses three
  frames per inline-table level, and what they hold is walked recursively afterwards
  (schema validation, source positions, the importer, the TOML and YAML writers), so they
  keep a limit well inside Python's recursion limit. A configuration becomes a profile, so
  the two share it.
* **Integers.** At most 4,300 decimal digits (Python's default limit on converting between
  ``int`` and ``str``, which would otherwise raise ``ValueError`` there or on output), in
  any base; the digit count is checked before any conversion, so no conversion is slow.
  Kubernetes itself caps integers at 64 bits; that is checked where values are decoded.
* **Aliases.** YAML aliases are counted as the API server's YAML decoder counts them:
  go-yaml v2's "excessive aliasing" rule (``decode.go``, ``allowedAliasRatio``), ported in
  :func:`allowed_alias_ratio`. Nothing is expanded: each anchored node's expanded size is
  known when it ends, so a 591-byte alias bomb standing for 10^9 pods is refused in
  milliseconds, at the alias that tips the ratio. (go-yaml walks the mappings of a merge
  list, ``<<: [*a, *b]``, last to first; they are counted here in the order written, which
  can only move the node at which a borderline document is refused.)
* **Mapping keys that are mappings or sequences** (YAML allows them; JSON and Kubernetes do
  not) are kept as their ``str``, as they always were, up to 1 MiB of text: such keys
  nested in such keys double their text at every level, as quotes get escaped again.

Syntax errors keep the wording and position PyYAML, ``json`` and ``tomllib`` give them.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import gc
import importlib
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType, GeneratorType
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

from ruleset import native_yaml
from ruleset.errors import Problem, RulesetError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = [
    "CLUSTER",
    "CONFIG",
    "MAX_INT_DIGITS",
    "MAX_KEY_TEXT",
    "PROFILE",
    "LimitError",
    "Limits",
    "LocatedDict",
    "LocatedList",
    "allowed_alias_ratio",
    "check_toml",
    "decode_utf8",
    "load_json",
    "load_yaml",
    "paused_gc",
    "read_file",
]

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


@dataclass
class Limits:
    """The limits for one kind of input (see the module docstring for why these values).

    Read when a file is read, so that tests can lower them with ``monkeypatch``.
    """

    what: str  # "cluster manifests": names the kind of input in messages
    max_bytes: int
    max_depth: int


#: Cluster manifests and ``--pod`` files (YAML or JSON).
CLUSTER = Limits("cluster manifests", 4 * GiB, 1000)
#: KubeSchedulerConfigurations and Policies read by ``ruleset import`` (YAML or JSON).
CONFIG = Limits("scheduler configurations", 16 * MiB, 100)
#: Profiles (TOML).
PROFILE = Limits("profiles", 16 * MiB, 100)
#: Integers in any input: at most this many decimal digits.
MAX_INT_DIGITS = 4300
#: A YAML mapping key that is itself a mapping or sequence (YAML allows it; JSON and
#: Kubernetes do not) is kept as its ``str``; that text may not be longer than this.
MAX_KEY_TEXT = 1 * MiB


class LimitError(RulesetError):
    """An input exceeds one of this module's limits (one located problem)."""


class LocatedDict(dict):
    """A mapping from a YAML document that remembers the line of each of its keys."""

    __slots__ = ("key_lines", "line")

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.key_lines: dict[Any, int] = {}
        self.line: int | None = None


class LocatedList(list):
    """A sequence from a YAML document that remembers the line of each item."""

    __slots__ = ("item_lines", "line")

    def __init__(self, *args: Any):
        super().__init__(*args)
        self.item_lines: list[int] = []
        self.line: int | None = None


def _size(n: int) -> str:
    for unit, factor in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n:,} bytes"


def _depth_message(limits: Limits) -> str:
    return f"nesting deeper than {limits.max_depth:,} levels (the limit for {limits.what})"


def _digits_message() -> str:
    return f"an integer of more than {MAX_INT_DIGITS:,} digits (the limit for integers)"


# ---------------------------------------------------------------------------------------
# Files


def _kind_of(mode: int) -> str | None:
    """What a non-regular file is, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def _refuse_irregular(mode: int, file: str) -> None:
    kind = _kind_of(mode)
    if kind is not None:
        raise LimitError(Problem(f"cannot read: it is {kind}, not a regular file", file=file,
                                 code="io-error"))


_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_BINARY", 0))
#: Bound once, so that a replacement of ``os.open`` (which tests use to make writing outputs
#: fail) leaves reading inputs alone; tests replace this one to make reading an input fail.
os_open = os.open
_CHUNK = 1 << 30  # one read() call never asks for more (Linux returns at most ~2 GiB anyway)


def read_file(path: str | os.PathLike[str], limits: Limits) -> bytes:
    """The bytes of the regular file ``path``, at most ``limits.max_bytes`` of them.

    Raises :class:`OSError` as opening and reading raise it (a name with a NUL byte is
    :class:`FileNotFoundError`, as ``pathlib`` treats it), and :class:`LimitError` for a
    file that is not a regular one or is larger than the limit.
    """
    file = os.fspath(path)
    limit = limits.max_bytes
    try:
        mode = os.stat(file).st_mode
    except ValueError:  # "embedded null byte": no such file can exist
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), file) from None
    _refuse_irregular(mode, file)  # before opening: opening a FIFO or a device can block or act
    fd = os_open(file, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)  # what was opened, in case the name changed since
        _refuse_irregular(st.st_mode, file)
        too_large = LimitError(Problem(f"cannot read: larger than {_size(limit)} (the size limit for "
                                       f"{limits.what})", file=file, code="io-error"))
        if st.st_size > limit:
            raise too_large
        want = st.st_size + 1  # one more than announced: a file that grows is noticed
        parts: list[bytes] = []
        total = 0
        while total <= limit:
            ask = min(max(want - total, 1 << 16), limit + 1 - total, _CHUNK)
            chunk = os.read(fd, ask)
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
        if total > limit:
            raise too_large
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def decode_utf8(data: bytes, file: str, code: str) -> str:
    """``data`` as UTF-8 text; invalid bytes are a problem at their line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        before = data[line_start:exc.start].decode("utf-8", errors="replace")
        raise RulesetError(Problem(f"not UTF-8 text: {exc.reason}", file=file,
                                   line=data.count(b"\n", 0, exc.start) + 1, column=len(before) + 1,
                                   code=code)) from None


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


# ---------------------------------------------------------------------------------------
# Integers


_LOG10 = {2: 0.30103, 8: 0.90309, 16: 1.20412, 60: 1.77815}
_INT_BOUND = 10**MAX_INT_DIGITS


def _too_many_digits(digits: str, base: int) -> bool:
    """Whether the unsigned ``digits`` (no underscores, no prefix) in ``base`` stand for an
    integer of more than :data:`MAX_INT_DIGITS` decimal digits; converts nothing large."""
    digits = digits.lstrip("0")
    if base == 10:
        return len(digits) > MAX_INT_DIGITS
    estimate = len(digits) * _LOG10[base]
    if estimate < MAX_INT_DIGITS - 2:
        return False
    if estimate > MAX_INT_DIGITS + 2:
        return True
    return int(digits, base) >= _INT_BOUND  # bases 2, 8 and 16 convert in linear time


def _yaml_int_too_long(text: str) -> bool:
    """For a scalar resolved as a YAML 1.1 int, whether its value has too many digits
    (the same reading as SafeConstructor.construct_yaml_int)."""
    value = text.replace("_", "")
    if value[:1] in ("+", "-"):
        value = value[1:]
    if value.startswith("0b"):
        return _too_many_digits(value[2:], 2)
    if value.startswith("0x"):
        return _too_many_digits(value[2:], 16)
    if value[:1] == "0":
        return _too_many_digits(value, 8)
    if ":" in value:  # sexagesimal: 60 ** (parts - 1) times the first part
        parts = value.split(":")
        if any(_too_many_digits(part, 10) for part in parts):
            return True
        estimate = (len(parts) - 1) * _LOG10[60] + len(parts[0].lstrip("0"))
        return estimate > MAX_INT_DIGITS - 1 and (
            estimate > MAX_INT_DIGITS + 2 or abs(_sexagesimal(parts)) >= _INT_BOUND)
    return _too_many_digits(value, 10)


def _sexagesimal(parts: list[str]) -> int:
    value = 0
    for part in parts:
        value = value * 60 + int(part)
    return value


# ---------------------------------------------------------------------------------------
# JSON


_JSON_ESCAPE = re.compile(rb"\\.", re.S)
_JSON_STRING_BYTES = re.compile(rb'"[^"]*"')
_JSON_KEEP = bytes.maketrans(b"[{]}", b"(())")
_JSON_DROP = bytes(c for c in range(256) if c not in b'[]{}"')
_BRACKET_RUN = re.compile(rb"\(+|\)+")
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?', re.S)


def _bracket_depth_exceeds(data: bytes, limit: int) -> bool:
    """Whether the JSON text ``data`` nests deeper than ``limit``, at C speed: strings (and
    their escapes) are dropped, then innermost bracket pairs are removed a level per pass."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    if b"\\" in data:
        data = _JSON_ESCAPE.sub(b"", data)
    kept = data.translate(_JSON_KEEP, _JSON_DROP)  # "(", ")" and '"' only
    del data
    # A '""' is an empty string, or the end of a string and the start of the next with nothing
    # but separators between: dropping it leaves every bracket inside or outside strings as
    # it was, and drops most quotes at C speed before the strings go.
    brackets = _JSON_STRING_BYTES.sub(b"", kept.replace(b'""', b""))
    del kept
    # Each pass removes the innermost pairs, so the depth drops by exactly one: real data
    # (a few dozen levels) is gone after a few cheap passes.
    passes = 0
    while brackets and passes < limit:
        shorter = brackets.replace(b"()", b"")
        passes += 1
        shrunk = len(shorter) < 0.9 * len(brackets)
        brackets = shorter
        if not shrunk:
            break
    if not brackets:
        return False
    # What is left is deep and narrow: walk its runs of "(" and ")".
    depth = passes
    for run in _BRACKET_RUN.finditer(brackets):
        if brackets[run.start()] == 40:  # "("
            depth += run.end() - run.start()
            if depth > limit:
                return True
        else:
            depth -= run.end() - run.start()
    return False


def _json_offending_offset(text: str, limits: Limits, want_depth: bool) -> int | None:
    """Offset of the first bracket past the depth limit (``want_depth``) or of the first
    integer of too many digits, outside strings; the slow, exact scan behind an error."""
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first in "[{":
            depth += 1
            if want_depth and depth > limits.max_depth:
                return match.start()
        elif first in "]}":
            depth -= 1
        elif (not want_depth and first != '"' and not any(c in token for c in ".eE")
              and _too_many_digits(token.lstrip("-"), 10)):
            return match.start()
    return None


class _TooManyDigits(Exception):
    pass


def _json_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS and _too_many_digits(text.lstrip("-"), 10):
        raise _TooManyDigits
    return int(text)


@contextlib.contextmanager
def _recursion_headroom(levels: int) -> Iterator[None]:
    """Room for ``levels`` more nested calls than the stack already holds (C parsers such as
    ``json``'s count their recursion against Python's limit)."""
    depth = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    old = sys.getrecursionlimit()
    needed = depth + levels + 100
    if needed > old:
        sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        if needed > old:
            sys.setrecursionlimit(old)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused for the block (nestable; it is enabled again on
    the way out, error or not, if it was enabled on the way in).

    Parsing and decoding a snapshot allocate millions of containers and free almost none:
    each collection would traverse the whole growing graph to find nothing, more than half
    of a large JSON load. Cycles made meanwhile are collected at the next collection after.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_NOT_FAST = object()
#: Whether JSON may be parsed by orjson when it is installed (``pip install ruleset[fast]``);
#: tests turn it off to compare with the standard path.
USE_ORJSON = True
#: Smaller JSON is parsed by ``json``: importing orjson (≈ 30 ms) costs more than it saves
#: below about a megabyte (``json`` parses ≈ 25 MB/s, orjson several times that).
ORJSON_MIN_BYTES = 1 * MiB
#: A run of 19 digits (every digit made a "0" first: ten times faster than a regular
#: expression): where an integer outside orjson's exact range (-2**63 .. 2**64 - 1, which it
#: would read as a float) could be. Every integer of 18 digits or fewer is in it.
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_DIGITS = b"0" * 19


@functools.cache
def _orjson() -> Any:
    """The orjson module, imported on first use (it is optional), or None."""
    try:
        return importlib.import_module("orjson")
    except ImportError:
        return None


def _fast_json(data: bytes) -> Any:
    """``data`` (with no run of 19 digits) parsed by orjson when it is installed, else
    :data:`_NOT_FAST` (then the standard path parses, and words any error).

    orjson refuses what ``json`` accepts beyond the JSON grammar (``NaN``, ``Infinity``, a
    lone surrogate escape, numbers beyond a double) and reads integers outside 64 bits as
    floats: a refusal goes the standard way, and so does, before this is called, a run of
    digits that could be such an integer, so that the values, and the wording and position
    of every error, are unchanged.
    """
    if not USE_ORJSON or len(data) < ORJSON_MIN_BYTES:
        return _NOT_FAST
    orjson = _orjson()
    if orjson is None:
        return _NOT_FAST
    try:
        with paused_gc():
            return orjson.loads(data)
    except orjson.JSONDecodeError:
        return _NOT_FAST


def load_json(text: str, file: str, limits: Limits, raw: bytes | None = None) -> Any:
    """``json.loads(text)``, bounded: nesting deeper than the limit and integers of too many
    digits are a located :class:`LimitError`. Syntax errors raise ``json.JSONDecodeError``.

    ``raw``, the UTF-8 bytes of ``text`` when the caller has them, saves an encoding.
    """
    data = raw if raw is not None else text.encode("utf-8", "surrogatepass")
    deep = _bracket_depth_exceeds(data, limits.max_depth)
    long_digits = not deep and _LONG_DIGITS in data.translate(_DIGITS_AS_ZERO)
    if not deep and not long_digits:
        fast = _fast_json(data)
        if fast is not _NOT_FAST:
            return fast
    del data, raw
    problem: str | None = None
    if deep:
        problem = _depth_message(limits)
    else:
        try:
            with _recursion_headroom(limits.max_depth), paused_gc():
                # Without a run of 19 digits, no integer can be too long: no check per integer.
                return json.loads(text, parse_int=_json_int) if long_digits else json.loads(text)
        except json.JSONDecodeError:
            raise
        except (_TooManyDigits, ValueError):  # ValueError: a lower int_max_str_digits
            problem = _digits_message()
        except RecursionError:  # not expected below the limit; refused all the same
            problem = _depth_message(limits)
            deep = True
    offset = _json_offending_offset(text, limits, want_depth=deep)
    line, column = _line_column(text, offset) if offset is not None else (None, None)
    raise LimitError(Problem(problem, file=file, line=line, column=column, code="syntax-error"))


# ---------------------------------------------------------------------------------------
# TOML


_TOML_TOKEN = re.compile(
    r'''
      (?P<string>"""(?:[^"\\]|\\.|"(?!""))*"""(?:""?)?
                |\'\'\'(?:[^\']|\'(?!\'\'))*\'\'\'(?:\'\'?)?
                |"(?:[^"\\\n]|\\.)*"
                |\'[^\'\n]*\')
    | (?P<comment>\#[^\n]*)
    | (?P<newline>\n)
    | (?P<space>[ \t\r]+)
    | (?P<open>[\[{])
    | (?P<close>[\]}])
    | (?P<equals>=)
    | (?P<comma>,)
    | (?P<dot>\.)
    | (?P<bare>[A-Za-z0-9_+:-]+)
    | (?P<other>.)
    ''',
    re.S | re.X,
)
_TOML_VALUE_CHARS = re.compile(r"[0-9A-Za-z_+.:-]+")
#: A number needs a run of at least this many digits (hexadecimal ones, the densest) to pass
#: the digit limit; a profile without one is not scanned for integers.
_TOML_LONG_RUN = re.compile(r"(?<![0-9A-Fa-f_])[0-9A-Fa-f_]{" + str(int(MAX_INT_DIGITS / _LOG10[16])) + "}")


def _toml_key(token: str) -> str:
    """A bare or quoted TOML key as the key it names."""
    if token[:1] == "'":
        return token[1:-1]
    if token[:1] == '"':
        if "\\" not in token:
            return token[1:-1]
        try:
            return str(tomllib.loads("k = " + token)["k"])
        except (tomllib.TOMLDecodeError, RecursionError, ValueError):
            return token
    return token


def _toml_int_too_long(token: str) -> bool:
    """For a TOML value token (a number, date, boolean...), whether it is an integer of too
    many digits. Floats (a fraction or exponent) are not limited: ``float()`` is linear."""
    value = token.replace("_", "")
    if value[:1] in ("+", "-"):
        value = value[1:]
    if value[:2] in ("0x", "0o", "0b"):
        return _too_many_digits(value[2:], {"x": 16, "o": 8, "b": 2}[value[1]])
    if not value.isdigit():  # a float, a date or time, inf, nan, a boolean
        return False
    return _too_many_digits(value, 10)


def check_toml(text: str, file: str, limits: Limits = PROFILE) -> Problem | None:
    """The first limit ``text`` breaks, as a located problem (code ``toml-syntax``), or None.

    Run before ``tomllib.loads``: ``tomllib`` recurses once per level of arrays and inline
    tables, builds one table per dotted-key part or header part (quadratically in their
    number), and converts integers of any length. Depth counts every table or array a value
    is in: table headers (``[a.b]`` is two levels, ``[[a]]`` two: the array and its
    table), dotted keys (``a.b.c = 1`` puts ``1`` two tables deep), arrays and inline
    tables. Valid TOML is measured exactly; invalid TOML is left to ``tomllib`` to refuse.
    """
    limit = limits.max_depth
    check_depth = text.count("[") + text.count("{") + text.count(".") >= limit - 2
    check_ints = _TOML_LONG_RUN.search(text) is not None
    if not (check_depth or check_ints):
        return None
    state = "start"  # at top level: the "start" of a line, a "key", a "header", a "value"
    header = 0  # levels of the current [table] or [[array of tables]]
    header_parts: list[str] = []
    header_array = False
    arrays: set[tuple[str, ...]] = set()  # the arrays of tables: each adds a level to headers below
    skip_bracket = False  # the second bracket of "[[" or "]]"
    top_dots = 0  # levels the dotted key being written at top level adds
    # Open arrays and inline tables: [bracket, levels its current dotted key adds, in a key].
    stack: list[list[Any]] = []
    nest = 0  # levels the open arrays and inline tables add: sum(1 + frame[1])
    found: tuple[int, str] | None = None
    for match in _TOML_TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "space" or kind == "comment":
            continue
        if skip_bracket:
            skip_bracket = False
            if kind == "open" or kind == "close":
                continue
        if kind == "newline":
            if not stack:
                state = "start"
                top_dots = 0
            continue
        if not stack:
            if state == "start":
                if kind == "open" and match.group() == "[":
                    state = "header"
                    header_parts = []
                    header_array = skip_bracket = text.startswith("[", match.end())
                    continue
                state = "key"
            if state == "header":
                if kind == "bare" or kind == "string":
                    header_parts.append(_toml_key(match.group()))
                elif kind == "close":
                    header = len(header_parts) + header_array
                    if header <= limit:  # a table inside an array of tables is in its last element
                        header += sum(tuple(header_parts[:i]) in arrays for i in range(1, len(header_parts)))
                    if header_array:
                        arrays.add(tuple(header_parts))
                    skip_bracket = header_array
                    state = "done"
                    if header > limit:
                        found = (match.start(), "depth")
                        break
                continue
            if state == "key":
                if kind == "dot":
                    top_dots += 1
                    if header + top_dots > limit:
                        found = (match.start(), "depth")
                        break
                elif kind == "equals":
                    state = "value"
                continue
            if state != "value":
                continue
        if kind == "close":
            if stack:
                nest -= 1 + stack.pop()[1]
            continue
        frame = stack[-1] if stack else None
        if frame is not None and frame[2]:  # a key inside an inline table
            if kind == "dot":
                frame[1] += 1
                nest += 1
                if header + top_dots + nest > limit:
                    found = (match.start(), "depth")
                    break
            elif kind == "equals":
                frame[2] = False
            continue
        if kind == "open":
            stack.append([match.group(), 0, match.group() == "{"])
            nest += 1
            if header + top_dots + nest > limit:
                found = (match.start(), "depth")
                break
        elif kind == "comma":
            if frame is not None and frame[0] == "{":
                nest -= frame[1]
                frame[1] = 0
                frame[2] = True
        elif kind == "bare" and check_ints and text[match.start() - 1:match.start()] != ".":
            start = match.start()
            token = _TOML_VALUE_CHARS.match(text, start)
            if token is not None and len(token.group()) > 1000 and _toml_int_too_long(token.group()):
                found = (start, "digits")
                break
    if found is None:
        return None
    offset, what = found
    line, column = _line_column(text, offset)
    return Problem(_depth_message(limits) if what == "depth" else _digits_message(), file=file, line=line,
                   column=column, code="toml-syntax")


# ---------------------------------------------------------------------------------------
# YAML

#: go-yaml v2 (gopkg.in/yaml.v2 v2.4.0, decode.go), which the API server's YAML decoding
#: (sigs.k8s.io/yaml) runs on: between these decode counts the allowed share of aliased
#: decodes falls from 99% to 10%.
ALIAS_RATIO_RANGE_LOW = 400_000
ALIAS_RATIO_RANGE_HIGH = 4_000_000
ALIAS_RATIO_RANGE = float(ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW)
#: ... and a document is refused only past this many aliased decodes and this many decodes.
ALIAS_MIN_ALIASED = 100
ALIAS_MIN_DECODED = 1000


def allowed_alias_ratio(decode_count: int) -> float:
    """go-yaml v2's ``allowedAliasRatio``: the share of a document's decodes that may come
    from alias expansion, once it has been decoded ``decode_count`` times."""
    if decode_count <= ALIAS_RATIO_RANGE_LOW:
        # allow 99% to come from alias expansion for small-to-medium documents
        return 0.99
    if decode_count >= ALIAS_RATIO_RANGE_HIGH:
        # allow 10% to come from alias expansion for very large documents
        return 0.10
    # scale smoothly from 99% down to 10% over the range
    return 0.99 - 0.89 * (float(decode_count - ALIAS_RATIO_RANGE_LOW) / ALIAS_RATIO_RANGE)


_FAST_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TAG = "tag:yaml.org,2002:"
_STR = _TAG + "str"
_INT = _TAG + "int"
_FLOAT = _TAG + "float"
_MAP = _TAG + "map"
_SEQ = _TAG + "seq"
_SET = _TAG + "set"
_OMAP = _TAG + "omap"
_PAIRS = _TAG + "pairs"
_MERGE = _TAG + "merge"
_VALUE = _TAG + "value"
_SCALAR_TAGS = frozenset(_TAG + t for t in ("null", "bool", "int", "float", "binary", "timestamp", "str"))
_CACHE_LIMIT = 100_000


class _Scalars(yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """The scalar half of ``yaml.SafeLoader``: its implicit resolver and its constructors."""

    def __init__(self) -> None:
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)


_SCALARS = _Scalars()
_RESOLVE = _SCALARS.resolve


class _Undefined:
    """A scalar whose tag has no constructor (merge ``<<``, value ``=``): fine as a key."""

    __slots__ = ("tag",)

    def __init__(self, tag: str):
        self.tag = tag


def _construct_scalar(tag: str, value: str, style: str | None, mark: Any) -> Any:
    """A scalar with an explicit or resolved ``tag``, as SafeConstructor builds it."""
    if tag in (_MERGE, _VALUE):
        return _Undefined(tag)
    if tag == _INT and len(value) > 1000 and _yaml_int_too_long(value):
        raise _TooManyDigitsAt(mark)
    if tag in (_MAP, _SET):
        raise ConstructorError(None, None, "expected a mapping node, but found scalar", mark)
    if tag == _SEQ:
        raise ConstructorError(None, None, "expected a sequence node, but found scalar", mark)
    constructor = _SCALARS.yaml_constructors.get(tag) or _SCALARS.yaml_constructors[None]
    node = ScalarNode(tag, value, mark, mark, style)
    try:
        data = constructor(_SCALARS, node)
        if isinstance(data, GeneratorType):  # omap, pairs: raise on a scalar
            result = next(data)
            for _ in data:
                pass
            data = result
    except yaml.YAMLError:
        raise
    except Exception as exc:  # e.g. `!!int abc`, `2020-13-01`: PyYAML raises a bare ValueError
        shown = value if len(value) <= 40 else value[:37] + "..."
        name = "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag
        detail = f": {exc}" if isinstance(exc, ValueError) else ""
        raise ConstructorError(None, None, f"cannot read {shown!r} as {name}{detail}", mark) from None
    return data


def _merge_keeps_order() -> bool:
    """Whether this PyYAML's flatten_mapping merges in order, keeping the first of pairs whose
    key is the same object (6.0.2 on), or (before) merges a list's mappings last to first."""
    probe = yaml.load("{<<: [{p: 1}, {q: 2}]}", Loader=yaml.SafeLoader)
    return list(probe) == ["p", "q"]


_MERGE_IN_ORDER = _merge_keeps_order()


class _Node:
    """What the builder keeps of a node that may be looked at again: through an alias (an
    anchored node), as the value of a merge key (``<<``), or as an item of a sequence that
    is merged or tagged ``!!omap`` / ``!!pairs``."""

    __slots__ = ("first_pair", "flat", "height", "items", "kind", "mark", "obj", "open", "pairs", "size",
                 "token")

    def __init__(self, kind: str, mark: Any):
        self.kind = kind  # "scalar", "sequence" or "mapping" (PyYAML's node ids)
        self.mark = mark
        self.obj: Any = None
        self.open = True  # still being built: an alias to it now would be recursive
        self.size = 1  # nodes go-yaml decodes for it (an alias to it costs one more)
        self.height = 0  # levels of mappings and sequences it holds (0 for a scalar)
        self.token: Any = None  # a scalar's text object: flatten_mapping compares keys by identity
        self.flat: list[Any] | None = None  # a mapping's pairs after merging: (token, key, value, line)
        self.items: list[_Node | None] | None = None  # a sequence's items (None: a plain scalar)
        self.pairs = 0  # a mapping's number of pairs as written, merge keys included
        self.first_pair: Any = None  # a mapping's first pair as written: (key, value, key mark)


class _Frame:
    """A mapping or sequence being built."""

    __slots__ = ("first_pair", "has_key", "height", "is_map", "items", "key", "key_line", "key_token",
                 "mark", "merge_ids", "merge_key", "merge_seq", "merged", "node", "obj", "own", "pairs",
                 "start", "tag", "unhashable")

    def __init__(self, is_map: bool, obj: Any, tag: str | None, mark: Any, start: int):
        self.is_map = is_map
        self.obj = obj
        self.tag = tag  # None for the default tag
        self.mark = mark
        self.start = start  # the decode count before this node
        self.height = 1
        self.node: _Node | None = None  # when it may be looked at again
        self.items: list[_Node | None] | None = None  # a sequence's items, when they may be looked at again
        self.merge_seq = False  # a sequence that is the value of a merge key
        # A mapping:
        self.has_key = False  # the key of the next value has been read
        self.key: Any = None
        self.key_line = 0
        self.key_token: Any = None
        self.merge_key = False  # the pending key is a merge key (<<)
        self.merged: list[Any] | None = None  # pairs merged in, in flatten_mapping's order
        self.merge_ids: set[int] | None = None
        self.own: list[Any] | None = None  # its own pairs, when it may be merged elsewhere
        self.pairs = 0
        self.first_pair: Any = None
        self.unhashable: Any = None  # mark of the first unhashable key


class _TooManyDigitsAt(Exception):
    """An integer scalar of too many digits (made a located LimitError by the builder)."""

    def __init__(self, mark: Any):
        super().__init__()
        self.mark = mark


def _text_bound(value: Any, stop: int) -> int:
    """An upper bound of ``len(str(value))`` for the containers and scalars YAML builds
    (counting no further than just past ``stop``), without making the text."""
    total = 0
    pending = [value]
    while pending and total <= stop:
        item = pending.pop()
        if isinstance(item, str):
            plain = item.isascii() and item.isprintable() and "\\" not in item and "'" not in item
            total += len(item) + 2 if plain else 10 * len(item) + 2
        elif isinstance(item, dict):
            total += 2 + 4 * len(item)
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 11 + 2 * len(item)  # "frozenset(" ... ")"
            pending.extend(item)
        elif isinstance(item, bytes):
            total += 4 * len(item) + 3
        elif isinstance(item, int) and not isinstance(item, bool):
            total += MAX_INT_DIGITS + 2 if abs(item) >= 10**18 else 20
        else:  # None, bool, float, date, datetime (its repr names the timezone)
            total += 120
    return total


def _undefined(tag: str, mark: Any) -> ConstructorError:
    """SafeConstructor.construct_undefined's error."""
    return ConstructorError(None, None, f"could not determine a constructor for the tag {tag!r}", mark)


def _yaml_problem(exc: yaml.YAMLError, file: str | None) -> Problem:
    """A PyYAML error as a located problem, worded as PyYAML words it."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        message = exc.problem or str(exc)
        if exc.context:
            message = f"{exc.context}, {message}"
        return Problem(f"invalid YAML: {message}", file=file, line=mark.line + 1 if mark else None,
                       column=mark.column + 1 if mark else None, code="syntax-error")
    return Problem(f"invalid YAML: {exc}", file=file, code="syntax-error")


def load_yaml(text: str, file: str | None, limits: Limits, *, located: bool = True,
              loader: type | None = None) -> Iterator[Any]:
    """The documents of the YAML stream ``text``, one at a time, as ``yaml.load_all`` with
    ``yaml.SafeLoader`` semantics gives them, built iteratively and within ``limits``.

    With ``located`` (the default), mappings are :class:`LocatedDict` and sequences
    :class:`LocatedList` (an unhashable key becomes its ``str``), as the manifest reader
    has always built them; otherwise plain ``dict`` and ``list`` (an unhashable key is an
    error), exactly as ``yaml.safe_load_all``. ``loader`` is the parser (default: libyaml's
    when PyYAML has it).

    Raises :class:`RulesetError` for syntax and construction errors (PyYAML's messages and
    marks) and :class:`LimitError` for a limit (at once, where it is met). Like PyYAML, which
    composes a whole document before constructing it, a syntax error anywhere in a document
    wins over a construction error in it; of several construction errors, the one whose node
    starts first is reported (PyYAML constructs depth first, so an enclosing mapping's merge
    error comes before its children's; it constructs merged pairs before a mapping's own,
    which can make it report another of them). What crashed PyYAML's constructors (``!!int
    abc``, ``2020-13-01``, ``!!map`` on a scalar) is a located construction error here.

    A large located stream may be read by the native parser instead (:mod:`ruleset.native_yaml`,
    when installed), only where that gives exactly these documents and lines.
    """
    if located and loader is None and len(text) >= native_yaml.MIN_BYTES and native_yaml.available():
        # A large stream in the subset the native parser reads exactly as this path does (else
        # None, and this path reads it, limits and error positions included): see native_yaml.
        documents = native_yaml.load_documents(text, LocatedDict, LocatedList, limits.max_depth)
        if documents is not None:
            for index in range(len(documents)):
                document, documents[index] = documents[index], None  # the caller decides what stays
                yield document
            return
    try:
        yield from _Builder(file, limits, located).run(text, loader or _FAST_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        if exc.problem == "exceeded maximum nesting depth" and mark is not None:
            # libyaml's own nesting limit (1,000 flow or block levels), reached while it
            # scans ahead of the events that would have reached ours. Below 1,000 levels,
            # PyYAML's own parser (which has no such limit) finds where ours was passed.
            if limits.max_depth < 1000 and loader is not yaml.SafeLoader:
                try:
                    for _ in _Builder(file, limits, located).run(text, yaml.SafeLoader):
                        pass
                except LimitError as limit:
                    raise limit from None
                except yaml.YAMLError:
                    pass
            raise LimitError(Problem(_depth_message(limits), file=file, line=mark.line + 1,
                                     column=mark.column + 1, code="syntax-error")) from None
        raise RulesetError(_yaml_problem(exc, file)) from None
    except yaml.YAMLError as exc:
        raise RulesetError(_yaml_problem(exc, file)) from None


def _looked_at_as_node(top: _Frame | None) -> bool:
    """Whether the next value in ``top`` is checked as a node (a merge key's value, an item
    of a merge list or of an ``!!omap`` / ``!!pairs``) before, or instead of, being
    constructed: a scalar that cannot be constructed is then refused as that check says."""
    if top is None:
        return False
    if top.is_map:
        return top.merge_key
    return top.merge_seq or top.tag in (_OMAP, _PAIRS)


def _excessive(aliased: int, decoded: int) -> bool:
    """go-yaml v2's test, made at each node it decodes (decode.go, ``unmarshal``)."""
    return (aliased > ALIAS_MIN_ALIASED and decoded > ALIAS_MIN_DECODED
            and aliased / decoded > allowed_alias_ratio(decoded))


class _Builder:
    """Builds the documents of a YAML event stream with an explicit stack."""

    def __init__(self, file: str | None, limits: Limits, located: bool):
        self.file = file
        self.limits = limits
        self.located = located
        # Construction errors of the current document, each with the offset of the node whose
        # construction raises it: PyYAML constructs a document depth first (a mapping's merge
        # keys before its pairs), so the first of them in that order is the one it reports.
        self.errors: list[tuple[int, ConstructorError]] = []

    def error(self, exc: ConstructorError, owner: Any) -> None:
        """Note a construction error; building goes on (a placeholder in its place), so that a
        syntax error later in the document, or an earlier construction error, still wins."""
        self.errors.append((owner.index, exc))

    def limit(self, message: str, mark: Any) -> LimitError:
        return LimitError(Problem(message, file=self.file, line=mark.line + 1, column=mark.column + 1,
                                  code="syntax-error"))

    def run(self, text: str, loader_class: type) -> Iterator[Any]:
        loader = loader_class(text)
        try:
            yield from self._documents(loader.get_event)
        finally:
            loader.dispose()

    def _documents(self, get_event: Callable[[], Any]) -> Iterator[Any]:
        located = self.located
        max_depth = self.limits.max_depth
        dict_type: Callable[[], Any] = LocatedDict if located else dict
        list_type: Callable[[], Any] = LocatedList if located else list
        resolve = _RESOLVE
        cache: dict[str, Any] = {}
        anchors: dict[str, _Node] = {}
        stack: list[_Frame] = []
        root: Any = None
        # go-yaml's decodeCount and aliasCount for this document: each node it decodes (an
        # alias costs one plus the size of its anchor's node), and those decoded through aliases.
        decoded = aliased = 0

        def too_aliased(mark: Any) -> LimitError:
            return self.limit(
                f"document contains excessive aliasing: its aliases expand to {aliased:,} of the "
                f"{decoded:,} nodes read so far, more than the {allowed_alias_ratio(decoded):.0%} "
                "Kubernetes' YAML decoder (go-yaml v2) allows", mark)

        while True:
            event = get_event()
            cls = event.__class__
            top = stack[-1] if stack else None
            try:
                if cls is ScalarEvent:
                    value = event.value
                    tag = event.tag
                    mark = event.start_mark
                    try:
                        if tag is None or tag == "!":
                            if event.implicit[0]:
                                data = cache.get(value, cache)
                                if data is cache:
                                    tag = resolve(ScalarNode, value, event.implicit)
                                    data = value if tag == _STR else \
                                        _construct_scalar(tag, value, event.style, mark)
                                    if tag != _FLOAT and len(value) <= 64:  # (NaN is not equal to itself)
                                        if len(cache) >= _CACHE_LIMIT:
                                            cache.clear()
                                        cache[value] = data
                            else:
                                data = value
                        elif tag == _STR:
                            data = value
                        else:
                            data = _construct_scalar(tag, value, event.style, mark)
                    except ConstructorError as exc:
                        self.error(exc, mark)
                        data = None
                    node = None
                    if event.anchor is not None or (top is not None and top.items is not None):
                        node = _Node("scalar", mark)
                        node.obj = data
                        node.token = value
                        node.open = False
                        if event.anchor is not None:
                            self._anchor(anchors, event.anchor, node)
                    if data.__class__ is _Undefined and not _looked_at_as_node(top):
                        if top is None or not top.is_map or top.has_key:
                            self.error(_undefined(data.tag, mark), mark)
                            data = None
                        elif data.tag == _MERGE:  # a merge key: go-yaml does not decode it either
                            top.pairs += 1
                            if top.first_pair is None:
                                top.first_pair = (data, None, mark)
                            top.has_key = top.merge_key = True
                            continue
                        else:
                            data = "="  # flatten_mapping makes a "=" key the string "="
                            if node is not None:
                                node.obj = data
                    decoded += 1
                    if aliased > ALIAS_MIN_ALIASED and _excessive(aliased, decoded):
                        raise too_aliased(mark)
                    if top is None:
                        root = data
                    elif top.is_map:
                        self._add_to_map(top, data, mark, value, node)
                    else:
                        self._add_to_seq(top, data, mark, node)
                elif cls is MappingStartEvent or cls is SequenceStartEvent:
                    is_map = cls is MappingStartEvent
                    mark = event.start_mark
                    if len(stack) >= max_depth:
                        raise self.limit(_depth_message(self.limits), mark)
                    tag = event.tag
                    if tag is None or tag == "!" or tag == (_MAP if is_map else _SEQ):
                        tag = None
                    frame = _Frame(is_map, dict_type() if is_map else list_type(), tag, mark, decoded)
                    if located:
                        frame.obj.line = mark.line + 1
                    merge_value = top is not None and top.is_map and top.has_key and top.merge_key
                    if merge_value or event.anchor is not None or (top is not None and top.items is not None):
                        frame.node = _Node("mapping" if is_map else "sequence", mark)
                        frame.node.token = frame.node
                        if event.anchor is not None:
                            self._anchor(anchors, event.anchor, frame.node)
                        if is_map:
                            frame.own = []
                        else:
                            frame.items = []
                    if not is_map and tag in (_OMAP, _PAIRS):
                        frame.items = []
                    if merge_value and not is_map:
                        frame.merge_seq = True  # go-yaml decodes its items, not itself
                    else:
                        decoded += 1
                        if aliased > ALIAS_MIN_ALIASED and _excessive(aliased, decoded):
                            raise too_aliased(mark)
                    stack.append(frame)
                elif cls is MappingEndEvent or cls is SequenceEndEvent:
                    frame = stack.pop()
                    data = self._finish(frame)
                    node = frame.node
                    if node is not None:
                        node.obj = data
                        node.open = False
                        node.size = decoded - frame.start
                        node.height = frame.height
                        node.items = frame.items
                        node.pairs = frame.pairs
                        node.first_pair = frame.first_pair
                        if frame.is_map:
                            node.flat = (frame.merged or []) + (frame.own or [])
                    if not stack:
                        root = data
                    else:
                        parent = stack[-1]
                        if frame.height >= parent.height:
                            parent.height = frame.height + 1
                        if parent.is_map:
                            self._add_to_map(parent, data, frame.mark, node or frame, node)
                        else:
                            self._add_to_seq(parent, data, frame.mark, node)
                elif cls is AliasEvent:
                    mark = event.start_mark
                    node = anchors.get(event.anchor)
                    if node is None:
                        raise ComposerError(None, None, "found undefined alias", mark)
                    if len(stack) + node.height > max_depth:
                        raise self.limit(_depth_message(self.limits), mark)
                    decoded += 1
                    if aliased > ALIAS_MIN_ALIASED and _excessive(aliased, decoded):
                        raise too_aliased(mark)
                    decoded += node.size
                    aliased += node.size
                    if _excessive(aliased, decoded):
                        raise too_aliased(mark)
                    data = node.obj
                    if node.open:
                        self.error(ConstructorError(None, None, "found unconstructable recursive node",
                                                    node.mark), mark)
                        data = None
                    elif data.__class__ is _Undefined and (top is None or not top.is_map or top.has_key) \
                            and not _looked_at_as_node(top):
                        self.error(_undefined(data.tag, node.mark), mark)
                        data = None
                    if top is None:
                        root = data
                    else:
                        if node.height >= top.height:
                            top.height = node.height + 1
                        # PyYAML's alias is the anchored node itself: its lines are the anchor's.
                        if top.is_map:
                            self._add_to_map(top, data, node.mark, node.token, node)
                        else:
                            self._add_to_seq(top, data, node.mark, node)
                elif cls is DocumentStartEvent:
                    anchors = {}
                    decoded, aliased = 1, 0  # go-yaml decodes the document node too
                    root = None
                elif cls is DocumentEndEvent:
                    if self.errors:
                        raise min(self.errors, key=lambda error: error[0])[1]
                    anchors = {}
                    yield root
                    root = None
                elif cls is StreamEndEvent:
                    return
            except _TooManyDigitsAt as exc:
                raise self.limit(_digits_message(), exc.mark) from None

    @staticmethod
    def _anchor(anchors: dict[str, _Node], anchor: str, node: _Node) -> None:
        if anchor in anchors:
            raise ComposerError("found duplicate anchor; first occurrence", anchors[anchor].mark,
                                "second occurrence", node.mark)
        anchors[anchor] = node

    def _add_to_seq(self, frame: _Frame, data: Any, mark: Any, node: _Node | None) -> None:
        frame.obj.append(data)
        if self.located:
            frame.obj.item_lines.append(mark.line + 1)
        if frame.items is not None:
            frame.items.append(node)

    def _add_to_map(self, frame: _Frame, data: Any, mark: Any, token: Any, node: _Node | None) -> None:
        """A key, or the value of the pending key; ``token`` is the key's identity, as
        flatten_mapping sees it (a scalar's text object, else its node)."""
        if not frame.has_key:
            key = data
            frame.pairs += 1
            if frame.first_pair is None:
                frame.first_pair = (key, None, mark)
            if key.__class__ is _Undefined:  # an alias to a merge-tagged or "=" scalar
                if key.tag == _MERGE:
                    frame.has_key = frame.merge_key = True
                    return
                key = "="
                if node is not None:
                    node.obj = key
            try:
                hash(key)
            except TypeError:
                if frame.unhashable is None:
                    frame.unhashable = mark
                if not self.located:
                    self.error(ConstructorError("while constructing a mapping", frame.mark,
                                                "found unhashable key", mark), mark)
                key = self._key_text(key, mark)
            frame.key = key
            frame.key_line = mark.line + 1
            frame.key_token = token
            frame.has_key = True
            return
        frame.has_key = False
        if frame.pairs == 1:
            frame.first_pair = (frame.first_pair[0], data, frame.first_pair[2])
        if frame.merge_key:
            frame.merge_key = False
            self._merge(frame, node, mark)
            return
        key = frame.key
        obj = frame.obj
        obj[key] = data
        if self.located:
            obj.key_lines[key] = frame.key_line
        if frame.own is not None:
            frame.own.append((frame.key_token, key, data, frame.key_line))

    def _key_text(self, key: Any, mark: Any) -> str:
        """``str(key)`` for a mapping or sequence used as a key, within
        :data:`MAX_KEY_TEXT` characters: such keys nested in such keys double their text at
        every level (quotes and backslashes are escaped again), so the length is bounded
        before the text is made."""
        bound = _text_bound(key, 10 * MAX_KEY_TEXT)
        if bound > MAX_KEY_TEXT:
            text = str(key) if bound <= 10 * MAX_KEY_TEXT else None
            if text is None or len(text) > MAX_KEY_TEXT:
                raise self.limit("a mapping key that is a mapping or sequence longer than "
                                 f"{_size(MAX_KEY_TEXT)} as text (the limit for such keys)", mark)
            return text
        return str(key)

    def _merge(self, frame: _Frame, node: _Node | None, mark: Any) -> None:
        """The value of a merge key: a mapping, or a sequence of mappings (flatten_mapping)."""
        kind = node.kind if node is not None else "scalar"
        if kind == "mapping":
            groups = [node.flat or []]  # type: ignore[union-attr]
        elif kind == "sequence":
            groups = []
            for item in node.items or ():  # type: ignore[union-attr]
                if item is None or item.kind != "mapping":
                    item_kind, item_mark = (item.kind, item.mark) if item is not None else ("scalar", mark)
                    self.error(ConstructorError("while constructing a mapping", frame.mark,
                                                f"expected a mapping for merging, but found {item_kind}",
                                                item_mark), frame.mark)
                    return
                groups.append(item.flat or [])
            if not _MERGE_IN_ORDER:
                groups.reverse()  # before PyYAML 6.0.2: the first mapping of a list wins
        else:
            problem = f"expected a mapping or list of mappings for merging, but found {kind}"
            self.error(ConstructorError("while constructing a mapping", frame.mark, problem,
                                        node.mark if node is not None else mark), frame.mark)
            return
        merged = frame.merged if frame.merged is not None else []
        frame.merged = merged
        if _MERGE_IN_ORDER:  # 6.0.2 on: a key (the same object) merged twice keeps its first value
            seen = frame.merge_ids if frame.merge_ids is not None else set()
            frame.merge_ids = seen
            for group in groups:
                for pair in group:
                    if id(pair[0]) not in seen:
                        seen.add(id(pair[0]))
                        merged.append(pair)
        else:
            for group in groups:
                merged.extend(group)

    def _finish(self, frame: _Frame) -> Any:
        """The value of a finished mapping or sequence, as its tag's constructor builds it."""
        try:
            return self._construct(frame)
        except ConstructorError as exc:
            self.error(exc, frame.mark)
            return frame.obj

    def _construct(self, frame: _Frame) -> Any:
        obj = frame.obj
        tag = frame.tag
        if frame.is_map:
            if frame.merged:  # the merged pairs come first, then its own (which win)
                own = obj
                if self.located:
                    obj = LocatedDict()
                    obj.line = own.line
                    lines = obj.key_lines
                    for _, key, value, line in frame.merged:
                        obj[key] = value
                        lines[key] = line
                    for key, value in own.items():
                        obj[key] = value
                        lines[key] = own.key_lines[key]
                else:
                    obj = {}
                    for _, key, value, _ in frame.merged:
                        obj[key] = value
                    obj.update(own)
                frame.obj = obj
            if tag is None:
                return obj
            if tag == _SET:
                if frame.unhashable is not None:
                    raise ConstructorError("while constructing a mapping", frame.mark, "found unhashable key",
                                           frame.unhashable)
                return set(obj)
            if tag in (_OMAP, _PAIRS):
                raise ConstructorError(f"while constructing {'an ordered map' if tag == _OMAP else 'pairs'}",
                                       frame.mark, "expected a sequence, but found mapping", frame.mark)
            if tag == _SEQ:
                raise ConstructorError(None, None, "expected a sequence node, but found mapping", frame.mark)
            if tag in _SCALAR_TAGS:
                raise ConstructorError(None, None, "expected a scalar node, but found mapping", frame.mark)
            raise _undefined(tag, frame.mark)
        if tag is None:
            return obj
        if tag in (_OMAP, _PAIRS):
            what = "an ordered map" if tag == _OMAP else "pairs"
            out = []
            for item in frame.items or ():
                kind = item.kind if item is not None else "scalar"
                if item is None or kind != "mapping":
                    raise ConstructorError(f"while constructing {what}", frame.mark,
                                           f"expected a mapping of length 1, but found {kind}",
                                           item.mark if item is not None else frame.mark)
                if item.pairs != 1:
                    raise ConstructorError(f"while constructing {what}", frame.mark,
                                           f"expected a single mapping item, but found {item.pairs} items",
                                           item.mark)
                key, value, key_mark = item.first_pair
                if key.__class__ is _Undefined:
                    raise _undefined(key.tag, key_mark)
                out.append((key, value))
            return out
        if tag in (_MAP, _SET):
            raise ConstructorError(None, None, "expected a mapping node, but found sequence", frame.mark)
        if tag in _SCALAR_TAGS:
            raise ConstructorError(None, None, "expected a scalar node, but found sequence", frame.mark)
        raise _undefined(tag, frame.mark)
