"""``ruleset sweep``: run every combination of profiles × snapshots × scenarios × Kubernetes
releases, one task each, on a local process pool or on Dask; store each task's result in
``--out`` as it arrives, then the table (CSV, Parquet) and an HTML summary.

Exit codes: 0 every task succeeded, 1 some task failed (recorded in its result; the others ran),
2 bad input (nothing ran)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ruleset.cli.common import add_root_argument, root_of


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sweep", help="run profiles × snapshots × scenarios × releases, locally or on Dask",
        description="Schedule every combination of profiles, cluster snapshots, scenarios (--pods files, "
                    "--scale changes) and Kubernetes releases, one task each, and measure what compare "
                    "measures. Each task's result is written to --out as it arrives; rerunning the same "
                    "sweep into the same folder runs only the tasks without a result.")
    parser.add_argument("--sweep", metavar="FILE.toml",
                        help="read the grid from a TOML sweep file instead of the flags below")
    parser.add_argument("--profile", "-p", metavar="PROFILE", action="append",
                        help="profile file or bundled name (repeatable; default: the bundled 'default')")
    parser.add_argument("--cluster", "-c", metavar="PATH", action="extend", nargs="+",
                        help="snapshots: each file or folder is one (default: the bundled demo cluster)")
    parser.add_argument("--pods", metavar="FILE", action="extend", nargs="+",
                        help="scenarios: each file's pods (and workloads) are created and scheduled")
    parser.add_argument("--scale", metavar="KIND/NAMESPACE/NAME=N[,…]", action="append",
                        help="a scenario scaling workloads to N replicas (comma-separated: together; "
                             "repeatable)")
    parser.add_argument("--kubernetes-version", metavar="X.Y", action="append",
                        help="run each profile as this release (repeatable; default: the profile's own)")
    parser.add_argument("--seed", type=int,
                        help="seed for ties and generated pod names (default 0)")
    parser.add_argument("--out", metavar="DIR", required=True,
                        help="results folder: tasks/ID.json, results.csv, results.parquet, summary.html")
    parser.add_argument("--engine", default="local",
                        help="where tasks run: local (a process pool, the default), dask, or one a plugin "
                             "adds")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="local: pool processes; dask without --scheduler: LocalCluster workers "
                             "(default: the CPU count)")
    parser.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                        help="dask: the address of a running dask.distributed scheduler")
    parser.add_argument("--force", action="store_true",
                        help="let --out hold another grid's results (they are removed) or other files")
    parser.add_argument("--no-summary", action="store_true", help="do not write summary.html")
    add_root_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.cli.terminal import progress
    from ruleset.errors import Problem, RulesetError, printable
    from ruleset.sweep.engines import EngineOptions, make_engine
    from ruleset.sweep.grid import grid_from_flags, load_sweep_file
    from ruleset.sweep.plan import plan_sweep
    from ruleset.sweep.runner import run_sweep

    problems = []
    if args.workers is not None and args.workers < 1:
        problems.append(Problem("expected a number of workers ≥ 1", file=f"--workers {args.workers}",
                                code="invalid-value"))
    if args.scheduler and args.engine != "dask":
        problems.append(Problem("--scheduler is for --engine dask", file=f"--scheduler {args.scheduler}",
                                code="invalid-value"))
    flags = [f for f, v in (("--profile", args.profile), ("--cluster", args.cluster), ("--pods", args.pods),
                            ("--scale", args.scale), ("--kubernetes-version", args.kubernetes_version),
                            ("--seed", args.seed is not None)) if v]
    if args.sweep and flags:
        problems.append(Problem(f"give the grid in the sweep file or with flags, not both "
                                f"({', '.join(flags)})", file=f"--sweep {args.sweep}", code="invalid-value"))
    if problems:
        raise RulesetError(problems)
    engine = make_engine(args.engine, EngineOptions(workers=args.workers, scheduler=args.scheduler))
    if args.sweep:
        grid = load_sweep_file(args.sweep)
    else:
        grid = grid_from_flags(args.profile, args.cluster, args.pods, args.scale, args.kubernetes_version,
                               seed=args.seed or 0)
    plan = plan_sweep(grid, root_of(args))
    summary = not args.no_summary and _have_matplotlib()
    if not args.no_summary and not summary:
        print("note: no summary.html: it needs matplotlib (pip install 'ruleset[report]')", file=sys.stderr)
    with progress("sweep", len(plan.tasks)) as bar:
        outcome = run_sweep(plan, Path(args.out), engine, force=args.force, summary=summary,
                            advance=bar.advance)
    specs = {spec.id: spec for spec in plan.tasks}
    for task, error in outcome.failures:
        spec = specs[task]
        print(f"error: task {task} ({spec.profile_label}, {spec.snapshot.name}, {spec.scenario}"
              f"{', ' + spec.kubernetes_version if spec.kubernetes_version else ''}): {printable(error)}",
              file=sys.stderr)
    print(outcome.line())
    return 1 if outcome.failed else 0


def _have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True
