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

__all__ = ["data_uri", "draw_judge", "draw_theta", "png"]


def png(draw: Callable[[Any], None], size: tuple[float, float]) -> bytes:
    """Draw on a fresh Figure (no pyplot state, no backend switch) and return PNG bytes."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout="constrained")
    draw(figure.subplots())
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def data_uri(png: bytes) -> str:
    """The PNG as a ``data:`` URI (base64), for a document that stands alone."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def draw_theta(report: Any, ax: Any) -> None:
    """The cross-check's theta figure of a :class:`Report`, with its recommended interval."""
    report.crosscheck.plot(ax=ax)
    rec = report.recommended
    if rec is not None:
        y = ax.get_ylim()[0]
        ax.plot(
            [rec.low, rec.high],
            [y * 0.9] * 2,
            color="tab:red",
            lw=4,
            label=f"recommended: {getattr(rec, 'method', '')}",
        )
        ax.legend(fontsize="small", loc="upper right")


def draw_judge(report: Any, ax: Any) -> None:
    """The posterior densities of q0 and q1 of a :class:`Report`, with their ETIs."""
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
    ax.legend(fontsize="small", loc="upper left")
