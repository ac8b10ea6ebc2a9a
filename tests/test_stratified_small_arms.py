"""Small calibration arms (issue 25): what the pooled-bias diagnostic cannot see (item 8), and
the coverage of a weak stratum near 0 or 1 (item 10)."""

from __future__ import annotations

import json
import math
import warnings
from statistics import NormalDist

import numpy as np
import pytest

from judgestats import JudgeStatsWarning
from judgestats.frequentist import lang_reiczigel_parts
from judgestats.stratified import StratifiedData, pooled_bias, stratified_estimate
from judgestats.stratified.closed_form import uncut_limits


def _quiet(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        return stratified_estimate(data)


def test_small_arms_state_the_bias_the_diagnostic_cannot_see():
    data = StratifiedData(
        strata=("weak", "strong"), k=[170, 420], n=[500, 500],
        k0=[6, 9], m0=[10, 10], k1=[7, 10], m1=[10, 10],
    )  # fmt: skip
    diagnostic = pooled_bias(data)
    assert not diagnostic.flagged and diagnostic.blind
    assert abs(diagnostic.undetectable - 2 * diagnostic.se) < 1e-15
    text = str(_quiet(data))
    assert "not flagged, but it cannot see a pooled bias smaller than about" in text
    assert f"{diagnostic.undetectable:.3f}" in text
    assert json.loads(json.dumps(diagnostic.to_dict()))["undetectable"] > 0.01


def test_large_arms_are_not_blind():
    data = StratifiedData(
        strata=("easy", "hard"), k=[688, 92], n=[800, 200],
        k0=[95, 70], m0=[100, 100], k1=[95, 70], m1=[100, 100],
    )  # fmt: skip
    diagnostic = pooled_bias(data)
    assert diagnostic.flagged and not diagnostic.blind
    assert "cannot see" not in str(diagnostic)


def _binomial_pmf(size: int, rate: float) -> np.ndarray:
    return np.array(
        [math.comb(size, i) * rate**i * (1 - rate) ** (size - i) for i in range(size + 1)]
    )


@pytest.mark.parametrize(("theta", "side"), [(0.05, "low"), (0.97, "high")])
def test_weak_stratum_near_a_boundary_exact_coverage(theta, side):
    # issue 25 item 10: a weak judge (q0, q1) = (0.6, 0.65), 10 labels per arm, 100 test items,
    # true accuracy near 0 or 1. Exact coverage over every (k, k0, k1) with J-hat > 0 (equal arms:
    # raw, Laplace and Agresti-Coull adjusted judges then share their sign), from binomial
    # probabilities written out here; the limits are those MOVER combines (uncut_limits) and, for
    # comparison, the Laplace-adjusted ones of eqs. 5-7 that it combined before.
    n, m, q0, q1 = 100, 10, 0.6, 0.65
    k, k0, k1 = (
        a.ravel()
        for a in np.meshgrid(np.arange(n + 1), np.arange(m + 1), np.arange(m + 1), indexing="ij")
    )
    prob = (
        _binomial_pmf(n, theta * q1 + (1 - theta) * (1 - q0))[k]
        * _binomial_pmf(m, q0)[k0]
        * _binomial_pmf(m, q1)[k1]
    )
    keep = k0 + k1 > m
    k, k0, k1, prob = k[keep], k0[keep], k1[keep], prob[keep] / prob[keep].sum()
    size = k.size
    data = StratifiedData(
        strata=tuple(str(i) for i in range(size)), k=k, n=np.full(size, n),
        k0=k0, m0=np.full(size, m), k1=k1, m1=np.full(size, m),
    )  # fmt: skip
    z = NormalDist().inv_cdf(0.975)
    low, high = uncut_limits(data, z)
    covered = float(prob[(low <= theta) & (theta <= high)].sum())
    centre, se, _ = lang_reiczigel_parts(k / n, k0 / m, k1 / m, n, m, m, z, np.sqrt)
    laplace_low, laplace_high = centre - z * se, centre + z * se
    # the Laplace limits miss on the side of the boundary theta is near, about twice 0.025
    # (0.055 near 0: coverage 0.945), and almost never on the other; the Agresti-Coull limits
    # miss on that side at most 0.035 and cover >= 0.95
    if side == "low":
        misses = (laplace_low > theta, laplace_high < theta, low > theta)
    else:
        misses = (laplace_high < theta, laplace_low > theta, high < theta)
    near, far, adjusted = (float(prob[miss].sum()) for miss in misses)
    assert near > 0.045 and far < 0.001
    assert adjusted < 0.035
    assert covered >= 0.95


def test_a_stratum_no_better_than_chance_after_the_agresti_coull_adjustment_is_named():
    # stratum "a": raw J = 1/7 + 3/3 - 1 > 0, Laplace (2/9 + 4/5 - 1 = 0.022) > 0, but with
    # z^2/2 ~ 1.92 added to each arm's successes and failures (1 + 1.92) / (7 + 3.84) +
    # (3 + 1.92) / (3 + 3.84) - 1 = -0.011 <= 0: MOVER has no limits for it
    data = StratifiedData(
        strata=("a", "b"), k=[50, 92], n=[100, 200],
        k0=[1, 70], m0=[7, 100], k1=[3, 70], m1=[3, 100],
    )  # fmt: skip
    with pytest.raises(ValueError, match="stratum 'a'.*Agresti-Coull"):
        _quiet(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        summed = stratified_estimate(data, interval="summed")  # Laplace-adjusted: defined
    assert 0.0 <= summed.ci.low < summed.ci.high <= 1.0
