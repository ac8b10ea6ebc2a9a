"""Exact labels-only intervals and binomial tails keep full precision at huge counts.

The hypergeometric law of the labelled count was a difference of log-gammas of size N, which
loses about eps N log N: at N = 1e12 the items interval was 1.6e-4 off its binomial limit, at
1e15 it was 0.012 off. References: exact rational arithmetic, and the binomial limit.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from judgestats.designs.labels_only import _hypergeom_pmf, labels_only_interval


def exact_pmf(y: int, size: int, correct: int, m: int) -> float:
    """P(Y = y) for m drawn without replacement from ``size`` holding ``correct``, exactly."""
    if y > correct or m - y > size - correct:
        return 0.0
    p = Fraction(comb(m, y))
    for i in range(y):
        p *= Fraction(correct - i, size - i)
    for i in range(m - y):
        p *= Fraction(size - correct - i, size - y - i)
    return float(p)


@pytest.mark.parametrize("size", [60, 10**4, 10**9, 10**12, 10**15])
@pytest.mark.parametrize("m", [1, 10, 50])
def test_hypergeometric_law_matches_exact_rationals(size, m):
    for correct in sorted({0, 1, m // 2, size // 3, size - 1, size}):
        got = _hypergeom_pmf(m, size, np.array([correct]))[0]
        want = np.array([exact_pmf(y, size, correct, m) for y in range(m + 1)])
        assert np.array_equal(got == 0, want == 0)
        positive = want > 1e-280
        assert np.allclose(got[positive], want[positive], rtol=1e-10, atol=0)


@pytest.mark.parametrize("method", ["blaker", "clopper_pearson"])
@pytest.mark.parametrize("unlabelled", [10**12, 10**15])
def test_items_interval_tends_to_the_population_interval(method, unlabelled):
    # with N >> m the labelled count is binomial to within m / N, so the share of correct items
    # among N has the population interval to that precision (Clopper-Pearson for 60 of 100:
    # 0.4972, 0.6967; the items interval's ends are multiples of 1 / N)
    items = labels_only_interval(60, 100, unlabelled, method=method, target="items")
    population = labels_only_interval(60, 100, 0, method=method, target="population")
    assert np.allclose(items[1:], population[1:], atol=1e-9, rtol=0)
    if method == "clopper_pearson":
        assert np.allclose(population[1:], (0.49720915, 0.69670523), atol=1e-8)


@pytest.mark.parametrize("m", [2 * 10**7, 2 * 10**9, 2 * 10**12])
def test_binomial_tails_stay_exact_for_huge_m(m):
    # Bin(m, 1/2) is symmetric: P(K <= m/2) = P(K >= m/2) = (1 + P(K = m/2)) / 2; scipy's bdtr
    # gave 0.50148 at m = 1e7 (the tail is 0.50013) and NaN from 2^31
    from math import pi, sqrt

    from judgestats._binomial import at_least, at_most

    half = m // 2  # P(K = h) = C(2h, h) / 4^h by its asymptotic series (log-gammas of size m
    # lose eps m log m)
    centre = (1 - 1 / (8 * half) + 1 / (128 * half**2) + 5 / (1024 * half**3)) / sqrt(pi * half)
    assert float(at_most(half, m, 0.5)) == pytest.approx((1 + centre) / 2, abs=1e-12)
    assert float(at_least(half, m, 0.5)) == pytest.approx((1 + centre) / 2, abs=1e-12)
    assert float(at_most(-1, m, 0.5)) == 0.0 and float(at_least(m + 1, m, 0.5)) == 0.0
    assert float(at_most(m, m, 0.5)) == 1.0 and float(at_least(0, m, 0.5)) == 1.0
