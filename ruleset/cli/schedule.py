"""``ruleset schedule``: schedule every pending pod in queue order and report where each landed."""

from __future__ import annotations

import argparse
from typing import Any

from ruleset.cli.common import add_run_arguments, parse_scale, report_ignored_fields, report_notes, root_of
from ruleset.cli.report_option import add_report_arguments, report_target, write_report


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("schedule", help="schedule every pending pod and report placements",
                                   description="Schedule every pending pod in queue order, updating the "
                                               "snapshot after each placement. Each pod goes to the profile "
                                               "serving its spec.schedulerName.")
    add_run_arguments(parser, many_profiles=True)
    parser.add_argument("--pods", metavar="PATH", action="extend", nargs="+",
                        help="pods to create and schedule: Pods, and workloads (Deployment, ReplicaSet, "
                             "ReplicationController, StatefulSet, Job, DaemonSet) that become their "
                             "controllers' pods; files or folders, several per flag, repeatable")
    parser.add_argument("--scale", metavar="KIND/NAMESPACE/NAME=N", action="append",
                        help="scale a workload of the cluster to N replicas: its missing ones become pending "
                             "pods from its template (repeatable)")
    parser.add_argument("--fail-on-unschedulable", action="store_true",
                        help="exit 1 when any pod could not be scheduled")
    parser.add_argument("--all", action="store_true", help="text output: list every placement")
    parser.add_argument("--nodes", action="store_true",
                        help="text output: every node's utilisation (default: the most and least loaded)")
    add_report_arguments(parser, "score heatmap, utilisation, zones, placements")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.app import prepare_profiles
    from ruleset.cli.output import print_json
    from ruleset.cli.schedule_text import render_schedule
    from ruleset.cli.terminal import progress, use_color, width
    from ruleset.cli.usage import usage_json
    from ruleset.scheduler import schedule_all

    scale = parse_scale(args.scale)
    recorder = None
    report = report_target(args)  # fails before the run, not after it
    with progress("reading manifests", None) as reading:
        frameworks, state = prepare_profiles(args.profile, args.cluster, args.pods, root_of(args),
                                             seed=args.seed, scale=scale,
                                             on_file=lambda _path: reading.advance())
    report_notes(state.notes, args.verbose, state.admission, state.warnings, state.read,
                 state.created, state.bound)
    ignored = report_ignored_fields(state, frameworks[0].profile.target)
    for framework in frameworks:  # every preemption's candidates: under --verbose only
        framework.post_filter_details = args.verbose
    before = usage_json(state.snapshot)
    if report is not None:
        from ruleset.report.record import ScoreRecorder

        recorder = ScoreRecorder(list(state.snapshot.node_names))
    with progress("scheduling", len(state.pending)) as scheduling:
        result = schedule_all(frameworks, state, seed=args.seed, on_settled=lambda _n: scheduling.advance(),
                              record=recorder)
    document = schedule_json(result, before=before, after=usage_json(state.snapshot))
    document["ignoredPodFields"] = ignored
    if report is not None and recorder is not None:
        from ruleset.report.schedule import schedule_report

        write_report(report, schedule_report(document, recorder.to_json()), args.force)
    if args.output == "json":
        print_json(document, plugin_problems=True)
    else:
        print(render_schedule(document, width=width(args.wide), all_placements=args.all, nodes=args.nodes,
                              color=use_color()))
    unscheduled = any(p.node is None for p in result.placements)
    return 1 if args.fail_on_unschedulable and unscheduled else 0


def utilisation(snapshot: Any) -> list[dict[str, Any]]:
    out = []
    cpu_alloc, mem_alloc = snapshot.allocatable("cpu"), snapshot.allocatable("memory")
    cpu_req, mem_req = snapshot.requested("cpu"), snapshot.requested("memory")
    for i, name in enumerate(snapshot.node_names):
        out.append({
            "name": name,
            "pods": {"count": int(snapshot.pod_count[i]), "allocatable": int(snapshot.allowed_pods[i])},
            "cpu": {"requested": int(cpu_req[i]), "allocatable": int(cpu_alloc[i]), "unit": "millicores"},
            "memory": {"requested": int(mem_req[i]), "allocatable": int(mem_alloc[i]), "unit": "bytes"},
        })
    return out


def schedule_json(run: Any, before: dict[str, Any] | None = None,
                  after: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON contract of ``ruleset schedule`` (without ``schemaVersion``).

    ``profile`` is the first profile's name, ``profiles`` every profile's; with several
    profiles each placement names the ``profile`` that handled it; a pod no given profile
    serves has ``"unserved": true`` and its ``schedulerName``. ``utilisation`` holds the
    cluster's before and after (:func:`ruleset.cli.usage.usage_json`) when they are given."""
    several = len(run.profiles) > 1
    placements = []
    for p in run.placements:
        if p.node is not None:
            placed = {"pod": p.pod.key, "node": p.node, "score": p.score}
            placements.append({**placed, "profile": p.profile} if several else placed)
        else:
            entry: dict[str, Any] = {"pod": p.pod.key, "node": None, "reason": p.reason}
            error = getattr(p, "error", None)
            if error is not None:  # the plugin error that ended the pod's attempts, as structured data
                entry["error"] = error.to_json()
            if p.unserved:
                entry.update(unserved=True, schedulerName=p.pod.scheduler_name)
            if p.gated:
                entry["gated"] = True
            elif several and p.profile is not None:
                entry["profile"] = p.profile
            placements.append(entry)
    out: dict[str, Any] = {
        "profile": run.profile.name,
        "profiles": [profile.name for profile in (run.profiles or [run.profile])],
        "placements": placements,
        "events": [e.to_json() for e in run.events],
        "nodes": utilisation(run.state.snapshot),
    }
    if before is not None and after is not None:
        out["utilisation"] = {"before": before, "after": after}
    return out
