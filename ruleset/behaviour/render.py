"""A test report in the formats of ``ruleset validate`` (text, json, github, junit, sarif).

A failed expectation is one located problem (code ``expectation-failed``) at its
``[[expect]]`` table; a problem that kept a file from running is reported as validate
reports one. Passing expectations are listed in text, json and junit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from ruleset.behaviour.model import FAILED, Outcome, Report
from ruleset.errors import Problem, printable
from ruleset.jsonout import dump_json, package_version
from ruleset.validate.codes import summary_of
from ruleset.validate.formats.github import command
from ruleset.validate.formats.sarif import SARIF_SCHEMA, SRCROOT, artifact_location
from ruleset.validate.formats.text import describe, line, plural

FORMATS = ("text", "json", "github", "junit", "sarif")
SUITE = "ruleset test"
#: What the codes only test files have mean (SARIF rules); the others are validate's.
SUMMARIES = {
    FAILED: "an expectation of a behavioural test failed",
    "unknown-pod": "an expectation names a pod that is not pending in the test's run",
    "invalid-expectation": "an [[expect]] table states no expectation, or several",
    "no-expectation": "a test file without [[expect]] tables",
    "missing-key": "a required key is missing",
    "unknown-key": "a key the test-file format (or the profile schema) does not know",
}


def render(report: Report, output: str) -> str:
    """The report in format ``output`` (one of :data:`FORMATS`), ending with a newline."""
    if output not in FORMATS:
        raise ValueError(f"unknown output format {output!r}")
    rendered: str = globals()[f"_{output}"](report)
    return rendered


def summary(report: Report) -> str:
    """``2 files, 5 expectations: 4 passed, 1 failed`` (and ``, 1 error``: problems in test files)."""
    text = (f"{plural(len(report.files), 'file')}, {plural(report.passed + report.failed, 'expectation')}: "
            f"{report.passed} passed, {report.failed} failed")
    if report.errors:
        text += f", {plural(report.errors, 'error')}"
    if report.plugin_problems:  # the problems themselves are on stderr
        text += f", {plural(len(report.plugin_problems), 'plugin problem')}"
    return text


def _problems(report: Report) -> list[Problem]:
    """Every problem in file order: a file's own, then its failed expectations."""
    return [problem for file in report.files
            for problem in [*file.problems, *(o.problem() for o in file.outcomes if not o.passed)]]


def _passed_line(outcome: Outcome) -> str:
    where = outcome.expectation.where
    title = printable(outcome.expectation.title)
    return f"{printable(where.file)}:{where.line}:{where.column}: passed: {title}"


def _text(report: Report) -> str:
    lines: list[str] = []
    for file in report.files:
        lines.extend(line(p) for p in file.problems)
        lines.extend(_passed_line(o) if o.passed else line(o.problem()) for o in file.outcomes)
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def _problem_json(problem: Problem) -> dict[str, Any]:
    return {"severity": problem.severity, "code": problem.code, "line": problem.line,
            "column": problem.column, "path": problem.path, "message": problem.message}


def _json(report: Report) -> str:
    files = [{
        "path": file.path,
        "problems": [_problem_json(p) for p in file.problems],
        "expectations": [{"kind": o.expectation.kind, "title": o.expectation.title,
                          "line": o.expectation.where.line, "column": o.expectation.where.column,
                          "passed": o.passed, "message": o.message} for o in file.outcomes],
    } for file in report.files]
    summary = {"files": len(report.files), "passed": report.passed, "failed": report.failed,
               "errors": report.errors, "pluginProblems": len(report.plugin_problems)}
    return dump_json({"files": files, "summary": summary,
                      "pluginProblems": [problem.to_json() for problem in report.plugin_problems]}) + "\n"


def _github(report: Report) -> str:
    return "\n".join([*(command(p) for p in _problems(report)), summary(report)]) + "\n"


def _junit(report: Report) -> str:
    suite = ET.Element("testsuite", name=SUITE)
    failures = errors = 0
    total = 0.0
    for file in report.files:
        name = printable(file.path)
        total += file.seconds
        if file.problems:
            case = ET.SubElement(suite, "testcase", name=name, classname=name, file=name, time="0.000")
            for problem in file.problems:
                element = ET.SubElement(case, "error", message=printable(describe(problem)),
                                        type=printable(problem.code))
                element.text = line(problem)
                errors += 1
        for outcome in file.outcomes:
            case = ET.SubElement(suite, "testcase", name=printable(outcome.expectation.title), classname=name,
                                 file=name, line=str(outcome.expectation.where.line), time="0.000")
            if outcome.passed:
                ET.SubElement(case, "system-out").text = printable(outcome.message)
                continue
            failures += 1
            element = ET.SubElement(case, "failure", message=printable(outcome.message), type=FAILED)
            element.text = line(outcome.problem())
    attributes = {"tests": str(len(suite)), "failures": str(failures), "errors": str(errors), "skipped": "0",
                  "time": f"{total:.3f}"}
    suite.attrib.update(attributes)
    counts = {k: v for k, v in attributes.items() if k != "skipped"}
    root = ET.Element("testsuites", {"name": SUITE, **counts})
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _sarif(report: Report) -> str:
    problems = _problems(report)
    codes = sorted({p.code for p in problems} | {FAILED})
    index = {code: i for i, code in enumerate(codes)}
    artifacts = [file.path for file in report.files]
    results = []
    for problem in problems:
        physical: dict[str, Any] = {"artifactLocation": {**artifact_location(problem.file or ""),
                                                         "index": _artifact(artifacts, problem.file or "")}}
        if problem.line is not None:
            physical["region"] = {"startLine": problem.line}
            if problem.column is not None:
                physical["region"]["startColumn"] = problem.column
        results.append({"ruleId": problem.code, "ruleIndex": index[problem.code], "level": "error",
                        "message": {"text": describe(problem)},
                        "locations": [{"physicalLocation": physical}]})
    rules = [{"id": code, "shortDescription": {"text": SUMMARIES.get(code) or summary_of(code)},
              "defaultConfiguration": {"level": "error"}} for code in codes]
    cwd = Path(os.getcwd()).resolve().as_uri().rstrip("/") + "/"
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "ruleset", "version": package_version("0.0.0"), "rules": rules}},
            "invocations": [{"executionSuccessful": report.exit_code != 2, "exitCode": report.exit_code}],
            "originalUriBaseIds": {SRCROOT: {"uri": cwd}},
            "artifacts": [{"location": artifact_location(path)} for path in artifacts],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _artifact(artifacts: list[str], file: str) -> int:
    """The index of ``file`` among the artifacts (a problem in another file, a profile, is added)."""
    if file not in artifacts:
        artifacts.append(file)
    return artifacts.index(file)
