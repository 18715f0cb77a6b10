"""``Quantity.String()`` and the format a quantity's text selects, as apimachinery v0.20.0
``pkg/api/resource`` (``CanonicalizeBytes``, ``AsCanonicalBytes``, ``interpret``) give them.

Cases are ruleset's, each checked by hand against upstream's algorithm (upstream's own
``quantity_test.go`` table is far larger; these are the forms admission prints).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from ruleset.admission.goquantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    canonical,
    go_quantity,
    new_milli_quantity,
    new_quantity,
)


@pytest.mark.parametrize(("raw", "fmt", "text"), [
    pytest.param("2", DECIMAL_SI, "2", id="integer"),
    pytest.param(2, DECIMAL_SI, "2", id="bare integer"),
    pytest.param("500m", DECIMAL_SI, "500m", id="milli"),
    pytest.param("1.5", DECIMAL_SI, "1500m", id="fraction to milli"),
    pytest.param(0.5, DECIMAL_SI, "500m", id="bare float"),
    pytest.param("1000m", DECIMAL_SI, "1", id="milli to units"),
    pytest.param("1500000", DECIMAL_SI, "1500k", id="trailing zeros to k"),
    pytest.param("1572864000", DECIMAL_SI, "1572864k", id="bytes summed by NewQuantity print in k"),
    pytest.param("62914560", DECIMAL_SI, "62914560", id="no trailing zeros"),
    pytest.param("100M", DECIMAL_SI, "100M", id="mega"),
    pytest.param("0.1u", DECIMAL_SI, "100n", id="nano"),
    pytest.param("1Gi", BINARY_SI, "1Gi", id="binary"),
    pytest.param("2048Mi", BINARY_SI, "2Gi", id="binary up"),
    pytest.param("1536Mi", BINARY_SI, "1536Mi", id="binary not whole in Gi"),
    pytest.param("1.5Gi", BINARY_SI, "1536Mi", id="binary fraction"),
    pytest.param("0.5Ki", BINARY_SI, "512", id="binary below 1024 is decimal"),
    pytest.param("0.5", DECIMAL_SI, "500m", id="decimal fraction"),
    pytest.param("1e3", DECIMAL_EXPONENT, "1e3", id="exponent"),
    pytest.param("1E3", DECIMAL_EXPONENT, "1e3", id="exponent upper case"),
    pytest.param("1e-3", DECIMAL_EXPONENT, "1e-3", id="negative exponent"),
    pytest.param("1500e0", DECIMAL_EXPONENT, "1500", id="exponent zero"),
    pytest.param("1E", DECIMAL_SI, "1E", id="exa is no exponent"),
    pytest.param("0", DECIMAL_SI, "0", id="zero"),
    pytest.param("0Gi", BINARY_SI, "0", id="zero binary"),
])
def test_string(raw, fmt, text):
    q = go_quantity(raw)
    assert q is not None
    assert (q.format, str(q)) == (fmt, text)


def test_constructors():
    assert str(new_milli_quantity(3000)) == "3"
    assert str(new_milli_quantity(75)) == "75m"
    assert str(new_quantity(3 * 2**30)) == "3221225472"
    assert canonical(Fraction(1, 3 * 10**9)) == "1n"  # finer than a nano rounds up
    assert go_quantity("lots") is None
