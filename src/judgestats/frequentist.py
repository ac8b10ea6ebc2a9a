"""The closed form: Rogan-Gladen estimate, Lang-Reiczigel interval, naive Wald interval.

This is the public module of the closed form. The formulas themselves (Rogan-Gladen, the
delta-method variance, Lang-Reiczigel, Wald, the normal quantile) live in
:mod:`judgestats._closed_form` and are re-exported here; :func:`estimate` and :class:`Estimate`, the
fast default built on them, are defined here.

The formulas' numerical notes (numpy only, ``ndtri`` for the normal quantile, xarray inputs
kept) and the equation numbering are in :mod:`judgestats._closed_form`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._closed_form import check_interval_inputs as check_interval_inputs
from judgestats._closed_form import delta_variance as delta_variance
from judgestats._closed_form import lang_reiczigel_at_z as lang_reiczigel_at_z
from judgestats._closed_form import lang_reiczigel_ci as lang_reiczigel_ci
from judgestats._closed_form import lang_reiczigel_formula as lang_reiczigel_formula
from judgestats._closed_form import lang_reiczigel_parts as lang_reiczigel_parts
from judgestats._closed_form import naive_wald_ci as naive_wald_ci
from judgestats._closed_form import normal_quantile as normal_quantile
from judgestats._closed_form import rogan_gladen as rogan_gladen
from judgestats._closed_form import rogan_gladen_raw as rogan_gladen_raw
from judgestats._closed_form import rogan_gladen_variance as rogan_gladen_variance
from judgestats._closed_form import z_quantile as z_quantile
from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats._validate import (
    check_choice,
    check_level,
)
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning
from judgestats.results import (
    FLAG_MESSAGES,
    ConfidenceInterval,
    IntervalResult,
    Result,
    format_report,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "Estimate",
    "estimate",
    "lang_reiczigel_ci",
    "naive_wald_ci",
    "rogan_gladen",
    "rogan_gladen_variance",
    "z_quantile",
]

# ---------------------------------------------------------------------------------------------
# the fast default
# ---------------------------------------------------------------------------------------------
#: Calibration arms smaller than this get the "small_calibration" flag.
SMALL_CALIBRATION = 30


def _require_both_classes(data: JudgeData) -> None:
    """Raise if a (random-design) labelled sample misses a class: Rogan-Gladen is undefined."""
    if not data.one_class:
        return
    name, word, rate = (
        ("m0", "truly-incorrect", "specificity q0")
        if data.m0 == 0
        else ("m1", "truly-correct", "sensitivity q1")
    )
    raise ValueError(
        f"the labelled sample holds no {word} item (`{name}` = 0), so the judge's {rate} cannot "
        "be estimated and the Rogan-Gladen correction is undefined; use the posterior "
        "(judgestats.posterior), which takes that rate from its prior and, with a random design, "
        "also learns the accuracy from the labelled class count m1 of m."
    )


#: The intervals :func:`estimate` can put around the Rogan-Gladen estimate.
INTERVALS = ("lang_reiczigel", "guaranteed")


def estimate(
    data: JudgeData, *, confidence_level: float = 0.95, interval: str = "lang_reiczigel"
) -> Estimate:
    """The fast default: Rogan-Gladen estimate with the Lang-Reiczigel interval.

    Computes the naive rate p-hat with its Wald interval, the Rogan-Gladen estimate (eq. 4; raw
    and truncated to [0, 1]) and the Lang-Reiczigel interval (eqs. 5-7), or on request the
    guaranteed interval (:func:`judgestats.guaranteed_ci`), and flags what deserves attention: an
    estimate clipped to [0, 1], a zero-width interval, a calibration arm with fewer than 30 items
    (Lang-Reiczigel only: the guaranteed interval needs no approximation), p-hat outside
    [1 - q0-hat, q1-hat]. Flags are also issued as one :class:`~judgestats.JudgeStatsWarning`.

    Parameters
    ----------
    data : JudgeData
        The six counts.
    confidence_level : float, default 0.95
        Level of both intervals, strictly inside (0, 1).
    interval : {"lang_reiczigel", "guaranteed"}, default "lang_reiczigel"
        ``"lang_reiczigel"``: the closed form, microseconds, approximate (it undercovers with
        small calibration arms or a weak judge). ``"guaranteed"``: coverage at least the level
        for every accuracy and judge, by construction; about 0.05 s median, up to 0.3 s.

    Returns
    -------
    Estimate

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`~judgestats.JudgeData`.
    ValueError
        If ``interval`` is unknown, the level is invalid or the judge is no better than chance
        (J <= 0, or its Laplace-adjusted version <= 0), in which case no correction exists
        (with ``design="random"`` the result is instead the labelled share with Blaker's exact
        interval from the labelled items alone, flagged ``labels_only``); or
        if the labelled sample of a random design holds one true class only (``m0 = 0`` or
        ``m1 = 0``, :attr:`JudgeData.one_class`), in which case q0-hat or q1-hat is undefined.

    Examples
    --------
    >>> from judgestats import JudgeData, estimate
    >>> est = estimate(JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200))
    >>> round(est.theta, 4), tuple(round(x, 4) for x in est.ci)
    (0.1667, (0.0564, 0.2627))
    """
    if not isinstance(data, JudgeData):
        raise TypeError(
            f"`data` must be a JudgeData, got {type(data).__name__}; build one with "
            "judgestats.JudgeData(k=..., n=..., k0=..., m0=..., k1=..., m1=...)."
        )
    check_choice(interval, "interval", INTERVALS)
    _require_both_classes(data)
    level = check_level(confidence_level)
    if data.design == "random" and _no_better_than_chance(data):
        return _labels_only_estimate(data, level)
    theta_raw = rogan_gladen(data.p, data.q0, data.q1, clip=False)
    theta = min(1.0, max(0.0, theta_raw))
    ci = _corrected_interval(data, level, interval)
    flags = _flags(data, theta, theta_raw, ci, interval)
    result = Estimate(
        data=data,
        confidence_level=level,
        naive=data.p,
        naive_ci=naive_wald_ci(data.p, data.n, confidence_level=level),
        theta_raw=theta_raw,
        theta=theta,
        ci=ci,
        youden=data.youden,
        flags=tuple(flags),
        method=f"rogan_gladen+{interval}",
    )
    if flags:
        warnings.warn("; ".join(result.flag_messages) + ".", JudgeStatsWarning, stacklevel=2)
    return result


def _no_better_than_chance(data: JudgeData) -> bool:
    """J-hat <= 0, or its Laplace-adjusted version (k + 1) / (m + 2) per arm <= 0."""
    adjusted = (data.k0 + 1) / (data.m0 + 2) + (data.k1 + 1) / (data.m1 + 2) - 1.0
    return data.youden <= 0.0 or adjusted <= 0.0


def _labels_only_estimate(data: JudgeData, level: float) -> Estimate:
    """Random design, judge no better than chance: the labelled share, Blaker's exact interval."""
    from judgestats.designs.labels_only import labels_only_triple

    share, low, high = labels_only_triple(
        data.m1, data.m, data.n, method="blaker", target="population", level=level
    )
    result = Estimate(
        data=data,
        confidence_level=level,
        naive=data.p,
        naive_ci=naive_wald_ci(data.p, data.n, confidence_level=level),
        theta_raw=share,
        theta=share,
        ci=ConfidenceInterval(low, high),
        youden=data.youden,
        flags=("labels_only",),
        method="labels_only_blaker",
    )
    warnings.warn(result.flag_messages[0] + ".", JudgeStatsWarning, stacklevel=3)
    return result


def _corrected_interval(data: JudgeData, level: float, interval: str) -> ConfidenceInterval:
    """The interval around the Rogan-Gladen estimate: Lang-Reiczigel or guaranteed."""
    if interval == "guaranteed":
        from judgestats.guaranteed import guaranteed_ci

        return guaranteed_ci(
            data.k, data.n, data.k0, data.m0, data.k1, data.m1, confidence_level=level
        )
    return lang_reiczigel_ci(
        data.p, data.q0, data.q1, data.n, data.m0, data.m1, confidence_level=level
    )


def _flags(
    data: JudgeData, theta: float, theta_raw: float, ci: ConfidenceInterval, interval: str
) -> list[str]:
    """The flags of a corrected estimate (keys of :data:`judgestats.results.FLAG_MESSAGES`)."""
    flags = []
    if theta != theta_raw:
        flags.append("clipped")
    if ci.high - ci.low == 0.0:
        flags.append("zero_width")
    if min(data.m0, data.m1) < SMALL_CALIBRATION and interval == "lang_reiczigel":
        flags.append("small_calibration")
    if not 1.0 - data.q0 <= data.p <= data.q1:
        flags.append("p_outside_judge_range")
    return flags


@dataclass(frozen=True)
class Estimate(Result):
    """The fast default: naive rate, Rogan-Gladen estimate and Lang-Reiczigel interval.

    Attributes
    ----------
    data : JudgeData
        The counts the estimate was computed from.
    confidence_level : float
        Level of both intervals.
    naive : float
        p-hat = k / n, the uncorrected judged-correct rate (Lee et al., arXiv 2511.21140 v1,
        eq. 2; "Lee et al. v1" below).
    naive_ci : ConfidenceInterval
        Wald interval for p-hat (ignores the judge's errors).
    theta_raw : float
        Rogan-Gladen estimate before truncation (Lee et al. v1 eq. 4); may lie outside [0, 1].
    theta : float
        Rogan-Gladen estimate truncated to [0, 1].
    ci : ConfidenceInterval
        Lang-Reiczigel interval (Lee et al. v1 eqs. 5-7), or the guaranteed interval when
        ``method`` is ``"rogan_gladen+guaranteed"``.
    youden : float
        J = q0-hat + q1-hat - 1.
    flags : tuple of str
        Keys of :data:`FLAG_MESSAGES` that apply.
    method : str
        ``"rogan_gladen+lang_reiczigel"`` or ``"rogan_gladen+guaranteed"``.
    """

    title: ClassVar[str] = "judgestats estimate"

    data: JudgeData
    confidence_level: float
    naive: float
    naive_ci: ConfidenceInterval
    theta_raw: float
    theta: float
    ci: ConfidenceInterval
    youden: float
    flags: tuple[str, ...]
    method: str = "rogan_gladen+lang_reiczigel"

    @property
    def interval_label(self) -> str:
        """The row label of the corrected estimate: the point estimate and its interval."""
        return (
            "Rogan-Gladen + guaranteed"
            if self.method.endswith("guaranteed")
            else "Rogan-Gladen + Lang-Reiczigel"
        )

    @property
    def interval(self) -> IntervalResult:
        """The corrected estimate (:attr:`theta`) with :attr:`ci`, as an :class:`IntervalResult`."""
        return IntervalResult(self.theta, self.ci, self.confidence_level, self.method, self.flags)

    @property
    def naive_interval(self) -> IntervalResult:
        """The naive rate p-hat with its Wald interval (ignores the judge's errors)."""
        return IntervalResult(self.naive, self.naive_ci, self.confidence_level, "naive+wald")

    def confidence_interval(
        self, confidence_level: float | None = None, interval: str | None = None
    ) -> IntervalResult:
        """The corrected estimate's interval at another level or of another kind.

        Recomputes from the counts already validated (scipy's ``result.proportion_ci``
        pattern): nothing is re-read, no warning is issued; the flags of the returned interval
        say what :func:`estimate` would have flagged.

        Parameters
        ----------
        confidence_level : float, optional
            Strictly inside (0, 1); default: this estimate's level.
        interval : {"lang_reiczigel", "guaranteed"}, optional
            Default: the interval of this estimate.

        Returns
        -------
        IntervalResult
            :attr:`theta` with the requested interval.

        Examples
        --------
        >>> from judgestats import JudgeData, estimate
        >>> est = estimate(JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200))
        >>> ci90 = est.confidence_interval(confidence_level=0.9)
        >>> round(ci90.low, 4), round(ci90.high, 4)
        (0.0745, 0.2478)
        """
        level = self.confidence_level if confidence_level is None else check_level(confidence_level)
        kind = self.method.split("+")[1] if interval is None else interval
        kind = check_choice(kind, "interval", INTERVALS)
        ci = _corrected_interval(self.data, level, kind)
        flags = _flags(self.data, self.theta, self.theta_raw, ci, kind)
        return IntervalResult(self.theta, ci, level, f"rogan_gladen+{kind}", tuple(flags))

    @property
    def width(self) -> float:
        """Width of the interval around the Rogan-Gladen estimate."""
        return self.ci.high - self.ci.low

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict of every number, the inputs and the flags."""
        return to_json(
            {
                "method": self.method,
                "confidence_level": self.confidence_level,
                "inputs": self.data.to_dict(),
                "p": self.data.p,
                "q0": self.data.q0,
                "q1": self.data.q1,
                "youden": self.youden,
                "naive": {
                    "estimate": self.naive,
                    "low": self.naive_ci.low,
                    "high": self.naive_ci.high,
                },
                "adjusted": {
                    "estimate": self.theta,
                    "estimate_unclipped": self.theta_raw,
                    "low": self.ci.low,
                    "high": self.ci.high,
                },
                "flags": {flag: FLAG_MESSAGES[flag] for flag in self.flags},
            }
        )

    def _rows(self) -> dict[str, tuple[float, float, float, float]]:
        """Method name -> (estimate, low, high, width)."""
        return {
            "naive (p-hat, Wald)": (
                self.naive,
                *self.naive_ci,
                self.naive_ci.high - self.naive_ci.low,
            ),
            self.interval_label: (self.theta, *self.ci, self.width),
        }

    def summary(self) -> pd.DataFrame:
        """Return a table with one row per method: estimate, low, high, width."""
        import pandas as pd

        frame = pd.DataFrame.from_dict(
            self._rows(), orient="index", columns=["estimate", "low", "high", "width"]
        )
        frame.index.name = "method"
        return frame

    def _repr_html_(self) -> str:
        """Compact HTML table for notebooks: the counts, both rows and the flags (escaped)."""
        from judgestats._html import fmt4, result_block

        d = self.data
        title = (
            f"judgestats estimate ({fmt_percent(self.confidence_level)} intervals): k = {d.k} of "
            f"n = {d.n}, q0 = {d.k0}/{d.m0}, q1 = {d.k1}/{d.m1}, J = {fmt4(d.youden)}"
        )
        rows = [(name, *(fmt4(v) for v in row)) for name, row in self._rows().items()]
        notes = [(flag, FLAG_MESSAGES[flag]) for flag in self.flags]
        return result_block(title, ("method", "estimate", "low", "high", "width"), rows, notes)

    def __str__(self) -> str:
        title = f"judgestats estimate ({fmt_percent(self.confidence_level)} intervals)"
        notes = [f"warning: {message}" for message in self.flag_messages]
        return format_report(title, self.data, self._rows(), notes)


# ---- the p-value of H0: theta = theta0 (the Lang-Reiczigel interval family inverted) ----------
#: The p-value search scans z on this grid (step 0.05, up to z = 12, two-sided p ~ 3.6e-33)
#: for the first interval that reaches theta0, then bisects within the step.
_Z_GRID = np.linspace(0.0, 12.0, 241)


def lang_reiczigel_p_value(
    p: Any, q0: Any, q1: Any, n: Any, m0: Any, m1: Any, theta0: float
) -> np.ndarray:
    """P-value of H0: theta = theta0 by inverting the Lang-Reiczigel interval family.

    The p-value is ``1 - L*`` for the level ``L*`` at which the interval (Lee et al. v1
    eqs. 5-7, truncated to [0, 1]) first reaches ``theta0`` as the level grows; in z,
    ``p = 2 Phi(-z*)`` for the smallest ``z*`` whose interval contains ``theta0``. It is found by
    scanning z in steps of 0.05 up to 12 and then bisecting (50 halvings) inside the step where
    containment starts, all elements at once. The scan matters: the interval's centre moves
    with z^2 (eq. 7's d-theta~), so for very large z an interval can drift away from ``theta0``
    again and containment is not monotone over all z; the first crossing is the one that
    inverts the nested intervals of practical levels. The interval at level ``1 - p`` then has
    ``theta0`` at one end. Sizes may be floats (the effective sizes of clustered data).

    An interval that contains ``theta0`` already at z = 0 (its smoothed centre) gives
    ``p = 1``; one that does not reach it by z = 12 gives ``p = 2 Phi(-12)``, an upper bound
    (about 3.6e-33); elements whose Laplace-adjusted judge is no better than chance give NaN.

    Parameters
    ----------
    p, q0, q1 : array_like
        Judged-correct rate, specificity, sensitivity (validated by the caller).
    n, m0, m1 : array_like
        Sizes (positive; floats allowed).
    theta0 : float
        The hypothesised accuracy, in [0, 1].

    Returns
    -------
    ndarray
        Two-sided p-values, one per broadcast element.
    """
    from scipy.special import ndtr

    inputs = [np.asarray(v, dtype=np.float64) for v in (p, q0, q1, n, m0, m1)]
    shape = np.broadcast_shapes(*(v.shape for v in inputs))
    args = [np.broadcast_to(v, shape).reshape(-1, 1) for v in inputs]
    p_b, q0_b, q1_b, n_b, m0_b, m1_b = args

    def contains(z: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            low, high, _ = lang_reiczigel_formula(p_b, q0_b, q1_b, n_b, m0_b, m1_b, z, np.sqrt)
        return (np.clip(low, 0.0, 1.0) <= theta0) & (theta0 <= np.clip(high, 0.0, 1.0))

    scan = contains(_Z_GRID[None, :])  # (elements, grid)
    found = scan.any(axis=1)
    first = np.argmax(scan, axis=1)
    high_z = _Z_GRID[first][:, None]
    low_z = _Z_GRID[np.maximum(first - 1, 0)][:, None]
    for _ in range(50):
        middle = (low_z + high_z) / 2.0
        inside = contains(middle)
        high_z = np.where(inside, middle, high_z)
        low_z = np.where(inside, low_z, middle)
    values = np.where(found, 2.0 * ndtr(-high_z[:, 0]), 2.0 * ndtr(-_Z_GRID[-1]))
    values = np.where(scan[:, 0], 1.0, values)
    q0_t = (args[4][:, 0] * args[1][:, 0] + 1) / (args[4][:, 0] + 2)
    q1_t = (args[5][:, 0] * args[2][:, 0] + 1) / (args[5][:, 0] + 2)
    values = np.where(q0_t + q1_t - 1.0 > 0.0, values, np.nan)
    return values.reshape(shape)
