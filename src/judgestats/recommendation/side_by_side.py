"""The cross-check: the closed form and the posterior side by side, with plain-language flags.

The two answers agree when the calibration set is large, the judge is good and the estimate is
away from 0 and 1; they part where the normal approximation behind the Lang-Reiczigel interval
(Lee et al., arXiv 2511.21140 v1, eqs. 5-7) is poor: small calibration arms, a weak judge
(Youden's J near 0, where theta = (p + q0 - 1) / J is a ratio with an uncertain denominator),
and estimates at the boundary, where the Rogan-Gladen estimate is clipped and the equal-tailed
credible interval excludes the boundary by construction.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats._validate import check_level, check_posterior_options
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning
from judgestats.frequentist import Estimate, estimate, naive_wald_ci
from judgestats.recommendation.cross_flags import CONFLICT_FLAGS, _density, _flags
from judgestats.recommendation.result import Recommendation
from judgestats.results import (
    FLAG_MESSAGES,
    ConfidenceInterval,
    IntervalResult,
    Result,
    format_report,
    register_flags,
)

if TYPE_CHECKING:  # pragma: no cover
    from typing import Unpack

    import pandas as pd
    from matplotlib.axes import Axes

    from judgestats._typing import PosteriorOptions, SeedLike
    from judgestats.bayes.binary_posterior import Posterior
    from judgestats.bayes.priors import Prior

__all__ = ["CrossCheck", "crosscheck"]


ROWS = ("naive", "rogan_gladen", "posterior_eti", "posterior_hdi")
#: Notes printed under the table (the rest stay in ``flags``).
MAX_NOTES = 3
#: Print order of the notes: data conflicts and sampler diagnostics first.
NOTE_ORDER = {
    "calibration_contradicts_prior": 0,
    "test_calibration_conflict": 0,
    "r_hat": 0,
    "low_ess": 0,
    "divergences": 0,
    "no_closed_form": 1,
    "posterior_unavailable": 1,
    "closed_form_undercovers": 2,
    "intervals_disagree": 2,
    "boundary": 3,
    "small_calibration": 3,
    "weak_judge": 3,
    "zero_width": 4,
}
#: What the stratified rule's reason adds where the posterior could not be computed.
NO_POSTERIOR_CLAUSE = (
    "the posterior could not be computed (see the posterior_unavailable note), so its "
    "intervals were no candidates"
)
ROW_LABELS = {
    "naive": "naive p-hat + Wald",
    "rogan_gladen": "Rogan-Gladen + Lang-Reiczigel",
    "posterior_eti": "posterior median + equal-tailed",
    "posterior_hdi": "posterior mode + HDI",
}

#: The cross-check's own flags (the others are the closed form's ``small_calibration`` and
#: ``zero_width`` and the posterior's, :data:`judgestats.bayes.diagnostics.FLAGS`). A
#: :class:`CrossCheck` keeps, in :attr:`CrossCheck.messages`, the sentence of each flag with the
#: numbers of its data; these are the general sentences of the catalogue.
FLAGS = register_flags(
    {
        "no_closed_form": "the closed form (Rogan-Gladen estimate, Lang-Reiczigel interval) has "
        "no answer for these data (a judge no better than chance on the calibration set, or one "
        "labelled class under the random design); only the posterior rows are reported",
        "posterior_unavailable": "the posterior could not be computed for these data (the exact "
        "engine's quadrature cannot hold it: counts that conflict beyond its windows, or theta "
        "spread over many orders of magnitude next to 0 or 1); the posterior rows are empty "
        "and the recommended interval is chosen without them (the closed form where the "
        "coverage table supports it, else the guaranteed interval)",
        "intervals_disagree": "the ends of the Lang-Reiczigel and equal-tailed intervals differ "
        "by more than the cross-check's tolerance; the note says why and which to trust",
        "boundary": "the Rogan-Gladen estimate is clipped to 0 or 1: p-hat lies outside the "
        "range [1 - q0-hat, q1-hat] that the calibration allows; the equal-tailed credible "
        "interval never contains that bound, the Lang-Reiczigel interval is truncated at it",
        "closed_form_undercovers": "in simulations of the regime nearest these data (coverage "
        "atlas) the 95% Lang-Reiczigel interval covered the true accuracy less than 93% of the "
        "time",
    }
)


@dataclass(frozen=True)
class CrossCheck(Result):
    """The fast default and the posterior of one dataset, side by side.

    Attributes
    ----------
    data : JudgeData
    confidence_level : float
        Level of the confidence intervals and probability of the credible intervals.
    tolerance : float
        Largest difference between the ends of the Lang-Reiczigel and equal-tailed intervals that
        still counts as agreement.
    rows : dict of str to IntervalResult
        Row key (see :data:`ROWS`; also each row's ``method``) -> the estimate with its interval;
        each unpacks as ``estimate, low, high``. NaN where a row has no answer.
    flags : tuple of str
        Keys of :data:`judgestats.results.FLAG_MESSAGES` that apply (the cross-check's own,
        :data:`FLAGS`, the closed form's and the posterior's).
    prob_weak_judge : float
        Posterior probability that J = q0 + q1 - 1 < 0.2 (from the posterior of J); NaN
        without a posterior.
    estimate : Estimate or None
        The closed-form result (None where no correction exists: see the ``no_closed_form``
        flag).
    posterior : Posterior or None
        The posterior result; None where it cannot be computed for these data (the
        ``posterior_unavailable`` flag says why; the posterior rows are then NaN).
    recommended : Recommendation
        The one interval to report and why (:mod:`judgestats.recommendation`): the narrowest
        interval whose simulated coverage in this regime is at least the level, else the guaranteed
        interval.
    target : {"population", "items"}
        What the recommended interval estimates (the rows estimate the accuracy of the process).
    messages : dict of str to str
        Flag key -> the sentence for these data (with their numbers, and which interval to
        trust); :attr:`flag_messages` and the printed notes use it.
    """

    title: ClassVar[str] = "judgestats cross-check"

    data: JudgeData
    confidence_level: float
    tolerance: float
    rows: dict[str, IntervalResult]
    flags: tuple[str, ...]
    prob_weak_judge: float
    estimate: Estimate | None
    posterior: Posterior | None
    recommended: Recommendation | None = None
    messages: dict[str, str] = field(default_factory=dict)
    target: str = "population"

    @property
    def flag_messages(self) -> list[str]:
        """The flags as sentences, with the numbers of these data (:attr:`messages`)."""
        return [self.messages.get(flag, FLAG_MESSAGES[flag]) for flag in self.flags]

    @property
    def posterior_method(self) -> str | None:
        """How the posterior was computed ("exact" or "nuts"); None where it could not be."""
        return None if self.posterior is None else self.posterior.method

    @property
    def max_difference(self) -> float:
        """Largest |difference| between Lang-Reiczigel and equal-tailed interval ends."""
        lr, eti = self.rows["rogan_gladen"], self.rows["posterior_eti"]
        return max(abs(lr.low - eti.low), abs(lr.high - eti.high))

    def _heading(self) -> str:
        how = "no posterior" if self.posterior is None else f"posterior by {self.posterior.method}"
        return f"judgestats cross-check ({fmt_percent(self.confidence_level)} intervals; {how})"

    def summary(self) -> pd.DataFrame:
        """One row per method: estimate, low, high, width; the flags are in ``.attrs["flags"]``."""
        import pandas as pd

        frame = pd.DataFrame.from_dict(
            {ROW_LABELS[key]: tuple(row) for key, row in self.rows.items()},
            orient="index",
            columns=["estimate", "low", "high"],
        )
        frame["width"] = frame["high"] - frame["low"]
        frame.index.name = "method"
        frame.attrs["flags"] = dict(zip(self.flags, self.flag_messages, strict=True))
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: inputs, level, every row, the flags and the weak-judge probability."""
        return to_json(
            {
                "inputs": self.data.to_dict(),
                "confidence_level": self.confidence_level,
                "posterior_method": self.posterior_method,
                "tolerance": self.tolerance,
                "rows": {
                    key: {"estimate": e, "low": lo, "high": hi, "width": hi - lo}
                    for key, (e, lo, hi) in self.rows.items()
                },
                "max_difference": self.max_difference,
                "prob_weak_judge": self.prob_weak_judge,
                "flags": dict(zip(self.flags, self.flag_messages, strict=True)),
                "recommended": None if self.recommended is None else self.recommended.to_dict(),
                "target": self.target,
            }
        )

    def notes(self, limit: int | None = MAX_NOTES) -> list[tuple[str, str]]:
        """The flags as (key, sentence), most important first, at most ``limit`` of them.

        Conflicts and sampler diagnostics come first, then the closed form's failures, then
        the rest.
        """
        ranked = sorted(
            zip(self.flags, self.flag_messages, strict=True),
            key=lambda item: NOTE_ORDER.get(item[0], 5),
        )
        return ranked if limit is None else ranked[:limit]

    def __str__(self) -> str:
        rows = {
            ROW_LABELS[key]: (value, low, high, high - low)
            for key, (value, low, high) in self.rows.items()
        }
        if self.recommended is not None and self.recommended.method == "guaranteed":
            rec = self.recommended
            rows[rec.label] = (rec.estimate, rec.low, rec.high, rec.width)
        notes = [f"note: {message}" for _, message in self.notes()]
        hidden = len(self.flags) - len(notes)
        if hidden > 0:
            notes.append(f"({hidden} more note{'s' * (hidden > 1)}: see .flags or --json)")
        if not self.flags:
            notes = [
                f"note: the closed form and the posterior agree (interval ends within "
                f"{self.tolerance:g})."
            ]
        report = format_report(self._heading(), self.data, rows, notes)
        if self.recommended is None:
            return report
        head, *rest = report.split("\n")
        return "\n".join([head, f"  {self.recommended}".replace("\n", "\n  "), *rest])

    def _repr_html_(self) -> str:
        """Compact HTML table for notebooks: the four rows and the notes (escaped)."""
        from judgestats._html import fmt4, result_block

        rows = [
            (ROW_LABELS[key], *(fmt4(v) for v in (value, low, high, high - low)))
            for key, (value, low, high) in self.rows.items()
        ]
        notes = self.notes(limit=None) or [
            (
                "",
                f"the closed form and the posterior agree (interval ends within "
                f"{self.tolerance:g}).",
            )
        ]
        if self.recommended is not None:
            notes.insert(
                0,
                (
                    "recommended",
                    f"{self.recommended.label} "
                    f"{fmt4(self.recommended.estimate)} ({fmt4(self.recommended.low)}, "
                    f"{fmt4(self.recommended.high)}): {self.recommended.reason}",
                ),
            )
        header = ("method", "estimate", "low", "high", "width")
        return result_block(self._heading(), header, rows, notes)

    def plot(self, ax: Axes | None = None) -> Axes:
        """Posterior density of theta with every interval drawn beneath it; returns the Axes.

        Without a posterior (``posterior_unavailable``) only the intervals are drawn.
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(7, 4))
        grid = np.linspace(0.0, 1.0, 1001)
        top = 1.0
        if self.posterior is not None:  # without one, only the intervals are drawn
            density = _density(self.posterior, grid)
            ax.plot(grid, density, color="black", lw=1.5, label="posterior density of theta")
            top = float(np.nanmax(density)) if np.isfinite(density).any() else 1.0
        colours = ("tab:gray", "tab:blue", "tab:orange", "tab:green")
        for i, (key, colour) in enumerate(zip(self.rows, colours, strict=True)):
            value, low, high = self.rows[key]
            y = -top * 0.08 * (i + 1)
            ax.plot([low, high], [y, y], color=colour, lw=3, label=ROW_LABELS[key])
            ax.plot([value], [y], "o", color=colour)
        ax.axhline(0.0, color="0.8", lw=0.8)
        ax.set_xlabel("true accuracy theta")
        ax.set_ylabel("density" if self.posterior is not None else "")
        ax.set_title(f"Cross-check, {fmt_percent(self.confidence_level)} intervals")
        ax.legend(fontsize="small", loc="upper right")
        return ax


def _rows(
    data: JudgeData, est: Estimate | None, post: Posterior | None, level: float
) -> dict[str, IntervalResult]:
    """The four rows of the table (NaN where a row has no answer, e.g. without a posterior)."""
    from judgestats.recommendation.cross_flags import _posterior_mode

    nan3 = (float("nan"),) * 3
    triples = {
        "naive": (data.p, *naive_wald_ci(data.p, data.n, confidence_level=level)),
        "rogan_gladen": (est.theta, *est.ci) if est is not None else nan3,
        "posterior_eti": nan3,
        "posterior_hdi": nan3,
    }
    if post is not None:
        triples["posterior_eti"] = (float(post.quantile(0.5)), *post.ci(prob=level, kind="eti"))
        triples["posterior_hdi"] = (_posterior_mode(post), *post.ci(prob=level, kind="hdi"))
    return {
        key: IntervalResult(
            float(value[0]),
            ConfidenceInterval(float(value[1]), float(value[2])),
            level,
            key,
            est.flags if key == "rogan_gladen" and est is not None else (),
        )
        for key, value in triples.items()
    }


def _posterior_rows(
    data: JudgeData, est: Estimate | None, level: float, compute: Callable[[], Posterior]
) -> tuple[Posterior | None, dict[str, IntervalResult], str | None]:
    """The posterior and the four rows; without a posterior, NaN rows and the reason.

    The exact engine refuses data whose posterior its quadrature cannot hold with a ValueError
    naming ``data`` (:mod:`judgestats.bayes.exact`); the cross-check then answers without the
    posterior. Any other error (an invalid option names that option) is passed on.
    """
    try:
        post = compute()
        return post, _rows(data, est, post, level), None
    except ValueError as error:
        text = str(error)
        if not text.startswith("`data`"):
            raise
    # the message names the data first: "`data` (JudgeData(...)): <why>"
    return None, _rows(data, est, None, level), re.sub(r"^`data` \(.*?\): ", "", text)


def _sampling_fails(data: JudgeData) -> str | None:
    """The class-balance clause when a random sample's labelled share contradicts the test set."""
    from judgestats.designs.shift import class_balance_test
    from judgestats.recommendation.random_rule import SAMPLING_ALPHA

    if data.design != "random" or data.one_class or not data.youden > 0:
        return None
    test = class_balance_test(data)
    if test.p_value >= SAMPLING_ALPHA:
        return None
    shown = min(1.0, max(0.0, test.test_accuracy))  # Rogan-Gladen, unclipped in the test
    return (
        f"the labelled items' share of correct items ({test.labelled_accuracy:.3f}) contradicts "
        f"the test set's ({shown:.3f}; class-balance test p = {test.p_value:.2g}), "
        "so the random-sampling assumption fails and the stratified rule applies"
    )


def _recommend(
    data: JudgeData,
    level: float,
    rows: dict[str, IntervalResult],
    post: Posterior | None,
    no_closed_form: str | None,
    target: str,
) -> Recommendation:
    """The recommendation: the random-design rule, or the stratified one (with its candidates).

    Without a posterior the stratified rule chooses among the closed form and the guaranteed
    interval only (the random-design rule never picks the posterior).
    """
    from judgestats.recommendation.stratified_rule import recommend

    failed = _sampling_fails(data)
    if data.design == "random" and failed is None:
        from judgestats.designs.random_candidates import count_candidates
        from judgestats.recommendation.random_rule import recommend_random

        # the candidates the rule can pick (the posterior and guaranteed_judge it only reports:
        # random_design_candidates gives them)
        counts = (data.k, data.n, data.k0, data.m0, data.k1, data.m1)
        found = count_candidates(*counts, target=target, level=level)
        return recommend_random(data, level, found, target=target)
    candidates = {
        key: (rows[row].estimate, rows[row].low, rows[row].high)
        for key, row in (
            ("lang_reiczigel", "rogan_gladen"),
            ("bayes_eti", "posterior_eti"),
            ("bayes_hdi", "posterior_hdi"),
        )
    }
    if failed is not None:  # the random-design posterior trusts the labelled share: drop it
        data = JudgeData(data.k, data.n, data.k0, data.m0, data.k1, data.m1)
    if failed is not None or post is None:
        candidates = {"lang_reiczigel": candidates["lang_reiczigel"]}
    result = recommend(
        data,
        level,
        candidates,
        conflicts=() if post is None else tuple(f for f in CONFLICT_FLAGS if f in post.flags),
        no_closed_form=no_closed_form,
        fallback_estimate=None if post is None else rows["posterior_eti"].estimate,
    )
    reason = result.reason
    if post is None:
        reason = f"{reason.rstrip('.')}; {NO_POSTERIOR_CLAUSE}."
    if failed is not None:
        reason = f"{failed}; {reason[0].lower()}{reason[1:]}"
    if reason == result.reason:
        return result
    return dataclasses.replace(result, reason=reason, target=target)


def _check_tolerance(tolerance: Any) -> float:
    if (
        isinstance(tolerance, bool)
        or not isinstance(tolerance, (int, float))
        or not (0.0 <= tolerance < 1.0)
    ):
        raise ValueError(f"`tolerance` ({tolerance!r}) must be a number in [0, 1), e.g. 0.02.")
    return float(tolerance)


def crosscheck(
    data: JudgeData,
    *,
    confidence_level: float = 0.95,
    prior: Prior | None = None,
    method: str = "exact",
    tolerance: float = 0.02,
    target: str = "population",
    random_seed: SeedLike = None,
    **posterior_options: Unpack[PosteriorOptions],
) -> CrossCheck:
    """Compare the closed form with the posterior for one dataset, and recommend one interval.

    Rows: naive p-hat with its Wald interval; Rogan-Gladen with the Lang-Reiczigel interval
    (Lee et al. v1 eqs. 4-7); posterior median with the equal-tailed credible interval; posterior
    mode with the highest-density interval (these rows estimate the accuracy of the process).
    Flags (stable keys; :attr:`CrossCheck.messages` holds each one's sentence for these data,
    which says which answer to trust): the Lang-Reiczigel and equal-tailed interval ends differ
    by more than ``tolerance`` (and which to prefer, unless the data conflict); a calibration
    arm under 30 items; a clipped Rogan-Gladen estimate; a zero-width closed-form interval; no
    closed form at all (a judge no better than chance on the calibration set, or a one-class
    random sample); and every flag of the posterior
    (:data:`judgestats.bayes.binary_posterior.DIAGNOSTIC_FLAGS`), with the posterior's message.

    The recommendation (:attr:`CrossCheck.recommended`) follows the stratified rule
    (:mod:`judgestats.recommendation.stratified_rule`) for stratified data and the random-design
    rule (:mod:`judgestats.recommendation.random_rule`) for random-design data, for ``target``.

    Where the exact posterior cannot be computed for the data (its quadrature refuses them
    with a ValueError naming ``data``: e.g. k = 0 of n = 1e9 with a perfect judge, or p-hat at
    0 or 1 against a judge at chance), the cross-check still answers: :attr:`CrossCheck.posterior`
    is None, the posterior rows are NaN, the ``posterior_unavailable`` flag says why, and the
    recommendation is chosen without the posterior (the Lang-Reiczigel interval where the
    coverage table supports it, else the guaranteed interval).

    Parameters
    ----------
    data : JudgeData
    confidence_level : float, default 0.95
        Level of the confidence intervals and probability of the credible intervals.
    prior : Prior, optional
        Prior of the posterior (uniform, better than chance, by default).
    method : {"exact", "nuts"}, default "exact"
        How the posterior is computed (see :func:`judgestats.posterior`).
    tolerance : float, default 0.02
        Agreement tolerance on the interval ends, in accuracy units (2 percentage points).
    target : {"population", "items"}, default "population"
        What the recommended interval estimates: the accuracy of the process that produced the
        items, or (random design only) the share of correct items among the n + m evaluated.
    random_seed : int or numpy.random.Generator, optional
        Seed of the posterior draws.
    **posterior_options
        Passed to :func:`judgestats.posterior` (e.g. ``draws``, ``chains``).

    Returns
    -------
    CrossCheck
        Flags are also issued as one :class:`~judgestats.JudgeStatsWarning`.

    Raises
    ------
    TypeError
        If ``data`` is not a JudgeData, or a keyword is neither one of crosscheck's nor one of
        the options of :func:`judgestats.posterior` (the message lists them).
    ValueError
        For an unknown ``target``, or ``target="items"`` with stratified data (the message
        names ``target``); a ``tolerance`` outside [0, 1).
    """
    from judgestats.bayes.binary_posterior import posterior as compute_posterior
    from judgestats.designs.labels_only import check_target

    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    check_posterior_options(posterior_options, "crosscheck")
    level = check_level(confidence_level)
    tolerance = _check_tolerance(tolerance)
    target = check_target(target, design=data.design)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # reported below as flags, once
        try:
            est: Estimate | None = estimate(data, confidence_level=level)
            no_closed_form = None
        except ValueError as error:  # no correction: judge no better than chance, or
            est, no_closed_form = None, str(error).rstrip(".")  # one class (the posterior is)
        if est is not None and "labels_only" in est.flags:
            est, no_closed_form = None, "the judge is no better than chance on the labelled items"
        post, rows, no_posterior = _posterior_rows(
            data,
            est,
            level,
            lambda: compute_posterior(
                data, prior=prior, method=method, random_seed=random_seed, **posterior_options
            ),
        )
        flags = _flags(data, est, no_closed_form, rows, tolerance, post, no_posterior)
        recommended = _recommend(data, level, rows, post, no_closed_form, target)
    if recommended.method == "lang_reiczigel":
        # the older, coarser Lang-Reiczigel atlas must not contradict the coverage table's pick
        flags.pop("closed_form_undercovers", None)
    result = CrossCheck(
        data=data,
        confidence_level=level,
        tolerance=tolerance,
        rows=rows,
        flags=tuple(flags),
        prob_weak_judge=float("nan") if post is None else float(post.diagnostics["prob_weak"]),
        estimate=est,
        posterior=post,
        recommended=recommended,
        messages=flags,
        target=target,
    )
    if flags:
        warnings.warn(
            "; ".join(f"{key}: {message}" for key, message in flags.items()),
            JudgeStatsWarning,
            stacklevel=2,
        )
    return result
