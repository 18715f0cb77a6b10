"""``ruleset validate PATH…``: check profile files for CI, every problem of every file.

Exit codes: 0 every file valid, 1 some file invalid (errors; warnings too under
``--strict``), 2 usage or I/O errors (a path that does not exist, a glob that matches
nothing, a file that cannot be read).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ruleset.cli.common import add_root_argument, root_of
from ruleset.errors import Problem
from ruleset.validate import FORMATS


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "validate", help="check profile files (for CI and pre-commit)",
        description="Check TOML profiles: syntax, the JSON Schema (with every plugin's args), extends, "
                    "each plugin's args rules, extension points, weights, rules' selectors, and duplicate "
                    "profile names across the files. Reports every problem with file:line:col.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="profile files, folders (every *.toml inside, recursively) or glob patterns")
    parser.add_argument("--output", "-o", choices=list(FORMATS), default="text",
                        help="text (compiler style, default), json, github (workflow annotations), junit, "
                             "sarif")
    parser.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    add_root_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.validate import expand_paths, render, validate_files

    root = root_of(args)
    skipped: list[Problem] = []
    paths = expand_paths(args.paths, skipped)
    report = validate_files(paths, strict=args.strict, root=root)
    for note in skipped:
        print(f"{note.severity}: {note}", file=sys.stderr)
    sys.stdout.write(render(report, args.output))
    return report.exit_code
