"""Quantities as Go's ``resource.Quantity`` keeps and prints them: a value and a format.

Admission messages print quantities with ``Quantity.String()`` (``limitranger``'s
``maximum cpu usage per Container is 2, but limit is 4``) and the API server stores them in
that canonical form, so defaults written into a pod are written that way too. Ported from
apimachinery v0.20.0 ``pkg/api/resource``: the format a suffix selects (``suffix.go``
``interpret``) and ``CanonicalizeBytes`` (``quantity.go``) with ``AsCanonicalBytes`` and
``AsCanonicalBase1024Bytes`` (``amount.go``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ruleset.quantity import QuantityError, coerce_quantity

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_BINARY_SUFFIXES = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_SUFFIX_OF = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY_SUFFIX_OF = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}
_NUMBER_CHARS = frozenset("+-0123456789.")


@dataclass(frozen=True, slots=True)
class GoQuantity:
    """An exact quantity and the format Go's parser gave it."""

    value: Fraction
    format: str = DECIMAL_SI

    def __str__(self) -> str:
        return canonical(self.value, self.format)


def format_of(raw: object) -> str:
    """The format ``ParseQuantity`` gives the text of ``raw``: ``Ki``…``Ei`` is BinarySI, an
    ``e``/``E`` exponent (a suffix of more than one character starting with it) is
    DecimalExponent, anything else DecimalSI. A bare number reads as its text."""
    if isinstance(raw, float):
        text = repr(raw)
    elif isinstance(raw, str):
        text = raw.strip()
    else:
        return DECIMAL_SI
    i = 0
    while i < len(text) and text[i] in _NUMBER_CHARS:
        i += 1
    suffix = text[i:]
    if suffix in _BINARY_SUFFIXES:
        return BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        return DECIMAL_EXPONENT
    return DECIMAL_SI


def go_quantity(raw: object) -> GoQuantity | None:
    """``raw`` parsed, with its format; None when it is no quantity."""
    try:
        value = coerce_quantity(raw)
    except QuantityError:
        return None
    return GoQuantity(value, format_of(raw))


def canonical(value: Fraction, fmt: str = DECIMAL_SI) -> str:
    """``Quantity.String()``: the shortest mantissa with the largest suffix that keeps it whole.

    Decimal exponents are multiples of three (``1500m``, ``2k``); BinarySI is kept only for
    whole values outside (-1024, 1024) (``1Gi``, but ``512`` and ``1536m``). A DecimalSI
    exponent beyond the suffix table (above ``E``) prints no suffix, as Go's does.
    """
    if value == 0:
        return "0"
    if fmt == BINARY_SI and (-1024 < value < 1024 or value.denominator != 1):
        fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        amount, exponent = int(value), 0
        while amount % 1024 == 0:
            amount //= 1024
            exponent += 1
        return f"{amount}{_BINARY_SUFFIX_OF.get(exponent, '')}"
    # Values are kept to the nano (ParseQuantity rounds up to it).
    exponent = -9
    nanos = value * 10**9
    # Finer than a nano happens only for values built in code: rounded up, as ParseQuantity does.
    mantissa = -((-nanos.numerator) // nanos.denominator)
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    mantissa *= 10**shift
    exponent -= shift
    if fmt == DECIMAL_EXPONENT:
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    return f"{mantissa}{_DECIMAL_SUFFIX_OF.get(exponent, '')}"


def new_milli_quantity(milli: int) -> GoQuantity:
    """``resource.NewMilliQuantity(milli, DecimalSI)``."""
    return GoQuantity(Fraction(milli, 1000), DECIMAL_SI)


def new_quantity(value: int) -> GoQuantity:
    """``resource.NewQuantity(value, DecimalSI)``."""
    return GoQuantity(Fraction(value), DECIMAL_SI)
