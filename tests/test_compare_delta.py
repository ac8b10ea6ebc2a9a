"""Two-model comparison (judgestats.compare), delta method: App. B and C of the follow-up.

"The follow-up" is "Bias and Uncertainty in LLM-as-a-Judge Estimation" (the follow-up on bias and
uncertainty). The delta-method variance is derived by hand from the follow-up's App. B (and Lee et
al., arXiv 2511.21140 v1, App. A.1 per model) and checked against exact enumeration or Monte Carlo
written in the test; the shared-calibration bias against the algebra of the follow-up's App. C.
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
import pytest
from _compare_data import labels
from scipy import stats

import judgestats as jc
from judgestats import JudgeData, JudgeStatsWarning, compare
from judgestats.comparison import expected_shared_bias

Z95 = NormalDist().inv_cdf(0.975)


# ---------------------------------------------------------------------------------------------
# delta method: hand formulas of the follow-up on bias and uncertainty App. B
# ---------------------------------------------------------------------------------------------
def test_shared_delta_matches_the_hand_formula_of_appendix_b():
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    b = JudgeData(k=50, n=100, k0=40, m0=50, k1=45, m1=50)  # one calibration set for both
    with pytest.warns(JudgeStatsWarning):
        result = compare(a, b, calibration="shared")
    assert result.flags == ("instability_unchecked",)
    # App. B: theta_A - theta_B = (p_A - p_B) / J with J = 0.8 + 0.9 - 1 = 0.7
    estimate = 0.1 / 0.7
    variance = (0.6 * 0.4 + 0.5 * 0.5) / 100 / 0.7**2 + 0.1**2 / 0.7**4 * (
        0.8 * 0.2 / 50 + 0.9 * 0.1 / 50
    )
    assert result.estimate == pytest.approx(estimate, rel=1e-12)
    assert result.se == pytest.approx(math.sqrt(variance), rel=1e-12)
    assert result.ci.low == pytest.approx(estimate - Z95 * math.sqrt(variance), rel=1e-9)
    assert result.ci.high == pytest.approx(estimate + Z95 * math.sqrt(variance), rel=1e-9)


def test_model_specific_delta_matches_the_per_model_formula():
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    b = JudgeData(k=55, n=120, k0=30, m0=40, k1=54, m1=60)
    result = compare(a, b)

    def theta_and_variance(p, n, q0, m0, q1, m1):  # Lee et al. v1 App. A.1
        j = q0 + q1 - 1
        theta = (p + q0 - 1) / j
        return theta, (
            p * (1 - p) / n + (1 - theta) ** 2 * q0 * (1 - q0) / m0 + theta**2 * q1 * (1 - q1) / m1
        ) / j**2

    ta, va = theta_and_variance(0.6, 100, 0.8, 50, 0.9, 50)
    tb, vb = theta_and_variance(55 / 120, 120, 0.75, 40, 0.9, 60)
    assert result.estimate == pytest.approx(ta - tb, rel=1e-12)
    assert result.se == pytest.approx(math.sqrt(va + vb), rel=1e-12)
    assert result.theta_a.estimate == pytest.approx(ta)
    # per-model rows: the Lang-Reiczigel interval of each model on its own counts
    assert (result.theta_b.low, result.theta_b.high) == pytest.approx(tuple(jc.estimate(b).ci))


@pytest.mark.parametrize("calibration", ["shared", "model_specific"])
def test_paired_test_term_comes_from_per_item_differences(calibration):
    cells = (40, 12, 6, 42)
    ca, cb = (40, 50, 45, 50), (35, 50, 44, 50)
    a, b = labels(cells, (ca, cb), np.random.default_rng(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # shared: the App. C bias is flagged
        result = compare(a, b, calibration=calibration)
    ja = 40 / 50 + 45 / 50 - 1
    jb = ja if calibration == "shared" else 35 / 50 + 44 / 50 - 1
    w = a.test_judge / ja - b.test_judge / jb
    test_term = np.var(w) / w.size  # plug-in variance of the per-item differences, over n
    pa, pb = a.test_judge.mean(), b.test_judge.mean()
    if calibration == "shared":
        calib = (pa - pb) ** 2 / ja**4 * (0.8 * 0.2 / 50 + 0.9 * 0.1 / 50)
    else:
        calib = 0.0
        for p, (k0, m0, k1, m1) in ((pa, ca), (pb, cb)):
            q0, q1 = k0 / m0, k1 / m1
            theta = (p + q0 - 1) / (q0 + q1 - 1)
            calib += ((1 - theta) ** 2 * q0 * (1 - q0) / m0 + theta**2 * q1 * (1 - q1) / m1) / (
                q0 + q1 - 1
            ) ** 2
    assert result.paired
    assert result.se**2 == pytest.approx(test_term + calib, rel=1e-12)


def test_shared_delta_variance_matches_exact_enumeration():
    # theta_A - theta_B = D / (n J): D = k_A - k_B and J are independent, so
    # E[X] = E[D] E[1/J] / n and E[X^2] = E[D^2] E[1/J^2] / n^2, summed exactly over the binomials
    n, m0, m1 = 400, 200, 200
    pa, pb, q0, q1 = 0.6, 0.5, 0.8, 0.85
    ka, kb = np.arange(n + 1), np.arange(n + 1)
    pmf_a, pmf_b = stats.binom.pmf(ka, n, pa), stats.binom.pmf(kb, n, pb)
    d = ka[:, None] - kb[None, :]
    joint = pmf_a[:, None] * pmf_b[None, :]
    j = np.arange(m0 + 1)[:, None] / m0 + np.arange(m1 + 1)[None, :] / m1 - 1
    pj = (
        stats.binom.pmf(np.arange(m0 + 1), m0, q0)[:, None]
        * stats.binom.pmf(np.arange(m1 + 1), m1, q1)[None, :]
    )
    valid = j > 0
    assert pj[~valid].sum() < 1e-12
    inv_j, inv_j2 = (pj[valid] / j[valid]).sum(), (pj[valid] / j[valid] ** 2).sum()
    mean = (joint * d).sum() * inv_j / n
    variance = (joint * d**2).sum() * inv_j2 / n**2 - mean**2
    a = JudgeData(k=240, n=n, k0=160, m0=m0, k1=170, m1=m1)
    b = JudgeData(k=200, n=n, k0=160, m0=m0, k1=170, m1=m1)
    with pytest.warns(JudgeStatsWarning):
        result = compare(a, b, calibration="shared")
    assert result.flags == ("instability_unchecked",)
    assert result.se**2 == pytest.approx(variance, rel=0.03)


def test_model_specific_delta_variance_matches_exact_enumeration():
    # theta = (p + q0 - 1) / J with p independent of (q0, q1): the moments of p are exact
    # (E p = pi, E p^2 = pi^2 + pi(1 - pi)/n) and (k0, k1) are summed over their binomials
    def exact_variance(n, pi, m0, q0, m1, q1):
        g0 = np.arange(m0 + 1)[:, None] / m0
        g1 = np.arange(m1 + 1)[None, :] / m1
        w = (
            stats.binom.pmf(np.arange(m0 + 1), m0, q0)[:, None]
            * stats.binom.pmf(np.arange(m1 + 1), m1, q1)[None, :]
        )
        j = g0 + g1 - 1
        ok = j > 0
        first = ((pi + g0 - 1) / np.where(ok, j, 1))[ok]
        second = (((pi + g0 - 1) ** 2 + pi * (1 - pi) / n) / np.where(ok, j, 1) ** 2)[ok]
        total = w[ok].sum()
        return (w[ok] * second).sum() / total - ((w[ok] * first).sum() / total) ** 2

    va = exact_variance(500, 0.62, 250, 0.84, 250, 0.88)
    vb = exact_variance(500, 0.50, 250, 0.76, 250, 0.92)
    a = JudgeData(k=310, n=500, k0=210, m0=250, k1=220, m1=250)
    b = JudgeData(k=250, n=500, k0=190, m0=250, k1=230, m1=250)
    assert compare(a, b).se ** 2 == pytest.approx(va + vb, rel=0.03)


@pytest.mark.parametrize("calibration", ["shared", "model_specific"])
def test_paired_delta_variance_matches_monte_carlo(calibration):
    # verdict cells multinomial, calibration counts binomial; the estimator written out by hand
    rng = np.random.default_rng(11)
    reps, n, m = 40_000, 600, 300
    probs = np.array([0.45, 0.15, 0.05, 0.35])
    qa, qb = (0.8, 0.9), (0.7, 0.85)
    cells = rng.multinomial(n, probs, size=reps)
    pa, pb = (cells[:, 0] + cells[:, 1]) / n, (cells[:, 0] + cells[:, 2]) / n
    q0a, q1a = rng.binomial(m, qa[0], reps) / m, rng.binomial(m, qa[1], reps) / m
    q0b, q1b = rng.binomial(m, qb[0], reps) / m, rng.binomial(m, qb[1], reps) / m
    if calibration == "shared":
        q0b, q1b = q0a, q1a
    diff = (pa + q0a - 1) / (q0a + q1a - 1) - (pb + q0b - 1) / (q0b + q1b - 1)
    a, b = labels(
        tuple(int(n * p) for p in probs),
        ((int(m * qa[0]), m, int(m * qa[1]), m), (int(m * qb[0]), m, int(m * qb[1]), m)),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # instability under shared: expected
        result = compare(a, b, calibration=calibration)
    # Monte Carlo standard error of a variance from 40,000 draws is about 0.7%
    assert result.se**2 == pytest.approx(np.var(diff), rel=0.04)


def test_pairing_shrinks_the_interval_when_verdicts_agree():
    ca = (40, 50, 45, 50)
    a, b = labels((50, 10, 5, 35), (ca, ca))
    counts_a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    counts_b = JudgeData(k=55, n=100, k0=40, m0=50, k1=45, m1=50)
    paired = compare(a, b, calibration="shared")
    with pytest.warns(JudgeStatsWarning):
        unpaired = compare(counts_a, counts_b, calibration="shared")
    assert unpaired.flags == ("instability_unchecked",)
    assert paired.estimate == pytest.approx(unpaired.estimate)
    assert paired.se < unpaired.se


# ---------------------------------------------------------------------------------------------
# the follow-up on bias and uncertainty App. C: the shared-calibration bias
# ---------------------------------------------------------------------------------------------
def test_expected_bias_is_the_limit_of_the_shared_estimator():
    # counts at their expected values: theta_A = 0.7, theta_B = 0.6, (q0, q1) = (0.8, 0.9) for A
    # and (0.7, 0.85) for B; p_A = 0.7*0.9 + 0.3*0.2 = 0.69, p_B = 0.6*0.85 + 0.4*0.3 = 0.63
    a = JudgeData(k=690, n=1000, k0=800, m0=1000, k1=900, m1=1000)
    b = JudgeData(k=630, n=1000, k0=700, m0=1000, k1=850, m1=1000)
    own = compare(a, b)
    assert own.estimate == pytest.approx(0.1, abs=1e-12)
    with pytest.warns(JudgeStatsWarning):
        shared = compare(a, b, calibration="shared")
    assert "instability_under_shared" in shared.flags
    # shared: (0.69 - 0.63) / 0.7; App. C: (theta_B dJ - dq0) / J_A = (0.6*0.15 - 0.1) / 0.7
    assert shared.estimate == pytest.approx(0.06 / 0.7, abs=1e-12)
    assert shared.expected_bias == pytest.approx((0.6 * 0.15 - 0.1) / 0.7, abs=1e-12)
    assert shared.expected_bias == pytest.approx(shared.estimate - 0.1, abs=1e-12)
    assert own.expected_bias == shared.expected_bias
    # the last line of App. C: (theta_B dq1 - (1 - theta_B) dq0) / J_A
    assert expected_shared_bias(0.6, 0.8, 0.9, 0.7, 0.85) == pytest.approx(
        (0.6 * 0.05 - 0.4 * 0.1) / 0.7
    )


def test_diagnostics_youden_and_instability_intervals():
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    b = JudgeData(k=55, n=100, k0=30, m0=40, k1=54, m1=60)
    result = compare(a, b)
    # Agresti-Caffo: add one success and one failure to every arm
    q0a, q1a, q0b, q1b = 41 / 52, 46 / 52, 31 / 42, 55 / 62
    va = q0a * (1 - q0a) / 52 + q1a * (1 - q1a) / 52
    vb = q0b * (1 - q0b) / 42 + q1b * (1 - q1b) / 62
    assert result.youden["A"].estimate == pytest.approx(0.7)
    assert (result.youden["A"].low, result.youden["A"].high) == pytest.approx(
        (q0a + q1a - 1 - Z95 * math.sqrt(va), q0a + q1a - 1 + Z95 * math.sqrt(va))
    )
    centre = (q0a + q1a) - (q0b + q1b)
    assert result.instability.estimate == pytest.approx(0.7 - 0.65)
    assert (result.instability.low, result.instability.high) == pytest.approx(
        (centre - Z95 * math.sqrt(va + vb), centre + Z95 * math.sqrt(va + vb))
    )
    d0 = q0a - q0b
    s0 = math.sqrt(q0a * (1 - q0a) / 52 + q0b * (1 - q0b) / 42)
    assert (result.delta_q0.low, result.delta_q0.high) == pytest.approx(
        (d0 - Z95 * s0, d0 + Z95 * s0)
    )
