"""``ruleset schedule``: schedule every pending pod in queue order and report where each landed."""

from __future__ import annotations

import argparse
from typing import Any

from ruleset.cli.common import add_run_arguments, report_notes, root_of
from ruleset.errors import printable


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("schedule", help="schedule every pending pod and report placements",
                                   description="Schedule every pending pod in queue order, updating the "
                                               "snapshot after each placement.")
    add_run_arguments(parser)
    parser.add_argument("--pods", metavar="FILE", action="append",
                        help="more manifests to schedule (pods without spec.nodeName are pending; "
                             "repeatable)")
    parser.add_argument("--fail-on-unschedulable", action="store_true",
                        help="exit 1 when any pod could not be scheduled")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.app import prepare_run
    from ruleset.cli.output import print_json
    from ruleset.scheduler import schedule_all

    framework, state = prepare_run(args.profile, args.cluster, args.pods, root_of(args))
    report_notes(state.notes, args.verbose)
    result = schedule_all(framework, state, seed=args.seed)
    if args.output == "json":
        print_json(schedule_json(result), plugin_problems=True)
    else:
        print(schedule_text(result))
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


def schedule_json(run: Any) -> dict[str, Any]:
    placements = []
    for p in run.placements:
        if p.node is not None:
            placements.append({"pod": p.pod.key, "node": p.node, "score": p.score})
        else:
            entry = {"pod": p.pod.key, "node": None, "reason": p.reason}
            error = getattr(p, "error", None)
            if error is not None:  # the plugin error that ended the pod's attempts, as structured data
                entry["error"] = error.to_json()
            placements.append(entry)
    return {
        "profile": run.profile.name,
        "placements": placements,
        "events": [e.to_json() for e in run.events],
        "nodes": utilisation(run.state.snapshot),
    }


def _pct(used: int, total: int) -> str:
    return f"{100 * used / total:5.1f}%" if total else "    -"


def schedule_text(run: Any) -> str:
    lines = [f"profile {run.profile.name}: {len(run.placements)} pending pod(s)", ""]
    width = max((len(p.pod.key) for p in run.placements), default=10)
    for p in run.placements:
        if p.node is not None:
            score = "" if p.score is None else f"  (score {p.score})"
            lines.append(f"  {p.pod.key.ljust(width)}  →  {p.node}{score}")
        else:
            lines.append(f"  {p.pod.key.ljust(width)}  ✗  {p.reason}")
    preemptions = [e for e in run.events if e.kind == "preemption"]
    if preemptions:
        lines += ["", "preemptions:"]
        for e in preemptions:
            victims = ", ".join(e.detail.get("victims", [])) or "nobody"
            why = f" — chosen for {e.detail['reason']}" if e.detail.get("reason") else ""
            lines.append(f"  {e.pod} preempts on {e.node}: evicts {victims}{why}")
    errors = [e for e in run.events if e.detail.get("error", {}).get("plugin")]
    if errors:
        lines += ["", "plugin errors:"]
        for e in errors:
            error = e.detail["error"]
            attempt = f" (attempt {e.detail['attempt']})" if e.detail.get("attempt") else ""
            lines.append(f"  {e.pod}{attempt}: {error['message']} "
                         f"(plugin {error['plugin']}, package {error['package']})")
    scheduled = sum(1 for p in run.placements if p.node)
    lines += ["", f"scheduled {scheduled}, unschedulable {len(run.placements) - scheduled}", "",
              "node utilisation (requested / allocatable):"]
    rows = utilisation(run.state.snapshot)
    name_width = max((len(r["name"]) for r in rows), default=4)
    lines.append(f"  {'NODE'.ljust(name_width)}    CPU      MEMORY   PODS")
    for r in rows:
        cpu = _pct(r["cpu"]["requested"], r["cpu"]["allocatable"])
        lines.append(f"  {r['name'].ljust(name_width)}  {cpu}  "
                     f"{_pct(r['memory']['requested'], r['memory']['allocatable'])}   "
                     f"{r['pods']['count']}/{r['pods']['allocatable']}")
    return "\n".join(printable(line) for line in lines)  # names and reasons come from the input
