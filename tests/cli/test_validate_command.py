"""``ruleset validate PATH…``: every output format, and the exit codes 0 / 1 / 2."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import jsonschema
import pytest
from junitparser import Error, Failure, JUnitXml

from ruleset import reading
from ruleset.cli import main

SARIF_SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "validate" / "sarif-schema-2.1.0.json")
                          .read_text(encoding="utf-8"))

BAD = """\
    name = "web"
    kubernetesVersion = "1.20"
    [plugins.NodeLabl]
    weight = 2

    [plugins.NodeLabel]
    args = { presentLabels = ["zone"], absentLabels = ["zone"] }
    """
WARNS = """\
    name = "warns"
    kubernetesVersion = "1.20"
    [plugins.NodeName]
    weight = 3
    """
GOOD = """\
    name = "good"
    kubernetesVersion = "1.20"
    [plugins.NodeResourcesFit]
    """


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """profiles/{bad,good,warns}.toml under a working directory."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "profiles"
    folder.mkdir()
    for name, text in (("bad", BAD), ("good", GOOD), ("warns", WARNS)):
        (folder / f"{name}.toml").write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def run(capsys, *argv):
    code = main(["validate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


UNKNOWN = ("profiles/bad.toml:3:10: error: plugins.NodeLabl: unknown plugin 'NodeLabl'; did you mean "
           "'NodeLabel'? [unknown-plugin]")
LABELS = ('detecting at least one label (e.g., "zone") that exist in both the present([zone]) and '
          "absent([zone])")
CONFLICT = f"profiles/bad.toml:7:52: error: plugins.NodeLabel.args.absentLabels[0]: {LABELS} label list " \
           "[invalid-args]"
NO_SCORE = "weight has no effect: plugin 'NodeName' does not extend Score plugin"
WEIGHT = f"profiles/warns.toml:4:10: warning: plugins.NodeName.weight: {NO_SCORE} [weight-without-score]"


# ------------------------------------------------------------------------------ exit codes
def test_valid_file_exits_0(tree, capsys):
    assert run(capsys, "profiles/good.toml") == (0, "1 file checked, 0 invalid, 0 errors, 0 warnings\n", "")


def test_folder_reports_every_problem_of_every_file_and_exits_1(tree, capsys):
    code, out, err = run(capsys, "profiles")
    assert code == 1
    assert out.splitlines() == [UNKNOWN, CONFLICT, WEIGHT, "3 files checked, 1 invalid, 2 errors, 1 warning"]
    assert err == ""


def test_warnings_alone_pass_unless_strict(tree, capsys):
    assert run(capsys, "profiles/warns.toml")[0] == 0
    code, out, _ = run(capsys, "--strict", "profiles/warns.toml")
    assert code == 1
    assert out.splitlines()[-1] == "1 file checked, 1 invalid, 0 errors, 1 warning"


def test_glob_and_duplicates_are_checked_once(tree, capsys):
    code, out, _ = run(capsys, "profiles/g*.toml", "profiles/good.toml", "./profiles/good.toml")
    assert (code, out) == (0, "1 file checked, 0 invalid, 0 errors, 0 warnings\n")


def test_recursive_glob(tree, capsys):
    code, out, _ = run(capsys, "**/warns.toml")
    assert code == 0 and out.endswith("1 file checked, 0 invalid, 0 errors, 1 warning\n")


@pytest.mark.parametrize("argument,message", [
    ("nope.toml", "nope.toml: error: no such file or directory [io-error]"),
    ("profiles/*.yaml", "profiles/*.yaml: error: no files match this pattern [io-error]"),
    ("empty", "empty: error: no *.toml files in this folder [io-error]"),
])
def test_a_path_naming_no_file_is_reported_and_the_others_still_checked(tree, capsys, argument, message):
    (tree / "empty").mkdir()
    code, out, err = run(capsys, "profiles/bad.toml", argument)
    assert (code, err) == (2, "")
    assert out.splitlines() == [UNKNOWN, CONFLICT, message, "2 files checked, 2 invalid, 3 errors, 0 warnings"]


def test_a_missing_file_in_json(tree, capsys):
    code, out, err = run(capsys, "-o", "json", "profiles/warns.toml", "missing.toml")
    assert (code, err) == (2, "")
    document = json.loads(out)
    assert document["files"] == [
        {"path": "profiles/warns.toml", "valid": True, "problems": [
            {"severity": "warning", "code": "weight-without-score", "line": 4, "column": 10,
             "path": "plugins.NodeName.weight", "message": NO_SCORE}]},
        {"path": "missing.toml", "valid": False, "problems": [
            {"severity": "error", "code": "io-error", "line": None, "column": None, "path": None,
             "message": "no such file or directory"}]},
    ]
    assert document["summary"] == {"files": 2, "invalid": 1, "errors": 1, "warnings": 1, "pluginProblems": 0}


SAME = 'name = "{name}"\nschedulerName = "shared"\nkubernetesVersion = "1.20"\n'
DEFAULTED = "this profile serves it by default: set schedulerName to serve another"


@pytest.mark.parametrize("files,argv,expected,code", [
    pytest.param({"a": SAME, "b": SAME}, ["--one-scheduler", "a.toml", "b.toml"], [
        'b.toml:2:17: error: schedulerName: Duplicate value: "shared" (also the schedulerName of a.toml:2:17) '
        "[duplicate-scheduler-name]",
        "2 files checked, 1 invalid, 1 error, 0 warnings"], 1, id="written"),
    pytest.param({"a": 'name = "a"\nkubernetesVersion = "1.20"\n', "b": 'name = "b"\nkubernetesVersion = "1.20"\n'}, ["--one-scheduler", "a.toml", "b.toml"], [
        'b.toml:1:1: error: schedulerName: Duplicate value: "default-scheduler" (also the schedulerName of '
        f"a.toml, by default); {DEFAULTED} [duplicate-scheduler-name]",
        "2 files checked, 1 invalid, 1 error, 0 warnings"], 1, id="defaulted"),
    pytest.param({"a": SAME, "b": 'name = "b"\nschedulerName = "other"\nkubernetesVersion = "1.20"\n'}, ["--one-scheduler", "a.toml", "b.toml"],
                 ["2 files checked, 0 invalid, 0 errors, 0 warnings"], 0, id="distinct"),
    # Without --one-scheduler the files are alternatives (a folder of drop-in profiles): not an error.
    pytest.param({"a": SAME, "b": SAME}, ["a.toml", "b.toml"],
                 ["2 files checked, 0 invalid, 0 errors, 0 warnings"], 0, id="alternatives"),
])
def test_one_scheduler_compares_scheduler_names(tmp_path, monkeypatch, capsys, files, argv, expected, code):
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / f"{name}.toml").write_text(text.replace("{name}", name))
    assert run(capsys, *argv) == (code, "\n".join(expected) + "\n", "")


def test_no_path_is_a_usage_error(tree, capsys):
    code, _, err = run(capsys)
    assert code == 2 and "the following arguments are required: PATH" in err


@pytest.fixture
def unreadable(tree, monkeypatch):
    """profiles/locked.toml, which raises PermissionError when read (root can read any mode bits)."""
    locked = tree / "profiles" / "locked.toml"
    locked.write_text('name = "locked"\n')
    os_open = reading.os_open  # (issue 10: input files are opened by ruleset.reading)

    def guarded(path, flags, *args):
        if os.path.basename(path) == "locked.toml":
            raise PermissionError(13, "Permission denied", path)
        return os_open(path, flags, *args)

    monkeypatch.setattr(reading, "os_open", guarded)
    return locked


def test_unreadable_file_exits_2_and_the_others_are_still_checked(unreadable, capsys):
    code, out, _ = run(capsys, "profiles/bad.toml", "profiles/locked.toml")
    assert code == 2
    assert out.splitlines() == [UNKNOWN, CONFLICT,
                                "profiles/locked.toml: error: cannot read: Permission denied [io-error]",
                                "2 files checked, 2 invalid, 3 errors, 0 warnings"]


def test_hidden_folders_are_skipped(tree, capsys):
    hidden = tree / "profiles" / ".venv"
    hidden.mkdir()
    (hidden / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert run(capsys, "profiles")[1].splitlines()[-1].startswith("3 files checked")


def test_duplicate_profile_names_across_files(tree, capsys):
    (tree / "profiles" / "zz.toml").write_text('# same name\nname = "good"\nkubernetesVersion = "1.20"\n')
    code, out, _ = run(capsys, "profiles/good.toml", "profiles/zz.toml")
    assert code == 1
    assert out.splitlines()[0] == ('profiles/zz.toml:2:8: error: name: Duplicate value: "good" '
                                   '(also the name of profiles/good.toml:1:8) [duplicate-profile-name]')


def test_problems_of_an_extended_file_are_reported_once_against_it(tree, capsys):
    (tree / "profiles" / "child.toml").write_text('name = "child"\nextends = "bad.toml"\n')
    code, out, _ = run(capsys, "profiles/bad.toml", "profiles/child.toml")
    assert code == 1
    assert out.splitlines() == [
        UNKNOWN, CONFLICT,
        "profiles/child.toml:2:11: error: extends: cannot extend 'bad.toml': 2 errors in profiles/bad.toml "
        "[extends-invalid]",
        "2 files checked, 2 invalid, 3 errors, 0 warnings",
    ]


# ---------------------------------------------------------------------------------- json
def test_json_contract(tree, capsys):
    code, out, _ = run(capsys, "-o", "json", "profiles/bad.toml", "profiles/good.toml")
    assert code == 1
    assert json.loads(out) == {
        "schemaVersion": 1,
        "files": [
            {"path": "profiles/bad.toml", "valid": False, "problems": [
                {"severity": "error", "code": "unknown-plugin", "line": 3, "column": 10,
                 "path": "plugins.NodeLabl",
                 "message": "unknown plugin 'NodeLabl'; did you mean 'NodeLabel'?"},
                {"severity": "error", "code": "invalid-args", "line": 7, "column": 52,
                 "path": "plugins.NodeLabel.args.absentLabels[0]",
                 "message": f"{LABELS} label list"},
            ]},
            {"path": "profiles/good.toml", "valid": True, "problems": []},
        ],
        "summary": {"files": 2, "invalid": 1, "errors": 2, "warnings": 0, "pluginProblems": 0},
        "pluginProblems": [],
    }
    assert out.startswith('{\n  "schemaVersion": 1,')


def test_json_strict_marks_warning_files_invalid(tree, capsys):
    _, out, _ = run(capsys, "-o", "json", "--strict", "profiles/warns.toml")
    assert json.loads(out)["files"][0]["valid"] is False


# -------------------------------------------------------------------------------- github
def test_github_workflow_commands(tree, capsys):
    code, out, _ = run(capsys, "--output", "github", "profiles")
    assert code == 1
    assert out.splitlines() == [
        "::error file=profiles/bad.toml,line=3,col=10,title=unknown-plugin::plugins.NodeLabl: unknown plugin "
        "'NodeLabl'; did you mean 'NodeLabel'?",
        "::error file=profiles/bad.toml,line=7,col=52,title=invalid-args::"
        f"plugins.NodeLabel.args.absentLabels[0]: {LABELS} label list",
        "::warning file=profiles/warns.toml,line=4,col=10,title=weight-without-score::"
        f"plugins.NodeName.weight: {NO_SCORE}",
        "3 files checked, 1 invalid, 2 errors, 1 warning",
    ]


def test_github_escaping():
    from ruleset.errors import Problem
    from ruleset.validate.formats.github import command

    problem = Problem("100% sure,\nreally: yes\r", file="a,b:c%.toml", line=1, column=2, code="x:y")
    assert command(problem) == ("::error file=a%2Cb%3Ac%25.toml,line=1,col=2,title=x%3Ay::"
                                "100%25 sure,%0Areally: yes%0D")


# --------------------------------------------------------------------------------- junit
def test_junit_parses_with_a_standard_junit_parser(tree, capsys):
    code, out, _ = run(capsys, "-o", "junit", "profiles")
    assert code == 1
    (tree / "report.xml").write_text(out, encoding="utf-8")
    xml = JUnitXml.fromfile(str(tree / "report.xml"))
    suites = list(xml)
    assert len(suites) == 1
    suite = suites[0]
    assert (suite.name, suite.tests, suite.failures, suite.errors) == ("ruleset validate", 3, 2, 0)
    cases = {case.name: case for case in suite}
    assert set(cases) == {"profiles/bad.toml", "profiles/good.toml", "profiles/warns.toml"}
    bad = cases["profiles/bad.toml"].result
    assert [(type(r), r.type) for r in bad] == [(Failure, "unknown-plugin"), (Failure, "invalid-args")]
    assert bad[0].message == "plugins.NodeLabl: unknown plugin 'NodeLabl'; did you mean 'NodeLabel'?"
    assert bad[0].text == UNKNOWN
    assert cases["profiles/good.toml"].is_passed
    warns = cases["profiles/warns.toml"]
    assert warns.is_passed and warns.system_out == WEIGHT
    xml.update_statistics()  # junitparser's own counting agrees with ours
    assert (xml.tests, xml.failures, xml.errors) == (3, 2, 0)


def test_junit_strict_warnings_fail_and_io_errors_are_errors(tree, unreadable, capsys):
    code, out, _ = run(capsys, "-o", "junit", "--strict", "profiles/warns.toml", "profiles/locked.toml")
    assert code == 2
    (tree / "report.xml").write_text(out, encoding="utf-8")
    [suite] = list(JUnitXml.fromfile(str(tree / "report.xml")))
    results = {case.name: [type(r) for r in case.result] for case in suite}
    assert results["profiles/warns.toml"] == [Failure]
    assert [Error] in results.values()


# --------------------------------------------------------------------------------- sarif
def test_sarif_is_valid_sarif_2_1_0(tree, capsys):
    code, out, _ = run(capsys, "-o", "sarif", "profiles")
    assert code == 1
    log = json.loads(out)
    checker = jsonschema.Draft7Validator.FORMAT_CHECKER
    jsonschema.Draft7Validator(SARIF_SCHEMA, format_checker=checker).validate(log)
    [run_] = log["runs"]
    rules = run_["tool"]["driver"]["rules"]
    assert {"unknown-plugin", "invalid-args", "weight-without-score"} <= {r["id"] for r in rules}
    results = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                r["locations"][0]["physicalLocation"]["region"]) for r in run_["results"]]
    assert results == [
        ("unknown-plugin", "error", "profiles/bad.toml", {"startLine": 3, "startColumn": 10}),
        ("invalid-args", "error", "profiles/bad.toml", {"startLine": 7, "startColumn": 52}),
        ("weight-without-score", "warning", "profiles/warns.toml", {"startLine": 4, "startColumn": 10}),
    ]
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tree.resolve().as_uri() + "/"
    assert run_["columnKind"] == "unicodeCodePoints"


def test_sarif_uri_outside_the_working_directory_is_absolute(tree, tmp_path_factory, capsys, monkeypatch):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "my profile.toml").write_text('name = "x"\n[plugins.Nope]\n')
    _, out, _ = run(capsys, "-o", "sarif", str(elsewhere / "my profile.toml"))
    log = json.loads(out)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(log)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location["uri"] == (elsewhere.resolve() / "my profile.toml").as_uri()
    assert "uriBaseId" not in location


def test_sarif_of_a_clean_run_is_valid(tree, capsys):
    code, out, _ = run(capsys, "-o", "sarif", "profiles/good.toml")
    assert code == 0
    log = json.loads(out)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []


def test_when_no_argument_names_a_file_there_is_no_report(tree, capsys):
    assert run(capsys, "-o", "json", "nope.toml", "profiles/*.yaml") == (
        2, "", "error: nope.toml: no such file or directory\nerror: profiles/*.yaml: no files match this pattern\n")
