"""The JSON Schema of a profile file, with every installed plugin's args schema inside it.

Plugins contribute their args schema through the ``ruleset_plugin_args_schema`` hook
(:meth:`PluginRegistry.args_schema`); ``ruleset schema`` prints the result for editors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ruleset.config import DEFAULT_SCHEDULER_NAME
from ruleset.framework.defaults import RULES_PLUGIN
from ruleset.framework.points import MAX_WEIGHT, POINT_KEYS
from ruleset.pluginmanager import PluginRegistry

SCHEMA_ID = "https://ruleset.dev/schemas/profile.json"


def plugin_table_schema(args_schema: dict[str, Any] | None, description: str = "") -> dict[str, Any]:
    """Schema of one ``[plugins.<Name>]`` table."""
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "enabled": {"type": "boolean", "default": True,
                        "description": "false drops a plugin inherited through extends."},
            "weight": {"type": "integer", "minimum": 1, "maximum": MAX_WEIGHT, "default": 1,
                       "description": "Score weight: the node total is the sum of weight × normalized "
                                      "score."},
            "points": {"type": "array", "uniqueItems": True, "items": {"enum": list(POINT_KEYS)},
                       "description": "Limit the plugin to these extension points (default: all it "
                                      "implements)."},
            "args": args_schema if args_schema is not None else {"type": "object"},
        },
    }
    if description:
        schema["description"] = description
    return schema


def profile_validator(registry: PluginRegistry) -> Any:
    """A Draft 2020-12 validator of :func:`profile_schema`, built once per registry (per set of
    plugins built, for a registry that builds them when first asked, whose schema holds those).

    It has jsonschema's ``iter_errors``. When the schema uses only the keywords
    :class:`SimpleValidator` implements (true of every built-in plugin's args schema), that
    one is used: it yields the same errors in the same order, and spares ``ruleset
    validate`` importing jsonschema and compiling its validator. A plugin whose args schema
    uses anything else brings jsonschema in.
    """
    key = _cache_key("profile_validator", registry)
    validator = registry.cache.get(key)
    if validator is None:
        schema = profile_schema(registry)
        if SimpleValidator.supports(schema):
            validator = SimpleValidator(schema)
        else:
            from jsonschema import Draft202012Validator

            validator = Draft202012Validator(schema)
        registry.cache[key] = validator
    return validator


def _cache_key(what: str, registry: PluginRegistry) -> Any:
    """``what``'s key in ``registry.cache``: with the plugins built so far when it builds them lazily."""
    if registry.deferred is None:
        return what
    registry.get(RULES_PLUGIN)  # the schema of [[rules]] is the Rules plugin's
    return what, frozenset(registry.classes)


@dataclass(frozen=True, slots=True)
class SchemaError:
    """The parts of a ``jsonschema.ValidationError`` the profile loader reads."""

    message: str
    validator: str
    validator_value: Any
    instance: Any
    schema: dict[str, Any]
    absolute_path: tuple[str | int, ...]


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float))


#: JSON Schema types as Draft 2020-12 (and jsonschema's type checker) define them.
_TYPES = {
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "integer": _is_integer,
    "null": lambda v: v is None,
    "number": _is_number,
    "object": lambda v: isinstance(v, dict),
    "string": lambda v: isinstance(v, str),
}
_TRUE, _FALSE = object(), object()


def _unbool(value: Any) -> Any:
    return _TRUE if value is True else _FALSE if value is False else value


def _equal(one: Any, two: Any) -> bool:
    """jsonschema's ``equal``: JSON equality, where ``true`` is not ``1``."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(_equal(one[k], two[k]) for k in one)
    return _unbool(one) == _unbool(two)


def _unique(items: list[Any]) -> bool:
    seen: list[Any] = []
    for item in items:
        if any(_equal(item, other) for other in seen):
            return False
        seen.append(item)
    return True


class SimpleValidator:
    """Draft 2020-12 validation for the keywords profile schemas use, as jsonschema does it.

    Keywords are applied in the order the schema lists them and subschemas are entered
    depth first, exactly as ``jsonschema.Draft202012Validator.iter_errors`` does, so the
    errors come out identical and in the same order. :meth:`supports` says whether a schema
    keeps to these keywords.
    """

    KEYWORDS = frozenset({"type", "properties", "additionalProperties", "required", "minimum", "maximum",
                          "exclusiveMinimum", "exclusiveMaximum", "enum", "items", "minLength", "uniqueItems",
                          "anyOf"})
    ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples",
                             "deprecated", "readOnly", "writeOnly"})

    def __init__(self, schema: dict[str, Any]):
        self.schema = schema

    @classmethod
    def supports(cls, schema: Any) -> bool:
        if not isinstance(schema, dict):
            return False
        for keyword, value in schema.items():
            if keyword in cls.ANNOTATIONS:
                continue
            if keyword not in cls.KEYWORDS:
                return False
            if keyword == "type":
                types = value if isinstance(value, list) else [value]
                if not all(isinstance(t, str) and t in _TYPES for t in types):
                    return False
            elif keyword == "properties":
                if not isinstance(value, dict) or not all(cls.supports(v) for v in value.values()):
                    return False
            elif keyword == "additionalProperties":
                if not (isinstance(value, bool) or cls.supports(value)):
                    return False
            elif keyword == "items":
                if not cls.supports(value):
                    return False
            elif keyword == "anyOf":
                if not isinstance(value, list) or not value or not all(cls.supports(v) for v in value):
                    return False
            elif keyword in ("required", "enum"):
                if not isinstance(value, list):
                    return False
            elif keyword != "uniqueItems" and not _is_number(value):  # the bounds and minLength
                return False
        return True

    def iter_errors(self, instance: Any) -> Any:
        return self._errors(instance, self.schema, ())

    def _errors(self, instance: Any, schema: dict[str, Any], path: tuple) -> Any:
        for keyword, value in schema.items():
            if keyword not in self.KEYWORDS:
                continue

            def error(message: str, keyword: str = keyword, value: Any = value) -> SchemaError:
                return SchemaError(message, keyword, value, instance, schema, path)

            if keyword == "type":
                types = value if isinstance(value, list) else [value]
                if not any(_TYPES[t](instance) for t in types):
                    yield error(f"{instance!r} is not of type {', '.join(repr(t) for t in types)}")
            elif keyword == "properties":
                if isinstance(instance, dict):
                    for name, subschema in value.items():
                        if name in instance:
                            yield from self._errors(instance[name], subschema, (*path, name))
            elif keyword == "additionalProperties":
                if isinstance(instance, dict):
                    known = schema.get("properties", {})
                    extras = [name for name in instance if name not in known]
                    if isinstance(value, dict):
                        for name in extras:
                            yield from self._errors(instance[name], value, (*path, name))
                    elif not value and extras:
                        names = sorted(extras, key=str)
                        listed = ", ".join(repr(n) for n in names)
                        yield error(f"Additional properties are not allowed ({listed} "
                                    f"{'was' if len(names) == 1 else 'were'} unexpected)")
            elif keyword == "required":
                if isinstance(instance, dict):
                    for name in value:
                        if name not in instance:
                            yield error(f"{name!r} is a required property")
            elif keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                if _is_number(instance):
                    yield from self._bound(keyword, value, instance, error)
            elif keyword == "enum":
                if all(not _equal(each, instance) for each in value):
                    yield error(f"{instance!r} is not one of {value!r}")
            elif keyword == "items":
                if isinstance(instance, list):
                    for index, item in enumerate(instance):
                        yield from self._errors(item, value, (*path, index))
            elif keyword == "minLength":
                if isinstance(instance, str) and len(instance) < value:
                    yield error(f"{instance!r} {'should be non-empty' if value == 1 else 'is too short'}")
            elif keyword == "uniqueItems":
                if value and isinstance(instance, list) and not _unique(instance):
                    yield error(f"{instance!r} has non-unique elements")
            elif keyword == "anyOf" and all(self._fails(instance, sub, path) for sub in value):
                yield error(f"{instance!r} is not valid under any of the given schemas")

    def _fails(self, instance: Any, schema: dict[str, Any], path: tuple) -> bool:
        return next(self._errors(instance, schema, path), None) is not None

    @staticmethod
    def _bound(keyword: str, bound: Any, instance: Any, error: Any) -> Any:
        if keyword == "minimum" and instance < bound:
            yield error(f"{instance!r} is less than the minimum of {bound!r}")
        elif keyword == "maximum" and instance > bound:
            yield error(f"{instance!r} is greater than the maximum of {bound!r}")
        elif keyword == "exclusiveMinimum" and instance <= bound:
            yield error(f"{instance!r} is less than or equal to the minimum of {bound!r}")
        elif keyword == "exclusiveMaximum" and instance >= bound:
            yield error(f"{instance!r} is greater than or equal to the maximum of {bound!r}")


def profile_schema(registry: PluginRegistry) -> dict[str, Any]:
    """The full profile schema for the plugins in ``registry`` (built once per registry)."""
    key = _cache_key("profile_schema", registry)
    schema = registry.cache.get(key)
    if schema is None:
        schema = registry.cache[key] = _build_profile_schema(registry)
    return schema


def _rules_schema(registry: PluginRegistry) -> dict[str, Any]:
    """``[[rules]]``: each table is an entry of the Rules plugin's ``rules`` arg."""
    rules = registry.args_schema(RULES_PLUGIN)["properties"]["rules"]
    return {"type": "array", "items": rules["items"],
            "description": "Declarative rules, shorthand for the Rules plugin's rules arg."}


#: A plugin table that takes no args.
_NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


def _build_profile_schema(registry: PluginRegistry) -> dict[str, Any]:
    plugins = {}
    # A registry that builds plugins when first asked (ruleset validate's) gives the tables of
    # those built: the plugins its profiles name, which are all a profile's validation reads.
    built = registry.names() if registry.deferred is None else sorted(registry.classes)
    for name in built:
        summary = registry.classes[name].summary()
        # A profile writes the Rules plugin's one arg as [[rules]] tables, the one spelling.
        args = _NO_ARGS if name == RULES_PLUGIN else registry.args_schema(name)
        plugins[name] = plugin_table_schema(args, summary)
    for alias, target in sorted(registry.aliases.items()):
        if target in registry.classes:
            plugins.setdefault(alias, plugin_table_schema(registry.args_schema(target),
                                                          f"Deprecated alias of {target}."))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "ruleset scheduling profile",
        "type": "object",
        "additionalProperties": False,
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "minLength": 1, "description": "The profile's name."},
            "schedulerName": {"type": "string", "minLength": 1, "default": DEFAULT_SCHEDULER_NAME,
                              "description": "The spec.schedulerName of the pods this profile schedules "
                                             "(kube-scheduler's profiles[].schedulerName); inherited through "
                                             "extends. Profiles run or exported together need distinct "
                                             "ones."},
            "description": {"type": "string"},
            "kubernetesVersion": {
                "type": "string",
                "description": "The kube-scheduler release the profile predicts, \"MAJOR.MINOR\" (1.20 to "
                               "1.35); its plugins, defaults, reasons and pod fields follow that release. "
                               "Absent: 1.20. Inherited through extends."},
            "featureGates": {"type": "object", "additionalProperties": {"type": "boolean"},
                             "description": "Feature gates to set, as kube-scheduler's --feature-gates (only "
                                            "gates the release knows); the release's defaults otherwise."},
            "extends": {"type": "string", "minLength": 1,
                        "description": "A bundled profile name, or a path relative to this file."},
            "percentageOfNodesToScore": {"type": "integer", "minimum": 0, "maximum": 100,
                                         "description": "0 (default) is adaptive: 50 − nodes/125, at least "
                                                        "5%."},
            "plugins": {
                "type": "object",
                "description": "One table per plugin, in run order.",
                "properties": plugins,
                "additionalProperties": plugin_table_schema(None),
            },
            "rules": _rules_schema(registry),
        },
    }
