"""The ``ruleset`` command line.

Each subcommand lives in its own module exposing ``register(subparsers)``; the module is
imported only to build the parser, and heavy imports happen inside each command's ``run``
so that ``ruleset validate`` on one file starts fast.

Exit codes: 0 success, 1 a negative answer (invalid profile, unschedulable pods where the
command says so), 2 usage or input errors (printed one per line, never a traceback).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ruleset.errors import RulesetError

#: Subcommand modules, in the order ``--help`` lists them.
COMMANDS = ("score", "schedule", "selector", "validate", "show", "schema", "export", "import_config", "plugins")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ruleset",
        description="Turn TOML scheduling profiles into a Kubernetes-exact scheduler and run it on cluster snapshots.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"ruleset.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"ruleset.cli.{name}":
                continue  # command not built yet
            raise
        module.register(subparsers)
    return parser


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("ruleset")
    except Exception:  # not installed (running from a bare checkout)
        return "unknown"


def report_problems(exc: RulesetError) -> None:
    """Print each problem of ``exc`` on its own line to stderr."""
    for problem in exc.problems:
        print(f"error: {problem}" if problem.severity == "error" else f"{problem.severity}: {problem}",
              file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, usage errors exit 2
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except RulesetError as exc:
        report_problems(exc)
        return 2
    except BrokenPipeError:  # `ruleset ... | head`
        return 0
    except KeyboardInterrupt:
        return 130
