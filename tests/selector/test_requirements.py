"""``new_requirement``: ported from selector_test.go TestRequirementConstructor, with v1.20 messages."""

import pytest

from ruleset.selector import Requirement, SelectorError, new_requirement

LONG = "a" * 254
VALUE_REGEX = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
    "regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

CASES = [
    ("x1", "in", [], "for 'in', 'notin' operators, values set can't be empty"),
    ("x2", "notin", [], "for 'in', 'notin' operators, values set can't be empty"),
    ("x3", "in", ["foo"], None),
    ("x4", "notin", ["foo"], None),
    ("x5", "=", ["bar", "foo"], "exact-match compatibility requires one single value"),
    ("x6", "exists", [], None),
    ("x7", "!", [], None),
    ("x8", "exists", ["foo"], "values set must be empty for exists and does not exist"),
    ("x9", "in", ["bar"], None),
    ("x10", "in", ["bar"], None),
    ("x11", "gt", ["1"], None),
    ("x12", "lt", ["6"], None),
    ("x13", "gt", [], "for 'Gt', 'Lt' operators, exactly one value is required"),
    ("x14", "gt", ["bar"], "for 'Gt', 'Lt' operators, the value must be an integer"),
    ("x15", "lt", ["bar"], "for 'Gt', 'Lt' operators, the value must be an integer"),
    (LONG, "exists", [], f'invalid label key "{LONG}": name part must be no more than 63 characters'),
    ("x16", "=", [LONG], f'invalid label value: "{LONG}": at key: "x16": must be no more than 63 characters'),
    ("x17", "=", ["a b"], f'invalid label value: "a b": at key: "x17": {VALUE_REGEX}'),
    ("x18", "unsupportedOp", [], "operator 'unsupportedOp' is not recognized"),
]


@pytest.mark.parametrize(("key", "op", "values", "error"), CASES)
def test_requirement_constructor(key, op, values, error):
    if error is None:
        assert new_requirement(key, op, values) == Requirement(key, op, tuple(values))
    else:
        with pytest.raises(SelectorError) as info:
            new_requirement(key, op, values)
        assert (info.value.reason, info.value.column, info.value.text) == (error, None, None)


def test_counts_are_checked_before_deduplication():
    with pytest.raises(SelectorError, match="exactly one value is required"):
        new_requirement("x", "gt", ["1", "1"])
    with pytest.raises(SelectorError, match="exact-match compatibility requires one single value"):
        new_requirement("x", "=", ["a", "a"])
    assert new_requirement("x", "in", ["b", "a", "b"]).values == ("a", "b")


def test_key_is_checked_first_then_operator_then_values_in_order():
    with pytest.raises(SelectorError, match=r'^invalid label key "-k"'):
        new_requirement("-k", "bogus", ["-v"])
    with pytest.raises(SelectorError, match=r"^operator 'bogus' is not recognized$"):
        new_requirement("k", "bogus", ["-v"])
    with pytest.raises(SelectorError, match=r'^invalid label value: "-b": at key: "k"'):
        new_requirement("k", "in", ["ok", "-b", "-a"])


def test_values_must_not_be_a_string():
    with pytest.raises(TypeError):
        new_requirement("k", "in", "abc")
