"""Shared output helpers: versioned JSON, atomic file writes, the installed version."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

#: Every JSON document the tool writes carries this version; bump it on incompatible change.
SCHEMA_VERSION = 1


def dump_json(document: dict[str, Any]) -> str:
    """Serialise a JSON document with ``schemaVersion`` first."""
    return json.dumps({"schemaVersion": SCHEMA_VERSION, **document}, indent=2, ensure_ascii=False)


def print_json(document: dict[str, Any]) -> None:
    sys.stdout.write(dump_json(document) + "\n")


def package_version(fallback: str) -> str:
    """The installed ``ruleset`` distribution's version; ``fallback`` when not installed (a bare checkout)."""
    try:
        from importlib.metadata import version  # slow to import: only when asked

        return version("ruleset")
    except Exception:
        return fallback


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
