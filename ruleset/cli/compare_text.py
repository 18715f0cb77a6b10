"""``ruleset compare`` as text: the verdict first, then the pods that land differently, the pods
one side only scheduled, and the two sides' numbers side by side; drawn from the compare JSON
document so that text and JSON never disagree."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from ruleset.cli.terminal import render
from ruleset.errors import printable

#: Differing placements listed before "… and K more (--all)".
FIRST = 20


def _text(value: object, style: str = "") -> Text:
    return Text(printable(str(value)), style=style)


def _table(color: bool) -> Table:
    return Table(box=None, pad_edge=False, show_edge=False, header_style="bold" if color else "")


def _number(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def render_compare(document: dict[str, Any], *, width: int | None, all_rows: bool = False,
                   color: bool = False) -> str:
    """The compare report (see the module docstring)."""
    a, b = (side["label"] for side in document["sides"])
    moved, one_sided = document["placementsDiffer"], document["onlyScheduledBy"]
    bold = "bold" if color else ""
    changed = moved or one_sided or any(m["difference"] for m in document["metrics"])
    verdict = "differ" if document["differs"] else ("within tolerance" if changed else "agree")
    parts: list[Any] = [_text(f"{a} vs {b}: {verdict}; {len(moved)} pod(s) placed differently, "
                              f"{len(one_sided)} scheduled by one side only", bold)]
    if moved:
        table = _table(color)
        table.add_column("POD", overflow="fold")
        table.add_column(_text(a), overflow="fold")
        table.add_column(_text(b), overflow="fold")
        shown = moved if all_rows else moved[:FIRST]
        for row in shown:
            table.add_row(_text(row["pod"]), _text(row["nodes"][a]), _text(row["nodes"][b]))
        parts += [Text(""), table]
        if len(shown) < len(moved):
            parts.append(_text(f"… and {len(moved) - len(shown)} more (--all)"))
    if one_sided:
        table = _table(color)
        table.add_column("POD", overflow="fold")
        table.add_column("SCHEDULED BY", overflow="fold")
        table.add_column("NODE", overflow="fold")
        table.add_column("THE OTHER'S REASON", overflow="fold", ratio=2)
        for row in one_sided:
            table.add_row(_text(row["pod"]), _text(row["scheduledBy"]), _text(row["node"]),
                          _text(row["otherReason"]))
        parts += [Text(""), table]
    metrics = _table(color)
    metrics.add_column("METRIC", overflow="fold")
    metrics.add_column(_text(a), justify="right", overflow="fold")
    metrics.add_column(_text(b), justify="right", overflow="fold")
    metrics.add_column("TOLERANCE", justify="right")
    metrics.add_column("", no_wrap=True)
    for row in document["metrics"]:
        if row["metric"] == "placements":
            continue
        va, vb = row["values"]
        metrics.add_row(_text(row["metric"]), _number(va), _number(vb), _number(row["tolerance"] or None),
                        "differs" if row["exceeds"] else "")
    for key in ("podsPerZone", "placedPerZone"):
        zones = sorted(set(document["sides"][0]["balance"][key]) | set(document["sides"][1]["balance"][key]))
        for zone in zones:
            values = [side["balance"][key].get(zone, 0) for side in document["sides"]]
            what = "pods" if key == "podsPerZone" else "placed"
            metrics.add_row(_text(f"{what} in {zone or '(no zone)'}"), str(values[0]), str(values[1]), "", "")
    parts += [Text(""), metrics]
    largest = {side["largestPendingPod"] for side in document["sides"]} - {None}
    if largest:
        parts.append(_text(f"fragmentation: copies of the largest pending pod ({', '.join(sorted(largest))}) "
                           "that still fit after the run"))
    return render(parts, width=width, color=color)
