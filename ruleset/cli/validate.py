"""``ruleset validate PATH…``: check profile files for CI, every problem of every file.

Exit codes: 0 every file valid, 1 some file invalid (errors; warnings too under
``--strict``), 2 usage or I/O errors (a path that does not exist, a glob that matches
nothing, a file that cannot be read: each reported in the output like a file's problem,
the other files still checked; when no argument names a file, on stderr, with no report).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ruleset.cli.common import add_root_argument, root_of
from ruleset.errors import Problem, RulesetError
from ruleset.validate import FORMATS


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "validate", help="check profile files (for CI and pre-commit)",
        description="Check TOML profiles: syntax, the JSON Schema (with every plugin's args), extends, "
                    "each plugin's args rules, extension points, weights, rules' selectors, and duplicate "
                    "profile names across the files (and schedulerNames, with --one-scheduler). Reports "
                    "every problem with file:line:col.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="profile files, folders (every *.toml inside, recursively) or glob patterns")
    parser.add_argument("--output", "-o", choices=list(FORMATS), default="text",
                        help="text (compiler style, default), json, github (workflow annotations), junit, "
                             "sarif")
    parser.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    parser.add_argument("--one-scheduler", action="store_true",
                        help="the files are the profiles of one scheduler (as export and schedule take "
                             "several): two serving the same schedulerName is an error")
    add_root_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.validate import expand_arguments, render, validate_files

    root = root_of(args)
    skipped: list[Problem] = []
    paths, missing = expand_arguments(args.paths, skipped)
    if missing and not paths:  # nothing to check: a usage error, as before any report
        raise RulesetError(missing)
    report = validate_files(paths, strict=args.strict, root=root, one_scheduler=args.one_scheduler,
                            missing=missing)
    for note in skipped:
        print(f"{note.severity}: {note}", file=sys.stderr)
    sys.stdout.write(render(report, args.output))
    return report.exit_code
