"""Stratified calibration, closed form: judgestats.stratified (issue 15, part 2).

Independent facts only: the one-stratum reduction to ``judgestats.estimate``, the overall estimate
and interval recomputed here from Lee et al. v1 eqs. 4-7 written out by hand, an invariance, the
pooled correction's bias derived by hand from noise-free counts, and the errors.
"""

from __future__ import annotations

import json
import math
import warnings
from statistics import NormalDist

import matplotlib
import numpy as np
import pandas as pd
import pytest

import judgestats as jc
from judgestats.results import FLAG_MESSAGES, Result
from judgestats.stratified import (
    PooledBias,
    StratifiedData,
    StratifiedEstimate,
    pooled_bias,
    stratified_estimate,
)

matplotlib.use("Agg")

Z95 = NormalDist().inv_cdf(0.975)  # independent of judgestats's ndtri


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        return function(*args, **kwargs)


def counts(k, n, k0, m0, k1, m1):
    return {"k": k, "n": n, "k0": k0, "m0": m0, "k1": k1, "m1": m1}


# three strata: A p = .55, q0 = .9, q1 = .8; B p = .6, q0 = .75, q1 = .95; C p = .7, q0 = .6,
# q1 = .9; test shares .5, .3, .2
THREE = {
    "A": counts(275, 500, 90, 100, 80, 100),
    "B": counts(180, 300, 60, 80, 95, 100),
    "C": counts(140, 200, 30, 50, 45, 50),
}

# noise-free counts: "easy" has theta = .9 and a judge with q0 = q1 = .95 (p = .86), "hard" has
# theta = .4 and q0 = q1 = .7 (p = .46); test shares .8 / .2; true overall theta = .8
EASY_HARD_TEST = {"easy": (688, 800), "hard": (92, 200)}


def easy_hard(m0: tuple[int, int], m1: tuple[int, int], q=(0.95, 0.7)) -> StratifiedData:
    """The easy/hard test counts with calibration arms m0, m1 per stratum at the judges' rates."""
    table = {}
    for i, (name, (k, n)) in enumerate(EASY_HARD_TEST.items()):
        k0, k1 = round(q[i] * m0[i]), round(q[i] * m1[i])
        table[name] = counts(k, n, k0, m0[i], k1, m1[i])
    return StratifiedData.from_counts(table)


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


# ---------------------------------------------------------------------------------------------
# the pooled-bias diagnostic
# ---------------------------------------------------------------------------------------------
def test_pooled_bias_by_hand_when_judges_and_shares_differ():
    # 100 items per class and stratum: the calibration gives each stratum half of each class,
    # the test set has 80% easy items. Pooled counts: p = 780/1000 = .78,
    # q0 = (95 + 70) / 200 = .825, q1 = .825, so the pooled limit is (.78 + .825 - 1) / .65
    # = .605 / .65; the stratified (= true) accuracy is .8 * .9 + .2 * .4 = .8
    data = easy_hard(m0=(100, 100), m1=(100, 100))
    result = quiet(stratified_estimate, data)
    bias = 0.605 / 0.65 - 0.8
    assert math.isclose(result.theta, 0.8, rel_tol=1e-14)
    assert math.isclose(result.diagnostic.bias, bias, rel_tol=1e-12)
    assert math.isclose(result.pooled.estimate, 0.605 / 0.65, rel_tol=1e-14)
    assert "pooled_biased" in result.flags and result.diagnostic.flagged
    # the test set's truly-incorrect items: easy .8 * .1, hard .2 * .6 -> q0 seen by the test
    # set (.08 * .95 + .12 * .7) / .2 = .8; truly correct: .72 easy, .08 hard ->
    # (.72 * .95 + .08 * .7) / .8 = .925
    diag = result.diagnostic
    assert math.isclose(diag.q0_calibration, 0.825) and math.isclose(diag.q1_calibration, 0.825)
    assert math.isclose(diag.q0_test, 0.8, rel_tol=1e-12)
    assert math.isclose(diag.q1_test, 0.925, rel_tol=1e-12)
    # the decomposition (module docstring): ((1 - .8)(.825 - .8) - .8 (.825 - .925)) / .65
    assert math.isclose(diag.specificity_term, 0.2 * 0.025 / 0.65, rel_tol=1e-10)
    assert math.isclose(diag.sensitivity_term, 0.8 * 0.1 / 0.65, rel_tol=1e-10)
    assert math.isclose(diag.specificity_term + diag.sensitivity_term, bias, rel_tol=1e-12)


def test_pooled_bias_standard_error_matches_a_numerical_gradient():
    data = easy_hard(m0=(100, 100), m1=(100, 100))

    def difference(rates):
        p, q0, q1 = rates.reshape(3, -1)
        w = data.n / data.n.sum()
        a, b = data.m0 / data.m0.sum(), data.m1 / data.m1.sum()
        big_p, big_q0, big_q1 = w @ p, a @ q0, b @ q1
        pooled = (big_p + big_q0 - 1) / (big_q0 + big_q1 - 1)
        return pooled - w @ ((p + q0 - 1) / (q0 + q1 - 1))

    rates = np.concatenate([data.k / data.n, data.k0 / data.m0, data.k1 / data.m1])
    sizes = np.concatenate([data.n, data.m0, data.m1])
    step = 1e-6
    gradient = np.array(
        [
            (difference(rates + step * e) - difference(rates - step * e)) / (2 * step)
            for e in np.eye(rates.size)
        ]
    )
    se = math.sqrt(np.sum(gradient**2 * rates * (1 - rates) / sizes))
    assert math.isclose(pooled_bias(data).se, se, rel_tol=1e-6)


def test_no_flag_when_the_judges_are_equal():
    # q0 = q1 = .9 in both strata, shares as unequal as above: pooled p = (656 + 84) / 1000 = .74,
    # pooled limit (.74 + .9 - 1) / .8 = .8 = the stratified estimate
    data = StratifiedData.from_counts(
        {"easy": counts(656, 800, 90, 100, 90, 100), "hard": counts(84, 200, 90, 100, 90, 100)}
    )
    result = quiet(stratified_estimate, data)
    assert abs(result.diagnostic.bias) < 1e-14
    assert "pooled_biased" not in result.flags


def test_no_flag_when_the_calibration_mixes_strata_like_the_test_set():
    # judges differ (.95 vs .7) but each class's calibration items are spread over the strata
    # like the test set's items of that class: truly incorrect 80 easy, 120 hard (.4 / .6),
    # truly correct 720 easy, 80 hard (.9 / .1). Pooled q0 = (38 + 42) / 100 = .8,
    # q1 = (171 + 14) / 200 = .925, limit (.78 + .8 - 1) / .725 = .8: no bias
    data = easy_hard(m0=(40, 60), m1=(180, 20))
    result = quiet(stratified_estimate, data)
    assert abs(result.diagnostic.bias) < 1e-14
    assert "pooled_biased" not in result.flags


def test_shares_proportional_to_the_test_sizes_are_not_enough():
    # arms proportional to n_s (160 / 40 per class) still bias the pooled correction when
    # accuracy and judge quality vary together: pooled q0 = q1 = (152 + 28) / 200 = .9, limit
    # (.78 + .9 - 1) / .8 = .85 (the J-weighted mean of the theta_s), not .8
    data = easy_hard(m0=(160, 40), m1=(160, 40))
    result = quiet(stratified_estimate, data)
    assert math.isclose(result.diagnostic.bias, 0.05, rel_tol=1e-10)
    assert "pooled_biased" in result.flags


def test_small_differences_are_not_flagged():
    # a difference of many se is not flagged when it is below 0.01. Easy (theta = .9, q0 = q1 =
    # .91, p = .828) and hard (theta = .4, q0 = q1 = .89, p = .422) with 10^6 items per arm:
    # pooled q0 = q1 = .9, p = .8 * .828 + .2 * .422 = .7468, limit .6468 / .8 = .8085,
    # bias .0085
    data = StratifiedData.from_counts(
        {
            "easy": counts(6_624_000, 8_000_000, 910_000, 10**6, 910_000, 10**6),
            "hard": counts(844_000, 2_000_000, 890_000, 10**6, 890_000, 10**6),
        }
    )
    diag = pooled_bias(data)
    assert math.isclose(diag.bias, 0.0085, rel_tol=1e-9)
    assert abs(diag.bias) > 10 * diag.se
    assert not diag.flagged


# ---------------------------------------------------------------------------------------------
# data: constructors and derived quantities
# ---------------------------------------------------------------------------------------------
def test_data_derived_quantities():
    data = StratifiedData.from_counts(THREE)
    assert data.strata == ("A", "B", "C") and data.size == len(data) == 3 and data.total == 1000
    assert data.pooled() == jc.JudgeData(595, 1000, 180, 230, 220, 250)
    assert data.stratum("B") == jc.JudgeData(180, 300, 60, 80, 95, 100)
    assert data.to_dict() == {
        "strata": ["A", "B", "C"],
        **{name: [THREE[s][name] for s in "ABC"] for name in ("k", "n", "k0", "m0", "k1", "m1")},
    }
    assert StratifiedData(**data.to_dict()) == data
    assert hash(StratifiedData(**data.to_dict())) == hash(data)
    for name in ("k", "n", "k0", "m0", "k1", "m1"):
        assert getattr(data, name).dtype == np.int64
    with pytest.raises(KeyError, match="`name`"):
        data.stratum("D")


def test_from_counts_accepts_judge_data_and_dicts():
    table = {"A": jc.JudgeData(**THREE["A"]), "B": THREE["B"]}
    data = StratifiedData.from_counts(table)
    assert data.stratum("A") == table["A"] and data.k.tolist() == [275, 180]


def items_frame() -> pd.DataFrame:
    """Stratum 'x': 3 test items (2 judged correct), calibration 0: (h0, j0), (h0, j1),
    1: (h1, j1); stratum 'y': 2 test items (0 correct), calibration (h0, j0), (h1, j0), (h1, j1)."""
    rows = [
        ("y", 0, None), ("x", 1, None), ("x", 1, None), ("x", 0, None), ("y", 0, None),
        ("x", 0, 0), ("x", 1, 0), ("x", 1, 1), ("y", 0, 0), ("y", 0, 1), ("y", 1, 1),
    ]  # fmt: skip
    frame = pd.DataFrame(
        {
            "id": [f"i{i}" for i in range(len(rows))],
            "judge": pd.array([r[1] for r in rows], dtype="Int64"),
            "human": pd.array([r[2] for r in rows], dtype="Int64"),
            "task": [r[0] for r in rows],
        }
    )
    frame.attrs["source"] = "items.csv"
    return frame


def test_from_items_counts_each_stratum():
    frame = items_frame()
    before = frame.copy()
    data = StratifiedData.from_items(frame, by="task")
    assert data.strata == ("y", "x")  # order of first appearance
    assert data.to_dict() == {
        "strata": ["y", "x"],
        "k": [0, 2], "n": [2, 3], "k0": [1, 1], "m0": [1, 2], "k1": [1, 1], "m1": [2, 1],
    }  # fmt: skip
    pd.testing.assert_frame_equal(frame, before)


def test_from_items_errors_name_the_argument_and_stratum():
    frame = items_frame()
    with pytest.raises(ValueError, match="`by`"):
        StratifiedData.from_items(frame, by="model")
    with pytest.raises(ValueError, match="`by`"):
        StratifiedData.from_items(frame, by="human")
    with pytest.raises(TypeError, match="`by`"):
        StratifiedData.from_items(frame, by=["task"])
    with pytest.raises(TypeError, match="`items`"):
        StratifiedData.from_items({"id": []}, by="task")
    no_stratum = frame.astype({"task": object})
    no_stratum.loc[3, "task"] = None
    with pytest.raises(ValueError, match="`by`"):
        StratifiedData.from_items(no_stratum, by="task")
    only_labelled = frame[frame["human"].notna() | (frame["task"] == "x")]
    with pytest.raises(ValueError, match=r"`n` \(0\).*stratum 'y'"):
        StratifiedData.from_items(only_labelled, by="task")


# ---------------------------------------------------------------------------------------------
# errors name the argument; inputs are untouched
# ---------------------------------------------------------------------------------------------
GOOD = {"strata": ("a", "b"), **counts([5, 6], [10, 10], [8, 7], [10, 10], [9, 9], [10, 10])}


@pytest.mark.parametrize(
    ("change", "error", "pattern"),
    [
        ({"strata": ()}, ValueError, "`strata`"),
        ({"strata": ("a", "a")}, ValueError, "`strata`.*'a' twice"),
        ({"strata": ("a", "")}, ValueError, "`strata`"),
        ({"strata": "ab"}, TypeError, "`strata`"),
        ({"strata": ("a", 2)}, TypeError, "`strata`"),
        ({"strata": None}, TypeError, "`strata`"),
        ({"k": [5, 6, 7]}, ValueError, "`k` has 3 counts"),
        ({"m1": [10]}, ValueError, "`m1` has 1 counts"),
        ({"n": [[10, 10]]}, ValueError, "`n` must be a 1-D"),
        ({"m0": [10, 0], "k0": [8, 0]}, ValueError, r"`m0` \(0\).*stratum 'b'"),
        ({"m1": [0, 10], "k1": [0, 9]}, ValueError, r"`m1` \(0\).*stratum 'a'"),
        ({"n": [0, 10], "k": [0, 6]}, ValueError, r"`n` \(0\).*stratum 'a'"),
        ({"k": [11, 6]}, ValueError, r"`k` \(11\) must not exceed `n`.*stratum 'a'"),
        ({"k1": [9, 12]}, ValueError, r"`k1` \(12\).*stratum 'b'"),
        ({"k0": [-1, 7]}, ValueError, "`k0`.*stratum 'a'"),
        ({"k": [5.5, 6]}, ValueError, "`k`.*whole"),
        ({"k": ["5", "6"]}, TypeError, "`k`"),
        ({"n": [True, True]}, TypeError, "`n`"),
        ({"m0": None}, TypeError, "`m0`"),
    ],
)
def test_invalid_data_raises_naming_the_argument(change, error, pattern):
    with pytest.raises(error, match=pattern):
        StratifiedData(**{**GOOD, **change})


def test_from_counts_errors():
    with pytest.raises(ValueError, match="`counts`"):
        StratifiedData.from_counts({})
    with pytest.raises(TypeError, match="`counts`"):
        StratifiedData.from_counts([("a", THREE["A"])])
    with pytest.raises(TypeError, match="`counts`"):
        StratifiedData.from_counts({"a": (1, 2, 3, 4, 5, 6)})
    with pytest.raises(ValueError, match="`counts`.*missing \\['m1'\\]"):
        StratifiedData.from_counts({"a": {k: v for k, v in THREE["A"].items() if k != "m1"}})
    with pytest.raises(ValueError, match="`counts`.*design"):
        StratifiedData.from_counts({"a": jc.JudgeData(5, 10, 0, 0, 3, 4, design="random")})
    with pytest.raises(TypeError, match="`k`"):
        StratifiedData.from_counts({"a": {**THREE["A"], "k": True}})


def test_judge_no_better_than_chance_in_a_stratum():
    # stratum 'b': q0 = .4, q1 = .5, J = -.1
    bad = StratifiedData(**{**GOOD, "k0": [8, 4], "k1": [9, 5]})
    with pytest.raises(ValueError, match="`data`: stratum 'b'.*no better than chance"):
        stratified_estimate(bad)
    with pytest.raises(ValueError, match="stratum 'b'"):
        pooled_bias(bad)
    # stratum 'a': q0 = 1/1, q1 = 1/10, J = .1 > 0, but q0~ + q1~ - 1 = 2/3 + 1/6 - 1 < 0
    smoothed = StratifiedData(**{**GOOD, "k0": [1, 7], "m0": [1, 10], "k1": [1, 9]})
    with pytest.raises(ValueError, match="`data`: stratum 'a'.*Laplace"):
        quiet(stratified_estimate, smoothed)


def test_pooled_judge_without_a_correction_gives_a_nan_row():
    # each stratum's judge is better than chance (J = .05), but the calibration measures q0
    # mostly where it is low and q1 mostly where it is low: pooled q0 + q1 - 1 < 0
    data = StratifiedData.from_counts(
        {
            "a": counts(50, 100, 99, 100, 60, 1000),  # q0 = .99, q1 = .06, J = .05
            "b": counts(50, 100, 60, 1000, 99, 100),  # q0 = .06, q1 = .99, J = .05
        }
    )  # pooled q0 = q1 = (99 + 60) / 1100 = .1445: J < 0
    result = quiet(stratified_estimate, data)
    assert math.isnan(result.pooled.estimate) and result.pooled.flags == ("no_better_than_chance",)
    assert math.isnan(result.diagnostic.bias) and "pooled_biased" not in result.flags
    assert not math.isnan(result.theta)


def test_estimate_argument_errors():
    data = StratifiedData.from_counts(THREE)
    with pytest.raises(TypeError, match="`data`"):
        stratified_estimate(jc.JudgeData(**THREE["A"]))
    with pytest.raises(TypeError, match="`data`"):
        pooled_bias(THREE)
    with pytest.raises(ValueError, match="`confidence_level`"):
        stratified_estimate(data, confidence_level=1.5)
    with pytest.raises(TypeError, match="`confidence_level`"):
        stratified_estimate(data, confidence_level="0.95")


def test_inputs_are_untouched_and_fields_read_only():
    arrays = {name: np.array(value) for name, value in GOOD.items() if name != "strata"}
    copies = {name: value.copy() for name, value in arrays.items()}
    strata = ["a", "b"]
    data = StratifiedData(strata, **arrays)
    assert strata == ["a", "b"] and data.strata == ("a", "b")
    for name, value in arrays.items():
        np.testing.assert_array_equal(value, copies[name])
        assert value.flags.writeable
        assert not np.shares_memory(value, getattr(data, name))
        with pytest.raises(ValueError, match="read-only"):
            getattr(data, name)[0] = 1
    table = {"A": dict(THREE["A"])}
    StratifiedData.from_counts(table)
    assert table == {"A": THREE["A"]}


# ---------------------------------------------------------------------------------------------
# the result contract
# ---------------------------------------------------------------------------------------------
def test_result_contract(capsys):
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    data = easy_hard(m0=(20, 20), m1=(20, 20))
    result = quiet(stratified_estimate, data)
    assert isinstance(result, Result) and isinstance(result.diagnostic, PooledBias)
    assert {"small_stratum_calibration", "pooled_biased"} <= set(result.flags)
    for item in (result, result.diagnostic, result.pooled, *result.by_stratum):
        assert set(item.flags) <= set(FLAG_MESSAGES)
        json.loads(json.dumps(item.to_dict()))
        capsys.readouterr()
        frame = item.summary()
        assert isinstance(frame, pd.DataFrame) and len(frame)
        assert capsys.readouterr() == ("", "")
        ax = item.plot()
        assert isinstance(ax, Axes)
        _, own = plt.subplots()
        assert item.plot(ax=own) is own
        plt.close("all")
        assert item._repr_html_().startswith('<div class="judgestats-result">')
        assert str(item).strip()
    frame = result.summary()
    assert list(frame.index) == ["easy", "hard", "overall (stratified)", "pooled (unstratified)"]
    assert frame.loc["overall (stratified)", "estimate"] == result.theta
    assert frame["n"].tolist() == [800, 200, 1000, 1000]
    as_dict = result.to_dict()
    assert set(as_dict["strata"]) == {"easy", "hard"} and set(as_dict["flags"]) == set(result.flags)
    assert result.stratum("hard") is result.by_stratum[1]
    with pytest.raises(KeyError, match="`name`"):
        result.stratum("medium")


def test_flags_warn_once():
    data = easy_hard(m0=(100, 100), m1=(100, 100))
    with pytest.warns(jc.JudgeStatsWarning) as record:
        stratified_estimate(data)
    assert len(record) == 1


def test_import_judgestats_stratified_stays_light():
    import subprocess
    import sys

    code = (
        "import sys, judgestats.stratified; "
        "print(any(m in sys.modules for m in ('pandas', 'matplotlib', 'scipy.stats', 'pymc')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
