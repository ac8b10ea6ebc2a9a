"""Calibration planning: the result objects (CalibrationPlan, the humans-only comparison).

Their JSON, summary, text, plots and HTML rows.
"""

from __future__ import annotations

import json
import math

import matplotlib
import pytest
from _allocation_reference import small_arm

import judgestats as jc
from judgestats.planning import (
    CalibrationPlan,
    compare_human_only,
    optimal_allocation,
    plot_human_only_regime,
    required_calibration,
)

matplotlib.use("Agg")


@pytest.mark.slow
def test_plots_return_axes():
    import matplotlib.pyplot as plt

    ax = plot_human_only_regime(resolution=41)
    assert ax.get_xlabel().startswith("true accuracy")
    ax = plot_human_only_regime(q0=0.9, split="optimal", resolution=41)
    assert "q1" in ax.get_ylabel()
    with small_arm():
        plan = optimal_allocation(80, 0.3, 0.7, 0.9)
    ax = plan.plot()
    assert len(ax.lines) == 4  # the width curve and one marker per rule
    plt.close("all")


# ---- the result object ------------------------------------------------------------------------
def test_plan_result_object():
    with small_arm():
        plan = optimal_allocation(200, 0.3, 0.7, 0.9, n=1000)
    assert isinstance(plan, CalibrationPlan) and jc.CalibrationPlan is CalibrationPlan
    d = json.loads(json.dumps(plan.to_dict(), allow_nan=False))
    assert (d["m0"], d["m1"], d["total"], d["n"]) == (plan.m0, plan.m1, 200, 1000)
    assert set(d["savings"]) == {"equal", "algorithm1"}
    frame = plan.summary()
    assert list(frame.index) == ["optimal", "equal", "algorithm1"]
    assert frame.loc["equal", "m0"] == 100
    assert "optimal" in str(plan) and "shorter than equal" in str(plan)
    assert "m0=" in repr(plan)
    with small_arm():
        wide = required_calibration(0.2, 0.3, 0.7, 0.9)
    assert json.loads(json.dumps(wide.to_dict()))["n"] is None


# ---- the result contract ----------------------------------------------------------------------
def _html_rows(markup):
    import xml.etree.ElementTree as ET

    root = ET.fromstring(markup)
    assert root.get("class") == "judgestats-result"
    rows = {}
    for tr in root.iter("tr"):
        cells = ["".join(cell.itertext()) for cell in tr]
        rows[cells[0]] = cells[1:]
    notes = [li.find("code").text for li in root.iter("li") if li.find("code") is not None]
    return rows, notes


def test_plan_is_a_result_with_registered_flags_and_html(capsys):
    from judgestats.planning import PLAN_FLAGS
    from judgestats.results import FLAG_MESSAGES, Result

    with small_arm():
        plan = optimal_allocation(80, 0.3, 0.7, 0.9)
    assert isinstance(plan, Result)
    assert "small_arm" in plan.flags and set(PLAN_FLAGS) <= set(FLAG_MESSAGES)
    assert plan.flag_messages == [PLAN_FLAGS[flag] for flag in plan.flags]
    capsys.readouterr()
    plan.summary()
    assert capsys.readouterr() == ("", "")
    rows, notes = _html_rows(plan._repr_html_())
    assert rows["rule"] == ["m0", "m1", "total", "width"]
    for each in (plan, *plan.alternatives):
        assert rows[each.rule] == [str(each.m0), str(each.m1), "80", f"{each.width:.4f}"]
    assert "small_arm" in notes
    no_flags = optimal_allocation(400, 0.4, 0.7, 0.9)
    assert no_flags.flags == () and "small_arm" not in _html_rows(no_flags._repr_html_())[1]


def test_human_only_comparison_is_a_result(capsys):
    import matplotlib.pyplot as plt

    from judgestats.results import Result

    # the numbers of test_compare_human_only_by_hand: theta = 0.6, m = 40, n = 1000
    result = compare_human_only(40, 0.6, 0.85, 0.9, n=1000)
    assert isinstance(result, Result) and result.flags == ()
    capsys.readouterr()
    frame = result.summary()
    assert capsys.readouterr() == ("", "")
    human = 0.6 * 0.4 / 40
    natural = (0.6 * 0.4 / 1000 + (0.4 * 0.85 * 0.15 + 0.6 * 0.9 * 0.1) / 40) / 0.75**2
    assert list(frame.columns) == ["variance", "sd", "ratio"]
    assert frame["variance"].iloc[0] == pytest.approx(human, rel=1e-12)
    assert frame["sd"].iloc[1] == pytest.approx(math.sqrt(natural), rel=1e-12)
    assert frame["ratio"].iloc[1] == pytest.approx(natural / human, rel=1e-12)
    ax = result.plot()
    widths = sorted(patch.get_width() for patch in ax.patches)
    assert widths == pytest.approx(sorted(frame["sd"]), rel=1e-12)
    plt.close("all")
    rows, notes = _html_rows(result._repr_html_())
    assert rows[frame.index[1]][0] == f"{math.sqrt(natural):.4f}" and notes == []
    assert json.loads(json.dumps(result.to_dict()))["flags"] == {}
