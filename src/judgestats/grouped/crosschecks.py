"""The cross-check of every group of an items frame, at a family-adjusted level.

:func:`crosscheck_items` does for each group what :func:`judgestats.crosscheck` does for one
dataset (the closed form and the posterior side by side), every interval at the level of the
correction (:mod:`judgestats.grouped.multiplicity`), in a :class:`GroupedCrossChecks` table. As
the posterior does not cluster, it refuses item ids that repeat within a group.
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
from judgestats._validate import check_design, check_level, check_posterior_options
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning
from judgestats.grouped._format import group_label, group_name
from judgestats.grouped._frames import check_by, item_arrays, judge_data, six_counts
from judgestats.grouped.multiplicity import check_correction, family_level
from judgestats.grouped.table import GroupedTable
from judgestats.results import FLAG_MESSAGES

if TYPE_CHECKING:  # pragma: no cover
    from typing import Unpack

    import pandas as pd
    from matplotlib.axes import Axes

    from judgestats._typing import PosteriorOptions, SeedLike
    from judgestats.bayes.priors import Prior
    from judgestats.recommendation import CrossCheck

__all__ = ["GroupCrossCheck", "GroupedCrossChecks", "crosscheck_items"]

#: Columns of the cross-check table (after the group and the counts): row key of
#: :attr:`judgestats.CrossCheck.rows` and position in its (estimate, low, high) triple.
_CROSSCHECK_COLUMNS = (
    ("RG", "rogan_gladen", 0),
    ("LR low", "rogan_gladen", 1),
    ("LR high", "rogan_gladen", 2),
    ("median", "posterior_eti", 0),
    ("ETI low", "posterior_eti", 1),
    ("ETI high", "posterior_eti", 2),
    ("mode", "posterior_hdi", 0),
    ("HDI low", "posterior_hdi", 1),
    ("HDI high", "posterior_hdi", 2),
)
_NAN3 = (math.nan, math.nan, math.nan)


@dataclass(frozen=True)
class GroupCrossCheck:
    """One group of a :class:`GroupedCrossChecks` table.

    ``counts`` are those of the group's :class:`~judgestats.JudgeData`; ``result`` the group's
    :class:`~judgestats.CrossCheck` at the table's per-group level, or None where the group has no
    data to cross-check (then every number is NaN and ``flags`` says why); ``flags`` holds the
    flag keys, ``messages`` maps each to its sentence (the cross-check's own notes, with their
    advice).
    """

    key: tuple[Any, ...]
    counts: dict[str, int]
    result: CrossCheck | None
    flags: tuple[str, ...]
    messages: dict[str, str] = field(default_factory=dict)

    def row(self, name: str) -> tuple[float, float, float]:
        """(estimate, low, high) of one cross-check row (:data:`judgestats.recommendation.ROWS`)."""
        if self.result is None:
            return _NAN3
        found = self.result.rows[name]
        return (found.estimate, found.low, found.high)

    @property
    def agree(self) -> bool | None:
        """Whether the Lang-Reiczigel and equal-tailed ends lie within the tolerance.

        None where there is no closed form or no posterior (or no cross-check) to compare.
        """
        if self.result is None or self.result.estimate is None or self.result.posterior is None:
            return None
        return bool(self.result.max_difference <= self.result.tolerance)


@dataclass(frozen=True)
class GroupedCrossChecks(GroupedTable[GroupCrossCheck]):
    """One cross-check per group (closed form and posterior), corrected across the groups.

    Attributes
    ----------
    by : tuple of str
        The grouping column(s).
    rows : tuple of GroupCrossCheck
        One per group, in sorted group order.
    confidence_level : float
        The family-wise level asked for (1 - alpha).
    interval_level : float
        The level of every interval of every group: ``1 - alpha / G`` for "holm" and
        "bonferroni", ``confidence_level`` for "none".
    correction : str
        "holm", "bonferroni" or "none".
    method : str
        How each posterior was computed ("exact" or "nuts").
    tolerance : float
        Agreement tolerance of each cross-check.
    design : str
        The calibration design.
    target : str
        What each group's recommended interval estimates: "population" (the accuracy of the
        process) or "items" (random design: the share of correct items among the group's items).
    source : str
        Where the items came from.
    flags : tuple of str
        The flag keys of every group, once each (a group's own are in ``rows[i].flags``).
    """

    title: ClassVar[str] = "judgestats cross-check by group"

    method: str = "exact"
    tolerance: float = 0.02
    design: str = "stratified"
    target: str = "population"
    source: str = field(default="`items`")
    flags: tuple[str, ...] = field(default=(), init=False)

    @property
    def legend(self) -> str:
        """What the columns of the printed table are."""
        return (
            f"RG, LR: Rogan-Gladen estimate and Lang-Reiczigel interval; median + ETI, mode "
            f"+ HDI: the posterior ({self.method}) with its equal-tailed and highest-density "
            f"intervals; agree: LR and ETI ends within {self.tolerance:g}"
        )

    @property
    def table_title(self) -> str:
        """The table's first line (without the source)."""
        g = len(self.rows)
        return (
            f"judgestats cross-check by {', '.join(self.by)} ({g} group{'s' * (g != 1)}, "
            f"{fmt_percent(self.confidence_level)} family-wise; posterior by {self.method})"
        )

    @property
    def heading(self) -> str:
        """The table's first line, as printed: :attr:`table_title` with the source."""
        return f"{self.table_title[:-1]}; {self.source})"

    def summary(self) -> pd.DataFrame:
        """A DataFrame with one row per group (index: the group key(s)).

        Columns: the six counts; ``<row>``, ``<row>_low``, ``<row>_high`` for each cross-check
        row (naive, rogan_gladen, posterior_eti, posterior_hdi); ``max_difference``,
        ``agree``, ``prob_weak_judge``, ``level`` and the flag keys.
        """
        return super().summary()

    def _recommended(self) -> list[tuple[str, str]]:
        """Each group's recommended interval (at the per-group level), in one line."""
        out = []
        for row in self.rows:
            rec = None if row.result is None else row.result.recommended
            if rec is not None:
                out.append(
                    (
                        group_label(row.key),
                        f"{rec.label} {rec.estimate:.4f} ({rec.low:.4f}, {rec.high:.4f}), "
                        f"{fmt_percent(rec.level)} interval{self._target_words}",
                    )
                )
        return out

    @property
    def _target_words(self) -> str:
        """The words on the target where the design leaves a choice of it (else "")."""
        return f" for the {self.target} target" if self.design == "random" else ""

    def _columns(self) -> list[str]:
        return [*(name for name, _, _ in _CROSSCHECK_COLUMNS), "agree"]

    def _cells(self, row: GroupCrossCheck, header: list[str]) -> list[str]:
        agree = "n/a" if row.agree is None else ("yes" if row.agree else "no")
        return [*(fmt4(row.row(name)[i]) for _, name, i in _CROSSCHECK_COLUMNS), agree]

    def _summary_record(self, row: GroupCrossCheck) -> dict[str, Any]:
        from judgestats.recommendation import ROWS

        record: dict[str, Any] = {}
        for name in ROWS:
            record |= dict(zip((name, f"{name}_low", f"{name}_high"), row.row(name), strict=True))
        return record | {
            "max_difference": _max_difference(row),
            "agree": row.agree,
            "prob_weak_judge": (math.nan if row.result is None else row.result.prob_weak_judge),
            "level": self.interval_level,
            "flags": ", ".join(row.flags),
        }

    def _group_dict(self, row: GroupCrossCheck) -> dict[str, Any]:
        from judgestats.recommendation import ROWS

        return {
            "rows": {
                name: dict(zip(("estimate", "low", "high"), row.row(name), strict=True))
                for name in ROWS
            },
            "max_difference": _max_difference(row),
            "agree": row.agree,
            "prob_weak_judge": None if row.result is None else row.result.prob_weak_judge,
            "flags": dict(row.messages),
            "recommended": (
                None
                if row.result is None or row.result.recommended is None
                else row.result.recommended.to_dict()
            ),
        }

    def _dict_head(self) -> dict[str, Any]:
        return {
            "method": "crosscheck by group",
            "posterior_method": self.method,
            "by": list(self.by),
            "source": self.source,
            "design": self.design,
            "target": self.target,
            "confidence_level": self.confidence_level,
            "interval_level": self.interval_level,
            "correction": self.correction,
            "alpha": self.alpha,
            "tolerance": self.tolerance,
            "statement": self.statement,
        }

    def _heading(self) -> str:
        return self.heading

    def _before_table(self) -> list[str]:
        return [f"  recommended ({label}): {text}" for label, text in self._recommended()]

    def _after_table(self) -> list[str]:
        return [self.statement, self.legend]

    def _html_title(self) -> str:
        return f"{self.table_title}: {self.statement}"

    def _html_notes(self) -> list[tuple[str, str]]:
        recommended = [(f"recommended ({label})", text) for label, text in self._recommended()]
        return [*recommended, ("", self.legend), *self._notes()]

    def plot(self, ax: Axes | None = None) -> Axes:
        """Forest plot: each group's Lang-Reiczigel and equal-tailed intervals; returns the Axes.

        Per group the Rogan-Gladen estimate with its interval (upper) and the posterior median
        with its equal-tailed interval (lower); a row without an answer is left out.
        """
        import matplotlib.pyplot as plt

        from judgestats.recommendation import ROW_LABELS

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.8 + 0.6 * max(len(self.rows), 1)))
        positions = list(range(len(self.rows)))[::-1]
        for offset, name, colour in (
            (0.15, "rogan_gladen", "tab:blue"),
            (-0.15, "posterior_eti", "tab:orange"),
        ):
            for index, (y, row) in enumerate(zip(positions, self.rows, strict=True)):
                estimate, low, high = row.row(name)
                label = ROW_LABELS[name] if index == 0 else None
                ax.plot([low, high], [y + offset] * 2, color=colour, lw=2.5, label=label)
                ax.plot([estimate], [y + offset], "o", color=colour, ms=4)
        ax.set_yticks(positions, [group_label(row.key) for row in self.rows])
        ax.set_ylim(-0.7, len(self.rows) - 0.3)
        ax.set_xlabel(f"accuracy, {fmt_percent(self.interval_level)} interval per group")
        ax.set_title(f"{self.title} ({self.statement})")
        ax.legend(fontsize="small")
        return ax


def _max_difference(row: GroupCrossCheck) -> float:
    if row.result is None or row.result.estimate is None:
        return math.nan
    return row.result.max_difference


def crosscheck_items(
    items: pd.DataFrame,
    *,
    by: str | Sequence[str],
    design: str = "stratified",
    confidence_level: float = 0.95,
    correction: str = "holm",
    prior: Prior | None = None,
    method: str = "exact",
    tolerance: float = 0.02,
    random_seed: SeedLike = None,
    target: str = "population",
    **posterior_options: Unpack[PosteriorOptions],
) -> GroupedCrossChecks:
    """The cross-check of every group of an items frame, at a family-adjusted level.

    Each group is cross-checked as :func:`judgestats.crosscheck` does for one dataset: the naive
    rate, the Rogan-Gladen estimate with the Lang-Reiczigel interval (Lee et al., "How to
    Correctly Report LLM-as-a-Judge Evaluations", arXiv 2511.21140 v1, eqs. 4-7), and the
    posterior's median with the equal-tailed interval and mode with the highest-density
    interval, with the cross-check's notes. Every interval of every group has the same level:
    Bonferroni's ``1 - alpha / G`` for G groups (so the G intervals of one method hold
    simultaneously with probability at least ``1 - alpha``), or ``confidence_level`` itself
    with ``correction="none"``.

    Parameters
    ----------
    items : pandas.DataFrame
        An items frame (a :mod:`judgestats.io` reader's result): columns ``id``, ``judge``,
        ``human`` and metadata. Rows with a human label calibrate the judge; the others are
        the test set. Within a group every item id must occur once (the posterior does not
        cluster repeated judging); ids may repeat across groups. Not modified.
    by : str or sequence of str
        Metadata column(s) to group by. Missing values form a group of their own.
    design : {"stratified", "random"}, default "stratified"
        How the labelled items were chosen (:class:`~judgestats.JudgeData`).
    confidence_level : float, default 0.95
        The family-wise level of the table (see ``correction``).
    correction : {"holm", "bonferroni", "none"}, default "holm"
        "holm" and "bonferroni" give simultaneous intervals, each at ``1 - alpha / G`` (Holm's
        step-down adjusts tests and has no interval counterpart, so its intervals are
        Bonferroni's, as in :func:`estimate_items`); "none" gives marginal intervals.
    prior : Prior, optional
        Prior of every group's posterior (uniform, judge better than chance, by default).
    method : {"exact", "nuts"}, default "exact"
        How each posterior is computed (:func:`judgestats.posterior`).
    tolerance : float, default 0.02
        Agreement tolerance of each cross-check (:func:`judgestats.crosscheck`).
    random_seed : int or numpy.random.Generator, optional
        Seed of the posterior draws; each group's cross-check receives it as given (an int
        seeds every group alike, so a group's row equals ``judgestats.crosscheck`` of that group
        with the same seed).
    target : {"population", "items"}, default "population"
        What each group's recommended interval estimates (:func:`judgestats.crosscheck`);
        ``"items"`` (the share of correct items among the group's items) needs
        ``design="random"``.
    **posterior_options
        Passed to :func:`judgestats.posterior` (e.g. ``draws``, ``chains``, ``progressbar``).

    Returns
    -------
    GroupedCrossChecks
        A group whose counts admit no cross-check (a stratified group missing a labelled class,
        no labelled items, or no test items) gets NaN and a flag; a group whose judge is no
        better than chance gets the posterior rows and the cross-check's ``no_closed_form``
        note. Flags are not warned about; they are in the table.

    Raises
    ------
    TypeError
        If ``items`` is not a data frame, ``by`` or ``correction`` has a wrong type, or a
        keyword is neither one of crosscheck_items's nor an option of :func:`judgestats.posterior`.
    ValueError
        Naming the source: missing columns, rows without a judge verdict, no labelled or no
        test rows at all, an item id repeated within a group, an unknown ``by`` column, an
        unknown ``correction``, a level outside (0, 1), an invalid posterior option, or an
        unknown ``target`` (or ``"items"`` with ``design="stratified"``).

    Examples
    --------
    >>> import judgestats as jc, judgestats.io as jio  # doctest: +SKIP
    >>> items = jio.read_inspect("run.eval")  # doctest: +SKIP
    >>> jc.crosscheck_items(items[items["epoch"] == 1], by="model")  # doctest: +SKIP
    """
    from judgestats.designs.labels_only import check_target

    check_posterior_options(posterior_options, "crosscheck_items")
    source = items_source(items)
    design = check_design(design)
    target = check_target(target, design=design)
    level = check_level(confidence_level)
    correction = check_correction(correction)
    columns = check_by(by, items, source)
    codes, judge, human = item_arrays(items, source)
    judge_data(six_counts(judge, human), design, source)  # whole-frame checks, as estimate_items
    groups = items.groupby(list(columns), sort=True, dropna=False).indices
    _check_unique_ids(groups, codes, columns, source, "epoch" in items.columns)
    interval_level = family_level(level, correction, len(groups))
    options: dict[str, Any] = {"prior": prior, "method": method, "tolerance": tolerance}
    options |= {"target": target, "random_seed": random_seed, **posterior_options}
    rows = []
    for key, positions in groups.items():
        key = tuple(to_json(k) for k in (key if isinstance(key, tuple) else (key,)))
        rows.append(
            _crosscheck_row(
                key,
                six_counts(judge[positions], human[positions]),
                design=design,
                level=interval_level,
                options=options,
            )
        )
    computed = (None if row.result is None else row.result.posterior_method for row in rows)
    found = next((name for name in computed if name is not None), None)
    return GroupedCrossChecks(
        by=columns,
        rows=tuple(rows),
        confidence_level=level,
        interval_level=interval_level,
        correction=correction,
        method=method if found is None else found,
        tolerance=float(tolerance),
        design=design,
        target=target,
        source=source,
    )


def _check_unique_ids(
    groups: dict[Any, np.ndarray],
    codes: np.ndarray,
    by: tuple[str, ...],
    source: str,
    has_epoch: bool,
) -> None:
    """Refuse item ids repeated within a group: the posterior counts each row as an item."""
    for key, positions in groups.items():
        group_codes = codes[positions]
        counts = np.unique(group_codes, return_counts=True)[1]
        if (counts > 1).any():
            key = key if isinstance(key, tuple) else (key,)
            label = group_name(by, tuple(to_json(k) for k in key))
            select = (
                "one epoch, e.g. items[items['epoch'] == 1] (--epoch 1 on the command line)"
                if has_epoch
                else "one row per item, e.g. items.drop_duplicates('id')"
            )
            raise ValueError(
                f"{source}: {int((counts > 1).sum())} item id(s) occur more than once within "
                f"the group {label} (items judged several times). The cross-check's posterior "
                f"does not cluster repeated judging: select {select}, or use "
                "judgestats.estimate_items (`judgestats estimate --by ...`), which clusters the "
                "rows by item id."
            )


def _crosscheck_row(
    key: tuple[Any, ...],
    counts: dict[str, int],
    *,
    design: str,
    level: float,
    options: dict[str, Any],
) -> GroupCrossCheck:
    """One group's cross-check, or NaN with a flag where its counts admit none."""
    from judgestats.recommendation import crosscheck

    reason = None
    if counts["n"] == 0:
        reason = "no_test_items"
    elif counts["m0"] + counts["m1"] == 0 or (
        design == "stratified" and min(counts["m0"], counts["m1"]) == 0
    ):
        reason = "missing_class"
    if reason is not None:
        return GroupCrossCheck(key, counts, None, (reason,), {reason: FLAG_MESSAGES[reason]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # the flags go into the row
        result = crosscheck(JudgeData(**counts, design=design), confidence_level=level, **options)
    messages = dict(zip(result.flags, result.flag_messages, strict=True))
    return GroupCrossCheck(key, counts, result, result.flags, messages)
