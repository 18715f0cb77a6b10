"""Quantities, ported from apimachinery ``pkg/api/resource/quantity_test.go``.

Ported: TestQuantityParse (all 96 valid rows, each also negated and with an explicit "+",
and the 11 invalid strings), TestQuantityParseZero, TestParseQuantityString's inputs, the
rounding rules of Value/MilliValue (TestQuantityRoundUp's scale 0 and -3 rows), and
TestQuantityParseEmit's values. Formatting (String()) is not ported: ruleset never prints
quantities back.
"""

from fractions import Fraction

import pytest

from ruleset.quantity import (
    ERR_FORMAT_WRONG,
    ERR_SUFFIX,
    QuantityError,
    coerce_quantity,
    milli_value_of,
    parse_quantity,
    value_of,
)

MAX_INT64 = 2**63 - 1


def dec(unscaled: int, exponent: int) -> Fraction:
    return Fraction(unscaled) * Fraction(10) ** exponent


VALID = [
    ("0", dec(0, 0)), ("0n", dec(0, 0)), ("0u", dec(0, 0)), ("0m", dec(0, 0)), ("0Ki", dec(0, 0)),
    ("0k", dec(0, 0)), ("0Mi", dec(0, 0)), ("0M", dec(0, 0)), ("0Gi", dec(0, 0)), ("0G", dec(0, 0)),
    ("0Ti", dec(0, 0)), ("0T", dec(0, 0)),
    ("1", dec(1, 0)),
    ("1Ki", dec(1024, 0)), ("8Ki", dec(8 * 1024, 0)), ("7Mi", dec(7 * 1024**2, 0)), ("6Gi", dec(6 * 1024**3, 0)),
    ("5Ti", dec(5 * 1024**4, 0)), ("4Pi", dec(4 * 1024**5, 0)), ("3Ei", dec(3 * 1024**6, 0)),
    ("10Ti", dec(10 * 1024**4, 0)), ("100Ti", dec(100 * 1024**4, 0)),
    ("5n", dec(5, -9)), ("4u", dec(4, -6)), ("3m", dec(3, -3)), ("9", dec(9, 0)), ("8k", dec(8, 3)),
    ("50k", dec(5, 4)), ("7M", dec(7, 6)), ("6G", dec(6, 9)), ("5T", dec(5, 12)), ("40T", dec(4, 13)),
    ("300T", dec(3, 14)), ("2P", dec(2, 15)), ("1E", dec(1, 18)),
    ("1E-3", dec(1, -3)), ("1e3", dec(1, 3)), ("1E6", dec(1, 6)), ("1e9", dec(1, 9)), ("1E12", dec(1, 12)),
    ("1e15", dec(1, 15)), ("1E18", dec(1, 18)),
    ("1e14", dec(1, 14)), ("1e13", dec(1, 13)), ("100.035k", dec(100035, 0)),
    ("0.001", dec(1, -3)), ("0.0005k", dec(5, -1)), ("0.005", dec(5, -3)), ("0.05", dec(5, -2)),
    ("0.5", dec(5, -1)), ("0.00050k", dec(5, -1)), ("0.00500", dec(5, -3)), ("0.05000", dec(5, -2)),
    ("0.50000", dec(5, -1)), ("0.5e0", dec(5, -1)), ("0.5e-1", dec(5, -2)), ("0.5e-2", dec(5, -3)),
    ("10.035M", dec(10035, 3)),
    ("1.2e3", dec(12, 2)), ("1.3E+6", dec(13, 5)), ("1.40e9", dec(14, 8)), ("1.53E12", dec(153, 10)),
    ("1.6e15", dec(16, 14)), ("1.7E18", dec(17, 17)),
    ("9.01", dec(901, -2)), ("8.1k", dec(81, 2)), ("7.123456M", dec(7123456, 0)),
    ("6.987654321G", dec(6987654321, 0)), ("5.444T", dec(5444, 9)), ("40.1T", dec(401, 11)),
    ("300.2T", dec(3002, 11)), ("2.5P", dec(25, 14)), ("1.01E", dec(101, 16)),
    # Things that saturate/round
    ("3.001n", dec(4, -9)), ("1.1E-9", dec(2, -9)), ("0.0000000001", dec(1, -9)), ("0.0000000005", dec(1, -9)),
    ("0.00000000050", dec(1, -9)), ("0.5e-9", dec(1, -9)), ("0.9n", dec(1, -9)), ("0.00000012345", dec(124, -9)),
    ("0.00000012354", dec(124, -9)), ("9Ei", Fraction(MAX_INT64)), ("9223372036854775807Ki", Fraction(MAX_INT64)),
    ("12E", dec(12, 18)),
    # Fractional binary
    ("100.035Ki", dec(10243584, -2)), ("0.5Mi", dec(512 * 1024, 0)), ("0.05Gi", dec(536870912, -1)),
    ("0.025Ti", dec(274877906944, -1)),
    # Things written by trolls
    ("0.000000000001Ki", dec(2, -9)), (".001", dec(1, -3)), (".0001k", dec(100, -3)), ("1.", dec(1, 0)),
    ("1.G", dec(1, 9)),
]


@pytest.mark.parametrize(("text", "expected"), VALID, ids=[t for t, _ in VALID])
def test_parse(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(("text", "expected"), VALID, ids=[t for t, _ in VALID])
def test_parse_negated(text, expected):
    assert parse_quantity("-" + text) == -expected


@pytest.mark.parametrize(("text", "expected"), VALID, ids=[t for t, _ in VALID])
def test_parse_explicit_plus(text, expected):
    assert parse_quantity("+" + text) == expected


INVALID = [
    ("1.1.M", ERR_FORMAT_WRONG), ("1+1.0M", ERR_FORMAT_WRONG), ("0.1mi", ERR_SUFFIX), ("0.1am", ERR_FORMAT_WRONG),
    ("aoeu", ERR_FORMAT_WRONG), (".5i", ERR_SUFFIX), ("1i", ERR_SUFFIX), ("-3.01i", ERR_SUFFIX),
    ("-3.01e-", ERR_SUFFIX), (" 1", ERR_FORMAT_WRONG), ("1 ", ERR_FORMAT_WRONG), ("", ERR_FORMAT_WRONG),
]


@pytest.mark.parametrize(("text", "message"), INVALID, ids=[repr(t) for t, _ in INVALID])
def test_invalid(text, message):
    with pytest.raises(QuantityError) as info:
        parse_quantity(text)
    assert str(info.value) == message


def test_format_wrong_message_is_kubernetes_text():
    assert ERR_FORMAT_WRONG == ("quantities must match the regular expression "
                                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")


@pytest.mark.parametrize(("text", "expected"), [
    ("0.025Ti", dec(274877906944, -1)), ("1.025Ti", Fraction(1025, 1000) * 1024**4), ("-1.025Ti", -Fraction(1025, 1000) * 1024**4),
    (".", dec(0, 0)), ("-.", dec(0, 0)), ("1E-3", dec(1, -3)),
])
def test_parse_quantity_string_inputs(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(("text", "value", "milli"), [
    ("9.01", 10, 9010), ("-9.01", -10, -9010), ("100m", 1, 100), ("1.5", 2, 1500), ("250m", 1, 250),
    ("2Gi", 2147483648, 2147483648000), ("1e3", 1000, 1000000), ("500M", 500000000, 500000000000),
    (".001Ki", 2, 1024), (".000001Ki", 1, 2), ("0.9n", 1, 1), ("0", 0, 0),
])
def test_value_and_milli_value_round_up_away_from_zero(text, value, milli):
    q = parse_quantity(text)
    assert value_of(q) == value
    assert milli_value_of(q) == milli


@pytest.mark.parametrize(("raw", "expected"), [
    (4, Fraction(4)), (0.5, Fraction(1, 2)), (1e-05, Fraction(1, 100000)), ("100m", Fraction(1, 10)),
    (" 1 ", Fraction(1)), (2.25, Fraction(9, 4)),
])
def test_coerce_bare_yaml_numbers(raw, expected):
    assert coerce_quantity(raw) == expected


@pytest.mark.parametrize("raw", [True, None, [1], {"a": 1}, float("inf")])
def test_coerce_rejects_non_quantities(raw):
    with pytest.raises(QuantityError):
        coerce_quantity(raw)
