r"""The K-class closed form: matrix Rogan-Gladen shares and intervals for linear functionals.

:func:`kclass_estimate` checks the counts, solves :math:`\hat C^\top \hat\pi = \hat p`, projects
onto the simplex when a share came out negative (flag ``projected``) and returns a
:class:`KClassEstimate`, whose intervals for every share and any functional
:math:`a^\top\pi` (the mean score, the win rate with ties as half, the share of top scores) are
the generalised Lang-Reiczigel interval of :mod:`judgestats.kclass.matrix` (or, on request, the
plain delta-method Wald interval). At K = 2 every number equals :func:`judgestats.estimate`'s on
the same counts.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats._validate import check_choice, check_level, frozen_copy
from judgestats.exceptions import JudgeStatsWarning
from judgestats.frequentist import SMALL_CALIBRATION, z_quantile
from judgestats.kclass.data import KClassData
from judgestats.kclass.functionals import (
    check_weights,
    mean_score_weights,
    share_label,
    share_weights,
    win_rate_label,
    win_rate_weights,
)
from judgestats.kclass.matrix import (
    DOMINANCE_RULE,
    adjusted_parts,
    delta_covariance,
    dominance_violation,
    matrix_rogan_gladen,
    simplex_projection,
)
from judgestats.results import (
    FLAG_MESSAGES,
    ConfidenceInterval,
    IntervalResult,
    Result,
    forest_plot,
    register_flags,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["INTERVALS", "KCLASS_FLAGS", "KClassEstimate", "kclass_estimate"]

#: The intervals :func:`kclass_estimate` can give: the generalised Lang-Reiczigel interval and
#: the plain delta-method (Wald) interval.
INTERVALS = ("lang_reiczigel", "wald")

#: Flags of the K-class results (registered in :data:`judgestats.results.FLAG_MESSAGES`).
KCLASS_FLAGS = register_flags(
    {
        "projected": "the matrix Rogan-Gladen shares had a negative entry (the judged shares lie "
        "outside what the estimated judge can produce) and were projected onto the simplex",
        "small_class_calibration": "a true class has fewer than 30 calibration items; the "
        "interval's normal approximation is rough there (compare the posterior, "
        "judgestats.kclass.kclass_posterior)",
    }
)

#: Condition number of C-hat above which it counts as singular.
SINGULAR_CONDITION = 1e10


def _check_data(data: Any) -> KClassData:
    """Raise unless the counts define the matrix Rogan-Gladen estimator (message says why)."""
    if not isinstance(data, KClassData):
        raise TypeError(
            f"`data` must be a KClassData, got {type(data).__name__}; build one with "
            "judgestats.kclass.KClassData(classes, test=..., confusion=...)."
        )
    if data.empty_classes:
        raise ValueError(
            f"`data` has no calibration item of true class {data.empty_classes[0]!r}, so the "
            "judge's verdicts on that class are not measured and the matrix Rogan-Gladen "
            "estimator is undefined; use the posterior (judgestats.kclass.kclass_posterior), "
            "which takes that row of the confusion matrix from its prior."
        )
    z_smoothed = (data.confusion + 2.0 / data.size) / (data.m + 2.0)[:, None]
    for rates, what in ((data.rates, "C-hat"), (z_smoothed, "its Laplace-smoothed version")):
        violation = dominance_violation(rates)
        if violation is not None:
            i, j = violation
            raise ValueError(
                f"`data`: the judge's confusion matrix is not diagonally dominant ({what}): "
                f"items of true class {data.classes[i]!r} are judged {data.classes[j]!r} at "
                f"rate {rates[i, j]:.4g}, items of class {data.classes[j]!r} itself only at "
                f"{rates[j, j]:.4g}. The correction needs {DOMINANCE_RULE}; no correction "
                "exists for such a judge."
            )
        if not np.linalg.cond(rates) < SINGULAR_CONDITION or np.linalg.det(rates) <= 0.0:
            raise ValueError(
                f"`data`: the judge's confusion matrix ({what}) is singular or reverses "
                f"orientation (determinant {np.linalg.det(rates):.3g}, condition number "
                f"{np.linalg.cond(rates):.3g}): its verdicts cannot tell the classes apart, so "
                "C^T pi = p has no unique, meaningful solution."
            )
    return data


def _interval(
    centre: np.ndarray, covariance: np.ndarray, weights: np.ndarray, z: float
) -> ConfidenceInterval:
    """``a @ centre -/+ z sqrt(a' Sigma a)``, truncated to the functional's range."""
    middle = float(weights @ centre)
    se = math.sqrt(max(0.0, float(weights @ covariance @ weights)))
    low_end, high_end = float(weights.min()), float(weights.max())
    return ConfidenceInterval(
        min(high_end, max(low_end, middle - z * se)), min(high_end, max(low_end, middle + z * se))
    )


def _interval_parts(
    kind: str, data: KClassData, raw: np.ndarray, covariance: np.ndarray, z: float
) -> tuple[np.ndarray, np.ndarray]:
    """The centre and covariance the interval of every functional is built from.

    Wald: the unprojected estimate and its delta-method covariance; the adjusted interval:
    :func:`judgestats.kclass.matrix.adjusted_parts` of the counts.
    """
    if kind == "wald":
        return raw, covariance
    return adjusted_parts(data.test.astype(np.float64), data.confusion.astype(np.float64), z)


def _functional_interval(
    centre: np.ndarray,
    covariance: np.ndarray,
    shares: np.ndarray,
    weights: np.ndarray,
    z: float,
) -> ConfidenceInterval:
    """The interval of ``weights . pi``, truncated to the functional's range.

    At K >= 3 it is widened, where needed, to contain the reported estimate ``weights . shares``:
    both intervals are centred on the unprojected solution, and when the projection moved the
    shares the estimate can otherwise fall just outside. At K = 2 it is Lang-Reiczigel's (or
    the binary Wald interval) as it stands, as :func:`judgestats.estimate` reports it.
    """
    ci = _interval(centre, covariance, weights, z)
    if len(shares) == 2:
        return ci
    estimate = float(weights @ shares)
    return ConfidenceInterval(min(ci.low, estimate), max(ci.high, estimate))


def kclass_estimate(
    data: KClassData, *, confidence_level: float = 0.95, interval: str = "lang_reiczigel"
) -> KClassEstimate:
    r"""The K-class fast default: matrix Rogan-Gladen shares with adjusted intervals.

    Solves :math:`\hat C^\top \hat\pi = \hat p` for the true class shares (Lee et al., arXiv
    2511.21140 v1, eq. 4 generalised; see :mod:`judgestats.kclass.matrix`), projects them onto the
    simplex when one is negative, and puts the generalised Lang-Reiczigel interval (eqs. 5-7
    with add-:math:`z^2` smoothing and the second-order centre shift) around every share; the
    result gives the same interval for any linear functional (:meth:`KClassEstimate.functional`,
    :meth:`~KClassEstimate.win_rate`, :meth:`~KClassEstimate.mean_score`,
    :meth:`~KClassEstimate.share`). At K = 2 the numbers are :func:`judgestats.estimate`'s.

    Parameters
    ----------
    data : KClassData
        The test verdict counts and the calibration confusion counts.
    confidence_level : float, default 0.95
        Level of every interval, strictly inside (0, 1).
    interval : {"lang_reiczigel", "wald"}, default "lang_reiczigel"
        ``"lang_reiczigel"``: the adjusted interval. ``"wald"``: the delta-method interval
        :math:`a^\top\hat\pi \mp z\sqrt{a^\top\hat\Sigma a}` at the raw estimates (kept for
        comparison; it undercovers with small calibration rows).

    Returns
    -------
    KClassEstimate

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`KClassData`.
    ValueError
        If the level or ``interval`` is invalid; if a true class has no calibration item
        (random design); if the confusion matrix (raw or Laplace-smoothed) is not diagonally
        dominant (column-wise: at K = 2, q0 + q1 <= 1) or is singular.

    Warns
    -----
    JudgeStatsWarning
        Once, listing the flags that apply (``projected``, ``zero_width``,
        ``small_class_calibration``).

    Examples
    --------
    >>> from judgestats.kclass import KClassData, kclass_estimate
    >>> data = KClassData(("A", "B", "tie"), test=[420, 380, 200],
    ...                   confusion=[[50, 4, 6], [5, 48, 7], [6, 5, 29]])
    >>> est = kclass_estimate(data)
    >>> est.shares.round(4).tolist()
    [0.4357, 0.4154, 0.1489]
    >>> win = est.win_rate("A", tie="tie")
    >>> round(win.estimate, 4), round(win.low, 4), round(win.high, 4)
    (0.5101, 0.4331, 0.5854)
    """
    data = _check_data(data)
    level = check_level(confidence_level)
    interval = check_choice(interval, "interval", INTERVALS)
    raw = matrix_rogan_gladen(data.p, data.rates)
    projected = bool((raw < 0.0).any())
    shares = simplex_projection(raw) if projected else raw
    covariance = delta_covariance(raw, data.p, data.rates, np.asarray(float(data.n)), data.m)
    flags = []
    if projected:
        flags.append("projected")
    z = z_quantile(level)
    centre, spread = _interval_parts(interval, data, raw, covariance, z)
    if any(
        (ci := _functional_interval(centre, spread, shares, a, z)).high - ci.low == 0.0
        for a in np.eye(data.size)
    ):
        flags.append("zero_width")
    if int(data.m.min()) < SMALL_CALIBRATION and interval == "lang_reiczigel":
        flags.append("small_class_calibration")
    result = KClassEstimate(
        data=data,
        confidence_level=level,
        shares=frozen_copy(shares, np.float64),
        shares_raw=frozen_copy(raw, np.float64),
        covariance=frozen_copy(covariance, np.float64),
        flags=tuple(flags),
        method=f"matrix_rogan_gladen+{interval}",
    )
    if flags:
        warnings.warn("; ".join(result.flag_messages) + ".", JudgeStatsWarning, stacklevel=2)
    return result


@dataclass(frozen=True, eq=False)
class KClassEstimate(Result):
    """Matrix Rogan-Gladen class shares with intervals for any linear functional.

    Attributes
    ----------
    data : KClassData
        The counts.
    confidence_level : float
        Level of the intervals of :meth:`summary` and the functionals (each accepts another).
    shares : numpy.ndarray
        The estimated true class shares, on the simplex (projected when ``projected`` is
        flagged).
    shares_raw : numpy.ndarray
        The solution of C-hat^T pi = p-hat before projection (sums to 1, may be negative).
    covariance : numpy.ndarray
        The delta-method covariance of ``shares_raw`` (test and calibration noise).
    flags : tuple of str
        Keys of :data:`FLAG_MESSAGES`: ``projected``, ``zero_width`` (a share's interval has
        zero width after truncation), ``small_class_calibration``.
    method : str
        ``"matrix_rogan_gladen+lang_reiczigel"`` or ``"matrix_rogan_gladen+wald"``.
    """

    title: ClassVar[str] = "judgestats K-class estimate"

    data: KClassData
    confidence_level: float
    shares: np.ndarray
    shares_raw: np.ndarray
    covariance: np.ndarray
    flags: tuple[str, ...]
    method: str = "matrix_rogan_gladen+lang_reiczigel"

    @property
    def interval_kind(self) -> str:
        """``"lang_reiczigel"`` or ``"wald"``."""
        return self.method.split("+")[1]

    # -- functionals ---------------------------------------------------------------------------
    def functional(
        self, weights: Any, *, confidence_level: float | None = None, name: str | None = None
    ) -> IntervalResult:
        """The estimate and interval of the linear functional ``weights . pi``.

        Parameters
        ----------
        weights : sequence of float or mapping
            One weight per class (in the order of ``data.classes``), or a mapping from class
            names to weights (the others weigh 0).
        confidence_level : float, optional
            Default: this estimate's level.
        name : str, optional
            A label kept in the result's ``method`` (e.g. ``"mean score"``).

        Returns
        -------
        IntervalResult
            ``weights . shares`` with the interval (module docstring of
            :mod:`judgestats.kclass.matrix`), truncated to ``[min(weights), max(weights)]``.
        """
        a = check_weights(self.data.classes, weights)
        level = self.confidence_level if confidence_level is None else check_level(confidence_level)
        z = z_quantile(level)
        centre, covariance = _interval_parts(
            self.interval_kind, self.data, self.shares_raw, self.covariance, z
        )
        ci = _functional_interval(centre, covariance, self.shares, a, z)
        method = self.method if name is None else f"{name}: {self.method}"
        return IntervalResult(float(a @ self.shares), ci, level, method, self.flags)

    def share(self, classes: Any, *, confidence_level: float | None = None) -> IntervalResult:
        """The share of one class, or the summed share of several (e.g. the top two scores)."""
        a = share_weights(self.data.classes, classes)
        label = share_label(self.data.classes, a)
        return self.functional(a, confidence_level=confidence_level, name=label)

    def mean_score(
        self, scores: Any = None, *, confidence_level: float | None = None
    ) -> IntervalResult:
        """The mean score: ``scores`` per class (default: numeric classes are the scores)."""
        a = mean_score_weights(self.data.classes, scores)
        return self.functional(a, confidence_level=confidence_level, name="mean score")

    def win_rate(
        self, win: Any, tie: Any = None, *, confidence_level: float | None = None
    ) -> IntervalResult:
        """The win rate of the class ``win``, a ``tie`` counting half (Chatbot Arena's rule)."""
        a = win_rate_weights(self.data.classes, win, tie)
        label = win_rate_label(win, tie)
        return self.functional(a, confidence_level=confidence_level, name=label)

    @property
    def by_class(self) -> tuple[IntervalResult, ...]:
        """Each class's share with its interval, in the order of ``data.classes``."""
        eye = np.eye(self.data.size)
        return tuple(self.functional(row) for row in eye)

    # -- the contract -----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict of every number, the inputs and the flags."""
        rows = self.by_class
        return to_json(
            {
                "method": self.method,
                "confidence_level": self.confidence_level,
                "inputs": self.data.to_dict(),
                "naive": self.data.p.tolist(),
                "shares": {
                    str(name): {
                        "estimate": row.estimate,
                        "estimate_unprojected": float(raw),
                        "low": row.low,
                        "high": row.high,
                    }
                    for name, row, raw in zip(self.data.classes, rows, self.shares_raw, strict=True)
                },
                "covariance": self.covariance.tolist(),
                "flags": {flag: FLAG_MESSAGES[flag] for flag in self.flags},
            }
        )

    def summary(self) -> pd.DataFrame:
        """One row per class: ``naive`` (p-hat), ``estimate``, ``low``, ``high``, ``width``, ``m``.

        ``m`` is the number of calibration items of that true class.
        """
        import pandas as pd

        rows = self.by_class
        return pd.DataFrame(
            {
                "naive": self.data.p,
                "estimate": [r.estimate for r in rows],
                "low": [r.low for r in rows],
                "high": [r.high for r in rows],
                "width": [r.width for r in rows],
                "m": self.data.m,
            },
            index=pd.Index([str(c) for c in self.data.classes], name="class"),
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Forest plot of the class shares with their intervals."""
        return forest_plot(self.summary()[["estimate", "low", "high"]], ax=ax, title=self.title)

    def _heading(self) -> str:
        return (
            f"judgestats K-class estimate ({fmt_percent(self.confidence_level)} intervals, "
            f"{self.method}): n = {self.data.n} test items, m = {self.data.m.tolist()} "
            "calibration items per true class"
        )

    def _repr_html_(self) -> str:
        """HTML table for notebooks: :meth:`summary` rounded, then the flags."""
        from judgestats._html import fmt4, result_block

        frame = self.summary()
        rows = [
            (name, *(str(v) if col == "m" else fmt4(v) for col, v in row.items()))
            for name, row in frame.iterrows()
        ]
        notes = [(flag, FLAG_MESSAGES[flag]) for flag in self.flags]
        return result_block(self._heading(), ("class", *frame.columns), rows, notes)

    def __str__(self) -> str:
        frame = self.summary()
        width = max(8, *(len(name) for name in frame.index))
        lines = [self._heading()]
        lines.append(f"  {'class':<{width}}" + "".join(f"{c:>10}" for c in frame.columns))
        for name, row in frame.iterrows():
            cells = "".join(
                f"{int(v):>10d}" if col == "m" else f"{v:>10.4f}" for col, v in row.items()
            )
            lines.append(f"  {name:<{width}}{cells}")
        lines.extend(f"  warning: {message}" for message in self.flag_messages)
        return "\n".join(lines)
