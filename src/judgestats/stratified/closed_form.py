r"""The stratified closed form: per-stratum Rogan-Gladen and Lang-Reiczigel, combined.

Equation numbers refer to Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations",
arXiv 2511.21140 v1 ("Lee et al. v1"). With test shares :math:`w_s = n_s / N`:

* point estimate: :math:`\hat\theta = \sum_s w_s \hat\theta_s`, each :math:`\hat\theta_s`
  stratum s's Rogan-Gladen estimate (eq. 4) truncated to [0, 1] as :func:`judgestats.estimate`
  reports it (flag ``clipped`` when a stratum was truncated; :attr:`StratifiedEstimate.theta_raw`
  keeps the sum of the untruncated estimates);
* interval, ``interval="mover"`` (the default): every stratum's Lang-Reiczigel limits
  :math:`[l_s, u_s] = c_s \mp z\, se_s` (eqs. 5-7) with the Agresti-Coull adjustment in the
  calibration arms, the one eq. (6) gives the test rate, in place of the Laplace one:

  .. math:: \tilde q_{j,s} = \frac{k_{j,s} + z^2/2}{m_{j,s} + z^2}, \qquad
      \tilde m_{j,s} = m_{j,s} + z^2 \quad (j = 0, 1),

  :math:`\tilde p_s, \tilde n_s` as in eq. (6), and :math:`c_s = \tilde\theta_s +
  d\tilde\theta_s`, :math:`se_s` eqs. (7) and (5) at these values (the stratum's judge must have
  :math:`\tilde q_{0,s} + \tilde q_{1,s} > 1`, else ValueError). The Laplace-adjusted limits of a
  weak stratum whose accuracy is near 0 or 1 miss on one side only, about 5.5% instead of
  2.5% (none on the other), and MOVER passes that one-sided miss to the sum: the combined
  interval covered 0.940-0.947 with such a stratum holding half the test items (issue 25);
  with the Agresti-Coull arms (Agresti and Coull, "Approximate is better than 'exact' for
  interval estimation of binomial proportions", The American Statistician 52, 1998) it covers
  0.949-0.983 there, at 1-7% more width (up to 20% more elsewhere with 10 labels per arm,
  where it was already conservative; ``benchmarks/stratified_coverage.py``).
  The limits are *not* truncated to [0, 1] (cutting them at 0 or 1 before combining drops the
  uncertainty that a stratum near the boundary passes to the sum: about 0.90); only the
  combined interval is. They are combined by the method of variance
  estimates recovery (MOVER; Zou and Donner, "Construction of confidence limits about effect
  measures: a general approach", Statistics in Medicine 27, 2008), which recovers each
  stratum's variance separately below and above its estimate from its interval:

  .. math:: L = \sum_s w_s t_s - \sqrt{\textstyle\sum_s w_s^2 (t_s - l_s)^2}, \qquad
      U = \sum_s w_s t_s + \sqrt{\textstyle\sum_s w_s^2 (u_s - t_s)^2},

  with :math:`t_s` the stratum's estimate moved into its interval (it lies there except in
  extreme cases), truncated to [0, 1]. Each stratum's interval keeps its asymmetry (a stratum
  near 0 or 1, a weak judge's interval truncated at 0 or 1), which a symmetric sum of variances
  loses; ``benchmarks/stratified_coverage.py`` measures both;
* interval, ``interval="summed"``: the symmetric form, every stratum's eq. (7) centre
  :math:`\tilde\theta_s + d\tilde\theta_s` and eq. (5) standard error :math:`\tilde{se}_s`
  summed, :math:`\sum_s w_s (\tilde\theta_s + d\tilde\theta_s) \mp z
  \sqrt{\sum_s w_s^2 \tilde{se}_s^2}`, truncated to [0, 1]. It undercovers when strata have
  small calibration arms and judges of unequal quality.

With one stratum the estimate, the stratum's row and the summed interval are exactly
:func:`judgestats.estimate`'s estimate and Lang-Reiczigel interval (the weight is 1.0 and the
arithmetic reduces to it); the MOVER interval is that stratum's Agresti-Coull-adjusted
interval above, truncated to [0, 1].

The result also carries every stratum's own :func:`judgestats.estimate` row, the pooled
(unstratified) correction's row, and the pooled-bias diagnostic of
:mod:`judgestats.stratified.diagnostic`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats._validate import check_choice, check_level, no_correction_message
from judgestats.exceptions import JudgeStatsWarning
from judgestats.frequentist import (
    SMALL_CALIBRATION,
    estimate,
    lang_reiczigel_parts,
    z_quantile,
)
from judgestats.results import (
    FLAG_MESSAGES,
    ConfidenceInterval,
    IntervalResult,
    Result,
    forest_plot,
)
from judgestats.stratified.data import StratifiedData
from judgestats.stratified.diagnostic import (
    PooledBias,
    check_data,
    no_overall_message,
    pooled_bias,
    stratum_thetas,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["INTERVALS", "METHODS", "StratifiedEstimate", "stratified_estimate"]

#: The ways :func:`stratified_estimate` combines the strata's intervals (module docstring).
INTERVALS = ("mover", "summed")
#: The ``method`` of the overall row, by interval.
METHODS = {
    "mover": "stratified rogan_gladen+lang_reiczigel+mover",
    "summed": "stratified rogan_gladen+lang_reiczigel+summed",
}
#: Row labels of the overall and pooled rows in tables.
OVERALL_LABEL = "overall (stratified)"
POOLED_LABEL = "pooled (unstratified)"


def stratified_estimate(
    data: StratifiedData, *, confidence_level: float = 0.95, interval: str = "mover"
) -> StratifiedEstimate:
    """The stratified closed form: overall accuracy sum_s w_s theta_s with its interval.

    See the module docstring for the formulas. Also computes each stratum's own
    :func:`judgestats.estimate`, the pooled correction (all counts summed) and the pooled-bias
    diagnostic (:func:`judgestats.stratified.pooled_bias`). Flags are also issued as one
    :class:`~judgestats.JudgeStatsWarning`, with the size of the pooled bias when it is flagged.

    Parameters
    ----------
    data : StratifiedData
        The six counts per stratum.
    confidence_level : float, default 0.95
        Level of every interval, strictly inside (0, 1).
    interval : {"mover", "summed"}, default "mover"
        How the strata's Lang-Reiczigel intervals are combined (module docstring): MOVER keeps
        each stratum's asymmetry; "summed" adds centres and variances symmetrically.

    Returns
    -------
    StratifiedEstimate

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`StratifiedData`.
    ValueError
        If the level or ``interval`` is invalid, or a stratum's judge is no better than
        chance (J_s <= 0, or its Laplace-adjusted version of eq. 6, or, for MOVER, its
        Agresti-Coull-adjusted one; they differ only with unequal arms): that stratum, hence
        the overall accuracy, has no correction; the message names the stratum.

    Examples
    --------
    >>> from judgestats.stratified import StratifiedData, stratified_estimate
    >>> data = StratifiedData(
    ...     strata=("easy", "hard"), k=[688, 92], n=[800, 200],
    ...     k0=[95, 70], m0=[100, 100], k1=[95, 70], m1=[100, 100],
    ... )
    >>> result = stratified_estimate(data)
    >>> round(result.theta, 4), result.flags
    (0.8, ('pooled_biased',))
    """
    check_data(data)
    level = check_level(confidence_level)
    interval = check_choice(interval, "interval", INTERVALS)
    z = z_quantile(level)
    theta_s = stratum_thetas(data)
    rows = _stratum_rows(data, level)
    theta_raw = float(np.sum(data.weights * theta_s))
    theta = float(np.sum(data.weights * np.array([row.estimate for row in rows])))
    centre, se = summed_interval(data, z)
    ci = _combined(data, rows, centre, se, z, interval)
    diagnostic = pooled_bias(data, confidence_level=level)
    flags = _flags(data, theta, theta_raw, ci, diagnostic)
    result = StratifiedEstimate(
        data=data,
        confidence_level=level,
        theta=theta,
        theta_raw=theta_raw,
        ci=ci,
        se=se,
        by_stratum=rows,
        pooled=_pooled_row(data, level),
        diagnostic=diagnostic,
        flags=flags,
        method=METHODS[interval],
    )
    if flags:
        text = "; ".join(result.flag_messages)
        if diagnostic.flagged:
            text += " (" + str(diagnostic).replace("\n ", ";") + ")"
        warnings.warn(text + ".", JudgeStatsWarning, stacklevel=2)
    return result


def summed_interval(data: StratifiedData, z: float) -> tuple[float, float]:
    """(centre, se) of the summed Lang-Reiczigel interval: sum w_s c_s, sqrt(sum w_s^2 se_s^2).

    ``c_s`` and ``se_s`` are each stratum's eq. (5)-(7) centre and standard error
    (:func:`judgestats.frequentist.lang_reiczigel_parts`), at the counts as floats.
    """
    w = data.weights
    centre_s, se_s, _ = lang_reiczigel_parts(
        data.p,
        data.q0,
        data.q1,
        data.n.astype(np.float64),
        data.m0.astype(np.float64),
        data.m1.astype(np.float64),
        z,
        np.sqrt,
    )
    centre = float(np.sum(w * centre_s))
    se = math.sqrt(float(np.sum((w * se_s) ** 2)))
    return centre, se


def uncut_limits(data: StratifiedData, z: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Every stratum's limits c_s -/+ z se_s (eqs. 5-7, Agresti-Coull arms), before truncation.

    As :func:`judgestats.frequentist.lang_reiczigel_parts` with the calibration arms adjusted
    like the test rate, :math:`\tilde q_j = (k_j + z^2/2) / (m_j + z^2)` and
    :math:`\tilde m_j = m_j + z^2`, instead of :math:`(k_j + 1) / (m_j + 2)` (module
    docstring). ValueError naming the first stratum whose adjusted judge has
    :math:`\tilde q_0 + \tilde q_1 - 1 \le 0`.
    """
    z2 = z * z
    n, m0, m1 = (x.astype(np.float64) for x in (data.n, data.m0, data.m1))
    n_t, m0_t, m1_t = n + z2, m0 + z2, m1 + z2
    p_t = (data.k + z2 / 2) / n_t
    q0_t = (data.k0 + z2 / 2) / m0_t
    q1_t = (data.k1 + z2 / 2) / m1_t
    youden_t = q0_t + q1_t - 1
    for i in np.flatnonzero(youden_t <= 0)[:1]:
        reason = no_correction_message(float(q0_t[i]), float(q1_t[i]), smoothed=True)
        reason = reason.replace("Laplace adjustment of eq. (6)", "Agresti-Coull adjustment")
        raise ValueError(no_overall_message(data.strata[i], reason))
    theta_t = (p_t + q0_t - 1) / youden_t
    v0, v1 = q0_t * (1 - q0_t) / m0_t, q1_t * (1 - q1_t) / m1_t
    centre = theta_t + 2 * z2 * (-(1 - theta_t) * v0 + theta_t * v1)
    se = np.sqrt(p_t * (1 - p_t) / n_t + (1 - theta_t) ** 2 * v0 + theta_t**2 * v1) / youden_t
    return centre - z * se, centre + z * se


def mover_interval(
    weights: np.ndarray, estimates: np.ndarray, lows: np.ndarray, highs: np.ndarray
) -> ConfidenceInterval:
    """MOVER: the strata's intervals ``[l_s, u_s]`` around ``t_s`` combined (module docstring).

    Each estimate is first moved into its interval, so that one stratum gives its own interval
    back; the result is truncated to [0, 1].
    """
    anchor = np.clip(estimates, lows, highs)
    middle = float(np.sum(weights * anchor))
    below = math.sqrt(float(np.sum((weights * (anchor - lows)) ** 2)))
    above = math.sqrt(float(np.sum((weights * (highs - anchor)) ** 2)))
    return ConfidenceInterval(
        min(1.0, max(0.0, middle - below)), min(1.0, max(0.0, middle + above))
    )


def _combined(
    data: StratifiedData,
    rows: tuple[IntervalResult, ...],
    centre: float,
    se: float,
    z: float,
    interval: str,
) -> ConfidenceInterval:
    """The overall interval: MOVER over the strata's uncut limits, or the summed symmetric form."""
    if interval == "mover":
        lows, highs = uncut_limits(data, z)
        return mover_interval(data.weights, np.array([row.estimate for row in rows]), lows, highs)
    return ConfidenceInterval(
        min(1.0, max(0.0, centre - z * se)), min(1.0, max(0.0, centre + z * se))
    )


def _quiet_estimate(data: Any, level: float) -> IntervalResult:
    """:func:`judgestats.estimate` of one set of counts as a row, without its warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        return estimate(data, confidence_level=level).interval


def _stratum_rows(data: StratifiedData, level: float) -> tuple[IntervalResult, ...]:
    """Each stratum's own estimate and Lang-Reiczigel interval; raise naming a failing stratum."""
    rows = []
    for name in data.strata:
        try:
            rows.append(_quiet_estimate(data.stratum(name), level))
        except ValueError as error:  # the Laplace-adjusted judge is no better than chance
            raise ValueError(no_overall_message(name, str(error))) from None
    return tuple(rows)


def _pooled_row(data: StratifiedData, level: float) -> IntervalResult:
    """The pooled correction's row; NaN with ``no_better_than_chance`` when it has none."""
    try:
        return _quiet_estimate(data.pooled(), level)
    except ValueError:
        nan = math.nan
        return IntervalResult(
            nan,
            ConfidenceInterval(nan, nan),
            level,
            "rogan_gladen+lang_reiczigel",
            ("no_better_than_chance",),
        )


def _flags(
    data: StratifiedData,
    theta: float,
    theta_raw: float,
    ci: ConfidenceInterval,
    diagnostic: PooledBias,
) -> tuple[str, ...]:
    """The overall row's flags (keys of :data:`judgestats.results.FLAG_MESSAGES`)."""
    flags = []
    if theta != theta_raw:
        flags.append("clipped")
    if ci.high - ci.low == 0.0:
        flags.append("zero_width")
    if int(min(data.m0.min(), data.m1.min())) < SMALL_CALIBRATION:
        flags.append("small_stratum_calibration")
    flags.extend(diagnostic.flags)
    return tuple(flags)


@dataclass(frozen=True)
class StratifiedEstimate(Result):
    """The stratified closed form: overall estimate, each stratum, the pooled correction.

    Attributes
    ----------
    data : StratifiedData
        The counts.
    confidence_level : float
        Level of every interval.
    theta : float
        The overall estimate sum_s w_s theta-hat_s, each stratum's estimate truncated to
        [0, 1] as :func:`judgestats.estimate` reports it.
    theta_raw : float
        The same sum of the untruncated estimates (may lie outside [0, 1]).
    ci : ConfidenceInterval
        The overall interval (MOVER by default, or summed: module docstring), within [0, 1].
    se : float
        The summed form's standard error sqrt(sum_s w_s^2 se~_s^2) (the MOVER interval is
        asymmetric and has none).
    by_stratum : tuple of IntervalResult
        Each stratum's own :func:`judgestats.estimate` row (clipped estimate, Lang-Reiczigel
        interval, its flags), in the order of ``data.strata``.
    pooled : IntervalResult
        :func:`judgestats.estimate` on the summed counts (NaN with ``no_better_than_chance``
        when the pooled judge has no correction).
    diagnostic : PooledBias
        Pooled minus stratified, its standard error and its causes.
    flags : tuple of str
        Keys of :data:`FLAG_MESSAGES` for the overall row: ``clipped``, ``zero_width``,
        ``small_stratum_calibration``, ``pooled_biased``.
    method : str
        A value of :data:`METHODS`: ``"stratified rogan_gladen+lang_reiczigel+mover"`` or
        ``"...+summed"``.
    """

    title: ClassVar[str] = "judgestats stratified estimate"

    data: StratifiedData
    confidence_level: float
    theta: float
    theta_raw: float
    ci: ConfidenceInterval
    se: float
    by_stratum: tuple[IntervalResult, ...]
    pooled: IntervalResult
    diagnostic: PooledBias
    flags: tuple[str, ...]
    method: str = METHODS["mover"]

    @property
    def interval(self) -> IntervalResult:
        """The overall estimate (:attr:`theta`) with :attr:`ci`, as an :class:`IntervalResult`."""
        return IntervalResult(self.theta, self.ci, self.confidence_level, self.method, self.flags)

    @property
    def interval_kind(self) -> str:
        """``"mover"`` or ``"summed"``: how the strata's intervals were combined."""
        return next(kind for kind, method in METHODS.items() if method == self.method)

    @property
    def width(self) -> float:
        """Width of the overall interval."""
        return self.ci.high - self.ci.low

    def stratum(self, name: str) -> IntervalResult:
        """The row of one stratum (KeyError naming the strata for an unknown name)."""
        if name not in self.data.strata:
            raise KeyError(
                f"`name` ({name!r}) is not a stratum; the strata are {self.data.strata!r}."
            )
        return self.by_stratum[self.data.strata.index(name)]

    def confidence_interval(self, confidence_level: float) -> IntervalResult:
        """The overall estimate with its interval at another level (no warning issued)."""
        level = check_level(confidence_level)
        z = z_quantile(level)
        centre, se = summed_interval(self.data, z)
        rows = _stratum_rows(self.data, level)
        ci = _combined(self.data, rows, centre, se, z, self.interval_kind)
        flags = tuple(f for f in self.flags if f != "zero_width")
        if ci.high - ci.low == 0.0:
            flags += ("zero_width",)
        return IntervalResult(self.theta, ci, level, self.method, flags)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict of every number, the inputs and the flags."""
        return to_json(
            {
                "method": self.method,
                "confidence_level": self.confidence_level,
                "inputs": self.data.to_dict(),
                "weights": self.data.weights.tolist(),
                "overall": {
                    "estimate": self.theta,
                    "estimate_unclipped": self.theta_raw,
                    "low": self.ci.low,
                    "high": self.ci.high,
                    "se": self.se,
                },
                "strata": {
                    name: row.to_dict()
                    for name, row in zip(self.data.strata, self.by_stratum, strict=True)
                },
                "pooled": self.pooled.to_dict(),
                "pooled_bias": self.diagnostic.to_dict(),
                "flags": {flag: FLAG_MESSAGES[flag] for flag in self.flags},
            }
        )

    def summary(self) -> pd.DataFrame:
        """One row per stratum, then the overall and the pooled rows.

        Columns: ``estimate, low, high, width`` and ``weight`` (w_s; 1 for the overall row,
        NaN for the pooled row), ``n, m0, m1`` (the overall and pooled rows: the totals) and
        ``youden`` (J-hat; NaN for the overall row).
        """
        import pandas as pd

        d = self.data
        labels = [*d.strata, OVERALL_LABEL, POOLED_LABEL]
        pooled_data = d.pooled()
        rows = [*self.by_stratum, self.interval, self.pooled]
        frame = pd.DataFrame(
            {
                "estimate": [r.estimate for r in rows],
                "low": [r.low for r in rows],
                "high": [r.high for r in rows],
                "width": [r.width for r in rows],
                "weight": [*d.weights.tolist(), 1.0, math.nan],
                "n": [*d.n.tolist(), d.total, d.total],
                "m0": [*d.m0.tolist(), pooled_data.m0, pooled_data.m0],
                "m1": [*d.m1.tolist(), pooled_data.m1, pooled_data.m1],
                "youden": [*d.youden.tolist(), math.nan, pooled_data.youden],
            },
            index=pd.Index(labels, name="stratum"),
        )
        return frame

    def plot(self, ax: Axes | None = None) -> Axes:
        """Forest plot: each stratum, the overall and the pooled row; the overall as a line."""
        frame = self.summary()[["estimate", "low", "high"]]
        ax = forest_plot(frame, ax=ax, title=self.title)
        ax.axvline(self.theta, color="grey", ls=":", lw=1)
        return ax

    def _repr_html_(self) -> str:
        """HTML table for notebooks: :meth:`summary` rounded, then flags and the pooled bias."""
        from judgestats._html import fmt4, result_block

        frame = self.summary()
        header = ("stratum", *frame.columns)
        rows = [
            (name, *(str(v) if col in ("n", "m0", "m1") else fmt4(v) for col, v in row.items()))
            for name, row in frame.iterrows()
        ]
        notes = [(flag, FLAG_MESSAGES[flag]) for flag in self.flags]
        notes.append(("pooled bias", str(self.diagnostic)))
        title = (
            f"judgestats stratified estimate ({fmt_percent(self.confidence_level)} intervals): "
            f"{self.data.size} strata, N = {self.data.total} test items"
        )
        return result_block(title, header, rows, notes)

    def __str__(self) -> str:
        d = self.data
        width = max(22, *(len(name) for name in d.strata))
        head = f"  {'stratum':<{width}}{'n':>7}{'weight':>8}{'J':>8}"
        head += "".join(f"{c:>9}" for c in ("estimate", "low", "high", "width"))
        lines = [
            f"judgestats stratified estimate ({fmt_percent(self.confidence_level)} intervals): "
            f"{d.size} strata, N = {d.total} test items",
            head,
        ]
        for label, row in self.summary().iterrows():
            weight = "" if math.isnan(row["weight"]) else f"{row['weight']:.4f}"
            youden = "" if math.isnan(row["youden"]) else f"{row['youden']:.4f}"
            numbers = "".join(f"{row[c]:9.4f}" for c in ("estimate", "low", "high", "width"))
            lines.append(f"  {label:<{width}}{int(row['n']):>7}{weight:>8}{youden:>8}{numbers}")
        lines += [f"  {line}" for line in str(self.diagnostic).splitlines()]
        lines += [f"  warning: {message}" for message in self.flag_messages]
        return "\n".join(lines)
