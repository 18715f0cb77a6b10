"""``schedule`` and ``score`` with a broken third-party plugin: one line per problem, the
error as structured JSON (``{"code": "Error", "plugin", "package", "message"}``, never
Success), the exit code, no traceback, and the run going on with the next pod."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ruleset import app, hookimpl
from ruleset.cli import main
from ruleset.framework.plugin import Plugin
from tests.factories import registry_with
from tests.framework.test_isolation import boom, broken, on_one_node

PACKAGE = "ruleset-broken 0.1.0"
CLUSTER = """\
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 100}
- kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Node
  metadata: {name: n2}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Pod
  metadata: {name: low1, namespace: default}
  spec: {nodeName: n1, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}
- kind: Pod
  metadata: {name: low2, namespace: default}
  spec: {nodeName: n2, containers: [{name: c, resources: {requests: {cpu: "3"}}}]}
"""
FITS = {"cpu": "100m"}
PREEMPTS = {"cpu": "2"}
PROFILE = """\
name = "broken"
[plugins.NodeResourcesFit]
[plugins.Broken]
[plugins.DefaultPreemption]
[plugins.DefaultBinder]
"""


def pod(name: str, requests: dict[str, str], created: str, high: bool = False) -> str:
    priority = "priorityClassName: high, " if high else ""
    return (f"- kind: Pod\n  metadata: {{name: {name}, namespace: default, creationTimestamp: '{created}'}}\n"
            f"  spec: {{{priority}containers: [{{name: c, resources: {{requests: {{cpu: '{requests['cpu']}'}}}}}}]}}\n")


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """Write the inputs, register a Broken plugin misbehaving as told, and run the CLI:
    ``(exit code, stdout, stderr)``."""
    def run(command: str, faults: dict[str, Any], preempts: bool = False, *extra: str) -> tuple[int, str, str]:
        bad = pod("bad", PREEMPTS if preempts else FITS, "2024-01-01T00:00:00Z", high=preempts)
        (tmp_path / "c.yaml").write_text(CLUSTER + bad + pod("good", FITS, "2024-01-01T00:00:01Z"))
        (tmp_path / "p.toml").write_text(PROFILE)
        registry = registry_with(broken(**faults))
        registry.origins["Broken"] = PACKAGE
        monkeypatch.setattr(app, "load_registry", lambda: registry)
        monkeypatch.chdir(tmp_path)
        code = main([command, "-p", "p.toml", "-c", "c.yaml", *extra])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def error(message: str) -> dict[str, str]:
    return {"code": "Error", "plugin": "Broken", "package": PACKAGE, "message": message}


FILTER_BOOM = 'running "Broken" filter plugin for pod "bad": RuntimeError: boom'


def multi_line(kwargs: dict[str, Any]) -> Any:
    raise RuntimeError("first line\n  second line\n")


def test_schedule_text_one_line_per_problem_and_the_next_pod_schedules(cli):
    # --wide: no width limit, so that a row is one line unless its text has a line break.
    code, out, err = cli("schedule", {"filter": multi_line}, False, "--wide")
    message = 'running "Broken" filter plugin for pod "bad": RuntimeError: first line | second line'
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:2] == [
        "profile broken: 2 pending pods",
        "scheduled 1, unschedulable 1, preemptions 0 (0 evicted), plugin errors 1",
    ]
    start = lines.index("unschedulable: 1 pod")
    assert lines[start:start + 11] == [
        "unschedulable: 1 pod",
        "PODS  REASON                                                                                FOR EXAMPLE",
        f"   1  {message}  default/bad",
        "",
        "plugin errors: 1",
        "POD          ATTEMPT  PLUGIN  PACKAGE               ERROR",
        f"default/bad        1  Broken  {PACKAGE}  {message}",
        "",
        "placements, in the order they were made: 1",
        "POD              NODE  SCORE",
        "default/good  →  n2        0",
    ]
    assert "Traceback" not in out


def test_schedule_exit_code_with_fail_on_unschedulable(cli):
    code, _, err = cli("schedule", {"filter": boom}, False, "--fail-on-unschedulable")
    assert (code, err) == (1, "")


def test_schedule_json_carries_the_error_object(cli):
    code, out, err = cli("schedule", {"filter": boom}, False, "-o", "json")
    data = json.loads(out)
    assert (code, err) == (0, "")
    assert data["placements"] == [
        {"pod": "default/bad", "node": None, "reason": FILTER_BOOM, "error": error(FILTER_BOOM)},
        {"pod": "default/good", "node": "n2", "score": 0},
    ]
    assert data["events"][0] == {"type": "error", "pod": "default/bad", "node": None, "reason": FILTER_BOOM,
                                 "attempt": 1, "error": error(FILTER_BOOM)}


def test_schedule_reports_a_fault_in_a_preemption_dry_run_as_that_plugins_error(cli):
    code, out, err = cli("schedule", {"filter": on_one_node(boom)}, True, "-o", "json")
    data = json.loads(out)
    assert (code, err) == (0, "")
    first = data["events"][0]
    assert (first["type"], first["pod"], first["error"]) == ("unschedulable", "default/bad", error(FILTER_BOOM))
    assert {p["pod"]: p["node"] for p in data["placements"]} == {"default/good": "n2", "default/bad": None}


def test_score_json_an_aborted_cycle_is_an_error_never_success(cli):
    code, out, err = cli("score", {"filter": boom}, False, "-o", "json")
    data = json.loads(out)
    assert (code, err) == (0, "")
    assert data["error"] == error(FILTER_BOOM)
    assert [n["filter"] for n in data["nodes"]] == [
        {"code": "Error", "plugin": "Broken", "reasons": [FILTER_BOOM]},
        {"code": "Error", "plugin": "Broken", "reasons": [FILTER_BOOM]},
    ]
    assert (data["selected"], data["message"]) == (None, FILTER_BOOM)


def test_score_json_a_score_error_keeps_the_filter_outcomes(cli):
    code, out, _ = cli("score", {"score": lambda kw: [1.5, 2]}, False, "-o", "json")
    data = json.loads(out)
    assert code == 0
    message = "plugin \"Broken\" failed with: Score returned 1.5 for node 'n1', not an integer score"
    assert data["error"] == error(message)
    assert [(n["filter"]["code"], n["scored"]) for n in data["nodes"]] == [("Success", False), ("Success", False)]


def test_score_text_writes_the_error_once(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    code, out, err = cli("score", {"filter": boom})
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "pod default/bad  profile broken",
        "2 nodes: 0 feasible, 0 rejected",
        "",
        "not evaluated: 2 nodes (the cycle ended with an error)",
        f"error: {FILTER_BOOM} (plugin Broken, package {PACKAGE})",
    ]


def test_score_shows_a_preemption_error_instead_of_null(cli, monkeypatch):
    code, out, _ = cli("score", {"filter": on_one_node(boom)}, True, "-o", "json")
    data = json.loads(out)
    assert data["preemption"] == {"candidates": [], "nominatedNode": None, "reason": "",
                                  "error": error(FILTER_BOOM)}
    assert data["message"] == "0/2 nodes are available: 2 Insufficient cpu."
    monkeypatch.setenv("COLUMNS", "120")
    code, out, _ = cli("score", {"filter": on_one_node(boom)}, True)
    assert code == 0
    assert out.splitlines()[-3:] == [
        "unschedulable: 0/2 nodes are available: 2 Insufficient cpu.",
        f"preemption:    error: {FILTER_BOOM} (plugin Broken, package",
        f"               {PACKAGE})",
    ]


class BadSort(Plugin):
    """A QueueSort plugin that raises a two-line error."""

    name = "BadSort"

    @hookimpl
    def ruleset_queue_sort(self, a, b):
        raise ValueError("cannot compare\nthese pods")


def test_a_failing_queue_sort_stops_the_run_with_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    (tmp_path / "c.yaml").write_text(CLUSTER + pod("a", FITS, "2024-01-01T00:00:00Z")
                                     + pod("b", FITS, "2024-01-01T00:00:01Z"))
    (tmp_path / "p.toml").write_text('name = "sorted"\n[plugins.BadSort]\n')
    registry = registry_with(BadSort)
    registry.origins["BadSort"] = PACKAGE
    monkeypatch.setattr(app, "load_registry", lambda: registry)
    monkeypatch.chdir(tmp_path)
    code = main(["schedule", "-p", "p.toml", "-c", "c.yaml"])
    out, err = capsys.readouterr()
    assert (code, out, err) == (2, "", f'error: <input>: running QueueSort plugin "BadSort" (package {PACKAGE}): '
                                       f"ValueError: cannot compare | these pods\n")
