"""TaintToleration's Filter reason per release, and upstream's TestTaintTolerationFilter at v1.34.

* v1.34.0 ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go``,
  TestTaintTolerationFilter: its 9 cases are v1.20's (``test_taint_toleration.py``) with the
  reason ``node(s) had untolerated taint {key: value}`` (PR #109119, 1.24); they are re-run
  here from that module's table with the reason rewritten. TestTaintTolerationScore at v1.34 is
  v1.20's 5 cases, unchanged (``test_taint_toleration.py`` runs them; the plugin's Score did not
  change). TestTaintTolerationFilterWithFeatureGate and the Gt/Lt cases came with the
  TaintTolerationComparisonOperators gate (alpha, 1.35), which ruleset does not model: left out.
  The queueing-hint tests are about requeueing on cluster events, which a ruleset run has none of.
* From 1.35 (PR #134740, kubernetes master after v1.34, read there) the reason is
  ``node(s) had untolerated taint(s)`` for every taint.
"""

from __future__ import annotations

import pytest

from tests.factories import make_node
from tests.plugins import test_taint_toleration as v120
from tests.plugins.release_harness import ReleaseHarness

UNRESOLVABLE = "UnschedulableAndUnresolvable"
OLD = "node(s) had taint {dedicated: user1}, that the pod didn't tolerate"
V124 = "node(s) had untolerated taint {dedicated: user1}"
V135 = "node(s) had untolerated taint(s)"

# The 9 cases of TestTaintTolerationFilter before the gate-disabled ones.
FILTER_CASES_V134 = v120.FILTER_CASES[:9]


def _v124_reason(text: str) -> str:
    """``node(s) had taint {k: v}, that the pod didn't tolerate`` → the 1.24 wording."""
    prefix, suffix = "node(s) had taint ", ", that the pod didn't tolerate"
    assert text.startswith(prefix) and text.endswith(suffix)
    return "node(s) had untolerated taint " + text[len(prefix):-len(suffix)]


def _rewrite(expected: tuple, new_reason) -> tuple:
    code, reasons = expected
    return code, tuple(new_reason(r) for r in reasons)


def test_the_v1_34_table_is_the_v1_20_table_with_nine_cases():
    assert len(FILTER_CASES_V134) == 9
    assert all("Gt" not in str(case.values) and "Lt" not in str(case.values) for case in FILTER_CASES_V134)


@pytest.mark.parametrize(("pod", "taints", "expected"), FILTER_CASES_V134)
def test_filter_at_v1_34(pod: dict, taints: list[dict], expected: tuple) -> None:
    h = ReleaseHarness(["TaintToleration"], [v120.node_with_taints("nodeA", taints)], "1.34")
    assert h.filter(pod) == {"nodeA": _rewrite(expected, _v124_reason)}


@pytest.mark.parametrize(("pod", "taints", "expected"), FILTER_CASES_V134)
def test_filter_at_v1_35(pod: dict, taints: list[dict], expected: tuple) -> None:
    h = ReleaseHarness(["TaintToleration"], [v120.node_with_taints("nodeA", taints)], "1.35")
    assert h.filter(pod) == {"nodeA": _rewrite(expected, lambda _: V135)}


@pytest.mark.parametrize(("version", "reason"), [
    pytest.param("1.20", OLD, id="1.20"),
    pytest.param("1.23", OLD, id="1.23-still-old"),
    pytest.param("1.24", V124, id="1.24-untolerated-taint-key-value"),
    pytest.param("1.34", V124, id="1.34"),
    pytest.param("1.35", V135, id="1.35-no-key-or-value"),
])
def test_reason_switches_at_its_releases(version: str, reason: str) -> None:
    nodes = [make_node("n1", taints=[v120.taint("dedicated", "user1", "NoSchedule")])]
    h = ReleaseHarness(["TaintToleration"], nodes, version)
    assert h.filter(v120.pod_with_tolerations([])) == {"n1": (UNRESOLVABLE, (reason,))}


@pytest.mark.parametrize(("version", "message"), [
    pytest.param("1.20", "0/3 nodes are available: 1 node(s) had taint {b: 2}, that the pod didn't tolerate, "
                 "2 node(s) had taint {a: 1}, that the pod didn't tolerate.", id="1.20"),
    pytest.param("1.34", "0/3 nodes are available: 1 node(s) had untolerated taint {b: 2}, "
                 "2 node(s) had untolerated taint {a: 1}.", id="1.34"),
    pytest.param("1.35", "0/3 nodes are available: 3 node(s) had untolerated taint(s).", id="1.35-one-entry"),
])
def test_fit_error_histogram(version: str, message: str) -> None:
    # Different taints are one reason from 1.35 on, so the histogram counts them together.
    nodes = [v120.node_with_taints("n1", [v120.taint("a", "1", "NoSchedule")]),
             v120.node_with_taints("n2", [v120.taint("b", "2", "NoExecute")]),
             v120.node_with_taints("n3", [v120.taint("a", "1", "NoSchedule"), v120.taint("b", "2", "NoSchedule")])]
    h = ReleaseHarness(["TaintToleration"], nodes, version)
    assert h.run(v120.pod_with_tolerations([])).message == message
