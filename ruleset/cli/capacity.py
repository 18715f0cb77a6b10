"""``ruleset capacity``: how many more copies of a pod the cluster takes under a profile."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ruleset.cli.common import add_run_arguments, report_ignored_fields, report_notes, root_of
from ruleset.cli.report_option import add_report_arguments, report_target, write_report

#: The most copies ``--max`` may ask for (each is a pod and a scheduling cycle).
MAX_LIMIT = 100_000


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "capacity", help="count how many more copies of a pod fit",
        description="Schedule copies of a pod (<name>-capacity-1, -2, …) one by one with the profile's "
                    "scheduling cycles until one does not fit; report how many landed, where, and why "
                    "the next one failed. The cluster's pending pods are not scheduled and hold "
                    "nothing; a copy that does not fit preempts nobody.")
    add_run_arguments(parser)
    parser.add_argument("--pod", metavar="FILE", required=True,
                        help="the pod to copy: a Pod, or a workload (its first pod)")
    parser.add_argument("--max", metavar="N", type=_limit, default=None,
                        help="stop after N copies landed (default 1000, at most 100000)")
    add_report_arguments(parser, "counts, copies per zone and per node, why the next copy failed")
    parser.set_defaults(func=run)


def _limit(value: str) -> int:
    if not value.isascii() or not value.isdigit() or not 1 <= int(value) <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {MAX_LIMIT:,}")
    return int(value)


def run(args: argparse.Namespace) -> int:
    from ruleset.analysis.capacity import DEFAULT_LIMIT, capacity, capacity_json
    from ruleset.app import prepare_run, take_pod_file
    from ruleset.cli.capacity_text import render_capacity
    from ruleset.cli.output import print_json
    from ruleset.cli.terminal import progress, use_color, width
    from ruleset.errors import Problem, RulesetError, printable

    report = report_target(args)  # before the work, not after it
    with progress("reading manifests", None) as reading:
        framework, state = prepare_run(args.profile, args.cluster, [args.pod], root=root_of(args),
                                       seed=args.seed, replace=True, on_file=lambda _path: reading.advance())
    report_notes(state.notes, args.verbose, state.admission, state.warnings, state.read,
                 state.created, state.bound)
    ignored = report_ignored_fields(state, framework.profile.target)
    pod, refused = take_pod_file(str(Path(args.pod)), state)
    if refused is not None:
        raise RulesetError(Problem(f"pod {pod.key} can never be scheduled: {refused}", file=args.pod,
                                   code="invalid-object"))
    serves = framework.profile.scheduler_name
    if pod.scheduler_name != serves:
        print(printable(f"note: pod {pod.key} asks for schedulerName {pod.scheduler_name!r}; profile "
                        f"{framework.profile.name!r} serves {serves!r}: counted as if it served the pod"),
              file=sys.stderr)
    found = capacity(framework, pod, limit=args.max or DEFAULT_LIMIT, seed=args.seed)
    document = {"profile": framework.profile.name, **capacity_json(found, state.snapshot),
                "ignoredPodFields": ignored}
    if report is not None:
        from ruleset.report.capacity import capacity_report

        write_report(report, capacity_report(document), args.force)
    if args.output == "json":
        print_json(document, plugin_problems=True)
    else:
        print(render_capacity(document, width=width(args.wide), color=use_color()))
    return 0
