"""The FitError message per release (``FitErrorText``), and upstream's TestFitError_Error at v1.34.

* v1.34.0 ``pkg/scheduler/framework/types_test.go``, TestFitError_Error: all 8 cases. Upstream
  gives ``Diagnosis.PreFilterMsg`` / ``PostFilterMsg`` as strings; here the PreFilter message
  comes from :meth:`NodeStatuses.reject_at_pre_filter` (which, as upstream's framework does,
  also gives every node that status) and the PostFilter message from an Unschedulable
  ``PostFilterResult``. Upstream's ``NodeToStatus`` absent-nodes status is not modelled
  (ruleset's statuses cover every node), so the cases list every node, as upstream's do.
* The releases that changed ``FitError.Error()`` (``pkg/scheduler/framework/types.go``) are
  read from the code at each shape: 1.24 appends " " + PostFilterMsg (kubernetes#107775);
  1.26 writes "0/N nodes are available:" + " <PreFilterMsg>." + " <histogram>." +
  " <PostFilterMsg>." (SeparatorFormat, kubernetes#110894, the histogram still written after
  a PreFilter rejection); 1.28 leaves the histogram out after a PreFilter rejection
  (kubernetes#115651); 1.29 appends the PostFilter message without a "." (kubernetes#117588:
  "..." became "."); from 1.27 the scheduling cycle records an Error's PostFilter message too
  (1.24-1.26's schedulingCycle did not). Releases checked against the code at v1.26.2, v1.27.4,
  v1.28.4 and v1.29.4 (types.go, schedule_one.go).
"""

from __future__ import annotations

import numpy as np
import pytest

from ruleset.framework.results import (
    FitErrorText,
    NodeStatuses,
    PostFilterResult,
    fit_error_message,
)
from ruleset.framework.status import Code, Status
from ruleset.kversion import KubeVersion, Target

PRE = "Node(s) failed PreFilter plugin FalsePreFilter"
F1 = "Node(s) failed Filter plugin FalseFilter-1"
F2 = "Node(s) failed Filter plugin FalseFilter-2"
POST = "Error running PostFilter plugin FailedPostFilter"


def text(version: str) -> FitErrorText:
    return FitErrorText.of(Target(KubeVersion.parse(version), explicit=True))


def filtered(*reasons: str) -> NodeStatuses:
    """One node per reason, each Unschedulable with that reason (as a Filter plugin leaves them)."""
    statuses = NodeStatuses(len(reasons))
    for i, reason in enumerate(reasons):
        statuses.set_status(i, Status(Code.UNSCHEDULABLE, (reason,)))
    return statuses


def pre_filtered(n: int, reason: str = PRE) -> NodeStatuses:
    statuses = NodeStatuses(n)
    statuses.reject_at_pre_filter(Status(Code.UNSCHEDULABLE, (reason,), "FalsePreFilter"))
    return statuses


def post(message: str | None, code: Code = Code.UNSCHEDULABLE) -> PostFilterResult | None:
    return None if message is None else PostFilterResult(status=Status(code, (message,)))


# ------------------------------------------------------------------ TestFitError_Error (v1.34)
V134_CASES = [
    pytest.param(3, pre_filtered(3), None, f"0/3 nodes are available: {PRE}.", id="nodes failed Prefilter plugin"),
    pytest.param(3, pre_filtered(3), POST, f"0/3 nodes are available: {PRE}. {POST}",
                 id="nodes failed Prefilter plugin and the preemption also failed"),
    pytest.param(3, filtered(F1, F1, F1), None, f"0/3 nodes are available: 3 {F1}.",
                 id="nodes failed one Filter plugin with an empty PostFilterMsg"),
    pytest.param(3, filtered(F1, F1, F1), POST, f"0/3 nodes are available: 3 {F1}. {POST}",
                 id="nodes failed one Filter plugin with a non-empty PostFilterMsg"),
    pytest.param(3, filtered(F1, F1, F2), None, f"0/3 nodes are available: 1 {F2}, 2 {F1}.",
                 id="nodes failed two Filter plugins with an empty PostFilterMsg"),
    pytest.param(3, filtered(F1, F1, F2), POST, f"0/3 nodes are available: 1 {F2}, 2 {F1}. {POST}",
                 id="nodes failed two Filter plugins with a non-empty PostFilterMsg"),
    pytest.param(1, filtered("Node failed Permit plugin Permit-1"), None,
                 "0/1 nodes are available: 1 Node failed Permit plugin Permit-1.", id="failed to Permit on node"),
    pytest.param(1, filtered("Node failed Reserve plugin Reserve-1"), None,
                 "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.", id="failed to Reserve on node"),
]


@pytest.mark.parametrize(("num_nodes", "statuses", "post_filter", "expected"), V134_CASES)
def test_fit_error_at_v1_34(num_nodes: int, statuses: NodeStatuses, post_filter: str | None, expected: str):
    assert text("1.34").message(num_nodes, statuses, post(post_filter)) == expected


# ------------------------------------------------------------------------------ per release
@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", f"0/3 nodes are available: 3 {PRE}.", id="1.20-histogram"),
    pytest.param("1.23", f"0/3 nodes are available: 3 {PRE}.", id="1.23-histogram"),
    pytest.param("1.24", f"0/3 nodes are available: 3 {PRE}. {POST}", id="1.24-post-filter-appended"),
    pytest.param("1.25", f"0/3 nodes are available: 3 {PRE}. {POST}", id="1.25"),
    pytest.param("1.26", f"0/3 nodes are available: {PRE}. 3 {PRE}. {POST}.", id="1.26-pre-filter-and-histogram"),
    pytest.param("1.27", f"0/3 nodes are available: {PRE}. 3 {PRE}. {POST}.", id="1.27-histogram-still-written"),
    pytest.param("1.28", f"0/3 nodes are available: {PRE}. {POST}.", id="1.28-pre-filter-once"),
    pytest.param("1.29", f"0/3 nodes are available: {PRE}. {POST}", id="1.29-no-period-after-post-filter"),
    pytest.param("1.34", f"0/3 nodes are available: {PRE}. {POST}", id="1.34"),
    pytest.param("1.35", f"0/3 nodes are available: {PRE}. {POST}", id="1.35"),
])
def test_pre_filter_rejection_per_release(version: str, expected: str):
    assert text(version).message(3, pre_filtered(3), post(POST)) == expected


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", f"0/3 nodes are available: 1 {F2}, 2 {F1}.", id="1.20"),
    pytest.param("1.24", f"0/3 nodes are available: 1 {F2}, 2 {F1}. preemption: x.", id="1.24"),
    pytest.param("1.26", f"0/3 nodes are available: 1 {F2}, 2 {F1}. preemption: x..", id="1.26-double-period"),
    pytest.param("1.28", f"0/3 nodes are available: 1 {F2}, 2 {F1}. preemption: x..", id="1.28-double-period"),
    pytest.param("1.29", f"0/3 nodes are available: 1 {F2}, 2 {F1}. preemption: x.", id="1.29"),
])
def test_filter_rejection_with_preemption_message_per_release(version: str, expected: str):
    assert text(version).message(3, filtered(F1, F1, F2), post("preemption: x.")) == expected


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.24", f"0/1 nodes are available: 1 {F1}.", id="1.24-error-left-out"),
    pytest.param("1.25", f"0/1 nodes are available: 1 {F1}.", id="1.25-error-left-out"),
    pytest.param("1.26", f"0/1 nodes are available: 1 {F1}.", id="1.26-error-left-out"),
    pytest.param("1.27", f"0/1 nodes are available: 1 {F1}. boom.", id="1.27-error-appended"),
    pytest.param("1.34", f"0/1 nodes are available: 1 {F1}. boom", id="1.34"),
])
def test_post_filter_error_message_per_release(version: str, expected: str):
    assert text(version).message(1, filtered(F1), post("boom", Code.ERROR)) == expected


@pytest.mark.parametrize("version", ["1.24", "1.34"])
def test_a_successful_post_filter_adds_nothing(version: str):
    success = PostFilterResult(nominated_node="n1")
    assert text(version).message(1, filtered(F1), success) == f"0/1 nodes are available: 1 {F1}."


@pytest.mark.parametrize(("version", "expected"), [
    pytest.param("1.20", "0/2 nodes are available: .", id="1.20-empty-histogram"),
    pytest.param("1.25", "0/2 nodes are available: .", id="1.25"),
    pytest.param("1.26", "0/2 nodes are available:", id="1.26-nothing-after-the-colon"),
])
def test_statuses_without_reasons(version: str, expected: str):
    statuses = NodeStatuses(2)
    statuses.set_all(np.arange(2), Status(Code.UNSCHEDULABLE))
    assert text(version).message(2, statuses) == expected


def test_v1_20_is_fit_error_message_and_ignores_post_filter():
    statuses = filtered("X", *["X"] * 9, "Y", "Y", "Insufficient cpu", "Insufficient cpu")
    expected = "0/14 nodes are available: 10 X, 2 Insufficient cpu, 2 Y."
    assert fit_error_message(14, statuses) == expected
    assert text("1.20").message(14, statuses, post("preemption: x.")) == expected
    assert FitErrorText.of(Target()) == FitErrorText()


def test_reject_at_pre_filter_gives_every_node_the_status():
    statuses = pre_filtered(3, "a, b")
    assert statuses.pre_filter_message == "a, b"
    assert [statuses.status(i).reasons for i in range(3)] == [("a, b",)] * 3
    assert [statuses.status(i).plugin for i in range(3)] == ["FalsePreFilter"] * 3
    assert NodeStatuses(3).pre_filter_message == ""
