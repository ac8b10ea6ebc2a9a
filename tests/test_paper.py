"""judgestats.paper against a transcription of the paper's own code (Lee et al. v1 App. B, Fig. 5).

The reference below is the appendix code with ``scipy.stats.norm.ppf`` replaced by
``statistics.NormalDist().inv_cdf`` (independent of scipy).
"""

from __future__ import annotations

import math
import random
from math import sqrt
from statistics import NormalDist

import numpy as np
import pytest

from judgestats import ConfidenceInterval, JudgeStatsWarning, lang_reiczigel_ci
from judgestats.paper import confidence_interval, point_estimator

TOL = 1e-12


# ---- Lee et al. v1, Appendix B (Fig. 5), transcribed ------------------------------------------
def clip(x, low=0.0, high=1.0):
    return max(low, min(high, x))


def paper_point_estimator(p, q0, q1):
    """Compute the adjusted point estimate."""
    th = (p + q0 - 1) / (q0 + q1 - 1)
    return clip(th)


def paper_confidence_interval_raw(p, q0, q1, n, m0, m1, alpha=0.05):
    """The appendix code without its final clip (to show where it inverts)."""
    z = NormalDist().inv_cdf(1 - alpha / 2)
    p, q0, q1 = (n * p + z**2 / 2) / (n + z**2), (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    n, m0, m1 = n + z**2, m0 + 2, m1 + 2
    th = (p + q0 - 1) / (q0 + q1 - 1)
    dth = 2 * z**2 * (-(1 - th) * q0 * (1 - q0) / m0 + th * q1 * (1 - q1) / m1)
    se = sqrt(p * (1 - p) / n + (1 - th) ** 2 * q0 * (1 - q0) / m0 + th**2 * q1 * (1 - q1) / m1) / (
        q0 + q1 - 1
    )
    return th + dth - z * se, th + dth + z * se


def paper_confidence_interval(p, q0, q1, n, m0, m1, alpha=0.05):
    """Compute the adjusted (1 - alpha) confidence interval."""
    low, high = paper_confidence_interval_raw(p, q0, q1, n, m0, m1, alpha)
    return clip(low), clip(high)


# ---------------------------------------------------------------------------------------------
def random_inputs(rng: random.Random):
    while True:
        p, q0, q1 = rng.random(), rng.uniform(0.2, 1.0), rng.uniform(0.2, 1.0)
        n, m0, m1 = rng.randint(1, 20_000), rng.randint(1, 800), rng.randint(1, 800)
        alpha = rng.choice([0.01, 0.05, 0.1, 0.2, rng.uniform(0.001, 0.999)])
        q0t, q1t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
        if q0 + q1 - 1 > 0.02 and q0t + q1t - 1 > 0.02:
            return p, q0, q1, n, m0, m1, alpha


def test_point_estimator_matches_paper_code():
    rng = random.Random(2024)
    for _ in range(5000):
        p, q0, q1, *_ = random_inputs(rng)
        assert point_estimator(p, q0, q1) == pytest.approx(
            paper_point_estimator(p, q0, q1), abs=TOL
        )


def test_point_estimator_paper_example():
    # eq. (4): (0.4 + 0.7 - 1) / (0.7 + 0.9 - 1) = 1/6
    assert point_estimator(0.4, 0.7, 0.9) == pytest.approx(1 / 6, abs=TOL)


def test_confidence_interval_matches_paper_code():
    rng = random.Random(99)
    for _ in range(5000):
        args = random_inputs(rng)
        got = confidence_interval(*args[:6], alpha=args[6])
        ref = paper_confidence_interval(*args[:6], alpha=args[6])
        assert got[0] == pytest.approx(ref[0], abs=TOL), args
        assert got[1] == pytest.approx(ref[1], abs=TOL), args


def test_confidence_interval_paper_example():
    ci = confidence_interval(0.4, 0.7, 0.9, 1000, 200, 200, alpha=0.05)
    assert isinstance(ci, ConfidenceInterval) and isinstance(ci, tuple)
    ref = paper_confidence_interval(0.4, 0.7, 0.9, 1000, 200, 200, alpha=0.05)
    assert ci[0] == pytest.approx(ref[0], abs=TOL) and ci[1] == pytest.approx(ref[1], abs=TOL)
    assert (round(ci[0], 4), round(ci[1], 4)) == (0.0564, 0.2627)


def test_default_alpha_is_005():
    a = confidence_interval(0.55, 0.8, 0.85, 300, 40, 60)
    b = paper_confidence_interval(0.55, 0.8, 0.85, 300, 40, 60, alpha=0.05)
    assert a[0] == pytest.approx(b[0], abs=TOL) and a[1] == pytest.approx(b[1], abs=TOL)


def test_confidence_interval_equals_lang_reiczigel_at_one_minus_alpha():
    rng = random.Random(5)
    for _ in range(500):
        p, q0, q1, n, m0, m1, alpha = random_inputs(rng)
        a = confidence_interval(p, q0, q1, n, m0, m1, alpha=alpha)
        b = lang_reiczigel_ci(p, q0, q1, n, m0, m1, confidence_level=1 - alpha)
        assert a[0] == pytest.approx(b[0], abs=TOL) and a[1] == pytest.approx(b[1], abs=TOL)


def test_arrays_elementwise():
    rng = random.Random(11)
    rows = [random_inputs(rng) for _ in range(300)]
    cols = list(zip(*rows, strict=True))
    p, q0, q1, n, m0, m1 = (np.array(c) for c in cols[:6])
    low, high = confidence_interval(p, q0, q1, n, m0, m1, alpha=0.05)
    for i, row in enumerate(rows):
        ref = paper_confidence_interval(*row[:6], alpha=0.05)
        assert low[i] == pytest.approx(ref[0], abs=TOL)
        assert high[i] == pytest.approx(ref[1], abs=TOL)
    th = point_estimator(p, q0, q1)
    for i, row in enumerate(rows):
        assert th[i] == pytest.approx(paper_point_estimator(*row[:3]), abs=TOL)


# ---- where the paper's code fails, judgestats.paper raises ------------------------------------
def test_point_estimator_zero_youden_raises():
    with pytest.raises(ZeroDivisionError):
        paper_point_estimator(0.4, 0.5, 0.5)  # the reference code divides by zero at J = 0
    with pytest.raises(ValueError, match="no better than chance"):
        point_estimator(0.4, 0.5, 0.5)


def test_point_estimator_negative_youden_raises():
    # J = 0.3 + 0.4 - 1 < 0: the reference code returns a meaningless clipped number
    assert 0.0 <= paper_point_estimator(0.4, 0.3, 0.4) <= 1.0
    with pytest.raises(ValueError, match="no better than chance"):
        point_estimator(0.4, 0.3, 0.4)


def test_confidence_interval_zero_smoothed_youden_raises():
    # q0 = q1 = 0.5: q0~ = q1~ = 0.5 exactly, so J~ = 0 and the reference code divides by zero
    with pytest.raises(ZeroDivisionError):
        paper_confidence_interval(0.4, 0.5, 0.5, 100, 10, 10)
    with pytest.raises(ValueError, match="no better than chance"):
        confidence_interval(0.4, 0.5, 0.5, 100, 10, 10)


def test_confidence_interval_inverted_raises():
    # q0 = q1 = 0.3, m0 = m1 = 10: q~ = 4/12, J~ = -1/3 < 0; the reference code's interval is
    # inverted (low > high) before its clip
    raw = paper_confidence_interval_raw(0.4, 0.3, 0.3, 100, 10, 10)
    assert raw[0] > raw[1]
    with pytest.raises(ValueError, match="no better than chance"):
        confidence_interval(0.4, 0.3, 0.3, 100, 10, 10)


def test_confidence_interval_array_chance_elements_nan():
    with pytest.warns(JudgeStatsWarning, match="1 of 2"):
        low, high = confidence_interval(
            0.4, np.array([0.3, 0.8]), np.array([0.3, 0.9]), 100, 10, 10
        )
    assert math.isnan(low[0]) and math.isnan(high[0])
    ref = paper_confidence_interval(0.4, 0.8, 0.9, 100, 10, 10)
    assert low[1] == pytest.approx(ref[0], abs=TOL)


@pytest.mark.parametrize("alpha", [0, 1, 0.0, 1.0, -0.05, 1.5, float("nan")])
def test_alpha_outside_unit_interval(alpha):
    with pytest.raises(ValueError, match="`alpha`"):
        confidence_interval(0.4, 0.7, 0.9, 1000, 200, 200, alpha=alpha)


@pytest.mark.parametrize("alpha", ["0.05", True, None])
def test_alpha_bad_type(alpha):
    with pytest.raises(TypeError, match="`alpha`"):
        confidence_interval(0.4, 0.7, 0.9, 1000, 200, 200, alpha=alpha)


@pytest.mark.parametrize("name", ["n", "m0", "m1"])
def test_zero_counts_rejected(name):
    # m0 = 0: the reference code silently uses q0~ = 1/2
    args = {"p": 0.4, "q0": 0.7, "q1": 0.9, "n": 1000, "m0": 200, "m1": 200, name: 0}
    with pytest.raises(ValueError, match=rf"`{name}`"):
        confidence_interval(**args)


@pytest.mark.parametrize("name", ["p", "q0", "q1"])
def test_bad_proportions_rejected(name):
    args = {"p": 0.4, "q0": 0.7, "q1": 0.9, name: 1.2}
    with pytest.raises(ValueError, match=rf"`{name}`"):
        point_estimator(**args)
    with pytest.raises(ValueError, match=rf"`{name}`"):
        confidence_interval(**args, n=1000, m0=200, m1=200)


def test_n_infinite_accepted():
    a = confidence_interval(0.4, 0.7, 0.9, np.inf, 200, 200)
    b = confidence_interval(0.4, 0.7, 0.9, 1e15, 200, 200)
    assert a[0] == pytest.approx(b[0], abs=1e-9) and a[1] == pytest.approx(b[1], abs=1e-9)
