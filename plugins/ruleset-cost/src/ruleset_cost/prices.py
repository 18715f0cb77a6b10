"""Node prices: read from a label or an annotation, in whole millionths (micro-units).

A price is written in plain decimal notation: ASCII digits, optionally a dot and more
digits (``3``, ``0.0416``, ``12.50``). It is read exactly, then truncated to millionths
(``0.0416`` is 41600; ``0.0000001`` is 0). Anything else is no price: a sign (so a
negative price is refused), an exponent, spaces, a currency or unit, an empty value, or a
price of 9223372036854.775808 or more (its millionths would not fit an int64 score).
"""

from __future__ import annotations

import re

import numpy as np

from ruleset import Snapshot

#: Millionths per unit of price.
MICROS = 10**6
#: What :func:`price_column` holds for a node without a (valid) price.
UNPRICED = -1
SOURCES = ("label", "annotation")

_PRICE_RE = re.compile(r"([0-9]+)(?:\.([0-9]+))?")
_INT64_MAX = 2**63 - 1


def parse_price(text: str) -> int | None:
    """``text`` as a price in millionths, or None when it is not a price (see the module docstring)."""
    match = _PRICE_RE.fullmatch(text)
    if match is None:
        return None
    whole, fraction = match.group(1), match.group(2) or ""
    # Digits beyond the sixth decimal are dropped (truncation), never rounded up.
    micros = int(whole) * MICROS + int(fraction[:6].ljust(6, "0"))
    return micros if micros <= _INT64_MAX else None


def _read_prices(snapshot: Snapshot, source: str, key: str) -> np.ndarray:
    prices = np.full(snapshot.num_nodes, UNPRICED, dtype=np.int64)
    for i, node in enumerate(snapshot.nodes):
        values = node.labels if source == "label" else node.meta.annotations
        text = values.get(key)
        price = None if text is None else parse_price(text)
        if price is not None:
            prices[i] = price
    return prices


def price_column(snapshot: Snapshot, source: str, key: str) -> np.ndarray:
    """Every node's price in millionths (:data:`UNPRICED` where it has none); read-only.

    Nodes never change during a run, so the column is read once per (source, key).
    """
    def build(snap: Snapshot) -> np.ndarray:
        column = _read_prices(snap, source, key)
        column.flags.writeable = False
        return column

    return snapshot.derive(f"{__name__}:{source}:{key}", build)
