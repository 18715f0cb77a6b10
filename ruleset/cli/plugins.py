"""``ruleset plugins [NAME…]``: every installed plugin, where it came from, what it implements and takes.

For each plugin: its name and aliases, its package and version (``built-in`` for ruleset's
own), the extension points it implements (and a hook that does not match its spec), the
first paragraph of its docstring, and its args with their defaults and descriptions, from
the args schema profiles are checked against. Plugins that loaded but cannot be used
(see :mod:`ruleset.pluginmanager`) follow, each with the problem that disabled it.

Exit codes: 0 listed; 2 a NAME no package registers.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ruleset.errors import printable

if TYPE_CHECKING:
    from ruleset.framework.plugin import Plugin
    from ruleset.pluginmanager import PluginRegistry


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "plugins", help="list the installed plugins, their extension points and args",
        description="List every installed plugin (built-in, from installed packages, and --plugin modules): "
                    "name, aliases, package and version, extension points, args with defaults, and the "
                    "problem of any that cannot be used.")
    parser.add_argument("names", nargs="*", metavar="NAME", help="only these plugins (default: all)")
    parser.add_argument("--output", "-o", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.cli.output import print_json
    from ruleset.errors import Problem, RulesetError
    from ruleset.pluginmanager import load_registry

    registry = load_registry()
    entries = plugin_entries(registry)
    if args.names:
        known = {name for entry in entries for name in (entry["name"], *entry["aliases"])}
        missing = [name for name in args.names if name not in known]
        if missing:
            raise RulesetError([Problem(f"no installed plugin is named {name!r}", code="unknown-plugin")
                                for name in missing])
        wanted = set(args.names)
        entries = [e for e in entries if wanted & {e["name"], *e["aliases"]}]
    if args.output == "json":
        print_json({"plugins": entries}, plugin_problems=True)
    else:
        print(plugins_text(entries), end="")
    return 0


def plugin_entries(registry: PluginRegistry) -> list[dict[str, Any]]:
    """The JSON of every plugin: usable ones by name, then the disabled ones."""
    entries = [_entry(registry, registry.classes[name], registry.package_of(name), registry.args_schema(name),
                      True) for name in registry.names()]
    for disabled in sorted(registry.disabled, key=lambda d: (d.cls.name, d.package)):
        schema = disabled.cls.args_schema if isinstance(disabled.cls.args_schema, dict) else {}
        entries.append(_entry(registry, disabled.cls, disabled.package, schema, False))
    return entries


def _entry(registry: PluginRegistry, cls: type[Plugin], package: str, schema: dict[str, Any],
           usable: bool) -> dict[str, Any]:
    from ruleset.framework.hooks import class_hooks
    from ruleset.framework.points import implemented_points
    from ruleset.pluginmanager import BUILTIN_PACKAGE

    name, version = registry.distributions.get(package, (package, None))
    problems = [p.to_json() for p in registry.problems if p.plugin in (cls.name, *cls.aliases)
                and p.package == package]
    hooks = class_hooks(cls)
    if hooks.problem is not None:
        problems.append({"code": "invalid-hook", "severity": "error", "package": package, "plugin": cls.name,
                         "message": hooks.problem})
    return {
        "name": cls.name,
        "aliases": list(cls.aliases),
        "package": name,
        "version": version,
        "builtin": package == BUILTIN_PACKAGE,
        "usable": usable,
        "apiVersion": str(getattr(cls, "api_version", "")),
        "description": cls.summary(),
        "points": implemented_points(cls),
        "args": _args(schema),
        "problems": problems,
    }


def _args(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Each property of an args schema: name, type, whether required, default (when it has one),
    description."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    required = schema.get("required")
    required = required if isinstance(required, list) else []
    out = []
    for key, prop in properties.items():
        prop = prop if isinstance(prop, dict) else {}
        entry: dict[str, Any] = {"name": key, "type": _type_of(prop), "required": key in required}
        if "default" in prop:
            entry["default"] = prop["default"]
        entry["description"] = prop.get("description") if isinstance(prop.get("description"), str) else None
        out.append(entry)
    return out


def _type_of(prop: dict[str, Any]) -> str | None:
    kind = prop.get("type")
    if isinstance(kind, list):
        return " or ".join(map(str, kind))
    if kind == "array" and isinstance(prop.get("items"), dict) and "type" in prop["items"]:
        return f"array of {_type_of(prop['items'])}"
    if kind is None and "enum" in prop:
        return "one of " + ", ".join(map(repr, prop["enum"]))
    return None if kind is None else str(kind)


def plugins_text(entries: list[dict[str, Any]]) -> str:
    """Each plugin as a block: a head line, then indented details; a blank line between blocks."""
    from ruleset.profile.toml_writer import format_inline

    blocks = []
    for entry in entries:
        where = entry["package"] if entry["version"] is None else f"{entry['package']} {entry['version']}"
        lines = [f"{entry['name']}  ({where}{'' if entry['usable'] else '; cannot be used'})"]
        if entry["description"]:
            lines.append(f"  {entry['description']}")
        if entry["aliases"]:
            lines.append(f"  aliases: {', '.join(entry['aliases'])}")
        lines.append(f"  points: {', '.join(entry['points']) or '(none)'}")
        if entry["args"]:
            lines.append("  args:")
            for arg in entry["args"]:
                value = format_inline(arg["default"]) if "default" in arg else "(no default)"
                kind = f"  ({arg['type']}{', required' if arg['required'] else ''})" if arg["type"] else ""
                text = f"    {arg['name']} = {value}{kind}"
                if arg["description"]:
                    text += f"  # {arg['description']}"
                lines.append(text)
        else:
            lines.append("  args: none")
        lines.extend(f"  {p['severity']}: {p['message']} [{p['code']}]" for p in entry["problems"])
        blocks.append("\n".join(printable(line) for line in lines))  # all of it may come from a package
    return "\n\n".join(blocks) + "\n" if blocks else "no plugins\n"
