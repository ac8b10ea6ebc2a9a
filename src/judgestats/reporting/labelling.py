"""The report of a labelling session: the anytime-valid interval's path over the labels so far.

:func:`labelling_report` (also :meth:`judgestats.LabellingSession.report`) records a
:class:`~judgestats.LabellingSession`'s interval now and its path -- after each label in the
session's order for random batches, after each batch with active selection -- and
:class:`LabellingReport` renders it like the other reports (:class:`ReportDocument`): HTML with
the figure embedded, Markdown, and the all-or-nothing :meth:`~ReportDocument.save`.

The figure draws the path's ``low``, ``high`` and ``estimate`` columns against ``labelled``,
exactly the numbers of :attr:`LabellingReport.path` (so a test can check the figure's data
against the labels); the target width, when given, is drawn as the band it means around the
estimate's last value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from judgestats._html import escape, fmt4, fmt_percent, table
from judgestats.reporting import markdown
from judgestats.reporting.content import ReportDocument
from judgestats.reporting.figures import png
from judgestats.reporting.html import document as html_document
from judgestats.reporting.html import figure as html_figure
from judgestats.reporting.html import kv_table

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgestats.sequential import LabellingSession, SequentialInterval

__all__ = ["PATH_CAPTION", "LabellingReport", "draw_path", "labelling_report"]

#: Caption of the path figure.
PATH_CAPTION = (
    "The anytime-valid interval (shaded, between its low and high ends) and the estimate "
    "(line) against the number of labels so far. The interval holds the target at every "
    "point of the path at once, so stopping as soon as it is narrow enough keeps its level."
)
#: Header of the path table (one row per batch).
PATH_HEADER = ("batch", "labelled", "estimate", "low", "high", "width")


@dataclass(frozen=True, eq=False, kw_only=True)
class LabellingReport(ReportDocument):
    """Everything the report of a labelling session shows, as numbers.

    Attributes
    ----------
    interval : SequentialInterval
        The anytime-valid interval after every label so far.
    path : pandas.DataFrame
        :meth:`LabellingSession.path` by label (random batches) or by batch (active selection):
        columns ``batch``, ``labelled``, ``estimate``, ``low``, ``high``, ``width``; the figure
        draws these numbers.
    by : {"label", "batch"}
        What a row of :attr:`path` follows.
    width : float or None
        The target width, if one was given.
    source, command, random_seed, version, created, environment
        As in :class:`ReportDocument` (``random_seed`` is the session's).
    """

    interval: SequentialInterval
    path: pd.DataFrame
    by: str
    width: float | None = None

    @property
    def target(self) -> str:
        """The estimated target, ``"items"`` or ``"population"``."""
        return self.interval.target

    def batch_rows(self) -> list[tuple[str, ...]]:
        """The last row of each batch, formatted (four decimals)."""
        last = self.path.groupby("batch", sort=False).tail(1).sort_values("labelled")
        return [
            (str(row.batch), str(row.labelled), *map(fmt4, row[2:6]))
            for row in last.itertuples(index=False)
        ]

    def verdict(self) -> str:
        """Whether the target width is reached, in words ("" without a target width)."""
        if self.width is None:
            return ""
        if self.interval.width <= self.width:
            return f"target width {self.width:g} reached: you may stop."
        return f"target width {self.width:g} not reached yet: label the next batch."

    def reproducibility_rows(self) -> list[tuple[str, str]]:
        """(label, value): version, command, the session's seed, date, platform."""
        return [*self._provenance_rows(), *self._closing_rows()]

    @cached_property
    def figures(self) -> dict[str, bytes]:
        """The path figure's PNG bytes, under ``"path"``."""
        return {"path": png(partial(draw_path, self), (8.0, 4.0))}

    def input_rows(self) -> list[tuple[str, str]]:
        """(label, value): where the items came from, the target, the labels so far."""
        return [
            ("source", self.source or "not recorded"),
            ("target", self.target),
            ("labelled", f"{self.interval.n_labelled} of {self.interval.n_items} items"),
            ("path", "after each label" if self.by == "label" else "after each batch"),
        ]

    def _html_body(self) -> str:
        level = fmt_percent(self.interval.confidence_level)
        verdict = f"<p>{escape(self.verdict())}</p>" if self.width is not None else ""
        sections = [
            f'<section id="inputs"><h2>Inputs</h2>{kv_table(self.input_rows(), "inputs")}'
            "</section>",
            f'<section id="interval"><h2>Interval now</h2><p class="headline">'
            f"{escape(str(self.interval))}</p>{verdict}</section>",
            '<section id="path"><h2>Path over the labels</h2>',
            html_figure("path", self.figures["path"], PATH_CAPTION),
            table(
                PATH_HEADER,
                self.batch_rows(),
                caption=f"The {level} interval after each batch",
                css_class="intervals",
            ),
            "</section>",
        ]
        rows = self.reproducibility_rows()
        return html_document("judgestats labelling report", sections, [], rows)

    def _markdown(self, figure_stem: str | None) -> str:
        lines = ["# judgestats labelling report", "", "## Inputs", ""]
        lines += [*markdown.table(("", "value"), self.input_rows(), numeric=False), ""]
        lines += ["## Interval now", "", markdown.escape(str(self.interval)), ""]
        if self.width is not None:
            lines += [self.verdict(), ""]
        lines += ["## Path over the labels", ""]
        lines += markdown.figure("path", self.figures["path"], PATH_CAPTION, figure_stem)
        lines += [*markdown.table(PATH_HEADER, self.batch_rows()), ""]
        return markdown.document(lines, [], self.reproducibility_rows())

    def __repr__(self) -> str:
        return f"LabellingReport(interval={self.interval!r}, by={self.by!r}, width={self.width!r})"


def draw_path(report: LabellingReport, figure: Any) -> None:
    """The interval's ends (shaded between them) and the estimate against labels so far."""
    ax = figure.subplots()
    path = report.path
    x = path["labelled"].to_numpy(float)
    step = "post" if report.by == "label" else None
    ax.fill_between(x, path["low"], path["high"], color="tab:blue", alpha=0.25, step=step)
    ax.plot(x, path["low"], color="tab:blue", lw=1, drawstyle="steps-post" if step else "default")
    ax.plot(x, path["high"], color="tab:blue", lw=1, drawstyle="steps-post" if step else "default")
    ax.plot(x, path["estimate"], color="black", lw=1.5, label="estimate")
    if report.width is not None:
        ax.axhline(report.interval.estimate - report.width / 2, color="0.5", ls=":", lw=1)
        ax.axhline(report.interval.estimate + report.width / 2, color="0.5", ls=":", lw=1)
    ax.set_xlabel("labels so far")
    what = "share of correct items" if report.target == "items" else "accuracy theta"
    ax.set_ylabel(what)
    level = fmt_percent(report.interval.confidence_level)
    ax.set_title(f"anytime-valid {level} interval, target {report.target}", fontsize="medium")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(color="0.92")


def labelling_report(
    session: LabellingSession,
    *,
    target: str = "items",
    confidence_level: float = 0.95,
    width: float | None = None,
    source: str | None = None,
    command: str | None = None,
) -> LabellingReport:
    """The report of a labelling session now: its interval and the interval's path.

    Parameters
    ----------
    session : LabellingSession
        With at least one label.
    target : {"items", "population"}, default "items"
    confidence_level : float, default 0.95
    width : float in (0, 1], optional
        The target width, shown with the verdict (reached or not) and drawn on the figure.
    source : str, optional
        Where the items and labels were read from.
    command : str, optional
        The command that reproduces the report (the CLI passes its own).

    Raises
    ------
    TypeError
        If ``session`` is not a LabellingSession.
    ValueError
        For a session with no label yet, or an invalid target, level or width.
    """
    from judgestats.reporting.build import _provenance
    from judgestats.sequential import LabellingSession
    from judgestats.sequential.session import check_width

    if not isinstance(session, LabellingSession):
        raise TypeError(f"`session` must be a LabellingSession, got {type(session).__name__}.")
    width = None if width is None else check_width(width)
    interval = session.interval(target=target, confidence_level=confidence_level)
    if session.n_labelled == 0:
        raise ValueError("`session` has no label yet: its interval has no path to report.")
    by = "batch" if session.active else "label"
    path = session.path(target=target, confidence_level=confidence_level, by=by)
    if command is None:
        command = f"session.report(target={target!r}, confidence_level={confidence_level!r})"
    seed = session.random_seed if isinstance(session.random_seed, int) else None
    return LabellingReport(
        interval=interval,
        path=path,
        by=by,
        width=width,
        source=source,
        command=command,
        random_seed=seed,
        **_provenance(),
    )
