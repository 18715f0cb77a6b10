"""PodTopologySpread's parsed constraints are kept per distinct constraint list when no pod
labels are merged into them (ruleset's own optimisation, no upstream table): the same
constraints as parsing afresh, each caller its own list, and invalid selectors still raising."""

from __future__ import annotations

import pytest

from ruleset.api.meta import LabelSelector, LabelSelectorRequirement
from ruleset.api.pod import TopologySpreadConstraint
from ruleset.plugins.podtopologyspread import common
from ruleset.selector import SelectorError

BLUE = LabelSelector(match_labels=(("color", "blue"),))
CONSTRAINTS = (
    TopologySpreadConstraint(5, "zone", "DoNotSchedule", BLUE, min_domains=2, node_affinity_policy="Ignore"),
    TopologySpreadConstraint(1, "host", "ScheduleAnyway", None),
    TopologySpreadConstraint(2, "host", "DoNotSchedule", BLUE, match_label_keys=("app",)),
)


@pytest.mark.parametrize("action", ["DoNotSchedule", "ScheduleAnyway"])
@pytest.mark.parametrize(("min_domains", "inclusion"), [(False, False), (True, True)], ids=["v1.20", "gated"])
@pytest.mark.parametrize("labels", [None, {"app": "web"}], ids=["no-merge", "merge"])
def test_kept_constraints_equal_fresh_ones(action: str, min_domains: bool, inclusion: bool,
                                           labels: dict[str, str] | None) -> None:
    first = common.filter_constraints(CONSTRAINTS, action, labels, min_domains, inclusion)
    again = common.filter_constraints(CONSTRAINTS, action, labels, min_domains, inclusion)
    fresh = common._filter_constraints(CONSTRAINTS, action, labels, min_domains, inclusion)
    assert first == again == fresh
    assert first is not again
    first.clear()  # the caller's list is its own
    assert common.filter_constraints(CONSTRAINTS, action, labels, min_domains, inclusion) == fresh


def test_an_invalid_selector_raises_every_time() -> None:
    bad = LabelSelector(match_expressions=(LabelSelectorRequirement("k", "In", ()),))
    constraints = (TopologySpreadConstraint(1, "zone", "DoNotSchedule", bad),)
    for _ in range(2):
        with pytest.raises(SelectorError):
            common.filter_constraints(constraints, "DoNotSchedule")
