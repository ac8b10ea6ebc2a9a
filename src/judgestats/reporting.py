"""The report a reviewer opens: :func:`report` -> :class:`Report` -> HTML or Markdown.

A report holds the results of the public API for one dataset -- :func:`judgestats.estimate`,
:func:`judgestats.crosscheck` and the :func:`judgestats.posterior` inside the cross-check -- and
renders them as a stand-alone document: the inputs, the recommended interval (or, while the
cross-check makes no single recommendation, its table and notes), the posterior density of theta
with every interval marked, the judge's quality (q0, q1 and Youden's J with credible intervals),
every flag with its advice, and a reproducibility block.

Numbers are printed with the CLI's rounding (four decimals; three for the posterior checks) so
the report shows exactly what ``judgestats estimate``, ``judgestats posterior`` and
``judgestats crosscheck`` print for the same input.

Figures (matplotlib, imported only when a figure is drawn):

- HTML: embedded as base64 PNG ``data:`` URIs, so the file stands alone.
- Markdown: :meth:`Report.save` writes the PNG files next to the ``.md`` file
  (``<stem>_theta.png``, ``<stem>_judge.png``) and links them by relative name, which GitHub,
  pandoc and LaTeX converters all follow; :meth:`Report.to_markdown` without ``figure_stem``
  (or ``save(..., embed_figures=True)``) embeds ``data:`` URIs instead, for a single file.
"""

from __future__ import annotations

import base64
import datetime
import html
import io
import os
import platform
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats._html import fmt4, table
from judgestats._validate import check_level
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning
from judgestats.results import FLAG_MESSAGES

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgestats.bayes.priors import Prior
    from judgestats.crosschecking import CrossCheck
    from judgestats.frequentist import Estimate
    from judgestats.grouped import GroupedCrossChecks

__all__ = ["FORMATS", "GroupedReport", "Report", "report", "report_items"]

#: Output formats of :meth:`Report.save`, and the file extensions that select them.
FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}

#: Figures of a report: file suffix -> caption.
FIGURES = {
    "theta": "Posterior density of the true accuracy theta, with every interval drawn beneath "
    "it (dot: the point estimate of that row).",
    "judge": "Posterior densities of the judge's specificity q0 and sensitivity q1, with their "
    "equal-tailed credible intervals.",
}
_VARIABLES = ("theta", "q0", "q1", "youden")
_VARIABLE_LABELS = {
    "theta": "theta (true accuracy)",
    "q0": "q0 (specificity)",
    "q1": "q1 (sensitivity)",
    "youden": "J = q0 + q1 - 1",
}
_INTERVAL_HEADER = ("method", "estimate", "low", "high", "width")
_POSTERIOR_HEADER = (
    "",
    "calibration",
    "mean",
    "median",
    "ETI low",
    "ETI high",
    "HDI low",
    "HDI high",
)


# -------------------------------------------------------------------------------------------
# the result
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Report:
    """Everything a report shows, as numbers; rendered by :meth:`to_html` / :meth:`to_markdown`.

    Attributes
    ----------
    data : JudgeData
    prob : float
        Level of every interval (confidence and credible).
    crosscheck : CrossCheck
        The closed form and the posterior side by side (:func:`judgestats.crosscheck`).
    estimate : Estimate or None
        The fast default (:func:`judgestats.estimate`); None where no closed-form correction
        exists (then the ``no_closed_form`` flag of the cross-check says why).
    source : str or None
        The file the data were read from, if any.
    command : str
        The command line or Python call that reproduces the report.
    random_seed : int or None
        The seed of the posterior (matters for ``method="nuts"`` and for the idata draws).
    version : str
        judgestats's version.
    created : str
        When the report was computed (UTC, ISO 8601).
    """

    data: JudgeData
    prob: float
    crosscheck: CrossCheck
    estimate: Estimate | None
    source: str | None
    command: str
    random_seed: int | None
    version: str
    created: str
    environment: dict[str, str] = field(default_factory=dict)

    @property
    def posterior(self) -> Any:
        """The posterior of the cross-check (:class:`judgestats.Posterior`)."""
        return self.crosscheck.posterior

    @property
    def recommended(self) -> Any:
        """The cross-check's recommended interval, where it offers one (else None)."""
        return getattr(self.crosscheck, "recommended", None)

    # -- the content, as strings ----------------------------------------------------------------
    def _pct(self) -> str:
        return f"{100 * self.prob:g}%"

    def input_rows(self) -> list[tuple[str, str]]:
        """(label, value) rows of the inputs, with the CLI's wording and rounding."""
        d = self.data
        rows = [
            ("test set", f"{d.k} of {d.n} judged correct (p-hat = {d.p:.4f})"),
            ("specificity q0", f"{d.k0}/{d.m0} = {d.q0:.4f}"),
            ("sensitivity q1", f"{d.k1}/{d.m1} = {d.q1:.4f}"),
            ("Youden's J", f"{d.youden:.4f}"),
            ("design", _DESIGN_TEXT[d.design]),
        ]
        if self.source is not None:
            rows.append(("source file", self.source))
        return rows

    def interval_rows(self) -> list[tuple[str, ...]]:
        """The cross-check table: method, estimate, low, high, width (four decimals)."""
        from judgestats.crosschecking import ROW_LABELS

        return [
            (ROW_LABELS[key], *(fmt4(v) for v in (value, low, high, high - low)))
            for key, (value, low, high) in self.crosscheck.rows.items()
        ]

    @cached_property
    def random_design(self) -> dict[str, Any] | None:
        """PPI, PPI++ and the class-balance test of a random-design dataset (None otherwise).

        What ``judgestats estimate --design random`` prints below its table: the two PPI rows at
        the report's level, the assumption both make, and the class-balance test.
        """
        if self.data.design != "random":
            return None
        import warnings

        from judgestats.designs.prediction_powered import PPI_ASSUMPTION, ppi_from_data
        from judgestats.designs.shift import CLASS_BALANCE_ALPHA, class_balance_test

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)  # their flags are listed instead
            results = [
                ppi_from_data(self.data, lam=lam, confidence_level=self.prob) for lam in (1.0, None)
            ]
            try:
                test = class_balance_test(self.data)
            except ValueError:  # judge no better than chance: nothing to compare with
                test = None
        if test is None:  # the CLI's wording, line for line
            balance = (
                "class balance not tested: the labelled items hold one class only"
                if self.data.one_class
                else "class balance not tested: the judge is no better than chance"
            )
        elif test.p_value < CLASS_BALANCE_ALPHA:
            balance = f"warning: {test}"
        else:
            balance = (
                f"class balance: labelled m1/m = {test.labelled_accuracy:.4f}, test "
                f"Rogan-Gladen {test.test_accuracy:.4f} (z = {test.statistic:.2f}, "
                f"p = {test.p_value:.3g}): consistent with no shift"
            )
        rows = [
            (
                f"{r.method} (lambda = {r.lam:.2f})",
                *(fmt4(v) for v in (r.estimate, r.ci.low, r.ci.high, r.ci.high - r.ci.low)),
            )
            for r in results
        ]
        flags = {key: FLAG_MESSAGES[key] for r in results for key in r.flags}
        return {
            "rows": rows,
            "assumption": f"PPI and PPI++ assume: {PPI_ASSUMPTION}",
            "class_balance": balance,
            "flags": flags,
        }

    def posterior_rows(self) -> list[tuple[str, ...]]:
        """theta, q0, q1, J: the calibration estimate, then the posterior summary (as the CLI)."""
        post, d = self.posterior, self.data
        observed = {"theta": float("nan"), "q0": d.q0, "q1": d.q1, "youden": d.youden}
        rows = []
        for var in _VARIABLES:
            eti, hdi = post.ci(self.prob, "eti", var), post.ci(self.prob, "hdi", var)
            values = (post.mean(var), float(post.quantile(0.5, var)), *eti, *hdi)
            rows.append(
                (
                    _VARIABLE_LABELS[var],
                    "" if var == "theta" else fmt4(observed[var]),
                    *(fmt4(v) for v in values),
                )
            )
        return rows

    def check_text(self) -> str:
        """The posterior's checks, as ``judgestats posterior`` prints them."""
        d = self.posterior.diagnostics
        return (
            f"posterior predictive p-values k {d['p_value_k']:.3f}, k0 {d['p_value_k0']:.3f}"
            f", k1 {d['p_value_k1']:.3f}; P(J < 0.2) {d['prob_weak']:.3f}; "
            f"P(q0 + q1 > 1 | calibration) {d['prob_better_than_chance']:.3f}"
        )

    def recommendation(self) -> tuple[str, list[tuple[str, str]]]:
        """The headline sentence and the notes behind it.

        With a ``recommended`` interval on the cross-check: that interval and its reason.
        Without: the cross-check's own notes (its flags, or that both answers agree).
        """
        rec = self.recommended
        cc = self.crosscheck
        notes = list(cc.messages.items()) or [
            (
                "",
                f"the closed form and the posterior agree (interval ends within {cc.tolerance:g}).",
            )
        ]
        if rec is not None:
            method = getattr(rec, "label", getattr(rec, "method", "recommended interval"))
            level = getattr(rec, "level", self.prob)
            head = (
                f"Report {fmt4(rec.estimate)} ({fmt4(rec.low)}, {fmt4(rec.high)}): "
                f"{method}, {100 * float(level):g}% interval."
            )
            reason = getattr(rec, "reason", "")
            return head, ([("reason", reason)] if reason else []) + notes
        return (
            "The cross-check below compares the closed form with the posterior; its notes "
            "say what they found.",
            notes,
        )

    def flag_rows(self) -> list[tuple[str, str, str]]:
        """Every flag: (where it comes from, key, message with its advice)."""
        rows = [("cross-check", key, message) for key, message in self.crosscheck.messages.items()]
        if self.estimate is not None:  # a flag the cross-check already gives is listed once
            rows += [
                ("estimate", key, FLAG_MESSAGES[key])
                for key in self.estimate.flags
                if key not in self.crosscheck.flags
            ]
        if self.random_design is not None:
            listed = {key for _, key, _ in rows}
            rows += [
                ("PPI", key, message)
                for key, message in self.random_design["flags"].items()
                if key not in listed
            ]
        return rows

    def reproducibility_rows(self) -> list[tuple[str, str]]:
        """(label, value): version, command, seed, posterior settings, prior, date, platform."""
        post = self.posterior
        rows = [
            ("judgestats version", self.version),
            ("command", self.command),
            ("random seed", "none" if self.random_seed is None else str(self.random_seed)),
            ("posterior", f"method {post.method}, {post.n_chains} x {post.n_draws} draws"),
            ("prior", _describe_prior(post.prior)),
            ("created", self.created),
        ]
        rows += list(self.environment.items())
        return rows

    # -- figures -------------------------------------------------------------------------------
    @cached_property
    def figures(self) -> dict[str, bytes]:
        """PNG bytes of each figure in :data:`FIGURES` (drawn once, on first use)."""
        return {
            "theta": _png(self._draw_theta, (7.5, 4.2)),
            "judge": _png(self._draw_judge, (7.5, 3.2)),
        }

    def _draw_theta(self, ax: Any) -> None:
        self.crosscheck.plot(ax=ax)
        rec = self.recommended
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

    def _draw_judge(self, ax: Any) -> None:
        post = self.posterior
        grid = np.linspace(0.0, 1.0, 801)
        for var, colour in (("q0", "tab:purple"), ("q1", "tab:olive")):
            density = np.asarray(post.pdf(grid, var=var), dtype=float)
            low, high = post.ci(self.prob, "eti", var)
            ax.plot(
                grid,
                density,
                color=colour,
                label=f"{_VARIABLE_LABELS[var]}, {self._pct()} ETI ({low:.4f}, {high:.4f})",
            )
            inside = (grid >= low) & (grid <= high)
            ax.fill_between(grid[inside], density[inside], color=colour, alpha=0.2)
        ax.set_xlabel("rate")
        ax.set_ylabel("density")
        ax.set_title("Judge quality")
        ax.legend(fontsize="small", loc="upper left")

    # -- renderers -----------------------------------------------------------------------------
    def to_html(self) -> str:
        """The report as one stand-alone HTML document (figures embedded as base64 PNG)."""
        return _render_html(self)

    def to_markdown(self, figure_stem: str | None = None) -> str:
        """The report as Markdown (CommonMark with pipe tables).

        Parameters
        ----------
        figure_stem : str, optional
            Link the figures as ``<figure_stem>_theta.png`` and ``<figure_stem>_judge.png``
            (relative to the Markdown file; :meth:`save` writes them). By default the figures
            are embedded as ``data:`` URIs, so the text stands alone.
        """
        return _render_markdown(self, figure_stem)

    def save(
        self,
        path: str | os.PathLike[str],
        *,
        format: str | None = None,
        embed_figures: bool | None = None,
    ) -> list[Path]:
        """Write the report; return the paths written (the document first).

        Every file is written to a temporary file in the target folder and renamed into place
        only when all of them are complete, so an error leaves nothing behind.

        Parameters
        ----------
        path : str or path-like
            The document to write; its folder must exist.
        format : {"html", "markdown"}, optional
            By default taken from the extension (see :data:`FORMATS`).
        embed_figures : bool, optional
            Markdown only: embed the figures as ``data:`` URIs (True) or write them as PNG files
            next to the document (False, the default). HTML always embeds them.

        Raises
        ------
        ValueError
            If the format is unknown or cannot be told from the extension, or the folder does
            not exist.
        OSError
            If a file cannot be written.
        """
        return _save_document(self, path, format, embed_figures)

    def __repr__(self) -> str:
        return (
            f"Report(data={self.data!r}, prob={self.prob!r}, "
            f"flags={tuple(self.crosscheck.flags)!r})"
        )

    def _repr_html_(self) -> str:
        """The report itself, without the page's head (for notebooks)."""
        return _html_body(self)


_DESIGN_TEXT = {
    "stratified": "stratified: m0 truly-incorrect and m1 truly-correct calibration items "
    "chosen by design",
    "random": "random: the labelled items are a random subsample of the test items; k and n "
    "count the unlabelled ones",
}


def _describe_prior(prior: Any) -> str:
    """The prior in words, as ``judgestats posterior`` prints it."""
    parts = [
        f"{name} ~ Beta({a:g}, {b:g})"
        for name in ("theta", "q0", "q1")
        for a, b in [getattr(prior, name)]
    ]
    truncation = (
        "judge better than chance (q0 + q1 > 1)" if prior.better_than_chance else "no truncation"
    )
    return f"{', '.join(parts)}, {truncation}"


def _check_format(format: str | None, path: Path) -> str:
    if format is not None:
        if format not in ("html", "markdown"):
            raise ValueError(f"`format` ({format!r}) must be 'html' or 'markdown'.")
        return format
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise ValueError(
            f"`path` ({os.fspath(path)!r}): cannot tell the format from the "
            f"extension {path.suffix!r}; use one of {', '.join(FORMATS)} or give "
            "`format` ('html' or 'markdown')."
        )
    return kind


def _save_document(
    document: Any, path: str | os.PathLike[str], format: str | None, embed_figures: bool | None
) -> list[Path]:
    """Write a report (:meth:`Report.save`): the document, then its figures, all or nothing.

    ``document`` has ``to_html()``, ``to_markdown(figure_stem=None)`` and ``figures`` (name ->
    PNG bytes); Markdown links each figure as ``<stem>_<name>.png`` unless embedding them.
    """
    target = Path(path)
    kind = _check_format(format, target)
    if not target.resolve().parent.is_dir():
        raise ValueError(f"`path` ({os.fspath(path)!r}): its folder does not exist.")
    files: dict[Path, bytes] = {}
    if kind == "html":
        files[target] = document.to_html().encode("utf-8")
    elif embed_figures:
        files[target] = document.to_markdown().encode("utf-8")
    else:
        files[target] = document.to_markdown(figure_stem=target.stem).encode("utf-8")
        for name, png in document.figures.items():
            files[target.with_name(f"{target.stem}_{name}.png")] = png
    _write_all(files)
    return list(files)


def _umask() -> int:
    """The process's file-creation mask (read by setting it and restoring it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_all(files: dict[Path, bytes]) -> None:
    """Write every file to a temporary sibling, then rename them all into place."""
    written: dict[Path, str] = {}
    try:
        for target, content in files.items():
            handle, temporary = tempfile.mkstemp(
                dir=target.resolve().parent, prefix=f".{target.name}.", suffix=".tmp"
            )
            written[target] = temporary
            with os.fdopen(handle, "wb") as stream:
                stream.write(content)
            os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; a report is shared
    except BaseException:
        for temporary in written.values():
            Path(temporary).unlink(missing_ok=True)
        raise
    for target, temporary in written.items():
        os.replace(temporary, target)


def _png(draw: Callable[[Any], None], size: tuple[float, float]) -> bytes:
    """Draw on a fresh Figure (no pyplot state, no backend switch) and return PNG bytes."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout="constrained")
    draw(figure.subplots())
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


# -------------------------------------------------------------------------------------------
# HTML
# -------------------------------------------------------------------------------------------
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


def _kv_table(rows: list[tuple[str, str]], css_class: str) -> str:
    body = "".join(
        f'<tr><th scope="row">{html.escape(k)}</th><td class="mono">{html.escape(v)}</td></tr>'
        for k, v in rows
    )
    return f'<table class="{css_class}"><tbody>{body}</tbody></table>'


def _html_figure(report: Report, name: str) -> str:
    alt = f"figure: {FIGURES[name]}"
    return (
        f'<figure id="figure-{name}"><img src="{_data_uri(report.figures[name])}" '
        f'alt="{html.escape(alt)}"><figcaption>{html.escape(FIGURES[name])}</figcaption>'
        "</figure>"
    )


def _html_body(report: Report) -> str:
    pct = report._pct()
    head, notes = report.recommendation()
    note_items = "".join(
        f"<li><code>{html.escape(k)}</code>: {html.escape(v)}</li>"
        if k
        else f"<li>{html.escape(v)}</li>"
        for k, v in notes
    )
    flags = report.flag_rows()
    flag_html = (
        '<dl class="flags">'
        + "".join(
            f"<dt>{html.escape(key)} <small>({html.escape(where)})</small></dt>"
            f"<dd>{html.escape(message)}</dd>"
            for where, key, message in flags
        )
        + "</dl>"
        if flags
        else "<p>No flags: nothing in these data calls for caution.</p>"
    )
    post = report.posterior
    return "".join(
        [
            '<div class="judgestats-report">',
            "<h1>judgestats report: the true accuracy of a model graded by an LLM judge</h1>",
            f'<section id="recommendation"><p class="headline">{html.escape(head)}</p>',
            f'<ul class="notes">{note_items}</ul></section>' if note_items else "</section>",
            '<section id="inputs"><h2>Inputs</h2>',
            _kv_table(report.input_rows(), "inputs"),
            "</section>",
            f'<section id="estimates"><h2>True accuracy theta ({html.escape(pct)} intervals)</h2>',
            table(
                _INTERVAL_HEADER,
                report.interval_rows(),
                css_class="intervals",
                caption=f"judgestats cross-check ({pct} intervals; posterior by {post.method})",
            ),
            _html_figure(report, "theta"),
            "</section>",
            _random_design_html(report),
            '<section id="judge-quality"><h2>Judge quality</h2>',
            table(
                _POSTERIOR_HEADER,
                report.posterior_rows(),
                css_class="posterior",
                caption=f"judgestats posterior (method {post.method}, {pct} credible intervals)",
            ),
            f"<p>Checks: {html.escape(report.check_text())}</p>",
            _html_figure(report, "judge"),
            "</section>",
            f'<section id="flags"><h2>Flags ({len(flags)})</h2>{flag_html}</section>',
            '<section id="reproducibility"><h2>Reproducibility</h2>',
            _kv_table(report.reproducibility_rows(), "reproducibility"),
            "</section></div>",
        ]
    )


def _random_design_html(report: Report) -> str:
    """The PPI section of a random-design report ("" otherwise)."""
    block = report.random_design
    if block is None:
        return ""
    d = report.data
    return "".join(
        [
            f'<section id="random-design"><h2>Random design: PPI and PPI++ ({report._pct()} '
            "intervals)</h2>",
            f"<p>{d.m} labelled items drawn from the test population, {d.n} unlabelled.</p>",
            table(_INTERVAL_HEADER, block["rows"], css_class="ppi"),
            f"<p>{html.escape(block['assumption'])}</p>",
            f"<p>{html.escape(block['class_balance'])}</p></section>",
        ]
    )


def _render_html(report: Report) -> str:
    return _page(_html_body(report), report.version)


def _page(body: str, version: str) -> str:
    """A stand-alone HTML page around a report's body."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="judgestats {html.escape(version)}">'
        "<title>judgestats report</title>"
        f"<style>{_CSS}</style></head>\n<body>\n{body}\n</body></html>\n"
    )


# -------------------------------------------------------------------------------------------
# Markdown
# -------------------------------------------------------------------------------------------
_MD_SPECIAL = set("\\`*_[]<>|#")


def _md(text: Any) -> str:
    """Backslash-escape the characters that Markdown (or inline HTML) would interpret."""
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in str(text))


def _md_table(
    header: tuple[str, ...], rows: Sequence[tuple[str, ...]], *, numeric: bool = True
) -> list[str]:
    align = "---:" if numeric else ":---"
    lines = [
        "| " + " | ".join(_md(h) for h in header) + " |",
        "|" + "|".join([":---"] + [align] * (len(header) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in rows]
    return lines


def _md_figure(report: Report, name: str, figure_stem: str | None) -> list[str]:
    target = (
        _data_uri(report.figures[name])
        if figure_stem is None
        else f"{figure_stem}_{name}.png".replace(" ", "%20")
    )
    return [f"![{_md(FIGURES[name])}]({target})", "", f"*{_md(FIGURES[name])}*", ""]


def _render_markdown(report: Report, figure_stem: str | None) -> str:
    pct = report._pct()
    post = report.posterior
    head, notes = report.recommendation()
    lines = [
        "# judgestats report: the true accuracy of a model graded by an LLM judge",
        "",
        f"**{_md(head)}**",
        "",
    ]
    lines += [f"- `{k}`: {_md(v)}" if k else f"- {_md(v)}" for k, v in notes]
    lines += ["", "## Inputs", ""]
    lines += _md_table(("", "value"), report.input_rows(), numeric=False)
    lines += [
        "",
        f"## True accuracy theta ({pct} intervals)",
        "",
        f"judgestats cross-check ({_md(pct)} intervals; posterior by {post.method})",
        "",
    ]
    lines += _md_table(_INTERVAL_HEADER, report.interval_rows())
    lines += [""] + _md_figure(report, "theta", figure_stem)
    if report.random_design is not None:
        block, d = report.random_design, report.data
        lines += [
            f"## Random design: PPI and PPI++ ({pct} intervals)",
            "",
            f"{d.m} labelled items drawn from the test population, {d.n} unlabelled.",
            "",
        ]
        lines += _md_table(_INTERVAL_HEADER, block["rows"])
        lines += ["", _md(block["assumption"]), "", _md(block["class_balance"]), ""]
    lines += [
        "## Judge quality",
        "",
        f"judgestats posterior (method {post.method}, {_md(pct)} credible intervals)",
        "",
    ]
    lines += _md_table(_POSTERIOR_HEADER, report.posterior_rows())
    lines += ["", f"Checks: {_md(report.check_text())}", ""]
    lines += _md_figure(report, "judge", figure_stem)
    flags = report.flag_rows()
    lines += [f"## Flags ({len(flags)})", ""]
    lines += [f"- `{key}` ({where}): {_md(message)}" for where, key, message in flags] or [
        "No flags: nothing in these data calls for caution."
    ]
    lines += ["", "## Reproducibility", ""]
    lines += _md_table(("", "value"), report.reproducibility_rows(), numeric=False)
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------------------------
# the entry point
# -------------------------------------------------------------------------------------------
def report(
    data: JudgeData,
    *,
    prob: float = 0.95,
    prior: Prior | None = None,
    random_seed: int | None = 0,
    method: str = "exact",
    draws: int = 1000,
    chains: int = 4,
    source: str | os.PathLike[str] | None = None,
    command: str | None = None,
) -> Report:
    """Compute everything a report shows for one dataset.

    Runs :func:`judgestats.estimate` (the Rogan-Gladen estimate with the Lang-Reiczigel interval,
    Lee et al., arXiv 2511.21140 v1, eqs. 4-7) and :func:`judgestats.crosscheck` (which computes
    the posterior with the same prior, method and seed as :func:`judgestats.posterior` would), at
    one level for every interval. Flags are not warned about: the report lists them, with their
    advice. Render with :meth:`Report.to_html`, :meth:`Report.to_markdown` or :meth:`Report.save`.

    Parameters
    ----------
    data : JudgeData
    prob : float, default 0.95
        Level of every interval: the confidence intervals and the credible intervals (the CLI's
        ``--confidence-level``).
    prior : Prior, optional
        Prior of the posterior (uniform, judge better than chance, by default).
    random_seed : int or None, default 0
        Seed of the posterior (NUTS draws, and the i.i.d. draws of the exact posterior's idata).
    method : {"exact", "nuts"}, default "exact"
        How the posterior is computed.
    draws, chains : int
        Posterior draws per chain and chains.
    source : str or path-like, optional
        The file the data were read from; shown with the inputs.
    command : str, optional
        The command that produced the report, shown for reproducibility (the CLI passes its own
        command line); by default the equivalent Python call.

    Returns
    -------
    Report

    Raises
    ------
    TypeError
        If ``data`` is not a JudgeData, or ``random_seed`` not an int or None.
    ValueError
        If ``prob`` is not strictly between 0 and 1, or a posterior option is invalid.

    Examples
    --------
    >>> import judgestats as jc
    >>> data = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
    >>> rep = jc.report(data)
    >>> rep.interval_rows()[1]
    ('Rogan-Gladen + Lang-Reiczigel', '0.1667', '0.0564', '0.2627', '0.2064')
    """
    from judgestats._version import __version__
    from judgestats.crosschecking import crosscheck
    from judgestats.frequentist import estimate

    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    prob = check_level(prob, "prob")
    if random_seed is not None and (
        isinstance(random_seed, bool) or not isinstance(random_seed, (int, np.integer))
    ):
        raise TypeError(
            f"`random_seed` ({random_seed!r}) must be an int or None, so that the "
            "report can show it."
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # the report lists every flag
        try:
            est = estimate(data, confidence_level=prob)
        except ValueError:  # no correction; the cross-check's no_closed_form flag says why
            est = None
        checked = crosscheck(
            data,
            confidence_level=prob,
            prior=prior,
            method=method,
            random_seed=random_seed,
            draws=draws,
            chains=chains,
        )
    if command is None:
        command = _python_call(data, prob, prior, random_seed, method, draws, chains)
    return Report(
        data=data,
        prob=prob,
        crosscheck=checked,
        estimate=est,
        source=None if source is None else os.fspath(source),
        command=str(command),
        random_seed=None if random_seed is None else int(random_seed),
        version=__version__,
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        environment={"python": platform.python_version(), "numpy": np.__version__},
    )


def _python_call(
    data: JudgeData,
    prob: float,
    prior: Any,
    random_seed: int | None,
    method: str,
    draws: int,
    chains: int,
) -> str:
    """The Python call that reproduces a report (arguments at their defaults left out)."""
    options = _python_options(prob, prior, random_seed, method, draws, chains)
    return f"judgestats.report(judgestats.{data!r}, {options})"


def _python_options(
    prob: float, prior: Any, random_seed: int | None, method: str, draws: int, chains: int
) -> str:
    """The keyword arguments of :func:`_python_call` that differ from their defaults."""
    options = [f"prob={prob!r}"] if prob != 0.95 else []
    options += [f"prior={prior!r}"] if prior is not None else []
    options += [f"random_seed={random_seed!r}"]
    options += [f"method={method!r}"] if method != "exact" else []
    options += [f"draws={draws!r}"] if draws != 1000 else []
    options += [f"chains={chains!r}"] if chains != 4 else []
    return ", ".join(options)


# -------------------------------------------------------------------------------------------
# the grouped report: one cross-check per group (judgestats.crosscheck_items)
# -------------------------------------------------------------------------------------------
_GROUP_FIGURE = (
    "Posterior density of theta in this group, with every interval drawn beneath "
    "it (dot: the point estimate of that row)."
)


@dataclass(frozen=True, eq=False)
class GroupedReport:
    """A report of a grouped cross-check: the table across groups, then one section per group.

    Attributes
    ----------
    table : GroupedCrossChecks
        The cross-check of every group at the family-adjusted level
        (:func:`judgestats.crosscheck_items`).
    sections : tuple of (Report or None)
        Per group (in the table's order), the one-dataset :class:`Report` of that group at the
        table's per-group level (it supplies the inputs, the interval table and the theta
        figure); None where the group has no cross-check (its flag says why).
    source, command, random_seed, version, created, environment
        As in :class:`Report`.
    """

    table: GroupedCrossChecks
    sections: tuple[Report | None, ...]
    source: str | None
    command: str
    random_seed: int | None
    version: str
    created: str
    environment: dict[str, str] = field(default_factory=dict)

    @property
    def prob(self) -> float:
        """The family-wise level of the table."""
        return self.table.confidence_level

    def group_label(self, index: int) -> str:
        """``column = value`` of group ``index`` (as in the errors and notes)."""
        row = self.table.rows[index]
        return ", ".join(f"{c} = {v}" for c, v in zip(self.table.by, row.key, strict=True))

    def grouped_rows(self) -> tuple[list[str], list[list[str]]]:
        """Header and cells of the table across groups, as ``judgestats crosscheck --by`` prints."""
        return self.table.table_cells()

    def flag_rows(self) -> list[tuple[str, str, str, str]]:
        """Every flag: (group, where it comes from, key, message with its advice)."""
        rows = []
        for index, (row, section) in enumerate(zip(self.table.rows, self.sections, strict=True)):
            label = self.group_label(index)
            if section is None:
                rows += [(label, "group", key, message) for key, message in row.messages.items()]
            else:
                rows += [(label, *flag) for flag in section.flag_rows()]
        return rows

    def reproducibility_rows(self) -> list[tuple[str, str]]:
        """(label, value): version, command, seed, correction, posterior, prior, date, platform."""
        t = self.table
        rows = [
            ("judgestats version", self.version),
            ("command", self.command),
            ("random seed", "none" if self.random_seed is None else str(self.random_seed)),
            (
                "groups",
                f"by {', '.join(t.by)}: {len(t.rows)}; correction {t.correction}: {t.statement}",
            ),
        ]
        post = next((s.posterior for s in self.sections if s is not None), None)
        if post is not None:
            rows += [
                (
                    "posterior",
                    f"method {post.method}, {post.n_chains} x {post.n_draws} draws per group",
                ),
                ("prior", _describe_prior(post.prior)),
            ]
        rows.append(("created", self.created))
        return rows + list(self.environment.items())

    @cached_property
    def figures(self) -> dict[str, bytes]:
        """PNG bytes of each group's theta figure, named ``group<i>_theta`` (i from 1)."""
        return {
            f"group{index}_theta": _png(section._draw_theta, (7.5, 4.2))
            for index, section in enumerate(self.sections, start=1)
            if section is not None
        }

    def to_html(self) -> str:
        """The report as one stand-alone HTML document (figures embedded as base64 PNG)."""
        return _page(_grouped_html_body(self), self.version)

    def to_markdown(self, figure_stem: str | None = None) -> str:
        """The report as Markdown (figures as in :meth:`Report.to_markdown`).

        With ``figure_stem`` the figures are linked as ``<figure_stem>_group<i>_theta.png``;
        without it they are embedded as ``data:`` URIs.
        """
        return _grouped_markdown(self, figure_stem)

    def save(
        self,
        path: str | os.PathLike[str],
        *,
        format: str | None = None,
        embed_figures: bool | None = None,
    ) -> list[Path]:
        """Write the report and (Markdown) its figures, all or nothing (:meth:`Report.save`)."""
        return _save_document(self, path, format, embed_figures)

    def __repr__(self) -> str:
        return (
            f"GroupedReport(by={self.table.by!r}, groups={len(self.table.rows)}, "
            f"prob={self.prob!r}, correction={self.table.correction!r})"
        )

    def _repr_html_(self) -> str:
        return _grouped_html_body(self)


def _group_title(report: GroupedReport, index: int) -> str:
    return f"Group {index + 1}: {report.group_label(index)}"


def _flag_list_html(flags: list[tuple[str, str, str, str]]) -> str:
    if not flags:
        return "<p>No flags: nothing in these data calls for caution.</p>"
    return (
        '<dl class="flags">'
        + "".join(
            f"<dt>{html.escape(group)}: {html.escape(key)} <small>({html.escape(where)})</small>"
            f"</dt><dd>{html.escape(message)}</dd>"
            for group, where, key, message in flags
        )
        + "</dl>"
    )


def _group_html(report: GroupedReport, index: int) -> str:
    row, section = report.table.rows[index], report.sections[index]
    head = f'<section id="group-{index + 1}"><h2>{html.escape(_group_title(report, index))}</h2>'
    if section is None:
        c = row.counts
        text = (
            f"Counts k/n {c['k']}/{c['n']}, k0/m0 {c['k0']}/{c['m0']}, k1/m1 "
            f"{c['k1']}/{c['m1']}. No cross-check: " + "; ".join(row.messages.values()) + "."
        )
        return f"{head}<p>{html.escape(text)}</p></section>"
    pct = section._pct()
    name = f"group{index + 1}_theta"
    return "".join(
        [
            head,
            _kv_table(section.input_rows(), "inputs"),
            table(
                _INTERVAL_HEADER,
                section.interval_rows(),
                css_class="intervals",
                caption=f"judgestats cross-check ({pct} intervals; posterior by "
                f"{section.posterior.method})",
            ),
            f'<figure id="figure-{name}"><img src="{_data_uri(report.figures[name])}" '
            f'alt="{html.escape("figure: " + _GROUP_FIGURE)}"><figcaption>'
            f"{html.escape(_GROUP_FIGURE)}</figcaption></figure></section>",
        ]
    )


def _grouped_html_body(report: GroupedReport) -> str:
    t = report.table
    header, cells = report.grouped_rows()
    flags = report.flag_rows()
    by = ", ".join(t.by)
    return "".join(
        [
            '<div class="judgestats-report">',
            f"<h1>judgestats report by {html.escape(by)}: the true accuracy of each group, "
            "graded by an LLM judge</h1>",
            f'<section id="groups"><h2>Cross-check by {html.escape(by)} '
            f"({len(t.rows)} groups)</h2>",
            f'<p class="headline">{html.escape(t.statement)}.</p>',
            '<div class="wide">',
            table(header, cells, css_class="grouped", caption=t.heading),
            "</div>",
            f"<p>{html.escape(t.legend)}.</p>",
            f"<p>Source: <code>{html.escape(report.source or t.source)}</code>; design "
            f"{html.escape(t.design)}.</p></section>",
            *(_group_html(report, index) for index in range(len(t.rows))),
            f'<section id="flags"><h2>Flags ({len(flags)})</h2>{_flag_list_html(flags)}</section>',
            '<section id="reproducibility"><h2>Reproducibility</h2>',
            _kv_table(report.reproducibility_rows(), "reproducibility"),
            "</section></div>",
        ]
    )


def _grouped_markdown(report: GroupedReport, figure_stem: str | None) -> str:
    t = report.table
    by = ", ".join(t.by)
    header, cells = report.grouped_rows()
    lines = [
        f"# judgestats report by {_md(by)}: the true accuracy of each group, "
        "graded by an LLM judge",
        "",
        f"## Cross-check by {_md(by)} ({len(t.rows)} groups)",
        "",
        f"**{_md(t.statement)}.**",
        "",
        _md(t.heading),
        "",
    ]
    lines += _md_table(tuple(header), [tuple(line) for line in cells])
    lines += [
        "",
        f"{_md(t.legend)}.",
        "",
        f"Source: {_md(report.source or t.source)}; design {_md(t.design)}.",
        "",
    ]
    for index, (row, section) in enumerate(zip(t.rows, report.sections, strict=True)):
        lines += [f"## {_md(_group_title(report, index))}", ""]
        if section is None:
            c = row.counts
            lines += [
                _md(
                    f"Counts k/n {c['k']}/{c['n']}, k0/m0 {c['k0']}/{c['m0']}, k1/m1 "
                    f"{c['k1']}/{c['m1']}. No cross-check: "
                    + "; ".join(row.messages.values())
                    + "."
                ),
                "",
            ]
            continue
        lines += _md_table(("", "value"), section.input_rows(), numeric=False)
        lines += [
            "",
            f"judgestats cross-check ({_md(section._pct())} intervals; posterior by "
            f"{section.posterior.method})",
            "",
        ]
        lines += _md_table(_INTERVAL_HEADER, section.interval_rows())
        name = f"group{index + 1}_theta"
        target = (
            _data_uri(report.figures[name])
            if figure_stem is None
            else f"{figure_stem}_{name}.png".replace(" ", "%20")
        )
        lines += ["", f"![{_md(_GROUP_FIGURE)}]({target})", "", f"*{_md(_GROUP_FIGURE)}*", ""]
    flags = report.flag_rows()
    lines += [f"## Flags ({len(flags)})", ""]
    lines += [
        f"- {_md(group)}: `{key}` ({where}): {_md(message)}" for group, where, key, message in flags
    ] or ["No flags: nothing in these data calls for caution."]
    lines += ["", "## Reproducibility", ""]
    lines += _md_table(("", "value"), report.reproducibility_rows(), numeric=False)
    return "\n".join(lines) + "\n"


def report_items(
    items: pd.DataFrame,
    *,
    by: str | list[str] | tuple[str, ...],
    prob: float = 0.95,
    correction: str = "holm",
    design: str = "stratified",
    prior: Prior | None = None,
    random_seed: int | None = 0,
    method: str = "exact",
    draws: int = 1000,
    chains: int = 4,
    source: str | os.PathLike[str] | None = None,
    command: str | None = None,
) -> GroupedReport:
    """Compute a grouped report: the cross-check of every group, then one section per group.

    Runs :func:`judgestats.crosscheck_items` (per group: the Rogan-Gladen estimate with the
    Lang-Reiczigel interval, Lee et al., arXiv 2511.21140 v1, eqs. 4-7, and the posterior with
    its equal-tailed and highest-density intervals), every interval at the family-adjusted level
    of ``correction`` (Bonferroni's ``1 - (1 - prob) / G`` for "holm" and "bonferroni"). The
    document shows the table across groups with the correction stated, then per group its
    counts, its cross-check table and its theta density with every interval marked, the flags
    with their advice, and a reproducibility block.

    Parameters
    ----------
    items : pandas.DataFrame
        An items frame (:mod:`judgestats.io`); item ids must not repeat within a group.
    by : str or sequence of str
        The grouping column(s).
    prob : float, default 0.95
        The family-wise level of the table.
    correction : {"holm", "bonferroni", "none"}, default "holm"
        Multiplicity correction across the groups (:func:`judgestats.crosscheck_items`).
    design : {"stratified", "random"}, default "stratified"
        How the labelled items were chosen.
    prior, random_seed, method, draws, chains
        As in :func:`report`; every group's posterior uses them.
    source : str or path-like, optional
        Where the items came from (default: the frame's ``attrs["source"]``).
    command : str, optional
        The command that produced the report (the CLI passes its command line).

    Returns
    -------
    GroupedReport

    Raises
    ------
    TypeError
        If ``random_seed`` is not an int or None, or an argument of
        :func:`judgestats.crosscheck_items` has a wrong type.
    ValueError
        As :func:`judgestats.crosscheck_items`, or if ``prob`` is not strictly between 0 and 1.
    """
    from judgestats._version import __version__
    from judgestats.grouped import crosscheck_items

    prob = check_level(prob, "prob")
    if random_seed is not None and (
        isinstance(random_seed, bool) or not isinstance(random_seed, (int, np.integer))
    ):
        raise TypeError(
            f"`random_seed` ({random_seed!r}) must be an int or None, so that the "
            "report can show it."
        )
    checked = crosscheck_items(
        items,
        by=by,
        design=design,
        confidence_level=prob,
        correction=correction,
        prior=prior,
        method=method,
        random_seed=random_seed,
        draws=draws,
        chains=chains,
    )
    created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    environment = {"python": platform.python_version(), "numpy": np.__version__}
    if command is None:
        command = (
            f"judgestats.report_items(items, by={list(checked.by)!r}, "
            f"{_python_options(prob, prior, random_seed, method, draws, chains)}"
            + (f", correction={correction!r}" if correction != "holm" else "")
            + (f", design={design!r}" if design != "stratified" else "")
            + ")"
        )
    seed = None if random_seed is None else int(random_seed)
    sections = tuple(
        None
        if row.result is None
        else Report(
            data=row.result.data,
            prob=checked.interval_level,
            crosscheck=row.result,
            estimate=row.result.estimate,
            source=None,
            command=str(command),
            random_seed=seed,
            version=__version__,
            created=created,
            environment=environment,
        )
        for row in checked.rows
    )
    return GroupedReport(
        table=checked,
        sections=sections,
        source=None if source is None else os.fspath(source),
        command=str(command),
        random_seed=seed,
        version=__version__,
        created=created,
        environment=environment,
    )
