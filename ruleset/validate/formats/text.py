"""Compiler-style lines, ``file:line:col: severity: path: message [code]``, and a summary line."""

from __future__ import annotations

from ruleset.errors import Problem, printable
from ruleset.validate.checks import Report


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary(report: Report) -> str:
    """``2 files checked, 1 invalid, 3 errors, 1 warning``, and ``, 1 plugin problem`` when
    loading plugins went wrong (the problems themselves are on stderr)."""
    text = (f"{plural(len(report.files), 'file')} checked, {report.invalid} invalid, "
            f"{plural(report.errors, 'error')}, {plural(report.warnings, 'warning')}")
    if report.plugin_problems:
        text += f", {plural(len(report.plugin_problems), 'plugin problem')}"
    return text


def describe(problem: Problem) -> str:
    """``path: message`` (just the message when the problem has no key path), as written."""
    return f"{problem.path}: {problem.message}" if problem.path else problem.message


def line(problem: Problem) -> str:
    """One problem, as compilers print them (editors and CI problem matchers read this)."""
    what = printable(describe(problem))
    return f"{problem.location()}: {problem.severity}: {what} [{printable(problem.code)}]"


def render(report: Report) -> str:
    lines = [line(problem) for file in report.files for problem in file.problems]
    lines.append(summary(report))
    return "\n".join(lines) + "\n"
