"""``ruleset score`` as text a person reads: the best feasible nodes with their scores per
plugin, the rejected nodes grouped by why, and the outcome in words; drawn from the
``score_json`` document so that text and JSON never disagree."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
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


def _line_width(value: object) -> int:
    return max((cell_len(line) for line in str(value).split("\n")), default=0)


def _word_width(value: object) -> int:
    return max((cell_len(word) for word in str(value).split()), default=0)


#: What a wrapping column (a reason, a message) is counted as at least when a table's narrowest
#: width is worked out; rich may still fold such a column narrower.
_WRAPPING_LEAST = 10
#: The room a wrapping column gets in a table that is wider than the terminal anyway: once a
#: line overflows, a few more characters cost less than a reason one word a line.
_WRAPPING_OVERFLOW = 30


def names_column(table: Table, index: int, limit: int | None) -> None:
    """Make column ``index`` of ``table``, a list of names wrapping between names, never cut a
    name: as wide as its content up to ``limit``, and never narrower than its longest name.
    A fixed width, because rich narrows wrapping columns below their longest word."""
    column = table.columns[index]
    cells = [column.header, *column.cells]
    longest = max(_word_width(cell) for cell in cells)
    column.width = max(longest, min(max(_line_width(cell) for cell in cells), limit or 1_000_000))
    column.max_width = None


def least_width(table: Table, wrapping: int = _WRAPPING_LEAST) -> int:
    """The narrowest ``table`` can be drawn without cutting a name or a number: its fixed-width
    and ``no_wrap`` columns whole, each wrapping one its longest word or line, up to
    ``wrapping`` columns (the least room a reason needs), two spaces between."""
    needed = 0
    for column in table.columns:
        cells = [column.header, *column.cells]
        if column.width is not None:
            needed += column.width
        elif column.no_wrap:
            column.min_width = max(_line_width(cell) for cell in cells)
            needed += column.min_width
        else:
            measure = _word_width if wrapping <= _WRAPPING_LEAST else _line_width
            needed += min(wrapping, max(measure(cell) for cell in cells))
    return needed + 2 * max(0, len(table.columns) - 1)


def render_fitted(parts: list[Any], *, width: int | None, color: bool = False) -> str:
    """``parts`` drawn as :func:`~ruleset.cli.terminal.render` draws them, except that a table
    too wide for ``width`` even at its narrowest (:func:`least_width`) is drawn as wide as it
    needs: a line longer than the terminal beats a cut name."""
    chunks: list[str] = []
    run: list[Any] = []
    for part in [*parts, None]:
        if isinstance(part, Table) and width is not None and part.box is None and part.show_header:
            needed = least_width(part)
            if needed > width:
                if run:
                    chunks.append(render(run, width=width, color=color))
                    run = []
                chunks.append(render([part], width=least_width(part, _WRAPPING_OVERFLOW), color=color))
                continue
        if part is None:
            if run:
                chunks.append(render(run, width=width, color=color))
        else:
            run.append(part)
    return "\n".join(chunks)


def _columns(headers: dict[str, str], rule_columns: list[tuple[str, str]]) -> list[tuple[str, str | None]]:
    columns: list[tuple[str, str | None]] = []
    for plugin in headers:
        columns += [(plugin, None), *[(p, rule) for p, rule in rule_columns if p == plugin]]
    return columns


def _feasible_rows(doc: dict[str, Any], shown: list[dict[str, Any]], below: list[dict[str, Any]],
                   columns: list[tuple[str, str | None]], sym: Symbols) -> list[list[str]]:
    """The cells of the feasible table, row by row: node, a cell per column, total, mark; the
    row of dots before the selected node when it ranks below ``shown``."""
    rows = []
    for node in [*shown, *below]:
        if below and node is below[0]:
            rows.append([sym.ellipsis, *["" for _ in columns], "", ""])
        scores = node["scores"]
        cells = []
        for plugin, rule in columns:
            entry = _rule_entry(node, plugin, rule) if rule is not None else None
            cells.append(_cell(scores.get(plugin)) if rule is None
                         else str(entry["score"]) if entry and "score" in entry else "")
        selected = node["name"] == doc.get("selected")
        total = "-" if node.get("total") is None else str(node["total"])
        rows.append([printable(str(node["name"])), *cells, total, f"{sym.back} selected" if selected else ""])
    return rows


def _fitting(rows: list[list[str]], titles: list[str], width: int | None) -> int:
    """How many of the plugin columns (``titles``, left to right) fit in ``width`` beside the
    node, total and mark columns, each column as wide as its widest cell; all when no limit.
    The node, total and mark are never given up: when they alone do not fit, none of the
    plugin columns is shown and the table is wider than ``width``."""
    if width is None:
        return len(titles)
    widths = [max(cell_len(title), *(cell_len(row[i]) for row in rows))
              for i, title in enumerate(["NODE", *titles, "TOTAL", ""])]
    used = widths[0] + 2 + widths[-2] + (2 + widths[-1] if widths[-1] else 0)
    for k, plugin_width in enumerate(widths[1:-2]):
        used += 2 + plugin_width
        if used > width:
            return k
    return len(titles)


def _feasible_table(doc: dict[str, Any], rows: list[list[str]], titles: list[str], keep: int,
                    color: bool) -> Table:
    """The feasible nodes' ``rows`` with the first ``keep`` plugin columns (``titles``); no
    column wraps, so names and numbers are whole."""
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold" if color else "")
    table.add_column("NODE", no_wrap=True)
    for title in titles[:keep]:
        table.add_column(title, justify="right", no_wrap=True)
    table.add_column("TOTAL", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    selected_mark = bool(doc.get("selected"))
    for row in rows:
        selected = selected_mark and row[-1] != ""
        style = "bold green" if selected and color else ""
        table.add_row(Text(row[0]), *row[1:1 + keep], row[-2], row[-1], style=style)
    return table


def _legend(nodes: list[dict[str, Any]], feasible: list[dict[str, Any]], headers: dict[str, str],
            weights: dict[str, int], hidden: list[str], wide: bool, sym: Symbols,
            skipped_plugins: Sequence[str] = ()) -> Table:
    """What the columns are: each shown header's plugin and weight, the ``hidden`` plugins (their
    scores are in TOTAL all the same), how a cell reads, and (unless ``wide`` shows them as
    columns) each per-rule breakdown summed up over the feasible nodes; and the plugins whose
    PreScore skipped the pod."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for plugin, header in headers.items():
        if plugin in hidden:
            continue
        grid.add_row(f"  {header}", _text(f"{plugin} {sym.times}{weights[plugin]}"))
        for rule, weight in _rules(nodes, plugin).items() if wide else ():
            grid.add_row(_text(f"  {header}:{rule}"),
                         _text(f"rule {rule} of {plugin} {sym.times}{weight}: 100 if it matches, else 0"))
    if hidden:
        unseen = ", ".join(f"{plugin} {sym.times}{weights[plugin]}" for plugin in hidden)
        grid.add_row("  not shown", _text(unseen))
    skipped = [str(plugin) for plugin in skipped_plugins]
    if skipped:
        grid.add_row("  skipped", _text(f"{', '.join(skipped)} (PreScore skipped this pod: not scored)"))
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
        label = plugin if plugin in hidden else header
        summary = f"of {len(feasible)} feasible nodes: " + ", ".join(parts)
        grid.add_row(_text(f"  {label} rules"), _text(summary))
    return grid


def _rule_entry(node: dict[str, Any], plugin: str, rule: str) -> dict[str, Any]:
    entry = ((node["scores"].get(plugin) or {}).get("rules") or {}).get(rule)
    return entry if isinstance(entry, dict) else {}


def _rejected(doc: dict[str, Any], width: int | None, sym: Symbols, color: bool) -> list[Any]:
    groups: dict[tuple[Any, ...], list[str]] = {}
    for node in doc["nodes"]:
        status = node["filter"]
        if status is None or status["code"] in ("Success", "Error"):
            continue
        key = (status.get("plugin"), status["code"], tuple(status.get("reasons") or ()))
        groups.setdefault(key, []).append(node["name"])
    if not groups:
        return []
    rejected = sum(len(names) for names in groups.values())
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold" if color else "")
    table.add_column("NODES", justify="right", no_wrap=True)
    table.add_column("REJECTED BY", no_wrap=True)
    table.add_column("REASON", overflow="fold")
    table.add_column("FOR EXAMPLE", overflow="fold")
    # Largest group first; equal groups in the order their first node comes.
    for (plugin, code, reasons), names in sorted(groups.items(), key=lambda item: -len(item[1])):
        reason = ", ".join(reasons) + ("" if code == "Unschedulable" else f" ({code})")
        examples = names if width is None else names[:EXAMPLES]
        more = f", {sym.ellipsis}" if len(examples) < len(names) else ""
        table.add_row(str(len(names)), _text(plugin or "-"), _text(reason),
                      _text(", ".join(examples) + more))
    names_column(table, 3, examples_width(width))
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
    feasible = [n for n in nodes if n["filter"] is not None and n["filter"]["code"] == "Success"]
    ranked = sorted(feasible, key=lambda n: (n.get("total") is None, -(n.get("total") or 0)))
    shown = ranked if top is None else ranked[:top]
    # The selected node is always shown (equal totals may leave it below the top).
    below = [n for n in ranked[len(shown):] if n["name"] == doc.get("selected")]
    weights = _weights(nodes)
    headers = short_headers(list(weights))
    header = f"pod {doc['pod']}  profile {doc['profile']}"
    if doc.get("podSchedulerName"):
        header += f"  schedulerName {doc['podSchedulerName']}"
    rejected = sum(1 for n in nodes
                   if n["filter"] is not None and n["filter"]["code"] not in ("Success", "Error"))
    unfiltered = sum(1 for n in nodes if n["filter"] is None)
    # A refused pod never reached the scheduler: "0 nodes" would say the cluster has none.
    counts = ("refused before scheduling: no node was tried" if doc.get("refused")
              else f"{len(nodes)} nodes: {len(feasible)} feasible, {rejected} rejected"
              + (f", {unfiltered} not filtered" if unfiltered else ""))
    out: list[Any] = [_text(header, "bold" if color else ""), Text(counts), Text("")]
    if feasible:
        title = "feasible node:" if len(feasible) == 1 else "feasible nodes by total:"
        if len(shown) < len(feasible):
            title = f"feasible nodes, top {len(shown)} of {len(feasible)} by total" + (
                ", and the selected node:" if below else ":")
        out.append(Text(title, style="bold" if color else ""))
        rules = {plugin: _rules(nodes, plugin) for plugin in headers}
        wide = width is None
        rule_columns = [(plugin, rule) for plugin in headers for rule in rules[plugin]] if wide else []
        columns = _columns(headers, rule_columns)
        titles = [headers[plugin] if rule is None else printable(f"{headers[plugin]}:{rule}")
                  for plugin, rule in columns]
        rows = _feasible_rows(doc, shown, below, columns, sym)
        keep = _fitting(rows, titles, width)
        out.append(_feasible_table(doc, rows, titles, keep, color))
        if len(shown) + len(below) < len(feasible):
            out.append(Text(f"{sym.ellipsis} and {len(feasible) - len(shown) - len(below)} more (--all)"))
        hidden = list(dict.fromkeys(plugin for plugin, _ in columns[keep:]))
        if hidden:
            out.append(Text(f"{_plural(len(columns) - keep, 'plugin column')} not shown (--wide shows all)"))
        if headers:
            out += [Text(""), _legend(nodes, feasible, headers, weights, hidden, wide, sym,
                                      list(doc.get("skippedPlugins") or []))]
        out.append(Text(""))
    groups = _rejected(doc, width, sym, color)
    if groups:
        out += [*groups, Text("")]
    errors = sum(1 for n in nodes if n["filter"] is not None and n["filter"]["code"] == "Error")
    if errors:
        out.append(Text(f"not evaluated: {errors} nodes (the cycle ended with an error)"))
    out.append(_outcome(doc, width, sym))
    return render_fitted(out, width=width, color=color)
