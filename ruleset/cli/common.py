"""Arguments shared by the commands that run a profile on a cluster."""

from __future__ import annotations

import argparse
import sys

from ruleset.errors import printable


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", "-p", metavar="PROFILE",
                        help="profile file, or a bundled profile name (default: the bundled 'default')")
    parser.add_argument("--cluster", "-c", metavar="FILE", action="append",
                        help="cluster manifests (YAML/JSON, repeatable; default: the bundled demo cluster)")
    parser.add_argument("--output", "-o", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--seed", type=int, default=0, help="seed for breaking score ties (default 0)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="also report what was skipped in the input")


def report_notes(notes: dict, verbose: bool) -> None:
    """Under --verbose, say what the input held that the engine skipped (to stderr)."""
    if not verbose or not notes:
        return
    for what, count in sorted(notes.items()):
        print(f"note: skipped {count} × {printable(what)}", file=sys.stderr)
