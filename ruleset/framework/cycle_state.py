"""``CycleState``: data plugins share within one scheduling cycle of one pod."""

from __future__ import annotations

from typing import Any


class StateNotFound(KeyError):
    """Read of a key no plugin wrote in this cycle."""


class CycleState:
    """A per-cycle key/value store.

    Values that the preemption dry-run must copy (because it adds and removes pods and lets
    PreFilter extensions update their state) implement ``clone()``; other values are shared.
    """

    __slots__ = ("_data",)

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}

    def read(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise StateNotFound(f"{key!r} not found in cycle state") from None

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def clone(self) -> CycleState:
        copy = CycleState()
        copy._data = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in self._data.items()}
        return copy
