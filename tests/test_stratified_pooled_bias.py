"""Stratified calibration: the pooled correction's bias (pooled_bias), derived by hand from
noise-free counts.
"""

from __future__ import annotations

import math

import numpy as np
from _stratified_data import counts, easy_hard, quiet

from judgestats.stratified import (
    StratifiedData,
    pooled_bias,
    stratified_estimate,
)


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
