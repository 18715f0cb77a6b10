"""Reading test files (:mod:`ruleset.behaviour.loader`): every problem located at file:line:col,
and which files a PATH argument names."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ruleset.behaviour.loader import expand_test_paths, load_test_file
from ruleset.behaviour.runner import run_file

SAME = '[[expect]]\nsame-as = "default"\n'

BAD = [
    pytest.param("profile = \n", ["t.test.toml:1:11: invalid TOML: Invalid value [toml-syntax]"], id="syntax"),
    pytest.param('profile = "default"\n',
                 ["t.test.toml:1:1: no [[expect]] table: a test file states at least one expectation "
                  "[no-expectation]"], id="no-expect"),
    pytest.param('profile = "default"\nexpect = []\n',
                 ["t.test.toml:1:1: no [[expect]] table: a test file states at least one expectation "
                  "[no-expectation]"], id="empty-expect"),
    pytest.param('profle = "default"\n' + SAME,
                 ["t.test.toml:1:1: profle: unknown key (expected one of: cluster, expect, nodes, pods, profile, "
                  "seed) [unknown-key]"], id="unknown-top-key"),
    pytest.param('profile = "nope.toml"\n' + SAME,
                 ["t.test.toml:1:11: profile: no such profile file (relative to this file), and no bundled "
                  "profile of that name [io-error]"], id="no-profile"),
    pytest.param('cluster = ["missing.yaml"]\n' + SAME,
                 ["t.test.toml:1:12: cluster[0]: no such file or folder (relative to this file) [io-error]"],
                 id="no-cluster-file"),
    pytest.param('cluster = "cluster.yaml"\n' + SAME,
                 ["t.test.toml:1:11: cluster: expected an array of file or folder paths [invalid-value]"],
                 id="cluster-not-array"),
    pytest.param('pods = [1, "missing.yaml"]\nseed = -1\n' + SAME,
                 ["t.test.toml:1:9: pods[0]: expected a file path or a pod table, got an integer [invalid-value]",
                  "t.test.toml:1:12: pods[1]: no such file or folder (relative to this file) [io-error]",
                  "t.test.toml:2:8: seed: expected a non-negative integer [invalid-value]"], id="pods-and-seed"),
    pytest.param('[[nodes]]\nname = "n1"\ntaints = ["dedicated=gpu", 3]\n' + SAME,
                 ["t.test.toml:3:11: nodes[0].taints[0]: expected KEY[=VALUE]:EFFECT with EFFECT one of "
                  "NoSchedule, PreferNoSchedule, NoExecute [invalid-value]",
                  "t.test.toml:3:28: nodes[0].taints[1]: expected a KEY[=VALUE]:EFFECT string, got an integer "
                  "[invalid-value]"], id="taints"),
    pytest.param('[[nodes]]\ncpu = true\nzone = "a"\n' + SAME,
                 ["t.test.toml:3:1: nodes[0].zone: unknown key (expected one of: cpu, labels, memory, name, "
                  "pods, resources, taints, unschedulable) [unknown-key]",
                  "t.test.toml:1:1: nodes[0].name: missing (a non-empty string is required) [missing-key]",
                  "t.test.toml:2:7: nodes[0].cpu: expected a quantity (a string such as \"500m\", or an integer), "
                  "got a boolean [invalid-value]"], id="node-keys"),
    pytest.param('[[pods]]\nname = "p"\ntolerations = ["k=v:Sometimes"]\nlabels = { app = 1 }\n' + SAME,
                 ["t.test.toml:4:10: pods[0].labels: expected a table of strings [invalid-value]",
                  "t.test.toml:3:16: pods[0].tolerations[0]: expected KEY[=VALUE][:EFFECT] with EFFECT one of "
                  "NoSchedule, PreferNoSchedule, NoExecute [invalid-value]"], id="pod-keys"),
    pytest.param('[[expect]]\npod = "a"\nlands-on = "zone=a"\nunschedulable = true\n[[expect]]\npods = "x"\n',
                 ["t.test.toml:1:1: expect[0]: an expectation has exactly one of: lands-on, unschedulable, "
                  "at-most, spread, same-as (found lands-on, unschedulable) [invalid-expectation]",
                  "t.test.toml:5:1: expect[1]: an expectation has exactly one of: lands-on, unschedulable, "
                  "at-most, spread, same-as (found none) [invalid-expectation]"], id="kinds"),
    pytest.param('[[expect]]\npod = "a/b/c"\nlands-on = "zone in (a"\ncolour = "red"\n',
                 ["t.test.toml:4:1: expect[0].colour: unknown key (expected one of: lands-on, name, pod) "
                  "[unknown-key]",
                  "t.test.toml:2:7: expect[0].pod: expected NAMESPACE/NAME, or NAME (in namespace \"default\") "
                  "[invalid-value]",
                  "t.test.toml:3:23: expect[0].lands-on: invalid selector: unable to parse requirement: found '', "
                  "expected: ',' or ')' [invalid-selector]"], id="lands-on"),
    pytest.param('[[expect]]\nlands-on = "zone=a,!!x"\n',
                 ["t.test.toml:1:1: expect[0]: lands-on needs 'pod' [missing-key]",
                  "t.test.toml:2:21: expect[0].lands-on: invalid selector: unable to parse requirement: found "
                  "'!', expected: identifier [invalid-selector]"], id="selector-column"),
    pytest.param('[[expect]]\nunschedulable = false\npod = "p"\nreason = 3\n',
                 ["t.test.toml:2:17: expect[0].unschedulable: expected true (for a pod that must be placed, use "
                  "lands-on) [invalid-value]",
                  "t.test.toml:4:10: expect[0].reason: expected a non-empty string, got an integer "
                  "[invalid-value]"], id="unschedulable"),
    pytest.param('[[expect]]\nat-most = -1\npods = "app=web"\nper-node = "yes"\n',
                 ["t.test.toml:2:11: expect[0].at-most: expected a non-negative integer [invalid-value]",
                  "t.test.toml:4:12: expect[0].per-node: expected a boolean, got a string [invalid-value]"],
                 id="at-most"),
    pytest.param('[[expect]]\nspread = "cpu"\n[[expect]]\nspread = "cpu"\nmax-stddev = "10"\nmax-range = -1\n',
                 ["t.test.toml:1:1: expect[0]: spread needs 'max-stddev' or 'max-range' (percentage points) "
                  "[missing-key]",
                  "t.test.toml:5:14: expect[1].max-stddev: expected a non-negative number (percentage points) "
                  "[invalid-value]",
                  "t.test.toml:6:13: expect[1].max-range: expected a non-negative number (percentage points) "
                  "[invalid-value]"], id="spread"),
    pytest.param('[[expect]]\nsame-as = "nope"\n',
                 ["t.test.toml:2:11: expect[0].same-as: no such profile file (relative to this file), and no "
                  "bundled profile of that name [io-error]"], id="same-as"),
    pytest.param('expect = ["x"]\n',
                 ["t.test.toml:1:10: expect: expected an array of tables ([[expect]]) [invalid-value]"],
                 id="expect-not-tables"),
]


@pytest.mark.parametrize(("text", "expected"), BAD)
def test_bad_files_are_located(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str,
                               expected: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    Path("t.test.toml").write_text(text, encoding="utf-8")
    test, problems = load_test_file(Path("t.test.toml"))
    assert test is None
    assert [f"{p} [{p.code}]" for p in problems] == expected


#: What the API server refuses in an inline object, located at the object's table.
REFUSED = textwrap.dedent("""\
    [[nodes]]
    name = "n1"
    labels = { "bad key!" = "x" }
    [[pods]]
    name = "p"
    cpu = "lots"
    [[expect]]
    same-as = "default"
    """)


def test_what_the_api_server_refuses_inline_is_located_at_the_table(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("t.test.toml").write_text(REFUSED, encoding="utf-8")
    outcome = run_file(Path("t.test.toml"))
    assert outcome.outcomes == []
    assert [(p.line, p.column, p.path, p.code) for p in outcome.problems] == [
        (1, 1, "nodes[0]: document 1: Node n1: metadata.labels", "invalid-object"),
        (4, 1, "pods[0]: document 1: Pod default/p: spec.containers[0].resources.requests.cpu", "invalid-object"),
    ]
    assert outcome.problems[1].message == ("'lots': quantities must match the regular expression "
                                           "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")


def test_a_good_file_is_read_into_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("profiles").mkdir()
    Path("profiles/mine.toml").write_text('name = "mine"\n', encoding="utf-8")
    Path("tests").mkdir()
    Path("tests/t.test.toml").write_text(textwrap.dedent("""\
        profile = "../profiles/mine.toml"
        seed = 3
        [[nodes]]
        name = "n1"
        cpu = 8
        taints = ["dedicated=gpu:NoSchedule", "spot:PreferNoSchedule"]
        [[pods]]
        name = "p"
        namespace = "batch"
        tolerations = ["dedicated=gpu:NoSchedule", "spot", "x:NoExecute"]
        node-selector = { zone = "a" }
        priority = 10
        [[expect]]
        name = "p is placed"
        pod = "batch/p"
        lands-on = "zone=a"
        """), encoding="utf-8")
    test, problems = load_test_file(Path("tests/t.test.toml"))
    assert problems == []
    assert test is not None
    assert test.profile == "profiles/mine.toml"
    assert test.seed == 3
    assert test.nodes[0][1]["spec"]["taints"] == [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
                                                  {"key": "spot", "value": "", "effect": "PreferNoSchedule"}]
    assert test.nodes[0][1]["status"]["allocatable"] == {"cpu": 8, "memory": "8Gi", "pods": 110}
    spec = test.pods[0][1]["spec"]
    assert spec["tolerations"] == [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
                                   {"key": "spot", "operator": "Exists"},
                                   {"key": "x", "operator": "Exists", "effect": "NoExecute"}]
    assert (spec["nodeSelector"], spec["priority"]) == ({"zone": "a"}, 10)
    assert test.places == {("nodes", 0): (3, 1), ("pods", 0): (7, 1)}
    [expectation] = test.expectations
    assert (expectation.kind, expectation.pod, expectation.title, expectation.where.line) == (
        "lands-on", "batch/p", "p is placed", 13)


def test_paths_folders_find_test_files_and_globs_match_any(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("a/one.test.toml", "a/b/two.test.toml", "a/profile.toml", "a/.hidden/three.test.toml",
                 "c/other.toml"):
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text("", encoding="utf-8")
    paths, problems = expand_test_paths(["a", "a/one.test.toml", "c/*.toml", "empty*", "gone.test.toml", "c"])
    assert [str(p) for p in paths] == ["a/one.test.toml", "a/b/two.test.toml", "c/other.toml"]
    assert [(p.file, p.message) for p in problems] == [
        ("empty*", "no files match this pattern"),
        ("gone.test.toml", "no such file or directory"),
        ("c", "no *.test.toml files in this folder"),
    ]
