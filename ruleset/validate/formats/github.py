"""GitHub Actions workflow commands: ``::error file=…,line=…,col=…,title=<code>::<message>``.

Each problem becomes an annotation on the file in the pull request; the summary line
closes the log. Data and property values are escaped as ``@actions/core`` escapes them.
"""

from __future__ import annotations

from ruleset.errors import Problem, printable
from ruleset.pluginmanager import PluginProblem
from ruleset.validate.checks import Report
from ruleset.validate.formats.text import describe, summary


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(problem: Problem) -> str:
    properties = [f"file={escape_property(printable(problem.file or ''))}"]
    if problem.line is not None:
        properties.append(f"line={problem.line}")
        if problem.column is not None:
            properties.append(f"col={problem.column}")
    properties.append(f"title={escape_property(printable(problem.code))}")
    kind = "error" if problem.severity == "error" else "warning"
    # GitHub decodes %0A and %0D into the message; every other control character is escaped.
    message = escape_data(printable(describe(problem), keep="\r\n"))
    return f"::{kind} {','.join(properties)}::{message}"


def plugin_command(problem: PluginProblem) -> str:
    """A plugin load problem: an annotation on no file, titled with its code."""
    kind = "error" if problem.severity == "error" else "warning"
    message = escape_data(printable(problem.message, keep="\r\n"))
    return f"::{kind} title={escape_property(printable(problem.code))}::{message}"


def render(report: Report) -> str:
    lines = [plugin_command(problem) for problem in report.plugin_problems]
    lines.extend(command(problem) for file in report.files for problem in file.problems)
    lines.append(summary(report))
    return "\n".join(lines) + "\n"
