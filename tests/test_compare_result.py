"""Two-model comparison (judgestats.compare): the result's summary, to_dict, plot and report."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from judgestats import JudgeData, compare  # noqa: E402
from judgestats.results import IntervalResult, Result  # noqa: E402


def test_summary_returns_a_frame_and_prints_nothing(capsys):
    a = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    b = JudgeData(k=600, n=1000, k0=168, m0=200, k1=182, m1=200)
    result = compare(a, b, method="bootstrap", random_seed=0, bootstrap={"n_resamples": 4000})
    capsys.readouterr()
    frame = result.summary()
    assert capsys.readouterr() == ("", "")  # the contract: summary() never prints
    assert isinstance(frame, pd.DataFrame)
    assert frame.loc["theta_A - theta_B", "estimate"] == result.estimate
    assert tuple(frame.loc["theta_A - theta_B", ["low", "high"]]) == tuple(result.ci)
    assert frame.loc["J_B", "estimate"] == pytest.approx(168 / 200 + 182 / 200 - 1)
    assert list(frame.columns) == ["estimate", "low", "high"]
    assert frame.attrs["flags"] == [] and frame.attrs["verdict"] == result.verdict
    # every (estimate, low, high) is an IntervalResult of the contract, at the comparison's level
    rows = [result.theta_a, result.theta_b, result.difference, result.youden["A"]]
    rows += [result.youden["B"], result.instability, result.delta_q0, result.delta_q1]
    for row in rows:
        assert isinstance(row, IntervalResult) and row.confidence_level == 0.95
        assert row.low <= row.estimate <= row.high
    assert tuple(result.difference) == (result.estimate, *result.ci)
    assert result.difference.method == "rogan_gladen+bootstrap_bca"
    assert isinstance(result, Result)
    assert "7. verdict" in str(result)
    assert capsys.readouterr() == ("", "")


def test_to_dict_plot_and_repr():
    a = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    b = JudgeData(k=600, n=1000, k0=168, m0=200, k1=182, m1=200)
    result = compare(a, b, method="bootstrap", random_seed=0, bootstrap={"n_resamples": 4000})
    payload = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert payload["ci"] == list(result.ci)
    assert payload["inputs"]["b"]["calibration"] == {"k0": 168, "m0": 200, "k1": 182, "m1": 200}
    assert payload["theta_a"] == dict(zip(("estimate", "low", "high"), result.theta_a, strict=True))
    # the test sets have equal sizes and come as counts: taken as independent (a note, no flag)
    assert payload["flags"] == {} and list(payload["notes"]) == ["unpaired_test_sets"]
    ax = result.plot()  # both panels in a new figure; the difference's Axes comes back
    assert isinstance(ax, Axes) and ax.get_xlabel() == "theta_A - theta_B"
    left = ax.figure.axes[0]
    assert left.get_xlabel() == "true accuracy theta"
    assert [t.get_text() for t in left.get_legend().get_texts()] == ["model A", "model B"]
    _, own = plt.subplots()
    assert compare(a, b).plot(ax=own) is own  # one Axes: the difference panel only
    assert own.get_xlabel() == "theta_A - theta_B" and len(own.figure.axes) == 1
    _, pair = plt.subplots(1, 2)
    assert compare(a, b).plot(ax=pair) is pair[1]  # a pair: both panels
    assert pair[0].get_xlabel() == "true accuracy theta"
    plt.close("all")
    assert "Comparison(estimate=" in repr(result)
    for item in (
        "1. estimand",
        "3. calibration",
        "4. intervals",
        "5. judge quality",
        "6. instability",
        "7. verdict",
    ):
        assert item in result.report()
