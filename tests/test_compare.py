"""Two-model comparison (judgecal.compare): App. B-C of the follow-up, the bootstrap, the hierarchy.

"The follow-up" is "Bias and Uncertainty in LLM-as-a-Judge Estimation" (the follow-up on bias and
uncertainty). Every expected number is derived here: the delta-method variance by hand from the
follow-up's App. B (and Lee et al., arXiv 2511.21140 v1, App. A.1 per model) and checked against
exact enumeration or Monte Carlo written in the test; the BCa acceleration by a brute-force
item-by-item jackknife; the bootstrap against the delta method on a large sample and against
scipy.stats.bootstrap; the shared-calibration bias against the algebra of the follow-up's App. C.
"""

from __future__ import annotations

import json
import math
import warnings
from statistics import NormalDist

import matplotlib
import numpy as np
import pytest
from scipy import special, stats

import judgecal as jc
from judgecal import JudgeCalWarning, JudgeData, ModelLabels, compare
from judgecal.cli import main
from judgecal.compare import expected_shared_bias

matplotlib.use("Agg")
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
    with pytest.warns(JudgeCalWarning, match="no calibration labels of its own"):
        result = compare(a, b, calibration="shared")
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
    assert result.theta_b[1:] == pytest.approx(tuple(jc.estimate(b).ci))


@pytest.mark.parametrize("calibration", ["shared", "model_specific"])
def test_paired_test_term_comes_from_per_item_differences(calibration):
    cells = (40, 12, 6, 42)
    ca, cb = (40, 50, 45, 50), (35, 50, 44, 50)
    a, b = labels(cells, (ca, cb), np.random.default_rng(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeCalWarning)  # shared: the App. C bias is flagged
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
    with pytest.warns(JudgeCalWarning, match="no calibration labels of its own"):
        result = compare(a, b, calibration="shared")
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
        warnings.simplefilter("ignore", JudgeCalWarning)  # instability under shared: expected
        result = compare(a, b, calibration=calibration)
    # Monte Carlo standard error of a variance from 40,000 draws is about 0.7%
    assert result.se**2 == pytest.approx(np.var(diff), rel=0.04)


def test_pairing_shrinks_the_interval_when_verdicts_agree():
    ca = (40, 50, 45, 50)
    a, b = labels((50, 10, 5, 35), (ca, ca))
    counts_a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    counts_b = JudgeData(k=55, n=100, k0=40, m0=50, k1=45, m1=50)
    paired = compare(a, b, calibration="shared")
    with pytest.warns(JudgeCalWarning, match="no calibration labels of its own"):
        unpaired = compare(counts_a, counts_b, calibration="shared")
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
    with pytest.warns(JudgeCalWarning, match="treats the two models differently"):
        shared = compare(a, b, calibration="shared")
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
    assert result.youden["A"][1:] == pytest.approx(
        (q0a + q1a - 1 - Z95 * math.sqrt(va), q0a + q1a - 1 + Z95 * math.sqrt(va))
    )
    centre = (q0a + q1a) - (q0b + q1b)
    assert result.instability.estimate == pytest.approx(0.7 - 0.65)
    assert result.instability[1:] == pytest.approx(
        (centre - Z95 * math.sqrt(va + vb), centre + Z95 * math.sqrt(va + vb))
    )
    d0 = q0a - q0b
    s0 = math.sqrt(q0a * (1 - q0a) / 52 + q0b * (1 - q0b) / 42)
    assert result.delta_q0[1:] == pytest.approx((d0 - Z95 * s0, d0 + Z95 * s0))


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
    boot = compare(a, b, method="bootstrap", random_seed=5, n_resamples=4000)
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
        warnings.simplefilter("ignore", JudgeCalWarning)  # calibration arms under 30 items
        boot = compare(a, b, method="bootstrap", random_seed=2, n_resamples=200)
    expected = _jackknife_acceleration(_item_samples(cells, ca, cb), _difference_statistic)
    assert boot.details["acceleration"] == pytest.approx(expected, rel=1e-9)


def test_bca_interval_agrees_with_scipy_bootstrap():
    cells, ca, cb = (60, 18, 8, 34), (40, 50, 44, 50), (36, 45, 50, 55)
    a, b = labels(cells, (ca, cb))
    ours = compare(a, b, method="bootstrap", random_seed=7, n_resamples=20_000)
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
    with pytest.warns(JudgeCalWarning, match="no calibration labels of its own"):
        boot = compare(
            a, b, calibration="shared", method="bootstrap", random_seed=1, interval="percentile"
        )
    assert tuple(boot.ci) == (0.0, 0.0)
    assert boot.estimate == 0.0
    counts = JudgeData(k=50, n=100, k0=40, m0=50, k1=45, m1=50)
    with pytest.warns(JudgeCalWarning):
        unpaired = compare(counts, counts, calibration="shared", method="bootstrap", random_seed=1)
    assert unpaired.ci.high - unpaired.ci.low > 0.1


def test_bootstrap_is_reproducible_with_a_seed():
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    b = JudgeData(k=50, n=100, k0=38, m0=50, k1=44, m1=50)
    first = compare(a, b, method="bootstrap", random_seed=3, n_resamples=500)
    second = compare(a, b, method="bootstrap", random_seed=3, n_resamples=500)
    other = compare(a, b, method="bootstrap", random_seed=4, n_resamples=500)
    assert first.ci == second.ci
    assert first.intervals == second.intervals
    assert first.ci != other.ci


# ---------------------------------------------------------------------------------------------
# warnings, report, output
# ---------------------------------------------------------------------------------------------
def test_low_judge_quality_warns_and_weakens_the_verdict():
    a = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    b = JudgeData(k=520, n=1000, k0=60, m0=100, k1=70, m1=100)  # J_B = 0.3, interval below 0.2
    with pytest.warns(JudgeCalWarning, match="judge quality is low for model B"):
        result = compare(a, b)
    assert result.ci.low > 0  # A clearly better, but the claim is weakened
    assert "Claim weakened" in result.verdict
    report = str(result)
    assert report.index("WARNING: judge quality is low") < report.index("1. estimand")


def test_instability_warns_under_shared_calibration_only():
    a = JudgeData(k=690, n=1000, k0=360, m0=400, k1=360, m1=400)  # q0 0.9, q1 0.9
    b = JudgeData(k=630, n=1000, k0=240, m0=400, k1=340, m1=400)  # q0 0.6, q1 0.85
    with pytest.warns(JudgeCalWarning, match="treats the two models differently"):
        shared = compare(a, b, calibration="shared")
    assert shared.instability.low > 0
    own = compare(a, b)  # no warning (pytest turns JudgeCalWarning into an error)
    assert own.warnings == ()
    assert any("treats the two models differently" in note for note in own.notes)


def test_a_bias_as_large_as_the_estimate_is_called_out():
    a = JudgeData(k=690, n=1000, k0=80, m0=100, k1=90, m1=100)
    b = JudgeData(k=680, n=1000, k0=60, m0=100, k1=95, m1=100)
    with pytest.warns(JudgeCalWarning) as record:
        result = compare(a, b, calibration="shared")
    # estimate (0.69 - 0.68) / 0.7; theta_B on its own calibration (0.68 + 0.6 - 1) / 0.55;
    # App. C: (theta_B * (0.9 - 0.95) - (1 - theta_B) * (0.8 - 0.6)) / 0.7
    theta_b = 0.28 / 0.55
    assert result.estimate == pytest.approx(0.01 / 0.7)
    assert result.expected_bias == pytest.approx((theta_b * -0.05 - (1 - theta_b) * 0.2) / 0.7)
    text = " ".join(result.warnings)
    assert "sign may be an artefact" in text and "treats the two models differently" in text
    assert len(record) == 1  # one JudgeCalWarning carries every message


def test_summary_to_dict_and_plot(capsys):
    a = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    b = JudgeData(k=600, n=1000, k0=168, m0=200, k1=182, m1=200)
    result = compare(a, b, method="bootstrap", random_seed=0, n_resamples=500)
    capsys.readouterr()
    frame = result.summary()
    printed = capsys.readouterr().out
    assert printed == result.report() + "\n"  # summary() prints the Sec. 7 checklist ...
    assert "7. verdict" in printed
    assert frame.loc["theta_A - theta_B", "estimate"] == result.estimate  # ... returns the table
    assert tuple(frame.loc["theta_A - theta_B", ["low", "high"]]) == tuple(result.ci)
    assert frame.loc["J_B", "estimate"] == pytest.approx(168 / 200 + 182 / 200 - 1)
    assert list(frame.columns) == ["estimate", "low", "high"]
    payload = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert payload["ci"] == list(result.ci)
    assert payload["inputs"]["b"]["calibration"] == {"k0": 168, "m0": 200, "k1": 182, "m1": 200}
    axes = result.plot()
    assert len(axes) == 2 and axes[1].get_xlabel() == "theta_A - theta_B"
    axes = compare(a, b).plot()
    assert axes[0].get_xlabel() == "true accuracy theta"
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
        ("interval", "basic", r"`interval` \('basic'\)"),
        ("confidence_level", 1.5, r"`confidence_level` \(1.5\) must lie strictly between 0 and 1"),
        ("n_resamples", 0, r"`n_resamples` \(0\) must be a positive integer"),
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


def test_inputs_are_not_mutated():
    ya, human, judge = np.array([1, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([0, 1, 1, 1])
    copies = [x.copy() for x in (ya, human, judge)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeCalWarning)  # tiny sets: many warnings
        compare(
            ModelLabels(ya, human, judge),
            ModelLabels(ya[::-1], human, judge),
            method="bootstrap",
            random_seed=0,
            n_resamples=50,
        )
    for original, copy in zip((ya, human, judge), copies, strict=True):
        np.testing.assert_array_equal(original, copy)


# ---------------------------------------------------------------------------------------------
# the hierarchical posterior (small: 2 chains, few draws, fixed seed)
# ---------------------------------------------------------------------------------------------
def _quiet_compare(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeCalWarning)  # few draws: low ESS is expected
        return compare(*args, **kwargs)


def test_bayes_paired_model_specific_posterior():
    cells, ca, cb = (500, 200, 40, 260), (180, 200, 185, 200), (178, 200, 184, 200)
    a, b = labels(cells, (ca, cb))
    result = _quiet_compare(a, b, method="bayes", random_seed=1, draws=300, tune=300, chains=2)
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


def test_bayes_reuses_the_compiled_model_and_swaps_the_counts_in():
    """Refits of one structure compile nothing; new counts are used; a seed fixes the draws."""
    from judgecal.bayes.nuts import NutsCache

    cells, ca, cb = (300, 120, 30, 150), (90, 100, 92, 100), (88, 100, 91, 100)
    a, b = labels(cells, (ca, cb))
    cache = NutsCache()
    options = {"method": "bayes", "draws": 300, "tune": 300, "chains": 2, "compiled": cache}
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


def test_bayes_readme_example_has_no_divergences():
    """The README example (model-specific calibration) samples cleanly for any seed.

    The centred and the plain non-centred forms of the hierarchy both diverged here; the
    whitened parametrisation of bayes/compare_model.py does not.
    """
    from judgecal.bayes.nuts import NutsCache

    a = JudgeData(k=420, n=1000, k0=160, m0=200, k1=175, m1=200)
    b = JudgeData(k=380, n=1000, k0=150, m0=200, k1=170, m1=200)
    cache = NutsCache()
    for seed in range(4):
        result = _quiet_compare(
            a, b, method="bayes", random_seed=seed, draws=300, tune=300, chains=4, compiled=cache
        )
        assert result.details["convergence"]["divergences"] == 0, seed
        assert not any("divergent transitions" in w for w in result.warnings)
        assert result.estimate == pytest.approx(0.088, abs=0.01)  # long-run posterior median


def test_bayes_compare_model_is_the_hierarchical_model():
    """The whitened coordinates leave the model unchanged: prior draws of logit q match
    N(mu_loc, mu_scale^2 + sigma^2) marginally (sampled without data: all counts 0)."""
    from judgecal.bayes.compare_model import (
        CompareCounts,
        ComparePrior,
        build_compare_model,
        set_compare_data,
    )
    from judgecal.bayes.nuts import compile_nuts

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


def test_bayes_tight_population_recovers_shared_calibration():
    from judgecal.bayes.compare_model import ComparePrior

    a = JudgeData(k=690, n=1000, k0=160, m0=200, k1=180, m1=200)
    b = JudgeData(k=630, n=1000, k0=160, m0=200, k1=180, m1=200)
    result = _quiet_compare(
        a,
        b,
        calibration="shared",
        method="bayes",
        random_seed=2,
        draws=300,
        tune=300,
        chains=2,
        prior=ComparePrior(sigma_scale=0.005),
    )
    post = result.idata.posterior
    gap = np.abs(np.asarray(post["q0"].sel(model="A") - post["q0"].sel(model="B")))
    assert np.quantile(gap, 0.95) < 0.01  # sigma -> 0: one judge for both models
    assert result.estimate == pytest.approx(0.06 / 0.7, abs=0.015)  # (p_A - p_B) / J
    assert any("no calibration labels of its own" in w for w in result.warnings)


def test_compare_prior_validates():
    from judgecal.bayes.compare_model import ComparePrior

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
