"""Copy-on-write editing of raw parsed objects, keeping the line maps of YAML input.

Admission never changes what it was given: every mapping or list on the way to a change is
copied once (:func:`located_copy`, which keeps ``key_lines``, ``item_lines`` and ``line``),
and only copies are changed, so decode errors in the result still point at the user's lines.
"""

from __future__ import annotations

from typing import Any

from ruleset.reading import LocatedDict, LocatedList


def located_copy(value: Any) -> Any:
    """A shallow copy of a mapping or list, of the same kind, with its line maps; other values as is."""
    if isinstance(value, LocatedDict):
        d = LocatedDict(value)
        d.key_lines = dict(value.key_lines)
        d.line = value.line
        return d
    if isinstance(value, LocatedList):
        lst = LocatedList(value)
        lst.item_lines = list(value.item_lines)
        lst.line = value.line
        return lst
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


def new_map_like(parent: Any) -> dict:
    """An empty mapping for a key that admission adds: located (with no line) under a located parent."""
    return LocatedDict() if isinstance(parent, LocatedDict) else {}


class Editor:
    """Copies on first write: every container handed out by :meth:`own` is a private copy."""

    def __init__(self) -> None:
        self._owned: set[int] = set()
        self._keep: list[Any] = []  # the copies stay alive, so their ids stay unique

    def root(self, raw: dict) -> dict:
        """A private copy of the top-level object."""
        return self._adopt(located_copy(raw))

    def _adopt(self, value: Any) -> Any:
        self._owned.add(id(value))
        self._keep.append(value)
        return value

    def owns(self, value: Any) -> bool:
        """Whether ``value`` is one of this editor's copies (safe to change)."""
        return id(value) in self._owned

    def own(self, parent: Any, key: Any, create: bool = False) -> Any:
        """``parent[key]`` as a private copy put back into ``parent`` (itself a private copy),
        or None when it is not a mapping or list. ``create`` makes an absent or null entry an
        empty mapping."""
        assert self.owns(parent), "edit a copy, never the input"
        child = parent[key] if _has(parent, key) else None
        if child is None:
            if not create or isinstance(parent, list):
                return None
            child = self._adopt(new_map_like(parent))
            parent[key] = child
            return child
        if not isinstance(child, (dict, list)):
            return None
        if self.owns(child):
            return child
        copy = self._adopt(located_copy(child))
        parent[key] = copy
        return copy


def _has(parent: Any, key: Any) -> bool:
    if isinstance(parent, dict):
        return key in parent
    return isinstance(key, int) and 0 <= key < len(parent)


def get_dict(obj: Any, key: str) -> dict | None:
    """``obj[key]`` when both are mappings, else None (absent, null or malformed)."""
    if not isinstance(obj, dict):
        return None
    value = obj.get(key)
    return value if isinstance(value, dict) else None


def get_list(obj: Any, key: str) -> list | None:
    """``obj[key]`` when ``obj`` is a mapping and the value a list, else None."""
    if not isinstance(obj, dict):
        return None
    value = obj.get(key)
    return value if isinstance(value, list) else None


def scalar_text(value: Any) -> str | None:
    """A scalar as the decoders read a string (``zone: 1`` is ``"1"``, null is ``""``); None
    for a value that is no scalar (a mapping, a list, a boolean)."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return value if isinstance(value, str) else str(value)
