"""What a report says, as data: :class:`Report` (one dataset) and :class:`GroupedReport`.

A report holds the results of the public API -- :func:`judgestats.estimate`,
:func:`judgestats.crosscheck` and the :func:`judgestats.posterior` inside the cross-check -- and
offers them as rows of strings, with the CLI's rounding (four decimals; three for the posterior
checks), so the report shows exactly what ``judgestats estimate``, ``judgestats posterior`` and
``judgestats crosscheck`` print for the same input. Both kinds share one base,
:class:`ReportDocument`: the provenance fields, the figures, and one path to the renderers
(:mod:`~judgestats.reporting.html`, :mod:`~judgestats.reporting.markdown`) and to the disk
(:mod:`~judgestats.reporting.saving`). A grouped report holds one :class:`Report` per group and
renders each group with the same pieces as a single report.
"""

from __future__ import annotations

import abc
import os
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgestats._html import fmt4, fmt_percent
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning
from judgestats.reporting import html, markdown
from judgestats.reporting.figures import draw_judge, draw_theta, png, theta_size
from judgestats.reporting.layout import (
    DESIGN_TEXT,
    FIGURES,
    GROUP_FIGURE,
    NO_POSTERIOR_FIGURE,
    VARIABLE_LABELS,
    VARIABLES,
)
from judgestats.reporting.saving import save_document
from judgestats.results import FLAG_MESSAGES

if TYPE_CHECKING:  # pragma: no cover
    from judgestats.frequentist import Estimate
    from judgestats.grouped import GroupedCrossChecks
    from judgestats.recommendation import CrossCheck

__all__ = ["GroupedReport", "Report", "ReportDocument"]


def _rec_target(rec: Any) -> str:
    """The target of a recommended interval (``"population"`` where it states none)."""
    return str(getattr(rec, "target", "population"))


@dataclass(frozen=True, eq=False, kw_only=True)
class ReportDocument(abc.ABC):
    """What every report shares: its provenance, its figures, its renderers and :meth:`save`.

    The fields are keyword-only, so each kind of report lists its own contents first.

    Attributes
    ----------
    source : str or None
        Where the data were read from, if known.
    command : str
        The command line or Python call that reproduces the report.
    random_seed : int or None
        The seed of the posterior (matters for ``method="nuts"`` and for the idata draws).
    version : str
        judgestats's version.
    created : str
        When the report was computed (UTC, ISO 8601).
    environment : dict of str
        Python's and numpy's versions.
    """

    source: str | None
    command: str
    random_seed: int | None
    version: str
    created: str
    environment: dict[str, str] = field(default_factory=dict)

    @property
    @abc.abstractmethod
    def figures(self) -> dict[str, bytes]:
        """PNG bytes of each figure, by name (drawn once, on first use)."""

    @abc.abstractmethod
    def reproducibility_rows(self) -> list[tuple[str, str]]:
        """(label, value) rows of the reproducibility block."""

    @abc.abstractmethod
    def _html_body(self) -> str:
        """The HTML body (:mod:`~judgestats.reporting.html`)."""

    @abc.abstractmethod
    def _markdown(self, figure_stem: str | None) -> str:
        """The Markdown text (:mod:`~judgestats.reporting.markdown`)."""

    def _provenance_rows(self) -> list[tuple[str, str]]:
        """The first rows of the reproducibility block: version, command, seed."""
        return [
            ("judgestats version", self.version),
            ("command", self.command),
            ("random seed", "none" if self.random_seed is None else str(self.random_seed)),
        ]

    def _closing_rows(self) -> list[tuple[str, str]]:
        """The last rows of the reproducibility block: date, then the platform."""
        return [("created", self.created), *self.environment.items()]

    def to_html(self) -> str:
        """The report as one stand-alone HTML document (figures embedded as base64 PNG)."""
        return html.page(self._html_body(), self.version)

    def to_markdown(self, figure_stem: str | None = None) -> str:
        """The report as Markdown (CommonMark with pipe tables).

        Parameters
        ----------
        figure_stem : str, optional
            Link each figure of :attr:`figures` as ``<figure_stem>_<name>.png`` (relative to
            the Markdown file; :meth:`save` writes them): ``_theta.png`` and ``_judge.png`` for
            a :class:`Report`, ``_group<i>_theta.png`` for a :class:`GroupedReport`. By default
            the figures are embedded as ``data:`` URIs, so the text stands alone.
        """
        return self._markdown(figure_stem)

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
            By default taken from the extension (see :data:`~judgestats.reporting.FORMATS`).
        embed_figures : bool, optional
            Markdown only: embed the figures as ``data:`` URIs (True) or write them as PNG files
            next to the document (False, the default). HTML always embeds them.

        Raises
        ------
        TypeError
            If ``path`` is not a str or path-like.
        ValueError
            If the format is unknown or cannot be told from the extension, the folder does
            not exist, or a file to write exists and is not a regular file (a folder, FIFO,
            device or symbolic link: it is never replaced; the message names it).
        OSError
            If a file cannot be written (its ``filename`` is the file that failed); nothing is
            left behind.
        """
        return save_document(self, path, format, embed_figures)

    def _repr_html_(self) -> str:
        """The report itself, without the page's head (for notebooks)."""
        return self._html_body()


@dataclass(frozen=True, eq=False)
class Report(ReportDocument):
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
    command, random_seed, version, created, environment
        As in :class:`ReportDocument`.
    """

    data: JudgeData
    prob: float
    crosscheck: CrossCheck
    estimate: Estimate | None

    @property
    def posterior(self) -> Any:
        """The posterior of the cross-check (:class:`judgestats.Posterior`).

        None where it could not be computed (the ``posterior_unavailable`` flag): the report
        then shows the intervals without the posterior's rows, density and judge figure.
        """
        return self.crosscheck.posterior

    def intervals_caption(self) -> str:
        """The caption of the cross-check table: its level and how the posterior was computed."""
        method = self.crosscheck.posterior_method
        how = "no posterior" if method is None else f"posterior by {method}"
        return f"judgestats cross-check ({fmt_percent(self.prob)} intervals; {how})"

    def figure_caption(self, name: str, *, group: bool = False) -> str:
        """The caption of figure ``name`` ("theta" or "judge"), as drawn for these data."""
        if name == "theta" and self.posterior is None:
            return NO_POSTERIOR_FIGURE
        return GROUP_FIGURE if group else FIGURES[name]

    @property
    def recommended(self) -> Any:
        """The cross-check's recommended interval, where it offers one (else None)."""
        return getattr(self.crosscheck, "recommended", None)

    # -- the content, as strings ----------------------------------------------------------------
    def input_rows(self) -> list[tuple[str, str]]:
        """(label, value) rows of the inputs, with the CLI's wording and rounding."""
        d = self.data
        rows = [
            ("test set", f"{d.k} of {d.n} judged correct (p-hat = {d.p:.4f})"),
            ("specificity q0", f"{d.k0}/{d.m0} = {d.q0:.4f}"),
            ("sensitivity q1", f"{d.k1}/{d.m1} = {d.q1:.4f}"),
            ("Youden's J", f"{d.youden:.4f}"),
            ("design", DESIGN_TEXT[d.design]),
        ]
        if self.source is not None:
            rows.append(("source file", self.source))
        return rows

    def recommended_label(self) -> str:
        """The recommended interval's display name (with its level where it is not the table's)."""
        rec = self.recommended
        label = str(getattr(rec, "label", getattr(rec, "method", "recommended interval")))
        if _rec_target(rec) == "items":  # the other rows estimate theta
            label = f"{label}, share of correct items"
        level = getattr(rec, "level", self.prob)
        return label if level == self.prob else f"{label} ({fmt_percent(level)})"

    def interval_values(self) -> tuple[list[tuple[str, float, float, float]], int | None]:
        """The table's rows as numbers (label, estimate, low, high), and the recommended row.

        The rows of the cross-check, then the recommended interval where it is none of them
        (the guaranteed interval, PPI++, the labels alone): the headline interval is always a
        row of the table. The index is that of the row the headline reports (None without one).
        """
        from judgestats.recommendation import ROW_LABELS

        rows = [
            (ROW_LABELS[key], float(value), float(low), float(high))
            for key, (value, low, high) in self.crosscheck.rows.items()
        ]
        rec = self.recommended
        if rec is None:
            return rows, None
        shown = tuple(fmt4(v) for v in (rec.estimate, rec.low, rec.high))
        for index, (_, *values) in enumerate(rows):  # the rows estimate theta, not the items
            if tuple(fmt4(v) for v in values) == shown and _rec_target(rec) != "items":
                return rows, index
        rows.append(
            (self.recommended_label(), float(rec.estimate), float(rec.low), float(rec.high))
        )
        return rows, len(rows) - 1

    def interval_rows(self) -> list[tuple[str, ...]]:
        """The cross-check table: method, estimate, low, high, width (four decimals).

        Its last row is the recommended interval where that is none of the cross-check's rows.
        """
        return [
            (label, *(fmt4(v) for v in (value, low, high, high - low)))
            for label, value, low, high in self.interval_values()[0]
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
        from judgestats.designs.shift import class_balance_test

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
        else:
            balance = test.brief()
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
        """theta, q0, q1, J: the calibration estimate, then the posterior summary (as the CLI).

        Without a posterior its columns read "n/a".
        """
        post, d = self.posterior, self.data
        observed = {"theta": float("nan"), "q0": d.q0, "q1": d.q1, "youden": d.youden}
        rows = []
        for var in VARIABLES:
            values: tuple[float, ...] = (float("nan"),) * 6
            if post is not None:
                eti, hdi = post.ci(self.prob, "eti", var), post.ci(self.prob, "hdi", var)
                values = (post.mean(var), float(post.quantile(0.5, var)), *eti, *hdi)
            rows.append(
                (
                    VARIABLE_LABELS[var],
                    "" if var == "theta" else fmt4(observed[var]),
                    *(fmt4(v) for v in values),
                )
            )
        return rows

    def check_text(self) -> str:
        """The posterior's checks, as ``judgestats posterior`` prints them (or why none)."""
        if self.posterior is None:
            return "none: the posterior could not be computed (see posterior_unavailable)"
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
                f"{method}, {fmt_percent(level)} interval{self._target_words(rec)}."
            )
            reason = getattr(rec, "reason", "")
            return head, ([("reason", reason)] if reason else []) + notes
        return (
            "The cross-check below compares the closed form with the posterior; its notes "
            "say what they found.",
            notes,
        )

    def _target_words(self, rec: Any) -> str:
        """The headline's words on the target for random-design data ("" for stratified).

        With a stratified calibration set the only target is the accuracy theta, which the
        report's headings name; with a random one the target is a choice, so the headline says
        which (:func:`judgestats.designs.labels_only.describe_target`).
        """
        from judgestats.designs.labels_only import describe_target

        if self.data.design != "random":
            return ""
        target = _rec_target(rec)
        return f" for {describe_target(target, self.data.n + self.data.m)} (target {target!r})"

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
        if post is None:
            computed = [("posterior", "not computed for these data (see posterior_unavailable)")]
        else:
            computed = [
                ("posterior", f"method {post.method}, {post.n_chains} x {post.n_draws} draws"),
                ("prior", post.prior.describe()),
            ]
        return [*self._provenance_rows(), *computed, *self._closing_rows()]

    @cached_property
    def figures(self) -> dict[str, bytes]:
        """PNG bytes of each figure in :data:`~judgestats.reporting.layout.FIGURES`.

        Without a posterior, the theta figure holds the intervals alone and there is no judge
        figure.
        """
        figures = {"theta": png(partial(draw_theta, self), theta_size(self))}
        if self.posterior is not None:
            figures["judge"] = png(partial(draw_judge, self), (7.5, 3.2))
        return figures

    def _html_body(self) -> str:
        return html.report_body(self)

    def _markdown(self, figure_stem: str | None) -> str:
        return markdown.report_text(self, figure_stem)

    def __repr__(self) -> str:
        return (
            f"Report(data={self.data!r}, prob={self.prob!r}, "
            f"flags={tuple(self.crosscheck.flags)!r})"
        )


@dataclass(frozen=True, eq=False)
class GroupedReport(ReportDocument):
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
        As in :class:`ReportDocument`.
    """

    table: GroupedCrossChecks
    sections: tuple[Report | None, ...]

    @property
    def prob(self) -> float:
        """The family-wise level of the table."""
        return self.table.confidence_level

    def group_label(self, index: int) -> str:
        """``column = value`` of group ``index`` (as in the errors and notes)."""
        row = self.table.rows[index]
        return ", ".join(f"{c} = {v}" for c, v in zip(self.table.by, row.key, strict=True))

    def section_title(self, index: int) -> str:
        """The heading of group ``index``'s section: ``Group <i>: column = value``."""
        return f"Group {index + 1}: {self.group_label(index)}"

    def no_crosscheck_text(self, index: int) -> str:
        """Why group ``index`` has no section: its counts and its flags, in one sentence."""
        row = self.table.rows[index]
        c = row.counts
        return (
            f"Counts k/n {c['k']}/{c['n']}, k0/m0 {c['k0']}/{c['m0']}, k1/m1 "
            f"{c['k1']}/{c['m1']}. No cross-check: " + "; ".join(row.messages.values()) + "."
        )

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
        groups = f"by {', '.join(t.by)}: {len(t.rows)}; correction {t.correction}: {t.statement}"
        rows = [*self._provenance_rows(), ("groups", groups)]
        post = next(
            (s.posterior for s in self.sections if s is not None and s.posterior is not None),
            None,
        )
        if post is not None:
            rows += [
                (
                    "posterior",
                    f"method {post.method}, {post.n_chains} x {post.n_draws} draws per group",
                ),
                ("prior", post.prior.describe()),
            ]
        return rows + self._closing_rows()

    @cached_property
    def figures(self) -> dict[str, bytes]:
        """PNG bytes of each group's theta figure, named ``group<i>_theta`` (i from 1)."""
        return {
            f"group{index}_theta": png(partial(draw_theta, section), theta_size(section))
            for index, section in enumerate(self.sections, start=1)
            if section is not None
        }

    def _html_body(self) -> str:
        return html.grouped_body(self)

    def _markdown(self, figure_stem: str | None) -> str:
        return markdown.grouped_text(self, figure_stem)

    def __repr__(self) -> str:
        return (
            f"GroupedReport(by={self.table.by!r}, groups={len(self.table.rows)}, "
            f"prob={self.prob!r}, correction={self.table.correction!r})"
        )
