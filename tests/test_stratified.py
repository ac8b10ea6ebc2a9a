"""Stratified calibration, closed form: the overall estimate and interval (judgestats.stratified).

Independent facts only: the one-stratum reduction to ``judgestats.estimate``, the overall estimate
and interval recomputed here from Lee et al. v1 eqs. 4-7 written out by hand, and an invariance.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from _stratified_data import THREE, counts, quiet

import judgestats as jc
from judgestats.stratified import (
    StratifiedData,
    StratifiedEstimate,
    stratified_estimate,
)

Z95 = NormalDist().inv_cdf(0.975)  # independent of judgestats's ndtri


# ---------------------------------------------------------------------------------------------
# one stratum is judgestats.estimate
# ---------------------------------------------------------------------------------------------
ONE_STRATUM_GRID = [
    (400, 1000, 140, 200, 180, 200),  # the paper's example
    (50, 100, 55, 100, 50, 100),  # weak judge, J = 0.05
    (30, 100, 62, 100, 45, 100),  # weak judge, J = 0.07
    *[(3, 7, m, m, m, m) for m in range(1, 6)],  # tiny arms m0 = m1 = 1..5, perfect judge
    (2, 5, 1, 2, 2, 3),  # tiny unequal arms
    (4_000_000, 10_000_000, 140, 200, 180, 200),  # huge n
    (4_000_000, 10_000_000, 7_000_000, 10_000_000, 9_000_000, 10_000_000),  # huge everything
    (200, 1000, 80, 100, 90, 100),  # p = 1 - q0: estimate 0
    (100, 1000, 80, 100, 90, 100),  # p < 1 - q0: clipped to 0
    (900, 1000, 80, 100, 90, 100),  # p = q1: estimate 1
    (990, 1000, 80, 100, 90, 100),  # p > q1: clipped to 1
    (0, 50, 20, 20, 20, 20),  # k = 0
    (50, 50, 20, 20, 20, 20),  # k = n
]


@pytest.mark.parametrize("row", ONE_STRATUM_GRID)
@pytest.mark.parametrize("level", [0.95, 0.8])
def test_one_stratum_is_estimate(row, level):
    judge = jc.JudgeData(*row)
    single = quiet(jc.estimate, judge, confidence_level=level)
    result = quiet(
        stratified_estimate, StratifiedData.from_counts({"all": judge}), confidence_level=level
    )
    assert abs(result.theta - single.theta) <= 1e-15
    assert abs(result.theta_raw - single.theta_raw) <= 1e-15
    summed = quiet(
        stratified_estimate,
        StratifiedData.from_counts({"all": judge}),
        confidence_level=level,
        interval="summed",
    )
    assert abs(summed.ci.low - single.ci.low) <= 1e-15
    assert abs(summed.ci.high - single.ci.high) <= 1e-15
    # MOVER of one stratum is its own Agresti-Coull-adjusted interval (issue 25), truncated
    z = NormalDist().inv_cdf(0.5 + level / 2)
    centre, se = ac_parts_by_hand(*row, z=z)
    assert math.isclose(result.ci.low, min(1.0, max(0.0, centre - z * se)), abs_tol=1e-12)
    assert math.isclose(result.ci.high, min(1.0, max(0.0, centre + z * se)), abs_tol=1e-12)
    assert ("clipped" in result.flags) == ("clipped" in single.flags)
    # the stratum's row and the pooled row are the estimate itself; nothing to pool: no bias
    assert tuple(result.by_stratum[0]) == tuple(single.interval)
    assert tuple(result.pooled) == tuple(single.interval)
    assert result.diagnostic.bias == 0.0 and "pooled_biased" not in result.flags


# ---------------------------------------------------------------------------------------------
# three strata by hand: eqs. 4-7 per stratum, weights n_s / N, variances summed
# ---------------------------------------------------------------------------------------------
def lr_parts_by_hand(k, n, k0, m0, k1, m1, z):
    """Lee et al. v1 eqs. 5-7 for one stratum: (centre theta~ + d theta~, se~)."""
    p, q0, q1 = k / n, k0 / m0, k1 / m1
    n_t, m0_t, m1_t = n + z * z, m0 + 2, m1 + 2  # eq. 6
    p_t = (n * p + z * z / 2) / n_t
    q0_t = (m0 * q0 + 1) / m0_t
    q1_t = (m1 * q1 + 1) / m1_t
    theta_t = (p_t + q0_t - 1) / (q0_t + q1_t - 1)
    shift = (
        2 * z * z * (-(1 - theta_t) * q0_t * (1 - q0_t) / m0_t + theta_t * q1_t * (1 - q1_t) / m1_t)
    )  # eq. 7
    var = (
        p_t * (1 - p_t) / n_t
        + (1 - theta_t) ** 2 * q0_t * (1 - q0_t) / m0_t
        + theta_t**2 * q1_t * (1 - q1_t) / m1_t
    ) / (q0_t + q1_t - 1) ** 2  # eq. 5 squared
    return theta_t + shift, math.sqrt(var)


def ac_parts_by_hand(k, n, k0, m0, k1, m1, z):
    """Eqs. 5-7 with z^2/2 added to the successes and failures of every arm (Agresti-Coull)."""
    n_t, m0_t, m1_t = n + z * z, m0 + z * z, m1 + z * z
    p_t, q0_t, q1_t = (k + z * z / 2) / n_t, (k0 + z * z / 2) / m0_t, (k1 + z * z / 2) / m1_t
    youden = q0_t + q1_t - 1
    theta_t = (p_t + q0_t - 1) / youden
    v0, v1 = q0_t * (1 - q0_t) / m0_t, q1_t * (1 - q1_t) / m1_t
    shift = 2 * z * z * (theta_t * v1 - (1 - theta_t) * v0)
    var = p_t * (1 - p_t) / n_t + (1 - theta_t) ** 2 * v0 + theta_t**2 * v1
    return theta_t + shift, math.sqrt(var) / youden


def test_three_strata_by_hand():
    data = StratifiedData.from_counts(THREE)
    result = quiet(stratified_estimate, data)
    # weights: 500, 300, 200 of N = 1000
    assert data.weights.tolist() == [0.5, 0.3, 0.2]
    assert math.isclose(data.weights.sum(), 1.0, rel_tol=0, abs_tol=1e-15)
    # eq. 4 per stratum: A (.55 + .9 - 1) / .7 = 9/14, B (.6 + .75 - 1) / .7 = .5,
    # C (.7 + .6 - 1) / .5 = .6; overall .5 * 9/14 + .3 * .5 + .2 * .6
    expected = 0.5 * 9 / 14 + 0.3 * 0.5 + 0.2 * 0.6
    assert math.isclose(result.theta, expected, rel_tol=1e-14)
    assert [round(r.estimate, 12) for r in result.by_stratum] == [round(9 / 14, 12), 0.5, 0.6]
    parts = [lr_parts_by_hand(*THREE[s].values(), z=Z95) for s in "ABC"]
    weights = (0.5, 0.3, 0.2)
    # the summed form: centres and variances added
    summed = quiet(stratified_estimate, data, interval="summed")
    centre = sum(w * c for w, (c, _) in zip(weights, parts, strict=True))
    se = math.sqrt(sum((w * s) ** 2 for w, (_, s) in zip(weights, parts, strict=True)))
    assert math.isclose(summed.se, se, rel_tol=1e-12)
    assert math.isclose(summed.ci.low, centre - Z95 * se, rel_tol=1e-12)
    assert math.isclose(summed.ci.high, centre + Z95 * se, rel_tol=1e-12)
    assert summed.theta == result.theta
    # MOVER (the default): each stratum's Agresti-Coull-adjusted interval [c - z se, c + z se]
    # around its estimate, distances below and above combined separately (Zou and Donner 2008)
    parts = [ac_parts_by_hand(*THREE[s].values(), z=Z95) for s in "ABC"]
    estimates = (9 / 14, 0.5, 0.6)
    lows = [c - Z95 * s for c, s in parts]
    highs = [c + Z95 * s for c, s in parts]
    assert all(lo < t < hi for lo, t, hi in zip(lows, estimates, highs, strict=True))
    below = math.sqrt(
        sum((w * (t - lo)) ** 2 for w, t, lo in zip(weights, estimates, lows, strict=True))
    )
    above = math.sqrt(
        sum((w * (hi - t)) ** 2 for w, t, hi in zip(weights, estimates, highs, strict=True))
    )
    assert math.isclose(result.ci.low, expected - below, rel_tol=1e-12)
    assert math.isclose(result.ci.high, expected + above, rel_tol=1e-12)
    assert result.method.endswith("+mover") and summed.method.endswith("+summed")
    # both intervals are narrower than the widest stratum's and contain the estimate
    for combined in (result, summed):
        assert combined.width < max(r.width for r in combined.by_stratum)
        assert combined.ci.low < combined.theta < combined.ci.high


def test_mover_combines_the_uncut_limits_of_a_boundary_stratum():
    # stratum A: every test item judged correct by a near-perfect judge, so its estimate is 1
    # and its own row's interval is truncated at 1; MOVER combines A's *uncut* limits
    # c -/+ z se (eqs. 5-7), so A's uncertainty above its estimate reaches the overall interval
    # (issue 25 item 8: cutting first undercovered, about 0.90)
    data = StratifiedData.from_counts(
        {"A": counts(400, 400, 49, 50, 50, 50), "B": counts(300, 600, 45, 50, 44, 50)}
    )
    mover = quiet(stratified_estimate, data)
    a, b = mover.by_stratum
    assert a.estimate == 1.0 and a.high == 1.0  # the row itself stays truncated
    w_a, w_b = 0.4, 0.6
    assert math.isclose(mover.theta, w_a * 1.0 + w_b * b.estimate, rel_tol=1e-14)
    (c_a, s_a), (c_b, s_b) = (
        ac_parts_by_hand(*counts(*x).values(), z=Z95)
        for x in ((400, 400, 49, 50, 50, 50), (300, 600, 45, 50, 44, 50))
    )
    high_a, low_a = c_a + Z95 * s_a, c_a - Z95 * s_a
    assert high_a > 1.0 > low_a  # the uncut limit passes 1
    above = math.hypot(w_a * (high_a - 1.0), w_b * (c_b + Z95 * s_b - b.estimate))
    below = math.hypot(w_a * (1.0 - low_a), w_b * (b.estimate - (c_b - Z95 * s_b)))
    assert math.isclose(mover.ci.high, min(1.0, mover.theta + above), rel_tol=1e-12)
    assert math.isclose(mover.ci.low, mover.theta - below, rel_tol=1e-12)
    assert mover.ci.high - mover.theta > w_b * (b.high - b.estimate)  # A now adds above
    with pytest.raises(ValueError, match="`interval`"):
        stratified_estimate(data, interval="wald")


def test_other_level_recomputes_the_interval():
    result = quiet(stratified_estimate, StratifiedData.from_counts(THREE))
    at_90 = result.confidence_interval(0.9)
    direct = quiet(stratified_estimate, StratifiedData.from_counts(THREE), confidence_level=0.9)
    assert tuple(at_90) == (direct.theta, direct.ci.low, direct.ci.high)
    assert at_90.width < result.width


def split_a(scale: int) -> tuple[StratifiedEstimate, StratifiedEstimate]:
    """Stratum A (p = .56, q0 = .9, q1 = .8) whole and split into two identical halves."""
    a = counts(*(scale * x for x in (280, 500, 90, 100, 80, 100)))
    half = {key: value // 2 for key, value in a.items()}
    b = counts(*(scale * x for x in (180, 300, 60, 80, 95, 100)))
    whole = quiet(stratified_estimate, StratifiedData.from_counts({"A": a, "B": b}))
    split = quiet(stratified_estimate, StratifiedData.from_counts({"A1": half, "A2": half, "B": b}))
    return whole, split


def test_splitting_a_stratum_into_identical_halves():
    # What is tested exactly: (1) the point estimate is unchanged (same rates, weights w/2 + w/2);
    # (2) the delta-method variance sum_s w_s^2 Var_s (eq. 10 at the plug-in rates, no Laplace
    # adjustment) is unchanged: each half has twice the variance and a quarter of the squared
    # weight; (3) the Lang-Reiczigel ends differ only through the Laplace adjustment of eq. 6,
    # an O(1/size) effect: scaling every count by 10 shrinks the difference about tenfold;
    # (4) the pooled counts, hence the pooled row and the diagnostic, are identical.
    whole, split = split_a(1)
    assert split.theta_raw == whole.theta_raw

    def delta_method_se(data):
        p, q0, q1 = data.k / data.n, data.k0 / data.m0, data.k1 / data.m1
        theta = (p + q0 - 1) / (q0 + q1 - 1)
        var = (
            p * (1 - p) / data.n
            + (1 - theta) ** 2 * q0 * (1 - q0) / data.m0
            + theta**2 * q1 * (1 - q1) / data.m1
        ) / (q0 + q1 - 1) ** 2
        return math.sqrt(np.sum(data.weights**2 * var))

    assert math.isclose(delta_method_se(split.data), delta_method_se(whole.data), rel_tol=1e-14)
    assert tuple(split.pooled) == tuple(whole.pooled)
    assert split.diagnostic.bias == whole.diagnostic.bias
    differences = []
    for scale in (10, 100):
        whole, split = split_a(scale)
        differences.append(
            max(abs(whole.ci.low - split.ci.low), abs(whole.ci.high - split.ci.high))
        )
    assert 0 < differences[1] < differences[0] / 5
    assert differences[1] < 1e-2 * whole.width  # under 1% of the width at 100x the counts
