"""Independent references for the closed-form tests, written from Lee et al. v1 eqs. (4)-(7).

Plain Python, with z from ``statistics.NormalDist().inv_cdf`` (independent of scipy), never copied
from the code under test. Used by tests/test_frequentist*.py.
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist

TOL = 1e-12


def z_of(level: float) -> float:
    """z_alpha: the (1 - alpha/2) standard normal quantile, alpha = 1 - level (below eq. 5)."""
    alpha = 1.0 - level
    return NormalDist().inv_cdf(1.0 - alpha / 2.0)


def ref_rg(p: float, q0: float, q1: float) -> float:
    """Eq. (4): theta-hat = (p + q0 - 1) / (q0 + q1 - 1), unclipped."""
    return (p + q0 - 1.0) / (q0 + q1 - 1.0)


def ref_lr_raw(p, q0, q1, n, m0, m1, level=0.95):
    """Eqs. (5)-(7) before truncation; n = inf gives the n -> infinity limit (p~ = p)."""
    z = z_of(level)
    z2 = z * z
    if math.isinf(n):
        pt = p
        var_test = 0.0
    else:
        nt = n + z2  # eq. (6)
        pt = (n * p + z2 / 2.0) / nt  # eq. (6)
        var_test = pt * (1.0 - pt) / nt
    m0t, m1t = m0 + 2.0, m1 + 2.0  # eq. (6)
    q0t = (m0 * q0 + 1.0) / m0t  # eq. (6)
    q1t = (m1 * q1 + 1.0) / m1t  # eq. (6)
    jt = q0t + q1t - 1.0
    tht = (pt + q0t - 1.0) / jt  # eq. (7)
    v0 = q0t * (1.0 - q0t) / m0t
    v1 = q1t * (1.0 - q1t) / m1t
    dth = 2.0 * z2 * (-(1.0 - tht) * v0 + tht * v1)  # eq. (7)
    se = math.sqrt(var_test + (1.0 - tht) ** 2 * v0 + tht**2 * v1) / jt  # eq. (5)
    return tht + dth - z * se, tht + dth + z * se


def clip01(x: float) -> float:
    return min(1.0, max(0.0, x))


def ref_lr(p, q0, q1, n, m0, m1, level=0.95):
    """Eq. (5) with both ends truncated to [0, 1]."""
    low, high = ref_lr_raw(p, q0, q1, n, m0, m1, level)
    return clip01(low), clip01(high)


def random_valid(rng: random.Random):
    """Random inputs with a judge clearly better than chance after smoothing."""
    while True:
        q0, q1 = rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.0)
        m0, m1 = rng.randint(1, 500), rng.randint(1, 500)
        q0t, q1t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
        if q0t + q1t - 1 > 0.05 and q0 + q1 - 1 > 0.05:
            return rng.random(), q0, q1, rng.randint(1, 10_000), m0, m1
