"""Ported from ``pkg/scheduler/framework/plugins/nodelabel/node_label_test.go`` (v1.20) and the
NodeLabelArgs part of ``pkg/scheduler/apis/config/validation/validation_pluginargs_test.go``.

* TestNodeLabelFilter: all 10 cases (node labels foo, bar; the expected code, plus the
  reason, which upstream leaves unchecked).
* TestNodeLabelScore: all 13 cases (node labels foo, bar).
* TestNodeLabelFilterWithoutNode, TestNodeLabelScoreWithoutNode: not ported. They pass a
  NodeInfo without a Node (or an unknown node name) and expect an Error; every node of a
  snapshot is a real Node, so that state cannot arise here.
* TestValidateNodeLabelArgs: all 3 cases, exact messages.

Plus ruleset checks: which label a conflict message names when there are several, that
the plain lists are checked before the preference lists, the error surfacing through a
profile, and the score with no preference labels (upstream divides by zero).
"""

import pytest

from ruleset.framework.plugin import check_plugin_args
from ruleset.framework.runtime import FrameworkError
from ruleset.plugins.node_label import NodeLabel
from tests.factories import Harness, make_node, make_pod

SUCCESS = ("Success", ())
UNRESOLVABLE = ("UnschedulableAndUnresolvable", ("node(s) didn't have the requested labels",))


@pytest.mark.parametrize(("args", "expected"), [
    pytest.param({"presentLabels": ["baz"]}, UNRESOLVABLE, id="present label does not match"),
    pytest.param({"absentLabels": ["baz"]}, SUCCESS, id="absent label does not match"),
    pytest.param({"presentLabels": ["foo", "baz"]}, UNRESOLVABLE, id="one of two present labels matches"),
    pytest.param({"absentLabels": ["foo", "baz"]}, UNRESOLVABLE, id="one of two absent labels matches"),
    pytest.param({"presentLabels": ["foo", "bar"]}, SUCCESS, id="all present labels match"),
    pytest.param({"absentLabels": ["foo", "bar"]}, UNRESOLVABLE, id="all absent labels match"),
    pytest.param({"presentLabels": ["foo"], "absentLabels": ["bar"]}, UNRESOLVABLE,
                 id="both present and absent label matches"),
    pytest.param({"presentLabels": ["foz"], "absentLabels": ["baz"]}, UNRESOLVABLE,
                 id="neither present nor absent label matches"),
    pytest.param({"presentLabels": ["foo"], "absentLabels": ["baz"]}, SUCCESS,
                 id="present label matches and absent label doesn't match"),
    pytest.param({"presentLabels": ["foz"], "absentLabels": ["bar"]}, UNRESOLVABLE,
                 id="present label doesn't match and absent label matches"),
])
def test_node_label_filter(args: dict, expected: tuple) -> None:
    h = Harness([("NodeLabel", args)], [make_node("machine1", {"foo": "any value", "bar": "any value"})])
    assert h.filter(make_pod()) == {"machine1": expected}


PRESENT = "presentLabelsPreference"
ABSENT = "absentLabelsPreference"


@pytest.mark.parametrize(("args", "expected"), [
    pytest.param({PRESENT: ["foo"]}, 100, id="one present label match"),
    pytest.param({PRESENT: ["somelabel"]}, 0, id="one present label mismatch"),
    pytest.param({PRESENT: ["foo", "bar"]}, 100, id="two present labels match"),
    pytest.param({PRESENT: ["somelabel1", "somelabel2"]}, 0, id="two present labels mismatch"),
    pytest.param({PRESENT: ["foo", "somelabel"]}, 50, id="two present labels only one matches"),
    pytest.param({ABSENT: ["foo"]}, 0, id="one absent label match"),
    pytest.param({ABSENT: ["somelabel"]}, 100, id="one absent label mismatch"),
    pytest.param({ABSENT: ["foo", "bar"]}, 0, id="two absent labels match"),
    pytest.param({ABSENT: ["somelabel1", "somelabel2"]}, 100, id="two absent labels mismatch"),
    pytest.param({ABSENT: ["foo", "somelabel"]}, 50, id="two absent labels only one matches"),
    pytest.param({PRESENT: ["foo", "bar"], ABSENT: ["somelabel1", "somelabel2"]}, 100,
                 id="two present labels match, two absent labels mismatch"),
    pytest.param({PRESENT: ["somelabel1", "somelabel2"], ABSENT: ["foo", "bar"]}, 0,
                 id="two present labels both mismatch, two absent labels both match"),
    pytest.param({PRESENT: ["foo", "somelabel"], ABSENT: ["somelabel1", "somelabel2"]}, 75,
                 id="two present labels one matches, two absent labels mismatch"),
])
def test_node_label_score(args: dict, expected: int) -> None:
    h = Harness([("NodeLabel", args)], [make_node("machine1", {"foo": "", "bar": ""})])
    assert h.score(make_pod()) == {"machine1": expected}


@pytest.mark.parametrize(("args", "expected"), [
    pytest.param({"presentLabels": ["present"], "absentLabels": ["absent"],
                  PRESENT: ["present-preference"], ABSENT: ["absent-preference"]},
                 [], id="valid config"),
    pytest.param({"presentLabels": ["label"], "absentLabels": ["label"]},
                 [(("absentLabels", 0), 'detecting at least one label (e.g., "label") that exist in both the '
                                        'present([label]) and absent([label]) label list')],
                 id="labels conflict"),
    pytest.param({PRESENT: ["label"], ABSENT: ["label"]},
                 [((ABSENT, 0), 'detecting at least one label (e.g., "label") that exist in both '
                                'the present([label]) and absent([label]) label list')],
                 id="labels preference conflict"),
])
def test_validate_node_label_args(args: dict, expected: list) -> None:
    _, problems = check_plugin_args(NodeLabel, args)
    assert problems == expected


# ---------------------------------------------------------------------------------------------------
# ruleset checks
# ---------------------------------------------------------------------------------------------------

def test_conflict_names_the_first_absent_label_found_in_present() -> None:
    # validateNoConflict walks the absent list: "b" comes before "a" there.
    args = {"presentLabels": ["a", "b", "c"], "absentLabels": ["x", "b", "a"]}
    assert check_plugin_args(NodeLabel, args)[1] == [
        (("absentLabels", 1), 'detecting at least one label (e.g., "b") that exist in both the '
                              'present([a b c]) and absent([x b a]) label list')]


def test_plain_lists_are_checked_before_preference_lists_and_only_the_first_error_is_reported() -> None:
    args = {PRESENT: ["p"], ABSENT: ["p"], "presentLabels": ["l"], "absentLabels": ["l"]}
    assert check_plugin_args(NodeLabel, args)[1] == [
        (("absentLabels", 0), 'detecting at least one label (e.g., "l") that exist in both the '
                              'present([l]) and absent([l]) label list')]


def test_conflict_message_quotes_the_label_like_go() -> None:
    assert check_plugin_args(NodeLabel, {"presentLabels": ['a"b'], "absentLabels": ['a"b']})[1] == [
        (("absentLabels", 0), 'detecting at least one label (e.g., "a\\"b") that exist in both the '
                              'present([a"b]) and absent([a"b]) label list')]


def test_invalid_args_fail_the_profile() -> None:
    with pytest.raises(FrameworkError) as info:
        Harness([("NodeLabel", {"presentLabels": ["label"], "absentLabels": ["label"]})], [])
    [problem] = info.value.problems
    assert problem.path == "plugins.NodeLabel.args.absentLabels[0]"
    assert problem.message == ('detecting at least one label (e.g., "label") that exist in both the '
                               'present([label]) and absent([label]) label list')


def test_score_without_preference_labels_is_zero_everywhere() -> None:
    # Upstream divides by zero here; a uniform 0 keeps the ranking unchanged.
    h = Harness([("NodeLabel", {"presentLabels": ["foo"]})],
                [make_node("machine1", {"foo": ""}), make_node("machine2", {"foo": "", "bar": ""})])
    assert h.score(make_pod()) == {"machine1": 0, "machine2": 0}


def test_filter_is_vectorised_over_many_nodes() -> None:
    nodes = [make_node(f"n{i}", {"foo": "x"} if i % 3 else {"bar": "y"}) for i in range(9)]
    h = Harness([("NodeLabel", {"presentLabels": ["foo"], "absentLabels": ["bar"]})], nodes)
    assert h.filter(make_pod()) == {f"n{i}": SUCCESS if i % 3 else UNRESOLVABLE for i in range(9)}
