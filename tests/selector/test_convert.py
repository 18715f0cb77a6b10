"""Conversions: ported from meta/v1 helpers_test.go (TestLabelSelectorAsSelector), selector_test.go
(TestSetMatches, TestValidatedSelectorFromSet) and the nodeaffinity tests
(TestNodeSelectorRequirementsAsSelector, TestNodeSelectorMatch,
TestPodMatchesNodeSelectorAndAffinityTerms)."""

import pytest

from ruleset.api.meta import LabelSelector, LabelSelectorRequirement
from ruleset.api.pod import NodeSelectorTerm
from ruleset.selector import (
    Requirement,
    Selector,
    SelectorError,
    from_label_selector,
    from_node_selector_requirements,
    from_node_selector_term,
    from_node_selector_terms,
    from_set,
    is_empty_node_selector_term,
    parse,
)

NAME_REGEX = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def expr(key, operator, *values):
    return LabelSelectorRequirement(key, operator, values)


def term(*match_expressions, fields=()):
    return NodeSelectorTerm(match_expressions=tuple(match_expressions), match_fields=tuple(fields))


NAME_FIELD = expr("metadata.name", "In", "node_1")

# --- TestLabelSelectorAsSelector -----------------------------------------------------------

MATCH_LABELS = (("foo", "bar"),)
MATCH_EXPRESSIONS = (expr("baz", "In", "qux", "norf"),)


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (None, Selector.NOTHING),
        (LabelSelector(), Selector.EVERYTHING),
        (LabelSelector(match_labels=MATCH_LABELS), parse("foo=bar")),
        (LabelSelector(match_expressions=MATCH_EXPRESSIONS), parse("baz in (norf,qux)")),
        (
            LabelSelector(match_labels=MATCH_LABELS, match_expressions=MATCH_EXPRESSIONS),
            parse("baz in (norf,qux),foo=bar"),
        ),
    ],
)
def test_label_selector_as_selector(selector, expected):
    converted = from_label_selector(selector)
    assert converted == expected
    assert str(converted) == str(expected)


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        (expr("baz", "Exists", "qux", "norf"), "values set must be empty for exists and does not exist"),
        (expr("baz", "In"), "for 'in', 'notin' operators, values set can't be empty"),
        (expr("baz", "Gt", "1"), '"Gt" is not a valid pod selector operator'),
        (expr("baz", "in", "x"), '"in" is not a valid pod selector operator'),
        (expr("invalid key", "Exists"), f'invalid label key "invalid key": {NAME_REGEX}'),
        (
            expr("k", "NotIn", "ok", "not ok"),
            'invalid label value: "not ok": at key: "k": a valid label must be an '
            "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
            "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
            "used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ],
)
def test_label_selector_as_selector_errors(expression, reason):
    with pytest.raises(SelectorError) as info:
        from_label_selector(LabelSelector(match_expressions=(expression,)))
    assert (info.value.reason, info.value.column) == (reason, None)


def test_label_selector_match_labels_are_validated_first():
    selector = LabelSelector(match_labels=(("-k", "v"),), match_expressions=(expr("x", "Bogus"),))
    with pytest.raises(SelectorError, match=r'^invalid label key "-k"'):
        from_label_selector(selector)


def test_label_selector_operators_and_matching():
    selector = from_label_selector(
        LabelSelector(
            match_labels=(("app", "web"),),
            match_expressions=(
                expr("tier", "NotIn", "db"),
                expr("canary", "DoesNotExist"),
                expr("zone", "Exists"),
            ),
        )
    )
    assert str(selector) == "app=web,!canary,tier notin (db),zone"
    assert selector.matches({"app": "web", "zone": "a"}) is True
    assert selector.matches({"app": "web", "zone": "a", "tier": "db"}) is False
    assert selector.matches({"app": "web", "zone": "a", "canary": "1"}) is False


# --- TestSetMatches / TestValidatedSelectorFromSet -----------------------------------------


@pytest.mark.parametrize("labels", [{}, {"foo": "bar"}, {"baz": "blah"}, {"foo": "bar", "baz": "blah"}])
def test_set_matches(labels):
    assert from_set(labels).matches({"foo": "bar", "baz": "blah"}) is True


def test_selector_from_set_does_not_validate():
    assert from_set({"-bad": "=blah"}) == Selector(((Requirement("-bad", "=", ("=blah",)),),))


def test_validated_selector_from_set():
    assert from_set({"key": "val"}, validate=True) == parse("key=val")
    value = "axahm2EJ8Phiephe2eixohbee9eGeiyees1thuozi1xoh0GiuH3diewi8iem7Nui"
    with pytest.raises(SelectorError) as info:
        from_set({"Key": value}, validate=True)
    assert (
        info.value.reason
        == f'invalid label value: "{value}": at key: "Key": must be no more than 63 characters'
    )


# --- nodeaffinity: TestNodeSelectorRequirementsAsSelector ----------------------------------


@pytest.mark.parametrize(
    ("requirements", "expected"),
    [
        ((), Selector.NOTHING),
        ([], Selector.NOTHING),
        ([expr("foo", "In", "bar", "baz")], parse("foo in (baz,bar)")),
        ([expr("foo", "Gt", "1")], parse("foo>1")),
        ([expr("bar", "Lt", "7")], parse("bar<7")),
        (
            [expr("a", "NotIn", "x"), expr("b", "DoesNotExist"), expr("c", "Exists")],
            parse("a notin (x),!b,c"),
        ),
    ],
)
def test_node_selector_requirements_as_selector(requirements, expected):
    assert from_node_selector_requirements(requirements) == expected


@pytest.mark.parametrize(
    ("requirement", "reason"),
    [
        (expr("foo", "Exists", "bar", "baz"), "values set must be empty for exists and does not exist"),
        (expr("foo", "Gt"), "for 'Gt', 'Lt' operators, exactly one value is required"),
        (expr("foo", "Lt", "1", "2"), "for 'Gt', 'Lt' operators, exactly one value is required"),
        (expr("foo", "Gt", "1.5"), "for 'Gt', 'Lt' operators, the value must be an integer"),
        (expr("foo", "Equals", "x"), '"Equals" is not a valid node selector operator'),
        (expr("invalid key", "In", "label_value"), f'invalid label key "invalid key": {NAME_REGEX}'),
    ],
)
def test_node_selector_requirement_errors(requirement, reason):
    with pytest.raises(SelectorError) as info:
        from_node_selector_requirements([requirement])
    assert info.value.reason == reason


# --- terms ----------------------------------------------------------------------------------


def test_empty_terms_are_skipped():
    assert is_empty_node_selector_term(term()) is True
    assert is_empty_node_selector_term(term(fields=[NAME_FIELD])) is False
    assert is_empty_node_selector_term(term(expr("a", "Exists"))) is False
    assert from_node_selector_terms([]) == Selector.NOTHING
    assert from_node_selector_terms([term(), term()]) == Selector.NOTHING


def test_a_term_without_expressions_puts_no_condition_on_labels():
    assert from_node_selector_term(term(fields=[NAME_FIELD])) == Selector.EVERYTHING
    assert from_node_selector_term(term(expr("a", "Exists"), fields=[NAME_FIELD])) == parse("a")


def test_invalid_terms_raise_or_are_skipped():
    terms = [term(expr("label_1", "In", "label_1_val")), term(expr("invalid key", "In", "label_value"))]
    with pytest.raises(SelectorError) as info:
        from_node_selector_terms(terms)
    assert info.value.reason == f'invalid label key "invalid key": {NAME_REGEX}'
    assert from_node_selector_terms(terms, skip_invalid=True) == parse("label_1 in (label_1_val)")


# TestPodMatchesNodeSelectorAndAffinityTerms, the cases decided by labels alone.
POD_AFFINITY_CASES = [
    ("In operator that matches", [term(expr("foo", "In", "bar", "value2"))], {"foo": "bar"}, True),
    (
        "Gt operator that matches",
        [term(expr("kernel-version", "Gt", "0204"))],
        {"kernel-version": "0206"},
        True,
    ),
    (
        "NotIn operator that matches",
        [term(expr("mem-type", "NotIn", "DDR", "DDR2"))],
        {"mem-type": "DDR3"},
        True,
    ),
    ("Exists operator that matches", [term(expr("GPU", "Exists"))], {"GPU": "NVIDIA-GRID-K1"}, True),
    ("affinity that doesn't match", [term(expr("foo", "In", "value1", "value2"))], {"foo": "bar"}, False),
    ("nil NodeSelectorTerms", [], {"foo": "bar"}, False),
    ("empty MatchExpressions is not a valid value", [term()], {"foo": "bar"}, False),
    (
        "multiple matchExpressions ANDed that match",
        [term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))],
        {"GPU": "NVIDIA-GRID-K1"},
        True,
    ),
    (
        "multiple matchExpressions ANDed that don't match",
        [term(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER"))],
        {"GPU": "NVIDIA-GRID-K1"},
        False,
    ),
    (
        "multiple NodeSelectorTerms ORed",
        [term(expr("foo", "In", "bar", "value2")), term(expr("diffkey", "In", "wrong", "value2"))],
        {"foo": "bar"},
        True,
    ),
    (
        "invalid value in Affinity term",
        [term(expr("foo", "NotIn", "invalid value: ___@#$%^"))],
        {"foo": "bar"},
        False,
    ),
]


@pytest.mark.parametrize(
    ("terms", "labels", "expected"),
    [case[1:] for case in POD_AFFINITY_CASES],
    ids=[c[0] for c in POD_AFFINITY_CASES],
)
def test_pod_matches_node_affinity_terms(terms, labels, expected):
    assert from_node_selector_terms(terms, skip_invalid=True).matches(labels) is expected


def test_terms_become_or_groups():
    selector = from_node_selector_terms([term(expr("a", "In", "1")), term(), term(expr("b", "Exists"))])
    assert selector == parse("a in (1) || b")
