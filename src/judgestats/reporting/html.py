"""The HTML renderer: one stand-alone page, figures embedded as base64 PNG ``data:`` URIs.

A single report and a grouped report go through the same pieces: :func:`document` (heading,
sections, flags, reproducibility), :func:`intervals_table` and :func:`figure` (a dataset's
cross-check table and its theta figure, which a grouped report shows once per group), and
:func:`page` around the body. Every piece of text goes through :func:`judgestats._html.escape`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from judgestats._html import escape, fmt_percent, table
from judgestats.reporting.figures import data_uri
from judgestats.reporting.layout import (
    FIGURES,
    INTERVAL_HEADER,
    NO_FLAGS,
    POSTERIOR_HEADER,
)

if TYPE_CHECKING:  # pragma: no cover
    from judgestats.reporting.content import GroupedReport, Report

__all__ = ["document", "figure", "grouped_body", "intervals_table", "page", "report_body"]

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 60rem;
       margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2rem;
     border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5rem 0; font-variant-numeric: tabular-nums; }
th, td { padding: 0.2rem 0.6rem; border-bottom: 1px solid #eee; text-align: right; }
td.mono { text-align: left; }
th[scope="row"], thead th:first-child { text-align: left; }
th[scope="row"] { white-space: nowrap; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.3rem; }
.headline { font-size: 1.15rem; background: #f3f7fb; border-left: 4px solid #2a6ebb;
            padding: 0.6rem 1rem; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9rem; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; }
dl.flags dt { font-family: ui-monospace, monospace; margin-top: 0.5rem; }
dl.flags dd { margin-left: 1.5rem; }
.wide { overflow-x: auto; }
table.grouped th, table.grouped td { padding: 0.2rem 0.35rem; font-size: 0.9rem; }
"""


# -- the shared pieces -------------------------------------------------------------------------
def page(body: str, version: str) -> str:
    """A stand-alone HTML page around a report's body."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="judgestats {escape(version)}">'
        "<title>judgestats report</title>"
        f"<style>{_CSS}</style></head>\n<body>\n{body}\n</body></html>\n"
    )


def kv_table(rows: Sequence[tuple[str, str]], css_class: str) -> str:
    """A two-column table of (label, value) rows, the values in monospace."""
    body = "".join(
        f'<tr><th scope="row">{escape(k)}</th><td class="mono">{escape(v)}</td></tr>'
        for k, v in rows
    )
    return f'<table class="{css_class}"><tbody>{body}</tbody></table>'


def figure(name: str, png: bytes, caption: str) -> str:
    """A figure embedded as a ``data:`` URI, with its caption (also its alternative text)."""
    return (
        f'<figure id="figure-{name}"><img src="{data_uri(png)}" '
        f'alt="{escape("figure: " + caption)}"><figcaption>{escape(caption)}</figcaption>'
        "</figure>"
    )


def intervals_table(report: Report) -> str:
    """One dataset's cross-check table: method, estimate, low, high, width."""
    return table(
        INTERVAL_HEADER,
        report.interval_rows(),
        css_class="intervals",
        caption=report.intervals_caption(),
    )


def _flags(flags: Sequence[tuple[str, str, str, str]]) -> str:
    """The flags section; each flag is (group or "", where it comes from, key, message)."""
    if flags:
        items = "".join(
            f"<dt>{escape(group) + ': ' if group else ''}{escape(key)} "
            f"<small>({escape(where)})</small></dt><dd>{escape(message)}</dd>"
            for group, where, key, message in flags
        )
        listed = f'<dl class="flags">{items}</dl>'
    else:
        listed = f"<p>{NO_FLAGS}</p>"
    return f'<section id="flags"><h2>Flags ({len(flags)})</h2>{listed}</section>'


def document(
    title: str,
    sections: Sequence[str],
    flags: Sequence[tuple[str, str, str, str]],
    reproducibility: Sequence[tuple[str, str]],
) -> str:
    """A report's body: its heading (HTML), its sections, then the flags and reproducibility."""
    return "".join(
        [
            '<div class="judgestats-report">',
            f"<h1>{title}</h1>",
            *sections,
            _flags(flags),
            '<section id="reproducibility"><h2>Reproducibility</h2>',
            kv_table(reproducibility, "reproducibility"),
            "</section></div>",
        ]
    )


# -- a single report ---------------------------------------------------------------------------
def report_body(report: Report) -> str:
    """The body of a :class:`~judgestats.Report` (without the page's head)."""
    pct = fmt_percent(report.prob)
    head, notes = report.recommendation()
    note_items = "".join(
        f"<li><code>{escape(k)}</code>: {escape(v)}</li>" if k else f"<li>{escape(v)}</li>"
        for k, v in notes
    )
    post = report.posterior
    method = "not computed" if post is None else post.method
    sections = [
        f'<section id="recommendation"><p class="headline">{escape(head)}</p>',
        f'<ul class="notes">{note_items}</ul></section>' if note_items else "</section>",
        '<section id="inputs"><h2>Inputs</h2>',
        kv_table(report.input_rows(), "inputs"),
        "</section>",
        f'<section id="estimates"><h2>True accuracy theta ({escape(pct)} intervals)</h2>',
        intervals_table(report),
        figure("theta", report.figures["theta"], report.figure_caption("theta")),
        "</section>",
        _random_design(report),
        '<section id="judge-quality"><h2>Judge quality</h2>',
        table(
            POSTERIOR_HEADER,
            report.posterior_rows(),
            css_class="posterior",
            caption=f"judgestats posterior (method {method}, {pct} credible intervals)",
        ),
        f"<p>Checks: {escape(report.check_text())}</p>",
        *(
            [figure("judge", report.figures["judge"], FIGURES["judge"])]
            if "judge" in report.figures
            else []
        ),
        "</section>",
    ]
    title = "judgestats report: the true accuracy of a model graded by an LLM judge"
    flags = [("", *flag) for flag in report.flag_rows()]
    return document(title, sections, flags, report.reproducibility_rows())


def _random_design(report: Report) -> str:
    """The PPI section of a random-design report ("" otherwise)."""
    block = report.random_design
    if block is None:
        return ""
    d = report.data
    return "".join(
        [
            '<section id="random-design"><h2>Random design: PPI and PPI++ '
            f"({fmt_percent(report.prob)} intervals)</h2>",
            f"<p>{d.m} labelled items drawn from the test population, {d.n} unlabelled.</p>",
            table(INTERVAL_HEADER, block["rows"], css_class="ppi"),
            f"<p>{escape(block['assumption'])}</p>",
            f"<p>{escape(block['class_balance'])}</p></section>",
        ]
    )


# -- a grouped report --------------------------------------------------------------------------
def grouped_body(report: GroupedReport) -> str:
    """The body of a :class:`~judgestats.GroupedReport`: the table, then one section per group."""
    t = report.table
    header, cells = report.grouped_rows()
    by = escape(", ".join(t.by))
    overview = "".join(
        [
            f'<section id="groups"><h2>Cross-check by {by} ({len(t.rows)} groups)</h2>',
            f'<p class="headline">{escape(t.statement)}.</p>',
            '<div class="wide">',
            table(header, cells, css_class="grouped", caption=t.heading),
            "</div>",
            f"<p>{escape(t.legend)}.</p>",
            f"<p>Source: <code>{escape(report.source or t.source)}</code>; design "
            f"{escape(t.design)}.</p></section>",
        ]
    )
    sections = [overview, *(_group(report, index) for index in range(len(t.rows)))]
    title = f"judgestats report by {by}: the true accuracy of each group, graded by an LLM judge"
    return document(title, sections, report.flag_rows(), report.reproducibility_rows())


def _group(report: GroupedReport, index: int) -> str:
    """One group's section: its inputs, cross-check table and theta figure (or why none)."""
    section = report.sections[index]
    head = f'<section id="group-{index + 1}"><h2>{escape(report.section_title(index))}</h2>'
    if section is None:
        return f"{head}<p>{escape(report.no_crosscheck_text(index))}</p></section>"
    name = f"group{index + 1}_theta"
    return "".join(
        [
            head,
            kv_table(section.input_rows(), "inputs"),
            intervals_table(section),
            figure(name, report.figures[name], section.figure_caption("theta", group=True)),
            "</section>",
        ]
    )
