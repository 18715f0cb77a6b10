"""Ported from v1.20's NodeAffinity tests.

* ``nodeaffinity/node_affinity_test.go`` TestNodeAffinity: the 30 Filter cases, with
  v1.20's reasons (``node(s) didn't match Pod's node affinity``; later versions append
  "/selector"). Upstream leaves the node unnamed where no matchFields are involved; here
  every node needs a name, so those nodes are called "node" (the name is only read by
  matchFields).
* ``nodeaffinity/node_affinity_test.go`` TestNodeAffinityPriority: the 6 Score cases.
* ``apis/config/validation/validation_pluginargs_test.go`` TestValidateNodeAffinityArgs:
  the 3 cases. Upstream compares only the error type and field path (BadValue and Detail
  are ignored); here the full v1.20 text is checked too.
* ``component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity_test.go``
  TestNodeSelectorMatch: 4 of 5 cases ("nil node" has no counterpart: a snapshot has no
  nil nodes); TestPreferredSchedulingTermsScore: the 3 cases. The third table of that
  file, TestNodeSelectorRequirementsAsSelector, tests the selector conversion that
  ``ruleset.selector`` owns and is not repeated here.

Plus ruleset checks: several nodes in one Filter call (each its own reason), a pod whose
preferred terms do not parse (Error, as upstream's Score), and the args round trip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from ruleset.api.meta import LabelSelectorRequirement
from ruleset.api.pod import NodeSelectorTerm, PreferredSchedulingTerm
from ruleset.plugins.node_affinity import (
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinity,
    NodeSelectorMatcher,
    PreferredTerms,
    aggregate_message,
)
from tests.factories import Harness, build_cluster, make_node, make_pod

UNRESOLVABLE = "UnschedulableAndUnresolvable"
POD_REASON = (UNRESOLVABLE, (ERR_REASON_POD,))
ENFORCED_REASON = (UNRESOLVABLE, (ERR_REASON_ENFORCED,))
OK = ("Success", ())
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def term(expressions: Sequence[dict] = (), fields: Sequence[dict] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if expressions:
        out["matchExpressions"] = list(expressions)
    if fields:
        out["matchFields"] = list(fields)
    return out


def required(*terms: dict) -> dict[str, Any]:
    return {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": list(terms)}}}


def pod(node_selector: Mapping[str, str] | None = None, affinity: Mapping[str, Any] | None = None) -> dict:
    return make_pod("pod", node_selector=node_selector, affinity=affinity)


def added_required(*terms: dict) -> dict[str, Any]:
    return {"addedAffinity": {REQUIRED: {"nodeSelectorTerms": list(terms)}}}


NAME_IN_NODE_1 = expr("metadata.name", "In", "node_1")

# ---------------------------------------------------------------------------------------------------
# TestNodeAffinity
# ---------------------------------------------------------------------------------------------------

FILTER_CASES = [
    pytest.param(pod(), None, "node", {}, OK, id="no selector"),
    pytest.param(pod({"foo": "bar"}), None, "node", {}, POD_REASON, id="missing labels"),
    pytest.param(pod({"foo": "bar"}), {"foo": "bar"}, "node", {}, OK, id="same labels"),
    pytest.param(pod({"foo": "bar"}), {"foo": "bar", "baz": "blah"}, "node", {}, OK,
                 id="node labels are superset"),
    pytest.param(pod({"foo": "bar", "baz": "blah"}), {"foo": "bar"}, "node", {}, POD_REASON,
                 id="node labels are subset"),
    pytest.param(pod(affinity=required(term([expr("foo", "In", "bar", "value2")]))), {"foo": "bar"}, "node",
                 {}, OK, id="Pod with matchExpressions using In operator that matches the existing node"),
    pytest.param(pod(affinity=required(term([expr("kernel-version", "Gt", "0204")]))),
                 {"kernel-version": "0206"}, "node", {}, OK,
                 id="Pod with matchExpressions using Gt operator that matches the existing node"),
    pytest.param(pod(affinity=required(term([expr("mem-type", "NotIn", "DDR", "DDR2")]))),
                 {"mem-type": "DDR3"}, "node", {}, OK,
                 id="Pod with matchExpressions using NotIn operator that matches the existing node"),
    pytest.param(pod(affinity=required(term([expr("GPU", "Exists")]))), {"GPU": "NVIDIA-GRID-K1"}, "node", {},
                 OK, id="Pod with matchExpressions using Exists operator that matches the existing node"),
    pytest.param(pod(affinity=required(term([expr("foo", "In", "value1", "value2")]))), {"foo": "bar"},
                 "node", {}, POD_REASON,
                 id="Pod with affinity that don't match node's labels won't schedule onto the node"),
    pytest.param(pod(affinity={"nodeAffinity": {REQUIRED: {}}}),
                 {"foo": "bar"}, "node", {}, POD_REASON,
                 id="Pod with a nil []NodeSelectorTerm in affinity, can't match the node's labels and won't "
                    "schedule onto the node"),
    pytest.param(pod(affinity=required()), {"foo": "bar"}, "node", {}, POD_REASON,
                 id="Pod with an empty []NodeSelectorTerm in affinity, can't match the node's labels and "
                    "won't schedule onto the node"),
    pytest.param(pod(affinity=required({"matchExpressions": []})), {"foo": "bar"}, "node", {}, POD_REASON,
                 id="Pod with empty MatchExpressions is not a valid value will match no objects and won't "
                    "schedule onto the node"),
    pytest.param(pod(), {"foo": "bar"}, "node", {}, OK, id="Pod with no Affinity will schedule onto a node"),
    pytest.param(pod(affinity={"nodeAffinity": {}}), {"foo": "bar"}, "node", {}, OK,
                 id="Pod with Affinity but nil NodeSelector will schedule onto a node"),
    pytest.param(pod(affinity=required(term([expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")]))),
                 {"GPU": "NVIDIA-GRID-K1"}, "node", {}, OK,
                 id="Pod with multiple matchExpressions ANDed that matches the existing node"),
    pytest.param(pod(affinity=required(term([expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")]))),
                 {"GPU": "NVIDIA-GRID-K1"}, "node", {}, POD_REASON,
                 id="Pod with multiple matchExpressions ANDed that doesn't match the existing node"),
    pytest.param(pod(affinity=required(term([expr("foo", "In", "bar", "value2")]),
                                       term([expr("diffkey", "In", "wrong", "value2")]))),
                 {"foo": "bar"}, "node", {}, OK,
                 id="Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and "
                    "will schedule onto the node"),
    pytest.param(pod({"foo": "bar"}, required(term([expr("foo", "Exists")]))), {"foo": "bar"}, "node", {},
                 OK,
                 id="Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) "
                    "both are satisfied, will schedule onto the node"),
    pytest.param(pod({"foo": "bar"}, required(term([expr("foo", "Exists")]))), {"foo": "barrrrrr"}, "node",
                 {}, POD_REASON,
                 id="Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing "
                    "that we are deprecating) is not satisfied, won't schedule onto the node"),
    pytest.param(pod(affinity=required(term([expr("foo", "NotIn", "invalid value: ___@#$%^")]))),
                 {"foo": "bar"}, "node", {}, POD_REASON,
                 id="Pod with an invalid value in Affinity term won't be scheduled onto the node"),
    pytest.param(pod(affinity=required(term(fields=[NAME_IN_NODE_1]))), None, "node_1", {}, OK,
                 id="Pod with matchFields using In operator that matches the existing node"),
    pytest.param(pod(affinity=required(term(fields=[NAME_IN_NODE_1]))), None, "node_2", {}, POD_REASON,
                 id="Pod with matchFields using In operator that does not match the existing node"),
    pytest.param(pod(affinity=required(term(fields=[NAME_IN_NODE_1]), term([expr("foo", "In", "bar")]))),
                 {"foo": "bar"}, "node_2", {}, OK,
                 id="Pod with two terms: matchFields does not match, but matchExpressions matches"),
    pytest.param(pod(affinity=required(term([expr("foo", "In", "bar")], [NAME_IN_NODE_1]))),
                 {"foo": "bar"}, "node_2", {}, POD_REASON,
                 id="Pod with one term: matchFields does not match, but matchExpressions matches"),
    pytest.param(pod(affinity=required(term([expr("foo", "In", "bar")], [NAME_IN_NODE_1]))),
                 {"foo": "bar"}, "node_1", {}, OK,
                 id="Pod with one term: both matchFields and matchExpressions match"),
    pytest.param(pod(affinity=required(term(fields=[NAME_IN_NODE_1]),
                                       term([expr("foo", "In", "not-match-to-bar")]))),
                 {"foo": "bar"}, "node_2", {}, POD_REASON,
                 id="Pod with two terms: both matchFields and matchExpressions do not match"),
    pytest.param(pod(affinity=required(term([expr("zone", "In", "foo")]))), {"zone": "foo"}, "node_2",
                 added_required(term(fields=[expr("metadata.name", "In", "node_2")])), OK,
                 id="Matches added affinity and Pod's node affinity"),
    pytest.param(pod(affinity=required(term([expr("zone", "In", "bar")]))), {"zone": "foo"}, "node_2",
                 added_required(term(fields=[expr("metadata.name", "In", "node_2")])), POD_REASON,
                 id="Matches added affinity but not Pod's node affinity"),
    pytest.param(pod(), {"zone": "foo"}, "node_2", added_required(term([expr("zone", "In", "bar")])),
                 ENFORCED_REASON, id="Doesn't match added affinity"),
]


@pytest.mark.parametrize(("pod_manifest", "labels", "node_name", "args", "expected"), FILTER_CASES)
def test_node_affinity(pod_manifest: dict, labels: dict | None, node_name: str, args: dict,
                       expected: tuple[str, tuple[str, ...]]) -> None:
    harness = Harness([("NodeAffinity", args)], [make_node(node_name, labels)])
    assert harness.filter(pod_manifest) == {node_name: expected}


# ---------------------------------------------------------------------------------------------------
# TestNodeAffinityPriority
# ---------------------------------------------------------------------------------------------------

LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}

AFFINITY1 = {PREFERRED: [
    {"weight": 2, "preference": term([expr("foo", "In", "bar")])}]}
AFFINITY2 = {PREFERRED: [
    {"weight": 2, "preference": term([expr("foo", "In", "bar")])},
    {"weight": 4, "preference": term([expr("key", "In", "value")])},
    {"weight": 5, "preference": term([expr("foo", "In", "bar"), expr("key", "In", "value"),
                                      expr("az", "In", "az1")])},
]}

SCORE_CASES = [
    pytest.param(make_pod("pod", annotations={}),
                 [("machine1", LABEL1), ("machine2", LABEL2), ("machine3", LABEL3)],
                 {}, {"machine1": 0, "machine2": 0, "machine3": 0},
                 id="all machines are same priority as NodeAffinity is nil"),
    pytest.param(make_pod("pod", affinity={"nodeAffinity": AFFINITY1}),
                 [("machine1", LABEL4), ("machine2", LABEL2), ("machine3", LABEL3)],
                 {}, {"machine1": 0, "machine2": 0, "machine3": 0},
                 id="no machine macthes preferred scheduling requirements in NodeAffinity of pod so all "
                    "machines' priority is zero"),
    pytest.param(make_pod("pod", affinity={"nodeAffinity": AFFINITY1}),
                 [("machine1", LABEL1), ("machine2", LABEL2), ("machine3", LABEL3)],
                 {}, {"machine1": 100, "machine2": 0, "machine3": 0},
                 id="only machine1 matches the preferred scheduling requirements of pod"),
    pytest.param(make_pod("pod", affinity={"nodeAffinity": AFFINITY2}),
                 [("machine1", LABEL1), ("machine5", LABEL5), ("machine2", LABEL2)],
                 {}, {"machine1": 18, "machine5": 100, "machine2": 36},
                 id="all machines matches the preferred scheduling requirements of pod but with different "
                    "priorities "),
    pytest.param(make_pod("pod"), [("machine1", LABEL1), ("machine2", LABEL2)],
                 {"addedAffinity": AFFINITY1}, {"machine1": 100, "machine2": 0}, id="added affinity"),
    pytest.param(make_pod("pod", affinity={"nodeAffinity": AFFINITY1}),
                 [("machine1", LABEL1), ("machine2", LABEL2), ("machine3", LABEL5)],
                 {"addedAffinity": {PREFERRED: [
                     {"weight": 3, "preference": term([expr("key", "In", "value")])}]}},
                 {"machine1": 40, "machine2": 60, "machine3": 100},
                 id="added affinity and pod has default affinity"),
]


@pytest.mark.parametrize(("pod_manifest", "nodes", "args", "expected"), SCORE_CASES)
def test_node_affinity_priority(pod_manifest: dict, nodes: list[tuple[str, dict]], args: dict,
                                expected: dict[str, int]) -> None:
    harness = Harness([("NodeAffinity", args)], [make_node(name, labels) for name, labels in nodes])
    assert harness.score(pod_manifest) == expected


# ---------------------------------------------------------------------------------------------------
# TestValidateNodeAffinityArgs
# ---------------------------------------------------------------------------------------------------

NAME_RULE = ("alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
             "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
QUALIFIED_NAME = (f"a qualified name must consist of {NAME_RULE} with an optional DNS subdomain prefix "
                  "and '/' (e.g. 'example.com/MyName')")
NAME_PART = f"name part must consist of {NAME_RULE}"
REQUIRED_PATH = ("addedAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
PREFERRED_PATH = ("addedAffinity", "preferredDuringSchedulingIgnoredDuringExecution")

VALIDATE_CASES = [
    pytest.param({}, [], id="empty"),
    pytest.param({"addedAffinity": {
        REQUIRED: {"nodeSelectorTerms": [
            term([expr("label-1", "In", "label-1-val")])]},
        PREFERRED: [
            {"weight": 1, "preference": term(fields=[expr("metadata.name", "In", "node-1")])}],
    }}, [], id="valid added affinity"),
    pytest.param({"addedAffinity": {
        REQUIRED: {"nodeSelectorTerms": [
            term([expr("invalid/label/key", "In", "label-1-val")])]},
        PREFERRED: [
            {"weight": 1, "preference": term(fields=[expr("metadata.name", "In", "node-1", "node-2")])}],
    }}, [
        (REQUIRED_PATH,
         'addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: Invalid value: '
         'v1.NodeSelector{NodeSelectorTerms:[]v1.NodeSelectorTerm{v1.NodeSelectorTerm{MatchExpressions:'
         '[]v1.NodeSelectorRequirement{v1.NodeSelectorRequirement{Key:"invalid/label/key", Operator:"In", '
         'Values:[]string{"label-1-val"}}}, MatchFields:[]v1.NodeSelectorRequirement(nil)}}}: '
         f'invalid label key "invalid/label/key": {QUALIFIED_NAME}'),
        (PREFERRED_PATH,
         'addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: Invalid value: '
         '[]v1.PreferredSchedulingTerm{v1.PreferredSchedulingTerm{Weight:1, Preference:v1.NodeSelectorTerm{'
         'MatchExpressions:[]v1.NodeSelectorRequirement(nil), MatchFields:[]v1.NodeSelectorRequirement{'
         'v1.NodeSelectorRequirement{Key:"metadata.name", Operator:"In", '
         'Values:[]string{"node-1", "node-2"}}}}}}: '
         'unexpected number of value (2) for node field selector operator "In"'),
    ], id="invalid added affinity"),
]


@pytest.mark.parametrize(("raw", "expected"), VALIDATE_CASES)
def test_validate_node_affinity_args(raw: dict, expected: list[tuple[tuple, str]]) -> None:
    errors = NodeAffinity.validate_args(NodeAffinity.parse_args(raw))
    assert [(e.path, e.message) for e in errors] == expected


# ---------------------------------------------------------------------------------------------------
# component-helpers nodeaffinity: TestNodeSelectorMatch, TestPreferredSchedulingTermsScore
# ---------------------------------------------------------------------------------------------------


def api_term(expressions: Sequence[tuple] = (), fields: Sequence[tuple] = ()) -> NodeSelectorTerm:
    return NodeSelectorTerm(
        match_expressions=tuple(LabelSelectorRequirement(k, op, tuple(v)) for k, op, v in expressions),
        match_fields=tuple(LabelSelectorRequirement(k, op, tuple(v)) for k, op, v in fields))


INVALID_TERMS = [
    api_term(fields=[("metadata.name", "In", ["host_1", "host_2"])]),
    api_term([("label_1", "In", ["label_1_val"])], [("metadata.name", "In", ["host_1"])]),
    api_term([("invalid key", "In", ["label_value"])]),
]
INVALID_TERMS_ERROR = (f'[unexpected number of value (2) for node field selector operator "In", '
                       f'invalid label key "invalid key": {NAME_PART}]')


def one_node(name: str, labels: Mapping[str, str] | None = None) -> Any:
    return build_cluster([make_node(name, labels)]).snapshot.all_nodes()


@pytest.mark.parametrize(("terms", "node", "want_error", "want_match"), [
    pytest.param(INVALID_TERMS, None, INVALID_TERMS_ERROR, False,
                 id="invalid field selector and label selector"),
    pytest.param([api_term([("label_1", "In", ["label_1_val"])], [("metadata.name", "In", ["host_1"])])],
                 ("host_1", None), None, False, id="node matches field selector, but not labels"),
    pytest.param([api_term([("label_1", "In", ["label_1_val"])], [("metadata.name", "In", ["host_1"])])],
                 ("host_1", {"label_1": "label_1_val"}), None, True,
                 id="node matches field selector and label selector"),
    pytest.param([api_term([("label_1", "In", ["label_1_val"])]), api_term(fields=[("metadata.name", "In",
                                                                                  ["host_1"])])],
                 ("host_1", None), None, True, id="second term matches"),
])
def test_node_selector_match(terms: list[NodeSelectorTerm], node: tuple | None, want_error: str | None,
                             want_match: bool) -> None:
    matcher = NodeSelectorMatcher(terms)
    errors = matcher.errors
    assert (aggregate_message(errors) if errors else None) == want_error
    if want_error is None:
        assert node is not None
        assert matcher.match(one_node(*node)).tolist() == [want_match]


@pytest.mark.parametrize(("terms", "node", "want_error", "want_score"), [
    pytest.param([PreferredSchedulingTerm(1, t) for t in INVALID_TERMS], None, INVALID_TERMS_ERROR, 0,
                 id="invalid field selector and label selector"),
    pytest.param([PreferredSchedulingTerm(0, api_term(fields=[("metadata.name", "In",
                                                                ["host_1", "host_2"])]))],
                 ("host_1", None), None, 0, id="invalid field selector but no weight, error not reported"),
    pytest.param([PreferredSchedulingTerm(5, api_term(fields=[("metadata.name", "In", ["host_1"])])),
                  PreferredSchedulingTerm(7, api_term([("unknown_label", "In", ["unknown_label_val"])])),
                  PreferredSchedulingTerm(11, api_term([("label_1", "In", ["label_1_val"])]))],
                 ("host_1", {"label_1": "label_1_val"}), None, 16, id="first and third term match"),
])
def test_preferred_scheduling_terms_score(terms: list[PreferredSchedulingTerm], node: tuple | None,
                                          want_error: str | None, want_score: int) -> None:
    preferred = PreferredTerms(terms)
    assert (aggregate_message(preferred.errors) if preferred.errors else None) == want_error
    if want_error is None:
        assert node is not None
        assert preferred.score(one_node(*node)).tolist() == [want_score]


# ---------------------------------------------------------------------------------------------------
# ruleset's checks
# ---------------------------------------------------------------------------------------------------


def test_filter_many_nodes_at_once() -> None:
    """Enforced affinity is checked first; nodes passing it may still fail the pod's own affinity."""
    nodes = [make_node("a", {"pool": "x", "zone": "z1"}), make_node("b", {"pool": "x", "zone": "z2"}),
             make_node("c", {"pool": "y", "zone": "z1"}), make_node("d", {"zone": "z1"})]
    args = added_required(term([expr("pool", "In", "x")]), term(fields=[expr("metadata.name", "In", "d")]))
    harness = Harness([("NodeAffinity", args)], nodes)
    got = harness.filter(pod(affinity=required(term([expr("zone", "NotIn", "z2")]))))
    assert got == {"a": OK, "b": POD_REASON, "c": ENFORCED_REASON, "d": OK}


def test_match_fields_not_in_and_other_keys() -> None:
    """NotIn excludes the named node; a field other than metadata.name reads as "" (In "" matches)."""
    nodes = [make_node("a"), make_node("b")]
    harness = Harness(["NodeAffinity"], nodes)
    not_in = pod(affinity=required(term(fields=[expr("metadata.name", "NotIn", "a")])))
    assert harness.filter(not_in) == {"a": POD_REASON, "b": OK}
    other_key_empty = pod(affinity=required(term(fields=[expr("metadata.namespace", "In", "")])))
    assert harness.filter(other_key_empty) == {"a": OK, "b": OK}
    other_key = pod(affinity=required(term(fields=[expr("spec.unschedulable", "In", "false")])))
    assert harness.filter(other_key) == {"a": POD_REASON, "b": POD_REASON}


def test_invalid_term_is_skipped_but_other_terms_still_match() -> None:
    harness = Harness(["NodeAffinity"], [make_node("a", {"foo": "bar"}), make_node("b")])
    manifest = pod(affinity=required(term([expr("foo", "Bogus", "bar")]), term([expr("foo", "In", "bar")])))
    assert harness.filter(manifest) == {"a": OK, "b": POD_REASON}


def test_zero_weight_and_empty_preferred_terms_are_skipped() -> None:
    harness = Harness(["NodeAffinity"], [make_node("a", {"foo": "bar"}), make_node("b")])
    manifest = make_pod("pod", affinity={"nodeAffinity": {PREFERRED: [
        {"weight": 0, "preference": term([expr("foo", "In", "bar")])},
        {"weight": 9, "preference": {}},
        {"weight": 0, "preference": term([expr("foo", "Bogus")])},
        {"weight": 3, "preference": term([expr("foo", "DoesNotExist")])},
    ]}})
    assert harness.score(manifest, raw=True) == {"a": 0, "b": 3}
    assert harness.score(manifest) == {"a": 0, "b": 100}


def test_unparsable_preferred_term_of_the_pod_is_an_error() -> None:
    harness = Harness(["NodeAffinity"], [make_node("a"), make_node("b")])
    manifest = make_pod("pod", affinity={"nodeAffinity": {PREFERRED: [
        {"weight": 1, "preference": term([expr("foo", "Bogus")])}]}})
    result = harness.run(manifest)
    assert result.status.code.label == "Error"
    assert result.status.message() == ('plugin "NodeAffinity" failed with: NodeAffinityError: '
                                       '"Bogus" is not a valid node selector operator')


def test_aggregate_message_deduplicates() -> None:
    assert aggregate_message(["a"]) == "a"
    assert aggregate_message(["a", "a"]) == "a"
    assert aggregate_message(["a", "b", "a"]) == "[a, b]"


def test_args_round_trip_and_schema() -> None:
    raw = {"addedAffinity": {
        REQUIRED: {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["x"]}]}]},
        PREFERRED: [
            {"weight": 2, "preference": {"matchFields": [{"key": "metadata.name", "operator": "In",
                                                          "values": ["a"]}]}}],
    }}
    args = NodeAffinity.parse_args(raw)
    assert NodeAffinity.args_to_dict(args) == raw
    assert NodeAffinity.args_to_dict(NodeAffinity.parse_args({})) == {}
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(NodeAffinity.args_schema)
    assert list(validator.iter_errors(raw)) == []
    assert [e.validator for e in validator.iter_errors({"addedAffinity": {"required": {}}})] == [
        "additionalProperties"]
