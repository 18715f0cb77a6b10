"""``ruleset show PROFILE``: the effective profile after ``extends``, as the scheduler runs it.

The plugins per extension point come from the built framework's call tables, so they are
exactly what runs, in run order, including the plugins the framework adds by itself
(PrioritySort and DefaultBinder when no QueueSort/Bind plugin is named, Rules when the
profile has rules). Args are shown with their defaults filled in. ``--output toml`` prints
a complete, flattened profile (no ``extends``) that loads into the same framework.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ruleset.cli.common import add_root_argument, root_of
from ruleset.cli.terminal import symbols
from ruleset.errors import printable

OUTPUTS = ("text", "json", "toml")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "show", help="print the effective profile after extends",
        description="Resolve a profile's extends chain, build its framework and print what the scheduler "
                    "runs: plugins per extension point in run order, weights, args with defaults, rules.")
    parser.add_argument("profile", metavar="PROFILE", help="a profile file or the name of a bundled profile")
    parser.add_argument("--output", "-o", choices=OUTPUTS, default="text",
                        help="text (default), json, or toml (a flattened profile you can save)")
    add_root_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.cli.output import print_json

    document = effective_profile(args.profile, root_of(args))
    if args.output == "json":
        print_json(document, plugin_problems=True)
    elif args.output == "toml":
        print(profile_toml(document), end="")
    else:
        print(profile_text(document), end="")
    return 0


def effective_profile(argument: str, root: Path | None = None) -> dict[str, Any]:
    """Load, build and describe a profile (raises RulesetError, exit 2, when it does not load)."""
    from ruleset.app import build_framework
    from ruleset.framework.points import EXTENSION_POINTS
    from ruleset.profile.loader import display_path

    framework = build_framework(argument, root=root)
    profile, registry = framework.profile, framework.registry
    written = {config.name for config in profile.plugins}
    plugins = []
    for name, config in framework.configs.items():
        cls = registry.get(name)
        assert cls is not None  # the framework was built from it
        points = framework.points[name]
        # The args as the profile wrote them: the Rules plugin's [[rules]] are shown as rules.
        as_written = profile.plugin(name)
        origin = config.origin
        plugins.append({
            "name": name,
            # The name results (and the extension points below) report it under: as written.
            "writtenAs": config.label,
            "implicit": name not in written,
            "points": points,
            "configuredPoints": list(config.points) if config.points is not None else None,
            "weight": config.weight if "score" in points else None,
            # The release's own defaults (e.g. NodeResourcesFit's scoringStrategy from 1.22) first.
            "args": _release_args(cls, profile, as_written.args if as_written is not None else {}),
            "origin": (f"{display_path(origin.file)}:{origin.line}:{origin.column}"
                       if origin.file and name in written else None),
        })
    return {
        "name": profile.name,
        "schedulerName": profile.scheduler_name,
        "kubernetesVersion": str(profile.target.version),
        "featureGates": dict(profile.feature_gates),
        "description": profile.description or None,
        "files": [display_path(file) for file in profile.files],
        "percentageOfNodesToScore": profile.percentage_of_nodes_to_score,
        "extensionPoints": {point.key: [step.plugin for step in framework.tables[point.main_hook]]
                            for point in EXTENSION_POINTS},
        "plugins": plugins,
        "rules": [{"name": rule.name, "pods": rule.pods, "require": rule.require, "prefer": rule.prefer,
                   "weight": rule.weight} for rule in profile.rules],
    }


# ------------------------------------------------------------------------------------ text
def profile_text(document: dict[str, Any]) -> str:
    from ruleset.profile.toml_writer import format_inline, format_key

    lines = [f"profile {document['name']}"]
    if document["description"]:
        lines.append(f"  {document['description']}")
    lines.append(f"files: {' extends '.join(document['files'])}")
    lines.append(f"schedulerName: {document['schedulerName']}")
    gates = ", ".join(f"{k}={str(v).lower()}" for k, v in document["featureGates"].items())
    with_gates = f" (feature gates: {gates})" if gates else ""
    lines.append(f"kubernetesVersion: {document['kubernetesVersion']}{with_gates}")
    pct = document["percentageOfNodesToScore"]
    lines.append(f"percentageOfNodesToScore: {pct if pct else '0 (adaptive)'}")
    lines.append("")
    weights = {p["writtenAs"]: p["weight"] for p in document["plugins"]}
    times = symbols().times
    lines.append("extension points, in run order:")
    width = max(len(point) for point in document["extensionPoints"])
    for point, names in document["extensionPoints"].items():
        if not names:
            continue
        shown = [f"{n}{times}{weights[n]}" if point == "score" else n for n in names]
        lines.append(f"  {point.ljust(width)}  {', '.join(shown)}")
    lines.append("")
    lines.append("plugins:")
    for plugin in document["plugins"]:
        head = f"  {plugin['name']}"
        notes = []
        if plugin["weight"] is not None:
            notes.append(f"weight {plugin['weight']}")
        notes.append(f"points {', '.join(plugin['points']) or '(none)'}")
        if plugin["writtenAs"] != plugin["name"]:  # the name the extension points above list it under
            notes.append(f"written as {plugin['writtenAs']}")
        if plugin["implicit"]:
            notes.append("added by the framework")
        elif plugin["origin"]:
            notes.append(f"from {plugin['origin']}")
        lines.append(f"{head}  ({'; '.join(notes)})")
        for key, value in plugin["args"].items():
            lines.append(f"      {format_key(key)} = {format_inline(value)}")
    if document["rules"]:
        lines.append("")
        lines.append("rules:")
        for rule in document["rules"]:
            parts = [f"weight {rule['weight']}"]
            for key in ("pods", "require", "prefer"):
                if rule[key]:
                    parts.append(f"{key}: {rule[key]}")
            lines.append(f"  {rule['name']}  ({'; '.join(parts)})")
    return "\n".join(printable(line) for line in lines) + "\n"  # names and values come from the input


def _release_args(cls: Any, profile: Any, written: dict[str, Any]) -> dict[str, Any]:
    """A plugin's args with its defaults, as the profile's release has them: the release's own
    defaults (``defaults_for(target)``) under what is written, and without the args that
    release does not have (``args_not_in(target)``)."""
    defaults_for = getattr(cls, "defaults_for", None)
    release = dict(defaults_for(profile.target)) if defaults_for is not None else {}
    args = cls.args_with_defaults({**release, **written})
    not_in = getattr(cls, "args_not_in", None)
    hidden = not_in(profile.target) if not_in is not None else frozenset()
    return {key: value for key, value in args.items() if key not in hidden}


# ------------------------------------------------------------------------------------ TOML
def profile_toml(document: dict[str, Any]) -> str:
    """A complete profile without ``extends``: loading it builds the same framework."""
    from ruleset.profile.toml_writer import dumps

    data: dict[str, Any] = {"name": document["name"], "schedulerName": document["schedulerName"],
                            "kubernetesVersion": document["kubernetesVersion"]}
    if document["featureGates"]:
        data["featureGates"] = document["featureGates"]
    if document["description"]:
        data["description"] = document["description"]
    if document["percentageOfNodesToScore"] is not None:
        data["percentageOfNodesToScore"] = document["percentageOfNodesToScore"]
    plugins: dict[str, Any] = {}
    for plugin in document["plugins"]:
        table: dict[str, Any] = {}
        if plugin["weight"] is not None:
            table["weight"] = plugin["weight"]
        if plugin["configuredPoints"] is not None:
            table["points"] = plugin["configuredPoints"]
        if plugin["args"]:
            table["args"] = plugin["args"]
        plugins[plugin["name"]] = table
    data["plugins"] = plugins
    rules = [{key: rule[key] for key in ("name", "pods", "require", "prefer", "weight")
              if rule[key] is not None and rule[key] != ""} for rule in document["rules"]]
    if rules:
        data["rules"] = rules
    header = [f"The effective profile {document['name']!r}, flattened by `ruleset show -o toml` from "
              f"{', '.join(document['files'])}."]
    return dumps(data, header=header)
