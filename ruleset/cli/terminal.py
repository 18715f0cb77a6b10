"""What the text output may use of the terminal it goes to: its width, colour, the symbols its
encoding can show, and a progress bar on stderr.

Rules, in one place:

- width: ``COLUMNS`` when it holds a positive integer, else the terminal's width, else 120
  (a pipe, a test); ``--wide`` means no limit (``None``).
- colour: only when the stream is a terminal and ``NO_COLOR`` is unset or empty
  (https://no-color.org); never ANSI codes in a pipe or a file.
- symbols: →, ✗, ←, ×, —, …, ✓ when the stream's encoding can write them, else ASCII.
- progress: on stderr only when stderr is a terminal whose ``TERM`` is not ``dumb``, and only
  after half a second, so short runs and pipes print nothing. ``CI`` is not looked at: CI
  runners give no terminal. ``NO_COLOR`` takes the colour out of the bar, not the bar.

rich is imported only by the functions that draw, so commands that never do start fast.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import astuple, dataclass
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

#: The width of output that goes nowhere with a width of its own (a pipe, a file, a test).
DEFAULT_WIDTH = 120
#: What ``--wide`` gives rich as a width: more than any line needs.
_UNLIMITED = 1_000_000
#: How long a run goes before its progress bar appears, in seconds.
PROGRESS_DELAY = 0.5


def width(wide: bool = False) -> int | None:
    """The width text output must fit: ``None`` (no limit) when ``wide``; else ``COLUMNS``
    when it is a positive integer, else the terminal's width (120 when stdout is none)."""
    if wide:
        return None
    columns = os.environ.get("COLUMNS", "")
    if columns.strip().isdigit() and int(columns) > 0:
        return int(columns)
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def use_color(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (default: stdout) gets colour: a terminal, and ``NO_COLOR`` unset or empty."""
    stream = sys.stdout if stream is None else stream
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):  # a closed or detached stream
        return False


@dataclass(frozen=True)
class Symbols:
    """The marks text output uses, as the output's encoding can write them."""

    arrow: str = "→"
    cross: str = "✗"
    back: str = "←"
    times: str = "×"
    dash: str = "—"
    ellipsis: str = "…"
    check: str = "✓"


UNICODE = Symbols()
ASCII = Symbols(arrow="->", cross="x", back="<-", times="x", dash="-", ellipsis="...", check="ok")


def symbols(stream: TextIO | None = None) -> Symbols:
    """:data:`UNICODE` when ``stream`` (default: stdout) can encode every one of its marks,
    else :data:`ASCII`. A stream without an encoding (``io.StringIO``) takes Unicode."""
    stream = sys.stdout if stream is None else stream
    encoding = getattr(stream, "encoding", None)
    if not encoding:
        return UNICODE
    try:
        "".join(astuple(UNICODE)).encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return ASCII
    return UNICODE


def console(wide: bool = False, *, file: TextIO | None = None, color: bool | None = None,
            width_: int | None = None) -> Console:
    """A rich console for ``file`` (default: stdout) that never surprises: no highlighting,
    no emoji codes, no markup (names and reasons come from the input and are printed as they
    are, through :class:`rich.text.Text`), no soft wrapping; as wide as :func:`width` says
    (``wide``: unlimited) unless ``width_`` is given; colour as :func:`use_color` says unless
    ``color`` is given."""
    from rich.console import Console

    file = sys.stdout if file is None else file
    color = use_color(file) if color is None else color
    limit = width(wide) if width_ is None else width_
    return Console(file=file, width=_UNLIMITED if limit is None else limit,
                   color_system="standard" if color else None, force_terminal=color,
                   no_color=not color, highlight=False, emoji=False, markup=False, soft_wrap=False,
                   legacy_windows=False)


_TRAILING_SPACE = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


def render(renderables: Iterable[RenderableType], *, width: int | None, color: bool = False) -> str:
    """``renderables`` drawn one after another, as text ``width`` columns wide at most (``None``:
    no limit), with ANSI colour codes only when ``color``; no trailing spaces, no final newline."""
    buffer = io.StringIO()
    out = console(file=buffer, color=color, width_=_UNLIMITED if width is None else width)
    for renderable in renderables:
        out.print(renderable, crop=width is not None)
    return _TRAILING_SPACE.sub(r"\1", buffer.getvalue()).rstrip("\n")


def examples_width(width: int | None) -> int | None:
    """The widest a column of example names may be: a third of ``width`` (20 at least), so
    that the reasons beside it keep the room."""
    return None if width is None else max(20, width // 3)


class Progress:
    """What :func:`progress` yields: say how far the work went with :meth:`advance`."""

    __slots__ = ()

    def advance(self, n: int = 1) -> None:
        """``n`` more units of the work are done."""


_SILENT = Progress()


class _Bar(Progress):
    """A rich progress bar on stderr that appears only once the work has taken
    :data:`PROGRESS_DELAY` seconds (a timer thread starts it) and leaves no trace when done."""

    __slots__ = ("_bar", "_description", "_done", "_lock", "_task", "_timer", "_total")

    def __init__(self, description: str, total: int | None, delay: float):
        self._description, self._total = description, total
        self._done = 0
        self._bar: Any = None
        self._task: Any = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = threading.Timer(delay, self._start)
        self._timer.daemon = True
        self._timer.start()

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                   *([MofNCompleteColumn()] if self._total is not None else []), TimeElapsedColumn()]
        bar = RichProgress(*columns, console=Console(file=sys.stderr, highlight=False, emoji=False,
                                                      markup=False),
                           transient=True)
        with self._lock:
            if self._timer is None:  # the work ended while rich was being imported
                return
            self._task = bar.add_task(self._description, total=self._total, completed=self._done)
            bar.start()
            self._bar = bar

    def advance(self, n: int = 1) -> None:
        self._done += n
        bar = self._bar
        if bar is not None:
            bar.update(self._task, completed=self._done)

    def close(self) -> None:
        timer = self._timer
        with self._lock:
            self._timer = None
        assert timer is not None
        timer.cancel()
        if self._bar is not None:
            self._bar.stop()


def progress_wanted(stream: TextIO | None = None) -> bool:
    """Whether a progress bar may be drawn on ``stream`` (default: stderr): a terminal, not ``dumb``."""
    stream = sys.stderr if stream is None else stream
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):
        return False


@contextlib.contextmanager
def progress(description: str, total: int | None, *, delay: float = PROGRESS_DELAY) -> Iterator[Progress]:
    """A progress bar for long work (``total`` units, ``None`` when unknown): drawn on stderr
    after ``delay`` seconds when :func:`progress_wanted`, removed when the block ends. When it
    is not wanted, what it yields does nothing, at the cost of a method call."""
    if not progress_wanted():
        yield _SILENT
        return
    bar = _Bar(description, total, delay)
    try:
        yield bar
    finally:
        bar.close()
