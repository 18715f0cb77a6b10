"""The selector model: ported from selector_test.go (TestSelectorMatches, TestEverything,
TestNilMapIsValid, TestSetIsEmpty, TestToString, TestRequirementSelectorMatching, TestAdd,
TestRequirementEqual, TestSafeSort) and labels_test.go (TestSetString, TestLabelHas)."""

import pytest

from ruleset.selector import Requirement, Selector, from_set, parse


def R(key, op, *values):
    return Requirement(key, op, values)


def sel(*requirements):
    return Selector((tuple(requirements),))


# --- TestSelectorMatches -------------------------------------------------------------------

LABELSET = {"foo": "bar", "baz": "blah"}
SELECTOR_MATCHES = [
    ("", {"x": "y"}, True),
    ("x=y", {"x": "y"}, True),
    ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
    ("notin=in", {"notin": "in"}, True),  # in and notin in exactMatch
    ("x", {"x": "z"}, True),
    ("!x", {"y": "z"}, True),
    ("x>1", {"x": "2"}, True),
    ("x<1", {"x": "0"}, True),
    ("x=z", {}, False),
    ("x=y", {"x": "z"}, False),
    ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
    ("x", {"y": "z"}, False),
    ("!x", {"x": "z"}, False),
    ("x>1", {"x": "0"}, False),
    ("x<1", {"x": "2"}, False),
    ("foo=bar", LABELSET, True),
    ("baz=blah", LABELSET, True),
    ("foo=bar,baz=blah", LABELSET, True),
    ("foo=blah", LABELSET, False),
    ("baz=bar", LABELSET, False),
    ("foo=bar,foobar=bar,baz=blah", LABELSET, False),
]


@pytest.mark.parametrize(("text", "labels", "expected"), SELECTOR_MATCHES)
def test_selector_matches(text, labels, expected):
    assert parse(text).matches(labels) is expected


# --- TestRequirementSelectorMatching -------------------------------------------------------

REQUIREMENT_SELECTOR_MATCHING = [
    ({"x": "foo", "y": "baz"}, [R("", "")], False),  # the zero Requirement matches nothing
    ({"x": "foo", "y": "baz"}, [R("x", "in", "foo"), R("y", "notin", "alpha")], True),
    ({"x": "foo", "y": "baz"}, [R("x", "in", "foo"), R("y", "in", "alpha")], False),
    ({"y": ""}, [R("x", "notin", ""), R("y", "exists")], True),
    ({"y": ""}, [R("x", "!"), R("y", "exists")], True),
    ({"y": ""}, [R("x", "notin", ""), R("y", "!")], False),
    ({"y": "baz"}, [R("x", "in", "")], False),
    ({"z": "2"}, [R("z", "gt", "1")], True),
    ({"z": "v2"}, [R("z", "gt", "1")], False),
]


@pytest.mark.parametrize(("labels", "requirements", "expected"), REQUIREMENT_SELECTOR_MATCHING)
def test_requirement_selector_matching(labels, requirements, expected):
    assert sel(*requirements).matches(labels) is expected


@pytest.mark.parametrize(
    ("requirement", "labels", "expected"),
    [
        (R("z", "gt", "1"), {}, False),  # a missing key never satisfies gt/lt
        (R("z", "lt", "1"), {"z": "-5"}, True),
        (R("z", "gt", "-1"), {"z": "0"}, True),
        (R("z", "gt", "1"), {"z": "9223372036854775808"}, False),  # out of int64: no match
        (R("z", "gt", "x"), {"z": "5"}, False),  # an unparseable bound (never validated) matches nothing
        (R("z", "gt", "1", "2"), {"z": "5"}, False),  # so does more than one value
        (R("z", "lt", "0204"), {"z": "0203"}, True),
        (R("z", "bogus", "1"), {"z": "1"}, False),
        (R("a", "==", "b"), {"a": "b"}, True),
        (R("a", "!=", "b"), {}, True),
        (R("a", "notin", "b", "c"), {"a": "c"}, False),
    ],
)
def test_requirement_matches(requirement, labels, expected):
    assert requirement.matches(labels) is expected


# --- TestEverything, TestNilMapIsValid, TestSetIsEmpty, labels.Nothing --------------------


def test_everything():
    assert Selector.EVERYTHING.matches({"x": "y"}) is True
    assert Selector.EVERYTHING.empty() is True
    assert Selector.EVERYTHING.is_nothing is False
    assert str(Selector.EVERYTHING) == ""
    assert Selector.EVERYTHING.requirements() == ((), True)


def test_nil_and_empty_sets_are_everything():
    assert from_set(None) == Selector.EVERYTHING and from_set(None).empty() is True
    assert from_set({}) == Selector.EVERYTHING and from_set({}).empty() is True
    assert parse("") == Selector.EVERYTHING


def test_nothing():
    nothing = Selector.NOTHING
    assert nothing.matches({}) is False
    assert nothing.matches({"x": "y"}) is False
    assert nothing.empty() is False
    assert nothing.is_nothing is True
    assert nothing.add(R("x", "exists")) == nothing
    assert nothing.requirements() == ((), False)
    assert str(nothing) == ""
    assert repr(nothing) == "Selector.NOTHING"


# --- TestToString --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requirements", "expected"),
    [
        (
            [R("x", "in", "abc", "def"), R("y", "notin", "jkl"), R("z", "exists")],
            "x in (abc,def),y notin (jkl),z",
        ),
        ([R("x", "notin", "abc", "def"), R("y", "!=", "jkl"), R("z", "!")], "x notin (abc,def),y!=jkl,!z"),
        (
            [R("x", "notin", "abc"), R("y", "in", "jkl", "mno"), R("z", "notin", "")],
            "x notin (abc),y in (jkl,mno),z notin ()",
        ),
        (
            [R("x", "=", "abc"), R("y", "==", "jkl"), R("z", "!=", "a"), R("z", "exists")],
            "x=abc,y==jkl,z!=a,z",
        ),
        ([R("x", "gt", "2"), R("y", "lt", "8"), R("z", "exists")], "x>2,y<8,z"),
    ],
)
def test_to_string(requirements, expected):
    assert str(sel(*requirements)) == expected
    assert str(sel(*reversed(requirements))) == expected  # kept sorted, whatever the input order


# --- TestAdd -------------------------------------------------------------------------------


def test_add():
    first = Selector.EVERYTHING.add(R("key", "in", "value"))
    assert first == sel(R("key", "in", "value"))
    second = first.add(R("key2", "=", "value2"))
    assert second == sel(R("key", "in", "value"), R("key2", "=", "value2"))
    assert first == sel(R("key", "in", "value"))  # Add returns a new selector
    assert Selector.EVERYTHING.add() == Selector.EVERYTHING


def test_add_sorts_by_key_then_operator_then_values():
    added = sel(R("b", "exists")).add(R("a", "in", "z"), R("a", "in", "y"), R("a", "!"))
    assert added.groups == ((R("a", "!"), R("a", "in", "y"), R("a", "in", "z"), R("b", "exists")),)


# --- TestRequirementEqual / TestSafeSort ---------------------------------------------------


@pytest.mark.parametrize(
    ("x", "y", "equal"),
    [
        (R("key", "=", "foo", "bar"), R("key", "=", "foo", "bar"), True),
        (R("key1", "=", "foo", "bar"), R("key2", "=", "foo", "bar"), False),
        (R("key", "=", "foo", "bar"), R("key", "in", "foo", "bar"), False),
        (R("key", "=", "foo", "bar"), R("key", "=", "foobar"), False),
    ],
)
def test_requirement_equal(x, y, equal):
    assert (x == y) is equal


@pytest.mark.parametrize(
    ("values", "stored"),
    [
        ((), ()),
        (("bar", "foo"), ("bar", "foo")),
        (("foo", "bar"), ("bar", "foo")),
        # safeSort keeps duplicates in String(); a Requirement stores a set, as Parse does.
        (("foo", "bar", "foo", "bar"), ("bar", "foo")),
    ],
)
def test_values_are_sorted_and_deduplicated(values, stored):
    assert Requirement("k", "in", values).values == stored


def test_requirement_values_must_not_be_a_string():
    with pytest.raises(TypeError):
        Requirement("k", "in", "abc")


# --- labels_test.go: TestSetString, TestLabelHas -------------------------------------------


@pytest.mark.parametrize(
    ("labels", "expected"),
    [({"x": "y"}, "x=y"), ({"foo": "bar"}, "foo=bar"), ({"foo": "bar", "baz": "qup"}, "baz=qup,foo=bar")],
)
def test_set_string(labels, expected):
    assert str(from_set(labels)) == expected


@pytest.mark.parametrize(
    ("labels", "key", "has"), [({"x": "y"}, "x", True), ({"x": ""}, "x", True), ({"x": "y"}, "foo", False)]
)
def test_label_has(labels, key, has):
    assert R(key, "exists").matches(labels) is has


# --- the || extension ----------------------------------------------------------------------


def test_or_matches_any_group():
    selector = parse("a=1,b=2 || c")
    assert [selector.matches(labels) for labels in ({"a": "1", "b": "2"}, {"a": "1"}, {"c": ""}, {})] == [
        True, False, True, False,
    ]  # fmt: skip


def test_an_empty_group_makes_the_or_everything():
    assert Selector(((R("a", "exists"),), ())) == Selector.EVERYTHING
    assert Selector(((), ())) == Selector.EVERYTHING


def test_or_requirements_and_add():
    selector = parse("a || b")
    with pytest.raises(ValueError, match="OR of 2 groups"):
        selector.requirements()
    assert selector.add(R("c", "!")) == parse("a,!c || b,!c")
    assert selector.empty() is False
    assert sel(R("a", "exists")).requirements() == ((R("a", "exists"),), True)


def test_str_and_repr():
    selector = parse("b in (y,x) || !a")
    assert str(selector) == "b in (x,y) || !a"
    assert repr(selector) == "Selector('b in (x,y) || !a')"
    assert repr(Selector.EVERYTHING) == "Selector('')"


def test_selectors_are_hashable_values():
    assert len({parse("a,b"), parse("b,a"), parse("a"), parse(" a ")}) == 2
