"""Kubernetes resource quantities ("100m", "1.5", "2Gi", "1e3", "500M"), parsed exactly.

Mirrors ``k8s.io/apimachinery/pkg/api/resource``: the same scanner, the same suffix table,
the same error messages, and the same rounding (``Value`` and ``MilliValue`` round up, away
from zero). Arithmetic is done on :class:`fractions.Fraction`, so there is no float drift.
"""

from __future__ import annotations

import math
from fractions import Fraction

SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = f"quantities must match the regular expression '{SPLIT_RE}'"
ERR_SUFFIX = "unable to parse quantity's suffix"

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
_MAX_INT64 = 2**63 - 1
_NANO = Fraction(1, 10**9)


class QuantityError(ValueError):
    """A string that is not a valid Kubernetes quantity; the message is Kubernetes' own."""


def _scan(text: str) -> tuple[bool, str, str, str]:
    """Port of ``parseQuantityString``: (positive, numerator, denominator, suffix)."""
    positive = True
    pos, end = 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    denom = ""
    if pos < end and text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(ERR_FORMAT_WRONG)
    return positive, num, denom, text[suffix_start:end]


def _interpret(suffix: str) -> tuple[int, int] | None:
    """(base, exponent) of a suffix, or None when Kubernetes does not know it."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix]
    if suffix in _BINARY:
        return 2, _BINARY[suffix]
    if len(suffix) > 1 and suffix[0] in "eE":
        try:
            exponent = int(suffix[1:], 10)
        except ValueError:
            return None
        if -(2**31) <= exponent < 2**31:
            return 10, exponent
    return None


def parse_quantity(text: str) -> Fraction:
    """Parse a quantity string into its exact value.

    Raises :class:`QuantityError` with Kubernetes' message for malformed text. Non-zero
    values finer than a nano are rounded away from zero to one nano, as Kubernetes does.
    """
    if not isinstance(text, str):
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "":
        raise QuantityError(ERR_FORMAT_WRONG)
    positive, num, denom, suffix = _scan(text)
    interpreted = _interpret(suffix)
    if interpreted is None:
        raise QuantityError(ERR_SUFFIX)
    base, exponent = interpreted
    value = Fraction(int(num + denom), 10 ** len(denom))
    value *= Fraction(base) ** exponent
    if value and value.denominator != 1:
        value = Fraction(math.ceil(value / _NANO)) * _NANO
    if base == 2 and value > _MAX_INT64:
        value = Fraction(_MAX_INT64)
    return value if positive else -value


def coerce_quantity(raw: object) -> Fraction:
    """Parse a quantity as it appears in a manifest: a string, or a bare YAML/JSON number."""
    if isinstance(raw, bool):
        raise QuantityError(ERR_FORMAT_WRONG)
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError(ERR_FORMAT_WRONG)
        # repr() is the shortest text that round-trips, i.e. what the user wrote ("0.5", "1e-05").
        return parse_quantity(repr(raw))
    if isinstance(raw, str):
        return parse_quantity(raw.strip())
    raise QuantityError(ERR_FORMAT_WRONG)


def _ceil_away_from_zero(value: Fraction) -> int:
    return math.ceil(value) if value >= 0 else -math.ceil(-value)


def value_of(quantity: Fraction) -> int:
    """``Quantity.Value()``: the integer value, rounded up away from zero."""
    return _ceil_away_from_zero(quantity)


def milli_value_of(quantity: Fraction) -> int:
    """``Quantity.MilliValue()``: the value in thousandths, rounded up away from zero."""
    return _ceil_away_from_zero(quantity * 1000)
