"""The Markdown renderer: CommonMark with pipe tables.

Figures are linked as ``<figure_stem>_<name>.png`` (relative to the Markdown file; GitHub, pandoc
and LaTeX converters all follow such links) or, without a stem, embedded as ``data:`` URIs so the
text stands alone. A single report and a grouped report go through the same pieces:
:func:`document` (heading, sections, flags, reproducibility), :func:`intervals` and
:func:`figure` (a dataset's cross-check table and its theta figure, once per group in a grouped
report).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from judgestats._html import fmt_percent
from judgestats.reporting.figures import data_uri
from judgestats.reporting.layout import (
    FIGURES,
    INTERVAL_HEADER,
    NO_FLAGS,
    POSTERIOR_HEADER,
)

if TYPE_CHECKING:  # pragma: no cover
    from judgestats.reporting.content import GroupedReport, Report

__all__ = ["document", "escape", "figure", "grouped_text", "intervals", "report_text", "table"]

_MD_SPECIAL = set("\\`*_[]<>|#")


# -- the shared pieces -------------------------------------------------------------------------
def escape(text: Any) -> str:
    """Backslash-escape the characters that Markdown (or inline HTML) would interpret."""
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in str(text))


def table(
    header: Sequence[str], rows: Sequence[Sequence[str]], *, numeric: bool = True
) -> list[str]:
    """A pipe table (numbers right-aligned unless ``numeric`` is False), every cell escaped."""
    align = "---:" if numeric else ":---"
    lines = [
        "| " + " | ".join(escape(h) for h in header) + " |",
        "|" + "|".join([":---"] + [align] * (len(header) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in rows]
    return lines


def figure(name: str, png: bytes, caption: str, figure_stem: str | None) -> list[str]:
    """A figure linked as ``<figure_stem>_<name>.png`` (or embedded), then its caption."""
    target = (
        data_uri(png) if figure_stem is None else f"{figure_stem}_{name}.png".replace(" ", "%20")
    )
    return [f"![{escape(caption)}]({target})", "", f"*{escape(caption)}*", ""]


def intervals(report: Report) -> list[str]:
    """One dataset's cross-check table, with its caption line."""
    return [escape(report.intervals_caption()), "", *table(INTERVAL_HEADER, report.interval_rows())]


def document(
    lines: list[str],
    flags: Sequence[tuple[str, str, str, str]],
    reproducibility: Sequence[tuple[str, str]],
) -> str:
    """A report's text: its lines, then the flags and reproducibility sections."""
    lines = [*lines, f"## Flags ({len(flags)})", ""]
    lines += [
        f"- {escape(group) + ': ' if group else ''}`{key}` ({where}): {escape(message)}"
        for group, where, key, message in flags
    ] or [NO_FLAGS]
    lines += ["", "## Reproducibility", ""]
    lines += table(("", "value"), reproducibility, numeric=False)
    return "\n".join(lines) + "\n"


# -- a single report ---------------------------------------------------------------------------
def report_text(report: Report, figure_stem: str | None) -> str:
    """The Markdown of a :class:`~judgestats.Report`."""
    pct = fmt_percent(report.prob)
    post = report.posterior
    method = "not computed" if post is None else post.method
    head, notes = report.recommendation()
    lines = [
        "# judgestats report: the true accuracy of a model graded by an LLM judge",
        "",
        f"**{escape(head)}**",
        "",
    ]
    lines += [f"- `{k}`: {escape(v)}" if k else f"- {escape(v)}" for k, v in notes]
    lines += ["", "## Inputs", ""]
    lines += table(("", "value"), report.input_rows(), numeric=False)
    lines += ["", f"## True accuracy theta ({pct} intervals)", "", *intervals(report), ""]
    lines += figure("theta", report.figures["theta"], report.figure_caption("theta"), figure_stem)
    if report.random_design is not None:
        block, d = report.random_design, report.data
        lines += [
            f"## Random design: PPI and PPI++ ({pct} intervals)",
            "",
            f"{d.m} labelled items drawn from the test population, {d.n} unlabelled.",
            "",
        ]
        lines += table(INTERVAL_HEADER, block["rows"])
        lines += ["", escape(block["assumption"]), "", escape(block["class_balance"]), ""]
    lines += [
        "## Judge quality",
        "",
        f"judgestats posterior (method {method}, {escape(pct)} credible intervals)",
        "",
    ]
    lines += table(POSTERIOR_HEADER, report.posterior_rows())
    lines += ["", f"Checks: {escape(report.check_text())}", ""]
    if "judge" in report.figures:
        lines += figure("judge", report.figures["judge"], FIGURES["judge"], figure_stem)
    flags = [("", *flag) for flag in report.flag_rows()]
    return document(lines, flags, report.reproducibility_rows())


# -- a grouped report --------------------------------------------------------------------------
def grouped_text(report: GroupedReport, figure_stem: str | None) -> str:
    """The Markdown of a :class:`~judgestats.GroupedReport`: the table, then each group."""
    t = report.table
    by = ", ".join(t.by)
    header, cells = report.grouped_rows()
    lines = [
        f"# judgestats report by {escape(by)}: the true accuracy of each group, "
        "graded by an LLM judge",
        "",
        f"## Cross-check by {escape(by)} ({len(t.rows)} groups)",
        "",
        f"**{escape(t.statement)}.**",
        "",
        escape(t.heading),
        "",
    ]
    lines += table(header, cells)
    lines += [
        "",
        f"{escape(t.legend)}.",
        "",
        f"Source: {escape(report.source or t.source)}; design {escape(t.design)}.",
        "",
    ]
    for index in range(len(t.rows)):
        lines += _group(report, index, figure_stem)
    return document(lines, report.flag_rows(), report.reproducibility_rows())


def _group(report: GroupedReport, index: int, figure_stem: str | None) -> list[str]:
    """One group's section: its inputs, cross-check table and theta figure (or why none)."""
    section = report.sections[index]
    lines = [f"## {escape(report.section_title(index))}", ""]
    if section is None:
        return [*lines, escape(report.no_crosscheck_text(index)), ""]
    lines += table(("", "value"), section.input_rows(), numeric=False)
    name = f"group{index + 1}_theta"
    caption = section.figure_caption("theta", group=True)
    figure_lines = figure(name, report.figures[name], caption, figure_stem)
    return [*lines, "", *intervals(section), "", *figure_lines]
