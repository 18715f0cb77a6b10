"""``ruleset explain POD``: why a pod lands on its node, or why it fits none and what would make it fit."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ruleset.cli.common import add_run_arguments, report_ignored_fields, report_notes, root_of
from ruleset.cli.report_option import add_report_arguments, report_target, write_report
from ruleset.errors import Problem, RulesetError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "explain", help="explain why a pod lands on its node, or why it fits none and what would make it fit",
        description="Explain one scheduling decision: for a pod that fits, the chosen node, its rank and "
                    "margin, each plugin's scores on the top nodes and the plugin that decided; for one "
                    "that does not, the nodes grouped by the plugin and reason that rejected them, the "
                    "smallest change to the pod found (and verified) to admit a node, and what preemption "
                    "would do.")
    parser.add_argument("pod", metavar="POD",
                        help="NAMESPACE/NAME of a pending or placed pod of the cluster, or a file holding "
                             "a Pod or a workload (its first pod)")
    add_run_arguments(parser)
    parser.add_argument("--pods", metavar="PATH", action="extend", nargs="+",
                        help="more pods to create, as schedule --pods takes them (files or folders)")
    parser.add_argument("--top", metavar="N", type=int, default=5,
                        help="how many of the best nodes to show scores for (default 5)")
    parser.add_argument("--in-run", action="store_true",
                        help="replay schedule (same inputs and seed) up to this pending pod's deciding "
                             "cycle and explain that cycle, on the cluster as it was then")
    add_report_arguments(parser, "summary, top nodes' score heatmap, rejections, what would make it fit, "
                                 "preemption")
    parser.set_defaults(func=run)


def _is_file(value: str) -> bool:
    return Path(value).is_file() or value.endswith((".yaml", ".yml", ".json"))


def run(args: argparse.Namespace) -> int:
    from ruleset.cli.explain_text import render_explain
    from ruleset.cli.output import print_json
    from ruleset.cli.terminal import use_color, width

    if args.top < 1:
        raise RulesetError(Problem("--top: expected a positive number", file=f"--top {args.top}",
                                   code="invalid-value"))
    report = report_target(args)  # before the work, not after it
    explanation = explain(args)
    document = explanation.to_json()
    if report is not None:
        from ruleset.report.explain import explain_report

        write_report(report, explain_report(document), args.force)
    if args.output == "json":
        print_json(document)
    else:
        print(render_explain(document, width=width(args.wide), color=use_color()))
    return 0


def explain(args: argparse.Namespace) -> Any:
    """The :class:`~ruleset.analysis.explain.Explanation` the arguments ask for."""
    from ruleset.analysis.explain import explain_pod, find_pod, replay_until
    from ruleset.app import prepare_profiles, take_pod_file
    from ruleset.scheduler import schedule_all

    is_file = _is_file(args.pod)
    if not is_file and (args.pod.count("/") != 1 or not all(args.pod.split("/"))):
        raise RulesetError(Problem("expected NAMESPACE/NAME of a pod of the cluster, or a pod file",
                                   file=args.pod, code="invalid-value"))
    pod_files = [*(args.pods or []), *([str(Path(args.pod))] if is_file else [])]

    def load() -> Any:
        return prepare_profiles([args.profile] if args.profile else None, args.cluster, pod_files or None,
                                root_of(args), seed=args.seed, replace=True)

    frameworks, state = load()
    report_notes(state.notes, args.verbose, state.admission, state.warnings, state.read, state.created,
                 state.bound)
    report_ignored_fields(state, frameworks[0].profile.target)
    framework = frameworks[0]
    if not args.in_run:
        refused, placed_on = None, None
        if is_file:
            pod, refused = take_pod_file(str(Path(args.pod)), state)
        else:
            pod, placed_on = find_pod(state, args.pod)
            if placed_on is not None:  # explained as if it were pending again, its room freed
                state.snapshot.remove_pod(pod)
            refused = state.pod_errors.get(pod)
        return explain_pod(framework, state, pod, seed=args.seed, top=args.top, refused=refused,
                           placed_on=placed_on)
    key = _pending_key(state, args.pod, is_file)
    placements = schedule_all(frameworks, state, seed=args.seed).placements
    placement = next(p for p in placements if p.pod.key == key)
    if placement.attempts == 0:  # never reached a scheduling cycle
        raise RulesetError(Problem(f"--in-run: {key} never reached a scheduling cycle: {placement.reason}",
                                   file=args.pod, code="no-cycle"))
    frameworks, state = load()
    pod = next(p for p in state.pending if p.key == key)
    scheduler, replay = replay_until(frameworks, state, pod, placement.attempts, seed=args.seed)
    if scheduler is None:  # cannot happen with deterministic runs: the first run reached it
        raise RulesetError(Problem(f"--in-run: the replay did not reach {key}", file=args.pod,
                                   code="no-cycle"))
    explanation = explain_pod(scheduler.framework, state, pod, seed=args.seed, top=args.top,
                              scheduler=scheduler)
    # Where the run was: this pod's deciding cycle, after the fates of ``settledBefore`` pods.
    explanation.in_run = {"attempt": placement.attempts, "settledBefore": len(replay.placements),
                          "pending": len(placements), "node": placement.node,
                          # What happened to the pod in its earlier cycles (a preemption, say).
                          "events": _events(replay.events, key)}
    return explanation


def _pending_key(state: Any, value: str, is_file: bool) -> str:
    if is_file:
        path = str(Path(value))
        mine = [p for p in state.pending if p.meta.origin is not None and p.meta.origin.file == path]
        if mine:
            return str(mine[0].key)
    else:
        if any(p.key == value for p in state.pending):
            return value
    raise RulesetError(Problem("--in-run explains a pending pod: this is none of the cluster's pending pods",
                               file=value, code="no-pod"))



def _events(events: list[Any], key: str) -> list[dict[str, Any]]:
    """The pod's events of the run so far, each with the cycle it came of (a preemption comes of
    the cycle that failed just before it)."""
    out, attempt = [], None
    for event in events:
        if event.pod != key:
            continue
        attempt = event.detail.get("attempt", attempt)
        out.append({"type": event.kind, "node": event.node, "attempt": attempt,
                    **({"victims": event.detail["victims"]} if "victims" in event.detail else {})})
    return out
