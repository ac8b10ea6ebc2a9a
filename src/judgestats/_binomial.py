"""Binomial helpers: tails, pmfs, exact arm p-values, Clopper-Pearson sets.

Shared by :mod:`judgestats.guaranteed` (stratified calibration),
:mod:`judgestats.designs.random_guaranteed` (a random labelled sample),
:mod:`judgestats.designs.labels_only` and the posterior predictive checks. The tails are
regularised incomplete beta functions (:func:`at_most`, :func:`at_least`): scipy's ``bdtr`` and
``bdtrc`` lose accuracy from about ten million trials (``bdtr(5e6, 1e7, 0.5)`` is 0.50148, the
tail 0.50013) and return NaN from 2^31.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "at_least",
    "at_most",
    "arm_p_value",
    "arm_set",
    "arm_support",
    "clopper_pearson",
    "fisher_cutoff",
    "log_pmf",
    "p_value_ends",
]


def log_pmf(k: np.ndarray, size: float, prob: float | np.ndarray) -> np.ndarray:
    """Log Bin(k; size, prob), broadcasting; -inf where the pmf is 0 (prob 0 or 1 included)."""
    from scipy.special import gammaln, xlog1py, xlogy

    with np.errstate(divide="ignore", invalid="ignore"):
        return (
            gammaln(size + 1.0)
            - gammaln(k + 1.0)
            - gammaln(size - k + 1.0)
            + xlogy(k, prob)
            + xlog1py(size - k, -prob)
        )


def at_most(k: Any, m: Any, q: Any) -> np.ndarray:
    r"""P(K <= k) for K ~ Bin(m, q): :math:`I_{1-q}(m - k, k + 1)`; 1 for k >= m, 0 for k < 0."""
    from scipy.special import betainc

    k, m, q = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (k, m, q)))
    inside = (k >= 0) & (k < m)
    with np.errstate(invalid="ignore"):
        tail = betainc(np.where(inside, m - k, 1.0), np.where(inside, k + 1.0, 1.0), 1.0 - q)
    return np.where(inside, tail, np.where(k >= m, 1.0, 0.0))


def at_least(k: Any, m: Any, q: Any) -> np.ndarray:
    r"""P(K >= k) for K ~ Bin(m, q): :math:`I_q(k, m - k + 1)`; 1 for k <= 0, 0 for k > m."""
    from scipy.special import betainc

    k, m, q = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (k, m, q)))
    inside = (k > 0) & (k <= m)
    with np.errstate(invalid="ignore"):
        tail = betainc(np.where(inside, k, 1.0), np.where(inside, m - k + 1.0, 1.0), q)
    return np.where(inside, tail, np.where(k <= 0, 1.0, 0.0))


def arm_p_value(k: int, m: int, q: np.ndarray) -> np.ndarray:
    """Two-sided exact p-value of q for k of m: min(1, 2 min(P(K <= k), P(K >= k)))."""
    if m == 0:
        return np.ones_like(q)
    return np.minimum(1.0, 2.0 * np.minimum(at_most(k, m, q), at_least(k, m, q)))


def p_value_ends(k: int, m: int, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ends of {q: two-sided p-value of q > target} (Clopper-Pearson inversion); NaN stays."""
    from scipy.special import betaincinv

    target = np.asarray(target, dtype=float)
    if m == 0:
        return np.zeros_like(target), np.ones_like(target)
    half = np.minimum(target, 1.0) / 2.0
    low = np.zeros_like(target) if k == 0 else betaincinv(k, m - k + 1, half)
    high = np.ones_like(target) if k == m else betaincinv(k + 1, m - k, 1.0 - half)
    nan = np.isnan(target)
    return np.where(nan, np.nan, low), np.where(nan, np.nan, high)


def clopper_pearson(k: Any, m: Any, level: float) -> tuple[Any, Any]:
    """Clopper-Pearson interval of level ``level`` for k successes of m (arrays broadcast).

    Ends from the Beta quantiles: low = B^-1(a/2; k, m - k + 1) (0 when k = 0), high =
    B^-1(1 - a/2; k + 1, m - k) (1 when k = m), with a = 1 - level; [0, 1] when m = 0.
    """
    from scipy.special import betaincinv

    k, m = np.asarray(k, dtype=float), np.asarray(m, dtype=float)
    tail = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k > 0, betaincinv(np.maximum(k, 1.0), m - k + 1.0, tail), 0.0)
        high = np.where(k < m, betaincinv(k + 1.0, np.maximum(m - k, 1.0), 1.0 - tail), 1.0)
    empty = m == 0
    return np.where(empty, 0.0, low), np.where(empty, 1.0, high)


def arm_set(k: int, m: int, level: float) -> tuple[float, float]:
    """Clopper-Pearson interval of one arm as floats; [0, 1] if m = 0."""
    low, high = clopper_pearson(k, m, level)
    return float(low), float(high)


def arm_support(m: int, low: float, high: float, tail: float) -> np.ndarray:
    """Counts k of Bin(m, q) with mass above ``tail`` for some q in [low, high]."""
    values = np.arange(m + 1, dtype=float)
    # P(K <= k) is largest at the smallest q, P(K >= k) at the largest
    cdf_at_low = np.cumsum(np.exp(log_pmf(values, m, np.float64(low))))
    sf_at_high = np.cumsum(np.exp(log_pmf(values, m, np.float64(high)))[::-1])
    first = int(np.searchsorted(cdf_at_low, tail, side="right"))
    last = m - int(np.searchsorted(sf_at_high, tail, side="right"))
    return values[min(first, last) : max(first, last) + 1]


def fisher_cutoff(gamma: float) -> float:
    """C with c (1 - log c) = gamma: P(U0 U1 <= c) for independent uniforms (Fisher's product)."""
    low, high = 1e-300, gamma
    for _ in range(200):
        mid = math.sqrt(low * high)
        if mid * (1.0 - math.log(mid)) > gamma:
            high = mid
        else:
            low = mid
    return low
