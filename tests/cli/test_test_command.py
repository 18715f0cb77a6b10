"""``ruleset test PATH…``: every output format, which files PATH names, and the exit codes 0 / 1 / 2."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from junitparser import Error, Failure, JUnitXml

from ruleset.cli import main

SARIF_SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "validate" / "sarif-schema-2.1.0.json")
                          .read_text(encoding="utf-8"))
DEMO = Path(__file__).resolve().parents[1] / "behaviour" / "fixtures" / "demo.test.toml"

ONE_NODE = '[[nodes]]\nname = "n1"\nlabels = { zone = "a" }\n\n[[pods]]\nname = "web"\ncpu = "1"\n\n'
PASSES = ONE_NODE + '[[expect]]\npod = "web"\nlands-on = "zone=a"\n'
FAILS = PASSES + '\n[[expect]]\nname = "web avoids zone a"\npod = "web"\nlands-on = "zone=b"\n'
BAD = '[[expect]]\nspread = "cpu"\n'

PASSED_LINE = "t/fails.test.toml:9:1: passed: default/web lands on zone=a"
FAILED_LINE = ("t/fails.test.toml:13:1: error: expect[1]: default/web landed on n1 (zone=a), which does not match "
               "zone=b [expectation-failed]")
BAD_LINE = ("t/bad.test.toml:1:1: error: expect[0]: spread needs 'max-stddev' or 'max-range' (percentage points) "
            "[missing-key]")


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """t/{passes,fails,bad}.test.toml and t/notes.toml (not a test file) under a working directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t").mkdir()
    for name, text in (("passes.test", PASSES), ("fails.test", FAILS), ("bad.test", BAD), ("notes", "x = 1\n")):
        (tmp_path / "t" / f"{name}.toml").write_text(text, encoding="utf-8")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["test", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("argv", "code", "out"), [
    pytest.param(["t/passes.test.toml"], 0,
                 "t/passes.test.toml:9:1: passed: default/web lands on zone=a\n"
                 "1 file, 1 expectation: 1 passed, 0 failed\n", id="passes"),
    pytest.param(["t/fails.test.toml"], 1,
                 f"{PASSED_LINE}\n{FAILED_LINE}\n1 file, 2 expectations: 1 passed, 1 failed\n", id="fails"),
    pytest.param(["t/bad.test.toml", "t/fails.test.toml"], 2,
                 f"{BAD_LINE}\n{PASSED_LINE}\n{FAILED_LINE}\n2 files, 2 expectations: 1 passed, 1 failed, 1 error\n",
                 id="bad"),
    pytest.param(["t/fails.test.toml", "gone.test.toml"], 2,
                 f"gone.test.toml: error: no such file or directory [io-error]\n{PASSED_LINE}\n{FAILED_LINE}\n"
                 "2 files, 2 expectations: 1 passed, 1 failed, 1 error\n", id="missing-beside-a-file"),
    pytest.param(["t/p*.toml", "t/passes.test.toml"], 0,
                 "t/passes.test.toml:9:1: passed: default/web lands on zone=a\n"
                 "1 file, 1 expectation: 1 passed, 0 failed\n", id="glob-and-duplicate"),
    pytest.param(["t/notes.toml"], 2,
                 "t/notes.toml:1:1: error: x: unknown key (expected one of: cluster, expect, nodes, pods, profile, "
                 "seed) [unknown-key]\n"
                 "t/notes.toml:1:1: error: no [[expect]] table: a test file states at least one expectation "
                 "[no-expectation]\n1 file, 0 expectations: 0 passed, 0 failed, 2 errors\n", id="not-a-test-file"),
])
def test_text_and_exit_codes(tree: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: int,
                             out: str) -> None:
    assert run(capsys, *argv) == (code, out, "")


def test_a_folder_runs_its_test_files_only(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "t")
    assert code == 2
    assert out.splitlines()[-1] == "3 files, 3 expectations: 2 passed, 1 failed, 1 error"
    assert "notes.toml" not in out


def test_no_file_at_all_is_a_usage_error(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "gone.test.toml", "empty/*.test.toml") == (
        2, "", "error: gone.test.toml: no such file or directory\nerror: empty/*.test.toml: no files match this "
               "pattern\n")


def test_json(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-o", "json", "t/bad.test.toml", "t/fails.test.toml")
    assert code == 2
    assert json.loads(out) == {
        "schemaVersion": 1,
        "files": [
            {"path": "t/bad.test.toml", "expectations": [],
             "problems": [{"severity": "error", "code": "missing-key", "line": 1, "column": 1, "path": "expect[0]",
                           "message": "spread needs 'max-stddev' or 'max-range' (percentage points)"}]},
            {"path": "t/fails.test.toml", "problems": [], "expectations": [
                {"kind": "lands-on", "title": "default/web lands on zone=a", "line": 9, "column": 1, "passed": True,
                 "message": "default/web landed on n1"},
                {"kind": "lands-on", "title": "web avoids zone a", "line": 13, "column": 1, "passed": False,
                 "message": "default/web landed on n1 (zone=a), which does not match zone=b"}]},
        ],
        "summary": {"files": 2, "passed": 1, "failed": 1, "errors": 1, "pluginProblems": 0},
        "pluginProblems": [],
    }


def test_github(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "-o", "github", "t/bad.test.toml", "t/fails.test.toml") == (2, (
        "::error file=t/bad.test.toml,line=1,col=1,title=missing-key::expect[0]: spread needs 'max-stddev' or "
        "'max-range' (percentage points)\n"
        "::error file=t/fails.test.toml,line=13,col=1,title=expectation-failed::expect[1]: default/web landed on n1 "
        "(zone=a), which does not match zone=b\n"
        "2 files, 2 expectations: 1 passed, 1 failed, 1 error\n"), "")


def test_junit(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-o", "junit", "t/bad.test.toml", "t/fails.test.toml")
    assert code == 2
    (tree / "report.xml").write_text(out, encoding="utf-8")
    [suite] = list(JUnitXml.fromfile(str(tree / "report.xml")))
    assert (suite.name, suite.tests, suite.failures, suite.errors) == ("ruleset test", 3, 1, 1)
    cases = [(case.classname, case.name, [(type(r).__name__, r.type, r.message) for r in case.result])
             for case in suite]
    assert cases == [
        ("t/bad.test.toml", "t/bad.test.toml",
         [("Error", "missing-key", "expect[0]: spread needs 'max-stddev' or 'max-range' (percentage points)")]),
        ("t/fails.test.toml", "default/web lands on zone=a", []),
        ("t/fails.test.toml", "web avoids zone a",
         [("Failure", "expectation-failed", "default/web landed on n1 (zone=a), which does not match zone=b")]),
    ]
    bad, passed, failed = list(suite)
    assert isinstance(bad.result[0], Error) and isinstance(failed.result[0], Failure)
    assert passed.system_out == "default/web landed on n1"


def test_sarif_is_valid_sarif_2_1_0(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-o", "sarif", "t/bad.test.toml", "t/fails.test.toml")
    assert code == 2
    log = json.loads(out)
    checker = jsonschema.Draft7Validator.FORMAT_CHECKER
    jsonschema.Draft7Validator(SARIF_SCHEMA, format_checker=checker).validate(log)
    [sarif_run] = log["runs"]
    assert [rule["id"] for rule in sarif_run["tool"]["driver"]["rules"]] == ["expectation-failed", "missing-key"]
    assert sarif_run["invocations"] == [{"executionSuccessful": False, "exitCode": 2}]
    assert [(r["ruleId"], r["ruleIndex"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             r["locations"][0]["physicalLocation"]["region"]) for r in sarif_run["results"]] == [
        ("missing-key", 1, "t/bad.test.toml", {"startLine": 1, "startColumn": 1}),
        ("expectation-failed", 0, "t/fails.test.toml", {"startLine": 13, "startColumn": 1}),
    ]


def test_a_profile_with_errors_is_reported_in_its_own_file(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "t" / "broken.toml").write_text('name = "broken"\n[plugins.NodeLabl]\n', encoding="utf-8")
    (tree / "t" / "p.test.toml").write_text('profile = "broken.toml"\n' + PASSES, encoding="utf-8")
    code, out, _ = run(capsys, "t/p.test.toml")
    assert code == 2
    assert out == ("t/broken.toml:2:10: error: plugins.NodeLabl: unknown plugin 'NodeLabl'; did you mean "
                   "'NodeLabel'? [unknown-plugin]\n1 file, 0 expectations: 0 passed, 0 failed, 1 error\n")


def test_the_demo_example(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DEMO.parents[2].parent)
    code, out, _ = run(capsys, "tests/behaviour/fixtures/demo.test.toml")
    assert (code, out) == (0, (
        "tests/behaviour/fixtures/demo.test.toml:4:1: passed: batch/train-resnet lands on pool=gpu\n"
        "tests/behaviour/fixtures/demo.test.toml:8:1: passed: batch/warehouse-etl is unschedulable "
        "(Insufficient cpu)\n"
        "tests/behaviour/fixtures/demo.test.toml:13:1: passed: at most 2 pods matching app=web per node\n"
        "tests/behaviour/fixtures/demo.test.toml:17:1: passed: cpu spread: std-dev at most 35\n"
        "tests/behaviour/fixtures/demo.test.toml:21:1: passed: same placements as default-1.20\n"
        "1 file, 5 expectations: 5 passed, 0 failed\n"))
