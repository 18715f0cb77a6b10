"""Arguments shared by the commands that run a profile on a cluster."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ruleset.errors import Problem, RulesetError, printable


def add_run_arguments(parser: argparse.ArgumentParser, many_profiles: bool = False) -> None:
    if many_profiles:
        parser.add_argument("--profile", "-p", metavar="PROFILE", action="append",
                            help="profile file, or a bundled profile name (default: the bundled 'default'); "
                                 "repeatable: each pod goes to the profile serving its spec.schedulerName")
    else:
        parser.add_argument("--profile", "-p", metavar="PROFILE",
                            help="profile file, or a bundled profile name (default: the bundled 'default')")
    parser.add_argument("--cluster", "-c", metavar="PATH", action="extend", nargs="+",
                        help="cluster manifests: YAML/JSON files or folders of them (several per flag, "
                             "repeatable; default: the bundled demo cluster)")
    parser.add_argument("--output", "-o", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for breaking score ties and for generated pod names (default 0)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="also report what was skipped in the input and what admission changed")
    parser.add_argument("--wide", action="store_true",
                        help="text output: do not fit the terminal's width, show every column")
    add_root_argument(parser)


def add_root_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", metavar="DIR",
                        help="the folder a profile's extends may not leave (default: the working directory, "
                             "or the profile's own folder when it lies outside)")


def root_of(args: argparse.Namespace) -> Path | None:
    """``--root`` as a resolved folder (None when not given); a path that is no folder is an
    input error."""
    if args.root is None:
        return None
    try:
        root = Path(args.root).resolve(strict=True)
        if root.is_dir():
            return root
        reason = "not a folder"
    except (OSError, RuntimeError) as exc:  # missing, a loop, a name too long
        reason = getattr(exc, "strerror", None) or "no such folder"
    except ValueError:  # a NUL byte
        reason = "not a valid path"
    raise RulesetError([Problem(f"--root: {reason}", file=args.root, code="io-error")])


def report_notes(notes: dict, verbose: bool, admission: dict | None = None,
                 warnings: dict | None = None, read: dict | None = None, created: dict | None = None,
                 bound: int = 0) -> None:
    """Say what ``--pods`` files held that gives no pod (always), and under --verbose what the
    input held that the engine skipped and what the API server's defaulting and admission
    changed in the pods (to stderr)."""
    for (file, what), count in (warnings or {}).items():
        times = f" ({count} of them)" if count > 1 else ""
        print(f"warning: {printable(file or '<input>')}: {printable(what)}{times}", file=sys.stderr)
    if not verbose:
        return
    from ruleset.cli.terminal import symbols

    times = symbols(sys.stderr).times
    for what, count in (read or {}).items():
        print(f"note: read {count} {times} {printable(what)}", file=sys.stderr)
    for what, count in (created or {}).items():
        print(f"note: created {count} {times} {printable(what)}", file=sys.stderr)
    if bound:
        print(f"note: bound {bound} {times} PersistentVolumeClaim to a volume (the PV controller's "
              "Immediate binding)", file=sys.stderr)
    for what, count in sorted(notes.items()):
        print(f"note: skipped {count} {times} {printable(what)}", file=sys.stderr)
    for what, count in sorted((admission or {}).items()):
        print(f"note: admission: {printable(what)}: {count} pod{'s' if count != 1 else ''}", file=sys.stderr)


def report_ignored_fields(state: Any, target: Any) -> list[dict[str, Any]]:
    """Pod fields the profile's release does not honour (or ruleset models at no release):
    one warning line per field on stderr, always, and the list for the JSON output."""
    from ruleset.manifests.newer import ignored_by

    ignored = ignored_by(state.newer_fields, target.gate, str(target.version))
    for entry in ignored:
        pods = f"{entry['pods']} pod{'s' if entry['pods'] != 1 else ''}"
        if entry["honouredFrom"] is None:
            why = "which ruleset does not model: the scheduler's answer may differ"
        else:
            why = (f"which Kubernetes {entry['release']} ignores (honoured from {entry['honouredFrom']}, "
                   f"feature gate {entry['gate']}): set kubernetesVersion to the release your cluster runs")
        verb = "uses" if entry["pods"] == 1 else "use"
        print(f"warning: {pods} {verb} {entry['field']}, {why}", file=sys.stderr)
    return ignored


#: The most replicas ``--scale`` asks for (each becomes a pod in memory).
MAX_SCALE = 100_000


def parse_scale(values: list[str] | None) -> list[Any]:
    """``--scale KIND/NAMESPACE/NAME=N`` values; a malformed one is an input error (exit 2)."""
    from ruleset.manifests import ScaleRequest

    out, problems = [], []
    for value in values or []:
        target, sep, count = value.rpartition("=")
        parts = target.split("/")
        if (not sep or len(parts) != 3 or not all(parts) or not count.isascii() or not count.isdigit()
                or len(count) > 7 or int(count) > MAX_SCALE):
            problems.append(Problem(f"expected KIND/NAMESPACE/NAME=N with N at most {MAX_SCALE:,} "
                                    "(e.g. deployment/default/web=40)", file=f"--scale {value}",
                                    code="invalid-value"))
            continue
        out.append(ScaleRequest(kind=parts[0], namespace=parts[1], name=parts[2], replicas=int(count),
                                text=value))
    if problems:
        raise RulesetError(problems)
    return out
