"""``ruleset score`` as text a person reads: the best feasible nodes with their scores per
plugin, the rejected nodes grouped by why, and the outcome in words; drawn from the
``score_json`` document so that text and JSON never disagree."""

from __future__ import annotations

import re
from typing import Any

from rich.table import Table
from rich.text import Text

from ruleset.cli.terminal import Symbols, examples_width, render, symbols
from ruleset.errors import printable

#: Column headers of the built-in scoring plugins; any other plugin gets :func:`_derived`.
SHORT_NAMES = {
    "NodeResourcesBalancedAllocation": "BalAlloc",
    "NodeResourcesLeastAllocated": "LeastAlloc",
    "NodeResourcesMostAllocated": "MostAlloc",
    "RequestedToCapacityRatio": "ReqToCap",
    "ImageLocality": "ImageLoc",
    "InterPodAffinity": "InterPod",
    "NodeAffinity": "NodeAff",
    "NodePreferAvoidPods": "AvoidPods",
    "PodTopologySpread": "Spread",
    "SelectorSpread": "SelSpread",
    "TaintToleration": "Taints",
    "ServiceAffinity": "SvcAff",
    "NodeLabel": "NodeLabel",
    "Rules": "Rules",
}
#: Names this long or shorter are their own header.
_SHORT_ENOUGH = 10
#: Rejected nodes named per group (the count says how many there are).
EXAMPLES = 3
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _derived(name: str) -> str:
    """A header for a plugin name: itself when short, else the first three letters of each
    CamelCase word after a leading ``Node``/``Resources``, at most 10 characters."""
    if len(name) <= _SHORT_ENOUGH:
        return name
    words = _WORDS.findall(name) or [name]
    while len(words) > 1 and words[0] in ("Node", "Resources", "Pod"):
        words = words[1:]
    return "".join(word[:3] for word in words)[:_SHORT_ENOUGH] or name[:_SHORT_ENOUGH]


def short_headers(plugins: list[str]) -> dict[str, str]:
    """A short, unique column header for each plugin name, in order: :data:`SHORT_NAMES`, else
    :func:`_derived`; a header already taken gets a number (``Foo2``)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for plugin in plugins:
        base = SHORT_NAMES.get(plugin) or _derived(plugin)
        header, n = base, 1
        while header in taken:
            n += 1
            header = f"{base}{n}"
        taken.add(header)
        out[plugin] = header
    return out


def _text(value: object, style: str = "") -> Text:
    """Input-derived text, control characters escaped, never read as markup."""
    return Text(printable(str(value)), style=style)


def _error_text(error: dict[str, Any]) -> str:
    if error.get("plugin") is None:
        return str(error.get("message"))
    return f"{error.get('message')} (plugin {error['plugin']}, package {error.get('package')})"


def _weights(nodes: list[dict[str, Any]]) -> dict[str, int]:
    weights: dict[str, int] = {}
    for node in nodes:
        for plugin, entry in node["scores"].items():
            weights.setdefault(plugin, entry.get("weight", 1))
    return weights


def _rules(nodes: list[dict[str, Any]], plugin: str) -> dict[str, int]:
    """The per-rule breakdown a plugin reports (``"rules"`` in its entries): rule → weight."""
    rules: dict[str, int] = {}
    for node in nodes:
        detail = node["scores"].get(plugin, {}).get("rules")
        if isinstance(detail, dict):
            for rule, entry in detail.items():
                if isinstance(entry, dict):
                    rules.setdefault(str(rule), entry.get("weight", 1))
    return rules


def _cell(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return ""
    if entry.get("raw") is not None and entry.get("raw") != entry.get("score"):
        return f"{entry.get('score')} ({entry['raw']})"
    return str(entry.get("score"))


def _feasible_table(doc: dict[str, Any], shown: list[dict[str, Any]], below: list[dict[str, Any]],
                    headers: dict[str, str], rule_columns: list[tuple[str, str]], sym: Symbols,
                    color: bool) -> Table:
    """The ``shown`` nodes, then (after a row of dots) the selected node when it ranks below them;
    a column per plugin, each followed by its ``rule_columns``."""
    columns: list[tuple[str, str | None]] = []
    for plugin in headers:
        columns += [(plugin, None), *[(p, rule) for p, rule in rule_columns if p == plugin]]
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold" if color else "")
    table.add_column("NODE", overflow="fold")
    for plugin, rule in columns:
        title = headers[plugin] if rule is None else printable(f"{headers[plugin]}:{rule}")
        table.add_column(title, justify="right", no_wrap=rule is None, overflow="fold")
    table.add_column("TOTAL", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    for node in [*shown, *below]:
        if below and node is below[0]:
            table.add_row(sym.ellipsis)
        scores = node["scores"]
        cells = []
        for plugin, rule in columns:
            entry = _rule_entry(node, plugin, rule) if rule is not None else None
            cells.append(_cell(scores.get(plugin)) if rule is None
                         else str(entry["score"]) if entry and "score" in entry else "")
        selected = node["name"] == doc.get("selected")
        total = "-" if node.get("total") is None else str(node["total"])
        style = "bold green" if selected and color else ""
        table.add_row(_text(node["name"]), *cells, total, f"{sym.back} selected" if selected else "",
                      style=style)
    return table


def _legend(nodes: list[dict[str, Any]], feasible: list[dict[str, Any]], headers: dict[str, str],
            weights: dict[str, int], wide: bool, sym: Symbols) -> Table:
    """What the columns are: each header's plugin and weight, how a cell reads, and (unless
    ``wide`` shows them as columns) each per-rule breakdown summed up over the feasible nodes."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for plugin, header in headers.items():
        grid.add_row(f"  {header}", _text(f"{plugin} {sym.times}{weights[plugin]}"))
        for rule, weight in _rules(nodes, plugin).items() if wide else ():
            grid.add_row(_text(f"  {header}:{rule}"),
                         _text(f"rule {rule} of {plugin} {sym.times}{weight}: 100 if it matches, else 0"))
    grid.add_row("  cells", "the normalized score, then the raw score in brackets when it differs")
    grid.add_row("  TOTAL", f"the sum of weight {sym.times} normalized score")
    for plugin, header in headers.items():
        rules = _rules(nodes, plugin)
        if wide or not rules:
            continue
        parts = []
        for rule, weight in rules.items():
            matched = sum(1 for node in feasible if _rule_entry(node, plugin, rule).get("matched"))
            parts.append(f"{rule} {sym.times}{weight} matched on {matched}")
        grid.add_row(f"  {header} rules", _text(f"of {len(feasible)} feasible nodes: " + ", ".join(parts)))
    return grid


def _rule_entry(node: dict[str, Any], plugin: str, rule: str) -> dict[str, Any]:
    entry = ((node["scores"].get(plugin) or {}).get("rules") or {}).get(rule)
    return entry if isinstance(entry, dict) else {}


def _rejected(doc: dict[str, Any], width: int | None, sym: Symbols, color: bool) -> list[Any]:
    groups: dict[tuple[Any, ...], list[str]] = {}
    for node in doc["nodes"]:
        status = node["filter"]
        if status["code"] in ("Success", "Error"):
            continue
        key = (status.get("plugin"), status["code"], tuple(status.get("reasons") or ()))
        groups.setdefault(key, []).append(node["name"])
    if not groups:
        return []
    rejected = sum(len(names) for names in groups.values())
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold" if color else "")
    table.add_column("NODES", justify="right", no_wrap=True)
    table.add_column("REJECTED BY", overflow="fold")
    table.add_column("REASON", overflow="fold")
    table.add_column("FOR EXAMPLE", overflow="fold", max_width=examples_width(width))
    # Largest group first; equal groups in the order their first node comes.
    for (plugin, code, reasons), names in sorted(groups.items(), key=lambda item: -len(item[1])):
        reason = ", ".join(reasons) + ("" if code == "Unschedulable" else f" ({code})")
        examples = names if width is None else names[:EXAMPLES]
        more = f", {sym.ellipsis}" if len(examples) < len(names) else ""
        table.add_row(str(len(names)), _text(plugin or "-"), _text(reason),
                      _text(", ".join(examples) + more))
    return [Text(f"rejected: {rejected} of {len(doc['nodes'])} nodes", style="bold" if color else ""), table]


def _preemption(doc: dict[str, Any], width: int | None, sym: Symbols) -> list[tuple[str, str]]:
    """What PostFilter did, in words: DefaultPreemption's ``candidates``, ``nominatedNode`` and
    ``reason`` (another plugin's report may hold none of them)."""
    pre = doc.get("preemption")
    if pre is None:
        return [("preemption:", "not attempted (the profile has no PostFilter plugin)")]
    if pre.get("error"):
        return [("preemption:", f"error: {_error_text(pre['error'])}")]
    candidates = [c for c in pre.get("candidates") or [] if isinstance(c, dict)]
    node = pre.get("nominatedNode")
    reason = pre.get("reason") or ""
    if node is None:
        return [("preemption:", f"none {sym.dash} {reason}" if reason
                 else "no node where evicting lower-priority pods would help")]
    chosen = next((c for c in candidates if c.get("node") == node), {})
    victims = list(chosen.get("victims") or [])
    line = f"would evict {_plural(len(victims), 'pod')} on {node}"
    line += f" ({', '.join(victims)})" if victims else ""
    line += (f", violating {_plural(chosen['pdbViolations'], 'PodDisruptionBudget')}"
             if chosen.get("pdbViolations") else "")
    if reason:
        line += f"; chosen among {_plural(len(candidates), 'candidate node')} for {reason}"
    lines = [("preemption:", line)]
    if width is None:
        lines += [("", f"candidate {c.get('node')}: victims {', '.join(c.get('victims') or []) or '-'}, "
                       f"PDB violations {c.get('pdbViolations')}") for c in candidates]
    return lines


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _outcome(doc: dict[str, Any], width: int | None, sym: Symbols) -> Table:
    """The outcome as label and words, the words wrapping beside their label."""
    if doc.get("selected"):
        total = next((n.get("total") for n in doc["nodes"] if n["name"] == doc["selected"]), None)
        lines = [("selected:", str(doc["selected"]) + ("" if total is None else f" (total {total})"))]
    elif doc.get("error"):
        lines = [("error:", _error_text(doc["error"]))]
    elif doc.get("refused"):  # no node was tried: there is nothing to preempt for
        lines = [("refused:", str(doc.get("message")))]
    else:
        lines = [("unschedulable:", str(doc.get("message"))), *_preemption(doc, width, sym)]
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for label, words in lines:
        grid.add_row(label, _text(words))
    return grid


def render_score(doc: dict[str, Any], *, width: int | None, top: int | None = 20, color: bool = False,
                 sym: Symbols | None = None) -> str:
    """The ``score_json`` document ``doc`` as text ``width`` columns wide at most (``None``: no
    limit, with the per-rule columns of a plugin reporting ``rules`` and every preemption
    candidate and rejected node): the ``top`` feasible nodes by total (``None``: all; equal
    totals in node order), plugins as short columns explained below the table, the rejected
    nodes grouped by plugin, code and reasons, largest group first, and the outcome.
    ``color`` adds ANSI styles; ``sym`` defaults to what stdout can encode."""
    sym = symbols() if sym is None else sym
    nodes = doc["nodes"]
    feasible = [n for n in nodes if n["filter"]["code"] == "Success"]
    ranked = sorted(feasible, key=lambda n: (n.get("total") is None, -(n.get("total") or 0)))
    shown = ranked if top is None else ranked[:top]
    # The selected node is always shown (equal totals may leave it below the top).
    below = [n for n in ranked[len(shown):] if n["name"] == doc.get("selected")]
    weights = _weights(nodes)
    headers = short_headers(list(weights))
    header = f"pod {doc['pod']}  profile {doc['profile']}"
    if doc.get("podSchedulerName"):
        header += f"  schedulerName {doc['podSchedulerName']}"
    rejected = sum(1 for n in nodes if n["filter"]["code"] not in ("Success", "Error"))
    out: list[Any] = [_text(header, "bold" if color else ""),
                      Text(f"{len(nodes)} nodes: {len(feasible)} feasible, {rejected} rejected"), Text("")]
    if feasible:
        title = "feasible node:" if len(feasible) == 1 else "feasible nodes by total:"
        if len(shown) < len(feasible):
            title = f"feasible nodes, top {len(shown)} of {len(feasible)} by total" + (
                ", and the selected node:" if below else ":")
        out.append(Text(title, style="bold" if color else ""))
        rules = {plugin: _rules(nodes, plugin) for plugin in headers}
        wide = width is None
        rule_columns = [(plugin, rule) for plugin in headers for rule in rules[plugin]] if wide else []
        out.append(_feasible_table(doc, shown, below, headers, rule_columns, sym, color))
        if len(shown) + len(below) < len(feasible):
            out.append(Text(f"{sym.ellipsis} and {len(feasible) - len(shown) - len(below)} more (--all)"))
        if headers:
            out += [Text(""), _legend(nodes, feasible, headers, weights, wide, sym)]
        out.append(Text(""))
    groups = _rejected(doc, width, sym, color)
    if groups:
        out += [*groups, Text("")]
    errors = sum(1 for n in nodes if n["filter"]["code"] == "Error")
    if errors:
        out.append(Text(f"not evaluated: {errors} nodes (the cycle ended with an error)"))
    out.append(_outcome(doc, width, sym))
    return render(out, width=width, color=color)
