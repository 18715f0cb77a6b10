"""``ruleset schedule`` as text a person reads: the summary first (counts, cluster and zone
utilisation before and after), then the pods that did not fit grouped by reason, plugin
errors, preemptions, the placements and the most and least loaded nodes; drawn from the
schedule JSON document so that text and JSON never disagree."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from ruleset.cli.score_text import names_column, render_fitted
from ruleset.cli.terminal import Symbols, examples_width, symbols
from ruleset.errors import printable

#: Placements, preemptions and plugin errors listed before "… and K more (--all)".
FIRST = 20
#: Pods named per group of unschedulable pods.
EXAMPLES = 3
#: Nodes shown at each end of the load order unless every node is asked for.
ENDS = 5
_GI = 1024**3


def _text(value: object, style: str = "") -> Text:
    """Input-derived text, control characters escaped, never read as markup."""
    return Text(printable(str(value)), style=style)


def _table(color: bool) -> Table:
    return Table(box=None, pad_edge=False, show_edge=False, header_style="bold" if color else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def percent(pair: dict[str, int] | None) -> str:
    """``requested / allocatable`` as a percentage with one decimal; ``-`` when nothing is allocatable."""
    if not pair or not pair.get("allocatable"):
        return "-"
    return f"{100 * pair['requested'] / pair['allocatable']:.1f}%"


def amount(resource: str, value: int) -> str:
    """A requested or allocatable amount for people: cores for cpu (millicores), GiB for memory
    (bytes), a count for anything else."""
    if resource == "cpu":
        return f"{value / 1000:g}" if value % 100 == 0 else f"{value / 1000:.2f}"
    if resource == "memory":
        return f"{value / _GI:.1f}Gi"
    return str(value)


def _unit(resource: str) -> str:
    return {"cpu": " cores", "memory": "", "pods": ""}.get(resource, "")


def _resources(usage: dict[str, Any]) -> list[str]:
    """cpu, memory, pods, then the extended resources, as a ``usage_json`` document has them."""
    return ["cpu", "memory", "pods", *[r for r in usage["cluster"] if r not in ("cpu", "memory", "pods")]]


def _header(name: str) -> str:
    return name.upper() if "/" not in name else name


def _counts(doc: dict[str, Any]) -> tuple[list[str], dict[str, int]]:
    placements = doc["placements"]
    events = doc.get("events") or []
    counts = {
        "scheduled": sum(1 for p in placements if p.get("node") is not None),
        "unschedulable": sum(1 for p in placements if p.get("node") is None and not p.get("unserved")),
        "unserved": sum(1 for p in placements if p.get("unserved")),
        "preemptions": sum(1 for e in events if e.get("type") == "preemption"),
        "evicted": sum(1 for e in events if e.get("type") == "evicted"),
        "errors": len(_plugin_errors(doc)),
    }
    names = doc.get("profiles") or [doc["profile"]]
    which = "profile" if len(names) == 1 else "profiles"
    # Every pending pod is counted, and those for other schedulers said apart: they are in the
    # input, but no profile here will ever place them.
    head = f"{which} {', '.join(names)}: {_plural(len(placements), 'pending pod')}"
    if counts["unserved"]:
        head += f" ({counts['unserved']} for other schedulers)"
    lines = [head]
    parts = [f"scheduled {counts['scheduled']}", f"unschedulable {counts['unschedulable']}"]
    if counts["unserved"]:
        parts.append(f"not served {counts['unserved']}")
    parts.append(f"preemptions {counts['preemptions']} ({counts['evicted']} evicted)")
    if counts["errors"]:
        parts.append(f"plugin errors {counts['errors']}")
    lines.append(", ".join(parts))
    return lines, counts


def _utilisation(usage: dict[str, Any], color: bool, sym: Symbols) -> list[Any]:
    before, after = usage["before"], usage["after"]
    table = _table(color)
    table.add_column("CLUSTER", no_wrap=True)
    table.add_column("BEFORE", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    table.add_column("AFTER", justify="right", no_wrap=True)
    table.add_column("REQUESTED / ALLOCATABLE AFTER", overflow="fold")
    for resource in _resources(after):
        b, a = before["cluster"].get(resource), after["cluster"][resource]
        table.add_row(_text(resource), percent(b), sym.arrow, percent(a),
                      f"{amount(resource, a['requested'])} / {amount(resource, a['allocatable'])}"
                      f"{_unit(resource)}")
    out: list[Any] = [table]
    zones = after.get("zones") or {}
    if len(zones) > 1 or (zones and "" not in zones):
        zone_table = _table(color)
        zone_table.add_column("ZONE", no_wrap=True)
        resources = _resources(after)
        for resource in resources:
            zone_table.add_column(_text(_header(resource)), justify="right", overflow="fold")
        # Named zones in name order, the nodes without a zone last.
        for zone in sorted(zones, key=lambda z: (z == "", z)):
            cells = []
            for resource in resources:
                b = (before.get("zones") or {}).get(zone, {}).get(resource)
                cells.append(f"{percent(b)} {sym.arrow} {percent(zones[zone].get(resource))}")
            zone_table.add_row(_text(zone or "(no zone)"), *cells)
        out += [Text(""), zone_table]
    return out


def _grouped(doc: dict[str, Any], width: int | None, everything: bool, color: bool,
             sym: Symbols) -> list[Any]:
    """The pods that did not fit, grouped by reason, largest group first (ties: first seen);
    the pods no profile serves, grouped by schedulerName."""
    groups: dict[str, list[str]] = {}
    unserved: dict[str, list[str]] = {}
    for p in doc["placements"]:
        if p.get("node") is not None:
            continue
        if p.get("unserved"):
            unserved.setdefault(str(p.get("schedulerName")), []).append(p["pod"])
        else:
            groups.setdefault(str(p.get("reason") or ""), []).append(p["pod"])
    out: list[Any] = []
    bold = "bold" if color else ""
    for title, column, found in (("unschedulable", "REASON", groups),
                                 ("not served by any profile", "SCHEDULERNAME", unserved)):
        if not found:
            continue
        table = _table(color)
        table.add_column("PODS", justify="right", no_wrap=True)
        table.add_column(column, overflow="fold")
        table.add_column("FOR EXAMPLE", overflow="fold")
        for key, pods in sorted(found.items(), key=lambda item: -len(item[1])):
            shown = pods if everything else pods[:EXAMPLES]
            more = f", {sym.ellipsis}" if len(shown) < len(pods) else ""
            table.add_row(str(len(pods)), _text(key), _text(", ".join(shown) + more))
        names_column(table, 2, examples_width(width))
        total = sum(map(len, found.values()))
        out += [Text(""), Text(f"{title}: {_plural(total, 'pod')}", style=bold), table]
    return out


def _plugin_errors(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in doc.get("events") or []
            if isinstance(e.get("error"), dict) and e["error"].get("plugin")]


def _more(listed: int, total: int, sym: Symbols) -> list[Text]:
    return [Text(f"{sym.ellipsis} and {total - listed} more (--all)")] if listed < total else []


def _events(doc: dict[str, Any], width: int | None, everything: bool, color: bool,
            sym: Symbols) -> list[Any]:
    out: list[Any] = []
    bold = "bold" if color else ""
    errors = _plugin_errors(doc)
    if errors:
        shown = errors if everything else errors[:FIRST]
        table = _table(color)
        for column in ("POD", "ATTEMPT", "PLUGIN", "PACKAGE", "ERROR"):
            table.add_column(column, overflow="fold", justify="right" if column == "ATTEMPT" else "left",
                             ratio=3 if column == "ERROR" else None,
                             no_wrap=column in ("POD", "PLUGIN", "PACKAGE"))
        for e in shown:
            error = e["error"]
            table.add_row(_text(e["pod"]), str(e.get("attempt") or ""), _text(error["plugin"]),
                          _text(error.get("package") or "-"), _text(error.get("message")))
        out += [Text(""), Text(f"plugin errors: {len(errors)}", style=bold), table,
                *_more(len(shown), len(errors), sym)]
    preemptions = [e for e in doc.get("events") or [] if e.get("type") == "preemption"]
    if preemptions:
        shown = preemptions if everything else preemptions[:FIRST]
        table = _table(color)
        for column in ("POD", "NODE", "EVICTS", "CHOSEN FOR"):
            table.add_column(column, overflow="fold", no_wrap=column in ("POD", "NODE"))
        for e in shown:
            victims = ", ".join(e.get("victims") or []) or "-"
            table.add_row(_text(e["pod"]), _text(e.get("node")), _text(victims), _text(e.get("reason") or ""))
        names_column(table, 2, examples_width(width))
        out += [Text(""), Text(f"preemptions: {len(preemptions)}", style=bold), table,
                *_more(len(shown), len(preemptions), sym)]
    return out


def _placements(doc: dict[str, Any], everything: bool, color: bool, sym: Symbols) -> list[Any]:
    placed = [p for p in doc["placements"] if p.get("node") is not None]
    if not placed:
        return []
    shown = placed if everything else placed[:FIRST]
    profiles = len(doc.get("profiles") or [doc["profile"]]) > 1
    table = _table(color)
    table.add_column("POD", no_wrap=True)
    table.add_column("", no_wrap=True)
    table.add_column("NODE", no_wrap=True)
    table.add_column("SCORE", justify="right", no_wrap=True)
    if profiles:
        table.add_column("PROFILE", overflow="fold")
    for p in shown:
        score = "" if p.get("score") is None else str(p["score"])
        row: list[Text | str] = [_text(p["pod"]), sym.arrow, _text(p["node"]), score]
        table.add_row(*row, *([_text(p.get("profile") or "")] if profiles else []))
    title = f"placements, in the order they were made: {len(placed)}"
    return [Text(""), Text(title, style="bold" if color else ""), table, *_more(len(shown), len(placed), sym)]


def _count(pair: dict[str, int] | None) -> str:
    """``requested/allocatable`` of a countable resource; ``-`` when the node has none."""
    return f"{pair['requested']}/{pair['allocatable']}" if pair and pair.get("allocatable") else "-"


def _load(node: dict[str, Any]) -> float:
    """A node's dominant share: its highest requested/allocatable over cpu, memory, pods and
    extended resources."""
    pairs = [node.get("cpu"), node.get("memory"), *(node.get("extended") or {}).values()]
    pods = node.get("pods") or {}
    pairs.append({"requested": pods.get("count", 0), "allocatable": pods.get("allocatable", 0)})
    return max((p["requested"] / p["allocatable"] for p in pairs if p and p.get("allocatable")), default=0.0)


def _nodes(doc: dict[str, Any], every: bool, color: bool, sym: Symbols) -> list[Any]:
    usage = doc.get("utilisation")
    rows: list[dict[str, Any]] = usage["after"]["nodes"] if usage else doc.get("nodes") or []
    if not rows:
        return []
    extended = list(rows[0].get("extended") or {})
    order = sorted(range(len(rows)), key=lambda i: -_load(rows[i]))  # stable: equal loads in node order
    if every or len(rows) <= 2 * ENDS:
        picked, title = list(range(len(rows))), f"nodes, requested / allocatable: {len(rows)}"
    else:
        # Loaded: by the node's fullest resource (its highest requested / allocatable).
        picked = order[:ENDS] + order[-ENDS:]
        title = (f"nodes, requested / allocatable: the {ENDS} most and {ENDS} least loaded of {len(rows)} "
                 f"(--nodes: all)")
    table = _table(color)
    table.add_column("NODE", no_wrap=True)
    for header in ("CPU", "MEMORY", "PODS", *[_header(r) for r in extended]):
        table.add_column(printable(header), justify="right", overflow="fold")
    for position, i in enumerate(picked):
        node = rows[i]
        if not every and len(rows) > 2 * ENDS and position == ENDS:
            table.add_row(sym.ellipsis, *["" for _ in range(3 + len(extended))])
        ext = node.get("extended") or {}
        pods = node.get("pods") or {}
        table.add_row(_text(node["name"]), percent(node.get("cpu")), percent(node.get("memory")),
                      f"{pods.get('count')}/{pods.get('allocatable')}",
                      *[_count(ext.get(r)) for r in extended])
    return [Text(""), Text(title, style="bold" if color else ""), table]


def render_schedule(doc: dict[str, Any], *, width: int | None, all_placements: bool = False,
                    nodes: bool = False, color: bool = False, sym: Symbols | None = None) -> str:
    """The schedule JSON document ``doc`` as text ``width`` columns wide at most (``None``: no
    limit): the counts, the cluster's utilisation before and after (and per zone) when ``doc``
    has ``utilisation``; the unschedulable pods grouped by reason (a few named per group) and
    the pods no profile serves grouped by schedulerName; plugin errors and preemptions; the
    first placements; the most and least loaded nodes. ``all_placements`` lists every
    placement, pod of a group, error and preemption; ``nodes`` every node. ``color`` adds
    ANSI styles; ``sym`` defaults to what stdout can encode."""
    sym = symbols() if sym is None else sym
    lines, _ = _counts(doc)
    out: list[Any] = [_text(lines[0], "bold" if color else ""), _text(lines[1])]
    if doc.get("utilisation"):
        out += [Text(""), *_utilisation(doc["utilisation"], color, sym)]
    out += _grouped(doc, width, all_placements, color, sym)
    out += _events(doc, width, all_placements, color, sym)
    out += _placements(doc, all_placements, color, sym)
    out += _nodes(doc, nodes, color, sym)
    return render_fitted(out, width=width, color=color)
