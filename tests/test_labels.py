"""LabelTable rows: clearing and replacing touch only the row's own labels."""

from __future__ import annotations

import random

from ruleset.labels import ABSENT, LabelTable


def test_clear_removes_only_that_rows_labels() -> None:
    table = LabelTable([{"app": "a", "tier": "web"}, {"app": "b"}, {"zone": "z1"}])
    table.clear(0)
    assert table.row(0) == {}
    assert table.row(1) == {"app": "b"}
    assert table.row(2) == {"zone": "z1"}
    assert table.column("app").tolist() == [ABSENT, table.code_of("app", "b"), ABSENT]
    assert table.column("tier").tolist() == [ABSENT, ABSENT, ABSENT]


def test_set_row_replaces_every_label_of_the_row() -> None:
    table = LabelTable([{"app": "a", "tier": "web"}, {"tier": "db"}])
    table.set_row(0, {"zone": "z1"})
    assert table.row(0) == {"zone": "z1"}
    assert table.column("app").tolist() == [ABSENT, ABSENT]
    assert table.column("tier").tolist() == [ABSENT, table.code_of("tier", "db")]
    table.clear(0)
    table.set_row(0, {"app": "a", "new": "key"})
    assert table.row(0) == {"app": "a", "new": "key"}
    assert table.row(1) == {"tier": "db"}


def test_random_edits_match_a_dict_model() -> None:
    rng = random.Random(7)
    keys, values = ["a", "b", "c", "d"], ["1", "2", "3"]
    model: list[dict[str, str]] = []
    table = LabelTable(capacity=2)
    for _ in range(400):
        labels = {k: rng.choice(values) for k in rng.sample(keys, rng.randrange(len(keys) + 1))}
        action = rng.randrange(3) if model else 0
        if action == 0:
            assert table.append(labels) == len(model)
            model.append(labels)
        elif action == 1:
            row = rng.randrange(len(model))
            table.set_row(row, labels)
            model[row] = labels
        else:
            row = rng.randrange(len(model))
            table.clear(row)
            model[row] = {}
    assert [table.row(i) for i in range(len(model))] == model
    for key in keys:
        column = table.column(key)
        vocabulary = table.vocabulary(key)
        assert [vocabulary[c] if c != ABSENT else None for c in column.tolist()] == [m.get(key) for m in model]
