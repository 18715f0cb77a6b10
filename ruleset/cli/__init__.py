"""The ``ruleset`` command line.

Each subcommand lives in its own module exposing ``register(subparsers)``; the module is
imported only to build the parser, and heavy imports happen inside each command's ``run``
so that ``ruleset validate`` on one file starts fast.

Exit codes: 0 success, 1 a negative answer (invalid profile, unschedulable pods where the
command says so), 2 usage or input errors (printed one per line, never a traceback). An
unexpected exception is a bug: it is reported as one ``internal error`` line, exit 2.

The commands of :data:`LOADS_PLUGINS` take ``--plugin MODULE_OR_PATH`` (repeatable) and
print every plugin load problem once, to stderr, before they run; a module named by
``--plugin`` that cannot be loaded is an input error (exit 2). The other commands, and
``--help`` and ``--version``, import no plugin.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys

#: ``typing.TYPE_CHECKING`` without importing typing, which ``--help`` and ``--version`` do not need.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ruleset.errors import RulesetError

#: Every command, in the order ``--help`` lists them: its name, the module of ``ruleset.cli`` that
#: registers it, and its one-line help. ``--help``, ``--version`` and an unknown command are answered
#: from this table alone, importing no command module (tests/test_startup_imports.py checks that
#: each module registers exactly its row).
COMMAND_TABLE: tuple[tuple[str, str, str], ...] = (
    ("score", "score", "show how one pod filters and scores on every node"),
    ("schedule", "schedule", "schedule every pending pod and report placements"),
    ("selector", "selector", "check a label selector and test it against labels"),
    ("validate", "validate", "check profile files (for CI and pre-commit)"),
    ("show", "show", "print the effective profile after extends"),
    ("schema", "schema", "print the JSON Schema of profiles (for editors)"),
    ("export", "export", "write profiles as a KubeSchedulerConfiguration"),
    ("import", "import_config", "turn a KubeSchedulerConfiguration or Policy into profiles"),
    ("plugins", "plugins", "list the installed plugins, their extension points and args"),
    ("new-plugin", "new_plugin", "scaffold a plugin package (pyproject, plugin module, tests, README)"),
    ("versions", "versions", "list the Kubernetes releases ruleset models, or what one changes since 1.20"),
    ("compare", "compare", "compare two profiles, or two Kubernetes releases, on the same pods"),
    ("capacity", "capacity", "count how many more copies of a pod fit"),
    ("test", "test_command", "run behavioural tests of profiles (for CI)"),
    ("explain", "explain", "explain why a pod lands on its node, or why it fits none and what would make it "
                           "fit"),
    ("sweep", "sweep", "run profiles × snapshots × scenarios × releases, locally or on Dask"),
)
#: Subcommand modules, in the order ``--help`` lists them.
COMMANDS = tuple(module for _, module, _ in COMMAND_TABLE)
#: Commands whose module is named otherwise (``import`` is a keyword; module names have no dashes).
MODULE_OF = {name: module for name, module, _ in COMMAND_TABLE if name != module}
#: Commands that load plugins: they take ``--plugin`` and report plugin load problems.
LOADS_PLUGINS = frozenset({"score", "schedule", "validate", "show", "schema", "export", "import_config",
                           "plugins", "compare", "capacity", "test_command", "explain", "sweep"})
_NAMES = frozenset(name for name, _, _ in COMMAND_TABLE)


class _VersionAction(argparse.Action):
    """``--version``, looking the version up only when asked."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"{parser.prog} {installed_version('unknown')}")
        parser.exit()


def installed_version(fallback: str) -> str:
    """The installed ``ruleset`` distribution's version (as ``importlib.metadata.version`` reads it),
    ``fallback`` when not installed.

    The ``Version`` field is read from the first ``ruleset-*.dist-info/METADATA`` found along
    ``sys.path``, where importlib.metadata looks first; importing importlib.metadata (through the
    email package) alone costs more than the rest of ``ruleset --version``, so it is only the
    fallback, for a distribution found elsewhere (a zip, an egg)."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in sorted(names):
            base, dot, suffix = name.lower().rpartition(".")
            if not (dot and suffix == "dist-info" and base.partition("-")[0] == "ruleset"):
                continue
            version = _metadata_version(os.path.join(entry or ".", name, "METADATA"))
            if version is not None:
                return version
    from ruleset.jsonout import package_version

    return package_version(fallback)


def _metadata_version(path: str) -> str | None:
    """The ``Version`` header of a core-metadata file, None when it cannot be read or has none."""
    try:
        with open(path, encoding="utf-8") as stream:
            for line in stream:
                if not line.strip():  # the headers end at the first blank line
                    break
                key, colon, value = line.partition(":")
                if colon and key.strip().lower() == "version":
                    return value.strip()
    except (OSError, UnicodeDecodeError):
        pass
    return None


def build_parser(only: str | None = None, *, static: bool = False) -> argparse.ArgumentParser:
    """The ``ruleset`` parser; with ``only``, just that subcommand's module is imported and registered;
    ``static``, every command from :data:`COMMAND_TABLE` with no arguments of its own (enough for
    ``--help``, ``--version`` and a usage error naming no command: no command module is imported)."""
    parser = argparse.ArgumentParser(
        prog="ruleset",
        description="Turn TOML scheduling profiles into a Kubernetes-exact scheduler and run it on cluster "
                    "snapshots.",
    )
    parser.add_argument("--version", action=_VersionAction)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if static:
        for name, _, summary in COMMAND_TABLE:
            subparsers.add_parser(name, help=summary)
    for name in () if static else (only,) if only else COMMANDS:
        before = set(subparsers.choices)
        importlib.import_module(f"ruleset.cli.{name}").register(subparsers)
        if name in LOADS_PLUGINS:
            for added in set(subparsers.choices) - before:
                add_plugin_argument(subparsers.choices[added])
    parser.commands = subparsers.choices  # type: ignore[attr-defined]
    return parser


def add_plugin_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plugin", metavar="MODULE_OR_PATH", action="append", default=[],
                        help="also load plugins from this module (a dotted name on sys.path) or .py file, "
                             "without installing it (repeatable; see also RULESET_PLUGINS)")
    parser.set_defaults(loads_plugins=True)


def _run(args: argparse.Namespace) -> int:
    """Run the command; one that loads plugins does so first, with its ``--plugin`` modules, and
    reports what failed (a module ``--plugin`` names that does not load: exit 2)."""
    if not getattr(args, "loads_plugins", False):
        return int(args.func(args) or 0)
    from ruleset import pluginmanager
    from ruleset.errors import printable

    with pluginmanager.local_plugins(args.plugin):
        # A command that loads only the plugins its inputs name (validate) starts with --plugin's.
        registry = (pluginmanager.load_profile_registry() if getattr(args, "defers_plugins", False)
                    else pluginmanager.load_registry())
        named = {pluginmanager.local_source(item).package for item in args.plugin}
        fatal = [p for p in registry.problems if p.code == pluginmanager.LOAD_FAILED and p.package in named]
        for problem in registry.problems:
            severity = "error" if problem in fatal else problem.severity
            print(f"{severity}: {printable(problem.message)} [{problem.code}]", file=sys.stderr)
        if fatal:
            return 2
        return int(args.func(args) or 0)


def report_problems(exc: RulesetError) -> None:
    """Print each problem of ``exc`` on its own line to stderr."""
    for problem in exc.problems:
        print(f"{problem.severity}: {problem}", file=sys.stderr)


def _tolerant_streams() -> None:
    """Any output encoding works: a character the terminal's encoding lacks, or a lone
    surrogate from an undecodable argument or file name, is written as a backslash escape
    instead of failing the command."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    _tolerant_streams()
    argv = sys.argv[1:] if argv is None else list(argv)
    # `ruleset validate …`: import only the command that runs (each module registers one command);
    # the full parser only when a command is named after something else (`--help score`).
    module = MODULE_OF.get(argv[0], argv[0]) if argv else None
    parser = build_parser(module) if module in COMMANDS else None
    if parser is None or argv[0] not in parser.commands:  # type: ignore[attr-defined]
        # With no command named anywhere, no subparser parses a word: the command table answers
        # --help, --version and usage errors exactly as the full parser would.
        parser = build_parser(static=not _NAMES.intersection(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, usage errors exit 2
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    from ruleset.errors import RulesetError, printable  # not before: --help and --version need neither

    try:
        return _run(args)
    except RulesetError as exc:
        report_problems(exc)
        return 2
    except BrokenPipeError:  # `ruleset ... | head`
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # a path or a write the user named: an input error, not a crash
        where = os.fsdecode(exc.filename) if exc.filename is not None else "<input>"
        print(f"error: {printable(where)}: {printable(exc.strerror or str(exc))}", file=sys.stderr)
        return 2
    except ValueError as exc:
        if "null byte" not in str(exc):  # what the OS layer says of a path with a NUL in it
            return _internal_error(exc)
        where = next((arg for arg in argv if "\0" in arg), "<input>")
        print(f"error: {printable(where)}: a path cannot contain a NUL byte", file=sys.stderr)
        return 2
    except Exception as exc:  # the last line of defence: one line, never a traceback
        return _internal_error(exc)


def _internal_error(exc: Exception) -> int:
    from ruleset.errors import printable

    print(f"error: internal error (a bug in ruleset; please report it with the command that caused it): "
          f"{printable(f'{type(exc).__name__}: {exc}')}", file=sys.stderr)
    return 2
