"""SARIF 2.1.0: one run, the problem codes as the driver's rules, one result per problem.

Artifact URIs are relative to the working directory (``uriBaseId`` ``%SRCROOT%``, whose
absolute URI is given in ``originalUriBaseIds``) for files inside it, absolute ``file:``
URIs otherwise. Columns count Unicode code points, as the profile loader's do.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ruleset.errors import Problem
from ruleset.jsonout import package_version
from ruleset.validate.checks import Report
from ruleset.validate.codes import CODES, severity_of, summary_of
from ruleset.validate.formats.text import describe

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"


def artifact_location(path: str) -> dict[str, str]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path.replace(os.sep, "/")), "uriBaseId": SRCROOT}


def _rule(code: str) -> dict[str, Any]:
    return {"id": code, "shortDescription": {"text": summary_of(code)},
            "defaultConfiguration": {"level": severity_of(code)}}


def _result(problem: Problem, rule_index: int, artifact_index: int) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {**artifact_location(problem.file or ""),
                                                     "index": artifact_index}}
    if problem.line is not None:
        physical["region"] = {"startLine": problem.line}
        if problem.column is not None:
            physical["region"]["startColumn"] = problem.column
    result: dict[str, Any] = {"ruleId": problem.code, "ruleIndex": rule_index,
                              "level": "error" if problem.severity == "error" else "warning",
                              "message": {"text": describe(problem)},
                              "locations": [{"physicalLocation": physical}]}
    if problem.path:
        result["locations"][0]["logicalLocations"] = [{"fullyQualifiedName": problem.path, "kind": "member"}]
    return result


def _invocation(report: Report) -> dict[str, Any]:
    """The run's invocation; plugin load problems are its tool configuration notifications."""
    invocation: dict[str, Any] = {"executionSuccessful": report.exit_code != 2, "exitCode": report.exit_code}
    if report.plugin_problems:
        invocation["toolConfigurationNotifications"] = [
            {"descriptor": {"id": p.code}, "level": "error" if p.severity == "error" else "warning",
             "message": {"text": p.message}, "properties": {"package": p.package, "plugin": p.plugin}}
            for p in report.plugin_problems]
    return invocation


def document(report: Report) -> dict[str, Any]:
    codes = list(CODES)
    codes.extend(sorted({p.code for f in report.files for p in f.problems} - set(CODES)))
    rule_index = {code: i for i, code in enumerate(codes)}
    artifacts = [{"location": artifact_location(file.path)} for file in report.files]
    results = [_result(problem, rule_index[problem.code], index)
               for index, file in enumerate(report.files) for problem in file.problems]
    version = package_version("0.0.0")
    cwd = Path(os.getcwd()).resolve().as_uri().rstrip("/") + "/"
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "ruleset", "version": version,
                                "rules": [_rule(code) for code in codes]}},
            "invocations": [_invocation(report)],
            "originalUriBaseIds": {SRCROOT: {"uri": cwd}},
            "artifacts": artifacts,
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render(report: Report) -> str:
    return json.dumps(document(report), indent=2, ensure_ascii=False) + "\n"
