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
    "arm_range",
    "arm_support",
    "block_mass_bound",
    "clopper_pearson",
    "fisher_cutoff",
    "log_pmf",
    "p_value_ends",
]


#: Trials up to which :func:`log_pmf` is a difference of log-gammas (error below eps m log m,
#: 1e-11 relative there); beyond, the saddle-point form.
_GAMMALN_UP_TO = 10_000


def log_pmf(k: np.ndarray, size: float, prob: float | np.ndarray) -> np.ndarray:
    r"""Log Bin(k; size, prob), broadcasting; -inf where the pmf is 0 (prob 0 or 1 included).

    Up to 10^4 trials the difference of log-gammas; beyond it, whose error grows as
    eps m log m (2e-3 at m = 10^12), the saddle-point form (Loader, "Fast and accurate
    computation of binomial probabilities", 2000), accurate to a few units of round-off
    times the log's size at every m:

    .. math:: \log p(k) = \delta(m) - \delta(k) - \delta(m - k)
              - \tfrac12 \log\frac{2\pi k (m - k)}{m} - b(k, m q) - b(m - k, m (1 - q)),

    with :math:`\delta(z) = \log\Gamma(z+1) - (z \log z - z + \tfrac12\log 2\pi z)`
    (Stirling's error) and the deviance :math:`b(x, \mu) = x \log(x/\mu) + \mu - x` (a
    series in :math:`(x-\mu)/(x+\mu)` where they are close, :func:`_deviance`).
    """
    from scipy.special import gammaln, xlog1py, xlogy

    if np.max(size) <= _GAMMALN_UP_TO:
        with np.errstate(divide="ignore", invalid="ignore"):
            return (
                gammaln(size + 1.0)
                - gammaln(k + 1.0)
                - gammaln(size - k + 1.0)
                + xlogy(k, prob)
                + xlog1py(size - k, -prob)
            )
    k, m, q = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (k, size, prob)))
    inner = (k > 0.0) & (k < m) & (q > 0.0) & (q < 1.0)
    sk, sm, sq = (np.where(inner, a, fill) for a, fill in ((k, 1.0), (m, 2.0), (q, 0.5)))
    with np.errstate(divide="ignore", invalid="ignore"):
        saddle = (
            _stirling_error(sm)
            - _stirling_error(sk)
            - _stirling_error(sm - sk)
            - 0.5 * np.log(2.0 * np.pi * sk * ((sm - sk) / sm))
            - _deviance(sk, sm * sq)
            - _deviance(sm - sk, sm * (1.0 - sq))
        )
        # k = 0 or m, or q at 0 or 1: the pmf is q^k (1 - q)^(m - k) (or 0 outside 0..m)
        edge = xlogy(k, q) + xlog1py(m - k, -q)
    inside = (k >= 0.0) & (k <= m)
    return np.where(inner, saddle, np.where(inside, edge, -np.inf))


def _stirling_error(z: np.ndarray) -> np.ndarray:
    """Stirling's error log Gamma(z + 1) - (z log z - z + log(2 pi z) / 2); a series from 15."""
    from scipy.special import gammaln

    safe = np.maximum(z, 15.0)
    w = 1.0 / (safe * safe)
    series = (1 / 12 - w * (1 / 360 - w * (1 / 1260 - w * (1 / 1680 - w / 1188)))) / safe
    small = np.minimum(z, 15.0)
    direct = gammaln(small + 1.0) - (
        small * np.log(small) - small + 0.5 * np.log(2 * np.pi * small)
    )
    return np.where(z >= 15.0, series, direct)


def _deviance(x: np.ndarray, mean: np.ndarray) -> np.ndarray:
    r"""The deviance x log(x / mean) + mean - x >= 0, without cancellation near the mean.

    There, with :math:`v = (x - \mu)/(x + \mu)`, it is
    :math:`(x - \mu) v + 2x \sum_{j \ge 1} v^{2j+1}/(2j+1)` (the series of
    :math:`\log\frac{1+v}{1-v}`; 12 terms reach round-off for |v| < 0.1).
    """
    v = (x - mean) / (x + mean)
    near = np.abs(v) < 0.1
    vv = np.where(near, v, 0.0)
    square, power, total = vv * vv, vv.copy(), np.zeros_like(vv)
    for j in range(1, 13):
        power = power * square
        total += power / (2 * j + 1)
    series = (x - mean) * vv + 2.0 * x * total
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = x * np.log(x / mean) + mean - x
    return np.where(near, series, direct)


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


def arm_range(m: int, low: float, high: float, tail: float) -> tuple[int, int]:
    """First and last count k of Bin(m, q) with mass above ``tail`` for some q in [low, high].

    The first is the smallest k with P_low(K <= k) > ``tail``, the last the largest k with
    P_high(K >= k) > ``tail`` (P(K <= k) is largest at the smallest q, P(K >= k) at the
    largest), each found by bisection over the integers on the incomplete-beta tails: about
    2 log2(m) tail evaluations, so the cost does not grow with m.
    """
    first = _first_above(lambda k: float(at_most(k, m, low)) > tail, m)
    last = m - _first_above(lambda i: float(at_least(m - i, m, high)) > tail, m)
    return min(first, last), max(first, last)


def _first_above(above: Any, m: int) -> int:
    """Smallest integer i in [0, m] with ``above(i)`` true (``above`` monotone), or m."""
    lo, hi = 0, m
    while lo < hi:
        mid = (lo + hi) // 2
        if above(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def arm_support(m: int, low: float, high: float, tail: float) -> np.ndarray:
    """Counts k of Bin(m, q) with mass above ``tail`` for some q in [low, high] (floats)."""
    first, last = arm_range(m, low, high, tail)
    return np.arange(first, last + 1, dtype=float)


def block_mass_bound(lower: np.ndarray, upper: np.ndarray, m: int, q: np.ndarray) -> np.ndarray:
    r"""An upper bound of P(lower <= K <= upper) for K ~ Bin(m, q), exact for blocks of 1-3 counts.

    The binomial pmf is log-concave: its ratio :math:`r(k) = p(k+1)/p(k) =
    \frac{m-k}{k+1}\frac{q}{1-q}` falls as k rises. From the block's centre
    :math:`c = \lfloor (\text{lower} + \text{upper})/2 \rfloor`, with u counts above it and d below,
    :math:`p(c + i) \le p(c)\, r(c)^i` and :math:`p(c - i) \le p(c)\, r(c-1)^{-i}`, so

    .. math:: P(\text{lower} \le K \le \text{upper}) \le p(c)\,\big(1 + G(r(c), u)
              + G(1/r(c-1), d)\big), \qquad G(r, u) = \sum_{i=1}^{u} r^i,

    equal when u, d <= 1. Its cost does not depend on the block's width (sums of geometric
    series, in logarithms); over a block of w counts it exceeds the mass by a relative
    :math:`O(w^2 / (m q (1 - q)))`. At q = 0 or 1 the mass (1 on the block holding 0, resp.
    m, else 0) is returned exactly. Arrays broadcast; integer-valued bounds, lower <= upper.
    """
    lower, upper, q = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (lower, upper, q)))
    centre = np.floor((lower + upper) / 2.0)
    inner = (q > 0.0) & (q < 1.0)
    qi = np.where(inner, q, 0.5)
    with np.errstate(divide="ignore", invalid="ignore"):
        # 1 - r(c) = (c + 1 - q (m + 1)) / ((c + 1)(1 - q)), and 1 - 1/r(c - 1) likewise
        up = _log_geometric(
            (centre + 1.0 - qi * (m + 1.0)) / ((centre + 1.0) * (1.0 - qi)), upper - centre
        )
        down = _log_geometric(
            ((m - centre + 1.0) * qi - centre * (1.0 - qi)) / ((m - centre + 1.0) * qi),
            centre - lower,
        )
        log_mass = log_pmf(centre, m, qi) + np.logaddexp(0.0, np.logaddexp(up, down))
    edge = np.where((q <= 0.0) & (lower <= 0.0), 1.0, 0.0)
    edge = np.where((q >= 1.0) & (upper >= m), 1.0, edge)
    return np.where(inner, np.exp(log_mass), edge)


def _log_geometric(gap: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """Log of sum_{i=1}^{terms} r^i, r = 1 - ``gap`` > 0 (-inf for no terms; log terms at r = 1)."""
    log_r = np.log1p(-gap)
    x = terms * log_r
    # log|expm1(x)|, without overflow for large x
    log_growth = np.where(x > 0.0, x + np.log(-np.expm1(-np.abs(x))), np.log(-np.expm1(-np.abs(x))))
    out = log_r + log_growth - np.log(np.abs(gap))
    out = np.where(gap == 0.0, np.log(terms), out)
    return np.where(terms > 0.0, out, -np.inf)


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
