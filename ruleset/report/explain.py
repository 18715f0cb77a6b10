"""The report of ``ruleset explain --report``: blocks for :func:`ruleset.report.html.render_page`
from the command's JSON document (:meth:`ruleset.analysis.explain.Explanation.to_json`)."""

from __future__ import annotations

from typing import Any

from ruleset.report.html import render_page


def explain_report(document: dict[str, Any]) -> str:
    """The HTML page for one ``explain`` document."""
    return render_page(f"ruleset explain — {document['pod']}", explain_blocks(document),
                       subtitle=document["summary"])


def explain_blocks(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The page's blocks: summary facts, then for a placed pod the top nodes' weighted scores, for
    one that fits nowhere the rejection groups, what would make it fit and what preemption would do."""
    blocks: list[dict[str, Any]] = [{"type": "facts", "items": _facts(document)}]
    if document.get("message"):
        blocks.append({"type": "text", "text": document["message"]})
    decision = document.get("decision")
    if decision is not None and decision["top"]:
        blocks += _heatmap(decision)
    if document["outcome"] in ("unschedulable", "error") or document["rejected"]:
        blocks += _rejected(document)
    if document["outcome"] in ("unschedulable", "error") or document["suggestions"]:
        blocks += _suggestions(document["suggestions"])
    if document["blockers"]:
        blocks += _blockers(document["blockers"])
    if document["outcome"] == "unschedulable":
        blocks += _preemption(document["preemption"])
    return blocks


def _facts(document: dict[str, Any]) -> list[list[Any]]:
    items: list[list[Any]] = [["pod", document["pod"]], ["profile", document["profile"]],
                              ["outcome", document["outcome"]], ["nodes", document["nodes"]],
                              ["seed", document["seed"]]]
    decision = document.get("decision")
    if decision is not None:
        items += [["node", decision["node"]],
                  ["rank", f"{decision['rank']} of {decision['feasible']} feasible"],
                  ["total score", decision["total"]]]
        if decision.get("runnerUp") is not None:
            items += [["runner-up", decision["runnerUp"]], ["margin", decision["margin"]]]
        if decision.get("decisivePlugin") is not None:
            items.append(["decided by", f"{decision['decisivePlugin']} (+{decision['decisiveDifference']} "
                                        "weighted over the runner-up)"])
        scoring = decision["scoring"]
        items.append(["scoring", f"{scoring['evaluated']} of {scoring['nodes']} nodes filtered, "
                                 f"{scoring['scored']} of {scoring['feasible']} feasible scored"
                                 + (f"; scoring every feasible node would choose {scoring['node']}"
                                    if scoring["changes"] else "")])
        if decision.get("tie"):
            tie = decision["tie"]
            items.append(["tie", f"{', '.join(tie['nodes'])}: seed {tie['seed']} drew {tie['chosen']}"])
    if document.get("placedOn"):
        items.append(["in the input on", document["placedOn"]])
    in_run = document.get("inRun")
    if in_run:
        items.append(["replayed", f"cycle {in_run['attempt']} of this pod, after {in_run['settledBefore']} "
                                  f"of {in_run['pending']} pending pods settled"])
    return items


def _heatmap(decision: dict[str, Any]) -> list[dict[str, Any]]:
    top = decision["top"]
    plugins = [(s["plugin"], s["weight"]) for s in top[0]["scores"]]
    values = []
    for entry in top:
        weighted = {s["plugin"]: s["weighted"] for s in entry["scores"]}
        values.append([weighted.get(name) for name, _ in plugins])
    return [{"type": "heading", "text": f"Weighted scores on the top {len(top)} nodes"}, {
        "type": "chart", "chart": "heatmap", "title": "Weighted score (normalised score × weight)",
        "rows": [f"#{e['rank']} {e['node']} (total {e['total']})" for e in top],
        "columns": [f"{name} ×{weight}" for name, weight in plugins],
        "values": values, "label": "weighted score",
        "note": "Rows: the best nodes of the cycle, by total; each cell is a plugin's weighted score there.",
    }]


def _rejected(document: dict[str, Any]) -> list[dict[str, Any]]:
    groups = document["rejected"]
    count = sum(g["count"] for g in groups)
    rows = [[g["count"], g["plugin"], g["code"], ", ".join(g["reasons"]), ", ".join(g["examples"])]
            for g in groups]
    return [{"type": "heading", "text": f"Rejected nodes ({count} of {document['nodes']})"},
            {"type": "table", "columns": ["nodes", "rejected by", "code", "reason", "for example"],
             "rows": rows, "numeric": [True, False, False, False, False]}]


def _suggestions(suggestions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not suggestions:
        return [{"type": "heading", "text": "What would make it fit"},
                {"type": "text", "text": "No single change to the pod was found to admit a node."}]
    rows = [[s["plugin"], s["text"], s["nodes"], ", ".join(s["examples"])] for s in suggestions]
    return [{"type": "heading", "text": "What would make it fit"},
            {"type": "table", "columns": ["plugin", "change", "nodes verified", "for example"], "rows": rows,
             "numeric": [False, False, True, False],
             "note": "Each change was checked by running the filters again on a changed copy of the pod; "
                     "nodes verified: how many nodes then pass."}]


def _blockers(blockers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "heading", "text": "Pods keeping InterPodAffinity from admitting a node"},
            {"type": "table", "columns": ["node", "pods"],
             "rows": [[b["node"], ", ".join(b["pods"])] for b in blockers]}]


def _preemption(preemption: dict[str, Any] | None) -> list[dict[str, Any]]:
    heading = {"type": "heading", "text": "Preemption"}
    if preemption is None:
        return [heading, {"type": "text", "text": "Not attempted: the profile has no PostFilter plugin."}]
    if preemption.get("error"):
        return [heading, {"type": "text", "text": f"Error: {preemption['error'].get('message')}"}]
    node = preemption.get("nominatedNode")
    candidates = [c for c in preemption.get("candidates") or [] if isinstance(c, dict)]
    if node is None:
        reason = preemption.get("reason") or "no node where evicting pods would help"
        return [heading, {"type": "text", "text": f"None: {reason}."}]
    chosen = next((c for c in candidates if c.get("node") == node), {})
    victims = list(chosen.get("victims") or [])
    return [heading, {"type": "facts", "items": [
        ["nominated node", node],
        ["victims", ", ".join(victims) or "none"],
        ["PodDisruptionBudgets violated", chosen.get("pdbViolations") or 0],
        ["candidate nodes", len(candidates)],
        ["chosen for", preemption.get("reason") or ""],
    ]}]
