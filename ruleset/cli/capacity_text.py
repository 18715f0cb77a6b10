"""``ruleset capacity`` as text: the count first, then where the copies went and why the next
one did not fit; drawn from the capacity JSON document so that text and JSON never disagree."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from ruleset.cli.terminal import examples_width, render
from ruleset.errors import printable

#: Nodes listed before "… and K more" (JSON has them all).
FIRST = 20


def _text(value: object, style: str = "") -> Text:
    return Text(printable(str(value)), style=style)


def _table(color: bool) -> Table:
    return Table(box=None, pad_edge=False, show_edge=False, header_style="bold" if color else "")


def render_capacity(document: dict[str, Any], *, width: int | None, color: bool = False) -> str:
    """The capacity report: a summary line, copies per zone and per node, the last failure."""
    count = document["count"]
    parts: list[Any] = []
    copies = "copy" if count == 1 else "copies"
    head = f"profile {document['profile']}: {count} more {copies} of {document['pod']} fit"
    if document["capped"]:
        head += f" (stopped at --max {document['limit']}: more may fit)"
    parts.append(_text(printable(head), "bold" if color else ""))
    if len(document["perZone"]) > 1 or (document["perZone"] and "" not in document["perZone"]):
        zones = _table(color)
        zones.add_column("ZONE", no_wrap=True)
        zones.add_column("COPIES", justify="right")
        for zone, n in document["perZone"].items():
            zones.add_row(_text(zone or "(no zone)"), str(n))
        parts += [Text(""), zones]
    if document["perNode"]:
        nodes = _table(color)
        nodes.add_column("NODE", overflow="fold")
        nodes.add_column("COPIES", justify="right")
        items = list(document["perNode"].items())
        for node, n in items[:FIRST]:
            nodes.add_row(_text(node), str(n))
        if len(items) > FIRST:
            nodes.add_row(_text(f"… and {len(items) - FIRST} more nodes"), "")
        parts += [Text(""), nodes]
    last = document["lastFailure"]
    if last is not None:
        parts += [Text(""), _text(f"{last['pod']} does not fit: {last['message']}")]
        if last["groups"]:
            groups = _table(color)
            groups.add_column("NODES", justify="right")
            groups.add_column("PLUGIN", no_wrap=True)
            groups.add_column("REASON", overflow="fold", ratio=2)
            groups.add_column("FOR EXAMPLE", overflow="fold", max_width=examples_width(width))
            for group in last["groups"]:
                groups.add_row(str(group["nodes"]), _text(group["plugin"] or "-"),
                               _text("; ".join(group["reasons"]) or "-"), _text(", ".join(group["examples"])))
            parts += [Text(""), groups]
        preemption = last["preemption"]
        if preemption is not None:
            victims = ", ".join(preemption["victims"]) or "none"
            parts += [Text(""), _text(f"preemption would evict {victims} on {preemption['node']} "
                                      "(capacity evicts nothing)")]
    return render(parts, width=width, color=color)
