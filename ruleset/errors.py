"""Errors as values: every user-facing problem carries where it came from.

A :class:`Problem` names a file, a line and column where known, the key or field path,
and a message. Loaders collect problems and raise one :class:`RulesetError` holding all of
them; the CLI prints one line per problem and exits 2. Nothing user-facing is a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


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
        """``file:line:col`` (as much of it as is known)."""
        parts = [self.file or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        where = self.location()
        what = f"{self.path}: {self.message}" if self.path else self.message
        return f"{where}: {what}"


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
