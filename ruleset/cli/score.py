"""``ruleset score``: filter and score one pod on every node, per plugin."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ruleset.cli.common import add_run_arguments, report_ignored_fields, report_notes, root_of
from ruleset.errors import printable
from ruleset.framework.status import Code, Status


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("score", help="show how one pod filters and scores on every node",
                                   description="Filter and score one pod on every node, plugin by plugin.")
    add_run_arguments(parser)
    parser.add_argument("--pod", metavar="FILE",
                        help="the pod to score: a Pod, or a workload (its first pod); default: the cluster's "
                             "first pending pod in queue order")
    parser.add_argument("--all", action="store_true",
                        help="text output: every feasible node (default: the 20 with the highest totals)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.app import first_pending, prepare_run, score_pod, take_pod_file
    from ruleset.cli.output import print_json
    from ruleset.cli.score_text import render_score
    from ruleset.cli.terminal import progress, use_color, width

    with progress("reading manifests", None) as reading:
        framework, state = prepare_run(args.profile, args.cluster, [args.pod] if args.pod else None,
                                       root=root_of(args), seed=args.seed, replace=True,
                                       on_file=lambda _path: reading.advance())
    report_notes(state.notes, args.verbose, state.admission, state.warnings, state.read,
                 state.created, state.bound)
    ignored = report_ignored_fields(state, framework.profile.target)
    refused = None
    if args.pod:
        pod, refused = take_pod_file(str(Path(args.pod)), state)
    else:
        pod = first_pending(state, framework)
    serves = framework.profile.scheduler_name
    if pod.scheduler_name != serves:
        print(printable(f"note: pod {pod.key} asks for schedulerName {pod.scheduler_name!r}; profile "
                        f"{framework.profile.name!r} serves {serves!r}: scored as if it served the pod"),
              file=sys.stderr)
    report = score_pod(framework, state, pod, seed=args.seed, refused=refused)
    if args.output == "json":
        print_json({**score_json(report), "ignoredPodFields": ignored}, plugin_problems=True)
    else:
        top = None if args.all or args.wide else 20
        print(render_score(score_json(report), width=width(args.wide), top=top, color=use_color()))
    return 0


def _preemption_json(result: Any) -> dict[str, Any] | None:
    """What PostFilter reported (its details' ``to_json()``, as the framework checked it:
    DefaultPreemption's candidates), with ``error`` (the plugin's error object, see
    :meth:`~ruleset.Status.to_json`) when it failed."""
    post = result.post_filter
    if post is None:
        return None
    out = None if post.report.json is None else dict(post.report.json)
    if _is_error(post.status):
        out = {**(out or {}), "error": post.status.to_json()}
    return out


def _is_error(status: Any) -> bool:
    return isinstance(status, Status) and status.code == Code.ERROR


#: The keys of a plugin's score entry; a plugin's own details cannot replace them.
_SCORE_KEYS = frozenset({"raw", "score", "weight", "weighted"})


def _score_details(report: Any) -> dict[str, list[dict[str, Any]]]:
    """Each scoring plugin's own detail of its score on every node (:meth:`ruleset.Plugin.score_details`),
    by the name it is reported under. A plugin whose details fail, or do not give one
    mapping per node, shows none: the report goes on."""
    scores = report.result.scores if report.result is not None else None
    if scores is None:
        return {}
    framework = report.framework
    nodes = report.state.snapshot.all_nodes()
    out = {}
    for label in scores.plugins:
        try:
            details = framework.plugin_reported_as(label).score_details(report.pod, nodes)
            if details is None:
                continue
            rows = [{k: v for k, v in dict(row).items() if k not in _SCORE_KEYS} for row in details]
        except Exception:  # a plugin's extra detail must not take the report down
            continue
        if len(rows) == len(nodes):
            out[label] = rows
    return out


def score_json(report: Any) -> dict[str, Any]:
    """The JSON contract of ``ruleset score`` (without ``schemaVersion``).

    A plugin's entry in ``scores`` may carry detail of its own (the Rules plugin's
    ``rules``: per preference rule that applies to the pod, ``{"matched", "score" (100 or
    0), "weight", "weighted"}``).
    """
    if report.result is None:  # refused: no node was tried
        return {"pod": report.pod.key, "profile": report.profile.name, "nodes": [], "selected": None,
                "message": report.refused, "preemption": None, "refused": True}
    details = _score_details(report)
    result = report.result
    snapshot = report.state.snapshot
    statuses = result.statuses
    # Position of each scored node in the score table; a profile without Score plugins scores nothing.
    scored: dict[int, int] = {int(node): i for i, node in enumerate(result.feasible)} if result.scores else {}
    # A cycle aborted before any node was found feasible (PreFilter, Filter): the Error is the
    # outcome of every node no plugin had rejected yet.
    error = result.status if _is_error(result.status) else None
    undecided = error if error is not None and not len(result.feasible) else None
    nodes = []
    for index, name in enumerate(snapshot.node_names):
        status = statuses.status(index) if statuses is not None else None
        if undecided is not None and (status is None or status.is_success):
            status = undecided
        # Filter never ran on the node: outside the nodes a PreFilterResult named, or beside a
        # nominated node that passed alone.
        unfiltered = (statuses is not None and status is not None and status.is_success
                      and not statuses.evaluated[index])
        entry: dict[str, Any] = {
            "name": name,
            "filter": None if unfiltered else {
                "code": status.code.label if status else "Success",
                "plugin": status.plugin if status else None,
                "reasons": list(status.reasons) if status else [],
            },
            "scores": {},
            "total": None,
        }
        position = scored.get(index)
        if position is not None and result.scores is not None:
            table = result.scores
            for plugin, weight, raw, norm in zip(table.plugins, table.weights, table.raw, table.normalized,
                                                 strict=True):
                entry["scores"][plugin] = {"raw": int(raw[position]), "score": int(norm[position]),
                                           "weight": weight, "weighted": int(norm[position]) * weight,
                                           **(details[plugin][index] if plugin in details else {})}
            entry["total"] = int(table.total[position])
        entry["scored"] = position is not None
        nodes.append(entry)
    out = {
        "pod": report.pod.key,
        "profile": report.profile.name,
        # Plugins whose PreScore skipped the pod (from 1.27): not scored for it, absent from scores.
        "skippedPlugins": list(result.scores.skipped) if result.scores is not None else [],
        "nodes": nodes,
        "selected": result.node,
        "message": result.message or None,
        "preemption": _preemption_json(result),
    }
    if error is not None:  # the plugin error that aborted the cycle, as structured data
        out["error"] = error.to_json()
    return out
