"""The JSON Schema of a profile file, with every installed plugin's args schema inside it.

Plugins contribute their args schema through the ``ruleset_plugin_args_schema`` hook
(:meth:`PluginRegistry.args_schema`); ``ruleset schema`` prints the result for editors.
"""

from __future__ import annotations

from typing import Any

from ruleset.framework.runtime import POINT_HOOKS
from ruleset.pluginmanager import PluginRegistry

SCHEMA_ID = "https://ruleset.dev/schemas/profile.json"
MAX_WEIGHT = (2**63 - 1) // 100


def plugin_table_schema(args_schema: dict[str, Any] | None, description: str = "") -> dict[str, Any]:
    """Schema of one ``[plugins.<Name>]`` table."""
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "enabled": {"type": "boolean", "default": True,
                        "description": "false drops a plugin inherited through extends."},
            "weight": {"type": "integer", "minimum": 1, "maximum": MAX_WEIGHT, "default": 1,
                       "description": "Score weight: the node total is the sum of weight × normalized score."},
            "points": {"type": "array", "uniqueItems": True, "items": {"enum": list(POINT_HOOKS)},
                       "description": "Limit the plugin to these extension points (default: all it implements)."},
            "args": args_schema if args_schema is not None else {"type": "object"},
        },
    }
    if description:
        schema["description"] = description
    return schema


RULE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name"],
    "anyOf": [{"required": ["require"]}, {"required": ["prefer"]}],
    "properties": {
        "name": {"type": "string", "minLength": 1, "description": "Unique rule name (shown in reasons and scores)."},
        "description": {"type": "string"},
        "pods": {"type": "string", "description": "Selector of the pods the rule applies to (default: every pod)."},
        "require": {"type": "string", "description": "Filter: nodes must match this selector."},
        "prefer": {"type": "string", "description": "Score: 100 where the node matches this selector, else 0."},
        "weight": {"type": "integer", "minimum": 1, "maximum": MAX_WEIGHT, "default": 1},
    },
}


def profile_schema(registry: PluginRegistry) -> dict[str, Any]:
    """The full profile schema for the plugins in ``registry``."""
    plugins = {}
    for name in registry.names():
        cls = registry.get(name)
        doc = (cls.__doc__ or "").strip().splitlines()[0] if cls is not None and cls.__doc__ else ""
        plugins[name] = plugin_table_schema(registry.args_schema(name), doc)
    for alias, target in sorted(registry.aliases.items()):
        plugins.setdefault(alias, plugin_table_schema(registry.args_schema(target), f"Deprecated alias of {target}."))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "ruleset scheduling profile",
        "type": "object",
        "additionalProperties": False,
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "description": "The profile's name."},
            "description": {"type": "string"},
            "extends": {"type": "string", "minLength": 1,
                        "description": "A bundled profile name, or a path relative to this file."},
            "percentageOfNodesToScore": {"type": "integer", "minimum": 0, "maximum": 100,
                                         "description": "0 (default) is adaptive: 50 − nodes/125, at least 5%."},
            "plugins": {
                "type": "object",
                "description": "One table per plugin, in run order.",
                "properties": plugins,
                "additionalProperties": plugin_table_schema(None),
            },
            "rules": {"type": "array", "items": RULE_SCHEMA},
        },
    }
