"""``ruleset schema``: print the JSON Schema of profile files, with every installed plugin's args.

Editors use it for completion and inline errors (see the README, "Editor support"):
``ruleset schema > ruleset-profile.schema.json``.
"""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "schema", help="print the JSON Schema of profiles (for editors)",
        description="Print the JSON Schema (draft 2020-12) that profiles are checked against, including the "
                    "args schema of every installed plugin. Point Taplo / Even Better TOML at it.")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.cli.output import print_json
    from ruleset.pluginmanager import load_registry
    from ruleset.profile.schema import profile_schema

    print_json(profile_schema(load_registry()))
    return 0
