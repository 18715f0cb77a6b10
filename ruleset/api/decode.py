"""Typed, located reading of Kubernetes objects from parsed YAML/JSON.

Decoders never raise on bad input: they record a :class:`~ruleset.errors.Problem` naming
the file, the line (when the source was YAML), the object and the field path, and carry on
with a neutral value so that one run reports every problem at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ruleset.errors import Problem
from ruleset.quantity import QuantityError, coerce_quantity

# The containers the YAML reader builds live with it, on the ground floor; decoders read them here.
from ruleset.reading import LocatedDict as LocatedDict
from ruleset.reading import LocatedList as LocatedList

#: Whether decoders take their fast paths for well-formed objects (pods, metadata, resource
#: lists): each gives exactly what the checking path gives, and hands anything unusual, or
#: anything with a problem, to it. Tests turn it off to compare the two.
FAST_PATHS = True


def line_of(container: Any, key: Any = None) -> int | None:
    """Best-known 1-based line of ``container[key]`` (or of the container itself)."""
    if isinstance(container, LocatedDict):
        if key is not None and key in container.key_lines:
            return container.key_lines[key]
        return container.line
    if isinstance(container, LocatedList):
        if isinstance(key, int) and 0 <= key < len(container.item_lines):
            return container.item_lines[key]
        return container.line
    return None


@dataclass
class DecodeContext:
    """Where decoding happens (file, document, object) and the problems found so far."""

    file: str | None = None
    document: int | None = None
    subject: str = ""
    problems: list[Problem] = field(default_factory=list)
    #: Whether objects get the API server's checks (:mod:`ruleset.api.validation`): those read
    #: from a cluster dump do; objects built the way upstream's unit tests build them (which
    #: the API server never saw) do not.
    api_checks: bool = True

    def fail(self, path: str, message: str, container: Any = None, key: Any = None) -> None:
        line = line_of(container, key)
        where = self.subject
        if line is None and self.document is not None:
            where = f"document {self.document + 1}: {where}" if where else f"document {self.document + 1}"
        full_path = f"{where}: {path}" if where and path else (where or path)
        self.problems.append(Problem(message, file=self.file, line=line, path=full_path or None,
                                     code="invalid-object"))


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    for typ, name in ((bool, "a boolean"), (dict, "an object"), (list, "a list"), (str, "a string"),
                      (int, "an integer"), (float, "a number")):
        if isinstance(value, typ):
            return name
    return type(value).__name__


def get_map(ctx: DecodeContext, obj: Any, key: str, path: str) -> dict:
    """``obj[key]`` as a mapping; absent or null gives ``{}``."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value.__class__ is dict:  # the common case first: these run millions of times per snapshot
        return value
    if value is None:
        return {}
    if not isinstance(value, dict):
        ctx.fail(path, f"expected an object, got {_type_name(value)}", obj, key)
        return {}
    return value


def get_list(ctx: DecodeContext, obj: Any, key: str, path: str) -> list:
    """``obj[key]`` as a sequence; absent or null gives ``[]``."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value.__class__ is list:
        return value
    if value is None:
        return []
    if not isinstance(value, list):
        ctx.fail(path, f"expected a list, got {_type_name(value)}", obj, key)
        return []
    return value


def get_str(ctx: DecodeContext, obj: Any, key: str, path: str, default: str = "",
            required: bool = False) -> str:
    """``obj[key]`` as a string."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value.__class__ is str:
        return value
    if value is None:
        if required:
            ctx.fail(path, "Required value", obj)
        return default
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        ctx.fail(path, f"expected a string, got {_type_name(value)}", obj, key)
        return default
    if not isinstance(value, str):
        # Unquoted YAML scalars such as `zone: 1` or `version: 1.20` are still label text.
        return str(value)
    return value


def get_int(ctx: DecodeContext, obj: Any, key: str, path: str, default: int | None = None) -> int | None:
    """``obj[key]`` as an integer."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value.__class__ is int:
        return value
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        ctx.fail(path, f"expected an integer, got {_type_name(value)}", obj, key)
        return default
    return value


def get_bool(ctx: DecodeContext, obj: Any, key: str, path: str, default: bool = False) -> bool:
    """``obj[key]`` as a boolean."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value.__class__ is bool:
        return value
    if value is None:
        return default
    if not isinstance(value, bool):
        ctx.fail(path, f"expected a boolean, got {_type_name(value)}", obj, key)
        return default
    return value


def get_string_map(ctx: DecodeContext, obj: Any, key: str, path: str) -> dict[str, str]:
    """``obj[key]`` as a string-to-string mapping (labels, annotations, selectors)."""
    raw = get_map(ctx, obj, key, path)
    out: dict[str, str] = {}
    for k, v in raw.items():
        if v.__class__ is str and k.__class__ is str:
            out[k] = v
            continue
        if v is None:
            v = ""
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            ctx.fail(f"{path}.{k}", f"expected a string, got {_type_name(v)}", raw, k)
            continue
        out[str(k)] = v if isinstance(v, str) else str(v)
    return out


def get_string_list(ctx: DecodeContext, obj: Any, key: str, path: str) -> list[str]:
    """``obj[key]`` as a list of strings."""
    out = []
    items = get_list(ctx, obj, key, path)
    for i, v in enumerate(items):
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            ctx.fail(f"{path}[{i}]", f"expected a string, got {_type_name(v)}", items, i)
            continue
        out.append(v if isinstance(v, str) else str(v))
    return out


def get_quantities(ctx: DecodeContext, obj: Any, key: str, path: str) -> dict[str, Fraction]:
    """``obj[key]`` as a resource list (name to exact quantity)."""
    raw = get_map(ctx, obj, key, path)
    out: dict[str, Fraction] = {}
    for name, value in raw.items():
        try:
            out[str(name)] = coerce_quantity(value)
        except QuantityError as exc:
            ctx.fail(f"{path}.{name}", f"{value!r}: {exc}", raw, name)
    return out
