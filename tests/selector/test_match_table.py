"""``Selector.match_table``: the vectorised path must agree with ``matches`` on the same rows."""

import numpy as np
import pytest

from ruleset.labels import LabelTable
from ruleset.selector import Requirement, Selector, from_set, parse

ROWS = [
    {"app": "web", "tier": "frontend", "zone": "a", "rank": "3"},
    {"app": "web", "tier": "backend", "zone": "b", "rank": "10"},
    {"app": "db", "tier": "backend", "rank": "-2"},
    {"app": "db", "zone": "a", "rank": "x"},
    {"tier": "", "rank": "0204"},
    {},
    {"app": "cache", "canary": "true", "zone": "c", "rank": "9223372036854775807"},
    {"app": "web", "zone": "", "canary": "", "rank": "+4"},
]

SELECTORS = [
    "",
    "app=web",
    "app==db",
    "app!=web",
    "app in (web,db)",
    "app notin (web,db)",
    "app in (nosuchvalue)",
    "app notin (nosuchvalue)",
    "tier in ()",
    "tier notin ()",
    "zone",
    "!zone",
    "canary,!tier",
    "rank>3",
    "rank<4",
    "rank<0",
    "rank>9223372036854775806",
    "nosuchkey",
    "!nosuchkey",
    "nosuchkey=x",
    "nosuchkey!=x",
    "nosuchkey>1",
    "app=web,zone=a",
    "app=web || app=db,rank<0",
    "app in (cache) || !app || tier=backend",
    "app=web,tier=frontend,zone=a,rank>2",
]


@pytest.fixture(scope="module")
def table():
    return LabelTable(ROWS)


@pytest.mark.parametrize("text", SELECTORS)
def test_match_table_equals_matches(table, text):
    selector = parse(text)
    expected = [selector.matches(row) for row in ROWS]
    got = selector.match_table(table)
    assert got.dtype == bool
    assert got.tolist() == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("app=web", [True, True, False, False, False, False, False, True]),
        ("app notin (web,db)", [False, False, False, False, True, True, True, False]),
        ("rank>3", [False, True, False, False, True, False, True, True]),
        ("tier in ()", [False, False, False, False, True, False, False, False]),
        ("!zone", [False, False, True, False, True, True, False, False]),
        ("app=web || app=db,rank<0", [True, True, True, False, False, False, False, True]),
    ],
)
def test_match_table_exact(table, text, expected):
    assert parse(text).match_table(table).tolist() == expected


def test_nothing_and_everything(table):
    assert Selector.NOTHING.match_table(table).tolist() == [False] * len(ROWS)
    assert Selector.EVERYTHING.match_table(table).tolist() == [True] * len(ROWS)


@pytest.mark.parametrize("text", ["app=web", "app notin (web)", "!zone", "rank>0 || canary", "nosuchkey!=1"])
def test_row_subsets(table, text):
    selector = parse(text)
    indices = np.array([6, 0, 3, 3])
    assert selector.match_table(table, indices).tolist() == [selector.matches(ROWS[i]) for i in indices]
    mask = np.array([i % 2 == 0 for i in range(len(ROWS))])
    assert selector.match_table(table, mask).tolist() == [
        selector.matches(ROWS[i]) for i in np.flatnonzero(mask)
    ]
    assert selector.match_table(table, np.array([], dtype=np.int64)).tolist() == []


def test_empty_table():
    table = LabelTable()
    assert parse("a=b").match_table(table).tolist() == []
    assert parse("!a").match_table(table).tolist() == []
    assert Selector.NOTHING.match_table(table).tolist() == []


def test_rows_changed_after_matching():
    table = LabelTable([{"n": "1"}, {"n": "5"}])
    selector = parse("n>2")
    assert selector.match_table(table).tolist() == [False, True]
    table.set_row(0, {"n": "7"})  # a new vocabulary entry: the integer cache must be refreshed
    table.append({"n": "x"})
    table.clear(1)
    rows = [table.row(i) for i in range(len(table))]
    assert rows == [{"n": "7"}, {}, {"n": "x"}]
    assert selector.match_table(table).tolist() == [selector.matches(r) for r in rows] == [True, False, False]


def test_unvalidated_requirements_match_like_the_scalar_path(table):
    selectors = [
        from_set({"app": "we b", "-weird": ""}),
        Selector(((Requirement("rank", "gt", ("x",)),),)),
        Selector(((Requirement("rank", "lt", ("1", "2")),),)),
        Selector(((Requirement("app", "bogus", ("web",)),),)),
    ]
    for selector in selectors:
        assert selector.match_table(table).tolist() == [selector.matches(row) for row in ROWS]
        assert selector.match_table(table).tolist() == [False] * len(ROWS)


def test_negative_bound(table):
    # "-3" is not a label value, so no selector text or validated requirement has it; built directly it works.
    selector = Selector(((Requirement("rank", "gt", ("-3",)),),))
    assert selector.match_table(table).tolist() == [selector.matches(row) for row in ROWS]
    assert selector.match_table(table).tolist() == [True, True, True, False, True, False, True, True]


def test_large_table_agrees_with_scalar_path():
    rng = np.random.default_rng(7)
    keys = [f"k{i}" for i in range(6)]
    rows = []
    for _ in range(2000):
        row = {}
        for key in keys:
            if rng.random() < 0.6:
                row[key] = (
                    str(int(rng.integers(-3, 12))) if rng.random() < 0.8 else f"v{int(rng.integers(0, 3))}"
                )
        rows.append(row)
    table = LabelTable(rows)
    for text in ["k0>2,k1 notin (3,4)", "k2 in (v1,5) || !k3,k4<0", "k5!=7,k0", "k1==v0 || k2>10 || !k0,!k1"]:
        selector = parse(text)
        got = selector.match_table(table)
        assert got.tolist() == [selector.matches(row) for row in rows]
        assert 0 < got.sum() < len(rows)  # the data exercises both answers
