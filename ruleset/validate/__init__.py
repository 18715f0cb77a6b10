"""``ruleset validate``: check many profile files at once and report in a CI-friendly format.

:func:`~ruleset.validate.checks.validate_files` does the checking (see
:mod:`ruleset.validate.checks`); :func:`render` turns its :class:`Report` into one of
:data:`FORMATS`, each written by its own module of :mod:`ruleset.validate.formats`.

This module stays cheap to import (the command line builds its ``--output`` choices from
:data:`FORMATS`); the checking code is imported when first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ruleset.validate.checks import FileResult, Report, expand_arguments, expand_paths, validate_files

__all__ = ["FORMATS", "FileResult", "Report", "expand_arguments", "expand_paths", "render", "validate_files"]

#: Output format -> the module that renders it (``render(report) -> str``); the one list of formats.
FORMATS: dict[str, str] = {
    "text": "ruleset.validate.formats.text",
    "json": "ruleset.validate.formats.json",
    "github": "ruleset.validate.formats.github",
    "junit": "ruleset.validate.formats.junit",
    "sarif": "ruleset.validate.formats.sarif",
}


def render(report: Report, output: str) -> str:
    """The report in format ``output`` (one of :data:`FORMATS`), ending with a newline."""
    if output not in FORMATS:
        raise ValueError(f"unknown output format {output!r}")
    rendered: str = importlib.import_module(FORMATS[output]).render(report)
    return rendered


def __getattr__(name: str) -> Any:
    if name in ("FileResult", "Report", "expand_arguments", "expand_paths", "validate_files"):
        return getattr(importlib.import_module("ruleset.validate.checks"), name)
    raise AttributeError(f"module 'ruleset.validate' has no attribute {name!r}")
