"""The JSON contract: ``{"schemaVersion": 1, "files": [{"path", "valid", "problems": [...]}], "summary",
"pluginProblems": [...]}`` (``pluginProblems`` as in every command's JSON, counted in the summary)."""

from __future__ import annotations

from typing import Any

from ruleset.jsonout import dump_json
from ruleset.validate.checks import Report


def document(report: Report) -> dict[str, Any]:
    """The document without ``schemaVersion`` (which :func:`dump_json` puts first)."""
    return {
        "files": [
            {
                "path": file.path,
                "valid": file.valid(report.strict),
                "problems": [
                    {"severity": p.severity, "code": p.code, "line": p.line, "column": p.column,
                     "path": p.path, "message": p.message}
                    for p in file.problems
                ],
            }
            for file in report.files
        ],
        "summary": {"files": len(report.files), "invalid": report.invalid, "errors": report.errors,
                    "warnings": report.warnings, "pluginProblems": len(report.plugin_problems)},
        "pluginProblems": [problem.to_json() for problem in report.plugin_problems],
    }


def render(report: Report) -> str:
    return dump_json(document(report)) + "\n"
