"""Quantities, ported from apimachinery ``pkg/api/resource/quantity_test.go``.

Source: kubernetes/apimachinery at tag ``v0.20.0`` (Kubernetes 1.20, commit 2456ebda),
checked against the same file today (commit eed236ce): ``ParseQuantity``,
``parseQuantityString``, the suffixer and ``ScaledValue`` have not changed in between.

Ported, case by case:

* TestQuantityParse: all 96 valid rows (94 distinct), each also negated and with an
  explicit "+", and the 11 invalid strings (plus the empty one);
* TestQuantityParseZero (1), TestQuantityParseNonNumericPanic (1);
* TestParseQuantityString: its 6 inputs, as values;
* TestQuantityRoundUp: all 12 rows (scales -3 to 2, both signs), with their ``ok``;
* TestScaledValue: all 17 rows;
* TestQuantityCmp: the 4 parsed pairs (the ``inf.Dec`` nil pairs test Go's representation);
* TestQuantityCmpInt64AndDec: all 22 rows, both ways round;
* TestJSONWhitespace: all 8 inputs, through :func:`coerce_quantity`;
* TestQuantityParseEmit's inputs, as values (the existing Value/MilliValue table).

Left out: everything about formatting (TestQuantityString, TestQuantityParseEmit's
outputs, TestQuantityCanocicalizeZero, TestDec/TestBigDec: ruleset never prints a quantity
back); Go's representation (DeepCopy, Add/Sub/Neg/Mul on ``int64Amount``/``inf.Dec``,
AsApproximateFloat64/AsFloat64Slow, the JSON/protobuf/CBOR round trips and their fuzzer,
NewSet/NewScaledSet/MilliNewSet): ruleset keeps exact values and has none of these.

The bounds (huge and tiny exponents, long digit strings, int64 overflow) are ruleset's own
cases, below the ported ones; each answers at once.
"""

import json
import time
from fractions import Fraction

import pytest

from ruleset.quantity import (
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    MAX_INT64,
    MIN_INT64,
    QuantityError,
    QuantityRangeError,
    coerce_quantity,
    describe,
    fits_int64,
    milli_value_of,
    parse_quantity,
    scaled_value_of,
    value_of,
    wrap_int64,
)

MOST_POSITIVE = MAX_INT64
MOST_NEGATIVE = MIN_INT64


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


# --- more of quantity_test.go -------------------------------------------------------------


def test_parse_zero():
    """TestQuantityParseZero."""
    assert parse_quantity("0") == 0


def test_non_numeric_is_refused():
    """TestQuantityParseNonNumericPanic: MustParse("Non-Numeric") panics."""
    with pytest.raises(QuantityError):
        parse_quantity("Non-Numeric")


@pytest.mark.parametrize(("text", "scale", "expected", "ok"), [
    ("9.01", -3, dec(901, -2), True), ("9.01", -2, dec(901, -2), True), ("9.01", -1, dec(91, -1), False),
    ("9.01", 0, dec(10, 0), False), ("9.01", 1, dec(10, 0), False), ("9.01", 2, dec(100, 0), False),
    ("-9.01", -3, dec(-901, -2), True), ("-9.01", -2, dec(-901, -2), True), ("-9.01", -1, dec(-91, -1), False),
    ("-9.01", 0, dec(-10, 0), False), ("-9.01", 1, dec(-10, 0), False), ("-9.01", 2, dec(-100, 0), False),
])
def test_round_up(text, scale, expected, ok):
    """TestQuantityRoundUp: RoundUp(scale) rounds away from zero; ok is whether it was exact."""
    q = parse_quantity(text)
    rounded = scaled_value_of(q, scale) * Fraction(10) ** scale
    assert (rounded, rounded == q) == (expected, ok)


NANO, MICRO, MILLI = -9, -6, -3


@pytest.mark.parametrize(("from_scale", "to_scale", "expected"), [
    (NANO, NANO, 1), (NANO, MICRO, 1), (NANO, MILLI, 1), (NANO, 0, 1),
    (MICRO, NANO, 1000), (MICRO, MICRO, 1), (MICRO, MILLI, 1), (MICRO, 0, 1),
    (MILLI, NANO, 1000 * 1000), (MILLI, MICRO, 1000), (MILLI, MILLI, 1), (MILLI, 0, 1),
    (0, NANO, 1000 * 1000 * 1000), (0, MICRO, 1000 * 1000), (0, MILLI, 1000), (0, 0, 1),
    (2, -2, 100 * 100),
])
def test_scaled_value(from_scale, to_scale, expected):
    """TestScaledValue: NewScaledQuantity(1, from).ScaledValue(to)."""
    assert scaled_value_of(dec(1, from_scale), to_scale) == expected


@pytest.mark.parametrize(("x", "y", "expected"), [
    ("0", "0", 0), ("100m", "50m", 1), ("50m", "100m", -1), ("10000T", "100Gi", 1),
])
def test_cmp(x, y, expected):
    """TestQuantityCmp (the parsed pairs)."""
    a, b = parse_quantity(x), parse_quantity(y)
    assert (a > b) - (a < b) == expected


E18 = 1 * 1000000 * 1000000 * 1000000


@pytest.mark.parametrize(("a", "b", "expected"), [
    (dec(901, -2), dec(901, -2), 0), (dec(90, -1), dec(901, -2), -1), (dec(901, -2), dec(900, -2), 1),
    (dec(0, 0), dec(0, 0), 0), (dec(0, 1), dec(0, -1), 0), (dec(0, -1), dec(0, 1), 0),
    (dec(800, -3), dec(1, 0), -1), (dec(800, -3), dec(79, -2), 1),
    (dec(MOST_POSITIVE, 0), dec(1, -1), 1), (dec(MOST_POSITIVE, 1), dec(1, 0), 1),
    (dec(MOST_POSITIVE, 1), dec(1, 1), 1), (dec(MOST_POSITIVE, 1), dec(0, 1), 1),
    (dec(MOST_POSITIVE, -16), dec(1, 3), -1),
    (dec(MOST_NEGATIVE, 0), dec(0, 0), -1), (dec(MOST_NEGATIVE, -18), dec(-1, 0), -1),
    (dec(MOST_NEGATIVE, -19), dec(-1, 0), 1),
    (dec(E18, -17), dec(1, 1), 0), (dec(E18, -17), dec(-10, 0), 1), (dec(-E18, -17), dec(-10, 0), 0),
    (dec(E18, -17), dec(1, 0), 1),
    (dec(E18 + 1, -17), dec(1, 1), 1), (dec(E18 - 1, -17), dec(1, 1), -1),
])
def test_cmp_int64_and_dec(a, b, expected):
    """TestQuantityCmpInt64AndDec (intQuantity(v, s) is v * 10**s), both ways round."""
    assert ((a > b) - (a < b), (b > a) - (b < a)) == (expected, -expected)


@pytest.mark.parametrize(("json_text", "expected"), [
    ('" 1"', 1), ('"1 "', 1), ("1", 1), (" 1", 1), ("1 ", 1), ("10", 10), ("-1", -1), (" -1", -1),
])
def test_json_whitespace(json_text, expected):
    """TestJSONWhitespace: a quoted or bare JSON number, whitespace around it ignored."""
    assert coerce_quantity(json.loads(json_text)) == expected


# --- ruleset's bounds: every case answers at once -----------------------------------------------


def quickly(function, *args):
    start = time.perf_counter()
    try:
        return function(*args)
    finally:
        assert time.perf_counter() - start < 1.0


HUGE = ["1e999999999", "-1e999999999", "1E2147483647", "1e65", "1" * 65, "9" * 100_000, "1" * 5000 + "e-4935"]


@pytest.mark.parametrize("text", HUGE, ids=[t[:20] for t in HUGE])
def test_huge_values_are_refused_without_being_computed(text):
    with pytest.raises(QuantityRangeError):
        quickly(parse_quantity, text)


@pytest.mark.parametrize(("text", "expected"), [
    ("1e-999999999", dec(1, -9)), ("-1e-999999999", dec(-1, -9)), ("0e999999999", 0), ("0e-999999999", 0),
    ("0." + "0" * 100_000 + "1", dec(1, -9)), ("0." + "0" * 8 + "1" + "0" * 9000, dec(1, -9)),
    ("0." + "0" * 8 + "1" + "9" * 9000, dec(2, -9)), ("1." + "0" * 9000 + "1", 1 + dec(1, -9)),
    ("0" * 10_000 + "5", 5), ("1" * 64, Fraction(int("1" * 64))), ("1e63", dec(1, 63)),
    # 64 integer digits, then ones below the nano: rounded up there.
    ("1" * 5000 + "e-4936", Fraction(int("1" * 73) + 1, 10**9)),
])
def test_long_digit_strings_and_far_exponents(text, expected):
    assert quickly(parse_quantity, text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # Binary values are capped at 2^63-1 (ParseQuantity's slow path), however many digits.
    ("9" * 10_000 + "Ki", MAX_INT64), ("-" + "9" * 10_000 + "Ei", -MAX_INT64),
    ("8Ei", MAX_INT64), ("7.99999999999Ei", Fraction(9223372036843246592953931531, 10**9)),
    # 1.999…Ki (5,000 nines) is 2048 less 1024e-5000: rounded up to the nano, 2048.
    ("1." + "9" * 5000 + "Ki", 2048),
])
def test_binary_values(text, expected):
    assert quickly(parse_quantity, text) == expected


def test_binary_fraction_rounds_up_exactly():
    """1e-21 Ei is 1.152921504606846976e-3 exactly: 1152921.504606846976 nanos, rounded up."""
    assert parse_quantity("0." + "0" * 20 + "1Ei") == Fraction(1152922, 10**9)


@pytest.mark.parametrize(("text", "expected"), [
    # interpret() parses the exponent as an int64 and keeps int32(parsed): it wraps around.
    ("1e4294967296", 1), ("1e4294967299", 1000), ("1e-4294967296", 1), ("1e00000000000000000000003", 1000),
])
def test_exponent_wraps_to_int32_as_kubernetes_does(text, expected):
    assert quickly(parse_quantity, text) == expected


@pytest.mark.parametrize(("text", "message"), [
    ("1e9223372036854775808", ERR_SUFFIX),  # beyond int64: strconv.ParseInt fails
    ("1e", ERR_SUFFIX), ("1e+", ERR_SUFFIX), ("1ee5", ERR_SUFFIX),
    # A numeric part without a digit is an inf.Dec error, on the slow path only.
    (".e-10", ERR_NUMERIC), ("-.e-10", ERR_NUMERIC), ("+.E-100", ERR_NUMERIC), (".0000000000000000000000", 0),
])
def test_exponent_and_numeric_errors(text, message):
    if message == 0:
        assert parse_quantity(text) == 0
        return
    with pytest.raises(QuantityError) as info:
        quickly(parse_quantity, text)
    assert str(info.value) == message


def test_fast_path_without_digits_is_zero():
    """On the int64 fast path Go parses the missing digits as 0 (".", ".e5", ".Ki")."""
    assert [parse_quantity(t) for t in (".", ".e5", ".Ki", "+.", "-.m")] == [0, 0, 0, 0, 0]


@pytest.mark.parametrize(("raw", "error"), [
    (2**63, None), (-(2**63), None), (10**63, None), (10**64, QuantityRangeError), (-(10**100), QuantityRangeError),
    (10**5000, QuantityRangeError), (float("inf"), QuantityRangeError), (float("-inf"), QuantityRangeError),
    (float("nan"), QuantityError), (1e300, QuantityRangeError), (1e20, None),
], ids=["2^63", "-2^63", "1e63", "1e64", "-1e100", "1e5000", "inf", "-inf", "nan", "1e300-float", "1e20-float"])
def test_coerce_bounds(raw, error):
    if error is None:
        assert quickly(coerce_quantity, raw) == Fraction(raw)
        return
    with pytest.raises(error):
        quickly(coerce_quantity, raw)


@pytest.mark.parametrize(("text", "scale", "fits"), [
    ("9223372036854775807", 0, True), ("9223372036854775808", 0, False), ("-9223372036854775808", 0, True),
    ("-9223372036854775809", 0, False), ("9223372036854775807m", -3, True), ("9223372036854775.808", -3, False),
    ("9Ei", 0, True), ("9Ei", -3, False), ("12E", 0, False), ("1e18", -3, False), ("1e15", -3, True),
])
def test_fits_int64(text, scale, fits):
    assert fits_int64(parse_quantity(text), scale) is fits


@pytest.mark.parametrize(("value", "wrapped"), [
    (MAX_INT64, MAX_INT64), (MAX_INT64 + 1, MIN_INT64), (MIN_INT64 - 1, MAX_INT64), (2 * MAX_INT64, -2), (0, 0),
])
def test_wrap_int64_is_go_int64_arithmetic(value, wrapped):
    assert wrap_int64(value) == wrapped


def test_describe_keeps_messages_short():
    assert describe("1e5") == "'1e5'"
    assert describe("9" * 1000) == "'" + "9" * 63 + "… (1000 characters)"
    assert describe(10**5000) == "an integer of about 5001 digits"
