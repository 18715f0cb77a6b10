"""Typed plugin args: dataclasses whose fields carry their Kubernetes (camelCase) key.

A plugin's args arrive from TOML already checked against the plugin's JSON Schema; these
helpers turn them into a frozen dataclass with defaults filled in, and back into the
camelCase mapping that ``ruleset show`` and the KubeSchedulerConfiguration export print.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ArgError:
    """A semantic problem in a plugin's args, with a Kubernetes-style message.

    ``path`` is relative to the plugin's ``args`` table, e.g. ``("shape", 1, "utilization")``.
    The problem is reported at that key, or with ``at_value`` at its value; ``offset``
    (1-based, implies ``at_value``) points at a character inside a string value, such as
    the place a selector stops parsing. ``code`` is the problem code ``ruleset validate``
    reports.
    """

    path: tuple[str | int, ...]
    message: str
    code: str = "invalid-args"
    at_value: bool = False
    offset: int | None = None


def arg_field(key: str, default: Any = dataclasses.MISSING, *, default_factory: Any = dataclasses.MISSING,
              parse: Callable[[Any], Any] | None = None, dump: Callable[[Any], Any] | None = None,
              schema: Mapping[str, Any] | None = None, description: str = "") -> Any:
    """A dataclass field read from ``args[key]``.

    ``parse``/``dump`` convert nested values; ``schema`` is the JSON Schema of the value and
    ``description`` what it means, from which :func:`args_schema` builds the plugin's
    args schema (the ``default`` there is the field's default, dumped).
    """
    metadata = {"key": key, "parse": parse, "dump": dump, "schema": dict(schema or {}),
                "description": description}
    if default_factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return args_to_mapping(value)
    return value


def args_from_mapping(cls: type, raw: Mapping[str, Any]) -> Any:
    """Build an args dataclass from a (schema-valid) mapping, filling defaults."""
    values = {}
    for f in dataclasses.fields(cls):
        key = f.metadata.get("key", f.name)
        if key not in raw or raw[key] is None:
            continue
        parse = f.metadata.get("parse")
        values[f.name] = parse(raw[key]) if parse else _freeze(raw[key])
    return cls(**values)


def args_schema(cls: type) -> dict[str, Any]:
    """The JSON Schema of an args dataclass's mapping: each field's schema, description and
    declared default (as written in a profile), and no other key.

    Every field must be an :func:`arg_field` with a ``schema`` and a default: args may
    always be omitted, and an arg without a schema would accept any value.
    """
    properties = {}
    for f in dataclasses.fields(cls):
        if "key" not in f.metadata or not f.metadata.get("schema"):
            raise TypeError(f"{cls.__qualname__}.{f.name}: declare each arg with "
                            f"arg_field(key, default, schema=...)")
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            raise TypeError(f"{cls.__qualname__}.{f.name}: an arg needs a default (args may be omitted)")
        fragment = dict(f.metadata["schema"])
        if f.metadata.get("description"):
            fragment["description"] = f.metadata["description"]
        if default is not None:
            dump = f.metadata.get("dump")
            fragment["default"] = dump(default) if dump else _thaw(default)
        properties[f.metadata["key"]] = fragment
    return {"type": "object", "additionalProperties": False, "properties": properties}


def args_to_mapping(args: Any) -> dict[str, Any]:
    """The camelCase mapping of an args dataclass, defaults included; None fields are left out."""
    out = {}
    for f in dataclasses.fields(args):
        value = getattr(args, f.name)
        if value is None:
            continue
        dump = f.metadata.get("dump")
        out[f.metadata.get("key", f.name)] = dump(value) if dump else _thaw(value)
    return out
