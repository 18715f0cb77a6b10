"""``ruleset explain`` as text a person reads, drawn from the JSON document (so the two never
disagree): the decision in words, then the evidence."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from ruleset.cli.score_text import names_column, render_fitted
from ruleset.cli.terminal import Symbols, examples_width, symbols
from ruleset.errors import printable


def _text(value: object, style: str = "") -> Text:
    """Input-derived text, control characters escaped, never read as markup."""
    return Text(printable(str(value)), style=style)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _grid(rows: list[tuple[str, str]]) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for label, words in rows:
        grid.add_row(label, _text(words))
    return grid


def _cell(entry: dict[str, Any]) -> str:
    inner = str(entry["score"]) if entry["raw"] == entry["score"] else f"{entry['score']}/{entry['raw']}"
    return f"{entry['weighted']} ({inner})"


def _scores_table(decision: dict[str, Any], keep: int, color: bool) -> Table:
    """Plugins as rows, the top nodes as columns (the first ``keep`` of them)."""
    top = decision["top"][:keep]
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold" if color else "")
    table.add_column("PLUGIN", no_wrap=True)
    table.add_column("WEIGHT", justify="right", no_wrap=True)
    for node in top:
        table.add_column(printable(f"#{node['rank']} {node['node']}"), justify="right", no_wrap=True)
    plugins = [s["plugin"] for s in top[0]["scores"]] if top else []
    for k, plugin in enumerate(plugins):
        style = "bold" if color and plugin == decision.get("decisivePlugin") else ""
        table.add_row(_text(plugin), str(top[0]["scores"][k]["weight"]),
                      *[_cell(node["scores"][k]) for node in top], style=style)
    table.add_row("TOTAL", "", *[str(node["total"]) for node in top], style="bold" if color else "")
    return table


def _fitting_nodes(decision: dict[str, Any], width: int | None) -> int:
    """How many node columns fit in ``width`` (at least one, the chosen node)."""
    top = decision["top"]
    if width is None or not top:
        return len(top)
    plugins = [s["plugin"] for s in top[0]["scores"]]
    used = max([len("PLUGIN"), len("TOTAL"), *map(len, plugins)]) + 2 + len("WEIGHT")
    for k, node in enumerate(top):
        cells = [f"#{node['rank']} {node['node']}", *(_cell(s) for s in node["scores"]), str(node["total"])]
        used += 2 + max(len(c) for c in cells)
        if used > width:
            return max(1, k)
    return len(top)


def _scoring_line(scoring: dict[str, Any]) -> str:
    percentage = scoring["percentage"]
    setting = "adaptive" if not percentage else f"{percentage}%"
    line = (f"{scoring['evaluated']} of {_plural(scoring['nodes'], 'node')} filtered, "
            f"{scoring['scored']} of {scoring['feasible']} feasible scored "
            f"(percentageOfNodesToScore: {setting})")
    if scoring["scored"] == scoring["feasible"]:
        return line + "; every feasible node was scored"
    if scoring["changes"]:
        return line + f"; scoring all of them would choose {scoring['node']} instead"
    return line + "; scoring all of them would choose the same node"


def _decision(doc: dict[str, Any], width: int | None, sym: Symbols, color: bool) -> list[Any]:
    d = doc["decision"]
    rows = [("chosen:", f"{d['node']} (total {d['total']}, rank {d['rank']} of {d['feasible']})")]
    if d["runnerUp"] is not None:
        rows.append(("runner-up:", f"{d['runnerUp']} ({_plural(d['margin'], 'point')} behind)"))
    if d["tie"] is not None:
        tie = d["tie"]
        rows.append(("decided by:", f"a tie between {_plural(len(tie['nodes']), 'node')} at {d['total']} "
                                    f"({', '.join(tie['nodes'])}), drawn with seed {tie['seed']}"))
    elif d["decisivePlugin"] is not None:
        rows.append(("decided by:", f"{d['decisivePlugin']} (+{d['decisiveDifference']} weighted over "
                                    f"{d['runnerUp']}, the largest difference of any plugin)"))
    else:
        rows.append(("decided by:", "the only feasible node"))
    rows.append(("scoring:", _scoring_line(d["scoring"])))
    out: list[Any] = [_grid(rows), Text("")]
    if d["top"] and d["top"][0]["scores"]:
        keep = _fitting_nodes(d, width)
        title = f"scores on the top {_plural(len(d['top']), 'node')}"
        out.append(Text(title + (f" ({keep} shown, --wide shows all):" if keep < len(d["top"]) else ":"),
                        style="bold" if color else ""))
        out.append(_scores_table(d, keep, color))
        out.append(Text(f"cells: weighted score (normalised score/raw score when they differ); weighted = "
                        f"weight {sym.times} normalised"))
    return out


def _rejected(doc: dict[str, Any], width: int | None, sym: Symbols, color: bool) -> list[Any]:
    groups = doc["rejected"]
    if not groups:
        return []
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold" if color else "")
    table.add_column("NODES", justify="right", no_wrap=True)
    table.add_column("REJECTED BY", no_wrap=True)
    table.add_column("REASON", overflow="fold")
    table.add_column("FOR EXAMPLE", overflow="fold")
    for group in groups:
        code = "" if group["code"] == "Unschedulable" else f" ({group['code']})"
        reason = ", ".join(group["reasons"]) + code
        more = f", {sym.ellipsis}" if len(group["examples"]) < group["count"] else ""
        table.add_row(str(group["count"]), _text(group["plugin"] or "-"), _text(reason),
                      _text(", ".join(group["examples"][:3]) + (more if len(group["examples"]) <= 3 else
                                                                f", {sym.ellipsis}")))
    names_column(table, 3, examples_width(width))
    total = sum(g["count"] for g in groups)
    title = Text(f"rejected: {total} of {doc['nodes']} nodes", style="bold" if color else "")
    return [title, table, Text("")]


def _suggestions(doc: dict[str, Any], sym: Symbols, color: bool) -> list[Any]:
    if not doc["suggestions"] and not doc["blockers"]:
        return []
    out: list[Any] = [Text("what would make it fit (each change checked by filtering again):",
                           style="bold" if color else "")] if doc["suggestions"] else []
    rows = []
    for s in doc["suggestions"]:
        examples = f": {', '.join(s['examples'][:3])}{', ' + sym.ellipsis if s['nodes'] > 3 else ''}" \
            if s["examples"] else ""
        rows.append((f"  {s['plugin']}:", s["text"] + examples))
    if rows:
        out += [_grid(rows), Text("")]
    if doc["blockers"]:
        out.append(Text("existing pods that keep InterPodAffinity from admitting each node:",
                        style="bold" if color else ""))
        out += [_grid([(f"  {printable(b['node'])}:", ", ".join(b["pods"]) or "-") for b in doc["blockers"]]),
                Text("")]
    return out


def _preemption(doc: dict[str, Any], sym: Symbols) -> tuple[str, str]:
    pre = doc["preemption"]
    if pre is None:
        return ("preemption:", "not attempted (the profile has no PostFilter plugin)")
    if pre.get("error"):
        return ("preemption:", f"error: {pre['error'].get('message')}")
    node = pre.get("nominatedNode")
    reason = pre.get("reason") or ""
    if node is None:
        return ("preemption:", f"none {sym.dash} {reason}" if reason
                else "no node where evicting pods would help")
    candidates = [c for c in pre.get("candidates") or [] if isinstance(c, dict)]
    chosen = next((c for c in candidates if c.get("node") == node), {})
    victims = list(chosen.get("victims") or [])
    line = f"would evict {_plural(len(victims), 'pod')} on {node}"
    line += f" ({', '.join(victims)})" if victims else ""
    violations = chosen.get("pdbViolations") or 0
    line += (f", violating {_plural(violations, 'PodDisruptionBudget')}" if violations
             else ", violating no PodDisruptionBudget")
    if reason:
        line += f"; chosen among {_plural(len(candidates), 'candidate node')} for {reason}"
    return ("preemption:", line)


def render_explain(doc: dict[str, Any], *, width: int | None, color: bool = False,
                   sym: Symbols | None = None) -> str:
    """The ``ruleset explain`` JSON document as text at most ``width`` columns wide (None: no limit)."""
    sym = symbols() if sym is None else sym
    header = f"profile {doc['profile']}  seed {doc['seed']}"
    if doc.get("placedOn"):
        header += f"  (in the input on {doc['placedOn']}: explained as if pending, its room freed)"
    in_run = doc.get("inRun")
    if in_run:
        header += (f"  replayed: cycle {in_run['attempt']} of this pod, after "
                   f"{_plural(in_run['settledBefore'], 'pod')} settled")
    out: list[Any] = [_text(doc["summary"], "bold" if color else ""), _text(header)]
    for event in (in_run or {}).get("events") or []:
        where = f" on {event['node']}" if event.get("node") else ""
        if event.get("victims"):
            where += f", evicting {', '.join(event['victims'])}"
        out.append(_text(f"earlier: cycle {event.get('attempt', '?')}: {event['type']}{where}"))
    out.append(Text(""))
    if doc["outcome"] == "scheduled":
        out += _decision(doc, width, sym, color)
    elif doc["outcome"] == "refused":
        out.append(_grid([("refused:", str(doc["message"]))]))
    else:
        label = "error:" if doc["outcome"] == "error" else "unschedulable:"
        out.append(_grid([(label, str(doc["message"]))]))
        out.append(Text(""))
        out += _rejected(doc, width, sym, color)
        out += _suggestions(doc, sym, color)
        if doc["outcome"] == "unschedulable":
            out.append(_grid([_preemption(doc, sym)]))
    return render_fitted(out, width=width, color=color)
