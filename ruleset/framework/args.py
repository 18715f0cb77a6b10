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
    """

    path: tuple[str | int, ...]
    message: str


def arg_field(key: str, default: Any = dataclasses.MISSING, *, default_factory: Any = dataclasses.MISSING,
              parse: Callable[[Any], Any] | None = None, dump: Callable[[Any], Any] | None = None) -> Any:
    """A dataclass field read from ``args[key]``; ``parse``/``dump`` convert nested values."""
    metadata = {"key": key, "parse": parse, "dump": dump}
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
