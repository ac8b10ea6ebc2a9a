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

**Monte Carlo error of the ends.** An end is the empirical ``a``-quantile of B replicates. The
number of replicates below the true bootstrap quantile is Binomial(B, a), so the order statistics
of ranks :math:`Ba \mp 1.96\sqrt{Ba(1 - a)}` bracket it with probability about 0.95 (the
distribution-free quantile interval, Davison & Hinkley 1997, sec. 2.5.2). Their half-distance is
the end's Monte Carlo error (:attr:`BootstrapResult.percentile_mc`, :attr:`BootstrapResult.bca_mc`);
fewer than :data:`MIN_N_RESAMPLES` replicates are refused, since the ends would then be the
extreme replicates, whatever the level.

numpy only; the normal distribution function comes from :mod:`scipy.special` (lazily).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from judgestats.frequentist import normal_quantile
from judgestats.results import ConfidenceInterval

__all__ = ["MIN_N_RESAMPLES", "BootstrapResult", "categorical_bootstrap", "quantile_mc_band"]

#: The fewest replicates accepted: with fewer, a 95% interval's ends are the 2nd or 3rd
#: smallest and largest replicates and their Monte Carlo error is of the order of the interval.
MIN_N_RESAMPLES = 200
#: The normal quantile of the Monte Carlo bands of the ends (about 95%).
_MC_Z = 1.959963984540054

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
    percentile_mc, bca_mc : ndarray, shape (K, 2, 2)
        About 95% Monte Carlo bands of the ends, ``[j, end] = (band_low, band_high)`` for
        ``end`` 0 (low) and 1 (high) (module docstring; NaN where the interval is undefined).
    """

    estimate: np.ndarray
    replicates: np.ndarray
    n_dropped: int
    percentile: list[ConfidenceInterval]
    bca: list[ConfidenceInterval]
    acceleration: np.ndarray
    bias_correction: np.ndarray
    percentile_mc: np.ndarray
    bca_mc: np.ndarray


def quantile_mc_band(replicates: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """About 95% Monte Carlo bands of the empirical quantiles at ``levels``, shape (len, 2).

    The ranks ``B a -/+ 1.96 sqrt(B a (1 - a))`` of the sorted replicates (module docstring).
    """
    size = replicates.size
    if size == 0:
        return np.full((len(levels), 2), np.nan)
    ordered = np.sort(replicates)
    bands = []
    for level in levels:
        if not np.isfinite(level):
            bands.append((np.nan, np.nan))
            continue
        centre, spread = size * level, _MC_Z * np.sqrt(size * level * (1.0 - level))
        low = int(np.clip(np.floor(centre - spread) - 1, 0, size - 1))
        high = int(np.clip(np.ceil(centre + spread), 0, size - 1))
        bands.append((float(ordered[low]), float(ordered[high])))
    return np.asarray(bands, dtype=float)


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
) -> tuple[ConfidenceInterval, float, list[float]]:
    """The BCa interval, z0-hat and the two quantile levels used (NaN where undefined)."""
    from scipy.special import ndtr

    size = replicates.size
    below = np.count_nonzero(replicates < estimate) + 0.5 * np.count_nonzero(replicates == estimate)
    if size == 0 or below == 0 or below == size or not np.isfinite(acceleration):
        return ConfidenceInterval(float("nan"), float("nan")), float("nan"), [np.nan, np.nan]
    z0 = normal_quantile(below / size)
    alpha = (1.0 - confidence_level) / 2.0
    levels = []
    for z in (normal_quantile(alpha), normal_quantile(1.0 - alpha)):
        shifted = z0 + z
        levels.append(float(ndtr(z0 + shifted / (1.0 - acceleration * shifted))))
    low, high = np.quantile(replicates, levels)
    return ConfidenceInterval(float(low), float(high)), z0, levels


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
        Number of bootstrap replicates B, at least :data:`MIN_N_RESAMPLES`.
    confidence_level : float
        Level of both intervals.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    BootstrapResult

    Raises
    ------
    ValueError
        If ``n_resamples`` is below :data:`MIN_N_RESAMPLES`.
    """
    if n_resamples < MIN_N_RESAMPLES:
        raise ValueError(
            f"`n_resamples` ({n_resamples}) must be at least {MIN_N_RESAMPLES}: with fewer "
            "replicates the interval's ends are the extreme replicates and their Monte Carlo "
            "error is as large as the interval (use 2000 or more to report)."
        )
    samples = [np.asarray(c, dtype=np.int64) for c in samples]
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = np.asarray(statistic(*[c[None, :] for c in samples]), dtype=float)[0]
        replicates = np.asarray(statistic(*_resample(samples, n_resamples, rng)), dtype=float)
    finite = np.isfinite(replicates).all(axis=1)
    replicates = replicates[finite]
    acceleration = jackknife_acceleration(statistic, samples)
    alpha = (1.0 - confidence_level) / 2.0
    percentile, bca, z0, percentile_mc, bca_mc = [], [], [], [], []
    for j in range(estimate.size):
        column = replicates[:, j]
        if column.size:
            low, high = np.quantile(column, [alpha, 1.0 - alpha])
            percentile.append(ConfidenceInterval(float(low), float(high)))
        else:
            percentile.append(ConfidenceInterval(float("nan"), float("nan")))
        percentile_mc.append(quantile_mc_band(column, [alpha, 1.0 - alpha]))
        interval, bias, levels = _bca(
            column, float(estimate[j]), float(acceleration[j]), confidence_level
        )
        bca.append(interval)
        z0.append(bias)
        bca_mc.append(quantile_mc_band(column, levels))
    return BootstrapResult(
        estimate=estimate,
        replicates=replicates,
        n_dropped=int((~finite).sum()),
        percentile=percentile,
        bca=bca,
        acceleration=acceleration,
        bias_correction=np.asarray(z0),
        percentile_mc=np.asarray(percentile_mc).reshape(estimate.size, 2, 2),
        bca_mc=np.asarray(bca_mc).reshape(estimate.size, 2, 2),
    )
