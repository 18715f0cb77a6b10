"""EqualPriority: the legacy ``EqualPriorityMap`` as a Score plugin.

Upstream has no table test of its own for EqualPriorityMap (v1.17's generic_scheduler_test
only uses it as a filler prioritizer), so nothing is ported; these tests pin the documented
decision: every feasible node scores 1 (``Score: 1``), without normalization, times the
plugin weight, the same ranking v1.20 gives when no score plugin is configured.
"""

import pytest

from tests.factories import Harness, make_node, make_pod

NODES = [make_node("machine1"), make_node("machine2", {"zone": "a"}), make_node("machine3", cpu="1")]


def test_every_node_scores_one() -> None:
    h = Harness(["EqualPriority"], NODES)
    assert h.score(make_pod()) == {"machine1": 1, "machine2": 1, "machine3": 1}
    assert h.score(make_pod(), raw=True) == {"machine1": 1, "machine2": 1, "machine3": 1}


@pytest.mark.parametrize("weight", [1, 3, 10000])
def test_total_is_the_weight(weight: int) -> None:
    h = Harness([("EqualPriority", {}, weight)], NODES)
    assert h.total(make_pod()) == {"machine1": weight, "machine2": weight, "machine3": weight}


def test_same_totals_as_no_score_plugins() -> None:
    with_plugin = Harness(["EqualPriority"], NODES).run(make_pod())
    without = Harness([], NODES).run(make_pod())
    assert without.scores is None
    assert with_plugin.score == without.score == 1


def test_adds_a_constant_to_other_scores() -> None:
    h = Harness(["EqualPriority", ("NodeLabel", {"presentLabelsPreference": ["zone"]}, 2)], NODES)
    assert h.total(make_pod()) == {"machine1": 1, "machine2": 201, "machine3": 1}


def test_scores_only_feasible_nodes() -> None:
    h = Harness(["NodeName", "EqualPriority"], NODES)
    assert h.score(make_pod(node_name="machine2"), "EqualPriority") == {"machine2": 1}
