"""Write profiles (and any plain data) as TOML that ``tomllib`` reads back to the same data.

Profiles are small: a few top-level keys, one ``[plugins.<Name>]`` table per plugin in run
order, ``args`` tables and ``[[rules]]``. :func:`dumps` writes them the way people write
them by hand:

* scalars and arrays of a table first, then its sub-tables as ``[dotted.headers]``, in
  insertion order (so plugin order survives);
* a table listed in ``inline`` (``args`` by default) is written as an inline table when it
  fits on one line of ``width`` characters, otherwise as its own ``[...args]`` section;
* arrays of tables are ``[[headers]]`` at table level and one inline table per line inside
  a value;
* empty tables keep their header (``[plugins.PrioritySort]``).

No new dependency: ``tomli-w`` would do the escaping but not the layout. TOML has no null:
``None`` values are an error, as are keys that are not strings.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def format_key(key: str) -> str:
    """A key as TOML writes it: bare when it can be, else a quoted basic string."""
    if not isinstance(key, str):
        raise TypeError(f"TOML keys are strings, got {type(key).__name__} ({key!r})")
    return key if _BARE_KEY.fullmatch(key) else format_string(key)


def format_string(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def format_scalar(value: Any) -> str:
    if value is None:
        raise TypeError("TOML has no null: leave the key out instead of writing None")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        text = repr(value)
        return text if any(c in text for c in ".eE") else text + ".0"
    if isinstance(value, str):
        return format_string(value)
    raise TypeError(f"cannot write {type(value).__name__} ({value!r}) as TOML")


def format_inline(value: Any) -> str:
    """Any value on one line: scalars, ``[a, b]`` arrays and ``{ k = v }`` inline tables."""
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{format_key(k)} = {format_inline(v)}" for k, v in value.items()) + " }"
    if _is_array(value):
        return "[" + ", ".join(format_inline(v) for v in value) + "]"
    return format_scalar(value)


def _is_array(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))


def _is_table_array(value: Any) -> bool:
    return _is_array(value) and bool(value) and all(isinstance(v, Mapping) for v in value)


def _value_lines(key: str, value: Any, width: int) -> list[str]:
    """``key = value``, breaking a long array into one item per line."""
    one_line = f"{format_key(key)} = {format_inline(value)}"
    if len(one_line) <= width or not _is_array(value) or not value:
        return [one_line]
    lines = [f"{format_key(key)} = ["]
    lines.extend(f"  {format_inline(item)}," for item in value)
    lines.append("]")
    return lines


def dumps(
    data: Mapping[str, Any],
    *,
    header: Iterable[str] = (),
    inline: Iterable[str] = ("args",),
    width: int = 120,
) -> str:
    """Serialise ``data`` as TOML; ``header`` lines become leading ``#`` comments."""
    out: list[str] = [f"# {line}".rstrip() for line in header]
    if out:
        out.append("")
    _write_table(out, (), data, frozenset(inline), width)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def _write_table(
    out: list[str],
    path: tuple[str, ...],
    table: Mapping[str, Any],
    inline_keys: frozenset[str],
    width: int,
) -> None:
    # Inside an ``args``-like table that did not fit on one line, nested values stay as
    # compact as they fit: inline tables, and arrays of them one item per line.
    compact = any(k in inline_keys for k in path)
    sections: list[tuple[str, Any]] = []
    for key, value in table.items():
        format_key(key)  # type check early, with the key in the message
        if isinstance(value, Mapping):
            rendered = f"{format_key(key)} = {format_inline(value)}"
            if (key in inline_keys or compact) and len(rendered) <= width:
                out.append(rendered)
                continue
            sections.append((key, value))
        elif (
            _is_table_array(value)
            and key not in inline_keys
            and not (compact and all(len(format_inline(item)) + 3 <= width for item in value))
        ):
            sections.append((key, value))
        else:
            out.extend(_value_lines(key, value, width))
    for key, value in sections:
        sub = (*path, key)
        name = ".".join(format_key(k) for k in sub)
        if isinstance(value, Mapping):
            nested_only = (
                bool(value)
                and all(isinstance(v, Mapping) for v in value.values())
                and not any(k in inline_keys for k in value)
            )
            if nested_only and key not in inline_keys:
                # A table of tables (``plugins``): its header would be empty noise; TOML
                # defines it implicitly through the sub-table headers.
                _write_table(out, sub, value, inline_keys, width)
                continue
            if out and out[-1] != "":
                out.append("")
            out.append(f"[{name}]")
            _write_table(out, sub, value, inline_keys, width)
        else:
            for item in value:
                if out and out[-1] != "":
                    out.append("")
                out.append(f"[[{name}]]")
                _write_table(out, sub, item, inline_keys, width)
