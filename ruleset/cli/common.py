"""Arguments shared by the commands that run a profile on a cluster."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ruleset.errors import Problem, RulesetError, printable


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", "-p", metavar="PROFILE",
                        help="profile file, or a bundled profile name (default: the bundled 'default')")
    parser.add_argument("--cluster", "-c", metavar="FILE", action="append",
                        help="cluster manifests (YAML/JSON, repeatable; default: the bundled demo cluster)")
    parser.add_argument("--output", "-o", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--seed", type=int, default=0, help="seed for breaking score ties (default 0)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="also report what was skipped in the input")
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


def report_notes(notes: dict, verbose: bool) -> None:
    """Under --verbose, say what the input held that the engine skipped (to stderr)."""
    if not verbose or not notes:
        return
    for what, count in sorted(notes.items()):
        print(f"note: skipped {count} × {printable(what)}", file=sys.stderr)
