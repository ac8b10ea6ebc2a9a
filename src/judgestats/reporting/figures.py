"""The figures of a report, drawn as PNG bytes (matplotlib, imported only when one is drawn).

A figure is drawn on a fresh :class:`matplotlib.figure.Figure` (no pyplot state, no backend
switch). HTML embeds it as a base64 ``data:`` URI; Markdown links the PNG file or embeds it.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any

import numpy as np

from judgestats._html import fmt_percent
from judgestats.reporting.layout import VARIABLE_LABELS

__all__ = ["data_uri", "draw_judge", "draw_theta", "png", "theta_size"]


def png(draw: Callable[[Any], None], size: tuple[float, float]) -> bytes:
    """Draw on a fresh Figure (no pyplot state, no backend switch) and return PNG bytes.

    ``draw`` receives the :class:`~matplotlib.figure.Figure` and adds its own axes.
    """
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout="constrained")
    draw(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def data_uri(png: bytes) -> str:
    """The PNG as a ``data:`` URI (base64), for a document that stands alone."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


#: Colours of the interval rows, in table order; the recommended row is drawn in red.
ROW_COLOURS = ("tab:gray", "tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown")
RECOMMENDED_COLOUR = "tab:red"


def theta_size(report: Any) -> tuple[float, float]:
    """The theta figure's size: the density panel (with a posterior), then one row per interval."""
    density = 0.0 if report.posterior is None else 2.6
    return 8.0, 0.6 + density + 0.36 * len(report.interval_values()[0])


def _theta_range(report: Any, rows: list[tuple[str, float, float, float]]) -> tuple[float, float]:
    """The x range: every interval and the bulk of the posterior, padded, within [0, 1]."""
    post = report.posterior
    ends = [v for _, _, low, high in rows for v in (low, high) if np.isfinite(v)]
    if post is not None:
        ends += [float(post.quantile(0.0005)), float(post.quantile(0.9995))]
    low, high = min(ends), max(ends)
    pad = max(0.06 * (high - low), 0.01)
    return max(0.0, low - pad), min(1.0, high + pad)


def draw_theta(report: Any, figure: Any) -> None:
    """The posterior density of theta, and beneath it each interval of the table on its own row.

    Two panels share the x axis: the density above, the rows of
    :meth:`~judgestats.reporting.content.Report.interval_values` below (labelled with the
    methods' display names, a dot at each point estimate); the recommended row is red, and its
    interval is shaded under the density. No legend covers the curve: the rows are labelled on
    the axis. Without a posterior (``posterior_unavailable``) only the rows are drawn.
    """
    rows, recommended = report.interval_values()
    x_low, x_high = _theta_range(report, rows)
    if report.posterior is None:
        bottom = figure.subplots()
        bottom.set_title(
            f"theta: {fmt_percent(report.prob)} intervals (no posterior for these data)",
            fontsize="medium",
        )
    else:
        top, bottom = figure.subplots(
            2, 1, sharex=True, gridspec_kw={"height_ratios": [2.6, 0.36 * len(rows) + 0.3]}
        )
        _density_panel(top, report, np.linspace(x_low, x_high, 801), rows, recommended)
    _interval_rows(bottom, rows, recommended)
    bottom.set_xlim(x_low, x_high)
    bottom.set_xlabel("true accuracy theta")


def _density_panel(
    top: Any,
    report: Any,
    grid: np.ndarray,
    rows: list[tuple[str, float, float, float]],
    recommended: int | None,
) -> None:
    """The posterior density of theta on ``grid``, the recommended interval shaded under it."""
    density = np.asarray(report.posterior.pdf(grid), dtype=float)
    top.plot(grid, density, color="black", lw=1.5)
    if recommended is not None:
        _, _, low, high = rows[recommended]
        inside = (grid >= low) & (grid <= high)
        top.fill_between(grid[inside], density[inside], color=RECOMMENDED_COLOUR, alpha=0.15)
    top.set_ylim(bottom=0.0)
    top.set_ylabel("posterior density")
    top.set_title(
        f"theta: posterior density ({report.posterior.method}) and "
        f"{fmt_percent(report.prob)} intervals",
        fontsize="medium",
    )


def _interval_rows(ax: Any, rows: list[tuple[str, float, float, float]], pick: int | None) -> None:
    """One row per interval (first row on top), its display name as the tick label."""
    labels = []
    for i, (label, value, low, high) in enumerate(rows):
        colour = RECOMMENDED_COLOUR if i == pick else ROW_COLOURS[i % len(ROW_COLOURS)]
        if np.isfinite(low) and np.isfinite(high):
            ax.plot([low, high], [i, i], color=colour, lw=4 if i == pick else 3, clip_on=False)
            if np.isfinite(value):
                ax.plot([value], [i], "o", color=colour, ms=6, clip_on=False)
        else:
            ax.annotate("n/a", (0.5, i), xycoords=("axes fraction", "data"), va="center")
        labels.append(f"{label}\n(recommended)" if i == pick else label)
    ax.set_yticks(range(len(rows)), labels, fontsize="small")
    if pick is not None:
        ax.get_yticklabels()[pick].set_color(RECOMMENDED_COLOUR)
        ax.get_yticklabels()[pick].set_fontweight("bold")
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.grid(axis="x", color="0.9")
    ax.tick_params(axis="y", length=0)


def draw_judge(report: Any, figure: Any) -> None:
    """The posterior densities of q0 and q1 of a :class:`Report`, with their ETIs."""
    ax = figure.subplots()
    post = report.posterior
    grid = np.linspace(0.0, 1.0, 801)
    for var, colour in (("q0", "tab:purple"), ("q1", "tab:olive")):
        density = np.asarray(post.pdf(grid, var=var), dtype=float)
        low, high = post.ci(report.prob, "eti", var)
        ax.plot(
            grid,
            density,
            color=colour,
            label=f"{VARIABLE_LABELS[var]}, {fmt_percent(report.prob)} ETI ({low:.4f}, {high:.4f})",
        )
        inside = (grid >= low) & (grid <= high)
        ax.fill_between(grid[inside], density[inside], color=colour, alpha=0.2)
    ax.set_xlabel("rate")
    ax.set_ylabel("density")
    ax.set_title("Judge quality")
    ax.set_ylim(bottom=0.0)
    # outside the axes, so that it never covers a curve
    figure.legend(loc="outside lower center", ncols=2, fontsize="small", frameon=False)
