"""What the commands write: versioned JSON on stdout, and files written all-or-nothing.

Files are written the way a careful editor saves: every file to a temporary name beside
it first, then each renamed over its target, so that readers never see half a file and
a failure (an unwritable folder, a full disk, SIGINT or SIGTERM) leaves every target as
it was. A target that existed is replaced only with ``--force`` and keeps its permission
bits; a new one gets what the umask gives, as any file the user creates.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from ruleset.errors import Problem, RulesetError
from ruleset.jsonout import dump_json


def print_json(document: dict[str, Any], plugin_problems: bool = False) -> None:
    """``document`` on stdout, ``schemaVersion`` first; with ``plugin_problems``, for a command
    that loads plugins, the run's plugin load problems last, as ``pluginProblems`` (see
    :func:`plugin_problems_json`)."""
    if plugin_problems:
        document = {**document, "pluginProblems": plugin_problems_json()}
    sys.stdout.write(dump_json(document) + "\n")


def plugin_problems_json() -> list[dict[str, Any]]:
    """The load problems of the plugins this run uses (the one registry of the process for the
    ``--plugin`` modules in effect): ``[{"code", "severity", "package", "plugin", "message"}]``."""
    from ruleset.pluginmanager import load_registry

    return [problem.to_json() for problem in load_registry().problems]


def refuse_existing(paths: Sequence[Path], force: bool) -> None:
    """Raise RulesetError (exit 2) naming each of ``paths`` that cannot be written to: a folder,
    a missing or non-folder parent, or (unless ``force``) an existing file."""
    problems = []
    for path in paths:
        parent = path.parent
        if path.is_dir():
            problems.append(Problem("is a folder; name a file to write", file=str(path), code="io-error"))
        elif not parent.is_dir():
            what = "does not exist" if not parent.exists() else "is not a folder"
            problems.append(Problem(f"cannot write here: {parent} {what}", file=str(path), code="io-error"))
        elif path.exists() and not force:
            problems.append(Problem("already exists; pass --force to overwrite", file=str(path),
                                    code="exists"))
    if problems:
        raise RulesetError(problems)


def write_atomic(path: Path, text: str, force: bool = False) -> None:
    """Write one file all-or-nothing (see :func:`write_files`)."""
    write_files([(path, text)], force)


def write_files(outputs: Sequence[tuple[Path, str]], force: bool = False) -> None:
    """Write every ``(path, text)`` or none of them.

    Raises RulesetError (exit 2) for a target that cannot be written, or an existing one
    without ``force``, before anything is written, and for an OS error while writing,
    after putting every target back as it was.
    """
    refuse_existing([path for path, _ in outputs], force)
    temporaries: list[tuple[Path, Path, int | None]] = []  # (temporary, target, mode to keep)
    replaced: list[tuple[Path, Path | None]] = []  # (target, backup of what it held, if anything)
    current = outputs[0][0] if outputs else Path()
    with _interruptible():
        try:
            for current, text in outputs:
                mode = current.stat().st_mode & 0o7777 if current.exists() else None
                temporaries.append((_write_temporary(current, text, mode), current, mode))
            for temporary, current, mode in temporaries:
                backup = None
                if mode is not None:  # keep the old file until every new one is in place
                    backup = _unique(current, "old")
                    os.link(current, backup)
                replaced.append((current, backup))
                os.replace(temporary, current)
        except BaseException as exc:
            _roll_back(replaced, [t for t, _, _ in temporaries])
            if isinstance(exc, OSError):
                raise RulesetError(Problem(f"cannot write: {exc.strerror or exc}", file=str(current),
                                           code="io-error")) from None
            raise
        for _, backup in replaced:
            if backup is not None:
                with contextlib.suppress(OSError):
                    os.unlink(backup)


def _unique(path: Path, what: str) -> Path:
    """A name beside ``path`` that does not exist yet (hidden, so editors and globs skip it)."""
    for attempt in range(1000):
        candidate = path.with_name(f".{path.name}.{os.getpid()}.{attempt}.{what}")
        if not candidate.exists():
            return candidate
    raise FileExistsError(f"no free temporary name beside {path}")


def _write_temporary(path: Path, text: str, mode: int | None) -> Path:
    temporary = _unique(path, "tmp")
    # 0o666 and the umask, as for any new file; the old file's bits when it is replaced.
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", closefd=False) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    os.close(fd)
    return temporary


def _roll_back(replaced: list[tuple[Path, Path | None]], temporaries: list[Path]) -> None:
    """Put back what the targets held, and remove every temporary (best effort: each step on its own)."""
    for path, backup in reversed(replaced):
        with contextlib.suppress(OSError):
            if backup is not None:
                os.replace(backup, path)
            else:
                os.unlink(path)
    for temporary in temporaries:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


class _Terminated(BaseException):
    """SIGTERM while writing: unwinds like Ctrl-C so that the temporaries are removed."""


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """SIGTERM raises :class:`_Terminated` (SIGINT already raises KeyboardInterrupt) while the
    files are written, so that the cleanup runs; the previous handler comes back after."""
    def terminate(signum: int, frame: FrameType | None) -> None:
        raise _Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, terminate)
    except ValueError:  # not the main thread: no signal handling there
        yield
        return
    try:
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, previous)
        raise SystemExit(128 + signal.SIGTERM) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
