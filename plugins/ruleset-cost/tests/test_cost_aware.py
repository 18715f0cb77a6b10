"""CostAware through ruleset's test kit: the conformance checks, what counts as a price, the raw
and normalised scores per node for each ``unpriced`` policy and each source (label,
annotation), the Filter in ``reject`` mode, the edge cases of the formula (all equal, none
priced, prices too large for int64 arithmetic), the registration through the entry point, and
every args validation message.

Run with the package installed (``pip install plugins/ruleset-cost``): the test that looks
the plugin up by name needs its entry point.
"""

from __future__ import annotations

from typing import Any

import pytest
from ruleset_cost import ERR_REASON_UNPRICED, CostAware, parse_price, ruleset_register_plugins

from ruleset import Code
from ruleset.testing import check_plugin, node, pod, run_plugin

PRICE = "example.com/hourly-price"
LABEL = {"priceKey": PRICE}
OK = (Code.SUCCESS, ())
UNPRICED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNPRICED,))


def labelled(*prices: tuple[str, str | None]) -> list:
    """One node per (name, price label value); None leaves the label off."""
    return [node(name, labels={PRICE: price} if price is not None else None) for name, price in prices]


def annotated(*prices: tuple[str, str | None]) -> list:
    """One node per (name, price annotation value); None leaves the annotation off."""
    return [node(name, annotations={PRICE: price} if price is not None else None) for name, price in prices]


#: cheap, mid and dear are priced; junk's label is not a plain decimal; bare has no label.
NODES = (("cheap", "0.5"), ("mid", "1.3"), ("dear", "2"), ("junk", "1e3"), ("bare", None))
RAW = {"cheap": 500_000, "mid": 1_300_000, "dear": 2_000_000, "junk": -1, "bare": -1}
# lo = 500000, hi = 2000000: mid is 100 * 700000 // 1500000 = 46 (46.67 rounded down).
PRICED_SCORES = {"cheap": 100, "mid": 46, "dear": 0}


def verdicts(run: Any) -> dict[str, tuple[Code, tuple[str, ...]]]:
    return {name: (status.code, status.reasons) for name, status in run.filter.items()}


@pytest.mark.parametrize("args", [
    LABEL,
    {**LABEL, "unpriced": "highest"},
    {**LABEL, "unpriced": "reject"},
    {**LABEL, "source": "annotation", "unpriced": "reject"},
], ids=["lowest", "highest", "reject", "annotation-reject"])
def test_conforms(args: dict) -> None:
    check_plugin(CostAware, args=args)


@pytest.mark.parametrize(("text", "micros"), [
    ("3", 3_000_000),
    ("0.0416", 41_600),
    ("12.50", 12_500_000),
    ("007", 7_000_000),
    ("0", 0),
    ("0.0000009", 0),  # beyond millionths: truncated, never rounded up
    ("12.3456789", 12_345_678),
    ("9223372036854.775807", 2**63 - 1),
    ("9223372036854.775808", None),  # its millionths do not fit an int64
    ("-0.5", None),  # negative
    ("+1", None),
    ("1e3", None),
    ("1.", None),
    (".5", None),
    (" 1", None),
    ("1,5", None),
    ("1.5$", None),
    ("", None),
    ("١", None),  # an Arabic-Indic digit: ASCII digits only
], ids=lambda value: repr(value) if isinstance(value, str) else None)
def test_parse_price(text: str, micros: int | None) -> None:
    assert parse_price(text) == micros


@pytest.mark.parametrize(("unpriced", "feasible", "scores"), [
    ("lowest", list(RAW), {**PRICED_SCORES, "junk": 0, "bare": 0}),
    ("highest", list(RAW), {**PRICED_SCORES, "junk": 100, "bare": 100}),
    ("reject", ["cheap", "mid", "dear"], PRICED_SCORES),
], ids=["lowest", "highest", "reject"])
def test_scores_by_label(unpriced: str, feasible: list, scores: dict) -> None:
    run = run_plugin(CostAware, pod("p", cpu="1"), labelled(*NODES), args={**LABEL, "unpriced": unpriced})
    assert run.feasible == feasible
    assert run.raw == {name: RAW[name] for name in feasible}
    assert run.scores == scores


@pytest.mark.parametrize(("unpriced", "expected"), [
    ("lowest", {name: OK for name, _ in NODES}),
    ("highest", {name: OK for name, _ in NODES}),
    ("reject", {"cheap": OK, "mid": OK, "dear": OK, "junk": UNPRICED, "bare": UNPRICED}),
], ids=["lowest", "highest", "reject"])
def test_filter(unpriced: str, expected: dict) -> None:
    run = run_plugin(CostAware, pod("p"), labelled(*NODES), args={**LABEL, "unpriced": unpriced})
    assert verdicts(run) == expected


def test_scores_by_annotation() -> None:
    nodes = annotated(("cheap", "0.0416"), ("dear", "0.0832"), ("mid", "0.05"), ("negative", "-0.01"),
                      ("spaced", " 0.01"), ("bare", None))
    args = {**LABEL, "source": "annotation", "unpriced": "reject"}
    run = run_plugin(CostAware, pod("p"), nodes, args=args)
    assert verdicts(run) == {"cheap": OK, "dear": OK, "mid": OK, "negative": UNPRICED, "spaced": UNPRICED,
                             "bare": UNPRICED}
    assert run.raw == {"cheap": 41_600, "dear": 83_200, "mid": 50_000}
    # mid: 100 * (83200 - 50000) // (83200 - 41600) = 3320000 // 41600 = 79
    assert run.scores == {"cheap": 100, "dear": 0, "mid": 79}


def test_source_matters() -> None:
    """A price written as an annotation is not read when the source is the label (and back)."""
    nodes = [node("by-label", labels={PRICE: "1"}), node("by-annotation", annotations={PRICE: "2"})]
    by_label = run_plugin(CostAware, pod("p"), nodes, args=LABEL)
    by_annotation = run_plugin(CostAware, pod("p"), nodes, args={**LABEL, "source": "annotation"})
    assert by_label.raw == {"by-label": 1_000_000, "by-annotation": -1}
    assert by_annotation.raw == {"by-label": -1, "by-annotation": 2_000_000}


@pytest.mark.parametrize(("prices", "unpriced", "scores"), [
    # Every priced node costs the same: each scores 100.
    ((("a", "1"), ("b", "1.000"), ("c", None)), "lowest", {"a": 100, "b": 100, "c": 0}),
    ((("a", "1"),), "lowest", {"a": 100}),
    # No node is priced: each gets the unpriced score.
    ((("a", None), ("b", "x")), "lowest", {"a": 0, "b": 0}),
    ((("a", None), ("b", "x")), "highest", {"a": 100, "b": 100}),
    # 100 * (hi - p) overflows an int64 here; the formula is computed exactly.
    ((("zero", "0"), ("half", "4611686018427.387904"), ("max", "9223372036854.775807")), "lowest",
     {"zero": 100, "half": 49, "max": 0}),
], ids=["all-equal", "one-node", "none-priced-lowest", "none-priced-highest", "beyond-int64"])
def test_normalize_edges(prices: tuple, unpriced: str, scores: dict) -> None:
    run = run_plugin(CostAware, pod("p"), annotated(*prices), args={**LABEL, "source": "annotation",
                                                                    "unpriced": unpriced})
    assert run.scores == scores


def test_registers_through_its_entry_point() -> None:
    registered: list[type] = []
    ruleset_register_plugins(registered.append)
    assert registered == [CostAware]
    run = run_plugin("CostAware", pod("p"), labelled(*NODES), args=LABEL)
    assert run.scores == {**PRICED_SCORES, "junk": 0, "bare": 0}


QUALIFIED = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
             "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
             "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
REQUIRED = (("priceKey",),
            "priceKey: Required value: must name the label or annotation holding each node's price")
SOURCES = 'supported values: "label", "annotation"'
POLICIES = 'supported values: "lowest", "highest", "reject"'


@pytest.mark.parametrize(("args", "expected"), [
    (LABEL, []),
    ({**LABEL, "source": "annotation", "unpriced": "reject"}, []),
    ({}, [REQUIRED]),
    ({"priceKey": "hourly price"},
     [(("priceKey",), f'priceKey: Invalid value: "hourly price": {QUALIFIED}')]),
    ({**LABEL, "source": "Label"},
     [(("source",), f'source: Unsupported value: "Label": {SOURCES}')]),
    ({**LABEL, "unpriced": "zero"},
     [(("unpriced",), f'unpriced: Unsupported value: "zero": {POLICIES}')]),
    ({"source": "", "unpriced": ""},
     [REQUIRED,
      (("source",), f'source: Unsupported value: "": {SOURCES}'),
      (("unpriced",), f'unpriced: Unsupported value: "": {POLICIES}')]),
], ids=["valid", "valid-annotation", "no-key", "bad-key", "bad-source", "bad-unpriced", "every-problem"])
def test_args_validation(args: dict, expected: list) -> None:
    _, errors = CostAware.check_args(args)
    assert [(e.path, e.message) for e in errors] == expected


def test_invalid_args_stop_a_run() -> None:
    with pytest.raises(Exception, match='unpriced: Unsupported value: "zero"'):
        run_plugin(CostAware, pod("p"), labelled(*NODES), args={**LABEL, "unpriced": "zero"})
