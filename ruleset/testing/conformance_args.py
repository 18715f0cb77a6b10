"""What a plugin's args schema must be: a valid JSON Schema that agrees with its Args dataclass.

Args are declared once, as :func:`ruleset.arg_field` fields of the plugin's ``Args``; the
schema editors and ``ruleset validate`` check profiles against is derived from them, so
writing a default out must mean what leaving the arg out means.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ruleset.framework.args import args_schema, args_to_mapping
from ruleset.framework.plugin import Plugin

__all__ = ["args_problems"]


def args_problems(cls: type[Plugin], args: Mapping[str, Any] | None = None) -> list[str]:
    """Every way ``cls``'s args schema falls short (empty when it conforms); with ``args``, also
    whether those args are accepted (by the schema, then by ``validate_args``)."""
    from jsonschema import Draft202012Validator, SchemaError

    from ruleset.testing.run import schema_errors

    schema = cls.args_schema
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return [f"args_schema is not a valid JSON Schema (draft 2020-12): {exc.message}"]
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    problems = []
    if cls.Args is not None:
        derived = args_schema(cls.Args)
        if schema != derived:
            problems.append("args_schema is not the schema derived from the Args dataclass "
                            "(declare each arg once, with arg_field(key, default, schema=...))")
        keys = [f.metadata.get("key", f.name) for f in dataclasses.fields(cls.Args)]
        if list(properties) != keys:
            problems.append(f"args_schema's properties {list(properties)} are not the Args keys {keys}")
    annotated = {key: prop["default"] for key, prop in properties.items()
                 if isinstance(prop, dict) and "default" in prop}
    changed = []
    for key, default in annotated.items():
        try:
            if cls.parse_args({key: default}) != cls.parse_args({}):
                changed.append(key)
        except Exception as exc:
            problems.append(f"parsing the schema's default of {key!r} failed: {type(exc).__name__}: {exc}")
    if changed:
        problems.append(f"writing out the schema default of {changed} changes the args "
                        "(a default must mean what omitting the arg means)")
    if cls.Args is not None:
        declared = args_to_mapping(cls.Args())
        if sorted(annotated) != sorted(declared):
            problems.append(f"the schema annotates defaults for {sorted(annotated)}, the Args dataclass "
                            f"defaults {sorted(declared)}")
    undocumented = [key for key, prop in properties.items()
                    if not isinstance(prop, dict) or not isinstance(prop.get("description"), str)
                    or not prop["description"].strip()]
    if undocumented:
        problems.append(f"args without a description: {undocumented}")
    problems += [f"the defaults {error}" for error in schema_errors(schema, {})]
    if args is not None:
        problems += [f"the args given: {error}" for error in schema_errors(schema, args)]
        _, errors = cls.check_args(args)
        problems += [f"the args given: {'.'.join(map(str, e.path)) or 'args'}: {e.message}" for e in errors]
    return problems
