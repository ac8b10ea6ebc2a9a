"""Calibration planning, humans only: Lee et al. (ICML 2026) Sec. 6, closed forms of Prop. 6.1."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from judgestats.planning import (
    compare_human_only,
    human_only_ratio,
)


# ---- humans only (Lee et al. (ICML 2026) Sec. 6) --------------------------------------------
def test_human_only_boundary_of_proposition_6_1():
    # theta(1 - theta) = q(1-q)/(2q-1)^2 at theta = 1/2 +- sqrt(1/2 - 1/(4(2q-1)^2))
    for q in (0.87, 0.9, 0.95):
        half = math.sqrt(0.5 - 1 / (4 * (2 * q - 1) ** 2))
        ratio = human_only_ratio(np.array([0.5 - half, 0.5 + half]), q, q)
        np.testing.assert_allclose(ratio, 1.0, rtol=1e-12)
    # theta = 1/2, q = 0.9: (0.5*0.09 + 0.5*0.09) / (0.64 * 0.25) = 0.5625
    assert float(human_only_ratio(0.5, 0.9, 0.9)) == pytest.approx(0.5625, rel=1e-12)
    # below q = 1/2 + 1/(2 sqrt 2) = 0.854 humans always win
    assert (human_only_ratio(np.linspace(0.01, 0.99, 99), 0.85, 0.85) > 1).all()


def test_optimal_split_is_never_worse_than_the_natural_one():
    theta, q0, q1 = np.meshgrid(np.linspace(0.05, 0.95, 7), [0.6, 0.8, 0.99], [0.7, 0.9])
    assert (
        human_only_ratio(theta, q0, q1, split="optimal")
        <= human_only_ratio(theta, q0, q1) * (1 + 1e-12)
    ).all()


def test_compare_human_only_by_hand():
    # p = 0.6, q0 = 0.85, q1 = 0.9: J = 0.75, theta = (0.6 + 0.85 - 1)/0.75 = 0.6
    result = compare_human_only(40, 0.6, 0.85, 0.9, n=1000)
    theta = 0.6
    assert result.theta == pytest.approx(theta)
    assert result.var_human == pytest.approx(theta * (1 - theta) / 40)
    natural = (0.6 * 0.4 / 1000 + ((1 - theta) * 0.85 * 0.15 + theta * 0.9 * 0.1) / 40) / 0.75**2
    optimal = (
        0.6 * 0.4 / 1000
        + ((1 - theta) * math.sqrt(0.85 * 0.15) + theta * math.sqrt(0.9 * 0.1)) ** 2 / 40
    ) / 0.75**2
    assert result.var_judge_natural == pytest.approx(natural, rel=1e-12)
    assert result.var_judge_optimal == pytest.approx(optimal, rel=1e-12)
    assert result.judge_better == (natural <= theta * (1 - theta) / 40)
    assert json.loads(json.dumps(result.to_dict()))["judge_better"] == result.judge_better
    assert "Prop. 6.1" in str(result)


def test_human_only_refuses_a_rate_the_judge_cannot_produce():
    # p = 0.05 < 1 - q0 = 0.3: impossible for this judge (issue 25 item 7), no longer clipped
    with pytest.raises(ValueError, match=r"`p` \(0.05\) must lie in \[1 - `q0`, `q1`\]"):
        compare_human_only(200, 0.05, 0.7, 0.9, n=1000)
    result = compare_human_only(200, 0.3, 0.7, 0.9, n=1000)  # the edge: theta = 0
    assert result.theta == 0.0 and result.var_human == 0.0
