"""Candidate (d): the guaranteed random-design interval that uses the judge and the class count.

Coverage is computed by exact enumeration: every outcome (m1, k0, k1, k) of a tiny design is
weighted by its probability, written here from the model with scipy.stats.binom (the labelled
class count m1 ~ Bin(m, theta), the arms given m1, the test count given pi), independently of the
code under test, at true accuracies including 0 and 1 and at every judge on a grid over [0, 1]^2
(chance and worse-than-chance judges included).
"""

from __future__ import annotations

import functools
import math
from unittest import mock

import numpy as np
import pytest
from scipy.stats import binom

import judgestats as jc
from judgestats.designs import random_guaranteed
from judgestats.designs.labels_only import labels_only_triple
from judgestats.designs.random_candidates import count_candidates, random_design_candidates
from judgestats.designs.random_guaranteed import (
    LABELLED_MAX,
    guaranteed_judge_ci,
    guaranteed_judge_counts,
)

THETAS = np.array([0.0, 1e-3, 0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95, 0.999, 1.0])
JUDGES = np.linspace(0.0, 1.0, 11)


def outcomes(m: int, n: int, target: str) -> np.ndarray:
    """Rows (m1, k0, k1, k, low, high) for every outcome of a design with m labels, n unlabelled.

    The upper end of an outcome is 1 - the lower end of its mirror (k -> n - k, the arms
    exchanged), itself an outcome here: ``_lower_end``, a pure function of its arguments and
    nearly all of the time, is memoised while the design is enumerated, so each lower end is
    computed once instead of twice and every interval is the same float.
    """
    rows = []
    lower_end = functools.cache(random_guaranteed._lower_end)
    with mock.patch.object(random_guaranteed, "_lower_end", lower_end):
        for m1 in range(m + 1):
            for k0 in range(m - m1 + 1):
                for k1 in range(m1 + 1):
                    for k in range(n + 1):
                        _, low, high = guaranteed_judge_counts(
                            k, n, k0, m - m1, k1, m1, target=target, level=0.95
                        )
                        rows.append((m1, k0, k1, k, low, high))
    return np.array(rows)


def table_probability(rows: np.ndarray, m: int, theta: float, q0: float, q1: float) -> np.ndarray:
    m1, k0, k1 = rows[:, 0], rows[:, 1], rows[:, 2]
    return binom.pmf(m1, m, theta) * binom.pmf(k0, m - m1, q0) * binom.pmf(k1, m1, q1)


def population_coverage(rows: np.ndarray, m: int, n: int) -> float:
    worst = 1.0
    for theta in THETAS:
        covered = (rows[:, 4] <= theta) & (theta <= rows[:, 5])
        for q0 in JUDGES:
            for q1 in JUDGES:
                pi = theta * q1 + (1 - theta) * (1 - q0)
                p = table_probability(rows, m, theta, q0, q1) * binom.pmf(rows[:, 3], n, pi)
                worst = min(worst, float(p[covered].sum()))
    return worst


def unlabelled_joint(n: int, theta: float, q0: float, q1: float) -> np.ndarray:
    """P(k = a, T_u = b) for the n unlabelled items: each item (truth, verdict) independently."""
    cells = {(1, 1): theta * q1, (1, 0): theta * (1 - q1), (0, 1): (1 - theta) * (1 - q0)}
    cells[(0, 0)] = (1 - theta) * q0
    joint = np.zeros((n + 1, n + 1))
    for a in range(n + 1):  # correct and judged correct
        for b in range(n + 1 - a):  # correct and judged incorrect
            for c in range(n + 1 - a - b):  # incorrect and judged correct
                d = n - a - b - c
                ways = math.factorial(n) // (
                    math.factorial(a) * math.factorial(b) * math.factorial(c) * math.factorial(d)
                )
                p = ways * cells[1, 1] ** a * cells[1, 0] ** b * cells[0, 1] ** c
                joint[a + c, a + b] += p * cells[0, 0] ** d
    return joint


def items_coverage(rows: np.ndarray, m: int, n: int) -> float:
    worst = 1.0
    size = n + m
    for theta in THETAS:
        for q0 in JUDGES[::2]:
            for q1 in JUDGES[::2]:
                joint = unlabelled_joint(n, theta, q0, q1)
                p_table = table_probability(rows, m, theta, q0, q1)
                total = 0.0
                for t_u in range(n + 1):
                    share = (rows[:, 0] + t_u) / size
                    covered = (rows[:, 4] <= share + 1e-12) & (share - 1e-12 <= rows[:, 5])
                    total += float((p_table * joint[rows[:, 3].astype(int), t_u])[covered].sum())
                worst = min(worst, total)
    return worst


@pytest.mark.parametrize(
    ("m", "n"),
    [(1, 3), (3, 1), (4, 4), pytest.param(6, 3, marks=pytest.mark.slow)]
    + [pytest.param(8, 6, marks=pytest.mark.slow), pytest.param(5, 40, marks=pytest.mark.slow)],
)
def test_population_coverage_by_enumeration(m, n):
    assert population_coverage(outcomes(m, n, "population"), m, n) >= 0.95 - 1e-12


@pytest.mark.parametrize(("m", "n"), [(3, 2), pytest.param(5, 4, marks=pytest.mark.slow)])
def test_items_coverage_by_enumeration(m, n):
    assert items_coverage(outcomes(m, n, "items"), m, n) >= 0.95 - 1e-12


def test_unlabelled_joint_is_a_distribution():
    joint = unlabelled_joint(4, 0.3, 0.8, 0.7)
    assert joint.sum() == pytest.approx(1.0)
    # margins: k ~ Bin(4, pi), T_u ~ Bin(4, theta)
    assert joint.sum(axis=1) == pytest.approx(binom.pmf(range(5), 4, 0.3 * 0.7 + 0.7 * 0.2))
    assert joint.sum(axis=0) == pytest.approx(binom.pmf(range(5), 4, 0.3))


def test_mirror_symmetry():
    """Swapping correct and incorrect maps the interval for theta to one for 1 - theta."""
    low, high = guaranteed_judge_ci(jc.JudgeData(14, 20, 3, 4, 5, 6, design="random"))
    m_low, m_high = guaranteed_judge_ci(jc.JudgeData(6, 20, 5, 6, 3, 4, design="random"))
    assert low == pytest.approx(1 - m_high, abs=1e-12)
    assert high == pytest.approx(1 - m_low, abs=1e-12)


def test_narrower_than_labels_only_with_a_good_judge():
    """40 labels, judge about 0.93 / 0.95, n = 1000: measured 0.232 against Blaker's 0.306."""
    low, high = guaranteed_judge_ci(jc.JudgeData(600, 1000, 18, 20, 19, 20, design="random"))
    _, b_low, b_high = labels_only_triple(
        20, 40, 1000, method="blaker", target="population", level=0.95
    )
    assert high - low < 0.8 * (b_high - b_low)
    assert low < 0.55 < high  # the labelled share 0.5 and the corrected estimate 0.56


def test_registered_as_a_candidate():
    data = jc.JudgeData(k=70, n=100, k0=8, m0=10, k1=9, m1=10, design="random")
    found = random_design_candidates(data, random_seed=0, draws=200)
    _, low, high = found.intervals["guaranteed_judge"]
    assert (low, high) == tuple(guaranteed_judge_ci(data))
    big = count_candidates(
        600, 1000, 40, 50, 45, 50, target="population", level=0.95, guaranteed_judge=True
    )
    assert all(math.isnan(v) for v in big["guaranteed_judge"])  # m = 100 > LABELLED_MAX


def test_errors_name_the_argument():
    stratified = jc.JudgeData(k=70, n=100, k0=8, m0=10, k1=9, m1=10)
    with pytest.raises(ValueError, match="random"):
        guaranteed_judge_ci(stratified)
    random = jc.JudgeData(k=70, n=100, k0=8, m0=10, k1=9, m1=10, design="random")
    with pytest.raises(ValueError, match="`target`"):
        guaranteed_judge_ci(random, target="sample")
    with pytest.raises(ValueError, match="`confidence_level`"):
        guaranteed_judge_ci(random, confidence_level=1.0)
    large = jc.JudgeData(k=70, n=100, k0=20, m0=30, k1=9, m1=LABELLED_MAX - 29, design="random")
    with pytest.raises(ValueError, match=rf"`data` holds m = {LABELLED_MAX + 1}"):
        guaranteed_judge_ci(large)


@pytest.mark.parametrize("n", [50, 20_001, 10**5, 10**9])
def test_tail_is_an_upper_bound_of_the_exact_tail(n):
    """The test-count tail against scipy's binomial survival function, summed over the tables.

    Windowed sums (n pi (1 - pi) small) match it; the Berry-Esseen branch (n = 10^9) exceeds it
    by less than 0.4748 / 768 = 6.2e-4.
    """
    from judgestats.designs import random_guaranteed as rg

    test = rg._Test(int(0.6 * n), n, 3, 4, 2, 3, 0.95)
    q0, q1 = np.array([0.3, 0.75, 0.999]), np.array([0.9, 0.6, 0.002])
    for t in (0.0, 0.2, 0.7, 1.0):
        found = test.tail(t, q0, q1)
        m1, k0, k1 = test.x[:, 2] + test.x[:, 3], test.x[:, 0], test.x[:, 2]
        for j in range(q0.size):
            pi = t * q1[j] + (1 - t) * (1 - q0[j])
            p_table = binom.pmf(m1, 7, t) * binom.pmf(k0, 7 - m1, q0[j]) * binom.pmf(k1, m1, q1[j])
            exact = float(np.sum(p_table * binom.sf(test.cut - 1, n, pi)))
            assert found[j] >= exact - 1e-12
            assert found[j] <= exact + (6.2e-4 if n == 10**9 else 1e-9)


def test_interval_continuous_where_the_tail_changes_method():
    """n = 20,000 and 20,001 (the two tail methods) agree; a bug once gave [0, 1] there."""
    a = guaranteed_judge_counts(10_000, 20_000, 9, 10, 9, 10, target="population", level=0.95)
    b = guaranteed_judge_counts(10_000, 20_001, 9, 10, 9, 10, target="population", level=0.95)
    c = guaranteed_judge_counts(50_000, 100_000, 9, 10, 9, 10, target="population", level=0.95)
    assert abs(a[1] - b[1]) < 1e-3 and abs(a[2] - b[2]) < 1e-3
    assert 0.25 < c[1] < 0.35 and 0.65 < c[2] < 0.75


def test_items_split_spends_less_on_the_unlabelled_truths_as_n_grows():
    from judgestats.designs.random_guaranteed import items_split

    shares = [items_split(n, 40, 0.95) for n in (100, 1000, 10**5)]
    assert 0.005 <= shares[2] < shares[1] < shares[0] <= 0.995
