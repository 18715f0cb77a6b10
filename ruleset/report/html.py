"""One self-contained HTML page from plain dicts: styles and the few lines of script inline,
figures as inline SVG, nothing fetched (a Content-Security-Policy forbids it).

A page is a title and a list of blocks, each a dict with a ``type``:

* ``{"type": "heading", "text"}``, ``{"type": "text", "text"}`` — a section title, a paragraph;
* ``{"type": "facts", "items": [[label, value], …]}`` — a short list of key figures;
* ``{"type": "chart", "title", "chart": "heatmap", "rows", "columns", "values", "label"}``
  or ``{"type": "chart", "title", "chart": "bars", "categories", "series": [{"name", "values"}],
  "ylabel"}`` — drawn by :mod:`ruleset.report.charts`;
* ``{"type": "table", "title", "columns", "rows", "numeric": [bool per column], "note"}`` —
  sortable by clicking a header (numbers compare as numbers, ``None`` is blank, sorts last);
* ``{"type": "row", "blocks": […]}`` — blocks side by side (compare's two sides).

Every string is escaped; nothing in a block is taken as markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from ruleset.report import charts

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:72rem;padding:0 1rem;color:#1f2328}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d0d7de}
figure{margin:1rem 0;overflow-x:auto}figcaption{font-weight:600;margin-bottom:.3rem}
figure svg{max-width:100%;height:auto}
dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}dt{color:#59636e}dd{margin:0}
.row{display:flex;gap:1.5rem;flex-wrap:wrap}.row>*{flex:1 1 20rem;min-width:0}
.scroll{max-height:32rem;overflow:auto;border:1px solid #d0d7de}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:.25rem .5rem;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
th,td{white-space:nowrap}td.w{white-space:normal;min-width:24rem}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
th{position:sticky;top:0;background:#f6f8fa;cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
.note{color:#59636e;font-size:12px}
"""

# Click a header: sort its table's rows by that column, ascending then descending; blank cells last.
_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th, _) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
    var numeric = th.classList.contains("n"), up = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    var key = function (row) {
      var cell = row.cells[col], v = cell.getAttribute("data-v");
      if (v === null) return null;
      return numeric ? parseFloat(v) : v;
    };
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      if (x === null || y === null) return (x === null) - (y === null);
      var c = numeric ? x - y : x.localeCompare(y);
      return up ? c : -c;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  });
});
"""

_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
        "form-action 'none'; base-uri 'none'")


def render_page(title: str, blocks: Sequence[dict[str, Any]], subtitle: str = "") -> str:
    """The whole HTML document for ``title`` and ``blocks`` (see the module docstring)."""
    counter = [0]
    body = "\n".join(_block(block, counter) for block in blocks)
    sub = f'<p class="note">{_e(subtitle)}</p>' if subtitle else ""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
            f"<h1>{_e(title)}</h1>{sub}\n{body}\n<script>{_SCRIPT}</script>\n</body>\n</html>\n")


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _block(block: dict[str, Any], counter: list[int]) -> str:
    kind = block.get("type")
    if kind == "heading":
        return f"<h2>{_e(block['text'])}</h2>"
    if kind == "text":
        return f"<p>{_e(block['text'])}</p>"
    if kind == "facts":
        items = "".join(f"<dt>{_e(label)}</dt><dd>{_e(value)}</dd>" for label, value in block["items"])
        return f"<dl>{items}</dl>"
    if kind == "chart":
        counter[0] += 1
        return _chart(block, f"c{counter[0]}")
    if kind == "table":
        return _table(block)
    if kind == "row":
        inner = "".join(f"<div>{_block(b, counter)}</div>" for b in block["blocks"])
        return f'<div class="row">{inner}</div>'
    raise ValueError(f"unknown report block type {kind!r}")


def _chart(block: dict[str, Any], prefix: str) -> str:
    kind = block["chart"]
    if kind == "heatmap":
        svg = charts.heatmap(block["rows"], block["columns"], block["values"], block.get("label", ""))
    elif kind == "bars":
        svg = charts.bars(block["categories"], block["series"], block.get("ylabel", ""))
    else:
        raise ValueError(f"unknown chart {kind!r}")
    caption = f"<figcaption>{_e(block['title'])}</figcaption>" if block.get("title") else ""
    note = f'<p class="note">{_e(block["note"])}</p>' if block.get("note") else ""
    return f"<figure>{caption}{charts.scope_ids(svg, prefix)}{note}</figure>"


def _table(block: dict[str, Any]) -> str:
    columns = block["columns"]
    numeric = block.get("numeric") or [False] * len(columns)
    head = "".join(f'<th{" class=n" if numeric[i] else ""} scope="col">{_e(c)}</th>'
                   for i, c in enumerate(columns))
    rows = []
    for row in block["rows"]:
        cells = []
        for i, value in enumerate(row):
            if value is None:
                cells.append("<td></td>")
            elif numeric[i]:
                cells.append(f'<td class="n" data-v="{_e(value)}">{_e(_number(value))}</td>')
            else:
                wrap = ' class="w"' if len(str(value)) > 60 else ""  # long reasons wrap, names do not
                cells.append(f'<td{wrap} data-v="{_e(value)}">{_e(value)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    caption = f"<figcaption>{_e(block['title'])}</figcaption>" if block.get("title") else ""
    note = f'<p class="note">{_e(block["note"])}</p>' if block.get("note") else ""
    return (f'<figure>{caption}<div class="scroll"><table class="sortable"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>{note}</figure>")


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)
