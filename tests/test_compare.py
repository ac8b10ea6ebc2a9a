"""Two-model comparison (judgestats.compare): App. B-C of the follow-up, bootstrap, hierarchy.

"The follow-up" is "Bias and Uncertainty in LLM-as-a-Judge Estimation" (the follow-up on bias and
uncertainty). Every expected number is derived here: the delta-method variance by hand from the
follow-up's App. B (and Lee et al., arXiv 2511.21140 v1, App. A.1 per model) and checked against
exact enumeration or Monte Carlo written in the test; the BCa acceleration by a brute-force
item-by-item jackknife; the bootstrap against the delta method on a large sample and against
scipy.stats.bootstrap; the shared-calibration bias against the algebra of the follow-up's App. C.
"""

from __future__ import annotations

import importlib
import json
import math
import warnings
from statistics import NormalDist

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from scipy import special, stats  # noqa: E402

import judgestats as jc  # noqa: E402
from judgestats import JudgeData, JudgeStatsWarning, ModelLabels, compare  # noqa: E402
from judgestats.cli import main  # noqa: E402
from judgestats.comparison import NOTE_FLAGS, WARNING_FLAGS, expected_shared_bias  # noqa: E402
from judgestats.results import FLAG_MESSAGES, IntervalResult, Result  # noqa: E402

Z95 = NormalDist().inv_cdf(0.975)


def labels(cells, calib=None, rng=None):
    """ModelLabels pair from verdict cells (both, A only, B only, neither) and calibration counts.

    ``calib`` = ((k0, m0, k1, m1) of A, (k0, m0, k1, m1) of B or None).
    """
    both, a_only, b_only, neither = cells
    ya = np.array([1] * both + [1] * a_only + [0] * b_only + [0] * neither)
    yb = np.array([1] * both + [0] * a_only + [1] * b_only + [0] * neither)
    out = []
    for y, c in zip((ya, yb), calib, strict=True):
        if c is None:
            out.append(ModelLabels(y))
            continue
        k0, m0, k1, m1 = c
        human = np.array([0] * m0 + [1] * m1)
        judge = np.array([0] * k0 + [1] * (m0 - k0) + [1] * k1 + [0] * (m1 - k1))
        if rng is not None:
            order = rng.permutation(human.size)
            human, judge = human[order], judge[order]
        out.append(ModelLabels(y, human, judge))
    return out


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


# ---------------------------------------------------------------------------------------------
# bootstrap
# ---------------------------------------------------------------------------------------------
def test_bootstrap_agrees_with_the_delta_method_on_a_large_sample():
    a, b = labels(
        (9000, 3000, 1500, 6500),
        ((2400, 3000, 2700, 3000), (2200, 3000, 2650, 3000)),
        np.random.default_rng(0),
    )
    delta = compare(a, b)
    boot = compare(a, b, method="bootstrap", random_seed=5, bootstrap={"n_resamples": 4000})
    half = delta.ci.high - delta.estimate
    assert boot.estimate == pytest.approx(delta.estimate, abs=1e-12)
    for kind in ("percentile", "bca"):
        assert boot.intervals[kind].low == pytest.approx(delta.ci.low, abs=0.06 * half)
        assert boot.intervals[kind].high == pytest.approx(delta.ci.high, abs=0.06 * half)


def _jackknife_acceleration(samples, statistic):
    """Brute force: leave out every item of every sample (Efron & Tibshirani eq. 14.15,
    multi-sample form of Davison & Hinkley sec. 3.2)."""
    num = den = 0.0
    for s, sample in enumerate(samples):
        n = sample.size
        values = []
        for i in range(n):
            args = list(samples)
            args[s] = np.delete(sample, i)
            values.append(statistic(*args))
        values = np.array(values)
        u = (n - 1) * (values.mean() - values)
        num += (u**3).sum() / n**3
        den += (u**2).sum() / n**2
    return num / (6 * den**1.5)


def _difference_statistic(pairs, a0, a1, b0, b1, axis=-1):
    """theta_A - theta_B from item-level arrays; pairs coded 2*y_A + y_B."""
    ya, yb = (pairs >= 2).mean(axis=axis), (pairs % 2).mean(axis=axis)
    q0a, q1a = (a0 == 0).mean(axis=axis), (a1 == 1).mean(axis=axis)
    q0b, q1b = (b0 == 0).mean(axis=axis), (b1 == 1).mean(axis=axis)
    return (ya + q0a - 1) / (q0a + q1a - 1) - (yb + q0b - 1) / (q0b + q1b - 1)


def _item_samples(cells, ca, cb):
    pairs = np.repeat([3, 2, 1, 0], cells)
    arms = []
    for k0, m0, k1, m1 in (ca, cb):
        arms += [np.array([0] * k0 + [1] * (m0 - k0)), np.array([1] * k1 + [0] * (m1 - k1))]
    return [pairs, *arms]


def test_bca_acceleration_equals_the_brute_force_jackknife():
    cells, ca, cb = (30, 9, 4, 17), (22, 30, 25, 30), (18, 25, 27, 35)
    a, b = labels(cells, (ca, cb), np.random.default_rng(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # calibration arms under 30 items
        boot = compare(a, b, method="bootstrap", random_seed=2, bootstrap={"n_resamples": 200})
    expected = _jackknife_acceleration(_item_samples(cells, ca, cb), _difference_statistic)
    assert boot.details["acceleration"] == pytest.approx(expected, rel=1e-9)


def test_bca_interval_agrees_with_scipy_bootstrap():
    cells, ca, cb = (60, 18, 8, 34), (40, 50, 44, 50), (36, 45, 50, 55)
    a, b = labels(cells, (ca, cb))
    ours = compare(a, b, method="bootstrap", random_seed=7, bootstrap={"n_resamples": 20_000})
    theirs = stats.bootstrap(
        tuple(_item_samples(cells, ca, cb)),
        _difference_statistic,
        n_resamples=20_000,
        method="BCa",
        vectorized=True,
        random_state=np.random.default_rng(8),
    ).confidence_interval
    # Monte Carlo error of an end point with 20,000 replicates is about 2% of the standard error
    tolerance = 0.1 * compare(a, b).se
    assert ours.ci.low == pytest.approx(theirs.low, abs=tolerance)
    assert ours.ci.high == pytest.approx(theirs.high, abs=tolerance)


def test_bootstrap_keeps_the_pairing():
    # identical verdicts for both models under shared calibration: every replicate is exactly 0
    ca = (40, 50, 45, 50)
    a, b = labels((50, 0, 0, 50), (ca, None))
    with pytest.warns(JudgeStatsWarning):
        boot = compare(
            a,
            b,
            calibration="shared",
            method="bootstrap",
            random_seed=1,
            bootstrap={"interval": "percentile"},
        )
    assert boot.flags == ("instability_unchecked",)
    assert tuple(boot.ci) == (0.0, 0.0)
    assert boot.estimate == 0.0
    counts = JudgeData(k=50, n=100, k0=40, m0=50, k1=45, m1=50)
    with pytest.warns(JudgeStatsWarning):
        unpaired = compare(counts, counts, calibration="shared", method="bootstrap", random_seed=1)
    assert unpaired.ci.high - unpaired.ci.low > 0.1


def test_bootstrap_is_reproducible_with_a_seed():
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    b = JudgeData(k=50, n=100, k0=38, m0=50, k1=44, m1=50)
    first = compare(a, b, method="bootstrap", random_seed=3, bootstrap={"n_resamples": 4000})
    second = compare(a, b, method="bootstrap", random_seed=3, bootstrap={"n_resamples": 4000})
    other = compare(a, b, method="bootstrap", random_seed=4, bootstrap={"n_resamples": 4000})
    assert first.ci == second.ci
    assert first.intervals == second.intervals
    assert first.ci != other.ci


# ---------------------------------------------------------------------------------------------
# warnings, report, output
# ---------------------------------------------------------------------------------------------
def test_low_judge_quality_warns_and_weakens_the_verdict():
    a = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    b = JudgeData(k=520, n=1000, k0=60, m0=100, k1=70, m1=100)  # J_B = 0.3, interval below 0.2
    with pytest.warns(JudgeStatsWarning):
        result = compare(a, b)
    assert result.flags == ("weak_judge",)
    assert result.ci.low > 0  # A clearly better, but the claim is weakened
    assert "Claim weakened" in result.verdict
    report = str(result)
    assert report.index(f"WARNING: {result.flag_messages[0]}") < report.index("1. estimand")


def test_instability_warns_under_shared_calibration_only():
    a = JudgeData(k=690, n=1000, k0=360, m0=400, k1=360, m1=400)  # q0 0.9, q1 0.9
    b = JudgeData(k=630, n=1000, k0=240, m0=400, k1=340, m1=400)  # q0 0.6, q1 0.85
    with pytest.warns(JudgeStatsWarning):
        shared = compare(a, b, calibration="shared")
    assert "instability_under_shared" in shared.flags
    assert shared.instability.low > 0
    own = compare(a, b)  # no warning (pytest turns JudgeStatsWarning into an error)
    assert own.flags == () and own.warnings == ()
    assert "instability_corrected" in own.note_keys
    assert "instability_under_shared" not in own.note_keys


def test_a_bias_as_large_as_the_estimate_is_called_out():
    a = JudgeData(k=690, n=1000, k0=80, m0=100, k1=90, m1=100)
    b = JudgeData(k=680, n=1000, k0=60, m0=100, k1=95, m1=100)
    with pytest.warns(JudgeStatsWarning) as record:
        result = compare(a, b, calibration="shared")
    # estimate (0.69 - 0.68) / 0.7; theta_B on its own calibration (0.68 + 0.6 - 1) / 0.55;
    # App. C: (theta_B * (0.9 - 0.95) - (1 - theta_B) * (0.8 - 0.6)) / 0.7
    theta_b = 0.28 / 0.55
    assert result.estimate == pytest.approx(0.01 / 0.7)
    assert result.expected_bias == pytest.approx((theta_b * -0.05 - (1 - theta_b) * 0.2) / 0.7)
    assert result.flags == ("instability_under_shared", "shared_bias_dominates")
    assert len(record) == 1  # one JudgeStatsWarning carries every message
    assert str(record[0].message) == " ".join(result.flag_messages)


def test_summary_returns_a_frame_and_prints_nothing(capsys):
    a = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    b = JudgeData(k=600, n=1000, k0=168, m0=200, k1=182, m1=200)
    result = compare(a, b, method="bootstrap", random_seed=0, bootstrap={"n_resamples": 4000})
    capsys.readouterr()
    frame = result.summary()
    assert capsys.readouterr() == ("", "")  # the contract: summary() never prints
    assert isinstance(frame, pd.DataFrame)
    assert frame.loc["theta_A - theta_B", "estimate"] == result.estimate
    assert tuple(frame.loc["theta_A - theta_B", ["low", "high"]]) == tuple(result.ci)
    assert frame.loc["J_B", "estimate"] == pytest.approx(168 / 200 + 182 / 200 - 1)
    assert list(frame.columns) == ["estimate", "low", "high"]
    assert frame.attrs["flags"] == [] and frame.attrs["verdict"] == result.verdict
    # every (estimate, low, high) is an IntervalResult of the contract, at the comparison's level
    rows = [result.theta_a, result.theta_b, result.difference, result.youden["A"]]
    rows += [result.youden["B"], result.instability, result.delta_q0, result.delta_q1]
    for row in rows:
        assert isinstance(row, IntervalResult) and row.confidence_level == 0.95
        assert row.low <= row.estimate <= row.high
    assert tuple(result.difference) == (result.estimate, *result.ci)
    assert result.difference.method == "rogan_gladen+bootstrap_bca"
    assert isinstance(result, Result)
    assert "7. verdict" in str(result)
    assert capsys.readouterr() == ("", "")


def test_to_dict_plot_and_repr():
    a = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    b = JudgeData(k=600, n=1000, k0=168, m0=200, k1=182, m1=200)
    result = compare(a, b, method="bootstrap", random_seed=0, bootstrap={"n_resamples": 4000})
    payload = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert payload["ci"] == list(result.ci)
    assert payload["inputs"]["b"]["calibration"] == {"k0": 168, "m0": 200, "k1": 182, "m1": 200}
    assert payload["theta_a"] == dict(zip(("estimate", "low", "high"), result.theta_a, strict=True))
    # the test sets have equal sizes and come as counts: taken as independent (a note, no flag)
    assert payload["flags"] == {} and list(payload["notes"]) == ["unpaired_test_sets"]
    ax = result.plot()  # both panels in a new figure; the difference's Axes comes back
    assert isinstance(ax, Axes) and ax.get_xlabel() == "theta_A - theta_B"
    left = ax.figure.axes[0]
    assert left.get_xlabel() == "true accuracy theta"
    assert [t.get_text() for t in left.get_legend().get_texts()] == ["model A", "model B"]
    _, own = plt.subplots()
    assert compare(a, b).plot(ax=own) is own  # one Axes: the difference panel only
    assert own.get_xlabel() == "theta_A - theta_B" and len(own.figure.axes) == 1
    _, pair = plt.subplots(1, 2)
    assert compare(a, b).plot(ax=pair) is pair[1]  # a pair: both panels
    assert pair[0].get_xlabel() == "true accuracy theta"
    plt.close("all")
    assert "Comparison(estimate=" in repr(result)
    for item in (
        "1. estimand",
        "3. calibration",
        "4. intervals",
        "5. judge quality",
        "6. instability",
        "7. verdict",
    ):
        assert item in result.report()


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------
def test_paired_arrays_of_different_lengths_raise():
    with pytest.raises(ValueError, match=r"`a.test_judge` has 3 items and `b.test_judge` has 2"):
        compare(ModelLabels([1, 0, 1], [0, 1], [0, 1]), ModelLabels([1, 0], [0, 1], [0, 1]))


def test_calibration_missing_a_class_raises():
    with pytest.raises(ValueError, match="model B: the calibration set has no truly incorrect"):
        compare(ModelLabels([1, 0], [0, 1], [0, 1]), ModelLabels([1, 1], [1, 1], [1, 0]))


def test_judge_no_better_than_chance_on_either_model_raises():
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    chance = JudgeData(k=50, n=100, k0=25, m0=50, k1=25, m1=50)
    with pytest.raises(ValueError, match="no better than chance on model B's calibration set"):
        compare(a, chance, calibration="shared")
    with pytest.raises(ValueError, match="no better than chance on model A's"):
        compare(chance, a)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        (
            "calibration",
            "pooled",
            r"`calibration` \('pooled'\) must be one of 'model_specific', "
            r"'shared'",
        ),
        ("method", "jackknife", r"`method` \('jackknife'\) must be one of"),
        ("confidence_level", 1.5, r"`confidence_level` \(1.5\) must lie strictly between 0 and 1"),
    ],
)
def test_bad_options_raise(option, value, message):
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    with pytest.raises(ValueError, match=message):
        compare(a, a, **{option: value})


def test_bad_data_raises():
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    with pytest.raises(TypeError, match="`b` must be a JudgeData"):
        compare(a, {"k": 1})
    with pytest.raises(ValueError, match="needs model B's own calibration labels"):
        compare(ModelLabels([1, 0], [0, 1], [0, 1]), ModelLabels([1, 0]))
    with pytest.raises(ValueError, match="give both `calib_human` and `calib_judge`"):
        ModelLabels([1, 0], [0, 1])
    with pytest.raises(ValueError, match=r"`test_judge` must hold only 0/1 labels"):
        ModelLabels([1, 2])
    with pytest.raises(ValueError, match=r"`calib_human` \(2 items\) and `calib_judge` \(3"):
        ModelLabels([1], [0, 1], [0, 1, 1])


# ---------------------------------------------------------------------------------------------
# method-specific options, grouped by method
# ---------------------------------------------------------------------------------------------
A_COUNTS = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
B_COUNTS = JudgeData(k=50, n=100, k0=38, m0=50, k1=44, m1=50)


def test_grouped_options_reach_their_method():
    result = compare(
        A_COUNTS,
        B_COUNTS,
        method="bootstrap",
        random_seed=3,
        bootstrap={"n_resamples": 4000, "interval": "percentile"},
    )
    assert result.details["n_resamples"] == 4000 and result.details["interval"] == "percentile"
    assert result.ci == result.intervals["percentile"]
    assert len(result.draws["difference"]) == 4000  # no replicate dropped: J is far from 0
    default = compare(A_COUNTS, B_COUNTS, method="bootstrap", random_seed=3)
    assert default.details["n_resamples"] == 4000 and default.ci == default.intervals["bca"]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"method": "bootstrap", "bootstrap": [("n_resamples", 10)]},
            TypeError,
            r"`bootstrap` must be a mapping of option names to values.*got list",
        ),
        (
            {"method": "bayes", "bayes": 1000},
            TypeError,
            r"`bayes` must be a mapping of option names to values.*got int",
        ),
        (
            {"method": "bootstrap", "bootstrap": {"reps": 10}},
            ValueError,
            r"`bootstrap` has no option 'reps'; the options of method='bootstrap' are "
            r"'n_resamples', 'interval'\.",
        ),
        (
            {"method": "bayes", "bayes": {"draws": 100, "cores": 2}},
            ValueError,
            r"`bayes` has no option 'cores'; .* 'prior', 'draws', 'tune', 'chains', "
            r"'target_accept', 'compiled', 'progressbar'\.",
        ),
        (
            {"bootstrap": {"n_resamples": 10}},
            ValueError,
            r"`bootstrap` \(\{'n_resamples': 10\}\) holds options of method='bootstrap', but "
            r"method is 'delta'",
        ),
        (
            {"method": "bootstrap", "bayes": {}},
            ValueError,
            r"`bayes` \(\{\}\) holds options of method='bayes', but method is 'bootstrap'",
        ),
        (
            {"method": "bootstrap", "bootstrap": {"n_resamples": 0}},
            ValueError,
            r"`n_resamples` \(0\) must be a positive integer",
        ),
        (
            {"method": "bootstrap", "bootstrap": {"interval": "basic"}},
            ValueError,
            r"`interval` \('basic'\) must be one of 'bca', 'percentile'",
        ),
        (
            {"method": "bayes", "bayes": {"draws": 2.5}},
            ValueError,
            r"`draws` \(2.5\) must be a positive integer",
        ),
        (
            {"method": "bayes", "bayes": {"chains": "4"}},
            TypeError,
            r"`chains` must be a positive integer, got '4'",
        ),
        (
            {"method": "bayes", "bayes": {"target_accept": 1.0}},
            ValueError,
            r"`target_accept` \(1\) must lie strictly between 0 and 1",
        ),
    ],
)
def test_grouped_options_are_checked(kwargs, error, message):
    with pytest.raises(error, match=message):
        compare(A_COUNTS, B_COUNTS, **kwargs)


def test_flat_method_options_are_gone():
    for option in ("n_resamples", "interval", "prior", "draws", "tune", "chains", "compiled"):
        with pytest.raises(TypeError, match=option):
            compare(A_COUNTS, B_COUNTS, method="bootstrap", **{option: 1})


# ---------------------------------------------------------------------------------------------
# flag keys: every warning and note has one, registered in the package catalogue
# ---------------------------------------------------------------------------------------------
def test_every_comparison_key_is_in_the_catalogue():
    from judgestats.comparison.diagnostics import REUSED_FLAGS

    for key in (*WARNING_FLAGS, *NOTE_FLAGS, *REUSED_FLAGS):
        assert key in FLAG_MESSAGES, key
    assert not set(WARNING_FLAGS) & set(NOTE_FLAGS)


def _warned(*args, **kwargs):
    with pytest.warns(JudgeStatsWarning) as record:
        result = compare(*args, **kwargs)
    assert len(record) == 1 and str(record[0].message) == " ".join(result.warnings)
    return result


def test_weak_judge_key_per_model_and_its_sentences():
    # J_A = 0.3 and J_B = 0.28 from 100 + 100 labels: both intervals reach below 0.2
    a = JudgeData(k=520, n=1000, k0=60, m0=100, k1=70, m1=100)
    b = JudgeData(k=500, n=1000, k0=58, m0=100, k1=70, m1=100)
    result = _warned(a, b)
    assert result.flags == ("weak_judge",)
    assert len(result.warnings) == 2  # one sentence per model, printed as two warnings
    assert result.flag_messages == [" ".join(result.warnings)]
    assert result.to_dict()["flags"] == {"weak_judge": " ".join(result.warnings)}
    assert str(result).count("WARNING:") == 2
    assert result.verdict.endswith("The diagnostics warn as well (see above).")
    strong = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)  # J = 0.75 with m = 400
    assert "weak_judge" not in compare(strong, strong).flags


def test_estimate_outside_the_unit_interval_is_flagged():
    # p_A = 0.98 > q1 = 0.9 and p_B = 0.03 < 1 - q0 = 0.2: theta_A > 1 and theta_B < 0
    a = JudgeData(k=98, n=100, k0=40, m0=50, k1=45, m1=50)
    b = JudgeData(k=3, n=100, k0=40, m0=50, k1=45, m1=50)
    result = _warned(a, b)
    assert result.flags == ("p_outside_judge_range",)
    assert len(result.warnings) == 2
    assert result.theta_a.estimate == pytest.approx(0.78 / 0.7)  # reported unclipped
    assert "p_outside_judge_range" not in compare(A_COUNTS, B_COUNTS).flags


def test_small_calibration_and_dropped_bootstrap_replicates_are_flagged():
    # arms of 25 items, J = 0.6 + 0.56 - 1 = 0.16: many replicates have J <= 0
    a = JudgeData(k=60, n=100, k0=15, m0=25, k1=14, m1=25)
    b = JudgeData(k=50, n=100, k0=14, m0=25, k1=15, m1=25)
    result = _warned(a, b, method="bootstrap", random_seed=0, bootstrap={"n_resamples": 4000})
    assert set(result.flags) == {
        "weak_judge",
        "p_outside_judge_range",  # (0.6 + 0.6 - 1) / 0.16 = 1.25
        "small_calibration",
        "bootstrap_dropped_replicates",
    }
    dropped = result.to_dict()["flags"]["bootstrap_dropped_replicates"]
    assert dropped.startswith(f"{4000 - len(result.draws['difference'])} of 4000 ")
    delta = _warned(a, b)  # the delta method drops nothing
    assert "bootstrap_dropped_replicates" not in delta.flags and "small_calibration" in delta.flags


def test_shared_design_keys():
    same_calib = JudgeData(k=50, n=100, k0=40, m0=50, k1=45, m1=50)
    result = _warned(A_COUNTS, same_calib, calibration="shared")
    assert result.flags == ("instability_unchecked",)
    assert result.note_keys == ("identical_calibration_counts", "unpaired_test_sets")
    assert result.notes == tuple(NOTE_FLAGS[key] + "." for key in result.note_keys)
    assert result.to_dict()["notes"] == dict(zip(result.note_keys, result.notes, strict=True))


def test_paired_labels_need_no_unpaired_note():
    ca, cb = (40, 50, 45, 50), (35, 50, 44, 50)
    a, b = labels((40, 12, 6, 42), (ca, cb), np.random.default_rng(3))
    assert "unpaired_test_sets" not in compare(a, b).note_keys


def test_inconclusive_instability_is_a_note():
    # identical judges on both models (J_A - J_B = 0) but 50 + 50 labels each: the interval of
    # J_A - J_B is about +-0.2, which does not rule out a difference beyond 0.1
    result = compare(A_COUNTS, JudgeData(k=50, n=100, k0=40, m0=50, k1=45, m1=50))
    assert result.flags == ()
    assert result.note_keys == ("unpaired_test_sets", "instability_inconclusive")
    assert max(abs(result.instability.low), abs(result.instability.high)) > 0.1
    big = JudgeData(k=6000, n=10000, k0=4000, m0=5000, k1=4500, m1=5000)
    assert "instability_inconclusive" not in compare(big, big).note_keys


def test_undefined_bca_falls_back_to_percentile(monkeypatch):
    from judgestats.results import ConfidenceInterval

    # judgestats.compare is also the name of the function, so import the module by its path
    bootstrap_module = importlib.import_module("judgestats.comparison.bootstrap")
    original = bootstrap_module.categorical_bootstrap

    def without_bca(*args, **kwargs):
        result = original(*args, **kwargs)
        nan = ConfidenceInterval(float("nan"), float("nan"))
        object.__setattr__(result, "bca", [nan] * len(result.bca))
        return result

    monkeypatch.setattr(bootstrap_module, "categorical_bootstrap", without_bca)
    result = compare(A_COUNTS, B_COUNTS, method="bootstrap", random_seed=1)
    assert result.note_keys[-1] == "bca_undefined" and result.flags == ()
    assert (
        result.ci == result.intervals["percentile"] and result.details["interval"] == "percentile"
    )
    assert result.difference.method == "rogan_gladen+bootstrap_percentile"


def test_convergence_keys_share_one_sentence():
    from judgestats.comparison.diagnostics import convergence_finding

    diagnostics = {"r_hat": 1.05, "ess_bulk": 120.0, "ess_tail": 300.0, "divergences": 3}
    (finding,) = convergence_finding(("r_hat", "low_ess", "divergences"), diagnostics)
    assert finding.keys == ("r_hat", "low_ess", "divergences")
    assert "max R-hat 1.050, min ESS 120, 3 divergences" in finding.message
    assert convergence_finding((), diagnostics) == []


def test_inputs_are_not_mutated():
    ya, human, judge = np.array([1, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([0, 1, 1, 1])
    copies = [x.copy() for x in (ya, human, judge)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # tiny sets: many warnings
        compare(
            ModelLabels(ya, human, judge),
            ModelLabels(ya[::-1], human, judge),
            method="bootstrap",
            random_seed=0,
            bootstrap={"n_resamples": 200},
        )
    for original, copy in zip((ya, human, judge), copies, strict=True):
        np.testing.assert_array_equal(original, copy)


# ---------------------------------------------------------------------------------------------
# the hierarchical posterior (small: 2 chains, few draws, fixed seed)
# ---------------------------------------------------------------------------------------------
def _quiet_compare(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # few draws: low ESS is expected
        return compare(*args, **kwargs)


@pytest.mark.slow
def test_bayes_paired_model_specific_posterior():
    cells, ca, cb = (500, 200, 40, 260), (180, 200, 185, 200), (178, 200, 184, 200)
    a, b = labels(cells, (ca, cb))
    result = _quiet_compare(
        a, b, method="bayes", random_seed=1, bayes={"draws": 300, "tune": 300, "chains": 2}
    )
    diff = np.asarray(result.idata.posterior["difference"]).reshape(-1)
    assert result.prob_a_better == pytest.approx(np.mean(diff > 0))
    assert result.prob_a_better > 0.99 and result.ci.low > 0
    assert result.ci == pytest.approx(tuple(np.quantile(diff, [0.025, 0.975])))
    delta = compare(a, b)  # large calibration sets: the posterior agrees with the delta method
    assert result.estimate == pytest.approx(delta.estimate, abs=0.02)
    assert set(result.idata.posterior.data_vars) >= {
        "theta",
        "q0",
        "q1",
        "sigma",
        "mu",
        "difference",
        "delta_youden",
    }
    assert result.details["population_sd"]["q0"]["low"] >= 0
    # the NUTS convergence checks are flag keys (thresholds of judgestats.bayes.diagnostics)
    conv = result.details["convergence"]
    expected = [
        key
        for key, bad in (
            ("r_hat", conv["r_hat"] > 1.01),
            ("low_ess", min(conv["ess_bulk"], conv["ess_tail"]) < 400),
            ("divergences", conv["divergences"] > 0),
        )
        if bad
    ]
    assert result.flags == tuple(expected)  # large calibration sets: nothing else to flag


@pytest.mark.slow
def test_bayes_reuses_the_compiled_model_and_swaps_the_counts_in():
    """Refits of one structure compile nothing; new counts are used; a seed fixes the draws."""
    from judgestats.bayes.nuts import NutsCache

    cells, ca, cb = (300, 120, 30, 150), (90, 100, 92, 100), (88, 100, 91, 100)
    a, b = labels(cells, (ca, cb))
    cache = NutsCache()
    options = {
        "method": "bayes",
        "bayes": {"draws": 300, "tune": 300, "chains": 2, "compiled": cache},
    }
    first = _quiet_compare(a, b, random_seed=3, **options)
    swapped = _quiet_compare(b, a, random_seed=3, **options)  # B only <-> A only, calib swapped
    again = _quiet_compare(a, b, random_seed=3, **options)
    assert cache.info() == {"hits": 2, "misses": 1, "size": 1}
    # exchanging the models mirrors the posterior of theta_A - theta_B (true gap (120-30)/600/J)
    assert swapped.estimate == pytest.approx(-first.estimate, abs=0.02)
    assert swapped.prob_a_better == pytest.approx(1 - first.prob_a_better, abs=0.02)
    np.testing.assert_array_equal(
        np.asarray(again.idata.posterior["difference"]),
        np.asarray(first.idata.posterior["difference"]),
    )


@pytest.mark.slow
def test_bayes_readme_example_has_no_divergences():
    """The README example (model-specific calibration) samples cleanly for any seed.

    The centred and the plain non-centred forms of the hierarchy both diverged here; the
    whitened parametrisation of bayes/compare_model.py does not.
    """
    from judgestats.bayes.nuts import NutsCache

    a = JudgeData(k=420, n=1000, k0=160, m0=200, k1=175, m1=200)
    b = JudgeData(k=380, n=1000, k0=150, m0=200, k1=170, m1=200)
    cache = NutsCache()
    for seed in range(4):
        result = _quiet_compare(
            a,
            b,
            method="bayes",
            random_seed=seed,
            bayes={"draws": 300, "tune": 300, "chains": 4, "compiled": cache},
        )
        assert result.details["convergence"]["divergences"] == 0, seed
        assert "divergences" not in result.flags
        assert result.estimate == pytest.approx(0.088, abs=0.01)  # long-run posterior median


@pytest.mark.slow
def test_bayes_compare_model_is_the_hierarchical_model():
    """The whitened coordinates leave the model unchanged: prior draws of logit q match
    N(mu_loc, mu_scale^2 + sigma^2) marginally (sampled without data: all counts 0)."""
    from judgestats.bayes.compare_model import (
        CompareCounts,
        ComparePrior,
        build_compare_model,
        set_compare_data,
    )
    from judgestats.bayes.nuts import compile_nuts

    prior = ComparePrior(mu_loc=0.5, mu_scale=0.8, sigma_scale=0.7)
    model = build_compare_model(
        cells=None, test=(5, 10, 5, 10), calib_a=(7, 10, 7, 10), calib_b=(6, 10, 8, 10), prior=prior
    )
    engine = compile_nuts(
        model,
        target_accept=0.9,
        output_names=("mu", "sigma", "q0", "theta"),
        set_data=set_compare_data,
    )
    empty = CompareCounts(None, (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0))
    values, _ = engine.run(empty, draws=1500, tune=500, chains=2, rng=np.random.default_rng(0))
    sigma, mu = values["sigma"][..., 0].ravel(), values["mu"][..., 0].ravel()
    logit_q0 = special.logit(values["q0"]).reshape(-1, 2)
    assert np.mean(sigma) == pytest.approx(0.7 * np.sqrt(2 / np.pi), rel=0.1)
    assert np.mean(mu) == pytest.approx(0.5, abs=0.1)
    assert np.std(mu) == pytest.approx(0.8, rel=0.1)
    assert np.std(logit_q0[:, 0] - logit_q0[:, 1]) == pytest.approx(
        np.sqrt(2 * 0.7**2), rel=0.12
    )  # E sigma^2 = s^2 (half-normal)
    assert np.mean(values["theta"]) == pytest.approx(0.5, abs=0.05)


@pytest.mark.slow
def test_bayes_tight_population_recovers_shared_calibration():
    from judgestats.bayes.compare_model import ComparePrior

    a = JudgeData(k=690, n=1000, k0=160, m0=200, k1=180, m1=200)
    b = JudgeData(k=630, n=1000, k0=160, m0=200, k1=180, m1=200)
    result = _quiet_compare(
        a,
        b,
        calibration="shared",
        method="bayes",
        random_seed=2,
        bayes={"draws": 300, "tune": 300, "chains": 2, "prior": ComparePrior(sigma_scale=0.005)},
    )
    post = result.idata.posterior
    gap = np.abs(np.asarray(post["q0"].sel(model="A") - post["q0"].sel(model="B")))
    assert np.quantile(gap, 0.95) < 0.01  # sigma -> 0: one judge for both models
    assert result.estimate == pytest.approx(0.06 / 0.7, abs=0.015)  # (p_A - p_B) / J
    assert "instability_unchecked" in result.flags


def test_compare_prior_validates():
    from judgestats.bayes.compare_model import ComparePrior

    with pytest.raises(ValueError, match=r"`sigma_scale` \(0\) must be a finite number"):
        ComparePrior(sigma_scale=0)
    with pytest.raises(ValueError, match="`theta`"):
        ComparePrior(theta=(1, -1))


# ---------------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------------
def test_cli_compare_counts(capsys):
    code = main(
        ["compare", "--a", "700,1000,170,200,180,200", "--b", "600,1000,168,200,182,200", "--json"]
    )
    out = capsys.readouterr().out
    assert code == 0
    payload = json.loads(out)
    assert payload["estimate"] == pytest.approx(0.55 / 0.75 - 0.44 / 0.75)
    assert payload["calibration"] == "model_specific"


def test_cli_compare_paired_label_files(tmp_path, capsys):
    rows_a = [
        "set,judge,human",
        "test,1,",
        "test,1,",
        "test,0,",
        "test,1,",
        "calibration,0,0",
        "calibration,0,0",
        "calibration,1,0",
        "calibration,1,1",
        "calibration,1,1",
        "calibration,0,1",
    ]
    rows_b = ["set,judge,human", "test,1,", "test,0,", "test,0,", "test,1,"]
    (tmp_path / "a.csv").write_text("\n".join(rows_a) + "\n")
    (tmp_path / "b.csv").write_text("\n".join(rows_b) + "\n")
    code = main(
        [
            "compare",
            "--labels-a",
            str(tmp_path / "a.csv"),
            "--labels-b",
            str(tmp_path / "b.csv"),
            "--calibration",
            "shared",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "4 paired test items" in out and "WARNING" in out
    (tmp_path / "c.csv").write_text("\n".join(rows_b[:3]) + "\n")
    code = main(
        [
            "compare",
            "--labels-a",
            str(tmp_path / "a.csv"),
            "--labels-b",
            str(tmp_path / "c.csv"),
            "--calibration",
            "shared",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "`a.test_judge` has 4 items and `b.test_judge` has 2" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--a", "700,1000,170,200,180,200"], "give exactly one of --b"),
        (["--a", "700,1000", "--b", "600,1000,168,200,182,200"], "--a needs six counts"),
        (["--a", "700,1000,170,200,180,200", "--b", "600,1000"], "--b needs six counts"),
        (["--a", "7,1,2", "--b", "600,1000"], "expected 6 counts"),
        (
            [
                "--a",
                "700,1000,170,200,180,200",
                "--b",
                "600,1000,168,200,182,200",
                "--calibration",
                "pooled",
            ],
            "invalid choice",
        ),
    ],
)
def test_cli_compare_errors(capsys, argv, message):
    code = main(["compare", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
