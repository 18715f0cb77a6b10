"""``ruleset test PATH…``: run behavioural test files (see :mod:`ruleset.behaviour.model`).

Exit codes, as ``validate``: 0 every expectation held, 1 some expectation failed, 2 a test
file (or an argument) has problems: each reported in the output, located, the other files
still run; when no argument names a file, on stderr, with no report.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ruleset.cli.common import add_root_argument, root_of
from ruleset.errors import RulesetError

FORMATS = ("text", "json", "github", "junit", "sarif")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "test", help="run behavioural tests of profiles (for CI)",
        description="Run test files (TOML): each names a profile, a cluster and pending pods, schedules "
                    "them as `ruleset schedule` does, and checks its expectations (lands-on, unschedulable, "
                    "at-most, spread, same-as). Each failed expectation is reported at its [[expect]] "
                    "table's file:line:col.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="test files, folders (every *.test.toml inside, recursively) or glob patterns")
    parser.add_argument("--output", "-o", choices=FORMATS, default="text",
                        help="text (compiler style, default), json, github (workflow annotations), junit, "
                             "sarif")
    add_root_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.behaviour.loader import expand_test_paths
    from ruleset.behaviour.render import render
    from ruleset.behaviour.runner import run_files

    root = root_of(args)
    paths, missing = expand_test_paths(args.paths)
    if missing and not paths:
        raise RulesetError(missing)
    report = run_files(paths, root, missing)
    sys.stdout.write(render(report, args.output))
    return report.exit_code
