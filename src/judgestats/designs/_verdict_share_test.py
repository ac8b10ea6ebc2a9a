r"""Exact test that the labelled items are a random sample, from the judge's verdicts alone.

Of the :math:`N = m + n` items of a random design, the judge called :math:`K = J + k` correct:
:math:`J` of the :math:`m` labelled items and :math:`k` of the :math:`n` unlabelled ones. If the
labelled items are a simple random sample of the :math:`N` (or all items are drawn alike from
one population, and the judge behaves alike on them), then given :math:`K`

.. math:: J \sim \mathrm{Hypergeometric}(N, K, m),

whatever the accuracy and the judge's error rates. The two-sided p-value is Fisher's: the
probability of every outcome no more likely than the one observed,

.. math:: p = \sum_{j:\ f(j) \le f(J)} f(j),

with :math:`f` the hypergeometric pmf (a relative tolerance of 1e-7 counts ties as ties). The
test is exact: a random sample gives :math:`p \le \alpha` with probability at most
:math:`\alpha`. :func:`judgestats.class_balance_test` uses it: with the calibration's rates
:math:`\hat q_0 = k_0 / m_0`, :math:`\hat q_1 = k_1 / m_1`, the labelled share of correct items
equals the unlabelled items' Rogan-Gladen estimate exactly when :math:`J / m = k / n`, so the
two differ exactly when the verdict shares do.

The pmf is computed, up to its normalising sum, by its ratio
:math:`f(j+1)/f(j) = (K-j)(m-j) / ((j+1)(N-K-m+j+1))` over the outcomes within
:math:`40\sigma + 50` of the mode (:math:`\sigma` the hypergeometric standard deviation).
Beyond them lies less than :math:`e^{-70}` of the mass (Bernstein's inequality, which holds for
sampling without replacement), so a p-value is exact to that absolute error, and one whose
:math:`J` lies beyond them is returned as 0. Where :math:`\sigma` exceeds :data:`NORMAL_SD`
(counts in the hundreds of millions) the two tails are normal with a continuity correction
instead (the skewness is below 1e-4 there), so the cost is bounded: at most 800,101 terms,
whatever the counts.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["verdict_share_p_value"]

#: Outcomes whose pmf is within this relative distance of the observed one's count as ties.
TIE_TOLERANCE = 1e-7
#: Above this standard deviation of J the tails are taken as normal (module docstring).
NORMAL_SD = 10_000.0


def verdict_share_p_value(labelled_judged: int, m: int, test_judged: int, n: int) -> float:
    """Fisher's exact two-sided p-value of J of m labelled against k of n unlabelled items.

    Parameters
    ----------
    labelled_judged : int
        J, the labelled items the judge called correct (0 <= J <= m).
    m : int
        Labelled items (>= 1).
    test_judged : int
        k, the unlabelled items the judge called correct (0 <= k <= n).
    n : int
        Unlabelled items (>= 0).

    Returns
    -------
    float
        The p-value in [0, 1] (module docstring). Counts are the caller's to check.
    """
    total, ones = m + n, labelled_judged + test_judged
    low, high = max(0, m - (total - ones)), min(m, ones)
    share = ones / total
    sd = math.sqrt(m * share * (1 - share) * (total - m) / max(total - 1, 1))
    if sd > NORMAL_SD:
        distance = max(abs(labelled_judged - m * share) - 0.5, 0.0)
        return math.erfc(distance / (sd * math.sqrt(2.0)))
    mode = min(high, max(low, (m + 1) * (ones + 1) // (total + 2)))
    reach = int(40 * sd) + 50
    start, stop = max(low, mode - reach), min(high, mode + reach)
    if not start <= labelled_judged <= stop:
        return 0.0
    j = np.arange(start, stop, dtype=float)  # log f(j + 1) - log f(j)
    log_ratio = np.log((ones - j) * (m - j)) - np.log((j + 1) * (total - ones - m + j + 1))
    log_f = np.concatenate([[0.0], np.cumsum(log_ratio)])  # log f(start + i) - log f(start)
    weights = np.exp(log_f - log_f.max())
    cut = log_f[labelled_judged - start] + math.log1p(TIE_TOLERANCE)
    return min(1.0, float(weights[log_f <= cut].sum() / weights.sum()))
