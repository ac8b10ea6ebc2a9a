r"""Bootstrap for data made of independent categorical samples: percentile and BCa intervals.

Every dataset judgestats handles is a handful of independent samples of categorical items: the test
items (for a paired two-model comparison, each item is one of four verdict pairs (1, 1), (1, 0),
(0, 1), (0, 0); unpaired, each model's items are 1 or 0), and each calibration arm (truly-incorrect
items judged incorrect or correct; truly-correct items judged correct or incorrect). Resampling the
``n_s`` items of sample ``s`` with replacement is the same as drawing its category counts from
``Multinomial(n_s, observed frequencies)``, so a replicate costs a few random numbers, whatever
the number of items, and all replicates are drawn in one vectorised call.

Intervals (Efron & Tibshirani 1993, ch. 13-14; Davison & Hinkley 1997, sec. 3.2 and 5.3):

* percentile: the alpha/2 and 1 - alpha/2 quantiles of the replicates;
* BCa: the quantiles at

  .. math:: \alpha_{1,2} = \Phi\Big(\hat z_0 + \frac{\hat z_0 + z_{\alpha/2,\,1-\alpha/2}}
            {1 - \hat a(\hat z_0 + z_{\alpha/2,\,1-\alpha/2})}\Big),

  with the bias correction :math:`\hat z_0 = \Phi^{-1}(\#\{\theta^* < \hat\theta\}/B
  + \tfrac12\#\{\theta^* = \hat\theta\}/B)` and the multi-sample jackknife acceleration

  .. math:: \hat a = \frac{1}{6}\,\frac{\sum_s n_s^{-3}\sum_i U_{si}^3}
            {\big(\sum_s n_s^{-2}\sum_i U_{si}^2\big)^{3/2}}, \qquad
            U_{si} = (n_s - 1)(\bar\theta_{s\cdot} - \hat\theta_{s(i)}),

  where :math:`\hat\theta_{s(i)}` leaves item i out of sample s. Items of the same category give
  the same leave-one-out value, so the jackknife costs one evaluation per category.

numpy only; the normal distribution function comes from :mod:`scipy.special` (lazily).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from judgestats.frequentist import normal_quantile
from judgestats.results import ConfidenceInterval

__all__ = ["BootstrapResult", "categorical_bootstrap"]

#: statistic(*counts) -> array (..., K): each counts array has shape (..., C_s) for sample s.
Statistic = Callable[..., np.ndarray]


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Replicates and intervals of K statistics.

    Attributes
    ----------
    estimate : ndarray, shape (K,)
        The statistics on the observed data.
    replicates : ndarray, shape (B_valid, K)
        Replicates in which every statistic is finite (the others are dropped).
    n_dropped : int
        Replicates dropped because a statistic was undefined (e.g. a judge no better than chance).
    percentile, bca : list of ConfidenceInterval
        One interval per statistic.
    acceleration, bias_correction : ndarray, shape (K,)
        The BCa constants a-hat and z0-hat (NaN where BCa is undefined).
    """

    estimate: np.ndarray
    replicates: np.ndarray
    n_dropped: int
    percentile: list[ConfidenceInterval]
    bca: list[ConfidenceInterval]
    acceleration: np.ndarray
    bias_correction: np.ndarray


def _resample(
    samples: Sequence[np.ndarray], n_resamples: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Category counts of ``n_resamples`` bootstrap samples of every sample, shape (B, C_s)."""
    out = []
    for counts in samples:
        total = int(counts.sum())
        out.append(rng.multinomial(total, counts / total, size=n_resamples))
    return out


def jackknife_acceleration(statistic: Statistic, samples: Sequence[np.ndarray]) -> np.ndarray:
    """The multi-sample jackknife acceleration a-hat (module docstring), one per statistic."""
    numerator = 0.0
    denominator = 0.0
    for s, counts in enumerate(samples):
        n_s = float(counts.sum())
        if n_s < 2:
            continue
        present = np.flatnonzero(counts)
        left_out = np.repeat(counts[None, :], present.size, axis=0)
        left_out[np.arange(present.size), present] -= 1
        args = [np.asarray(c)[None, :] for c in samples]
        args[s] = left_out
        args = [np.broadcast_to(a, (present.size, a.shape[-1])) for a in args]
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.asarray(statistic(*args), dtype=float)  # (categories, K)
        weights = counts[present].astype(float)[:, None]
        mean = (weights * values).sum(axis=0) / n_s
        influence = (n_s - 1.0) * (mean - values)
        numerator = numerator + (weights * influence**3).sum(axis=0) / n_s**3
        denominator = denominator + (weights * influence**2).sum(axis=0) / n_s**2
    with np.errstate(divide="ignore", invalid="ignore"):
        acceleration = np.asarray(numerator / (6.0 * np.power(denominator, 1.5)), dtype=float)
    return np.where(np.asarray(denominator) > 0, acceleration, 0.0)


def _bca(
    replicates: np.ndarray, estimate: float, acceleration: float, confidence_level: float
) -> tuple[ConfidenceInterval, float]:
    from scipy.special import ndtr

    size = replicates.size
    below = np.count_nonzero(replicates < estimate) + 0.5 * np.count_nonzero(replicates == estimate)
    if size == 0 or below == 0 or below == size or not np.isfinite(acceleration):
        return ConfidenceInterval(float("nan"), float("nan")), float("nan")
    z0 = normal_quantile(below / size)
    alpha = (1.0 - confidence_level) / 2.0
    levels = []
    for z in (normal_quantile(alpha), normal_quantile(1.0 - alpha)):
        shifted = z0 + z
        levels.append(float(ndtr(z0 + shifted / (1.0 - acceleration * shifted))))
    low, high = np.quantile(replicates, levels)
    return ConfidenceInterval(float(low), float(high)), z0


def categorical_bootstrap(
    statistic: Statistic,
    samples: Sequence[np.ndarray],
    *,
    n_resamples: int,
    confidence_level: float,
    rng: np.random.Generator,
) -> BootstrapResult:
    """Bootstrap K statistics of independent categorical samples; percentile and BCa intervals.

    Parameters
    ----------
    statistic : callable
        ``statistic(*counts)`` with one array of category counts per sample, shape (..., C_s),
        returning an array (..., K); NaN marks an undefined value.
    samples : sequence of 1-D integer arrays
        Observed category counts of each independent sample (items resampled within it).
    n_resamples : int
        Number of bootstrap replicates B.
    confidence_level : float
        Level of both intervals.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    BootstrapResult
    """
    samples = [np.asarray(c, dtype=np.int64) for c in samples]
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = np.asarray(statistic(*[c[None, :] for c in samples]), dtype=float)[0]
        replicates = np.asarray(statistic(*_resample(samples, n_resamples, rng)), dtype=float)
    finite = np.isfinite(replicates).all(axis=1)
    replicates = replicates[finite]
    acceleration = jackknife_acceleration(statistic, samples)
    alpha = (1.0 - confidence_level) / 2.0
    percentile, bca, z0 = [], [], []
    for j in range(estimate.size):
        column = replicates[:, j]
        if column.size:
            low, high = np.quantile(column, [alpha, 1.0 - alpha])
            percentile.append(ConfidenceInterval(float(low), float(high)))
        else:
            percentile.append(ConfidenceInterval(float("nan"), float("nan")))
        interval, bias = _bca(column, float(estimate[j]), float(acceleration[j]), confidence_level)
        bca.append(interval)
        z0.append(bias)
    return BootstrapResult(
        estimate=estimate,
        replicates=replicates,
        n_dropped=int((~finite).sum()),
        percentile=percentile,
        bca=bca,
        acceleration=acceleration,
        bias_correction=np.asarray(z0),
    )
