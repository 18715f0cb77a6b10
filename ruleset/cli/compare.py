"""``ruleset compare``: schedule the same pending pods on two sides (two profiles, or one profile
at two Kubernetes releases) and report what differs.

Exit codes: 0 (no difference, or differences without ``--fail-if-differs``), 1 differences with
``--fail-if-differs``, 2 bad input."""

from __future__ import annotations

import argparse
from typing import Any

from ruleset.cli.common import add_root_argument, parse_scale, root_of
from ruleset.cli.report_option import add_report_arguments, report_target, write_report


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compare", help="compare two profiles, or two Kubernetes releases, on the same pods",
        description="Schedule the cluster's pending pods twice, each time on a fresh copy of the cluster: "
                    "under two profiles (--profile A --profile B), or under one profile at two Kubernetes "
                    "releases (--kubernetes-version 1.20 --kubernetes-version 1.34). Report placements that "
                    "differ, pods scheduled by one side only, preemptions and balance metrics per side.")
    parser.add_argument("--profile", "-p", metavar="PROFILE", action="append",
                        help="profile file or bundled name; give two, or one with two --kubernetes-version "
                             "(default: the bundled 'default')")
    parser.add_argument("--kubernetes-version", metavar="X.Y", action="append",
                        help="run the profile as this release instead of its kubernetesVersion; give two "
                             "to compare releases, or one for both sides")
    parser.add_argument("--cluster", "-c", metavar="PATH", action="extend", nargs="+",
                        help="cluster manifests: files or folders (default: the bundled demo cluster)")
    parser.add_argument("--pods", metavar="PATH", action="extend", nargs="+",
                        help="pods (and workloads) to create and schedule on both sides, as schedule --pods")
    parser.add_argument("--scale", metavar="KIND/NAMESPACE/NAME=N", action="append",
                        help="scale a workload of the cluster to N replicas on both sides (repeatable)")
    parser.add_argument("--fail-if-differs", action="store_true",
                        help="exit 1 when pods land differently, or a compared metric differs beyond its "
                             "tolerance")
    parser.add_argument("--tolerance", metavar="METRIC=VALUE", action="append",
                        help="let METRIC differ by up to VALUE for --fail-if-differs (repeatable); metrics: "
                             "placements (pods landing differently), cpu.stddev, cpu.range, memory.stddev, "
                             "memory.range (percent; also RESOURCE.stddev/.range for extended resources), "
                             "nodesUsed, fragmentation, preemptions, unschedulable")
    parser.add_argument("--output", "-o", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for breaking score ties and for generated pod names (default 0)")
    parser.add_argument("--all", action="store_true", help="text output: list every differing placement")
    parser.add_argument("--wide", action="store_true",
                        help="text output: do not fit the terminal's width, show every column")
    add_report_arguments(parser, "both sides' facts, differing placements, metrics, placed pods per zone, "
                                 "CPU per node")
    add_root_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.analysis.compare import (
        check_tolerances,
        compare,
        compare_json,
        parse_tolerances,
        sides_of,
    )
    from ruleset.cli.compare_text import render_compare
    from ruleset.cli.output import print_json
    from ruleset.cli.terminal import progress, use_color, width

    specs = sides_of(args.profile, args.kubernetes_version)
    tolerances = parse_tolerances(args.tolerance)
    scale = parse_scale(args.scale)
    report = report_target(args)  # before the runs, not after them
    with progress("scheduling both sides", None):
        a, b = compare(specs, args.cluster, args.pods, root_of(args), seed=args.seed, scale=scale)
    check_tolerances(tolerances, a, b)
    document = compare_json(a, b, tolerances)
    if report is not None:
        from ruleset.report.compare import compare_report

        write_report(report, compare_report(document), args.force)
    if args.output == "json":
        print_json(document, plugin_problems=True)
    else:
        print(render_compare(document, width=width(args.wide), all_rows=args.all or args.wide,
                             color=use_color()))
    return 1 if args.fail_if_differs and document["differs"] else 0
