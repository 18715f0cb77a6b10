"""CostAware (Filter, Score, NormalizeScore): cheaper nodes score higher.

Each node's price is the value of its ``priceKey`` label (``source = "label"``) or
annotation (``source = "annotation"``), read as :mod:`ruleset_cost.prices` says: plain
decimal notation, truncated to millionths. A node whose value is missing or is no such
number (a negative price included) is *unpriced*, and ``unpriced`` decides its fate:

* ``"lowest"`` (the default): it scores 0, below every priced node;
* ``"highest"``: it scores 100, as if it were free;
* ``"reject"``: Filter rejects it, UnschedulableAndUnresolvable with
  :data:`ERR_REASON_UNPRICED`. (Should it still reach Score, it scores 0.)

Filter rejects nothing with ``"lowest"`` or ``"highest"``.

* **Score** (raw): the node's price in millionths (``0.0416`` -> 41600), -1 when unpriced.
* **NormalizeScore**: over the priced nodes being scored (those that passed Filter), with
  ``lo``/``hi`` their lowest/highest raw price, a priced node scores
  ``100 * (hi - price) // (hi - lo)`` (exact integers, rounded down): the cheapest 100,
  the dearest 0. When every priced node costs the same (``hi == lo``) each scores 100.
  Unpriced nodes get 0 or 100 as above.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ruleset import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    ArgError,
    Code,
    FilterResult,
    NodeSet,
    Plugin,
    arg_field,
    hookimpl,
)
from ruleset.errors import format_path
from ruleset.gofmt import go_quote
from ruleset.selector.validation import qualified_name_errors
from ruleset_cost.prices import SOURCES, UNPRICED, price_column

#: ``unpriced`` values: score 0, score 100, or filter the node out.
LOWEST, HIGHEST, REJECT = "lowest", "highest", "reject"
UNPRICED_POLICIES = (LOWEST, HIGHEST, REJECT)

ERR_REASON_UNPRICED = "node(s) had no valid price"


@dataclass(frozen=True, slots=True)
class CostAwareArgs:
    """The plugin's args; ``priceKey`` has no default and must be given."""

    price_key: str = arg_field(
        "priceKey", "", schema={"type": "string"},
        description="Label or annotation key holding each node's price (plain decimal, e.g. 0.0416).")
    source: str = arg_field(
        "source", "label", schema={"type": "string"},
        description='Where the price is: "label" or "annotation".')
    unpriced: str = arg_field(
        "unpriced", LOWEST, schema={"type": "string"},
        description='Nodes without a valid price: "lowest" (score 0), "highest" (score 100) or '
                    '"reject" (filtered out).')


def _field_error(path: str, kind: str, value: str | None, detail: str) -> ArgError:
    """A ``field.Error`` as Kubernetes prints it: ``<path>: <kind>[: <value>]: <detail>``."""
    text = f"{format_path((path,))}: {kind}"
    if value is not None:
        text += f": {go_quote(value)}"
    return ArgError((path,), f"{text}: {detail}")


def _supported(values: tuple[str, ...]) -> str:
    return "supported values: " + ", ".join(go_quote(v) for v in values)


def validate_cost_aware_args(args: CostAwareArgs) -> list[ArgError]:
    """Every problem, in field order."""
    errors: list[ArgError] = []
    if not args.price_key:
        errors.append(_field_error("priceKey", "Required value", None,
                                   "must name the label or annotation holding each node's price"))
    else:
        errors.extend(_field_error("priceKey", "Invalid value", args.price_key, msg)
                      for msg in qualified_name_errors(args.price_key))
    if args.source not in SOURCES:
        errors.append(_field_error("source", "Unsupported value", args.source, _supported(SOURCES)))
    if args.unpriced not in UNPRICED_POLICIES:
        errors.append(_field_error("unpriced", "Unsupported value", args.unpriced,
                                   _supported(UNPRICED_POLICIES)))
    return errors


def normalized_price_scores(prices: list[int], unpriced_score: int) -> list[int]:
    """Per price ``p``: ``100 * (hi - p) // (hi - lo)``, or 100 when all are equal; ``unpriced_score``
    for :data:`UNPRICED`.

    In Python integers: ``100 * (hi - p)`` may not fit an int64.
    """
    priced = [p for p in prices if p != UNPRICED]
    if not priced:
        return [unpriced_score] * len(prices)
    lo, hi = min(priced), max(priced)
    if hi == lo:
        return [MAX_NODE_SCORE if p != UNPRICED else unpriced_score for p in prices]
    return [MAX_NODE_SCORE * (hi - p) // (hi - lo) if p != UNPRICED else unpriced_score for p in prices]


class CostAware(Plugin):
    """Scores cheaper nodes higher, by a price label or annotation (Score, NormalizeScore); may
    filter out unpriced nodes (Filter)."""

    name = "CostAware"
    Args = CostAwareArgs

    @classmethod
    def validate_args(cls, args: CostAwareArgs) -> list[ArgError]:
        return validate_cost_aware_args(args)

    def _prices(self, nodes: NodeSet) -> np.ndarray:
        args: CostAwareArgs = self.args
        return nodes.column(price_column(nodes.snapshot, args.source, args.price_key))

    @hookimpl
    def ruleset_filter(self, nodes: NodeSet) -> FilterResult | None:
        if self.args.unpriced != REJECT:
            return None
        unpriced = self._prices(nodes) == UNPRICED
        return FilterResult.reject(unpriced, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNPRICED)

    @hookimpl
    def ruleset_score(self, nodes: NodeSet) -> np.ndarray:
        return self._prices(nodes)  # a fresh array (indexed by the node indices), not the cached column

    @hookimpl
    def ruleset_normalize_score(self, scores: np.ndarray) -> np.ndarray:
        unpriced_score = MAX_NODE_SCORE if self.args.unpriced == HIGHEST else MIN_NODE_SCORE
        normalized = normalized_price_scores([int(s) for s in scores], unpriced_score)
        return np.array(normalized, dtype=np.int64)
