"""Columnar label storage: the labels of many objects, one integer column per key.

Each key has a vocabulary of the values seen for it; a row stores, per key, the code of
its value or ``-1`` when the object does not carry the key. Selectors are matched against
a whole table at once with numpy (see :meth:`ruleset.selector.Selector.match_table`),
never with a Python loop over objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from ruleset.gofmt import parse_int64

ABSENT = -1
_NO_CODES: dict[str, int] = {}


class LabelTable:
    """Labels of many objects in columns. Rows are appended; a cleared row has no labels."""

    __slots__ = ("_capacity", "_columns", "_int_cache", "_row_keys", "_size", "_vocab", "_vocab_index")

    def __init__(self, rows: Iterable[Mapping[str, str]] = (), capacity: int = 16):
        self._capacity = max(1, capacity)
        self._size = 0
        self._columns: dict[str, np.ndarray] = {}
        self._vocab: dict[str, list[str]] = {}
        self._vocab_index: dict[str, dict[str, int]] = {}
        self._int_cache: dict[str, tuple[int, np.ndarray, np.ndarray]] = {}
        #: The keys each row carries, so clearing a row touches only its own columns.
        self._row_keys: list[tuple[str, ...]] = []
        for labels in rows:
            self.append(labels)

    def __len__(self) -> int:
        return self._size

    def _grow(self, needed: int) -> None:
        if needed <= self._capacity:
            return
        capacity = self._capacity
        while capacity < needed:
            capacity *= 2
        for key, column in self._columns.items():
            grown = np.full(capacity, ABSENT, dtype=np.int32)
            grown[: self._size] = column[: self._size]
            self._columns[key] = grown
        self._capacity = capacity

    def _code(self, key: str, value: str) -> int:
        index = self._vocab_index.get(key)
        if index is None:
            index = self._vocab_index[key] = {}
            self._vocab[key] = []
            self._columns[key] = np.full(self._capacity, ABSENT, dtype=np.int32)
        code = index.get(value)
        if code is None:
            code = index[value] = len(self._vocab[key])
            self._vocab[key].append(value)
        return code

    def append(self, labels: Mapping[str, str]) -> int:
        """Add a row and return its index."""
        self._grow(self._size + 1)
        row = self._size
        self._size += 1
        self._row_keys.append(())
        self._fill(row, labels)
        return row

    def _fill(self, row: int, labels: Mapping[str, str]) -> None:
        columns, vocab_index = self._columns, self._vocab_index
        for key, value in labels.items():
            code = vocab_index.get(key, _NO_CODES).get(value)
            if code is None:  # a new key or value
                code = self._code(key, value)
            columns[key][row] = code
        self._row_keys[row] = tuple(labels)

    def clear(self, row: int) -> None:
        """Remove every label from ``row`` (the row index stays valid)."""
        columns = self._columns
        for key in self._row_keys[row]:
            columns[key][row] = ABSENT
        self._row_keys[row] = ()

    def set_row(self, row: int, labels: Mapping[str, str]) -> None:
        """Replace the labels of an existing row."""
        self.clear(row)
        self._fill(row, labels)

    def keys(self) -> list[str]:
        return list(self._columns)

    def column(self, key: str) -> np.ndarray | None:
        """Value codes of ``key`` for every row (``-1`` where absent), or None if no row has it."""
        column = self._columns.get(key)
        return None if column is None else column[: self._size]

    def vocabulary(self, key: str) -> list[str]:
        """The values seen for ``key``; a code indexes this list."""
        return self._vocab.get(key, [])

    def code_of(self, key: str, value: str) -> int:
        """The code of ``value`` under ``key``, or ``-1`` when no row ever had it."""
        return self._vocab_index.get(key, _NO_CODES).get(value, ABSENT)

    def int_values(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """Per vocabulary entry: (parses as a base-10 int64, its value). For ``Gt``/``Lt``."""
        vocab = self._vocab.get(key, [])
        cached = self._int_cache.get(key)
        if cached is not None and cached[0] == len(vocab):
            return cached[1], cached[2]
        ok = np.zeros(len(vocab), dtype=bool)
        values = np.zeros(len(vocab), dtype=np.int64)
        for i, text in enumerate(vocab):
            parsed = parse_int64(text)
            if parsed is not None:
                ok[i] = True
                values[i] = parsed
        self._int_cache[key] = (len(vocab), ok, values)
        return ok, values

    def row(self, row: int) -> dict[str, str]:
        """The labels of one row, as a dict."""
        out = {}
        for key, column in self._columns.items():
            code = column[row]
            if code != ABSENT:
                out[key] = self._vocab[key][code]
        return out

