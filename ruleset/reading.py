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
  :func:`ruleset.yaml_reading.allowed_alias_ratio`. Nothing is expanded: each anchored node's expanded size is
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
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

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
    "check_toml",
    "decode_utf8",
    "load_json",
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
