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

The pmf is unimodal, so the outcomes no more likely than :math:`J` are two tails: :math:`J`'s own,
and one on the far side of the mode, whose end is found by bisection. The cost is a few dozen
evaluations of the pmf and two tail sums (``scipy.stats.hypergeom``), at any :math:`N`.
"""

from __future__ import annotations

import math

__all__ = ["verdict_share_p_value"]

#: Outcomes whose pmf is within this relative distance of the observed one's count as ties.
TIE_TOLERANCE = 1e-7


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
        Unlabelled items (>= 1).

    Returns
    -------
    float
        The p-value in [0, 1] (module docstring). Counts are the caller's to check.
    """
    from scipy.stats import hypergeom

    dist = hypergeom(m + n, labelled_judged + test_judged, m)
    low, high = (int(end) for end in dist.support())
    mode = min(high, max(low, (m + 1) * (labelled_judged + test_judged + 1) // (m + n + 2)))
    cut = float(dist.logpmf(labelled_judged)) + math.log1p(TIE_TOLERANCE)
    if labelled_judged <= mode:  # its own tail: J and below; the other: b and above
        b = _first_below(dist.logpmf, mode, high, cut, upward=True)
        p = float(dist.cdf(labelled_judged)) + (float(dist.sf(b - 1)) if b <= high else 0.0)
    else:  # its own tail: J and above; the other: a and below
        a = _first_below(dist.logpmf, mode, low, cut, upward=False)
        p = float(dist.sf(labelled_judged - 1)) + (float(dist.cdf(a)) if a >= low else 0.0)
    return min(1.0, p)


def _first_below(logpmf, start: int, end: int, cut: float, *, upward: bool) -> int:
    """The outcome nearest ``start`` towards ``end`` whose log-pmf is <= ``cut``.

    The log-pmf falls monotonically from the mode ``start`` to ``end``. Returns ``end`` + 1
    (``upward``) or ``end`` - 1 when no outcome on that side is that unlikely.
    """
    step = 1 if upward else -1
    if float(logpmf(end)) > cut:
        return end + step
    inside, outside = start, end  # logpmf(inside) > cut (or inside is the mode), outside <= cut
    while abs(outside - inside) > 1:
        middle = (inside + outside) // 2
        if float(logpmf(middle)) <= cut:
            outside = middle
        else:
            inside = middle
    if float(logpmf(inside)) <= cut:  # the mode itself (every outcome ties with J's)
        return inside
    return outside
