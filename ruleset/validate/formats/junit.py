"""JUnit XML: one ``<testsuite>``, one ``<testcase>`` per file, one ``<failure>`` per problem.

Errors are failures (``type`` is the problem code); a file that cannot be read gets an
``<error>``. Warnings are failures only under ``--strict``; otherwise they are listed in
the test case's ``<system-out>``. Counts follow the usual reading (and junitparser's): a
suite's ``failures`` and ``errors`` count those elements.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

from ruleset.errors import printable
from ruleset.validate.checks import Report
from ruleset.validate.formats.text import describe, line

SUITE = "ruleset validate"


#: The test case that holds plugin load problems (there is one only when there are some).
PLUGINS_CASE = "plugins"


def _plugin_case(suite: ET.Element, report: Report) -> int:
    """One test case for loading plugins: each problem a failure under ``--strict``, else listed in
    its ``<system-out>``; returns the failures added."""
    case = ET.SubElement(suite, "testcase", name=PLUGINS_CASE, classname=SUITE, time="0.000")
    lines = [f"{p.severity}: {printable(p.message)} [{printable(p.code)}]" for p in report.plugin_problems]
    if not report.strict:
        ET.SubElement(case, "system-out").text = "\n".join(lines)
        return 0
    for problem, text in zip(report.plugin_problems, lines, strict=True):
        element = ET.SubElement(case, "failure", message=printable(problem.message),
                                type=printable(problem.code))
        element.text = text
    return len(lines)


def render(report: Report) -> str:
    suite = ET.Element("testsuite", name=SUITE)
    failures = errors = 0
    total_time = 0.0
    for file in report.files:
        # Only printable text: XML 1.0 has no way to write most control characters.
        name = printable(file.path)
        case = ET.SubElement(suite, "testcase", name=name, classname=SUITE, file=name,
                             time=f"{file.seconds:.3f}")
        total_time += file.seconds
        out = []
        for problem in file.problems:
            if problem.code == "io-error":
                tag = "error"
                errors += 1
            elif problem.severity == "error" or report.strict:
                tag = "failure"
                failures += 1
            else:
                out.append(line(problem))
                continue
            element = ET.SubElement(case, tag, message=printable(describe(problem)),
                                    type=printable(problem.code))
            element.text = line(problem)
        if out:
            ET.SubElement(case, "system-out").text = "\n".join(out)
    if report.plugin_problems:
        failures += _plugin_case(suite, report)
    attributes = {"tests": str(len(suite)), "failures": str(failures), "errors": str(errors),
                  "skipped": "0", "time": f"{total_time:.3f}"}
    suite.attrib.update(attributes)
    root_attributes = {"name": SUITE, **{k: v for k, v in attributes.items() if k != "skipped"}}
    root = ET.Element("testsuites", root_attributes)
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
