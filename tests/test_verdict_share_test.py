"""The exact random-sampling test behind class_balance_test (designs/_verdict_share_test.py).

References: Fisher's two-sided p-value summed in exact integer arithmetic (math.comb), scipy's
``fisher_exact`` on moderate tables, and the test's size by enumeration of every outcome.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from _references import fisher_two_sided_p
from scipy.stats import fisher_exact

import judgestats as jc
from judgestats.designs._verdict_share_test import verdict_share_p_value

CASES = [
    (30, 100, 400, 1000),
    (5, 10, 50, 100),
    (0, 20, 900, 1000),
    (20, 20, 10, 1000),
    (0, 1, 0, 1),
    (1, 1, 0, 1),
    (0, 3, 7, 7),
    (3, 3, 0, 7),
    (2, 5, 3, 5),
    (55, 100, 500, 1000),
    (50, 100, 500, 1000),
    (130, 200, 300, 800),
    (1, 40, 0, 2000),
    (12, 12, 1900, 2000),
    (3, 3, 7, 7),
    (0, 4, 0, 9),
    (2, 2, 0, 0),
]


@pytest.mark.parametrize(("judged", "m", "test_judged", "n"), CASES)
def test_matches_the_exact_sum(judged, m, test_judged, n):
    expected = fisher_two_sided_p(judged, m, test_judged, n)
    assert verdict_share_p_value(judged, m, test_judged, n) == pytest.approx(expected, rel=1e-9)


def test_matches_scipy_fisher_exact_on_random_tables():
    rng = np.random.default_rng(11)
    for _ in range(200):
        m, n = int(rng.integers(1, 80)), int(rng.integers(1, 400))
        judged, test_judged = int(rng.integers(0, m + 1)), int(rng.integers(0, n + 1))
        table = [[judged, m - judged], [test_judged, n - test_judged]]
        expected = fisher_exact(table).pvalue
        got = verdict_share_p_value(judged, m, test_judged, n)
        assert got == pytest.approx(expected, rel=1e-8, abs=1e-300)


@pytest.mark.parametrize(("m", "n"), [(10, 30), (25, 25), (40, 120)])
def test_size_is_at_most_alpha_for_every_total_by_enumeration(m, n):
    """Given K judged correct among m + n, a random sample rejects with probability <= alpha."""
    total = m + n
    for ones in range(total + 1):
        support = range(max(0, m - (total - ones)), min(m, ones) + 1)
        mass = {
            j: Fraction(math.comb(ones, j) * math.comb(total - ones, m - j), math.comb(total, m))
            for j in support
        }
        p_values = {j: verdict_share_p_value(j, m, ones - j, n) for j in support}
        for alpha in (0.001, 0.01, 0.05):
            assert sum(mass[j] for j in support if p_values[j] <= alpha) <= alpha


def test_huge_population_matches_the_binomial_limit():
    # m = 100 of N = 1e12: J is Binomial(100, K/N) to a relative 1e-8; Fisher's p from the
    # binomial pmf summed by scipy. scipy's own hypergeometric cdf takes 15 s a call here.
    from scipy.stats import binom

    n = 10**12
    for judged, test_judged in [(55, 5 * 10**11), (50, 5 * 10**11), (30, 3 * 10**11), (5, 10**10)]:
        share = (judged + test_judged) / (n + 100)
        pmf = binom.pmf(np.arange(101), 100, share)
        expected = pmf[pmf <= pmf[judged] * (1 + 1e-7)].sum()
        got = verdict_share_p_value(judged, 100, test_judged, n)
        assert got == pytest.approx(min(1.0, expected), rel=1e-6)
    # one labelled item: J = 1 with probability K/N = 0.02, J = 0 more likely
    assert verdict_share_p_value(1, 1, 2 * 10**10, 10**12) == pytest.approx(0.02, rel=1e-9)
    assert verdict_share_p_value(1, 1, 5 * 10**11, 10**12) == 1.0  # J = 0 and 1 equally likely


def test_normal_tails_take_over_smoothly_beyond_normal_sd(monkeypatch):
    """At sd just above NORMAL_SD the normal tails agree with the exact sum to 1e-3."""
    from judgestats.designs import _verdict_share_test as module

    m, n = 404_000_000, 10**12  # sd of J about 10,050
    share = 0.5
    sd = math.sqrt(m * share * (1 - share) * (1 - m / (m + n)))
    assert module.NORMAL_SD < sd < 1.01 * module.NORMAL_SD
    for distance in (0.5, 1.0, 2.0, 3.0):
        judged = m // 2 + round(distance * sd)
        test_judged = round(share * (m + n)) - judged
        normal = verdict_share_p_value(judged, m, test_judged, n)
        monkeypatch.setattr(module, "NORMAL_SD", math.inf)
        summed = verdict_share_p_value(judged, m, test_judged, n)
        monkeypatch.undo()
        assert normal == pytest.approx(summed, rel=1e-3)


def test_huge_counts_answer_sensibly():
    # equal shares: J is the mode, nothing is less likely than nothing: p = 1
    assert verdict_share_p_value(300, 1000, 3 * 10**11, 10**12) == pytest.approx(1.0)
    # 10 standard deviations apart (sd of J about 14.5): p far below 1e-15
    assert verdict_share_p_value(445, 1000, 3 * 10**11, 10**12) < 1e-15
    # a billion labelled items, 2 sd apart: the normal two-sided tail, 0.04550
    sd = math.sqrt(10**9 * 0.3 * 0.7 * (1 - 10**9 / (10**12 + 10**9)))
    p = verdict_share_p_value(3 * 10**8 + round(2 * sd), 10**9, 3 * 10**11 - round(2 * sd), 10**12)
    assert p == pytest.approx(0.0455003, abs=1e-4)


def test_class_balance_difference_is_the_verdict_difference_over_youden():
    """m1/m - theta_RG = (J/m - k/n) / (q0 + q1 - 1), with the calibration's own rates."""
    data = jc.JudgeData(k=300, n=800, k0=50, m0=70, k1=110, m1=130, design="random")
    test = jc.class_balance_test(data)
    youden = 50 / 70 + 110 / 130 - 1
    assert test.labelled_accuracy - test.test_accuracy == pytest.approx(
        (130 / 200 - 300 / 800) / youden, rel=1e-12
    )
    assert test.statistic == pytest.approx(130 / 200 - 300 / 800, rel=1e-12)


def test_a_random_sample_at_an_extreme_accuracy_is_rarely_flagged():
    """The old normal test flagged 1.45% of such samples at 0.001 (class_balance_size.py)."""
    rng = np.random.default_rng(5)
    flagged = tested = 0
    for _ in range(4000):
        m1 = int(rng.binomial(100, 0.02))
        truth = int(rng.binomial(10**6, 0.02))
        k = int(rng.binomial(truth, 0.97) + rng.binomial(10**6 - truth, 0.03))
        k0, k1 = int(rng.binomial(100 - m1, 0.97)), int(rng.binomial(m1, 0.97))
        if m1 == 0 or k0 / (100 - m1) + k1 / m1 <= 1:
            continue
        data = jc.JudgeData(k=k, n=10**6, k0=k0, m0=100 - m1, k1=k1, m1=m1, design="random")
        tested += 1
        flagged += jc.class_balance_test(data).p_value < 0.001
    # at most 0.001 of ~3,400 tested samples in expectation: 3.4; 12 is beyond 4 Poisson sd
    assert tested > 3000 and flagged <= 12


def test_brief_line_says_consistent_only_when_the_test_does_not_reject():
    shifted = jc.JudgeData(k=300, n=800, k0=50, m0=70, k1=110, m1=130, design="random")
    balanced = jc.JudgeData(k=600, n=1000, k0=70, m0=100, k1=90, m1=100, design="random")
    assert "may not be a random sample" in jc.class_balance_test(shifted).brief()
    line = jc.class_balance_test(balanced).brief()
    assert line.endswith("consistent with no shift") and "exact p = 1" in line
