"""Errors as values: every user-facing problem carries where it came from.

A :class:`Problem` names a file, a line and column where known, the key or field path,
and a message. Loaders collect problems and raise one :class:`RulesetError` holding all of
them; the CLI prints one line per problem and exits 2. Nothing user-facing is a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

# C0 and C1 controls, DEL, line and paragraph separators, bidirectional overrides and
# isolates, and lone surrogates (undecodable bytes of a file name or argument).
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def printable(text: str, keep: str = "") -> str:
    """``text`` with every character that could forge a line or steer a terminal shown as an
    escape (``\\n``, ``\\x1b``, ``\\u202e``…): for values that came from an input and are
    about to be printed. Everything else, non-ASCII letters included, is left as it is, and
    so are the characters of ``keep`` (for a format that escapes those its own way)."""
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)


def one_line(text: str) -> str:
    """``text`` folded onto one line: its lines, stripped and without the blank ones, joined by
    `` | `` (a multi-line exception message from a plugin, reported as one problem)."""
    if "\n" not in text and "\r" not in text and "\u2028" not in text and "\u2029" not in text:
        return text
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())


#: What a plugin's code (a package's import or hooks, a plugin's constructor, args parsing or
#: hooks) may throw and be reported for instead of ending the run: every Exception, and
#: SystemExit (a plugin calling ``sys.exit``). KeyboardInterrupt is the user's and goes through.
PLUGIN_FAULTS: tuple[type[BaseException], ...] = (Exception, SystemExit)


def describe_exception(exc: BaseException) -> str:
    """``exc`` as a message: ``Type: message``, or ``Type`` when its message is empty. Never
    raises: an exception whose ``__str__`` fails is ``Type: <unprintable message>``."""
    try:
        text = str(exc)
    except PLUGIN_FAULTS:  # a plugin's exception whose __str__ raises
        text = "<unprintable message>"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem in a user's input, with its location."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    path: str | None = None
    code: str = "error"
    severity: str = "error"

    def location(self) -> str:
        """``file:line:col`` (as much of it as is known), printable."""
        parts = [printable(self.file) if self.file else "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        where = self.location()
        what = f"{self.path}: {self.message}" if self.path else self.message
        return f"{where}: {printable(what)}"


@dataclass
class RulesetError(Exception):
    """One or more problems that stop an operation; raised by loaders, caught by the CLI."""

    problems: list[Problem] = field(default_factory=list)

    def __init__(self, problems: Iterable[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem(problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


def format_path(path: tuple | list) -> str:
    """A key path as users write it: ``plugins.NodeLabel.args.presentLabels[1]``.

    Keys that are not bare TOML keys are quoted.
    """
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        text = str(part)
        if not text or not all(c.isalnum() or c in "-_" for c in text):
            text = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
        out += f".{text}" if out else text
    return out
