"""``ruleset validate``: check many profile files at once and report in a CI-friendly format.

:func:`~ruleset.validate.checks.validate_files` does the checking (see
:mod:`ruleset.validate.checks`); :func:`render` turns its :class:`Report` into one of
:data:`FORMATS`, each written by its own module in :mod:`ruleset.validate.formats`.
"""

from __future__ import annotations

import importlib

from ruleset.validate.checks import FileResult, Report, expand_paths, validate_files

__all__ = ["FORMATS", "FileResult", "Report", "expand_paths", "render", "validate_files"]

#: Output formats, each a module of :mod:`ruleset.validate.formats` with ``render(report) -> str``.
FORMATS = ("text", "json", "github", "junit", "sarif")


def render(report: Report, output: str) -> str:
    """The report in format ``output`` (one of :data:`FORMATS`), ending with a newline."""
    if output not in FORMATS:
        raise ValueError(f"unknown output format {output!r}")
    module = importlib.import_module(f"ruleset.validate.formats.{output}")
    return module.render(report)
