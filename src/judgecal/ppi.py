r"""Prediction-powered inference for the true accuracy: PPI and PPI++.

Setting (the random calibration design): ``m`` labelled items with human labels Y_j and judge
verdicts Yhat_j, a random subsample of the test population, and ``N`` unlabelled test items with
judge verdicts Yhat_i only. For a tuning weight lambda the estimate of theta = E[Y] is
(Angelopoulos, Duchi & Zrnic 2023, "PPI++"; papers/001 Table 2 row iii for lambda = 1)

.. math::
    \hat\theta_\lambda = \lambda\,\overline{\hat Y}^{u} + \overline{(Y - \lambda \hat Y)}^{l},

with the CLT interval :math:`\hat\theta_\lambda \pm z_{1-\alpha/2}\,\widehat{se}`,

.. math::
    \widehat{se}^2 = \frac{\lambda^2\,\widehat{\mathrm{Var}}(\hat Y^u)}{N}
                   + \frac{\widehat{\mathrm{Var}}(Y^l - \lambda \hat Y^l)}{m}

(variances with divisor N and m, as ppi-python 0.2.3 computes them). ``lam=1`` is PPI,
``lam=0`` the classical mean of the labels, and PPI++ (``lam=None``) uses the power-tuned

.. math::
    \hat\lambda = \mathrm{clip}_{[0, 1]}\left(\frac{\widehat{\mathrm{Cov}}(Y^l, \hat Y^l)}
    {(1 + m/N)\,\widehat{\mathrm{Var}}(\hat Y^{l \cup u})}\right),

where the covariance has divisor m and the variance of all m + N verdicts divisor m + N - 1 --
exactly ppi-python 0.2.3's ``_calc_lam_glm`` for the mean (``lam_optim_mode="overall"``). When
all m + N verdicts are equal the ratio is 0/0; judgecal then takes lambda = 0 (every lambda gives
the same estimate and interval there), where ppi-python returns NaN (or 0, when rounding leaves
its variance a hair above zero).

All labels are binary, so every quantity is a function of five counts: on the unlabelled items
``k`` verdicts "correct" of ``N``; on the labelled items the four (human, judge) cells. With
phi = m1/m (mean label), c = (k1 + m0 - k0)/m (mean verdict), r = k1/m (mean product), p = k/N:

.. math::
    \widehat{\mathrm{Cov}} = r - \phi c, \quad
    \widehat{\mathrm{Var}}(Y - \lambda\hat Y) = \phi(1-\phi) + \lambda^2 c(1-c)
        - 2\lambda(r - \phi c), \quad \widehat{\mathrm{Var}}(\hat Y^u) = p(1-p).

:func:`ppi_counts` evaluates these on arrays of counts (for simulations); :func:`ppi` takes the
item-level labels.

Assumption: the labelled items are drawn from the test population (no shift), so that the judge's
error Z - Z-hat has the same distribution on both (papers/001 Sec. 8, Table 2 row iii).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from judgecal._validate import check_counts, check_level, check_not_exceeding
from judgecal.data import JudgeData, _binary_labels, require_design
from judgecal.frequentist import z_quantile
from judgecal.results import ConfidenceInterval

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["PPI_ASSUMPTION", "PPIResult", "ppi", "ppi_counts", "ppi_from_data"]

#: What PPI and PPI++ assume (papers/001 Table 2, row iii).
PPI_ASSUMPTION = (
    "Pr_P(Z - Z_hat) = Pr_Q(Z - Z_hat): the labelled items are a random sample of the test "
    "population, so the judge's errors are distributed alike on both (no distribution shift; "
    "papers/001 Table 2 row iii)"
)


@dataclass(frozen=True)
class PPIResult:
    """A prediction-powered estimate of the true accuracy with its CLT interval.

    Attributes
    ----------
    estimate : float
        theta-hat_lambda (not truncated to [0, 1], as in ppi-python).
    ci : ConfidenceInterval
        theta-hat_lambda -/+ z se (not truncated).
    lam : float
        The lambda used (the tuned one for PPI++).
    se : float
        The standard error.
    confidence_level : float
    n_labelled, n_unlabelled : int
        m and N.
    method : str
        ``"PPI"`` (lambda = 1), ``"PPI++"`` (tuned) or ``"PPI (lam=...)"``.
    assumption : str
        What the estimator assumes (:data:`PPI_ASSUMPTION`).
    """

    estimate: float
    ci: ConfidenceInterval
    lam: float
    se: float
    confidence_level: float
    n_labelled: int
    n_unlabelled: int
    method: str
    assumption: str = PPI_ASSUMPTION

    @property
    def width(self) -> float:
        """Width of the interval."""
        return self.ci.high - self.ci.low

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict of every number and the assumption."""
        return {"method": self.method, "estimate": self.estimate, "low": self.ci.low,
                "high": self.ci.high, "lam": self.lam, "se": self.se,
                "confidence_level": self.confidence_level, "n_labelled": self.n_labelled,
                "n_unlabelled": self.n_unlabelled, "assumption": self.assumption}

    def summary(self) -> pd.DataFrame:
        """Return a one-row table: estimate, low, high, width, lam, assumption."""
        import pandas as pd

        frame = pd.DataFrame(
            {"estimate": [self.estimate], "low": [self.ci.low], "high": [self.ci.high],
             "width": [self.width], "lam": [self.lam], "assumption": [self.assumption]},
            index=pd.Index([self.method], name="method"))
        return frame

    def __str__(self) -> str:
        return (f"{self.method}: theta = {self.estimate:.4f}, {100 * self.confidence_level:g}% CI "
                f"[{self.ci.low:.4f}, {self.ci.high:.4f}] (lambda = {self.lam:.4f}; "
                f"{self.n_labelled} labelled, {self.n_unlabelled} unlabelled items)\n"
                f"assumes: {self.assumption}")


def _check_lam(lam: Any) -> float | None:
    if lam is None:
        return None
    if isinstance(lam, (bool, np.bool_)) or not isinstance(lam, numbers.Real):
        raise TypeError(f"`lam` must be a real number or None (PPI++), got {lam!r}.")
    if not math.isfinite(float(lam)):
        raise ValueError(f"`lam` ({lam!r}) must be finite: 1 for PPI, 0 for the classical "
                         "estimate, None for PPI++'s tuned value.")
    return float(lam)


def _method_name(lam: float | None) -> str:
    if lam is None:
        return "PPI++"
    return "PPI" if lam == 1.0 else f"PPI (lam={lam:g})"


def ppi_counts(
    k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any, *, lam: float | None = 1.0,
    confidence_level: float = 0.95,
) -> tuple[np.ndarray, ConfidenceInterval, np.ndarray, np.ndarray]:
    """PPI / PPI++ from counts, broadcast over arrays (see the module docstring for the formulas).

    Parameters
    ----------
    k, n : int or array_like
        Unlabelled test items the judge called "correct", and unlabelled test items (n >= 1).
    k0, m0, k1, m1 : int or array_like
        The labelled items' cells: ``m0`` truly incorrect of which ``k0`` judged incorrect, ``m1``
        truly correct of which ``k1`` judged correct (m0 + m1 >= 1).
    lam : float or None, default 1.0
        1 for PPI, None for PPI++ (tuned, clipped to [0, 1]), any finite value otherwise.
    confidence_level : float, default 0.95

    Returns
    -------
    estimate : ndarray
    ci : ConfidenceInterval of ndarrays
    lam : ndarray
    se : ndarray
    """
    lam = _check_lam(lam)
    z = z_quantile(confidence_level)
    counts = {name: check_counts(value, name, minimum=1 if name == "n" else 0)
              for name, value in (("k", k), ("n", n), ("k0", k0), ("m0", m0), ("k1", k1),
                                  ("m1", m1))}
    for part, whole in (("k", "n"), ("k0", "m0"), ("k1", "m1")):
        check_not_exceeding(counts[part], counts[whole], part, whole)
    k, n, k0, m0, k1, m1 = (np.asarray(counts[name], dtype=np.float64)
                            for name in ("k", "n", "k0", "m0", "k1", "m1"))
    m = m0 + m1
    if np.any(m < 1):
        raise ValueError("`m0` + `m1` must be at least 1: PPI needs labelled items.")
    phi, c, r, p = m1 / m, (k1 + m0 - k0) / m, k1 / m, k / n
    cov = r - phi * c
    if lam is None:
        total, size = k + c * m, n + m
        var_all = total * (size - total) / (size * (size - 1.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            tuned = cov / ((1.0 + m / n) * var_all)
        lam_a = np.clip(np.where(var_all > 0, tuned, 0.0), 0.0, 1.0)
    else:
        lam_a = np.full(np.broadcast_shapes(phi.shape, p.shape), lam)
    estimate = lam_a * p + phi - lam_a * c
    var_rect = np.maximum(phi * (1 - phi) + lam_a**2 * c * (1 - c) - 2 * lam_a * cov, 0.0)
    se = np.sqrt(lam_a**2 * p * (1 - p) / n + var_rect / m)
    return estimate, ConfidenceInterval(estimate - z * se, estimate + z * se), lam_a, se


def _result(k: int, n: int, k0: int, m0: int, k1: int, m1: int, lam: float | None,
            level: float) -> PPIResult:
    estimate, (low, high), lam_used, se = ppi_counts(k, n, k0, m0, k1, m1, lam=lam,
                                                     confidence_level=level)
    return PPIResult(estimate=float(estimate), ci=ConfidenceInterval(float(low), float(high)),
                     lam=float(lam_used), se=float(se), confidence_level=level,
                     n_labelled=int(m0 + m1), n_unlabelled=int(n), method=_method_name(lam))


def ppi(
    calib_human: Any, calib_judge: Any, test_judge: Any, *, lam: float | None = 1.0,
    confidence_level: float = 0.95,
) -> PPIResult:
    """PPI (``lam=1``) or PPI++ (``lam=None``) estimate and CLT interval of the true accuracy.

    Agrees with ppi-python 0.2.3's ``ppi_mean_pointestimate`` / ``ppi_mean_ci`` (with
    ``alpha = 1 - confidence_level``) for 0/1 labels; see the module docstring for the formulas.

    Parameters
    ----------
    calib_human : sequence of {0, 1}
        Human labels Y of the labelled items (a random subsample of the test population).
    calib_judge : sequence of {0, 1}
        The judge's verdicts Yhat on the same labelled items, in the same order.
    test_judge : sequence of {0, 1}
        The judge's verdicts on the *unlabelled* test items (ppi-python's ``Yhat_unlabeled``).
    lam : float or None, default 1.0
        Weight of the judge's verdicts: 1 is PPI, 0 the classical mean of the labels, None is
        PPI++ (power-tuned, clipped to [0, 1]).
    confidence_level : float, default 0.95

    Returns
    -------
    PPIResult
        ``.estimate``, ``.ci``, ``.lam``, ``.assumption`` (and ``.se``).

    Raises
    ------
    TypeError
        For a non-sequence input or a non-numeric ``lam``.
    ValueError
        For labels other than 0/1 (or missing), labelled sequences of different lengths, no
        labelled or no unlabelled items, a non-finite ``lam``, a level outside (0, 1).

    Examples
    --------
    >>> res = ppi([1, 1, 0, 1], [1, 0, 0, 1], [1, 1, 0, 1, 0, 1])
    >>> round(res.estimate, 4), res.lam
    (0.9167, 1.0)
    """
    level = check_level(confidence_level)
    lam = _check_lam(lam)
    human = _binary_labels(calib_human, "calib_human")
    judge = _binary_labels(calib_judge, "calib_judge")
    test = _binary_labels(test_judge, "test_judge")
    if human.size != judge.size:
        raise ValueError(f"`calib_human` ({human.size} items) and `calib_judge` ({judge.size} "
                         "items) must have the same length: one human label and one judge "
                         "verdict per labelled item.")
    if human.size == 0:
        raise ValueError("`calib_human` is empty: PPI needs at least one labelled item.")
    if test.size == 0:
        raise ValueError("`test_judge` is empty: PPI needs the judge's verdicts on unlabelled "
                         "test items.")
    m1 = int(human.sum())
    k0 = int(np.count_nonzero((human == 0) & (judge == 0)))
    k1 = int(np.count_nonzero((human == 1) & (judge == 1)))
    return _result(int(test.sum()), int(test.size), k0, int(human.size) - m1, k1, m1, lam, level)


def ppi_from_data(
    data: JudgeData, *, lam: float | None = 1.0, confidence_level: float = 0.95
) -> PPIResult:
    """PPI / PPI++ from a :class:`JudgeData` of the random design (same numbers as :func:`ppi`).

    Raises
    ------
    ValueError
        If ``data.design`` is not ``"random"``: with a stratified calibration set the labelled
        class balance m1 / m is fixed by design, so the mean of the labels is not an estimate of
        the accuracy and PPI is biased.
    """
    data = require_design(data, "random", "PPI")
    return _result(data.k, data.n, data.k0, data.m0, data.k1, data.m1, _check_lam(lam),
                   check_level(confidence_level))
