"""The one exception the selector package raises for bad input."""

from __future__ import annotations

#: Lines longer than this are shown as a window around the error column.
_WINDOW = 72


class SelectorError(ValueError):
    """A selector that Kubernetes would reject (or a requirement that cannot be built).

    :ivar reason: the one-line message, in Kubernetes' own words where it has them.
    :ivar text: the selector text, or None when the error comes from converting an object.
    :ivar column: 1-based character offset into ``text`` of the offending token (the end of
        the text for a premature end), or None. Callers that embed the text in a file add
        it to the position where the text starts.

    ``str()`` gives the reason, then the offending line with a caret under the column.
    """

    def __init__(self, reason: str, text: str | None = None, column: int | None = None):
        self.reason = reason
        self.text = text
        self.column = column
        super().__init__(reason)

    def __str__(self) -> str:
        if self.text is None or self.column is None:
            return self.reason
        line, caret = caret_lines(self.text, self.column)
        return f"invalid selector at column {self.column}: {self.reason}\n  {line}\n  {caret}"

    def __reduce__(self):
        return (type(self), (self.reason, self.text, self.column))


def caret_lines(text: str, column: int) -> tuple[str, str]:
    """The line of ``text`` holding 1-based offset ``column`` and a caret line pointing at it."""
    offset = max(0, min(column - 1, len(text)))
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    line = text[start : len(text) if end < 0 else end]
    at = offset - start
    if len(line) > _WINDOW:
        lo = max(0, min(at - _WINDOW // 2, len(line) - _WINDOW))
        prefix = "..." if lo > 0 else ""
        suffix = "..." if lo + _WINDOW < len(line) else ""
        line = prefix + line[lo : lo + _WINDOW] + suffix
        at = at - lo + len(prefix)
    # One display cell per character keeps the caret aligned: tabs, returns and other
    # unprintable characters are shown as a single placeholder.
    shown = "".join(ch if ch.isprintable() else (" " if ch in "\t\r" else "?") for ch in line)
    return shown, " " * at + "^"
