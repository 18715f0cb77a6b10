"""Figures as inline SVG, drawn with matplotlib (an optional dependency: ``ruleset[report]``).

Each function takes plain lists and returns an ``<svg>`` element to put in an HTML page:
no XML prolog, no namespace URLs, no metadata, text kept as text, and ids salted the same
way every run so that a report is the same bytes for the same inputs.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

from ruleset.errors import Problem, RulesetError

#: What to install when matplotlib is missing.
INSTALL_HINT = "pip install 'ruleset[report]'"
#: Categories above which a per-category bar chart becomes a sorted curve.
MAX_BARS = 60

_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)
_NAMESPACES = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.DOTALL)


def require_matplotlib(where: str) -> None:
    """Raise RulesetError (exit 2) located at ``where`` (the option naming the report) when
    matplotlib cannot be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise RulesetError([Problem(f"writing a report needs matplotlib, which is not installed: "
                                    f"{INSTALL_HINT}", file=where, code="missing-dependency")]) from None


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # no display, and no GUI toolkit import
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "ruleset-report", "font.size": 9,
                         "font.family": "sans-serif", "axes.spines.top": False, "axes.spines.right": False})
    return plt


def _svg(plt: Any, figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight",
                   metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    plt.close(figure)
    text = _PROLOG.sub("", buffer.getvalue(), count=1)
    text = _METADATA.sub("", text)
    return _NAMESPACES.sub("", text).strip()


def heatmap(rows: Sequence[str], columns: Sequence[str], values: Sequence[Sequence[float | None]],
            label: str = "") -> str:
    """Rows × columns of numbers as coloured cells (None: blank), each cell annotated when
    the grid is small enough to read, with a colour bar titled ``label``."""
    import numpy as np

    plt = _pyplot()
    grid = np.array([[np.nan if v is None else float(v) for v in row] for row in values], dtype=float)
    grid = grid.reshape(len(rows), len(columns))
    height = 1.2 + 0.28 * max(len(rows), 1)
    figure, axes = plt.subplots(figsize=(1.6 + 1.1 * max(len(columns), 1), height))
    mesh = axes.pcolormesh(np.ma.masked_invalid(grid), cmap="viridis", edgecolors="white", linewidth=0.5)
    axes.set_xticks(np.arange(len(columns)) + 0.5, labels=list(columns), rotation=30, ha="right")
    axes.set_yticks(np.arange(len(rows)) + 0.5, labels=list(rows))
    axes.invert_yaxis()
    axes.tick_params(length=0)
    if len(rows) * len(columns) <= 600 and np.isfinite(grid).any():
        middle = np.nanmin(grid) + (np.nanmax(grid) - np.nanmin(grid)) / 2
        for (r, c), value in np.ndenumerate(grid):
            if np.isfinite(value):
                axes.text(c + 0.5, r + 0.5, f"{value:.0f}", ha="center", va="center", fontsize=7,
                          color="black" if value > middle else "white")
    figure.colorbar(mesh, ax=axes, label=label, fraction=0.04, pad=0.02)
    return _svg(plt, figure)


def bars(categories: Sequence[str], series: Sequence[dict[str, Any]], ylabel: str = "") -> str:
    """Grouped bars, one group per category and one bar per series (``{"name", "values"}``);
    above :data:`MAX_BARS` categories, each series sorted high to low as a curve instead (a
    thousand nodes' utilisation reads as a shape, not as bars)."""
    import numpy as np

    plt = _pyplot()
    if len(categories) > MAX_BARS:
        figure, axes = plt.subplots(figsize=(8, 3))
        for entry in series:
            ordered = sorted((float(v) for v in entry["values"]), reverse=True)
            axes.plot(np.arange(1, len(ordered) + 1), ordered, label=entry["name"], linewidth=1.4)
        axes.set_xlabel(f"{len(categories)} nodes, each series sorted high to low")
    else:
        figure, axes = plt.subplots(figsize=(max(4.0, 0.35 * len(categories) * max(len(series), 1) + 1.5), 3))
        width = 0.8 / max(len(series), 1)
        x = np.arange(len(categories))
        for k, entry in enumerate(series):
            axes.bar(x + (k - (len(series) - 1) / 2) * width, [float(v) for v in entry["values"]], width,
                     label=entry["name"])
        axes.set_xticks(x, labels=list(categories), rotation=45 if len(categories) > 6 else 0,
                        ha="right" if len(categories) > 6 else "center")
    axes.set_ylabel(ylabel)
    if len(series) > 1:
        axes.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _svg(plt, figure)


_ID = re.compile(r'\bid="([^"]+)"')


def scope_ids(svg: str, prefix: str) -> str:
    """``svg`` with every id (and every reference to one) prefixed, so that several figures
    in one page keep their ids unique."""
    for name in set(_ID.findall(svg)):
        svg = (svg.replace(f'id="{name}"', f'id="{prefix}-{name}"')
               .replace(f"url(#{name})", f"url(#{prefix}-{name})")
               .replace(f'href="#{name}"', f'href="#{prefix}-{name}"'))
    return svg
