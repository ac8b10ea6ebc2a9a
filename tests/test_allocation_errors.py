"""Calibration planning: the errors of the planning functions name the argument."""

from __future__ import annotations

import pytest

from judgestats.paper import allocate_calibration_sample
from judgestats.planning import (
    allocate_calibration,
    compare_human_only,
    expected_width,
    human_only_ratio,
    optimal_allocation,
    required_calibration,
)


# ---- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: allocate_calibration(1, 0.3, q0_pilot=0.7, q1_pilot=0.9, m_pilot=0),
            ValueError,
            r"`m` \(1\) must be at least 2",
        ),
        (
            lambda: allocate_calibration(20.5, 0.3, q0_pilot=0.7, q1_pilot=0.9, m_pilot=0),
            ValueError,
            r"`m` \(20.5\) must be a whole number",
        ),
        (
            lambda: allocate_calibration([20, 30], 0.3, q0_pilot=0.7, q1_pilot=0.9, m_pilot=0),
            TypeError,
            r"`m` must be a single number",
        ),
        (
            lambda: allocate_calibration(20, 1.3, q0_pilot=0.7, q1_pilot=0.9, m_pilot=0),
            ValueError,
            r"`p` \(1.3\) must lie in \[0, 1\]",
        ),
        (
            lambda: allocate_calibration(20, 0.3, q0_pilot=0.7, q1_pilot=0.9, m_pilot=-1),
            ValueError,
            r"`m_pilot` \(-1\) must not be negative",
        ),
        (
            lambda: allocate_calibration(20, 0.3, q0_pilot=0.7, q1_pilot=0.9, m_pilot=11),
            ValueError,
            r"`m_pilot` \(11\) is too large for `m` \(20\).*m_pilot <= 10",
        ),
        (
            lambda: allocate_calibration(20, 0.3, q0_pilot=0.4, q1_pilot=0.6, m_pilot=5),
            ValueError,
            r"no better than chance",
        ),
        (
            lambda: allocate_calibration_sample(20, 0.3, 0.7, 0.9, 11),
            ValueError,
            r"`m_pilot` \(11\) is too large",
        ),
        (
            lambda: allocate_calibration_sample(20, 0.3, 0.3, 0.6, 5),
            ValueError,
            r"no better than chance",
        ),
        (
            lambda: allocate_calibration_sample(20, 0.3, eps=-1),
            ValueError,
            r"`eps` \(-1\) must be a single number in \[0, 0.5\)",
        ),
        (
            lambda: optimal_allocation(100, 0.3, float("nan"), 0.9),
            ValueError,
            r"`q0` \(nan\) must be a finite proportion",
        ),
        (
            lambda: optimal_allocation(100, 0.3, 0.7, 0.9, n=0),
            ValueError,
            r"`n` \(0\) must be at least 1",
        ),
        (
            lambda: optimal_allocation(100, 0.3, 0.7, 0.9, confidence_level=1),
            ValueError,
            r"`confidence_level` \(1\) must lie strictly between 0 and 1",
        ),
        (
            lambda: optimal_allocation(100, 0.3, 0.7, 0.9, method="bayes"),
            ValueError,
            r"`method` \('bayes'\) must be one of 'frequentist', 'plugin'",
        ),
        (
            lambda: required_calibration(0, 0.3, 0.7, 0.9),
            ValueError,
            r"`width` \(0.0\) must be greater than 0",
        ),
        (
            lambda: required_calibration(1.5, 0.3, 0.7, 0.9),
            ValueError,
            r"`width` \(1.5\) must lie in \[0, 1\]",
        ),
        (
            lambda: required_calibration(0.1, 0.3, 0.7, 0.9, allocation="neyman"),
            ValueError,
            r"`allocation` \('neyman'\) must be one of 'optimal', 'equal', 'algorithm1'",
        ),
        (
            lambda: required_calibration(0.1, 0.3, 0.7, 0.9, method="mcmc"),
            ValueError,
            r"`method` \('mcmc'\) must be one of",
        ),
        (
            lambda: required_calibration(0.05, 0.5, 0.8, 0.9, n=1000),
            ValueError,
            r"`width` \(0.05\) is unreachable with `n` = 1000.*test set alone.*larger test set",
        ),
        (
            lambda: required_calibration(1e-7, 0.5, 0.8, 0.9, allocation="equal", method="plugin"),
            ValueError,
            r"was not reached with up to 67108864 calibration items",
        ),
        (
            lambda: required_calibration(0.1, 0.5, 0.8, 0.9, method="bayes"),
            ValueError,
            r"`n` \(inf\) must be a finite test-set size for method='bayes'",
        ),
        (
            lambda: expected_width(0, 10, 0.5, 0.8, 0.9),
            ValueError,
            r"`m0` \(0\) must be at least 1",
        ),
        (lambda: expected_width(10, 10, 0.5, 0.3, 0.7), ValueError, r"no better than chance"),
        (
            lambda: human_only_ratio(0.5, 0.9, 0.9, split="random"),
            ValueError,
            r"`split` \('random'\) must be 'natural' or 'optimal'",
        ),
        (lambda: compare_human_only(0, 0.5, 0.9, 0.9), ValueError, r"`m` \(0\) must be at least 1"),
        (
            lambda: optimal_allocation(80, 0.5, 0.8, 0.9).alternative("bayes"),
            ValueError,
            r"`rule` \('bayes'\) is not among this plan's alternatives",
        ),
    ],
)
def test_error_messages(call, error, message):
    with pytest.raises(error, match=message):
        call()
