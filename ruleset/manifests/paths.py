"""Manifest paths as people give them: files, folders (every ``*.yaml``, ``*.yml`` and
``*.json`` inside, recursively, in sorted order), several per flag."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ruleset.errors import Problem

#: What a folder's manifests are named.
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
#: The most manifest files one folder may hold.
MAX_FOLDER_FILES = 10_000


def manifest_files(paths: Iterable[str | Path], problems: list[Problem],
                   direct: set[str] | None = None) -> list[Path]:
    """The files ``paths`` name, folders expanded; a path that does not exist, or a folder
    without manifests, is a problem (``io-error``). A file is read once however often it is
    named (through a folder and by itself, say), at its first place. ``direct`` collects the
    files named by themselves (not found in a folder)."""
    out: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        try:
            is_dir = path.is_dir()
        except (OSError, ValueError):  # a name too long, a NUL byte
            is_dir = False
        if is_dir:
            before = len(problems)
            found = _folder_files(path, problems)
            if not found and len(problems) == before:
                problems.append(Problem("no *.yaml, *.yml or *.json file in this folder", file=str(path),
                                        code="io-error"))
        else:
            found = [path]
            if direct is not None:
                direct.add(str(path))
        for file in found:
            key = _identity(file)
            if key not in seen:
                seen.add(key)
                out.append(file)
    return out


def _folder_files(folder: Path, problems: list[Problem]) -> list[Path]:
    """Manifests under ``folder``, sorted by their path inside it; hidden files and folders
    (editors' backups, ``.git``) are left out, symbolic links to folders are not followed,
    and a folder holding more than :data:`MAX_FOLDER_FILES` manifests is a problem (it is
    more likely ``/`` than a cluster)."""
    found: list[Path] = []
    for top, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in files:
            if name.startswith(".") or not name.lower().endswith(MANIFEST_SUFFIXES):
                continue
            path = Path(top, name)
            if path.is_file():
                found.append(path)
        if len(found) > MAX_FOLDER_FILES:
            problems.append(Problem(f"more than {MAX_FOLDER_FILES:,} manifest files in this folder; name a "
                                    "smaller one", file=str(folder), code="io-error"))
            return []
    return sorted(found, key=lambda p: p.relative_to(folder).parts)


def _identity(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        return path
