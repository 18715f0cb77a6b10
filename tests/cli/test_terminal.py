"""``ruleset.cli.terminal``: width, colour, symbols by encoding, rendering, progress."""

import io
import os
import time

import pytest
from rich.table import Table
from rich.text import Text

from ruleset.cli import terminal
from ruleset.cli.terminal import ASCII, UNICODE, examples_width, progress, render, symbols, use_color, width


class Stream(io.StringIO):
    """A text stream with the encoding and terminal-ness a test gives it."""

    def __init__(self, encoding="utf-8", tty=False):
        super().__init__()
        self._encoding, self._tty = encoding, tty

    @property
    def encoding(self):
        return self._encoding

    def isatty(self):
        return self._tty


@pytest.mark.parametrize("columns, wide, expected", [
    ("100", False, 100),
    (" 90 ", False, 90),
    ("100", True, None),
    ("0", False, 120),
    ("-5", False, 120),
    ("wide", False, 120),
    ("", False, 120),
    (None, False, 120),
], ids=["columns", "columns-spaces", "wide", "zero", "negative", "not-a-number", "empty", "unset"])
def test_width(monkeypatch, columns, wide, expected):
    # Under pytest stdout is no terminal: the fallback is what a pipe gets.
    monkeypatch.setattr(terminal.shutil, "get_terminal_size", lambda fallback: os.terminal_size(fallback))
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert width(wide) == expected


@pytest.mark.parametrize("tty, no_color, expected", [
    (True, None, True),
    (True, "", True),
    (True, "1", False),
    (False, None, False),
], ids=["terminal", "empty-no-color", "no-color", "pipe"])
def test_use_color(monkeypatch, tty, no_color, expected):
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    assert use_color(Stream(tty=tty)) is expected


@pytest.mark.parametrize("encoding, expected", [
    ("utf-8", UNICODE),
    ("UTF-16", UNICODE),
    ("ascii", ASCII),
    ("latin-1", ASCII),   # has ×, lacks →
    ("cp1252", ASCII),    # has … and —, lacks →
    ("no-such-codec", ASCII),
    (None, UNICODE),      # io.StringIO: no encoding, no limit
], ids=["utf-8", "utf-16", "ascii", "latin-1", "cp1252", "unknown", "none"])
def test_symbols(encoding, expected):
    assert symbols(Stream(encoding=encoding)) == expected


def test_the_ascii_symbols():
    assert (ASCII.arrow, ASCII.cross, ASCII.back, ASCII.times, ASCII.dash, ASCII.ellipsis, ASCII.check) == (
        "->", "x", "<-", "x", "-", "...", "ok")
    assert all(mark.isascii() for mark in vars(ASCII).values())


def test_render_strips_trailing_spaces_and_fits_the_width():
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column("A")
    table.add_column("B")
    table.add_row("x", "")
    table.add_row("long long", "y")
    assert render([Text("title"), table], width=40) == "title\nA          B\nx\nlong long  y"
    assert render([Text("abcdef " * 10)], width=20) == "abcdef abcdef abcdef\n" * 3 + "abcdef"
    assert render([Text("abcdef " * 10)], width=None) == ("abcdef " * 10).rstrip()


def test_render_never_reads_markup_and_colours_only_when_asked():
    assert render([Text("[bold]x[/bold] :smile:")], width=80) == "[bold]x[/bold] :smile:"
    assert render([Text("x", style="bold")], width=80) == "x"
    assert render([Text("x", style="bold")], width=80, color=True) == "\x1b[1mx\x1b[0m"


@pytest.mark.parametrize("width_, expected", [(120, 40), (30, 20), (None, None)], ids=["120", "narrow", "wide"])
def test_examples_width(width_, expected):
    assert examples_width(width_) == expected


def test_progress_is_silent_when_stderr_is_no_terminal(monkeypatch):
    err = Stream(tty=False)
    monkeypatch.setattr("sys.stderr", err)
    with progress("working", 3, delay=0) as bar:
        bar.advance()
        bar.advance(2)
    assert bar is terminal._SILENT
    assert err.getvalue() == ""


def test_progress_is_silent_on_a_dumb_terminal(monkeypatch):
    monkeypatch.setattr("sys.stderr", Stream(tty=True))
    monkeypatch.setenv("TERM", "dumb")
    with progress("working", 3, delay=0) as bar:
        pass
    assert bar is terminal._SILENT


def test_progress_draws_on_a_terminal_after_the_delay_and_cleans_up(monkeypatch):
    err = Stream(tty=True)
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("TERM", "xterm")
    with progress("scheduling", 4, delay=0) as bar:
        bar.advance()
        deadline = time.monotonic() + 5
        while bar._bar is None and time.monotonic() < deadline:  # the timer thread starts it
            time.sleep(0.01)
        bar.advance(3)
    assert bar._bar is not None
    assert "scheduling" in err.getvalue()
    assert not bar._bar.live.is_started


def test_progress_that_ends_before_the_delay_prints_nothing(monkeypatch):
    err = Stream(tty=True)
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("TERM", "xterm")
    with progress("loading", None, delay=60) as bar:
        bar.advance()
    assert bar._bar is None
    assert err.getvalue() == ""
