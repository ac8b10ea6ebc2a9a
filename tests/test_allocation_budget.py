"""Calibration planning: the smallest calibration budget that reaches a target width."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _allocation_reference import lr_width, small_arm

from judgestats import JudgeStatsWarning
from judgestats.planning import (
    expected_width,
    optimal_allocation,
    required_calibration,
)


# ---- the budget -------------------------------------------------------------------------------
def test_figure_three_equal_split_needs_about_200_per_arm():
    # Lee et al. v1 Fig. 3: p = 0.3, q0 = 0.7, q1 = 0.9, n -> inf: width 0.1 needs m0 = m1 ~ 200
    plan = required_calibration(0.1, 0.3, 0.7, 0.9, allocation="equal", method="plugin")
    assert 170 <= plan.m1 <= plan.m0 <= plan.m1 + 1 <= 211
    m = plan.total
    assert lr_width(0.3, 0.7, 0.9, math.inf, m - m // 2, m // 2) <= 0.1
    m -= 1
    assert lr_width(0.3, 0.7, 0.9, math.inf, m - m // 2, m // 2) > 0.1


@pytest.mark.slow
@pytest.mark.parametrize("allocation", ["equal", "algorithm1", "optimal"])
def test_budget_is_the_smallest_that_reaches_the_width(allocation):
    plan = required_calibration(0.15, 0.6, 0.8, 0.85, n=2000, allocation=allocation)
    assert plan.width <= 0.15 and plan.target_width == 0.15
    assert plan.width == pytest.approx(expected_width(*plan, 0.6, 0.8, 0.85, n=2000), rel=1e-12)
    smaller = plan.total - 1
    if allocation == "optimal":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)
            before = optimal_allocation(smaller, 0.6, 0.8, 0.85, n=2000).width
    elif allocation == "equal":
        before = expected_width(smaller - smaller // 2, smaller // 2, 0.6, 0.8, 0.85, n=2000)
    else:
        # Algorithm 1 with the planning q's as a perfect pilot: kappa = 0.2 / 0.15
        m1_star = smaller / (1 + (1 / 0.6 - 1) * math.sqrt(0.2 / 0.15))
        m1 = min(max(math.floor(m1_star + 0.5), 1), smaller - 1)
        before = expected_width(smaller - m1, m1, 0.6, 0.8, 0.85, n=2000)
    assert before > 0.15
    totals, widths = plan.to_dict()["trace"]["total"], plan.to_dict()["trace"]["width"]
    assert totals == sorted(totals) and (np.diff(widths) <= 0).all()


def test_pilot_floor_only_binds_algorithm1_and_non_monotone_search_is_detected():
    from judgestats.planning.allocation import _is_monotone

    with small_arm():
        equal = required_calibration(0.5, 0.5, 0.9, 0.9, allocation="equal", m_pilot=30)
    algorithm1 = required_calibration(0.5, 0.5, 0.9, 0.9, allocation="algorithm1", m_pilot=30)
    assert equal.total < 60 and algorithm1.total == 60 and min(algorithm1) == 30
    assert _is_monotone(((2, 0.9), (4, 0.5), (8, 0.5))) is True
    assert _is_monotone(((2, 0.9), (4, 0.5), (8, 0.51))) is False


@pytest.mark.slow
def test_optimal_budget_is_smallest_and_targets_are_monotone():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # small arms at the wide targets
        totals = {
            rule: [
                required_calibration(w, 0.3, 0.7, 0.9, allocation=rule).total
                for w in (0.3, 0.2, 0.15, 0.1)
            ]
            for rule in ("equal", "optimal")
        }
    for rule in totals:
        assert totals[rule] == sorted(totals[rule])
    assert all(o <= e for o, e in zip(totals["optimal"], totals["equal"], strict=True))


@pytest.mark.slow
def test_bayes_budget_and_width():
    plan = required_calibration(0.25, 0.5, 0.8, 0.9, n=500, method="bayes")
    assert plan.method == "bayes" and plan.width <= 0.25
    totals, widths = zip(*plan.trace, strict=True)
    assert (np.diff(widths) <= 0).all()
    before = [w for t, w in plan.trace if t < plan.total]
    assert max(before) > 0.25 and before[-1] > 0.25


def test_bayes_expected_width_matches_monte_carlo_of_posterior_widths():
    from judgestats.bayes.exact import exact_interval

    rng = np.random.default_rng(5)
    size = 300
    k = rng.binomial(400, 0.55, size)
    k0, k1 = rng.binomial(40, 0.85, size), rng.binomial(30, 0.9, size)
    low, high = exact_interval(k, 400, k0, 40, k1, 30)
    widths = high - low
    mc, se = widths.mean(), widths.std() / math.sqrt(size)
    assert expected_width(40, 30, 0.55, 0.85, 0.9, n=400, method="bayes") == pytest.approx(
        mc, abs=4 * se + 0.003
    )
