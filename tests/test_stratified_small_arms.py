"""What the pooled-bias diagnostic cannot see at small calibration arms (issue 25 item 8)."""

from __future__ import annotations

import json
import warnings

from judgestats import JudgeStatsWarning
from judgestats.stratified import StratifiedData, pooled_bias, stratified_estimate


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
