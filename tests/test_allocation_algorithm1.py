"""Calibration planning: Algorithm 1 of Lee et al. (arXiv 2511.21140 v1), by hand and Monte Carlo.

Reference values come from hand computations of Algorithm 1 and Monte Carlo runs of the
independent simulation engine (judgestats.simulate).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _allocation_reference import small_arm

from judgestats import JudgeStatsWarning
from judgestats.paper import allocate_calibration_sample
from judgestats.planning import (
    allocate_calibration,
    optimal_allocation,
)


# ---- Algorithm 1, by hand ---------------------------------------------------------------------
def test_algorithm1_steps_by_hand():
    # step 3: q0~ = (0.7*10 + 1)/12 = 8/12, q1~ = (0.9*10 + 1)/12 = 10/12; step 4: kappa = 2;
    # step 6: m1* = round(200 / (1 + (1/0.3 - 1) sqrt 2)) = round(46.513) = 47; step 7: m0 = 153
    plan = allocate_calibration(200, 0.3, q0_pilot=0.7, q1_pilot=0.9, m_pilot=10)
    assert tuple(plan) == (153, 47)
    m0, m1 = plan
    assert (m0, m1, plan.total) == (153, 47, 200)
    assert plan.kappa == pytest.approx(2.0, rel=1e-12)
    assert plan.m1_star == 47 and plan.rule == "algorithm1" and plan.m_pilot == 10
    assert allocate_calibration_sample(200, 0.3, 0.7, 0.9, 10) == (153, 47)


def test_algorithm1_pilot_floor_on_both_sides():
    # q~ = 10/12 both, kappa = 1: m1* = round(100 * p)
    with small_arm():
        low = allocate_calibration(100, 0.02, q0_pilot=0.9, q1_pilot=0.9, m_pilot=10)
    assert (low.m1_star, tuple(low)) == (2, (90, 10))  # max(2, 10) = 10
    with small_arm():
        high = allocate_calibration(100, 0.99, q0_pilot=0.9, q1_pilot=0.9, m_pilot=10)
    assert (high.m1_star, tuple(high)) == (99, (10, 90))  # min(99, 100 - 10) = 90


def test_p_hat_zero_sends_the_budget_to_m0_and_one_sends_it_to_m1():
    assert allocate_calibration_sample(100, 0.0, 0.7, 0.9, 5) == (95, 5)
    assert allocate_calibration_sample(100, 1.0, 0.7, 0.9, 5) == (5, 95)
    assert allocate_calibration_sample(100, 1e-9, 0.7, 0.9, 5) == (95, 5)
    # without a pilot the floor is one item per arm
    assert allocate_calibration_sample(100, 0.0) == (99, 1)


def test_no_pilot_means_kappa_one_and_is_flagged():
    with pytest.warns(JudgeStatsWarning):
        plan = allocate_calibration(100, 0.37, q0_pilot=0.6, q1_pilot=0.99, m_pilot=0)
    assert plan.kappa == 1.0 and tuple(plan) == (63, 37) and "no_pilot" in plan.flags
    # the reference signature's defaults: m_pilot = 0, so the pilot values do not matter
    assert allocate_calibration_sample(100, 0.37) == (63, 37)
    assert allocate_calibration_sample(100, 0.37, 0.2, 0.3) == (63, 37)


def test_perfect_pilot_does_not_divide_by_zero():
    # q1_pilot = 1: q1~ = 11/12, q0~ = 8/12 -> kappa = (4/12)/(1/12) = 4, sqrt = 2
    # m1* = round(120 / (1 + (1/0.5 - 1) * 2)) = 40
    plan = allocate_calibration(120, 0.5, q0_pilot=0.7, q1_pilot=1.0, m_pilot=10)
    assert plan.kappa == pytest.approx(4.0) and tuple(plan) == (80, 40)
    # the exact-q variant of optimal_allocation: q1 = 1 gives kappa = inf, m1* = 0 -> floor 1
    with small_arm():
        exact = optimal_allocation(60, 0.5, 0.7, 1.0, method="plugin").alternative("algorithm1")
    assert exact.kappa == math.inf and tuple(exact) == (59, 1)


def test_rounding_ties_go_up():
    # m1* = 5 * 0.5 = 2.5 exactly (kappa = 1): rounds half up to 3
    assert allocate_calibration_sample(5, 0.5) == (2, 3)
    assert allocate_calibration_sample(7, 0.5) == (3, 4)


def test_step_seven_always_spends_the_budget():
    for m in (2, 3, 17, 100):
        for p in np.linspace(0, 1, 11):
            for pilot in range(0, m // 2 + 1, max(1, m // 6)):
                m0, m1 = allocate_calibration_sample(m, p, 0.8, 0.7, pilot)
                assert m0 + m1 == m and min(m0, m1) >= max(pilot, 1)


def test_algorithm1_agrees_with_the_simulation_engines_copy():
    simulate = pytest.importorskip("judgestats.simulate")
    for m in (20, 50, 201):
        for p in (0.05, 0.3, 0.61, 0.9):
            for k0, k1, pilot in ((7, 9, 10), (3, 5, 5), (10, 2, 10)):
                q0, q1 = k0 / pilot, k1 / pilot
                if q0 + q1 <= 1:
                    continue
                theirs = simulate.adaptive_allocation(m, p, k0, k1, pilot)
                ours = allocate_calibration_sample(m, p, q0, q1, pilot)
                assert ours == (int(theirs[0]), int(theirs[1]))


# ---- Monte Carlo check of Algorithm 1 (Lee et al. v1 Fig. 4c) ------------------------------------
def test_algorithm1_shortens_intervals_except_near_the_symmetric_point():
    simulate = pytest.importorskip("judgestats.simulate")
    theta = np.round(np.arange(0, 1.0001, 0.05), 2)
    options = {
        "theta": theta,
        "q0": 0.7,
        "q1": 0.9,
        "n": 1000,
        "m0": 250,
        "m1": 250,
        "reps": 2000,
        "random_seed": 3,
    }
    equal = simulate.coverage("lang_reiczigel", **options).width_mean.values
    adaptive = simulate.coverage(
        "lang_reiczigel", allocation="adaptive", **options
    ).width_mean.values
    far = np.abs(theta - 0.557) >= 0.2
    assert (adaptive[far] < equal[far]).all()
    # near theta = 0.557, where Prop. 2 says the split is symmetric, the two are within 0.005
    # (the adaptive one can be slightly longer: the exact optimum is symmetric near 0.60)
    assert (np.abs(adaptive[~far] - equal[~far]) < 0.005).all()
