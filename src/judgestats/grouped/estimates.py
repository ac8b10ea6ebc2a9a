"""One closed-form estimate per group of an items frame, with a multiplicity correction.

:func:`estimate_items` is the closed form of :func:`judgestats.estimate` (Rogan-Gladen estimate,
Lang-Reiczigel interval; Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations",
arXiv 2511.21140 v1, eqs. 4-7) taken straight from the items frame every :mod:`judgestats.io`
reader returns: clustered by item id where ids repeat (:mod:`judgestats.grouped.clustered`), and
with ``by`` one row per group in a :class:`GroupedEstimates` table, corrected across the groups
(:mod:`judgestats.grouped.multiplicity`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._html import fmt4, fmt_percent
from judgestats._json import to_json
from judgestats._label_rows import items_source
from judgestats._validate import check_design, check_level
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning
from judgestats.frequentist import Estimate, estimate, lang_reiczigel_p_value
from judgestats.grouped._format import fmt_p, group_label, group_name
from judgestats.grouped._frames import check_by, check_null, item_arrays, six_counts
from judgestats.grouped.clustered import ClusteredEstimate, _clustered_estimate
from judgestats.grouped.multiplicity import adjust_p_values, check_correction, family_level
from judgestats.grouped.table import GroupedTable
from judgestats.results import FLAG_MESSAGES, ConfidenceInterval, forest_plot

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["GroupRow", "GroupedEstimates", "estimate_items"]


def estimate_items(
    items: pd.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    design: str = "stratified",
    confidence_level: float = 0.95,
    correction: str = "holm",
    null: float | None = None,
) -> Estimate | ClusteredEstimate | GroupedEstimates:
    """The closed-form estimate from an items frame: clustered by item id, optionally grouped.

    Parameters
    ----------
    items : pandas.DataFrame
        An items frame (a :mod:`judgestats.io` reader's result): columns ``id``, ``judge``,
        ``human`` and metadata such as ``epoch``, ``model``, ``task``. Rows with a human label
        calibrate the judge, the others are the test set (as in
        :meth:`~judgestats.JudgeData.from_items`). Not modified.
    by : str or sequence of str, optional
        Metadata column(s) to group by: one estimate per group, in a
        :class:`GroupedEstimates` table. Missing values form a group of their own.
    design : {"stratified", "random"}, default "stratified"
        How the labelled items were chosen (:class:`~judgestats.JudgeData`).
    confidence_level : float, default 0.95
        Level of the interval; with ``by``, the family-wise level of the table (see
        ``correction``).
    correction : {"holm", "bonferroni", "none"}, default "holm"
        With ``by``: multiplicity correction across the G groups. "holm" and "bonferroni" give
        simultaneous intervals (Bonferroni: each at ``1 - alpha / G``; Holm's step-down has no
        simple interval counterpart, so its intervals are Bonferroni's) and Holm- or
        Bonferroni-adjusted p-values; "none" gives marginal intervals and raw p-values.
    null : float in [0, 1], optional
        With ``by``: the accuracy theta0 of the null hypothesis ``theta_g = theta0`` tested in
        every group (:func:`lang_reiczigel_p_value`), with a ``reject`` column at
        ``alpha = 1 - confidence_level``.

    Returns
    -------
    Estimate or ClusteredEstimate or GroupedEstimates
        Without ``by``: exactly ``judgestats.estimate(JudgeData.from_items(items))`` when no id
        repeats; a :class:`ClusteredEstimate` (flag ``clustered``) when ids repeat. With
        ``by``: a :class:`GroupedEstimates`, each group estimated as here.

    Raises
    ------
    TypeError
        If ``items`` is not a data frame, ``by``, ``correction`` or ``null`` has a wrong type.
    ValueError
        Naming the source: missing columns, rows without a judge verdict, no labelled or no test
        rows, a class missing from a stratified calibration set, a judge no better than chance
        (without ``by``; a group gets NaN and a flag instead); an unknown ``by`` column, an
        unknown ``correction``, ``null`` outside [0, 1], a level outside (0, 1), ``null``
        without ``by``.

    Examples
    --------
    >>> import judgestats as jc, judgestats.io as jio  # doctest: +SKIP
    >>> items = jio.read_inspect("run.eval")  # doctest: +SKIP
    >>> jc.estimate_items(items, by="model", null=0.5)  # doctest: +SKIP
    """
    source = items_source(items)
    design = check_design(design)
    level = check_level(confidence_level)
    correction = check_correction(correction)
    null = check_null(null)
    if by is None:
        if null is not None:
            raise ValueError(
                f"`null` ({null!r}) tests one hypothesis per group; give `by` as "
                "well, or read the interval of the single estimate."
            )
        return _estimate_frame(items, source=source, design=design, level=level)
    columns = check_by(by, items, source)
    return _grouped(
        items, columns, source=source, design=design, level=level, correction=correction, null=null
    )


def _estimate_frame(items: Any, *, source: str, design: str, level: float) -> Estimate:
    codes, judge, human = item_arrays(items, source)
    if codes.max() + 1 == codes.size:  # no id repeats: the plain closed form, unchanged
        data = JudgeData.from_items(items, design=design)
        return estimate(data, confidence_level=level)
    result = _clustered_estimate(codes, judge, human, design=design, level=level, source=source)
    warnings.warn("; ".join(result.flag_messages) + ".", JudgeStatsWarning, stacklevel=3)
    return result


@dataclass(frozen=True)
class GroupRow:
    """One group of a :class:`GroupedEstimates` table.

    ``counts`` are those of :class:`~judgestats.JudgeData` (rows, i.e. judgments); ``items`` the
    distinct ids; ``result`` the group's :class:`~judgestats.Estimate` (a
    :class:`ClusteredEstimate` where ids repeat), None where the group has no estimate
    (``theta``, ``low``, ``high`` NaN and a flag saying why).
    """

    key: tuple[Any, ...]
    counts: dict[str, int]
    items: int
    result: Estimate | None
    p_value: float = math.nan
    p_adjusted: float = math.nan
    reject: bool | None = None
    flags: tuple[str, ...] = ()

    @property
    def theta(self) -> float:
        """The Rogan-Gladen estimate (NaN without an estimate)."""
        return math.nan if self.result is None else self.result.theta

    @property
    def ci(self) -> ConfidenceInterval:
        """The group's interval at the table's per-group level (NaN without an estimate)."""
        return ConfidenceInterval(math.nan, math.nan) if self.result is None else self.result.ci

    @property
    def design_effects(self) -> tuple[float, float, float]:
        """Design effects of p, q0, q1 (1 where no id repeats; NaN without an estimate)."""
        if isinstance(self.result, ClusteredEstimate):
            return self.result.design_effects
        return (math.nan,) * 3 if self.result is None else (1.0, 1.0, 1.0)

    @property
    def messages(self) -> dict[str, str]:
        """Each flag's sentence (``clustered`` names the group's design effects)."""
        return {flag: _flag_message(self, flag) for flag in self.flags}


def _flag_message(row: GroupRow, flag: str) -> str:
    if isinstance(row.result, ClusteredEstimate) and flag == "clustered":
        return row.result.flag_messages[row.result.flags.index(flag)]
    return FLAG_MESSAGES[flag]


@dataclass(frozen=True)
class GroupedEstimates(GroupedTable[GroupRow]):
    """One closed-form estimate per group, with a multiplicity correction across the groups.

    Attributes
    ----------
    by : tuple of str
        The grouping column(s).
    rows : tuple of GroupRow
        One per group, in sorted group order.
    confidence_level : float
        The family-wise level asked for (1 - alpha).
    interval_level : float
        The level of each group's interval: ``1 - alpha / G`` for "holm" and "bonferroni",
        ``confidence_level`` for "none".
    correction : str
        "holm", "bonferroni" or "none".
    null : float or None
        theta0 of the tests, if any.
    design : str
        The calibration design.
    source : str
        Where the items came from.
    flags : tuple of str
        The flag keys of every group, once each (a group's own are in ``rows[i].flags``).
    """

    title: ClassVar[str] = "judgestats estimate by group"
    note_word: ClassVar[str] = "warning"

    null: float | None = None
    design: str = "stratified"
    source: str = field(default="`items`")
    flags: tuple[str, ...] = field(default=(), init=False)

    @property
    def statement(self) -> str:
        """The correction in words, as printed under the table."""
        text = super().statement
        if self.null is not None:
            how = {
                "holm": "Holm-adjusted",
                "bonferroni": "Bonferroni-adjusted",
                "none": "unadjusted",
            }[self.correction]
            text += (
                f"; p-values of H0: theta = {self.null:g} {how}, reject at alpha = {self.alpha:g}"
            )
        return text

    def _columns(self) -> list[str]:
        columns = ["estimate", "low", "high"]
        if any(isinstance(row.result, ClusteredEstimate) for row in self.rows):
            columns.append("items")
        if self.null is not None:
            columns += ["p", "p adj", "reject"]
        return columns

    def _cells(self, row: GroupRow, header: list[str]) -> list[str]:
        cells = [fmt4(v) for v in (row.theta, *row.ci)]
        if "items" in header:
            cells.append(str(row.items))
        if self.null is not None:
            cells += [
                fmt_p(row.p_value),
                fmt_p(row.p_adjusted),
                "" if row.reject is None else ("yes" if row.reject else "no"),
            ]
        return cells

    def _tests(self, row: GroupRow) -> dict[str, Any]:
        if self.null is None:
            return {}
        return {"p_value": row.p_value, "p_adjusted": row.p_adjusted, "reject": row.reject}

    def _summary_record(self, row: GroupRow) -> dict[str, Any]:
        record: dict[str, Any] = {
            "items": row.items,
            "estimate": row.theta,
            "low": row.ci.low,
            "high": row.ci.high,
            "level": self.interval_level,
        }
        record |= dict(zip(("deff_p", "deff_q0", "deff_q1"), row.design_effects, strict=True))
        return record | self._tests(row) | {"flags": ", ".join(row.flags)}

    def _group_dict(self, row: GroupRow) -> dict[str, Any]:
        entry = {
            "items": row.items,
            "estimate": row.theta,
            "low": row.ci.low,
            "high": row.ci.high,
            "design_effects": dict(zip(("p", "q0", "q1"), row.design_effects, strict=True)),
            "flags": row.messages,
        }
        return entry | self._tests(row)

    def _dict_head(self) -> dict[str, Any]:
        return {
            "method": "rogan_gladen+lang_reiczigel by group",
            "by": list(self.by),
            "source": self.source,
            "design": self.design,
            "confidence_level": self.confidence_level,
            "interval_level": self.interval_level,
            "correction": self.correction,
            "null": self.null,
            "alpha": self.alpha,
            "statement": self.statement,
        }

    def _heading(self) -> str:
        g = len(self.rows)
        return (
            f"judgestats estimate by {', '.join(self.by)} ({g} group{'s' * (g != 1)}, "
            f"{fmt_percent(self.confidence_level)} family-wise; {self.source})"
        )

    def _html_title(self) -> str:
        return f"judgestats estimate by {', '.join(self.by)}: {self.statement}"

    def plot(self, ax: Axes | None = None) -> Axes:
        """Forest plot: each group's estimate with its (corrected) interval; returns the Axes.

        A group without an estimate shows its label only; ``null``, if given, is a dashed line.
        """
        import pandas as pd

        frame = pd.DataFrame(
            [(row.theta, row.ci.low, row.ci.high) for row in self.rows],
            index=[group_label(row.key) for row in self.rows],
            columns=["estimate", "low", "high"],
        )
        ax = forest_plot(frame, ax=ax, title=f"{self.title} ({self.statement})")
        ax.set_xlabel(f"accuracy, {fmt_percent(self.interval_level)} interval per group")
        if self.null is not None:
            ax.axvline(self.null, color="0.5", linestyle="--", lw=1)
        return ax


def _grouped(
    items: Any,
    by: tuple[str, ...],
    *,
    source: str,
    design: str,
    level: float,
    correction: str,
    null: float | None,
) -> GroupedEstimates:
    codes, judge, human = item_arrays(items, source)  # whole-frame checks raise here
    groups = items.groupby(list(by), sort=True, dropna=False).indices
    interval_level = family_level(level, correction, len(groups))
    rows = []
    for key, positions in groups.items():
        key = tuple(to_json(k) for k in (key if isinstance(key, tuple) else (key,)))
        rows.append(
            _group_row(
                key,
                codes[positions],
                judge[positions],
                human[positions],
                design=design,
                level=interval_level,
                source=f"{source} ({group_name(by, key)})",
            )
        )
    if null is not None:
        rows = _with_tests(rows, null, correction, level)
    return GroupedEstimates(
        by=by,
        rows=tuple(rows),
        confidence_level=level,
        interval_level=interval_level,
        correction=correction,
        null=null,
        design=design,
        source=source,
    )


def _group_row(
    key: tuple[Any, ...],
    codes: np.ndarray,
    judge: np.ndarray,
    human: np.ndarray,
    *,
    design: str,
    level: float,
    source: str,
) -> GroupRow:
    """One group's estimate, or NaN with a flag where the group cannot be estimated."""
    counts = six_counts(judge, human)
    codes = np.unique(codes, return_inverse=True)[1].reshape(-1)
    items = int(codes.max()) + 1
    reason = _not_estimable(counts)
    if reason is not None:
        return GroupRow(key, counts, items, None, flags=(reason,))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)  # flags go into the row
            if items == codes.size:
                result = estimate(JudgeData(**counts, design=design), confidence_level=level)
            else:
                result = _clustered_estimate(
                    codes, judge, human, design=design, level=level, source=source
                )
    except ValueError:  # the Laplace-adjusted judge is no better than chance (eq. 6)
        return GroupRow(key, counts, items, None, flags=("no_better_than_chance",))
    return GroupRow(key, counts, items, result, flags=result.flags)


def _not_estimable(counts: dict[str, int]) -> str | None:
    """The flag of a group without an estimate (checked before estimating), else None."""
    if counts["m0"] == 0 or counts["m1"] == 0:
        return "missing_class"
    if counts["n"] == 0:
        return "no_test_items"
    if counts["k0"] / counts["m0"] + counts["k1"] / counts["m1"] - 1.0 <= 0.0:
        return "no_better_than_chance"
    return None


def _with_tests(rows: list[GroupRow], null: float, correction: str, level: float) -> list[GroupRow]:
    """Rows with raw and adjusted p-values of H0: theta = null, and the decision at alpha."""
    raw = np.full(len(rows), np.nan)
    for index, row in enumerate(rows):
        if row.result is not None:
            d = row.result.data
            n, m0, m1 = (
                row.result.effective_sizes
                if isinstance(row.result, ClusteredEstimate)
                else (d.n, d.m0, d.m1)
            )
            raw[index] = float(lang_reiczigel_p_value(d.p, d.q0, d.q1, n, m0, m1, null))
    adjusted = adjust_p_values(raw, correction)
    alpha = 1.0 - level
    return [
        GroupRow(
            row.key,
            row.counts,
            row.items,
            row.result,
            p_value=float(p),
            p_adjusted=float(a),
            reject=None if math.isnan(a) else bool(a <= alpha),
            flags=row.flags,
        )
        for row, p, a in zip(rows, raw, adjusted, strict=True)
    ]
