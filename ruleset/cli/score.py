"""``ruleset score``: filter and score one pod on every node, per plugin."""

from __future__ import annotations

import argparse
from typing import Any

from ruleset.cli.common import add_run_arguments, report_notes, root_of
from ruleset.errors import printable
from ruleset.framework.status import Code, Status


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("score", help="show how one pod filters and scores on every node",
                                   description="Filter and score one pod on every node, plugin by plugin.")
    add_run_arguments(parser)
    parser.add_argument("--pod", metavar="FILE",
                        help="the pod to score (default: the cluster's first pending pod in queue order)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ruleset.app import first_pending, prepare_run, read_single_pod, score_pod
    from ruleset.cli.output import print_json

    framework, state = prepare_run(args.profile, args.cluster, root=root_of(args))
    report_notes(state.notes, args.verbose)
    pod = read_single_pod(args.pod, state) if args.pod else first_pending(state, framework)
    report = score_pod(framework, state, pod, seed=args.seed)
    if args.output == "json":
        print_json(score_json(report), plugin_problems=True)
    else:
        print(score_text(report))
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
    scores = report.result.scores
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
        entry: dict[str, Any] = {
            "name": name,
            "filter": {
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
        "nodes": nodes,
        "selected": result.node,
        "message": result.message or None,
        "preemption": _preemption_json(result),
    }
    if error is not None:  # the plugin error that aborted the cycle, as structured data
        out["error"] = error.to_json()
    return out


def _error_text(error: dict[str, Any]) -> str:
    """An error object as a line of the text report (naming the plugin and package, if any)."""
    if error.get("plugin") is None:
        return str(error["message"])
    return f"{error['message']} (plugin {error['plugin']}, package {error['package']})"


def _columns(data: dict[str, Any], weights: dict[str, int]) -> list[tuple[str, tuple[str, str | None]]]:
    """Table columns as ``(title, (plugin, rule or None))``: each plugin, then its rules, if any."""
    columns: list[tuple[str, tuple[str, str | None]]] = []
    for plugin, weight in weights.items():
        columns.append((f"{plugin}×{weight}", (plugin, None)))
        rules: dict[str, int] = {}
        for node in data["nodes"]:
            for rule, s in node["scores"].get(plugin, {}).get("rules", {}).items():
                rules.setdefault(rule, s["weight"])
        columns.extend((f"{plugin}:{rule}×{weight}", (plugin, rule)) for rule, weight in rules.items())
    return columns


def score_text(report: Any) -> str:
    """A readable table: nodes × plugins, with reasons for rejected nodes."""
    data = score_json(report)
    weights: dict[str, int] = {}  # each scoring plugin's weight, in order of appearance
    for node in data["nodes"]:
        for plugin, s in node["scores"].items():
            weights.setdefault(plugin, s["weight"])
    columns = _columns(data, weights)
    header = ["NODE", *[title for title, _ in columns], "TOTAL", ""]
    rows = []
    for node in data["nodes"]:
        if node["filter"]["code"] == "Error":  # the cycle's error, written once below
            rows.append([node["name"], *["-" for _ in columns], "-", f"✗ {node['filter']['plugin']} (Error)"])
            continue
        if node["filter"]["code"] != "Success":
            reasons = ", ".join(node["filter"]["reasons"])
            rows.append([node["name"], *["-" for _ in columns], "-",
                         f"✗ {node['filter']['plugin']}: {reasons} ({node['filter']['code']})"])
            continue
        cells = []
        for _, (plugin, rule) in columns:
            s = node["scores"].get(plugin)
            if s is not None and rule is not None:
                s = s.get("rules", {}).get(rule)
                cells.append("" if s is None else str(s["score"]))
            elif s is None:
                cells.append("")
            elif s["raw"] != s["score"]:
                cells.append(f"{s['score']} (raw {s['raw']})")
            else:
                cells.append(str(s["score"]))
        mark = "← selected" if node["name"] == data["selected"] else ""
        total = "" if node["total"] is None else str(node["total"])
        rows.append([node["name"], *cells, total, mark])
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [f"pod {data['pod']}  profile {data['profile']}", ""]
    for row in [header, *rows]:
        lines.append("  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    lines.append("")
    if data["selected"]:
        lines.append(f"selected: {data['selected']}")
    elif data.get("error"):
        lines.append(f"error: {_error_text(data['error'])}")
    else:
        lines.append(f"unschedulable: {data['message']}")
        pre = data.get("preemption")
        if pre and pre.get("error"):
            lines.append(f"preemption: error: {_error_text(pre['error'])}")
        elif pre:
            lines.append(f"preemption: nominated node {pre.get('nominatedNode')}")
            for cand in pre.get("candidates", []):
                lines.append(f"  candidate {cand['node']}: victims {', '.join(cand['victims']) or '-'}"
                             f", PDB violations {cand['pdbViolations']}")
    return "\n".join(printable(line) for line in lines)  # names and reasons come from the input
