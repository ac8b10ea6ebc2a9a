"""Planning at huge budgets (cost independent of m) and planning values the judge cannot produce."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgestats import JudgeStatsWarning
from judgestats.cli import main
from judgestats.planning import _width, compare_human_only, optimal_allocation, required_calibration


def test_a_budget_of_a_trillion_is_planned_at_once(capsys):
    code = main(["plan", "--p", "0.3", "--q0", "0.7", "--q1", "0.9", "--m", "1000000000000"])
    out = capsys.readouterr().out
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("  ")}
    assert rows["equal"][1:4] == ["500000000000", "500000000000", "1000000000000"]
    assert int(rows["optimal"][1]) + int(rows["optimal"][2]) == 10**12


def test_huge_test_sets_and_budgets_use_the_normal_limit_of_the_nodes():
    size, prob = 2.9e7, 0.5  # sd 2693, just beyond the limit
    sd = math.sqrt(size * prob * (1 - prob))
    assert sd > _width.NORMAL_LIMIT_SD
    exact = _width.binomial_nodes.__wrapped__  # the binomial runs, computed in full here
    limit = _width.NORMAL_LIMIT_SD
    try:
        _width.NORMAL_LIMIT_SD = math.inf
        centre, weight = exact(size, prob, 48)
    finally:
        _width.NORMAL_LIMIT_SD = limit
    normal_centre, normal_weight = _width.binomial_nodes(size, prob, 48)
    assert np.abs(centre - normal_centre).max() < 1e-3 * sd
    assert np.abs(weight - normal_weight).max() < 1e-3
    plan = optimal_allocation(10**12, 0.3, 0.7, 0.9, n=10**12)
    assert plan.m0 + plan.m1 == 10**12 and 0 < plan.width < 1e-3


@pytest.mark.parametrize("p", [0.0, 0.29, 0.91, 1.0])
def test_a_judged_correct_rate_outside_the_judges_range_is_refused(p, capsys):
    message = rf"`p` \({p:g}\) must lie in \[1 - `q0`, `q1`\] = \[0.3, 0.9\]"
    with pytest.raises(ValueError, match=message):
        optimal_allocation(200, p, 0.7, 0.9)
    with pytest.raises(ValueError, match=message):
        required_calibration(0.1, p, 0.7, 0.9)
    with pytest.raises(ValueError, match=message):
        compare_human_only(200, p, 0.7, 0.9)
    code = main(["plan", "--p", str(p), "--q0", "0.7", "--q1", "0.9", "--m", "200"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and captured.err.count("\n") == 1
    assert "impossible for it" in captured.err


def test_the_ends_of_the_judges_range_are_planned():
    for p in (0.3, 0.9):  # theta = 0 and theta = 1
        with pytest.warns(JudgeStatsWarning):  # an arm under 30 items at the edge
            assert optimal_allocation(200, p, 0.7, 0.9).total == 200
