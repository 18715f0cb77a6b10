"""What the commands write: versioned JSON on stdout, and files written atomically."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from ruleset.jsonout import dump_json


def print_json(document: dict[str, Any]) -> None:
    """``document`` on stdout, ``schemaVersion`` first."""
    sys.stdout.write(dump_json(document) + "\n")


def refuse_existing(paths: list[Path], force: bool) -> None:
    """Raise RulesetError (exit 2) naming each of ``paths`` that exists, unless ``force``."""
    from ruleset.errors import Problem, RulesetError

    existing = [path for path in paths if path.exists()]
    if existing and not force:
        raise RulesetError([Problem("already exists; pass --force to overwrite", file=str(path),
                                    code="exists") for path in existing])


def write_atomic(path: Path, text: str, force: bool = False) -> None:
    """Write ``text`` to ``path`` via a temporary file and rename, so a failure leaves no partial file.

    Refuses to replace an existing file unless ``force``.
    """
    refuse_existing([path], force)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
