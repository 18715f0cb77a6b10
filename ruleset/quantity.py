"""Kubernetes resource quantities ("100m", "1.5", "2Gi", "1e3", "500M"), parsed exactly.

Mirrors ``k8s.io/apimachinery/pkg/api/resource`` (``quantity.go``: ``parseQuantityString``
and ``ParseQuantity``; ``suffix.go``: ``interpret``; ``scale_int.go`` and ``amount.go``:
``ScaledValue``), unchanged from the v1.20 tag (apimachinery ``v0.20.0``) to today: the same
scanner, the same suffix table, the same error messages, and the same rounding (``Value`` and
``MilliValue`` round up, away from zero). Arithmetic is exact (integers and
:class:`fractions.Fraction`), so there is no float drift.

Bounds, and how they compare with Go's:

* **Exponent.** ``interpret`` reads the exponent of ``1e…``/``1E…`` with
  ``strconv.ParseInt(…, 10, 64)`` (beyond int64 is ``ErrSuffix``) and then keeps
  ``int32(parsed)``: the value wraps, so ``1e4294967296`` is 1. Ported as is.
* **Digits.** Any number of digits is accepted, as Go does. Digits never reach ``int()``
  beyond what the value needs (Python refuses to convert more than 4,300 digits): a value
  is computed from at most its significant leading digits plus whether anything non-zero
  follows, which is all rounding up to a nano needs.
* **Tiny values.** Anything non-zero below one nano is one nano (``0.5e-9``,
  ``1e-999999999``), computed without the power of ten. Go's ``inf.Dec.Round`` computes
  ``10**exponent`` for these and, for exponents of hundreds of millions, runs for minutes.
* **Huge values.** Go keeps them (a decimal ``1e999999999`` is an int64 mantissa with
  scale 999999999); only BinarySI values are capped, at 2^63-1. Nothing downstream can use
  them: ``Value()``/``MilliValue()`` overflow int64 silently (``positiveScaleInt64`` gives 0;
  the ``inf.Dec`` path wraps), and the API server's own validation (``Quantity.Cmp`` against
  zero, through ``inf.Dec`` rescaling) computes ``10**exponent`` and runs past its request
  timeout. :func:`parse_quantity` returns the exact value up to 10^64 in magnitude (far
  beyond any int64 in any unit) and raises :class:`QuantityRangeError` beyond, without
  computing it; callers that need an int64 (:func:`fits_int64`) refuse both alike.
* **int32 wrap-around.** Go computes the decimal scale as ``exponent - len(fraction)`` in
  int32, which wraps for exponents within a few digits of ±2^31; ruleset reads such an
  exponent as written (both readings are far outside int64 or below a nano).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = f"quantities must match the regular expression '{SPLIT_RE}'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"
#: :class:`QuantityRangeError`'s message when no field name is known.
ERR_TOO_LARGE = "out of range: the quantity does not fit in an int64"

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
MAX_INT64 = 2**63 - 1
MIN_INT64 = -(2**63)
#: ``maxInt64Factors``: the decimal digits an int64 mantissa holds on the fast path.
_MAX_INT64_FACTORS = 18
#: :func:`parse_quantity` computes values below 10**_MAX_DIGITS in magnitude.
_MAX_DIGITS = 64
_NANO_DIGITS = 9


class QuantityError(ValueError):
    """A string that is not a valid Kubernetes quantity; the message is Kubernetes' own."""


class QuantityRangeError(QuantityError):
    """A well-formed quantity too large for anything that reads it (see the module docstring)."""

    def __init__(self, message: str = ERR_TOO_LARGE):
        super().__init__(message)


def _scan(text: str) -> tuple[bool, str, str, str, bool]:
    """Port of ``parseQuantityString``: (positive, numerator, denominator, suffix, whether the
    numeric part holds a digit).

    The numerator has its leading zeros stripped ("0" when nothing is left), the denominator
    is kept as written. The last item is what ``inf.Dec.SetString`` needs on the slow path
    (``"."`` alone has no digit there: ``ErrNumeric``).
    """
    positive = True
    pos, end = 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    leading = pos
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "", "", True
    has_digit = pos > leading
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos] or "0"
    has_digit = has_digit or pos > start
    denom = ""
    if pos < end and text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
    has_digit = has_digit or bool(denom)
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(ERR_FORMAT_WRONG)
    return positive, num, denom, text[suffix_start:end], has_digit


def _parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: optional sign, ASCII digits, within int64; else None.

    Leading zeros are stripped before ``int()``, so a run of them never meets Python's
    digit limit (Go accepts any number of them).
    """
    sign = ""
    if text[:1] in ("+", "-"):
        sign, text = text[0], text[1:]
    if not text or not all(c in _DIGITS for c in text):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > 19:
        return None
    value = int(sign + digits)
    return value if MIN_INT64 <= value <= MAX_INT64 else None


def _wrap_int32(value: int) -> int:
    """Go's ``int32(value)`` conversion: two's-complement wrap-around."""
    return (value + 2**31) % 2**32 - 2**31


def wrap_int64(value: int) -> int:
    """Go's int64 arithmetic: the result of ``a + b`` (or any sum) wrapped into int64."""
    if MIN_INT64 <= value <= MAX_INT64:
        return value
    return (value - MIN_INT64) % 2**64 + MIN_INT64


def _interpret(suffix: str) -> tuple[int, int, bool] | None:
    """``suffixer.interpret``: (base, exponent, is BinarySI), or None when Kubernetes does not
    know the suffix (``ErrSuffix``)."""
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix], False
    if suffix in _BINARY:
        return 2, _BINARY[suffix], True
    if len(suffix) > 1 and suffix[0] in "eE":
        parsed = _parse_int64(suffix[1:])
        if parsed is None:
            return None
        return 10, _wrap_int32(parsed), False
    return None


def _takes_slow_path(num: str, denom: str, exponent: int, binary: bool) -> bool:
    """Whether ``ParseQuantity`` leaves its int64 fast path for ``inf.Dec`` (where a numeric
    part without digits is ``ErrNumeric``)."""
    if binary:
        if denom:
            return True
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        return precision < 0 or int(num) << exponent > MAX_INT64
    precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    return precision < 0 or exponent - len(denom) < -9


def _round_up_to_nano(value: Fraction) -> Fraction:
    """``amount.Round(amount, 9, inf.RoundUp)``: non-zero values finer than a nano, away from zero."""
    if value.denominator == 1:
        return value
    scaled = value * 10**_NANO_DIGITS
    nanos = math.ceil(scaled) if scaled > 0 else -math.ceil(-scaled)
    return Fraction(nanos, 10**_NANO_DIGITS)


def _magnitude(digits: str, exp10: int, exp2: int) -> Fraction:
    """``int(digits) * 10**exp10 * 2**exp2`` rounded up to a nano, for a value known to be below
    10**_MAX_DIGITS and not below 10**-28 (so at most 134 digits reach ``int()``).

    Digits beyond those the rounding can see are folded into one: the value is the same
    after rounding up.
    """
    # Keep the digits down to the place 10**-70 and fold the rest into one sticky digit below
    # it. 2**exp2 (exp2 <= 60) divides 10**61, so every nano is a whole multiple of
    # 2**exp2 * 10**-70: a remainder smaller than that never moves the value across one.
    keep = len(digits) + exp10 + 70
    if keep < len(digits):
        cut = digits[keep:]
        digits = digits[:keep]
        exp10 += len(cut)
        if cut.strip("0"):
            digits += "1"
            exp10 -= 1
    numerator = int(digits) * 2**exp2
    value = Fraction(numerator * 10**exp10) if exp10 >= 0 else Fraction(numerator, 10**-exp10)
    return _round_up_to_nano(value)


def parse_quantity(text: str) -> Fraction:
    """Parse a quantity string into its exact value (``ParseQuantity``).

    Short texts (the ``100m`` and ``2Gi`` a cluster repeats thousands of times) are memoized.

    Raises :class:`QuantityError` with Kubernetes' message for malformed text. Non-zero
    values finer than a nano are rounded away from zero to one nano, and BinarySI values
    above 2^63-1 are capped there, as Kubernetes does. Values of 10^64 or more in magnitude
    raise :class:`QuantityRangeError` without being computed (see the module docstring).
    """
    if not isinstance(text, str):
        raise QuantityError(ERR_FORMAT_WRONG)
    if len(text) <= 24:
        return _parse_short(text)
    return _parse(text)


@lru_cache(maxsize=4096)
def _parse_short(text: str) -> Fraction:
    return _parse(text)


def _parse(text: str) -> Fraction:
    if text == "":
        raise QuantityError(ERR_FORMAT_WRONG)
    positive, num, denom, suffix, has_digit = _scan(text)
    interpreted = _interpret(suffix)
    if interpreted is None:
        raise QuantityError(ERR_SUFFIX)
    _, exponent, binary = interpreted
    if not has_digit and _takes_slow_path(num, denom, exponent, binary):
        raise QuantityError(ERR_NUMERIC)
    digits = (num + denom).lstrip("0")
    exp10 = -len(denom) if binary else exponent - len(denom)
    exp2 = exponent if binary else 0
    stripped = digits.rstrip("0")
    exp10 += len(digits) - len(stripped)
    digits = stripped
    if not digits:
        return Fraction(0)
    # int(digits) * 10**exp10 lies in [10**(top - 1), 10**top); 2**exp2 adds at most 19 digits.
    top = len(digits) + exp10
    if binary and top > 19:
        value = Fraction(MAX_INT64)  # at least 10**19 > 2**63 - 1: capped, as the slow path does
    elif top > _MAX_DIGITS:
        raise QuantityRangeError()
    elif top + (19 if binary else 0) <= -_NANO_DIGITS:
        value = Fraction(1, 10**_NANO_DIGITS)  # non-zero and below one nano: rounds up to it
    else:
        value = _magnitude(digits, exp10, exp2)
        if binary and value > MAX_INT64:
            value = Fraction(MAX_INT64)
    return value if positive else -value


def describe(raw: object) -> str:
    """How messages show a raw quantity: Python's repr, a long text cut, a huge integer summarised."""
    if isinstance(raw, int) and not isinstance(raw, bool) and raw.bit_length() > 256:
        return f"an integer of about {int(raw.bit_length() * math.log10(2)) + 1} digits"
    text = repr(raw)
    if len(text) > 66:
        return f"{text[:64]}… ({len(str(raw))} characters)"
    return text


def coerce_quantity(raw: object) -> Fraction:
    """Parse a quantity as it appears in a manifest: a string, or a bare YAML/JSON number.

    ``Quantity.UnmarshalJSON`` parses a bare number from its text, so a number means what the
    same digits would mean quoted. Surrounding whitespace is ignored, as there.
    """
    if raw.__class__ is str and len(raw) <= 24:
        return _coerce_short(raw)
    if isinstance(raw, bool):
        raise QuantityError(ERR_FORMAT_WRONG)
    if isinstance(raw, int):
        if abs(raw) >= 10**_MAX_DIGITS:
            raise QuantityRangeError()
        return Fraction(raw)
    if isinstance(raw, float):
        if math.isinf(raw):
            raise QuantityRangeError()
        if math.isnan(raw):
            raise QuantityError(ERR_FORMAT_WRONG)
        # repr() is the shortest text that round-trips, i.e. what the user wrote ("0.5", "1e-05").
        return parse_quantity(repr(raw))
    if isinstance(raw, str):
        return parse_quantity(raw.strip())
    raise QuantityError(ERR_FORMAT_WRONG)


@lru_cache(maxsize=4096)
def _coerce_short(text: str) -> Fraction:
    """A short quantity text as written (the few a snapshot repeats for every pod), memoized
    as it is: no strip and no type checks on the way to the cache (Fraction is immutable)."""
    return parse_quantity(text.strip())


def _ratio_away_from_zero(n: int, d: int) -> int:
    """``n / d`` (``d > 0``) rounded up away from zero, in integers: snapshots count every
    pod's requests through here, and Fraction arithmetic is several times slower."""
    if d == 1:
        return n
    return -(-n // d) if n >= 0 else n // d


def scaled_value_of(quantity: Fraction, scale: int) -> int:
    """``Quantity.ScaledValue(scale)``: ``quantity / 10**scale``, rounded up away from zero.

    Exact; Go's int64 result is the same whenever it fits in an int64 (see :func:`fits_int64`).
    """
    if scale <= 0:
        return _ratio_away_from_zero(quantity.numerator * 10**-scale, quantity.denominator)
    return _ratio_away_from_zero(quantity.numerator, quantity.denominator * 10**scale)


def value_of(quantity: Fraction) -> int:
    """``Quantity.Value()``: the integer value, rounded up away from zero."""
    return _ratio_away_from_zero(quantity.numerator, quantity.denominator)


def milli_value_of(quantity: Fraction) -> int:
    """``Quantity.MilliValue()``: the value in thousandths, rounded up away from zero."""
    return _ratio_away_from_zero(quantity.numerator * 1000, quantity.denominator)


def fits_int64(quantity: Fraction, scale: int = 0) -> bool:
    """Whether ``ScaledValue(scale)`` is the true value: it fits in an int64.

    Beyond, Go's ``ScaledValue`` returns 0 (``positiveScaleInt64`` reports the overflow and
    ``ScaledValue`` drops the report) or a wrapped-around number (the ``inf.Dec`` path).
    Rounding away from zero stays within int64 exactly when the quantity lies within
    ``[MinInt64, MaxInt64] * 10**scale``.
    """
    n, d = quantity.numerator, quantity.denominator  # d > 0
    if scale <= 0:
        n *= 10**-scale
    else:
        d *= 10**scale
    return MIN_INT64 * d <= n <= MAX_INT64 * d
