"""Calibration planning: the expected interval width and the split that minimises it.

Reference values come from a transcription of the interval of Lee et al. v1 eqs. (5)-(7)
(tests/_allocation_reference.py), brute-force loops over splits and over the binomial outcomes
(scipy.stats.binom), and Monte Carlo runs of the independent simulation engine.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _allocation_reference import brute_expected_width, lr_width

from judgestats import JudgeStatsWarning
from judgestats.planning import (
    expected_width,
    optimal_allocation,
)


# ---- expected width ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("m0", "m1", "p", "q0", "q1", "n"),
    [
        (6, 9, 0.4, 0.8, 0.85, math.inf),
        (12, 5, 0.31, 0.7, 0.9, math.inf),
        (4, 4, 0.6, 0.75, 0.8, 12),
        (40, 35, 0.3, 0.7, 0.9, math.inf),
        (20, 15, 0.5, 0.9, 0.95, math.inf),
    ],
)
def test_frequentist_expected_width_equals_brute_force_enumeration(m0, m1, p, q0, q1, n):
    assert expected_width(m0, m1, p, q0, q1, n=n) == pytest.approx(
        brute_expected_width(m0, m1, p, q0, q1, n), rel=1e-9
    )


@pytest.mark.parametrize(
    ("m0", "m1", "p", "q0", "q1", "n"),
    [
        (200, 100, 0.3, 0.7, 0.9, math.inf),  # arm supports longer than 48 values: grouped
        (8, 6, 0.45, 0.8, 0.9, 150),  # test-count support longer than 16 values: grouped
        (30, 20, 0.32, 0.7, 0.9, 400),
    ],
)
def test_grouped_quadrature_is_accurate(m0, m1, p, q0, q1, n):
    assert expected_width(m0, m1, p, q0, q1, n=n) == pytest.approx(
        brute_expected_width(m0, m1, p, q0, q1, n), rel=5e-4
    )


def test_plugin_width_is_the_interval_at_the_planning_values():
    # the example of the authors' reference code: (0.0564, 0.2627) at p = 0.4, q0 = 0.7,
    # q1 = 0.9, n = 1000, 200/200
    assert expected_width(200, 200, 0.4, 0.7, 0.9, n=1000, method="plugin") == pytest.approx(
        lr_width(0.4, 0.7, 0.9, 1000, 200, 200), abs=1e-12
    )


def test_expected_width_matches_monte_carlo_of_the_simulation_engine():
    simulate = pytest.importorskip("judgestats.simulate")
    theta = np.array([0.0, 0.2, 0.557, 0.9])
    for m0, m1 in ((250, 250), (60, 20)):
        run = simulate.coverage(
            "lang_reiczigel",
            theta=theta,
            q0=0.7,
            q1=0.9,
            n=1000,
            m0=m0,
            m1=m1,
            reps=20_000,
            random_seed=11,
        )
        for t, mc in zip(theta, run.width_mean.values, strict=True):
            p = t * 0.9 + (1 - t) * 0.3  # Lee et al. (ICML 2026) eq. (9)
            # width sd <= 0.1, so the Monte Carlo standard error is below 0.0007
            assert expected_width(m0, m1, p, 0.7, 0.9, n=1000) == pytest.approx(mc, abs=0.002)


def test_width_falls_with_every_calibration_item_and_with_n():
    for method in ("frequentist", "plugin"):
        grid = [
            [expected_width(a, b, 0.35, 0.75, 0.9, n=500, method=method) for b in (5, 10, 40, 160)]
            for a in (5, 10, 40, 160)
        ]
        grid = np.array(grid)
        assert (np.diff(grid, axis=0) < 0).all() and (np.diff(grid, axis=1) < 0).all()
    assert (
        expected_width(100, 100, 0.5, 0.8, 0.8, n=300)
        > expected_width(100, 100, 0.5, 0.8, 0.8, n=3000)
        > expected_width(100, 100, 0.5, 0.8, 0.8)
    )


# ---- the exact optimum ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("m", "p", "q0", "q1", "n"),
    [
        (12, 0.3, 0.7, 0.9, math.inf),
        (16, 0.7, 0.85, 0.75, math.inf),
        (9, 0.5, 0.8, 0.9, 15),
    ],
)
def test_optimum_equals_a_brute_force_loop_over_splits(m, p, q0, q1, n):
    widths = {m0: brute_expected_width(m0, m - m0, p, q0, q1, n) for m0 in range(1, m)}
    best = min(widths, key=widths.get)
    with pytest.warns(JudgeStatsWarning):
        plan = optimal_allocation(m, p, q0, q1, n=n)
    assert plan.m0 == best and plan.m1 == m - best
    assert plan.width == pytest.approx(widths[best], rel=1e-9)
    assert plan.alternative("equal").width == pytest.approx(widths[m - m // 2], rel=1e-9)


def test_plugin_optimum_equals_a_brute_force_loop_over_splits():
    m = 400
    widths = [lr_width(0.3, 0.7, 0.9, math.inf, m0, m - m0) for m0 in range(1, m)]
    best = 1 + int(np.argmin(widths))
    plan = optimal_allocation(m, 0.3, 0.7, 0.9, method="plugin")
    assert tuple(plan) == (best, m - best)
    assert plan.width == pytest.approx(min(widths), rel=1e-12)


def test_optimum_is_never_longer_than_algorithm1_or_the_equal_split():
    for p in (0.1, 0.3, 0.5, 0.65, 0.8, 0.95):
        for q0, q1 in ((0.7, 0.9), (0.9, 0.7), (0.95, 0.95), (0.6, 0.6)):
            if not 1 - q0 <= p <= q1:  # a rate this judge cannot produce is refused
                continue
            for m, n in ((60, math.inf), (300, 1000)):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", JudgeStatsWarning)
                    plan = optimal_allocation(m, p, q0, q1, n=n, m_pilot=10)
                for rule in ("equal", "algorithm1"):
                    assert plan.width <= plan.alternative(rule).width * (1 + 1e-12)
                    assert plan.savings[rule] >= -1e-12


def test_symmetric_split_points_of_section_five():
    # Lee et al. v1 Sec. 5: kappa = 3 -> Prop. 2 is symmetric where (1/p - 1) sqrt 3 = 1,
    # p = sqrt3 / (1 + sqrt3) = 0.634, theta = (p + 0.7 - 1) / 0.6 = 0.557 (eq. 8)
    p_prop2 = math.sqrt(3) / (1 + math.sqrt(3))
    assert (p_prop2 + 0.7 - 1) / 0.6 == pytest.approx(0.557, abs=5e-4)
    plan = optimal_allocation(1000, p_prop2, 0.7, 0.9, method="plugin")
    assert tuple(plan.alternative("algorithm1")) == (500, 500)
    # the exact optimum is symmetric where the un-approximated ratio of Prop. A.2's proof is 1:
    # (q1 - p)/(p + q0 - 1) sqrt(q0(1-q0)/(q1(1-q1))) = 1 -> p = (q1 r + 1 - q0)/(1 + r) = 0.663
    r = math.sqrt(0.7 * 0.3 / (0.9 * 0.1))
    p_exact = (0.9 * r + 1 - 0.7) / (1 + r)
    symmetric = optimal_allocation(1000, p_exact, 0.7, 0.9, method="plugin")
    assert abs(symmetric.m0 - symmetric.m1) <= 20
    # ... so at Prop. 2's point the exact optimum still favours m0
    assert plan.m0 - plan.m1 > 50


def test_large_budget_uses_the_refined_search_and_finds_the_exhaustive_optimum():
    m = 3000
    widths = [lr_width(0.2, 0.8, 0.95, math.inf, m0, m - m0) for m0 in range(1, m)]
    plan = optimal_allocation(m, 0.2, 0.8, 0.95, method="plugin")
    assert plan.width == pytest.approx(min(widths), rel=1e-12)
