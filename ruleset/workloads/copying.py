"""Copies of raw objects that keep their YAML line maps, and a canonical JSON text of them.

Both walk the object with an explicit stack: a manifest may nest 1,000 levels deep
(:data:`ruleset.reading.CLUSTER`), deeper than Python's recursion allows.
"""

from __future__ import annotations

import json
from typing import Any

from ruleset.reading import LocatedDict, LocatedList


def _empty_like(value: Any) -> Any:
    if isinstance(value, LocatedDict):
        out: Any = LocatedDict()
        out.key_lines = dict(value.key_lines)
        out.line = value.line
        return out
    if isinstance(value, LocatedList):
        out = LocatedList()
        out.item_lines = list(value.item_lines)
        out.line = value.line
        return out
    if isinstance(value, dict):
        return {}
    return []


def located_copy(value: Any) -> Any:
    """A deep copy of a raw (parsed YAML or JSON) value: mappings and sequences are new, and
    a :class:`~ruleset.reading.LocatedDict` or :class:`~ruleset.reading.LocatedList` stays
    one, with its lines, so a problem in the copy is reported at the original's line.
    Scalars are shared (they are immutable)."""
    if not isinstance(value, (dict, list)):
        return value
    root = _empty_like(value)
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, (dict, list)):
                child = _empty_like(item)
                stack.append((item, child))
            else:
                child = item
            if isinstance(target, dict):
                target[key] = child
            else:
                target.append(child)
    return root


class _Text(str):
    """Text already encoded, pushed on the stack between values."""


def _meaningful(value: Any) -> bool:
    # The typed object a manifest decodes to has no way to tell an absent field from a null
    # or empty one (Go's omitempty), so neither does the canonical text.
    return value is not None and value != {} and value != []


def canonical_json(value: Any) -> str:
    """``value`` as compact JSON with sorted keys (Go's ``json.Marshal`` of a map), mapping
    keys as text, null and empty members of mappings left out, and anything that is not a
    JSON scalar (a YAML timestamp) as its text. Two manifests that decode to the same object
    have the same canonical text (up to defaulting, which ruleset does not apply)."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Text):
            out.append(item)
        elif isinstance(item, dict):
            members = sorted(((str(k), v) for k, v in item.items() if _meaningful(v)), key=lambda kv: kv[0])
            stack.append(_Text("}"))
            for i, (key, member) in enumerate(reversed(members)):
                stack.append(member)
                comma = "," if i < len(members) - 1 else ""
                stack.append(_Text(comma + json.dumps(key, ensure_ascii=False) + ":"))
            out.append("{")
        elif isinstance(item, list):
            stack.append(_Text("]"))
            for i, member in enumerate(reversed(item)):
                stack.append(member)
                if i < len(item) - 1:
                    stack.append(_Text(","))
            out.append("[")
        elif item is None or isinstance(item, (bool, int, float, str)):
            out.append(json.dumps(item, ensure_ascii=False))
        else:
            out.append(json.dumps(str(item), ensure_ascii=False))
    return "".join(out)
