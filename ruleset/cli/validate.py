"""``ruleset validate PATH…``: check profile files for CI, every problem of every file.

Exit codes: 0 every file valid, 1 some file invalid (errors; warnings too under
``--strict``), 2 usage or I/O errors (a path that does not exist, a glob that matches
nothing, a file that cannot be read: each reported in the output like a file's problem,
the other files still checked; when no argument names a file, on stderr, with no report).

Plugins are loaded as the profiles name them (:func:`~ruleset.pluginmanager.load_profile_registry`:
no plugin implementation, no numpy, and an entry point only for a plugin no built-in has), so the
command line prints the load problems of ``--plugin`` modules before the run (``defers_plugins``)
and this command those of the packages the run loaded, after it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ruleset.cli.common import add_root_argument, root_of
from ruleset.errors import Problem, RulesetError, printable
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
    parser.set_defaults(func=run, defers_plugins=True)


def run(args: argparse.Namespace) -> int:
    from ruleset.pluginmanager import load_profile_registry
    from ruleset.validate import expand_arguments, render, validate_files

    registry = load_profile_registry()
    printed = len(registry.problems)  # by the command line, before the run
    root = root_of(args)
    skipped: list[Problem] = []
    paths, missing = expand_arguments(args.paths, skipped)
    if missing and not paths:  # nothing to check: a usage error, as before any report
        raise RulesetError(missing)
    report = validate_files(paths, registry, strict=args.strict, root=root, one_scheduler=args.one_scheduler,
                            missing=missing)
    for problem in report.plugin_problems[printed:]:
        print(f"{problem.severity}: {printable(problem.message)} [{problem.code}]", file=sys.stderr)
    for note in skipped:
        print(f"{note.severity}: {note}", file=sys.stderr)
    sys.stdout.write(render(report, args.output))
    return report.exit_code
