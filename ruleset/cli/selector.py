"""``ruleset selector EXPR``: check a label selector, show its canonical form, test it on labels.

Exit codes: 0 valid (and matching, when ``--labels`` is given), 1 invalid or not matching,
2 a malformed ``--labels`` argument.
"""

from __future__ import annotations

import argparse
from typing import Any

from ruleset.errors import Problem, RulesetError, printable


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "selector",
        help="check a label selector and test it against labels",
        description=(
            "Parse a Kubernetes label selector (with `||` between AND-groups as an OR), print its "
            "canonical form and, given --labels, whether the labels match it."
        ),
    )
    parser.add_argument(
        "expr", metavar="EXPR", help="the selector, e.g. 'tier in (db,web),!canary || zone=a'"
    )
    parser.add_argument(
        "--labels",
        metavar="K=V,...",
        help="labels to match, comma separated (an empty string is a set of no labels)",
    )
    parser.add_argument(
        "--output", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    parser.set_defaults(func=run)


def parse_labels(text: str) -> dict[str, str]:
    """``k=v,k2=v2`` to a dict; raises RulesetError (exit 2) for a malformed list."""
    labels: dict[str, str] = {}
    if not text.strip():
        return labels
    for item in text.split(","):
        key, sep, value = item.strip().partition("=")
        if not sep or not key:
            raise RulesetError(Problem(f"--labels: expected key=value, got {item.strip()!r}", code="usage"))
        if key in labels:
            raise RulesetError(Problem(f"--labels: key {key!r} given twice", code="usage"))
        labels[key] = value
    return labels


def run(args: argparse.Namespace) -> int:
    from ruleset.selector import SelectorError, parse

    labels = parse_labels(args.labels) if args.labels is not None else None
    try:
        selector = parse(args.expr)
    except SelectorError as exc:
        if args.output == "json":
            from ruleset.cli.output import print_json

            error = {"message": exc.reason, "column": exc.column}
            print_json({"selector": args.expr, "valid": False, "error": error})
        else:
            print(printable(str(exc), keep="\n"))
        return 1

    matches = selector.matches(labels) if labels is not None else None
    if args.output == "json":
        from ruleset.cli.output import print_json

        groups = [
            [{"key": r.key, "operator": r.operator, "values": list(r.values)} for r in group]
            for group in selector.groups
        ]
        print_json(
            {
                "selector": args.expr,
                "canonical": str(selector),
                "valid": True,
                "matches": matches,
                "groups": groups,
            }
        )
    else:
        print(printable(str(selector)) if not selector.empty() else "(empty selector: matches everything)")
        if matches is not None:
            print("matches" if matches else "does not match")
    return 0 if matches is not False else 1
