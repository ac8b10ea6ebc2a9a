"""References shared by the calibration-planning tests (tests/test_allocation_*.py).

A transcription of the interval of Lee et al. v1 eqs. (5)-(7), a brute-force loop over the
binomial outcomes (scipy.stats.binom), and the small_arm warning context.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest
from scipy.stats import binom

from judgestats import JudgeStatsWarning

Z95 = NormalDist().inv_cdf(0.975)


# ---- Lee et al. v1 eqs. (5)-(7), transcribed (scalar, truncated to [0, 1]) -----------------------
def lr_width(p, q0, q1, n, m0, m1, z=Z95):
    z2 = z * z
    p_t = p if math.isinf(n) else (n * p + z2 / 2) / (n + z2)
    n_t = n + z2
    q0_t, q1_t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    youden = q0_t + q1_t - 1
    if youden <= 0:
        return 1.0  # no interval: counted as width 1 (allocation module docstring)
    th = (p_t + q0_t - 1) / youden
    dth = 2 * z2 * (-(1 - th) * q0_t * (1 - q0_t) / (m0 + 2) + th * q1_t * (1 - q1_t) / (m1 + 2))
    se = (
        math.sqrt(
            p_t * (1 - p_t) / n_t
            + (1 - th) ** 2 * q0_t * (1 - q0_t) / (m0 + 2)
            + th**2 * q1_t * (1 - q1_t) / (m1 + 2)
        )
        / youden
    )
    low, high = th + dth - z * se, th + dth + z * se
    return min(1.0, max(0.0, high)) - min(1.0, max(0.0, low))


def brute_expected_width(m0, m1, p, q0, q1, n):
    """E[width] by a plain loop over every outcome (k0, k1[, k]) with its binomial probability."""
    tests = [(p, 1.0)] if math.isinf(n) else [(k / n, binom.pmf(k, n, p)) for k in range(n + 1)]
    total = 0.0
    for k0 in range(m0 + 1):
        w0 = binom.pmf(k0, m0, q0)
        for k1 in range(m1 + 1):
            w1 = binom.pmf(k1, m1, q1)
            for p_hat, wk in tests:
                total += w0 * w1 * wk * lr_width(p_hat, k0 / m0, k1 / m1, n, m0, m1)
    return total


def small_arm():
    """The small_arm warning that plans with an arm under 30 items legitimately raise."""
    return pytest.warns(JudgeStatsWarning)
